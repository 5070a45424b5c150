// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl thresholds [WARN CRIT]: per mille of a container's limit. */
#include "ctl.h"

int cmd_thresholds(struct ia_ctx *ctx)
{
	struct ia_thresholds t = { ctx->warn, ctx->crit };
	int err;

	if (ctx->nargs)
		err = ia_set_thresholds(&ctx->cl, &t);
	else
		err = ia_get_thresholds(&ctx->cl, &t);
	if (err)
		return ia_ctl_error(ctx, "thresholds", err);
	if (ctx->json)
		printf("{\"warn\":%u,\"crit\":%u}\n", t.warn, t.crit);
	else
		printf("warn %u (%.1f%%)  crit %u (%.1f%%) of each container's limit\n",
		       t.warn, t.warn / 10.0, t.crit, t.crit / 10.0);
	return IA_EXIT_OK;
}
