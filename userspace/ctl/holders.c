// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl holders [--uid N]: who holds quota, by cgroup, named as
 * an operator thinks of it - a container, a pod's container, a systemd
 * unit (libia's identity resolver) - with the pot bytes it holds per uid,
 * its processes, and the VFIO containers, qpairs and iommufd contexts its
 * processes own. Sorted by pot bytes, then by objects.
 *
 * Called "holders", not "containers": that name is VFIO's (type1
 * containers, the `containers` command), and a holder need not be a
 * container at all (a systemd service, a user session).
 *
 * From the module: GET_PROC's dump (the processes holding charges, with
 * the cgroup path the kernel gives) and GET_QUOTA's dump (each object's
 * owner); an owner holding no pot bytes is asked for by pid (its cgroup).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

/* Every holder, uid and object is listed: the arrays grow with them. */
struct holder {
	uint64_t cgroup_id;
	char cgroup[IA_CGROUP_MAX];
	bool cgroup_truncated;		/* the module's path, cut */
	uint32_t procs;
	uint64_t bytes;
	struct pot_part { uint32_t uid; uint64_t bytes; } *pot;
	unsigned int npot;
	/* objects its processes own, by kind */
	uint32_t *obj[3];
	unsigned int nobj[3];
};

struct holders {
	struct ia_ctx *ctx;
	unsigned int n, cap;
	struct holder *h;
};

/* Room for one more element of @size in *@v (holding @n): 0 or -ENOMEM. */
static int grow(void *v, unsigned int n, size_t size)
{
	void **p = v, *nv;

	if (n & (n - 1) && n)
		return 0;	/* room up to the next power of two */
	nv = realloc(*p, (n ? 2 * (size_t)n : 4) * size);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	return 0;
}

/* The holder of cgroup @id, made if it is new; NULL: no memory. */
static struct holder *find(struct holders *hs, uint64_t id, const char *path, bool cut)
{
	struct holder *h;
	unsigned int i;

	for (i = 0; i < hs->n; i++)
		if (hs->h[i].cgroup_id == id)
			return &hs->h[i];
	if (hs->n == hs->cap) {
		h = realloc(hs->h, (hs->cap ? 2 * (size_t)hs->cap : 16) * sizeof(*h));
		if (!h)
			return NULL;
		hs->h = h;
		hs->cap = hs->cap ? 2 * hs->cap : 16;
	}
	h = &hs->h[hs->n++];
	memset(h, 0, sizeof(*h));
	h->cgroup_id = id;
	if (path && path[0]) {
		snprintf(h->cgroup, sizeof(h->cgroup), "%s", path);
		h->cgroup_truncated = cut;
	} else if (!ia_cgroup_path(id, h->cgroup, sizeof(h->cgroup))) {
		snprintf(h->cgroup, sizeof(h->cgroup), "cgroup %" PRIu64, id);
	}
	return h;
}

static void holders_free(struct holders *hs)
{
	unsigned int i, k;

	for (i = 0; i < hs->n; i++) {
		free(hs->h[i].pot);
		for (k = 0; k < 3; k++)
			free(hs->h[i].obj[k]);
	}
	free(hs->h);
	free(hs);
}

static int got_proc(const struct ia_proc *p, void *arg)
{
	struct holders *hs = arg;
	uint64_t b = ia_consumers_total(p->consumer);
	struct holder *h;
	unsigned int i;

	if (!b)
		return 0;
	h = find(hs, p->cgroup_id, p->cgroup, p->cgroup_truncated);
	if (!h)
		return -ENOMEM;
	h->procs++;
	h->bytes += b;
	for (i = 0; i < h->npot && h->pot[i].uid != p->uid; i++)
		;
	if (i == h->npot) {
		if (grow(&h->pot, h->npot, sizeof(h->pot[0])))
			return -ENOMEM;
		h->pot[h->npot++] = (struct pot_part){ p->uid, 0 };
	}
	h->pot[i].bytes += b;
	return 0;
}

static int got_owner(const struct ia_proc *p, void *arg)
{
	*(struct ia_proc *)arg = *p;
	return 0;
}

/* An object and its owner, kept while the dump runs (no request inside it). */
struct owned {
	unsigned int kind;		/* 0 vfio-container, 1 qpair, 2 iommufd-ctx */
	uint32_t id, pid;
	uint64_t cgroup_id;		/* published kinds say it; 0: ask for the pid */
};

struct owned_list {
	unsigned int n;
	struct owned *o;
};

static int got_quota(const struct ia_quota *q, void *arg)
{
	struct owned_list *l = arg;
	unsigned int k;

	switch (q->kind) {
	case IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER: k = 0; break;
	case IOMMU_ACCOUNT_QUOTA_KIND_QPAIR: k = 1; break;
	case IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX: k = 2; break;
	default: return 0;
	}
	if (!q->owner.present)
		return 0;
	if (grow(&l->o, l->n, sizeof(l->o[0])))
		return -ENOMEM;
	l->o[l->n++] = (struct owned){ k, q->id, q->owner.pid,
				       q->has_pub ? q->cgroup_id : 0 };
	return 0;
}

