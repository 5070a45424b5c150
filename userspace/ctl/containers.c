// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl containers [--id N]: VFIO type1 containers. */
#include <inttypes.h>
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

/* The repeated u32 attribute @attr of @nlh as "a,b,c" ("" when none). */
const char *ia_u32_list(struct nlmsghdr *nlh, int attr, char *buf, size_t len)
{
	struct nlattr *a;
	size_t off = 0;
	int rem;

	buf[0] = 0;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) == attr && off < len)
			off += snprintf(buf + off, len - off, "%s%u", off ? "," : "",
					nla_get_u32(a));
	}
	return buf;
}

static void print_failure(struct ia_ctx *ctx, struct nlattr *nest)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_FAILURE_MAX + 1];
	char b[96];

	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_FAILURE_MAX, nest, NULL))
		return;
	if (ctx->json) {
		printf(",\"last_failure\":{\"time_ns\":%" PRIu64 ",\"errno\":%u,\"iova\":%" PRIu64
		       ",\"size\":%" PRIu64, u64a(tb, IOMMU_ACCOUNT_A_FAILURE_TIME_NS),
		       u32a(tb, IOMMU_ACCOUNT_A_FAILURE_ERRNO),
		       u64a(tb, IOMMU_ACCOUNT_A_FAILURE_IOVA), u64a(tb, IOMMU_ACCOUNT_A_FAILURE_SIZE));
		ia_print_owner(ctx, tb[IOMMU_ACCOUNT_A_FAILURE_OWNER], "owner");
		printf("}");
		return;
	}
	printf("    last failure: %s at iova 0x%" PRIx64 " size %" PRIu64 " by %s\n",
	       strerror((int)u32a(tb, IOMMU_ACCOUNT_A_FAILURE_ERRNO)),
	       u64a(tb, IOMMU_ACCOUNT_A_FAILURE_IOVA), u64a(tb, IOMMU_ACCOUNT_A_FAILURE_SIZE),
	       ia_owner_str(tb[IOMMU_ACCOUNT_A_FAILURE_OWNER], b, sizeof(b)));
}

/* Refused MAP_DMA calls by errno: attribute, JSON key, table label. */
static const struct {
	int attr;
	const char *key, *label;
} fails[] = {
	{ IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC, "fail_enospc", "ENOSPC" },
	{ IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM, "fail_enomem", "ENOMEM" },
	{ IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL, "fail_einval", "EINVAL" },
	{ IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER, "fail_other", "other" },
};

#define NFAILS (sizeof(fails) / sizeof(fails[0]))

static int container_cb(struct ia_ctx *ctx, struct nlmsghdr *nlh, struct nlattr **tb,
			void *arg)
{
	unsigned int *n = arg;
	uint32_t entries = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_ENTRIES);
	uint32_t limit = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_LIMIT);
	char b1[32], b2[32], b3[96], groups[128];
	uint64_t fail[NFAILS], nfail = 0;
	size_t i;

	for (i = 0; i < NFAILS; i++)
		nfail += fail[i] = u64a(tb, fails[i].attr);
	ia_u32_list(nlh, IOMMU_ACCOUNT_A_CONTAINER_GROUP, groups, sizeof(groups));
	if (ctx->json) {
		printf("%s{\"id\":%u,\"groups\":[%s]", (*n)++ ? "," : "",
		       u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_ID), groups);
		printf(",\"entries\":%u,\"limit\":%u,\"mapped_bytes\":%" PRIu64
		       ",\"pinned_pages\":%" PRIu64, entries, limit,
		       u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES),
		       u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES));
		if (tb[IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID])
			printf(",\"pinned_uid\":%u", u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID));
		ia_print_owner(ctx, tb[IOMMU_ACCOUNT_A_CONTAINER_OWNER], "owner");
		printf(",\"map_ops\":%" PRIu64 ",\"unmap_ops\":%" PRIu64,
		       u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS),
		       u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS));
		for (i = 0; i < NFAILS; i++)
			printf(",\"%s\":%" PRIu64, fails[i].key, fail[i]);
		printf(",\"inexact\":%u", u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT));
		if (tb[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE])
			print_failure(ctx, tb[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE]);
		printf("}");
		return 0;
	}
	if (!(*n)++)
		printf("%-5s %-8s %14s %7s %12s %10s  %s\n", "ID", "GROUPS", "ENTRIES/LIMIT",
		       "USED", "MAPPED", "PINNED", "OWNER");
	snprintf(b1, sizeof(b1), "%u/%u", entries, limit);
	printf("%-5u %-8s %14s %6.1f%% %12s %10" PRIu64 "  %s\n",
	       u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_ID), groups[0] ? groups : "-", b1,
	       limit ? 100.0 * entries / limit : 0.0,
	       ia_human_bytes(u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES), b2, sizeof(b2)),
	       u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES),
	       ia_owner_str(tb[IOMMU_ACCOUNT_A_CONTAINER_OWNER], b3, sizeof(b3)));
	if (u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT))
		printf("    INEXACT:%s%s%s\n",
		       u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT) &
		       IOMMU_ACCOUNT_INEXACT_PROBE_MISSED ? " refusals may be missing (probe missed)" : "",
		       u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT) &
		       IOMMU_ACCOUNT_INEXACT_NO_MEMORY ? " records lost (no memory)" : "",
		       u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT) &
		       IOMMU_ACCOUNT_INEXACT_PINNED ? " pinned pages (unpin larger than seen)" : "");
	if (nfail) {
		printf("    refused:");
		for (i = 0; i < NFAILS; i++)
			printf("%s %" PRIu64 " %s", i ? "," : "", fail[i], fails[i].label);
		printf("\n");
	}
	if (tb[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE])
		print_failure(ctx, tb[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE]);
	return 0;
}

int cmd_containers(struct ia_ctx *ctx)
{
	unsigned int n = 0;
	int ret;

	ret = ia_get_objects(ctx, IOMMU_ACCOUNT_CMD_GET_CONTAINER,
			     IOMMU_ACCOUNT_A_CONTAINER_ID, IOMMU_ACCOUNT_A_CONTAINER_MAX,
			     container_cb, &n);
	if (!ctx->json && !n && ret == IA_EXIT_OK)
		printf("no VFIO type1 container\n");
	return ret;
}
