// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl quotas [--kind NAME] [--uid N|--pid N]: every quota
 * object of every kind the module lists in STATUS, in one shape (GET_QUOTA),
 * filtered by the module. Kinds are resolved by name from the module, so a
 * kind this tool was not built with shows too. Published kinds (qpair) add
 * their name, peak, deferred operations and whether their figures held
 * together. An iommufd context (iommufd-ctx) shows its accounting mode,
 * its mappings and bound devices as "user 2m 1d" in the NAME column
 * ("compat/mm ..." for the /dev/vfio/vfio container iommufd provides).
 */
#include <errno.h>
#include <string.h>

#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct state {
	struct ia_ctx *ctx;
	const struct ia_status *st;
	unsigned int n;
	bool inconsistent;
};

void ia_ctl_quota_json(struct ia_json *j, const struct ia_quota *q, const char *kind,
		       const char *unit)
{
	unsigned int i;

	ia_json_str(j, "kind", kind);
	ia_json_u64(j, "id", q->id);
	ia_json_str(j, "unit", unit);
	ia_json_u64(j, "used", q->used);
	ia_json_u64_if(j, "limit", q->has_limit, q->limit);
	if (q->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		/* Whose limit it is: the last charger's, or (none seen) the smallest. */
		ia_json_str(j, "limit_of", q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST ?
				       "smallest" : "last_charger");
		ia_json_u64_if(j, "limit_min", q->has_limit_min, q->limit_min);
	}
	ia_json_u64(j, "uid", q->uid);
	ia_json_owner(j, "owner", &q->owner);
	ia_json_u64(j, "refusals", q->refusals);
	ia_json_failure(j, "last_failure", &q->last_failure);
	if (q->has_iommufd) {
		ia_json_str(j, "iommufd_mode", ia_iommufd_mode_name(q->iommufd_mode));
		ia_json_u64(j, "mappings", q->mappings);
		ia_json_u64(j, "devices", q->devices);
		ia_json_bool(j, "vfio_compat", q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT);
	}
	if (q->ioas_listed) {
		ia_json_arr_open(j, "ioas");
		for (i = 0; i < q->nioas; i++) {
			ia_json_obj_open(j, NULL);
			ia_json_u64_or_null(j, "id", q->ioas[i].has_id ? q->ioas[i].id : UINT64_MAX);
			ia_json_u64(j, "areas", q->ioas[i].areas);
			ia_json_u64(j, "bytes", q->ioas[i].bytes);
			ia_json_u64(j, "pinned", q->ioas[i].pinned);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
	}
	if (!q->has_pub)
		return;
	ia_json_str(j, "name", q->name);
	ia_json_u64(j, "cgroup_id", q->cgroup_id);
	ia_json_u64(j, "peak", q->peak);
	ia_json_u64(j, "submitted", q->submitted);
	ia_json_u64(j, "completed", q->completed);
	ia_json_u64(j, "deferred_now", q->deferred_now);
	ia_json_u64(j, "deferred_total", q->deferred_total);
	ia_json_u64(j, "warn", q->warn);
	ia_json_u64(j, "crit", q->crit);
	ia_json_bool(j, "inconsistent", q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT);
}

static int quota_cb(const struct ia_quota *q, void *arg)
{
	struct state *s = arg;
	const struct ia_quota_kind *k = ia_quota_kind_find(s->st, q->kind);
	struct ia_json *j = &s->ctx->j;
	char kname[16], b1[32], b2[32], util[16], who[96], peak[32], name[72], dfr[48];
	unsigned int i;

	if (!k)
		snprintf(kname, sizeof(kname), "kind-%u", q->kind);
	if (q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT)
		s->inconsistent = true;
	if (s->ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_ctl_quota_json(j, q, k ? k->name : kname, k ? k->unit : "");
		ia_json_obj_close(j);
		s->n++;
		return 0;
	}
	if (!s->n++)
		printf("%-15s %8s %-20s %12s %12s %6s %10s %7s %-28s %9s %s\n", "KIND", "ID",
		       "NAME", "USED", "LIMIT", "UTIL", "PEAK", "UID", "OWNER", "REFUSALS",
		       "DEFERRED");
	if (q->has_limit && q->limit)
		snprintf(util, sizeof(util), "%.1f%%", 100.0 * (double)q->used / (double)q->limit);
	else
		snprintf(util, sizeof(util), "-");
	if (q->has_iommufd)
		/* An iommufd context: its mode, mappings and devices, in the name column. */
		snprintf(name, sizeof(name), "%s%s %um %ud",
			 q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT ? "compat/" : "",
			 ia_iommufd_mode_name(q->iommufd_mode), q->mappings, q->devices);
	else if (q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST)
		/* A pot no charge was seen to: its limit is its uid's smallest. */
		snprintf(name, sizeof(name), "limit: smallest");
	else if (q->has_limit_min && (!q->has_limit || q->limit_min < q->limit))
		/* A pot: a process of the uid with a smaller limit than the charger's. */
		snprintf(name, sizeof(name), "smallest %s",
			 ia_amount("bytes", (double)q->limit_min, b1, sizeof(b1)));
	else
		snprintf(name, sizeof(name), "%s%s", q->has_pub ? ia_tx(q->name) : "-",
			 q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT ? " (!)" : "");
	if (q->has_pub) {
		ia_amount(k ? k->unit : "", (double)q->peak, peak, sizeof(peak));
		snprintf(dfr, sizeof(dfr), "%llu/%llu", (unsigned long long)q->deferred_now,
			 (unsigned long long)q->deferred_total);
	} else {
		snprintf(peak, sizeof(peak), "-");
		snprintf(dfr, sizeof(dfr), "-");
	}
	printf("%-15s %8u %-20s %12s %12s %6s %10s %7u %-28s %9llu %s\n", k ? k->name : kname,
	       q->id, name, ia_amount(k ? k->unit : "", (double)q->used, b1, sizeof(b1)),
	       q->has_limit ? ia_amount(k ? k->unit : "", (double)q->limit, b2, sizeof(b2)) :
			      "none",
	       util, peak, q->uid, ia_owner_str(&q->owner, who, sizeof(who)),
	       (unsigned long long)q->refusals, dfr);
	/* An iommufd context's IOAS, one line each under it. */
	for (i = 0; i < q->nioas; i++) {
		if (q->ioas[i].has_id)
			snprintf(name, sizeof(name), "ioas %u", q->ioas[i].id);
		else
			snprintf(name, sizeof(name), "ioas (compat)");
		printf("%-15s %8s %-20s %12s %12s %6s %u areas, %s pinned\n", "", "", name,
		       ia_amount("bytes", (double)q->ioas[i].bytes, b1, sizeof(b1)), "", "",
		       q->ioas[i].areas, ia_amount("bytes", (double)q->ioas[i].pinned, b2,
						   sizeof(b2)));
	}
	return 0;
}

static int cmd_quotas(struct ia_ctx *ctx)
{
	struct ia_status st;
	struct state s = { ctx, &st, 0, false };
	const uint32_t *kind = NULL;
	uint32_t k;
	unsigned int i;
	int err;

	err = ia_get_status(&ctx->cl, &st);
	if (err)
		return ia_ctl_error(ctx, "quotas", err);
	if (ctx->kind_name) {
		for (i = 0; i < st.nkinds; i++)
			if (!strcmp(st.kinds[i].name, ctx->kind_name) ||
			    (!strcmp(ctx->kind_name, "vfio") &&
			     !strcmp(st.kinds[i].name, "vfio-container")))
				break;
		if (i == st.nkinds) {
			fprintf(stderr, "iommu-accountctl: quotas: the module follows no kind '%s' "
				"(see `iommu-accountctl status`, quota kinds)\n", ctx->kind_name);
			return IA_EXIT_NOENT;
		}
		k = st.kinds[i].kind;
		kind = &k;
	}
	ia_ctl_list_open(ctx);
	err = ia_dump_quotas(&ctx->cl, kind, ia_ctx_key(ctx), ctx->have_pid ? &ctx->pid : NULL,
			     quota_cb, &s);
	ia_ctl_list_close(ctx);
	if (err)
		return ia_ctl_error(ctx, "quotas", err);
	if (!ctx->json && s.inconsistent)
		printf("(!) the publisher's figures contradicted themselves at least once "
		       "and were clamped: they may be wrong\n");
	if (!ctx->json && !s.n)
		printf("no quota object%s\n", st.nkinds ? " visible to you" : ": no source is active");
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_quotas = {
	.name = "quotas",
	.fn = cmd_quotas,
	.opts = IA_CTL_OPTS(&ia_opt_kind, &ia_opt_uid, &ia_opt_pid),
	.synopsis = "[--kind NAME] [--uid N|--pid N]",
	.help = "every quota object of every kind: used, limit, owner",
	.example = "iommu-accountctl -j quotas --kind uid-pot",
};
