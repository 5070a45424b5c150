// SPDX-License-Identifier: GPL-2.0
/*
 * GET_QUOTA: every quota object of every kind in one shape (kind, id, used,
 * limit, whose), so that a monitor follows kinds added later without
 * knowing them; STATUS lists the kinds (name and unit) that are active.
 * Each kind is read from its own source's snapshot, with that source's
 * permission rules.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"

struct ia_quota_kind {
	u32 kind;
	const char *name;
	const char *unit;
	enum ia_feature needs;	/* the source that must be active */
	bool (*followed)(void);	/* and what of it must have taken, if not all */
};

static const struct ia_quota_kind ia_quota_kinds[] = {
	{ IA_KIND_VFIO_CONTAINER, "vfio-container", "entries", IA_FEAT_VFIO_TYPE1 },
	{ IA_KIND_UID_POT, "uid-pot", "bytes", IA_FEAT_UID_TASKS },
	{ IA_KIND_QPAIR, "qpair", "descriptors", IA_FEAT_PUBLISHED },
	{ IA_KIND_IOMMUFD_CTX, "iommufd-ctx", "bytes", IA_FEAT_IOMMUFD, ia_iommufd_ctx_followed },
};

static bool ia_quota_kind_on(const struct ia_quota_kind *k, const struct ia_feature_info *feat)
{
	return feat[k->needs].active && (!k->followed || k->followed());
}

int ia_nl_put_quota_kinds(struct sk_buff *msg, const struct ia_feature_info *feat)
{
	const int pad = IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_PAD;
	const struct ia_quota_kind *k;
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ia_quota_kinds); i++) {
		k = &ia_quota_kinds[i];
		if (!ia_quota_kind_on(k, feat))
			continue;
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND);
		if (!nest ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND, k->kind) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME, k->name) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT, k->unit) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS,
				      ia_kind_refusals(k->kind), pad))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

struct ia_quota_snap {
	unsigned int nr;
	struct ia_quota_rec rec[];
};

/* An iommufd context's IOAS, one nest each (none in events). */
static int ia_put_ioas(struct sk_buff *msg, const struct ia_quota_rec *q)
{
	const int pad = IOMMU_ACCOUNT_A_IOAS_PAD;
	const struct ia_ioas_info *x;
	struct nlattr *nest;
	u32 i;

	for (i = 0; q->ioas && i < q->nr_ioas; i++) {
		x = &q->ioas[i];
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_QUOTA_IOAS);
		if (!nest ||
		    (x->id && nla_put_u32(msg, IOMMU_ACCOUNT_A_IOAS_ID, x->id)) ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_IOAS_AREAS, x->areas) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_IOAS_BYTES, x->bytes, pad) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_IOAS_PINNED, x->pinned, pad))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* One fill function for do, dump and (nested) events. */
static int ia_put_quota_rec(struct sk_buff *msg, const struct ia_quota_rec *q,
			    struct user_namespace *ns)
{
	const int pad = IOMMU_ACCOUNT_A_QUOTA_PAD;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND, q->kind) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_ID, q->id) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_USED, q->used, pad) ||
	    (q->has_limit &&
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_LIMIT, q->limit, pad)) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_UID, from_kuid_munged(ns, q->uid)) ||
	    (q->has_owner && ia_put_owner(msg, IOMMU_ACCOUNT_A_QUOTA_OWNER, &q->owner, ns)) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_REFUSALS, q->refusals, pad) ||
	    (q->has_last && ia_put_failure(msg, IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE, &q->last,
					   q->last_cgpath, ns)))
		return -EMSGSIZE;
	if (q->fdctx)
		return nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE, q->fd_mode) ||
		       nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_MAPPINGS, q->mappings) ||
		       nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_DEVICES, q->devices) ||
		       nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_FLAGS, q->flags) ||
		       ia_put_ioas(msg, q) ? -EMSGSIZE : 0;
	if (!q->pub)
		return 0;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_NAME, q->name) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID, q->cgroup_id, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_PEAK, q->peak, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_SUBMITTED, q->submitted, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_COMPLETED, q->completed, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW, q->deferred_now, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL, q->deferred_total, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_WARN, q->warn) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_CRIT, q->crit) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_FLAGS, q->flags))
		return -EMSGSIZE;
	return 0;
}

static int ia_put_quota(struct sk_buff *msg, const void *snap, unsigned int i,
			struct user_namespace *ns)
{
	return ia_put_quota_rec(msg, &((const struct ia_quota_snap *)snap)->rec[i], ns);
}

