// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "iommu_account": the family and its policies,
 * STATUS and THRESHOLDS, and the event sink. The attributes of each source
 * live in nl_uid.c, nl_quota.c, nl_proc.c and nl_vfio.c; the permission
 * test and the dump and reply machinery they share in nl_util.c. The YNL spec
 * (Documentation/netlink/specs/iommu_account.yaml) is the reference: the
 * numbers come from the uapi header generated from it, and the policies and
 * the operation table are generated from it too (nl-gen.c, by
 * scripts/ynl-gen-kernel.py; scripts/ynl-check compares).
 *
 * Permissions: the pots and containers are machine-wide (user_structs are
 * not per network namespace), so seeing other users' objects, changing
 * thresholds and following events require CAP_SYS_ADMIN in the initial user
 * namespace, checked with netlink_capable() (the opener of the socket and the
 * sender must both have it). CAP_NET_ADMIN is not enough: a container's root
 * has it over its own network namespace, and must neither learn what other
 * tenants hold nor silence their warnings. Anyone may see their own real uid.
 *
 * Operations run in parallel (parallel_ops): every handler works on its own
 * snapshot, taken under the source's locks.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"
#include "source.h"

static struct genl_family ia_family;

enum ia_mcgrp {
	IA_MCGRP_EVENTS,
};

static const struct genl_multicast_group ia_mcgrps[] = {
	[IA_MCGRP_EVENTS] = {
		.name = IOMMU_ACCOUNT_MCGRP_EVENTS,
		.flags = IA_MCAST_FLAGS,
	},
};

/* --- GET_STATUS ---------------------------------------------------------------- */

static int ia_put_feature(struct sk_buff *msg, const struct ia_feature_info *f)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_FEATURE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_FEATURE_NAME, f->name) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_FEATURE_STATE,
			f->active ? IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE :
				    IOMMU_ACCOUNT_FEATURE_STATE_UNAVAILABLE) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_FEATURE_DETAIL, f->detail)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* What STATUS says: the features, and the event budgets the caller may see. */
struct ia_status_view {
	struct ia_feature_info *feat;
	bool admin;
	kuid_t uid;			/* of the requester */
	struct ia_events_stats ev;
	unsigned int nbudget;
	struct ia_budget_rec budget[IA_STATUS_BUDGETS];
};

static int ia_put_budgets(struct sk_buff *msg, const struct ia_status_view *v,
			  struct user_namespace *ns)
{
	const int pad = IOMMU_ACCOUNT_A_STATUS_PAD, bpad = IOMMU_ACCOUNT_A_EVENT_BUDGET_PAD;
	const struct ia_budget_rec *b;
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_EVENTS_COALESCED, v->ev.coalesced, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED, v->ev.suppressed,
			      pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_FAILURES_SUPPRESSED,
			      v->ev.suppressed_failures, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_FAILURES_DROPPED,
			      v->ev.dropped_failures, pad))
		return -EMSGSIZE;
	for (i = 0; i < v->nbudget; i++) {
		b = &v->budget[i];
		/* Another uid's activity: CAP_SYS_ADMIN only. */
		if (!v->admin && !uid_eq(b->uid, v->uid))
			continue;
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_BUDGET);
		if (!nest ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_BUDGET_UID,
				from_kuid_munged(ns, b->uid)) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_BUDGET_SUPPRESSED, b->suppressed,
				      bpad) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_BUDGET_FAILURES_SUPPRESSED,
				      b->suppressed_failures, bpad))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

static int ia_put_status(struct sk_buff *msg, const void *view, unsigned int unused,
			 struct user_namespace *ns)
{
	const struct ia_status_view *v = view;
	const struct ia_feature_info *f = v->feat;
	const int pad = IOMMU_ACCOUNT_A_STATUS_PAD;
	int i;

