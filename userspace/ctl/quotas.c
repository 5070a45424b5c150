// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl quotas [--kind NAME]: every quota object of every kind
 * the module lists in STATUS, in one shape (GET_QUOTA). Kinds are resolved
 * by name from the module, so a kind this tool was not built with shows too.
 */
#include <errno.h>
#include <string.h>

#include "ctl.h"

struct state {
	struct ia_ctx *ctx;
	const struct ia_status *st;
	unsigned int n;
};

static int quota_cb(const struct ia_quota *q, void *arg)
{
	struct state *s = arg;
	const struct ia_quota_kind *k = ia_quota_kind_find(s->st, q->kind);
	struct ia_json *j = &s->ctx->j;
	char kname[16], b1[32], b2[32], util[16], who[64];

	if (!k)
		snprintf(kname, sizeof(kname), "kind-%u", q->kind);
	if (s->ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_str(j, "kind", k ? k->name : kname);
		ia_json_u64(j, "id", q->id);
		ia_json_str(j, "unit", k ? k->unit : "");
		ia_json_u64(j, "used", q->used);
		if (q->has_limit)
			ia_json_u64(j, "limit", q->limit);
		else
			ia_json_null(j, "limit");
		ia_json_u64(j, "uid", q->uid);
		ia_json_owner(j, "owner", &q->owner);
		ia_json_u64(j, "refusals", q->refusals);
		ia_json_obj_close(j);
		s->n++;
		return 0;
	}
	if (!s->n++)
		printf("%-15s %8s %12s %12s %6s %7s %-28s %s\n", "KIND", "ID", "USED", "LIMIT",
		       "UTIL", "UID", "OWNER", "REFUSALS");
	if (q->has_limit && q->limit)
		snprintf(util, sizeof(util), "%.1f%%", 100.0 * (double)q->used / (double)q->limit);
	else
		snprintf(util, sizeof(util), "-");
	printf("%-15s %8u %12s %12s %6s %7u %-28s %llu\n", k ? k->name : kname, q->id,
	       ia_amount(k ? k->unit : "", (double)q->used, b1, sizeof(b1)),
	       q->has_limit ? ia_amount(k ? k->unit : "", (double)q->limit, b2, sizeof(b2)) : "none", util, q->uid,
	       ia_owner_str(&q->owner, who, sizeof(who)), (unsigned long long)q->refusals);
	return 0;
}

int cmd_quotas(struct ia_ctx *ctx)
{
	struct ia_status st;
	struct state s = { ctx, &st, 0 };
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
	err = ia_get_quotas(&ctx->cl, kind, NULL, quota_cb, &s);
	ia_ctl_list_close(ctx);
	if (err)
		return ia_ctl_error(ctx, "quotas", err);
	if (!ctx->json && !s.n)
		printf("no quota object%s\n", st.nkinds ? " visible to you" : ": no source is active");
	return IA_EXIT_OK;
}
