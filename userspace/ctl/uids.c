// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl uids [--uid N]: the per-uid locked-memory pot. */
#include <inttypes.h>
#include <string.h>

#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct uids_state {
	struct ia_ctx *ctx;
	unsigned int n;
};

static int uid_cb(const struct ia_uid *u, void *arg)
{
	struct uids_state *st = arg;
	struct ia_json *j = &st->ctx->j;
	char b1[32], b2[32] = "-", b3[32] = "-", b4[32] = "-";
	unsigned int c;

	if (st->ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "uid", u->uid);
		ia_json_u64(j, "locked_bytes", u->locked_bytes);
		ia_json_u64(j, "tasks", u->tasks);
		if (u->has_memlock) {
			ia_json_u64_or_null(j, "memlock_min", u->memlock_min);
			ia_json_u64_or_null(j, "memlock_max", u->memlock_max);
		}
		if (u->has_headroom)
			ia_json_i64(j, "headroom", u->headroom);
		if (u->b.present) {
			ia_json_obj_open(j, "consumers");
			for (c = 0; c < IA_NCONSUMERS; c++)
				if (u->b.consumer[c])
					ia_json_u64(j, ia_consumer_name(c), u->b.consumer[c]);
			ia_json_obj_close(j);
			ia_json_u64(j, "unattributed_bytes", u->b.unattributed);
			ia_json_u64(j, "pending_bytes", u->b.pending);
			ia_json_u64(j, "cgroups", u->b.cgroups);
			ia_json_u64(j, "charges", u->b.charges);
			ia_json_u64(j, "refusals", u->b.refusals);
			ia_json_u64(j, "inexact", u->b.inexact);
			if (u->b.has_iommufd) {
				ia_json_u64(j, "iommufd_mm_bytes", u->b.iommufd_mm);
				ia_json_u64(j, "iommufd_exempt_bytes", u->b.iommufd_exempt);
			}
		}
		ia_json_obj_close(j);
		st->n++;
		return 0;
	}
	if (!st->n++)
		printf("%-10s %6s %12s %12s %12s %12s\n", "UID", "TASKS",
		       "LOCKED", "MEMLOCK-MIN", "MEMLOCK-MAX", "HEADROOM");
	if (u->has_memlock) {
		ia_human_bytes(u->memlock_min, b2, sizeof(b2));
		ia_human_bytes(u->memlock_max, b3, sizeof(b3));
	}
	if (u->has_headroom && u->headroom < 0) {
		b4[0] = '-';
		ia_human_bytes(-(uint64_t)u->headroom, b4 + 1, sizeof(b4) - 1);
	} else if (u->has_headroom) {
		ia_human_bytes((uint64_t)u->headroom, b4, sizeof(b4));
	}
	printf("%-10u %6u %12s %12s %12s %12s%s\n", u->uid, u->tasks,
	       ia_human_bytes(u->locked_bytes, b1, sizeof(b1)), b2, b3, b4,
	       !u->tasks && u->locked_bytes ? "  (no live task: deferred release)" : "");
	if (!u->b.present || (!u->locked_bytes && !u->b.refusals && !u->b.iommufd_mm &&
			      !u->b.iommufd_exempt))
		return 0;
	/* The breakdown: what holds the pot, what waits, what was refused. */
	printf("    ");
	for (c = 0; c < IA_NCONSUMERS; c++)
		if (u->b.consumer[c])
			printf("%s %s, ", ia_consumer_name(c),
			       ia_human_bytes(u->b.consumer[c], b1, sizeof(b1)));
	printf("unattributed %s", ia_human_bytes(u->b.unattributed, b1, sizeof(b1)));
	if (u->b.pending)
		printf(", pending release %s", ia_human_bytes(u->b.pending, b1, sizeof(b1)));
	printf("; %u cgroup%s", u->b.cgroups, u->b.cgroups == 1 ? "" : "s");
	if (u->b.refusals)
		printf("; %llu charge%s refused", (unsigned long long)u->b.refusals,
		       u->b.refusals == 1 ? "" : "s");
	if (u->b.inexact)
		printf("; INEXACT (%s%s%s)",
		       u->b.inexact & IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED ? "probe missed " : "",
		       u->b.inexact & IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY ? "no memory " : "",
		       u->b.inexact & IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS ? "shared buffers" : "");
	printf("\n");
	/* Pinned by this uid's iommufd mappings, charged elsewhere or nowhere. */
	if (u->b.iommufd_mm || u->b.iommufd_exempt)
		printf("    not in the pot: iommufd per-process (mm->locked_vm) %s, "
		       "iommufd with CAP_IPC_LOCK (uncharged) %s\n",
		       ia_human_bytes(u->b.iommufd_mm, b1, sizeof(b1)),
		       ia_human_bytes(u->b.iommufd_exempt, b2, sizeof(b2)));
	return 0;
}

static int cmd_uids(struct ia_ctx *ctx)
{
	struct uids_state st = { ctx, 0 };
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_uids(&ctx->cl, ia_ctx_key(ctx), uid_cb, &st);
	ia_ctl_list_close(ctx);
	return err ? ia_ctl_error(ctx, "uids", err) : IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_uids = {
	.name = "uids",
	.fn = cmd_uids,
	.opts = IA_CTL_OPTS(&ia_opt_uid),
	.synopsis = "[--uid N]",
	.help = "per-uid locked-memory pot (RLIMIT_MEMLOCK): who charged it, what waits",
	.example = "iommu-accountctl uids\niommu-accountctl uids --uid 1000",
};
