// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl containers [--id N]: VFIO type1 containers. */
#include <inttypes.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct state {
	struct ia_ctx *ctx;
	unsigned int n;
};

static void print_failure(struct ia_ctx *ctx, const struct ia_failure *f)
{
	struct ia_json *j = &ctx->j;
	char b[96];

	if (!f->present)
		return;
	if (ctx->json) {
		ia_json_failure(j, "last_failure", f);
		return;
	}
	printf("    last failure: %s at iova 0x%" PRIx64 " size %" PRIu64 " by %s\n",
	       strerror((int)f->err), f->iova, f->size, ia_owner_str(&f->owner, b, sizeof(b)));
}

static int container_cb(const struct ia_container *ct, void *arg)
{
	struct state *st = arg;
	struct ia_ctx *ctx = st->ctx;
	struct ia_json *j = &ctx->j;
	/* Refused MAP_DMA calls by errno: JSON key, table label, count. */
	const struct {
		const char *key, *label;
		uint64_t n;
	} fails[] = {
		{ "fail_enospc", "ENOSPC", ct->fail_enospc },
		{ "fail_enomem", "ENOMEM", ct->fail_enomem },
		{ "fail_einval", "EINVAL", ct->fail_einval },
		{ "fail_other", "other", ct->fail_other },
	};
	char b1[32], b2[32], b3[96], groups[256];
	uint64_t nfail = 0;
	size_t i;

	for (i = 0; i < 4; i++)
		nfail += fails[i].n;
	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "id", ct->id);
		ia_json_u32_array(j, "groups", ct->groups, ct->ngroups);
		ia_json_u64(j, "entries", ct->entries);
		ia_json_u64(j, "limit", ct->limit);
		ia_json_u64(j, "mapped_bytes", ct->mapped_bytes);
		ia_json_u64(j, "pinned_pages", ct->pinned_pages);
		if (ct->has_pinned_uid)
			ia_json_u64(j, "pinned_uid", ct->pinned_uid);
		ia_json_owner(j, "owner", &ct->owner);
		ia_json_u64(j, "map_ops", ct->map_ops);
		ia_json_u64(j, "unmap_ops", ct->unmap_ops);
		for (i = 0; i < 4; i++)
			ia_json_u64(j, fails[i].key, fails[i].n);
		ia_json_u64(j, "inexact", ct->inexact);
		print_failure(ctx, &ct->last_failure);
		ia_json_obj_close(j);
		st->n++;
		return 0;
	}
	if (!st->n++)
		printf("%-5s %-8s %14s %7s %12s %10s  %s\n", "ID", "GROUPS", "ENTRIES/LIMIT",
		       "USED", "MAPPED", "PINNED", "OWNER");
	snprintf(b1, sizeof(b1), "%u/%u", ct->entries, ct->limit);
	ia_u32_list_str(ct->groups, ct->ngroups, groups, sizeof(groups));
	printf("%-5u %-8s %14s %6.1f%% %12s %10" PRIu64 "  %s\n",
	       ct->id, groups[0] ? groups : "-", b1,
	       ct->limit ? 100.0 * ct->entries / ct->limit : 0.0,
	       ia_human_bytes(ct->mapped_bytes, b2, sizeof(b2)), ct->pinned_pages,
	       ia_owner_str(&ct->owner, b3, sizeof(b3)));
	if (ct->inexact)
		printf("    INEXACT:%s%s%s%s\n",
		       ct->inexact & IOMMU_ACCOUNT_INEXACT_PROBE_MISSED ?
		       " refusals may be missing (probe missed)" : "",
		       ct->inexact & IOMMU_ACCOUNT_INEXACT_NO_MEMORY ? " records lost (no memory)" : "",
		       ct->inexact & IOMMU_ACCOUNT_INEXACT_PINNED ?
		       " pinned pages (unpin larger than seen)" : "",
		       ct->inexact & IOMMU_ACCOUNT_INEXACT_UNPINNED ?
		       " mappings made with no IOMMU-backed group are not counted" : "");
	if (nfail) {
		printf("    refused:");
		for (i = 0; i < 4; i++)
			printf("%s %" PRIu64 " %s", i ? "," : "", fails[i].n, fails[i].label);
		printf("\n");
	}
	print_failure(ctx, &ct->last_failure);
	return 0;
}

int cmd_containers(struct ia_ctx *ctx)
{
	struct state st = { ctx, 0 };
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_containers(&ctx->cl, ia_ctx_key(ctx), container_cb, &st);
	ia_ctl_list_close(ctx);
	if (err)
		return ia_ctl_error(ctx, "containers", err);
	if (!ctx->json && !st.n)
		printf("no VFIO type1 container\n");
	return IA_EXIT_OK;
}