	if (nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION, IA_VERSION) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE,
			   init_utsname()->release) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE, PAGE_SIZE))
		return -EMSGSIZE;
	for (i = 0; i < IA_FEAT_COUNT; i++)
		if (ia_put_feature(msg, &f[i]))
			return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED,
			      ia_events_dropped(), pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED,
			      ia_sources_probes_missed(), pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED, ia_vfio_untracked()) ||
	    ia_nl_put_quota_kinds(msg, f) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ, ia_events_sent(), pad) ||
	    ia_put_budgets(msg, v, ns))
		return -EMSGSIZE;
	return 0;
}

int ia_nl_get_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	/* Not on the stack: IA_FEAT_COUNT details are over 2 KiB. */
	struct ia_status_view *v;
	int ret;

	if (ia_req_no_attrs(info))
		return -EINVAL;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	v->feat = kmalloc_array(IA_FEAT_COUNT, sizeof(*v->feat), GFP_KERNEL);
	if (!v->feat) {
		kfree(v);
		return -ENOMEM;
	}
	ia_features_copy(v->feat);
	v->admin = ia_nl_admin(skb);
	v->uid = current_uid();
	ia_events_budget(&v->ev, v->budget, IA_STATUS_BUDGETS, &v->nbudget);
	ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_STATUS, ia_put_status, v, 0);
	kfree(v->feat);
	kfree(v);
	return ret;
}

/* --- GET_THRESHOLDS, SET_THRESHOLDS ---------------------------------------------- */

/* Thresholds of one quota kind; margin is meaningful for the uid pot and qpairs. */
struct ia_thr_reply {
	struct ia_thresholds t;
	u32 kind;
	u32 margin;
	bool has_margin;
};

static int ia_put_thresholds(struct sk_buff *msg, const void *p, unsigned int unused,
			     struct user_namespace *ns)
{
	const struct ia_thr_reply *r = p;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, r->t.warn) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, r->t.crit) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, r->kind))
		return -EMSGSIZE;
	if (r->has_margin &&
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, r->margin))
		return -EMSGSIZE;
	return 0;
}

static void ia_thresholds_of(const struct ia_quota_kind *k, struct ia_thr_reply *r)
{
	r->kind = k->id;
	r->margin = 0;
	r->has_margin = k->has_margin;
	k->thr_get(&r->t, &r->margin);
}

static u32 ia_thr_kind(struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_KIND];

	return a ? nla_get_u32(a) : IA_KIND_VFIO_CONTAINER;
}

/*
 * The kind asked for; a kind without thresholds of its own: -EOPNOTSUPP,
 * saying where to look.
 */
static const struct ia_quota_kind *ia_thr_kind_of(struct genl_info *info)
{
	const struct ia_quota_kind *k = ia_kind_of(ia_thr_kind(info));

	if (!k) {
		/* The policy's range admits only the spec's kinds: a kind without a source. */
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_KIND],
				    "no such quota kind in this module");
		return ERR_PTR(-EINVAL);
	}
	if (!k->thr_get) {
		/* The kind's own words (not a literal: NL_SET_ERR_MSG wants one). */
		NL_SET_BAD_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_KIND]);
		if (info->extack)
			info->extack->_msg = k->no_thresholds;
		return ERR_PTR(-EOPNOTSUPP);
	}
	return k;
}

int ia_nl_get_thresholds_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct ia_quota_kind *k = ia_thr_kind_of(info);
	struct ia_thr_reply r;

	if (IS_ERR(k))
		return PTR_ERR(k);
	ia_thresholds_of(k, &r);
	return ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, ia_put_thresholds, &r, 0);
}

/*
 * CAP_SYS_ADMIN is checked here, not with GENL_ADMIN_PERM (that is
 * CAP_NET_ADMIN).
 */
