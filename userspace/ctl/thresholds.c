// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl thresholds [--kind vfio|uid-pot|qpair] [--margin N]
 * [WARN CRIT]: per mille of a container's limit, of the charging process's
 * RLIMIT_MEMLOCK for the uid pot, or of a qpair's capacity (both with a
 * re-arm margin).
 */
#include <uapi/linux/iommu_account.h>

#include <string.h>

#include "ctl.h"

static int cmd_thresholds(struct ia_ctx *ctx)
{
	struct ia_thresholds t = {
		.warn = ctx->warn, .crit = ctx->crit,
		.kind = ctx->kind, .margin = ctx->margin,
	};
	bool pot = ctx->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
	bool qpair = ctx->kind == IOMMU_ACCOUNT_QUOTA_KIND_QPAIR;
	int err;

	if (ctx->nargs)
		err = ia_set_thresholds(&ctx->cl, &t);
	else
		err = ia_get_thresholds(&ctx->cl, &t);
	if (err)
		return ia_ctl_error(ctx, "thresholds", err);
	if (ctx->json && (pot || qpair))
		printf("{\"kind\":\"%s\",\"warn\":%u,\"crit\":%u,\"margin\":%u}\n",
		       pot ? "uid-pot" : "qpair", t.warn, t.crit, t.margin);
	else if (ctx->json)
		printf("{\"warn\":%u,\"crit\":%u}\n", t.warn, t.crit);
	else if (pot)
		printf("warn %u (%.1f%%)  crit %u (%.1f%%) of the charging process's "
		       "RLIMIT_MEMLOCK; re-arm %u below\n", t.warn, t.warn / 10.0,
		       t.crit, t.crit / 10.0, t.margin);
	else if (qpair)
		printf("warn %u (%.1f%%)  crit %u (%.1f%%) of each qpair's capacity (unless it "
		       "set its own); re-arm %u below\n", t.warn, t.warn / 10.0, t.crit,
		       t.crit / 10.0, t.margin);
	else
		printf("warn %u (%.1f%%)  crit %u (%.1f%%) of each container's limit\n",
		       t.warn, t.warn / 10.0, t.crit, t.crit / 10.0);
	return IA_EXIT_OK;
}

/* thresholds knows its kinds (quotas resolves any the module lists); WARN CRIT are numbers. */
static int thresholds_check(struct ia_ctx *ctx)
{
	if (ctx->kind_name) {
		if (!strcmp(ctx->kind_name, "uid-pot"))
			ctx->kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
		else if (!strcmp(ctx->kind_name, "qpair"))
			ctx->kind = IOMMU_ACCOUNT_QUOTA_KIND_QPAIR;
		else if (strcmp(ctx->kind_name, "vfio") && strcmp(ctx->kind_name, "vfio-container"))
			return ia_ctl_usage_error("--kind takes vfio, uid-pot or qpair, not '%s'",
						  ctx->kind_name);
	}
	if (ctx->nargs &&
	    (ia_parse_u32(ctx->args[0], &ctx->warn) || ia_parse_u32(ctx->args[1], &ctx->crit)))
		return ia_ctl_usage_error("%s", "thresholds WARN CRIT take numbers (per mille, "
					  "e.g. 800 950)");
	return 0;
}

const struct ia_ctl_cmd ia_cmd_thresholds = {
	.name = "thresholds",
	.fn = cmd_thresholds,
	.opts = IA_CTL_OPTS(&ia_opt_kind, &ia_opt_margin),
	.max_args = 2,
	.check = thresholds_check,
	.synopsis = "[--kind vfio|uid-pot|qpair] [--margin N] [WARN CRIT]",
	.help = "event thresholds (per mille)",
	.example = "iommu-accountctl thresholds --kind uid-pot 800 950",
};
