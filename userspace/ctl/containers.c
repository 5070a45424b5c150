// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl containers [--id N]: VFIO containers. type1's (the
 * module's container records), then, where /dev/vfio/vfio is iommufd's
 * (CONFIG_IOMMUFD_VFIO_CONTAINER), iommufd's compat containers: the
 * iommufd contexts the module marks VFIO_COMPAT. --id selects a type1
 * container; a compat container is `quotas --kind iommufd-ctx`'s id.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct state {
	struct ia_ctx *ctx;
	unsigned int n, ncompat;
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
		ia_json_str(j, "backend", "type1");
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

/* An iommufd context's refusal: iommufd's, whose iova the module does not keep. */
static void print_compat_failure(struct ia_ctx *ctx, const struct ia_failure *f)
{
	struct ia_json *j = &ctx->j;
	char b[96];

	if (!f->present)
		return;
	if (ctx->json) {
		ia_json_obj_open(j, "last_failure");
		ia_json_u64(j, "time_ns", f->time_ns);
		ia_json_u64(j, "errno", f->err);
		ia_json_u64(j, "size", f->size);
		ia_json_owner(j, "owner", &f->owner);
		ia_json_obj_close(j);
		return;
	}
	printf("    last failure: %s mapping %" PRIu64 " bytes by %s\n", strerror((int)f->err),
	       f->size, ia_owner_str(&f->owner, b, sizeof(b)));
}

/*
 * An iommufd compat container: no entry limit (iommufd has none; its
 * VFIO_IOMMU_GET_INFO says DMA_AVAIL U32_MAX), its pins charged in the
 * context's mode (per process: mm->locked_vm, as iommufd opens it).
 */
static int compat_cb(const struct ia_quota *q, void *arg)
{
	struct state *st = arg;
	struct ia_ctx *ctx = st->ctx;
	struct ia_json *j = &ctx->j;
	uint64_t bytes = 0, pinned = 0;
	char b1[32], b2[32], b3[32], b4[96];
	unsigned int i;

	if (!(q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT))
		return 0;
	for (i = 0; i < q->nioas; i++) {
		bytes += q->ioas[i].bytes;
		pinned += q->ioas[i].pinned;
	}
	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "id", q->id);
		ia_json_str(j, "backend", "iommufd-compat");
		ia_json_u64(j, "entries", q->mappings);
		ia_json_null(j, "limit");
		ia_json_u64(j, "mapped_bytes", bytes);
		ia_json_u64(j, "pinned_bytes", pinned);
		ia_json_u64(j, "devices", q->devices);
		ia_json_str(j, "mode", ia_iommufd_mode_name(q->iommufd_mode));
		ia_json_u64(j, "charged", q->used);
		ia_json_u64_if(j, "memlock", q->has_limit, q->limit);
		ia_json_owner(j, "owner", &q->owner);
		ia_json_u64(j, "refusals", q->refusals);
		print_compat_failure(ctx, &q->last_failure);
		ia_json_obj_close(j);
		st->ncompat++;
		return 0;
	}
	if (!st->ncompat++)
		printf("%siommufd compat containers (/dev/vfio/vfio is iommufd's: no entry limit)\n"
		       "%-5s %-5s %8s %12s %12s %21s  %s\n", st->n ? "\n" : "", "CTX", "MODE",
		       "ENTRIES", "MAPPED", "PINNED", "CHARGED/MEMLOCK", "OWNER");
	snprintf(b3, sizeof(b3), "%s/%s", ia_human_bytes(q->used, b1, sizeof(b1)),
		 q->has_limit ? ia_human_bytes(q->limit, b2, sizeof(b2)) : "none");
	printf("%-5u %-5s %8u %12s %12s %21s  %s\n", q->id, ia_iommufd_mode_name(q->iommufd_mode),
	       q->mappings, ia_human_bytes(bytes, b1, sizeof(b1)),
	       ia_human_bytes(pinned, b2, sizeof(b2)), b3, ia_owner_str(&q->owner, b4, sizeof(b4)));
	if (q->refusals)
		printf("    refused: %" PRIu64 "\n", q->refusals);
	print_compat_failure(ctx, &q->last_failure);
	return 0;
}

static int cmd_containers(struct ia_ctx *ctx)
{
	const uint32_t kind = IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX;
	struct state st = { ctx, 0, 0 };
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_containers(&ctx->cl, ia_ctx_key(ctx), container_cb, &st);
	/* No iommufd followed (ENOENT, EOPNOTSUPP): no compat container to list. */
	if (!err && !ia_ctx_key(ctx)) {
		int e = ia_dump_quotas(&ctx->cl, &kind, NULL, NULL, compat_cb, &st);

		if (e && e != -ENOENT && e != -EOPNOTSUPP)
			err = e;
	}
	ia_ctl_list_close(ctx);
	if (err)
		return ia_ctl_error(ctx, "containers", err);
	if (!ctx->json && !st.n && !st.ncompat)
		printf("no VFIO container\n");
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_containers = {
	.name = "containers",
	.fn = cmd_containers,
	.opts = IA_CTL_OPTS(&ia_opt_id),
	.synopsis = "[--id N]",
	.help = "VFIO containers (type1, iommufd compat): entries/limit, pinned",
	.example = "iommu-accountctl containers",
};