int ia_nl_set_thresholds_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *margin = info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN];
	const struct ia_quota_kind *k;
	struct ia_thr_reply r;
	struct ia_thresholds t;
	u32 m;

	if (!ia_nl_admin(skb)) {
		NL_SET_ERR_MSG(info->extack,
			       "changing thresholds needs CAP_SYS_ADMIN in the initial user namespace");
		return -EPERM;
	}
	k = ia_thr_kind_of(info);
	if (IS_ERR(k))
		return PTR_ERR(k);
	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_THRESHOLDS_WARN) ||
	    ia_req_attr_missing(info, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT))
		return -EINVAL;
	t.warn = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_WARN]);
	t.crit = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT]);
	/* EINVAL (not the range policy's ERANGE), as documented. */
	if (!t.warn || t.crit > 1000) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[t.warn ? IOMMU_ACCOUNT_A_THRESHOLDS_CRIT :
							 IOMMU_ACCOUNT_A_THRESHOLDS_WARN],
				    "thresholds are per mille of the limit: 0 < warn < crit <= 1000");
		return -EINVAL;
	}
	if (t.warn >= t.crit) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_WARN],
				    "warn must be below crit");
		return -EINVAL;
	}
	if (margin && !k->has_margin) {
		NL_SET_ERR_MSG_ATTR(info->extack, margin,
				    "margin is for the uid-pot and qpair thresholds only");
		return -EINVAL;
	}
	if (margin && nla_get_u32(margin) >= t.warn) {
		NL_SET_ERR_MSG_ATTR(info->extack, margin, "margin must be below warn");
		return -EINVAL;
	}
	if (margin)
		m = nla_get_u32(margin);
	k->thr_set(&t, margin ? &m : NULL);
	ia_thresholds_of(k, &r);
	return ia_reply_elem(info, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS, ia_put_thresholds, &r, 0);
}

/* --- events ------------------------------------------------------------------------ */

static int ia_nl_put_pot_event(struct sk_buff *msg, const struct ia_event *ev)
{
	const int pad = IOMMU_ACCOUNT_A_EVENT_PAD;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_UID,
			from_kuid_munged(&init_user_ns, ev->pot.uid)) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_CONSUMER, ev->pot.consumer) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_CGROUP_ID, ev->cgroup_id, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SIZE, ev->size, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES, ev->locked_bytes, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT, ev->memlock, pad))
		return -EMSGSIZE;
	return 0;
}

/* One event: what every kind has, then the kind's own attributes. */
int ia_nl_put_event(struct sk_buff *msg, const struct ia_event *ev)
{
	const int pad = IOMMU_ACCOUNT_A_EVENT_PAD;
	int ret;

	static const u32 type[] = {
		[IA_EV_FAILURE] = IOMMU_ACCOUNT_EVENT_TYPE_FAILURE,
		[IA_EV_THRESHOLD] = IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD,
		[IA_EV_GONE] = IOMMU_ACCOUNT_EVENT_TYPE_GONE,
	};

	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SEQ, ev->seq, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_TYPE, type[ev->type]) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_TIME_NS, ev->time_ns, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_KIND, ev->kind) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_EVENT_OWNER, &ev->who, &init_user_ns))
		return -EMSGSIZE;
	if (ev->kind == IA_KIND_UID_POT)
		ret = ia_nl_put_pot_event(msg, ev);
	else if (ev->kind == IA_KIND_VFIO_CONTAINER)
		ret = ia_nl_put_vfio_event(msg, ev);
	else
		ret = ia_nl_put_quota_nest(msg, IOMMU_ACCOUNT_A_EVENT_QUOTA, &ev->q,
					   &init_user_ns);
	if (ret)
		return ret;
	/* A refused pin of an iommufd context: its size and the process's counter. */
	if (ev->kind == IA_KIND_IOMMUFD_CTX && ev->type == IA_EV_FAILURE &&
	    (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_CGROUP_ID, ev->cgroup_id, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SIZE, ev->size, pad) ||
	     (ev->locked_bytes &&
	      nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES, ev->locked_bytes, pad)) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT, ev->memlock, pad)))
		return -EMSGSIZE;
	if (ev->type == IA_EV_FAILURE &&
	    (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_ERRNO, ev->err) ||
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_COUNT, ev->count) ||
	     (ev->ioas && nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_IOAS, ev->ioas))))
		return -EMSGSIZE;
	if (ev->type == IA_EV_THRESHOLD &&
	    (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_LEVEL,
			 ev->level == IA_LEVEL_CRIT ? IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT :
						      IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN) ||
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_THRESHOLD, ev->threshold) ||
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_COUNT, max(ev->count, 1U))))
		return -EMSGSIZE;
	return 0;
}