/* 0, or -ENOMEM. */
static int place(struct holders *hs, const struct owned *o)
{
	struct ia_proc p = { 0 };
	struct holder *h;

	if (o->cgroup_id) {
		h = find(hs, o->cgroup_id, NULL, false);
	} else {
		/* The owner's cgroup, as the kernel gives it; gone: not listed. */
		if (ia_get_procs(&hs->ctx->cl, &o->pid, NULL, got_owner, &p) || !p.cgroup_id)
			return 0;
		h = find(hs, p.cgroup_id, p.cgroup, p.cgroup_truncated);
	}
	if (!h || grow(&h->obj[o->kind], h->nobj[o->kind], sizeof(uint32_t)))
		return -ENOMEM;
	h->obj[o->kind][h->nobj[o->kind]++] = o->id;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;
	unsigned int ox = x->nobj[0] + x->nobj[1] + x->nobj[2];
	unsigned int oy = y->nobj[0] + y->nobj[1] + y->nobj[2];

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return ox < oy ? 1 : ox > oy ? -1 : strcmp(x->cgroup, y->cgroup);
}

static const char *const objname[3] = { "vfio_containers", "qpairs", "iommufd_ctx" };

static int cmd_holders(struct ia_ctx *ctx)
{
	struct holders *hs = calloc(1, sizeof(*hs));
	struct owned_list ol = { 0 };
	char b1[32], idtext[IA_IDENTITY_TEXT], objs[160];
	struct ia_identity id;
	unsigned int i, k, u;
	size_t off;
	int ret;

	if (!hs)
		return IA_EXIT_FAIL;
	hs->ctx = ctx;
	ret = ia_get_procs(&ctx->cl, NULL, ia_ctx_key(ctx), got_proc, hs);
	if (!ret)
		ret = ia_dump_quotas(&ctx->cl, NULL, ia_ctx_key(ctx), NULL, got_quota, &ol);
	for (i = 0; !ret && i < ol.n; i++)
		ret = place(hs, &ol.o[i]);
	free(ol.o);
	if (ret) {
		holders_free(hs);
		return ia_ctl_error(ctx, "holders", ret);
	}
	qsort(hs->h, hs->n, sizeof(hs->h[0]), by_bytes);
	ia_ctl_list_open(ctx);
	if (!ctx->json)
		printf("%-44s %10s %5s  %-22s %s\n", "HOLDER", "POT", "PROCS", "POT BY UID",
		       "OBJECTS");
	for (i = 0; i < hs->n; i++) {
		const struct holder *h = &hs->h[i];

		ia_identity_of(h->cgroup, &id);
		if (ctx->json) {
			struct ia_json *j = &ctx->j;

			ia_json_obj_open(j, NULL);
			ia_json_str(j, "cgroup", h->cgroup);
			if (h->cgroup_truncated)
				ia_json_bool(j, "cgroup_truncated", true);
			ia_json_u64(j, "cgroup_id", h->cgroup_id);
			ia_json_identity(j, "identity", &id);
			ia_json_u64(j, "processes", h->procs);
			ia_json_u64(j, "held_bytes", h->bytes);
			ia_json_arr_open(j, "pot");
			for (u = 0; u < h->npot; u++) {
				ia_json_obj_open(j, NULL);
				ia_json_u64(j, "uid", h->pot[u].uid);
				ia_json_u64(j, "held_bytes", h->pot[u].bytes);
				ia_json_obj_close(j);
			}
			ia_json_arr_close(j);
			for (k = 0; k < 3; k++)
				ia_json_u32_array(j, objname[k], h->obj[k], h->nobj[k]);
			ia_json_obj_close(j);
			continue;
		}
		off = 0;
		objs[0] = 0;
		for (k = 0; k < 3; k++)
			if (h->nobj[k] && off < sizeof(objs))
				off += (size_t)snprintf(objs + off, sizeof(objs) - off, "%s%s %s",
					off ? ", " : "", k == 0 ? "vfio-container" : k == 1 ?
					"qpair" : "iommufd-ctx",
					ia_u32_list_str(h->obj[k], h->nobj[k], b1, sizeof(b1)));
		printf("%-44s%s %10s %5u  ", id.kind[0] ? ia_identity_str(&id, idtext,
		       sizeof(idtext)) : ia_tx(h->cgroup), id.kind[0] ? "" :
		       ia_cut_mark(h->cgroup_truncated), ia_human_bytes(h->bytes, b1, sizeof(b1)),
		       h->procs);
		for (u = 0; u < h->npot; u++)
			printf("%s%u: %s", u ? ", " : "", h->pot[u].uid,
			       ia_human_bytes(h->pot[u].bytes, b1, sizeof(b1)));
		printf("%s%s%s\n", h->npot ? "  " : "-  ", objs[0] ? "" : "-", objs);
		if (id.kind[0])
			printf("  %s%s\n", ia_tx(h->cgroup), ia_cut_mark(h->cgroup_truncated));
	}
	ia_ctl_list_close(ctx);
	holders_free(hs);
	return 0;
}

const struct ia_ctl_cmd ia_cmd_holders = {
	.name = "holders",
	.fn = cmd_holders,
	.opts = IA_CTL_OPTS(&ia_opt_uid),
	.synopsis = "[--uid N]",
	.help = "who holds quota, by cgroup: container, pod or unit; pot bytes per uid, objects "
		"owned",
	.example = "iommu-accountctl holders --uid 1000",
};
