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
};

static const struct ia_quota_kind ia_quota_kinds[] = {
	{ IA_KIND_VFIO_CONTAINER, "vfio-container", "entries", IA_FEAT_VFIO_TYPE1 },
	{ IA_KIND_UID_POT, "uid-pot", "bytes", IA_FEAT_UID_TASKS },
};

int ia_nl_put_quota_kinds(struct sk_buff *msg, const struct ia_feature_info *feat)
{
	const struct ia_quota_kind *k;
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ia_quota_kinds); i++) {
		k = &ia_quota_kinds[i];
		if (!feat[k->needs].active)
			continue;
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND);
		if (!nest ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND, k->kind) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME, k->name) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT, k->unit))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

struct ia_quota_rec {
	u32 kind, id;
	u64 used, limit;
	bool has_limit, has_owner;
	kuid_t uid;
	struct ia_owner owner;
	u64 refusals;
};

struct ia_quota_snap {
	unsigned int nr;
	struct ia_quota_rec rec[];
};

static int ia_put_quota(struct sk_buff *msg, const void *snap, unsigned int i,
			struct user_namespace *ns)
{
	const struct ia_quota_rec *q = &((const struct ia_quota_snap *)snap)->rec[i];
	const int pad = IOMMU_ACCOUNT_A_QUOTA_PAD;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND, q->kind) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_ID, q->id) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_USED, q->used, pad) ||
	    (q->has_limit &&
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_LIMIT, q->limit, pad)) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_UID, from_kuid_munged(ns, q->uid)) ||
	    (q->has_owner && ia_put_owner(msg, IOMMU_ACCOUNT_A_QUOTA_OWNER, &q->owner, ns)) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_REFUSALS, q->refusals, pad))
		return -EMSGSIZE;
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
}

/*
 * The objects of @kind (-1: every kind) the caller may see, one of them
 * when @one (by @id). Unprivileged callers see their own real uid's pot
 * and the containers they own, as in GET_UID and GET_CONTAINER.
 */
static struct ia_quota_snap *ia_quota_snapshot(const struct sk_buff *skb, s64 kind,
					       bool one, u32 id)
{
	struct user_namespace *ns = current_user_ns();
	struct ia_feature_info feat[IA_FEAT_COUNT];
	struct ia_container_snap *cs = NULL;
	struct ia_uid_snap *us = NULL;
	bool admin = ia_nl_admin(skb);
	struct ia_quota_snap *snap;
	unsigned int n = 0, i;
	kuid_t only = current_uid();
	bool filter = !admin;

	ia_features_copy(feat);
	if ((kind < 0 || kind == IA_KIND_UID_POT) && feat[IA_FEAT_UID_TASKS].active) {
		if (one) {
			only = make_kuid(ns, id);
			if (!uid_valid(only) || (!admin && !uid_eq(only, current_uid())))
				goto uid_done;
			filter = true;
		}
		us = ia_uid_snapshot_ml(filter, only);
		if (IS_ERR(us))
			return ERR_CAST(us);
		n += us->nr;
	}
uid_done:
	if ((kind < 0 || kind == IA_KIND_VFIO_CONTAINER) && feat[IA_FEAT_VFIO_TYPE1].active) {
		cs = ia_container_snapshot(one, id, !admin, current_uid());
		if (IS_ERR(cs)) {
			snap = ERR_CAST(cs);
			goto out;
		}
		n += cs->nr;
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
out:
	if (us)
		ia_uid_snap_free(us);
	if (!IS_ERR_OR_NULL(cs))
		ia_container_snap_free(cs);
	return snap;
}

static s64 ia_quota_kind_attr(struct nlattr **attrs)
{
	struct nlattr *a = attrs ? attrs[IOMMU_ACCOUNT_A_QUOTA_KIND] : NULL;

	/* Not a ?: of u32 and -1, which would make it 4294967295. */
	if (!a)
		return -1;
	return nla_get_u32(a);
}

int ia_nl_get_quota_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_quota_snap *snap;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_QUOTA_KIND) ||
	    GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_QUOTA_ID))
		return -EINVAL;
	snap = ia_quota_snapshot(skb, ia_quota_kind_attr(info->attrs), true,
				 nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_QUOTA_ID]));
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_QUOTA, ia_put_quota, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_QUOTA_ID],
				    "no such quota object (or not yours)");
		ret = -ENOENT;
	}
	kvfree(snap);
	return ret;
}

static void ia_quota_snap_free(void *snap)
{
	kvfree(snap);
}

int ia_nl_get_quota_start(struct netlink_callback *cb)
{
	struct ia_quota_snap *snap;

	snap = ia_quota_snapshot(cb->skb, ia_quota_kind_attr(ia_dump_attrs(cb)), false, 0);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ia_snap_dump_init(cb, snap, snap->nr, ia_quota_snap_free);
	return 0;
}

int ia_nl_get_quota_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_QUOTA, ia_put_quota);
}
