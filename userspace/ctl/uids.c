// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl uids [--uid N]: the per-uid locked-memory pot. */
#include <inttypes.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct uids_state {
	unsigned int n;
};

static void json_u64_or_null(const char *key, struct nlattr *a)
{
	uint64_t v;

	if (!a)
		return;
	v = nla_get_u64(a);
	if (v == UINT64_MAX)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%" PRIu64, key, v);
}

static int uid_cb(struct ia_ctx *ctx, struct nlmsghdr *nlh, struct nlattr **tb,
		  void *arg)
{
	struct uids_state *st = arg;
	char b1[32], b2[32], b3[32], b4[32];
	uint64_t locked;
	uint32_t uid, tasks;

	(void)nlh;
	if (!tb[IOMMU_ACCOUNT_A_UID_UID] || !tb[IOMMU_ACCOUNT_A_UID_LOCKED_BYTES])
		return 0;
	uid = nla_get_u32(tb[IOMMU_ACCOUNT_A_UID_UID]);
	locked = nla_get_u64(tb[IOMMU_ACCOUNT_A_UID_LOCKED_BYTES]);
	tasks = tb[IOMMU_ACCOUNT_A_UID_TASKS] ? nla_get_u32(tb[IOMMU_ACCOUNT_A_UID_TASKS]) : 0;
	if (ctx->json) {
		printf("%s{\"uid\":%u,\"locked_bytes\":%" PRIu64 ",\"tasks\":%u",
		       st->n ? "," : "", uid, locked, tasks);
		json_u64_or_null("memlock_min", tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN]);
		json_u64_or_null("memlock_max", tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX]);
		if (tb[IOMMU_ACCOUNT_A_UID_HEADROOM])
			printf(",\"headroom\":%" PRId64,
			       (int64_t)nla_get_u64(tb[IOMMU_ACCOUNT_A_UID_HEADROOM]));
		printf("}");
	} else {
		if (!st->n)
			printf("%-10s %6s %12s %12s %12s %12s\n", "UID", "TASKS",
			       "LOCKED", "MEMLOCK-MIN", "MEMLOCK-MAX", "HEADROOM");
		strcpy(b2, "-");
		strcpy(b3, "-");
		strcpy(b4, "-");
		if (tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN])
			ia_human_bytes(nla_get_u64(tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN]), b2, sizeof(b2));
		if (tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX])
			ia_human_bytes(nla_get_u64(tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX]), b3, sizeof(b3));
		if (tb[IOMMU_ACCOUNT_A_UID_HEADROOM]) {
			int64_t h = (int64_t)nla_get_u64(tb[IOMMU_ACCOUNT_A_UID_HEADROOM]);

			if (h < 0) {
				b4[0] = '-';
				ia_human_bytes((uint64_t)-h, b4 + 1, sizeof(b4) - 1);
			} else {
				ia_human_bytes((uint64_t)h, b4, sizeof(b4));
			}
		}
		printf("%-10u %6u %12s %12s %12s %12s%s\n", uid, tasks,
		       ia_human_bytes(locked, b1, sizeof(b1)), b2, b3, b4,
		       !tasks && locked ? "  (no live task: deferred release)" : "");
	}
	st->n++;
	return 0;
}

int cmd_uids(struct ia_ctx *ctx)
{
	struct uids_state st = { 0 };

	return ia_get_objects(ctx, IOMMU_ACCOUNT_CMD_GET_UID,
			      IOMMU_ACCOUNT_A_UID_UID, IOMMU_ACCOUNT_A_UID_MAX, uid_cb, &st);
}
