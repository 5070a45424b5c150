// SPDX-License-Identifier: GPL-2.0
/*
 * GET_UID: the per-uid locked-memory pot (source: uid.c), and its quota kind
 * uid-pot (GET_QUOTA), with the memlock ledger's refusals and thresholds.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"
#include "source.h"

/*
 * What the most constrained process can still charge: its limit rounded
 * down to a page minus the pot, saturated to the s64 range (limits at or
 * above 2^63 that are not RLIM_INFINITY exist).
 */
static s64 ia_headroom(u64 limit, u64 locked)
{
	limit &= PAGE_MASK;
	if (limit >= locked)
		return (s64)min_t(u64, limit - locked, S64_MAX);
	return -(s64)min_t(u64, locked - limit, S64_MAX);
}

int ia_put_consumers(struct sk_buff *msg, int attr, const u64 *pages)
{
	struct nlattr *nest;
	int c;

	for (c = 0; c < IA_CONS_COUNT; c++) {
		if (!pages[c])
			continue;
		nest = nla_nest_start(msg, attr);
		if (!nest ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER, c) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES,
				      pages[c] << PAGE_SHIFT, IOMMU_ACCOUNT_A_CONSUMER_BYTES_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/*
 * The breakdown: consumers as followed since load; unattributed is the
 * kernel's counter (read in the same snapshot as locked-bytes) minus them,
 * so the parts add up to locked-bytes. The two are read moments apart: a
 * release in between can leave attributed above the counter for that one
 * reading, so unattributed is clamped at 0.
 */
static int ia_put_breakdown(struct sk_buff *msg, const struct ia_uid_rec *r,
			    const struct ia_memlock_uids *ml)
{
	const int pad = IOMMU_ACCOUNT_A_UID_PAD;
	const struct ia_memlock_uid *m = ml ? ia_memlock_uid_find(ml, r->uid) : NULL;
	u64 attributed = 0, pending = 0, charges = 0, refusals = 0;
	u32 inexact = ml && ml->probe_missed ? IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED : 0;
	static const u64 none[IA_CONS_COUNT];
	int c;

	if (m) {
		for (c = 0; c < IA_CONS_COUNT; c++)
			attributed += m->pages[c];
		pending = m->pending_pages;
		charges = m->charges;
		refusals = m->refusals;
		inexact |= m->inexact;
	} else if (ml && ia_memlock_uid_lost(r->uid)) {
		inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
	}
	if (ia_put_consumers(msg, IOMMU_ACCOUNT_A_UID_CONSUMER, m ? m->pages : none) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES,
			      (r->locked_pages - min(r->locked_pages, attributed)) << PAGE_SHIFT,
			      pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_PENDING_BYTES, pending << PAGE_SHIFT, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_CGROUPS, r->cgroups) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_CHARGES, charges, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_REFUSALS, refusals, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_INEXACT, inexact))
		return -EMSGSIZE;
	if (ml && ml->iommufd &&
	    (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES,
			       (m ? m->iommufd_mm_pages : 0) << PAGE_SHIFT, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES,
			       (m ? m->iommufd_exempt_pages : 0) << PAGE_SHIFT, pad)))
		return -EMSGSIZE;
	return 0;
}

static int ia_put_uid(struct sk_buff *msg, const struct ia_uid_rec *r,
		      const struct ia_memlock_uids *ml, struct user_namespace *ns)
{
	const int pad = IOMMU_ACCOUNT_A_UID_PAD;
	u64 locked = r->locked_pages << PAGE_SHIFT;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_UID, from_kuid_munged(ns, r->uid)) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_LOCKED_BYTES, locked, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_TASKS, r->tasks) ||
	    ia_put_breakdown(msg, r, ml))
		return -EMSGSIZE;
	if (!r->tasks)
		return 0;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN, r->rlim_min, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX, r->rlim_max, pad))
		return -EMSGSIZE;
	if (r->rlim_min == U64_MAX)
		return 0;
	if (nla_put_s64(msg, IOMMU_ACCOUNT_A_UID_HEADROOM,
			ia_headroom(r->rlim_min, locked), pad))
		return -EMSGSIZE;
	return 0;
}

static int ia_put_uid_elem(struct sk_buff *skb, const void *snap, unsigned int i,
			   struct user_namespace *ns)
{
	const struct ia_uid_snap *s = snap;

	return ia_put_uid(skb, &s->rec[i], s->ml, ns);
}

static void ia_uid_snap_free(void *p)
{
	struct ia_uid_snap *snap = p;

	ia_memlock_uids_free(snap->ml);
	kvfree(snap);
}

/*
 * The pots and their breakdown. The breakdown is taken first: a release
 * between the two readings makes unattributed smaller, never negative
 * (clamped), and a charge in between shows as unattributed for a moment.
 */
static struct ia_uid_snap *ia_uid_snapshot_ml(const struct ia_filter *f)
{
	struct ia_memlock_uids *ml = ia_memlock_uids();
	struct ia_uid_snap *snap;