/* --- the event sink -------------------------------------------------------------- */

/*
 * Sockets subscribed to the events (SUBSCRIBE_EVENTS), unicast: where the
 * kernel cannot restrict the multicast group to CAP_SYS_ADMIN the group is
 * not offered and this is the only way; elsewhere a client may ask too.
 * Only sockets of the initial network namespace, by portid: one leaves at
 * its release (the netlink notifier, which runs before its portid can be
 * taken again) or when a send finds it gone. The subscribe request runs in
 * the subscriber's own sendmsg, so its socket cannot be released meanwhile.
 *
 * Locking: ia_nl_subs_lock, a leaf but for the sends it covers
 * (ia_nl_unicast_subs(): at most 64, none sleeps), over the array; taken in
 * process context (requests, the events work) and by the release notifier
 * (atomic on some kernels).
 */
#define IA_NL_SUBS_MAX 64
static DEFINE_SPINLOCK(ia_nl_subs_lock);
static u32 ia_nl_subs[IA_NL_SUBS_MAX];
static unsigned int ia_nl_nsubs;

/* Where @portid is in the list, or ia_nl_nsubs (ia_nl_subs_lock held). */
static unsigned int ia_nl_sub_find(u32 portid)
{
	unsigned int i;

	lockdep_assert_held(&ia_nl_subs_lock);
	for (i = 0; i < ia_nl_nsubs && ia_nl_subs[i] != portid; i++)
		;
	return i;
}

/* The subscriber at @i leaves (ia_nl_subs_lock held): the last takes its place. */
static void ia_nl_sub_drop(unsigned int i)
{
	lockdep_assert_held(&ia_nl_subs_lock);
	ia_nl_subs[i] = ia_nl_subs[--ia_nl_nsubs];
}

static void ia_nl_sub_del(u32 portid)
{
	unsigned int i;

	spin_lock(&ia_nl_subs_lock);
	i = ia_nl_sub_find(portid);
	if (i < ia_nl_nsubs)
		ia_nl_sub_drop(i);
	spin_unlock(&ia_nl_subs_lock);
}

int ia_nl_subscribe_events_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 portid = info->snd_portid;
	unsigned int i;
	int ret = 0;

	if (ia_req_no_attrs(info))
		return -EINVAL;
	if (!ia_nl_admin(skb)) {
		NL_SET_ERR_MSG(info->extack,
			       "following events needs CAP_SYS_ADMIN in the initial user namespace");
		return -EPERM;
	}
	if (!net_eq(genl_info_net(info), &init_net)) {
		NL_SET_ERR_MSG(info->extack,
			       "events are sent in the initial network namespace only");
		return -EPERM;
	}
	spin_lock(&ia_nl_subs_lock);
	i = ia_nl_sub_find(portid);
	if (i == ia_nl_nsubs) {
		if (ia_nl_nsubs < IA_NL_SUBS_MAX)
			ia_nl_subs[ia_nl_nsubs++] = portid;
		else
			ret = -ENOSPC;
	}
	spin_unlock(&ia_nl_subs_lock);
	if (ret)
		NL_SET_ERR_MSG(info->extack, "64 sockets follow the events already");
	return ret;
}