int ia_nl_put_quota_nest(struct sk_buff *msg, int attr, const struct ia_quota_rec *q,
			 struct user_namespace *ns)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest)
		return -EMSGSIZE;
	if (ia_put_quota_rec(msg, q, ns)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static void ia_quota_from_uid(struct ia_quota_rec *q, const struct ia_uid_rec *r,
			      const struct ia_memlock_uids *ml, struct user_namespace *ns)
{
	const struct ia_memlock_uid *m = ml ? ia_memlock_uid_find(ml, r->uid) : NULL;

	memset(q, 0, sizeof(*q));
	q->kind = IA_KIND_UID_POT;
	q->id = from_kuid_munged(ns, r->uid);
	q->uid = r->uid;
	q->used = r->locked_pages << PAGE_SHIFT;
	/* The kernel compares pages with the limit shifted down to pages. */
	q->has_limit = r->tasks && r->rlim_min != U64_MAX;
	q->limit = r->rlim_min & PAGE_MASK;
	q->refusals = m ? m->refusals : 0;
	if (m && m->has_last) {
		q->has_last = true;
		q->last = m->last;
		q->last_cgpath = ia_cgpath_get(m->last_cgpath);
	}
}

void ia_quota_list_free(struct ia_quota_list *l)
{
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < l->nr; i++)
		kvfree(l->rec[i].ioas);
	kvfree(l);
}

/* Every snapshot of quota records goes through here (pot paths are allocated). */
static void ia_quota_snap_release(struct ia_quota_snap *snap)
{
	unsigned int i;

	for (i = 0; i < snap->nr; i++) {
		ia_cgpath_put(snap->rec[i].last_cgpath);
		kvfree(snap->rec[i].ioas);
	}
	kvfree(snap);
}

static void ia_quota_from_container(struct ia_quota_rec *q, const struct ia_container_info *c)
{
	memset(q, 0, sizeof(*q));
	q->kind = IA_KIND_VFIO_CONTAINER;
	q->id = c->id;
	q->used = c->entries;
	q->limit = c->limit;
	q->has_limit = true;
	q->uid = c->owner.uid;
	q->owner = c->owner;
	q->has_owner = true;
	q->refusals = c->fail[IA_FAIL_ENOSPC];
	q->has_last = c->has_last;
	q->last = c->last;
}

/* What a request asks for: -1 or the kind; one object (by id); an owner's uid or pid. */
struct ia_quota_filter {
	s64 kind;
	struct ia_filter obj;
};

static bool ia_quota_want(const struct ia_quota_filter *f, u32 kind)
{
	return f->kind < 0 || f->kind == kind;
}

/*
 * The objects the caller may see that match @f. Unprivileged callers see
 * their own real uid's pot, and the containers and qpairs they own, as in
 * GET_UID and GET_CONTAINER.
 */
