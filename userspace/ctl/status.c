// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl status: module version, kernel, state of each feature. */
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

static uint64_t u64a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint32_t u32a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static const char *attr_str(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_string(tb[a]) : "";
}

static void print_feature(struct ia_ctx *ctx, struct nlattr *nest, bool first)
{
	struct nlattr *ft[IOMMU_ACCOUNT_A_FEATURE_MAX + 1];
	const char *state;

	if (nla_parse_nested(ft, IOMMU_ACCOUNT_A_FEATURE_MAX, nest, NULL))
		return;
	state = ft[IOMMU_ACCOUNT_A_FEATURE_STATE] &&
		nla_get_u32(ft[IOMMU_ACCOUNT_A_FEATURE_STATE]) ==
			IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE ? "active" : "unavailable";
	if (ctx->json) {
		printf("%s{\"name\":", first ? "" : ",");
		ia_json_str(stdout, attr_str(ft, IOMMU_ACCOUNT_A_FEATURE_NAME));
		printf(",\"state\":\"%s\",\"detail\":", state);
		ia_json_str(stdout, attr_str(ft, IOMMU_ACCOUNT_A_FEATURE_DETAIL));
		printf("}");
	} else {
		printf("  %-14s %-12s %s\n", attr_str(ft, IOMMU_ACCOUNT_A_FEATURE_NAME),
		       state, attr_str(ft, IOMMU_ACCOUNT_A_FEATURE_DETAIL));
	}
}

static int status_cb(struct ia_ctx *ctx, struct nlmsghdr *nlh,
		     struct nlattr **tb, void *arg)
{
	const char *ver = attr_str(tb, IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION);
	const char *rel = attr_str(tb, IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE);
	unsigned int page = tb[IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE] ?
		nla_get_u32(tb[IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE]) : 0;
	struct nlattr *a;
	bool first = true;
	int rem;

	(void)arg;
	if (ctx->json) {
		printf("{\"module_version\":");
		ia_json_str(stdout, ver);
		printf(",\"kernel_release\":");
		ia_json_str(stdout, rel);
		printf(",\"page_size\":%u,\"features\":[", page);
	} else {
		printf("module version  %s\nkernel release  %s\npage size       %u\nfeatures:\n",
		       ver, rel, page);
	}
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != IOMMU_ACCOUNT_A_STATUS_FEATURE)
			continue;
		print_feature(ctx, a, first);
		first = false;
	}
	if (ctx->json) {
		printf("],\"events_dropped\":%llu,\"probes_missed\":%llu,\"vfio_untracked\":%u}\n",
		       (unsigned long long)u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED),
		       (unsigned long long)u64a(tb, IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED),
		       u32a(tb, IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED));
		return 0;
	}
	printf("events dropped  %llu\nprobes missed   %llu\n",
	       (unsigned long long)u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED),
	       (unsigned long long)u64a(tb, IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED));
	if (u32a(tb, IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED))
		printf("%u VFIO container(s) not tracked (set up before iommu_account loaded)\n",
		       u32a(tb, IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED));
	return 0;
}

int cmd_status(struct ia_ctx *ctx)
{
	struct nl_msg *msg;

	msg = ia_msg(ctx, IOMMU_ACCOUNT_CMD_GET_STATUS, false);
	if (!msg)
		return IA_EXIT_FAIL;
	return ia_request(ctx, msg, IOMMU_ACCOUNT_A_STATUS_MAX, status_cb, NULL, "status");
}
