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
#include "source.h"

static bool ia_quota_kind_on(const struct ia_quota_kind *k, const struct ia_feature_info *feat)
{
	return feat[k->needs].active && (!k->followed || k->followed());
}

int ia_nl_put_quota_kinds(struct sk_buff *msg, const struct ia_feature_info *feat)
{
	const int pad = IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_PAD;
	const struct ia_quota_kind *k;
	struct nlattr *nest;
	u32 id;

	for (id = 0; id <= IA_KIND_MAX; id++) {
		k = ia_kind_of(id);
		if (!k || !ia_quota_kind_on(k, feat))
			continue;
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND);
		if (!nest ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND, k->id) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME, k->name) ||
		    nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT, k->unit) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS,
				      ia_kind_refusals(k->id), pad))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* One fill function for do, dump and (nested) events: every kind's, then the kind's own. */
static int ia_put_quota_rec(struct sk_buff *msg, const struct ia_quota_rec *q,
			    struct user_namespace *ns)
{
	const struct ia_quota_kind *k = ia_kind_of(q->kind);
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
	return k && k->put ? k->put(msg, q) : 0;
}

static int ia_put_quota(struct sk_buff *msg, const void *snap, unsigned int i,
			struct user_namespace *ns)
{
	return ia_put_quota_rec(msg, &((const struct ia_quota_list *)snap)->rec[i], ns);
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

/* What a request asks for: -1 or the kind; one object (by id); an owner's uid or pid. */
struct ia_quota_filter {
	s64 kind;
	struct ia_filter obj;
};

/*
 * The objects the caller may see that match @f, of every kind in the order
 * of the kind enum, each sorted by id. Unprivileged callers see their own
 * real uid's pot, and the containers and qpairs they own, as in GET_UID and
 * GET_CONTAINER.
 */
static struct ia_quota_list *ia_quota_snapshot(const struct sk_buff *skb,
					       const struct ia_quota_filter *f)
{
	struct ia_quota_list *part[IA_KIND_MAX + 1] = {}, *snap;
	const struct ia_quota_kind *k;
	bool admin = ia_nl_admin(skb);
	struct ia_quota_query q = {
		.kind = f->kind,
		.asked = f->obj,
		.seen = f->obj,
		.ns = current_user_ns(),
	};
	unsigned int n = 0;
	u32 id;

	/* Someone else's objects, unprivileged: none. */
	if (!admin && f->obj.by_uid && !uid_eq(f->obj.uid, current_uid()))
		return kvzalloc(sizeof(*snap), GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
	q.seen.by_uid = f->obj.by_uid || !admin;
	q.seen.uid = f->obj.by_uid ? f->obj.uid : current_uid();
	for (id = 0; id <= IA_KIND_MAX; id++) {
		k = ia_kind_of(id);
		if (!k || (f->kind >= 0 && f->kind != id) || !ia_feature_active(k->needs))
			continue;
		part[id] = k->snapshot(&q);
		if (IS_ERR(part[id])) {
			snap = part[id];
			part[id] = NULL;
			goto out;
		}
		n += part[id]->nr;
	}
	snap = kvmalloc(struct_size(snap, rec, n), GFP_KERNEL);
	if (!snap) {
		snap = ERR_PTR(-ENOMEM);
		goto out;
	}
	snap->nr = 0;
	/* The records move, with what they hold: each part is then just freed. */
	for (id = 0; id <= IA_KIND_MAX; id++) {
		if (!part[id])
			continue;
		memcpy(&snap->rec[snap->nr], part[id]->rec, part[id]->nr * sizeof(snap->rec[0]));
		snap->nr += part[id]->nr;
		kvfree(part[id]);
		part[id] = NULL;
	}
out:
	for (id = 0; id <= IA_KIND_MAX; id++)
		ia_quota_list_free(part[id]);
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
	struct ia_quota_list *snap;
	int ret;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_QUOTA_KIND) ||
	    ia_req_attr_missing(info, IOMMU_ACCOUNT_A_QUOTA_ID))
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
	ia_quota_list_free(snap);
	return ret;
}

static void ia_quota_snap_free(void *snap)
{
	ia_quota_list_free(snap);
}

int ia_nl_get_quota_start(struct netlink_callback *cb)
{
	struct ia_quota_filter f;
	struct ia_quota_list *snap;
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