static struct ia_quota_snap *ia_quota_snapshot(const struct sk_buff *skb,
					       const struct ia_quota_filter *f)
{
	struct user_namespace *ns = current_user_ns();
	struct ia_container_snap *cs = NULL;
	struct ia_quota_list *ps = NULL, *fs = NULL;
	struct ia_uid_snap *us = NULL;
	bool admin = ia_nl_admin(skb);
	bool by_uid = f->obj.by_uid || !admin;
	kuid_t uid = f->obj.by_uid ? f->obj.uid : current_uid();
	struct ia_quota_snap *snap;
	unsigned int n = 0, i;
	struct ia_filter of;
	kuid_t only;

	/* Someone else's objects, unprivileged: none. */
	if (!admin && f->obj.by_uid && !uid_eq(f->obj.uid, current_uid()))
		return kvzalloc(sizeof(*snap), GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
	/* Containers and qpairs: by id, owner and pid, as the caller may see. */
	of = f->obj;
	of.by_uid = by_uid;
	of.uid = uid;
	/* A pot has no owning process: a pid filter leaves none. */
	if (ia_quota_want(f, IA_KIND_UID_POT) && ia_feature_active(IA_FEAT_UID_TASKS) &&
	    !f->obj.pid) {
		only = f->obj.by_id ? make_kuid(ns, f->obj.id) : uid;
		if (!f->obj.by_id || (uid_valid(only) && (!by_uid || uid_eq(only, uid)))) {
			struct ia_filter uf = { .by_uid = f->obj.by_id || by_uid, .uid = only };

			us = ia_uid_snapshot_ml(&uf);
			if (IS_ERR(us))
				return ERR_CAST(us);
			n += us->nr;
		}
	}
	if (ia_quota_want(f, IA_KIND_VFIO_CONTAINER) && ia_feature_active(IA_FEAT_VFIO_TYPE1)) {
		cs = ia_container_snapshot(&of);
		if (IS_ERR(cs)) {
			snap = ERR_CAST(cs);
			cs = NULL;
			goto out;
		}
		n += cs->nr;
	}
	if (ia_quota_want(f, IA_KIND_QPAIR) && ia_feature_active(IA_FEAT_PUBLISHED)) {
		ps = ia_pub_snapshot(f->kind, &of);
		if (IS_ERR(ps)) {
			snap = ERR_CAST(ps);
			ps = NULL;
			goto out;
		}
		n += ps->nr;
	}
	if (ia_quota_want(f, IA_KIND_IOMMUFD_CTX) && ia_feature_active(IA_FEAT_IOMMUFD)) {
		fs = ia_iommufd_ctx_snapshot(&of);
		if (IS_ERR(fs)) {
			snap = ERR_CAST(fs);
			fs = NULL;
			goto out;
		}
		n += fs->nr;
	}
	snap = kvmalloc(struct_size(snap, rec, n), GFP_KERNEL);
	if (!snap) {
		snap = ERR_PTR(-ENOMEM);
		goto out;
	}
	snap->nr = 0;
	/* In the order of the kind enum, each sorted by id. */
	for (i = 0; cs && i < cs->nr; i++)
		ia_quota_from_container(&snap->rec[snap->nr++], &cs->c[i]);
	for (i = 0; us && i < us->nr; i++)
		ia_quota_from_uid(&snap->rec[snap->nr++], &us->rec[i], us->ml, ns);
	for (i = 0; ps && i < ps->nr; i++)
		snap->rec[snap->nr++] = ps->rec[i];
	for (i = 0; fs && i < fs->nr; i++)
		snap->rec[snap->nr++] = fs->rec[i];
out:
	if (us)
		ia_uid_snap_free(us);
	if (cs)
		ia_container_snap_free(cs);
	kvfree(ps);
	/* Its records' IOAS arrays went to @snap, unless it is an error. */
	if (IS_ERR(snap))
		ia_quota_list_free(fs);
	else
		kvfree(fs);
	return snap;
}

/* The filter of a request; -EINVAL (with extack) for a uid this namespace cannot map. */
static int ia_quota_filter_of(struct nlattr **attrs, struct ia_quota_filter *f,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *a;

	memset(f, 0, sizeof(*f));
	f->kind = -1;
	if (!attrs)
		return 0;
	/* Not a ?: of u32 and -1, which would make it 4294967295. */
	a = attrs[IOMMU_ACCOUNT_A_QUOTA_KIND];
	if (a)
		f->kind = nla_get_u32(a);
	a = attrs[IOMMU_ACCOUNT_A_QUOTA_UID];
	if (a) {
		f->obj.by_uid = true;
		f->obj.uid = make_kuid(current_user_ns(), nla_get_u32(a));
		if (!uid_valid(f->obj.uid)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "no such uid in this user namespace");
			return -EINVAL;
		}
	}
	a = attrs[IOMMU_ACCOUNT_A_QUOTA_PID];
	if (a) {
		f->obj.pid = nla_get_u32(a);
		if (f->obj.pid <= 0) {
			NL_SET_ERR_MSG_ATTR(extack, a, "pid must be positive");
			return -EINVAL;
		}
	}
	return 0;
}

int ia_nl_get_quota_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_quota_filter f;
	struct ia_quota_snap *snap;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_QUOTA_KIND) ||
	    GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_QUOTA_ID))
		return -EINVAL;
	ret = ia_quota_filter_of(info->attrs, &f, info->extack);
	if (ret)
		return ret;
	f.obj.by_id = true;
	f.obj.id = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_QUOTA_ID]);
	snap = ia_quota_snapshot(skb, &f);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_QUOTA, ia_put_quota, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_QUOTA_ID],
				    "no such quota object (or not yours)");
		ret = -ENOENT;
	}
	ia_quota_snap_release(snap);
	return ret;
}

static void ia_quota_snap_free(void *snap)
{
	ia_quota_snap_release(snap);
}

int ia_nl_get_quota_start(struct netlink_callback *cb)
{
	struct ia_quota_filter f;
	struct ia_quota_snap *snap;
	unsigned int i;
	int ret;

	ret = ia_quota_filter_of(ia_dump_attrs(cb), &f, cb->extack);
	if (ret)
		return ret;
	snap = ia_quota_snapshot(cb->skb, &f);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	for (i = 0; i < snap->nr; i++)
		ia_dump_room_for(cb, snap->rec[i].last_cgpath);
	ia_snap_dump_init(cb, snap, snap->nr, ia_quota_snap_free);
	return 0;
}

int ia_nl_get_quota_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_QUOTA, ia_put_quota);
}