	if (IS_ERR(ml))
		return ERR_CAST(ml);
	snap = ia_uid_snapshot(f);
	if (IS_ERR(snap)) {
		ia_memlock_uids_free(ml);
		return snap;
	}
	snap->ml = ml;
	return snap;
}

/*
 * Which uid a request may see (@f->by_uid, @f->uid); an unprivileged caller
 * is confined to its own real uid.
 */
static int ia_uid_scope(const struct sk_buff *skb, struct nlattr **attrs,
			struct netlink_ext_ack *extack, struct ia_filter *f)
{
	memset(f, 0, sizeof(*f));
	return ia_nl_uid_scope(skb, attrs ? attrs[IOMMU_ACCOUNT_A_UID_UID] : NULL, extack,
			       &f->by_uid, &f->uid);
}

int ia_nl_get_uid_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_uid_snap *snap;
	struct ia_filter f;
	int ret;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_UID_UID))
		return -EINVAL;
	ret = ia_uid_scope(skb, info->attrs, info->extack, &f);
	if (ret)
		return ret;
	snap = ia_uid_snapshot_ml(&f);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_UID, ia_put_uid_elem, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_UID_UID],
				    "no such user: no process and no pot of that uid is alive");
		ret = -ENOENT;
	}
	ia_uid_snap_free(snap);
	return ret;
}

int ia_nl_get_uid_start(struct netlink_callback *cb)
{
	struct ia_uid_snap *snap;
	struct ia_filter f;
	int ret;

	ret = ia_uid_scope(cb->skb, ia_dump_attrs(cb), cb->extack, &f);
	if (ret)
		return ret;
	snap = ia_uid_snapshot_ml(&f);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ia_snap_dump_init(cb, snap, snap->nr, ia_uid_snap_free);
	return 0;
}

int ia_nl_get_uid_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_UID, ia_put_uid_elem);
}

/* --- kind uid-pot --------------------------------------------------------------- */

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
	q->pot.has_limit_min = r->tasks && r->rlim_min != U64_MAX;
	q->pot.limit_min = r->rlim_min & PAGE_MASK;
	if (m && m->has_charger_limit) {
		/*
		 * The limit of the process that charged last, which the kernel
		 * compared with: an idle process of the uid with a smaller one
		 * does not make a job with a larger one look full.
		 */
		q->has_limit = m->charger_limit != RLIM_INFINITY;
		q->limit = m->charger_limit & PAGE_MASK;
	} else {
		q->has_limit = q->pot.has_limit_min;
		q->limit = q->pot.limit_min;
		q->flags |= IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST;
	}
	q->refusals = m ? m->refusals : 0;
	if (m && m->has_last) {
		q->has_last = true;
		q->last = m->last;
		q->last_cgpath = ia_cgpath_get(m->last_cgpath);
	}
}

/*
 * The pots @q lets through: by id (a uid) within what the caller may see; a
 * pot has no owning process, so a pid filter leaves none.
 */
static struct ia_quota_list *ia_uid_pot_snapshot(const struct ia_quota_query *q)
{
	kuid_t only = q->asked.by_id ? make_kuid(q->ns, q->asked.id) : q->seen.uid;
	struct ia_filter uf = { .by_uid = q->asked.by_id || q->seen.by_uid, .uid = only };
	struct ia_quota_list *l;
	struct ia_uid_snap *us;
	unsigned int i;

	if (q->asked.pid ||
	    (q->asked.by_id && (!uid_valid(only) ||
				(q->seen.by_uid && !uid_eq(only, q->seen.uid)))))
		return kvzalloc(sizeof(*l), GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
	us = ia_uid_snapshot_ml(&uf);
	if (IS_ERR(us))
		return ERR_CAST(us);
	l = kvmalloc(struct_size(l, rec, us->nr), GFP_KERNEL);
	if (l) {
		for (i = 0; i < us->nr; i++)
			ia_quota_from_uid(&l->rec[i], &us->rec[i], us->ml, q->ns);
		l->nr = us->nr;
	}
	ia_uid_snap_free(us);
	return l ?: ERR_PTR(-ENOMEM);
}

static void ia_uid_pot_thr_set(const struct ia_thresholds *t, const u32 *margin)
{
	struct ia_thresholds old;
	u32 m;

	ia_memlock_thresholds_get(&old, &m);
	ia_memlock_thresholds_set(t, margin ? *margin : m);
}

static int ia_uid_pot_put(struct sk_buff *msg, const struct ia_quota_rec *q)
{
	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_FLAGS, q->flags) ||
	    (q->pot.has_limit_min &&
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN, q->pot.limit_min,
			       IOMMU_ACCOUNT_A_QUOTA_PAD)))
		return -EMSGSIZE;
	return 0;
}

const struct ia_quota_kind ia_uid_pot_kind = {
	.id = IA_KIND_UID_POT,
	.name = "uid-pot",
	.unit = "bytes",
	.needs = IA_FEAT_UID_TASKS,
	.snapshot = ia_uid_pot_snapshot,
	.thr_get = ia_memlock_thresholds_get,
	.thr_set = ia_uid_pot_thr_set,
	.put = ia_uid_pot_put,
	.has_margin = true,
};
