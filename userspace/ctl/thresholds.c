// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl thresholds [WARN CRIT]: per mille of a container's limit. */
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

static int thresholds_cb(struct ia_ctx *ctx, struct nlmsghdr *nlh, struct nlattr **tb,
			 void *arg)
{
	uint32_t w = tb[IOMMU_ACCOUNT_A_THRESHOLDS_WARN] ?
		nla_get_u32(tb[IOMMU_ACCOUNT_A_THRESHOLDS_WARN]) : 0;
	uint32_t c = tb[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT] ?
		nla_get_u32(tb[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT]) : 0;

	(void)nlh;
	(void)arg;
	if (ctx->json)
		printf("{\"warn\":%u,\"crit\":%u}\n", w, c);
	else
		printf("warn %u (%.1f%%)  crit %u (%.1f%%) of each container's limit\n",
		       w, w / 10.0, c, c / 10.0);
	return 0;
}

int cmd_thresholds(struct ia_ctx *ctx)
{
	struct nl_msg *msg;

	if (!ctx->nargs) {
		msg = ia_msg(ctx, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, false);
	} else {
		msg = ia_msg(ctx, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS, false);
		if (msg && (nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, ctx->warn) ||
			    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, ctx->crit))) {
			nlmsg_free(msg);
			return IA_EXIT_FAIL;
		}
	}
	if (!msg)
		return IA_EXIT_FAIL;
	return ia_request(ctx, msg, IOMMU_ACCOUNT_A_THRESHOLDS_MAX, thresholds_cb, NULL,
			  "thresholds");
}