static int ia_nl_release_cb(struct notifier_block *nb, unsigned long what, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (what == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net) && READ_ONCE(ia_nl_nsubs))
		ia_nl_sub_del(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block ia_nl_release_nb = {
	.notifier_call = ia_nl_release_cb,
};

static bool ia_nl_listening(void)
{
	return READ_ONCE(ia_nl_nsubs) ||
	       (IA_HAVE_MCAST_CAP && genl_has_listeners(&ia_family, &init_net, IA_MCGRP_EVENTS));
}

/*
 * @msg to each subscriber. The sends happen under ia_nl_subs_lock, so a
 * socket released meanwhile (the notifier takes the lock) is never sent
 * to, nor another socket that took its portid since. Hence a copy each,
 * made beforehand and of the message's own size: netlink_unicast() without
 * waiting does not sleep unless it must trim a buffer with much room
 * (netlink_trim()), which such a copy never has. A socket gone leaves the
 * list; -EAGAIN: its queue is full, and netlink marked it overrun (ENOBUFS
 * on its next read), as for a group member.
 */
static void ia_nl_unicast_subs(struct sk_buff *msg)
{
	struct sk_buff *copy[IA_NL_SUBS_MAX];
	unsigned int i, n, sent;

	n = READ_ONCE(ia_nl_nsubs);
	for (i = 0; i < n; i++) {
		copy[i] = nlmsg_new(nlmsg_len(nlmsg_hdr(msg)), GFP_KERNEL);
		if (!copy[i])
			break;
		skb_put_data(copy[i], msg->data, msg->len);
	}
	n = i;
	spin_lock(&ia_nl_subs_lock);
	for (i = 0, sent = 0; i < ia_nl_nsubs && sent < n; sent++) {
		if (genlmsg_unicast(&init_net, copy[sent], ia_nl_subs[i]) == -ECONNREFUSED)
			ia_nl_sub_drop(i);
		else
			i++;
	}
	spin_unlock(&ia_nl_subs_lock);
	for (; sent < n; sent++)
		nlmsg_free(copy[sent]);
}

static void ia_nl_deliver(const struct ia_event *ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &ia_family, 0, IOMMU_ACCOUNT_CMD_EVENT);
	if (!hdr || ia_nl_put_event(msg, ev)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	if (READ_ONCE(ia_nl_nsubs))
		ia_nl_unicast_subs(msg);
	if (!IA_HAVE_MCAST_CAP) {
		nlmsg_free(msg);
		return;
	}
	/* -ESRCH: nobody listens any more, which is fine. */
	genlmsg_multicast(&ia_family, msg, 0, IA_MCGRP_EVENTS, GFP_KERNEL);
}

static const struct ia_event_sink ia_nl_sink = {
	.deliver = ia_nl_deliver,
	.listening = ia_nl_listening,
};

/* --- the family -------------------------------------------------------------------- */

static struct genl_family ia_family __ro_after_init = {
	.name = IOMMU_ACCOUNT_FAMILY_NAME,
	.version = IOMMU_ACCOUNT_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = ia_nl_ops,		/* nl-gen.c, from the YNL spec */
	.n_ops = IA_NL_N_OPS,
	.mcgrps = ia_mcgrps,
	.n_mcgrps = IA_HAVE_MCAST_CAP ? ARRAY_SIZE(ia_mcgrps) : 0,
#if IA_HAVE_GENL_FAMILY_RESV_START_OP
	.resv_start_op = IOMMU_ACCOUNT_CMD_GET_STATUS,
#endif
};

int __init ia_netlink_init(void)
{
	int ret;

	ia_nl_util_init(&ia_family);
	ret = netlink_register_notifier(&ia_nl_release_nb);
	if (ret)
		return ret;
	ret = genl_register_family(&ia_family);
	if (ret) {
		netlink_unregister_notifier(&ia_nl_release_nb);
		return ret;
	}
	if (IA_HAVE_MCAST_CAP)
		ia_feature_set(IA_FEAT_EVENTS, true,
			       "multicast group \"events\" or subscribe-events, CAP_SYS_ADMIN, initial network namespace");
	else
		ia_feature_set(IA_FEAT_EVENTS, true,
			       "subscribe-events only (this kernel cannot restrict a multicast group to CAP_SYS_ADMIN), CAP_SYS_ADMIN, initial network namespace");
	ia_events_set_sink(&ia_nl_sink);
	return 0;
}

void ia_netlink_exit(void)
{
	ia_events_set_sink(NULL);
	genl_unregister_family(&ia_family);
	netlink_unregister_notifier(&ia_nl_release_nb);
	ia_nl_nsubs = 0;
}

/*
 * The first request for the family loads the module: genetlink's
 * CTRL_CMD_GETFAMILY asks for "net-pf-16-proto-16-family-iommu_account".
 */
MODULE_ALIAS_GENL_FAMILY(IOMMU_ACCOUNT_FAMILY_NAME);
