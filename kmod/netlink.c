// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "iommu_account". The YNL spec in
 * Documentation/netlink/specs/iommu_account.yaml is the reference; the
 * attribute and command numbers come from the uapi header generated from it.
 *
 * Permissions: the pots are machine-wide (user_structs are not per network
 * namespace), so seeing other users requires CAP_SYS_ADMIN in the initial user
 * namespace, checked with netlink_capable() (the opener of the socket and the
 * sender must both have it). CAP_NET_ADMIN is not enough: a container's root
 * has it over its own network namespace, and must not learn what other
 * tenants of the machine hold. Anyone may see their own real uid.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "ia.h"

static struct genl_family ia_family;

static const struct nla_policy ia_uid_policy[IOMMU_ACCOUNT_A_UID_MAX + 1] = {
	[IOMMU_ACCOUNT_A_UID_UID] = { .type = NLA_U32 },
};

static const struct nla_policy ia_group_policy[IOMMU_ACCOUNT_A_GROUP_MAX + 1] = {
	[IOMMU_ACCOUNT_A_GROUP_ID] = { .type = NLA_U32 },
};

static const struct nla_policy ia_container_policy[IOMMU_ACCOUNT_A_CONTAINER_MAX + 1] = {
	[IOMMU_ACCOUNT_A_CONTAINER_ID] = { .type = NLA_U32 },
};

static const struct nla_policy ia_thresholds_policy[IOMMU_ACCOUNT_A_THRESHOLDS_MAX + 1] = {
	[IOMMU_ACCOUNT_A_THRESHOLDS_WARN] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT] = { .type = NLA_U32 },
};

enum ia_mcgrp {
	IA_MCGRP_EVENTS,
};

static const struct genl_multicast_group ia_mcgrps[] = {
	[IA_MCGRP_EVENTS] = {
		.name = IOMMU_ACCOUNT_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_SYS_ADMIN,
	},
};

static bool ia_is_admin(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/* A reply message: do (info) or one message of a dump (cb). */
static void *ia_put_hdr(struct sk_buff *skb, struct genl_info *info,
			struct netlink_callback *cb, u8 cmd)
{
	if (info)
		return genlmsg_put_reply(skb, info, &ia_family, 0, cmd);
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &ia_family, NLM_F_MULTI, cmd);
}

/*
 * Dumps of snapshots (GET_UID, GET_CONTAINER): .start takes one point-in-time
 * snapshot, .dumpit emits its elements from an index cursor over as many
 * messages as needed, .done frees it. The messages of one dump are consistent
 * with each other by construction.
 */
struct ia_snap_dump {
	void *snap;			/* kvfree()d by .done */
	struct user_namespace *ns;	/* of the dumper, for uids */
	unsigned int nr;
	unsigned int next;
};

typedef int (*ia_put_elem_t)(struct sk_buff *skb, const void *snap,
			     unsigned int i, struct user_namespace *ns);

static struct ia_snap_dump *ia_snap_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ia_snap_dump) > sizeof(cb->ctx));
	return (struct ia_snap_dump *)cb->ctx;
}

static void ia_snap_dump_init(struct netlink_callback *cb, void *snap, unsigned int nr)
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);

	ctx->snap = snap;
	ctx->nr = nr;
	ctx->next = 0;
	ctx->ns = get_user_ns(current_user_ns());
}

static int ia_snap_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd, ia_put_elem_t put)
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);
	void *hdr;

	while (ctx->next < ctx->nr) {
		hdr = ia_put_hdr(skb, NULL, cb, cmd);
		if (!hdr)
			break;
		if (put(skb, ctx->snap, ctx->next, ctx->ns)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->next++;
	}
	return skb->len;
}

static int ia_snap_dump_done(struct netlink_callback *cb)
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);

	kvfree(ctx->snap);
	if (ctx->ns)
		put_user_ns(ctx->ns);
	return 0;
}

/* Reply to a do with element @i of @snap. */
static int ia_reply_elem(struct genl_info *info, u8 cmd, ia_put_elem_t put,
			 const void *snap, unsigned int i)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = ia_put_hdr(msg, info, NULL, cmd);
	if (!hdr || put(msg, snap, i, current_user_ns())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* GET_STATUS */

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

static int ia_get_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ia_family, 0,
				IOMMU_ACCOUNT_CMD_GET_STATUS);
	if (!hdr)
		goto err;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION, IA_VERSION) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE,
			   init_utsname()->release) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE, PAGE_SIZE))
		goto err;
	for (i = 0; i < IA_FEAT_COUNT; i++)
		if (ia_put_feature(msg, &ia_features[i]))
			goto err;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED,
			      ia_events_dropped(), IOMMU_ACCOUNT_A_STATUS_PAD) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED,
			      ia_probes_missed(), IOMMU_ACCOUNT_A_STATUS_PAD))
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* GET_UID */

static int ia_put_uid(struct sk_buff *msg, const struct ia_uid_rec *r,
		      struct user_namespace *ns)
{
	u64 locked = r->locked_pages << PAGE_SHIFT;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_UID, from_kuid_munged(ns, r->uid)) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_LOCKED_BYTES, locked,
			      IOMMU_ACCOUNT_A_UID_PAD) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_TASKS, r->tasks))
		return -EMSGSIZE;
	if (!r->tasks)
		return 0;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN, r->rlim_min,
			      IOMMU_ACCOUNT_A_UID_PAD) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX, r->rlim_max,
			      IOMMU_ACCOUNT_A_UID_PAD))
		return -EMSGSIZE;
	if (r->rlim_min == U64_MAX)
		return 0;
	if (nla_put_s64(msg, IOMMU_ACCOUNT_A_UID_HEADROOM,
			(s64)(r->rlim_min & PAGE_MASK) - (s64)locked,
			IOMMU_ACCOUNT_A_UID_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * Which uid a request may see: sets filter and only; an unprivileged caller is
 * confined to its own real uid.
 */
static int ia_uid_scope(const struct sk_buff *skb, struct nlattr **attrs,
			struct netlink_ext_ack *extack, bool *filter, kuid_t *only)
{
	struct nlattr *a = attrs ? attrs[IOMMU_ACCOUNT_A_UID_UID] : NULL;
	bool admin = ia_is_admin(skb);

	*filter = false;
	if (a) {
		*only = make_kuid(current_user_ns(), nla_get_u32(a));
		if (!uid_valid(*only)) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "uid has no mapping in the caller's user namespace");
			return -EINVAL;
		}
		*filter = true;
		if (!admin && !uid_eq(*only, current_uid())) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "seeing another uid needs CAP_SYS_ADMIN");
			return -EPERM;
		}
	} else if (!admin) {
		*only = current_uid();
		*filter = true;
	}
	return 0;
}

static int ia_put_uid_elem(struct sk_buff *skb, const void *snap, unsigned int i,
			   struct user_namespace *ns)
{
	return ia_put_uid(skb, &((const struct ia_uid_snap *)snap)->rec[i], ns);
}

static int ia_get_uid_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_uid_snap *snap;
	bool filter;
	kuid_t only;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_UID_UID))
		return -EINVAL;
	ret = ia_uid_scope(skb, info->attrs, info->extack, &filter, &only);
	if (ret)
		return ret;
	snap = ia_uid_snapshot(filter, only);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_UID, ia_put_uid_elem, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_UID_UID],
				    "no such user: no process and no pot of that uid is alive");
		ret = -ENOENT;
	}
	kvfree(snap);
	return ret;
}

static int ia_get_uid_start(struct netlink_callback *cb)
{
	struct ia_uid_snap *snap;
	bool filter;
	kuid_t only;
	int ret;

	ret = ia_uid_scope(cb->skb, ia_dump_attrs(cb), cb->extack, &filter, &only);
	if (ret)
		return ret;
	snap = ia_uid_snapshot(filter, only);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ia_snap_dump_init(cb, snap, snap->nr);
	return 0;
}

static int ia_get_uid_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_UID, ia_put_uid_elem);
}

/* Shared pieces of GROUP, CONTAINER and events */

static int ia_put_owner(struct sk_buff *msg, int attr, const struct ia_owner *o,
			struct user_namespace *ns)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_OWNER_PID, o->pid) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_OWNER_UID, from_kuid_munged(ns, o->uid)) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_OWNER_COMM, o->comm)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ia_put_groups(struct sk_buff *msg, int attr, const u32 *groups,
			 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nla_put_u32(msg, attr, groups[i]))
			return -EMSGSIZE;
	return 0;
}

/* GET_CONTAINER */

static int ia_put_failure(struct sk_buff *msg, const struct ia_failure *f,
			  struct user_namespace *ns)
{
	struct nlattr *nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_TIME_NS, f->time_ns,
			      IOMMU_ACCOUNT_A_FAILURE_PAD) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_FAILURE_ERRNO, f->err) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_IOVA, f->iova,
			      IOMMU_ACCOUNT_A_FAILURE_PAD) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_SIZE, f->size,
			      IOMMU_ACCOUNT_A_FAILURE_PAD) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_FAILURE_OWNER, &f->who, ns)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ia_put_container(struct sk_buff *msg, const struct ia_container_info *c,
			    struct user_namespace *ns)
{
	static const int fail_attr[IA_FAIL_COUNT] = {
		[IA_FAIL_ENOSPC] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC,
		[IA_FAIL_ENOMEM] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM,
		[IA_FAIL_EINVAL] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL,
		[IA_FAIL_OTHER] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER,
	};
	const int pad = IOMMU_ACCOUNT_A_CONTAINER_PAD;
	int i;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_ID, c->id) ||
	    ia_put_groups(msg, IOMMU_ACCOUNT_A_CONTAINER_GROUP, c->groups, c->ngroups) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_ENTRIES, c->entries) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_LIMIT, c->limit) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES, c->mapped_bytes, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES, c->pinned_pages, pad) ||
	    (c->has_pinned_uid &&
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID,
			 from_kuid_munged(ns, c->pinned_uid))) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_CONTAINER_OWNER, &c->owner, ns) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS, c->map_ops, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS, c->unmap_ops, pad))
		return -EMSGSIZE;
	for (i = 0; i < IA_FAIL_COUNT; i++)
		if (nla_put_u64_64bit(msg, fail_attr[i], c->fail[i], pad))
			return -EMSGSIZE;
	if (c->has_last && ia_put_failure(msg, &c->last, ns))
		return -EMSGSIZE;
	return 0;
}

/* Containers the caller may see: all for an admin, its own otherwise. */
static struct ia_container_snap *
ia_container_scope(const struct sk_buff *skb, bool filter, u32 id)
{
	return ia_container_snapshot(filter, id, !ia_is_admin(skb), current_uid());
}

static int ia_put_container_elem(struct sk_buff *skb, const void *snap, unsigned int i,
				 struct user_namespace *ns)
{
	return ia_put_container(skb, &((const struct ia_container_snap *)snap)->c[i], ns);
}

static int ia_get_container_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_container_snap *snap;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_CONTAINER_ID))
		return -EINVAL;
	snap = ia_container_scope(skb, true,
				  nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_CONTAINER_ID]));
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_CONTAINER,
				    ia_put_container_elem, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_CONTAINER_ID],
				    "no such container (or not yours)");
		ret = -ENOENT;
	}
	kvfree(snap);
	return ret;
}

static int ia_get_container_start(struct netlink_callback *cb)
{
	struct ia_container_snap *snap;

	snap = ia_container_scope(cb->skb, false, 0);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ia_snap_dump_init(cb, snap, snap->nr);
	return 0;
}

static int ia_get_container_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_CONTAINER, ia_put_container_elem);
}

/* GET_GROUP */

/* The container holding @group in @g, and the group's index in it. */
static const struct ia_container_info *
ia_group_container(const struct ia_group_snap *g, u32 group, unsigned int *idx)
{
	unsigned int i, j;

	for (i = 0; g->containers && i < g->containers->nr; i++) {
		const struct ia_container_info *c = &g->containers->c[i];

		for (j = 0; j < c->ngroups; j++)
			if (c->groups[j] == group) {
				*idx = j;
				return c;
			}
	}
	return NULL;
}

static bool ia_group_visible(const struct ia_group_snap *g, u32 group, bool admin)
{
	const struct ia_container_info *c;
	unsigned int j;

	if (admin)
		return true;
	c = ia_group_container(g, group, &j);
	return c && uid_eq(c->group_owner[j].uid, current_uid());
}

static int ia_put_device(struct sk_buff *msg, const struct ia_group_dev *d)
{
	struct nlattr *nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_GROUP_DEVICE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_DEVICE_ADDRESS, d->address) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_DEVICE_VENDOR, d->vendor) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_DEVICE_DEVICE, d->device) ||
	    (d->driver[0] && nla_put_string(msg, IOMMU_ACCOUNT_A_DEVICE_DRIVER, d->driver))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* One group: the devices g->dev[first..] that share its id. */
static int ia_put_group(struct sk_buff *msg, const struct ia_group_snap *g,
			unsigned int first, struct user_namespace *ns)
{
	u32 id = g->dev[first].group;
	const struct ia_container_info *c;
	unsigned int i, j;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_ID, id))
		return -EMSGSIZE;
	for (i = first; i < g->ndev && g->dev[i].group == id; i++)
		if (ia_put_device(msg, &g->dev[i]))
			return -EMSGSIZE;
	c = ia_group_container(g, id, &j);
	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_BACKEND,
			c ? IOMMU_ACCOUNT_GROUP_BACKEND_VFIO_CONTAINER :
			    IOMMU_ACCOUNT_GROUP_BACKEND_NONE))
		return -EMSGSIZE;
	if (c && (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID, c->id) ||
		  ia_put_owner(msg, IOMMU_ACCOUNT_A_GROUP_OWNER, &c->group_owner[j], ns)))
		return -EMSGSIZE;
	return 0;
}

static unsigned int ia_group_next(const struct ia_group_snap *g, unsigned int i)
{
	u32 id = g->dev[i].group;

	while (i < g->ndev && g->dev[i].group == id)
		i++;
	return i;
}

static int ia_put_group_elem(struct sk_buff *skb, const void *snap, unsigned int i,
			     struct user_namespace *ns)
{
	return ia_put_group(skb, snap, i, ns);
}

static int ia_get_group_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_GROUP_ID];
	struct ia_group_snap *g;
	unsigned int i;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_GROUP_ID))
		return -EINVAL;
	g = ia_group_snapshot();
	if (IS_ERR(g))
		return PTR_ERR(g);
	for (i = 0; i < g->ndev && g->dev[i].group != nla_get_u32(a); i++)
		;
	if (i < g->ndev && ia_group_visible(g, g->dev[i].group, ia_is_admin(skb))) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_GROUP, ia_put_group_elem, g, i);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such IOMMU group (or not yours)");
		ret = -ENOENT;
	}
	ia_group_snap_free(g);
	return ret;
}

struct ia_group_dump {
	struct ia_group_snap *snap;
	struct user_namespace *ns;
	unsigned int next;
	bool admin;
};

static struct ia_group_dump *ia_group_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ia_group_dump) > sizeof(cb->ctx));
	return (struct ia_group_dump *)cb->ctx;
}

static int ia_get_group_start(struct netlink_callback *cb)
{
	struct ia_group_dump *ctx = ia_group_dump_ctx(cb);
	struct ia_group_snap *g = ia_group_snapshot();

	if (IS_ERR(g))
		return PTR_ERR(g);
	ctx->snap = g;
	ctx->ns = get_user_ns(current_user_ns());
	ctx->admin = ia_is_admin(cb->skb);
	return 0;
}

static int ia_get_group_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ia_group_dump *ctx = ia_group_dump_ctx(cb);
	const struct ia_group_snap *g = ctx->snap;
	void *hdr;

	while (ctx->next < g->ndev) {
		if (!ia_group_visible(g, g->dev[ctx->next].group, ctx->admin)) {
			ctx->next = ia_group_next(g, ctx->next);
			continue;
		}
		hdr = ia_put_hdr(skb, NULL, cb, IOMMU_ACCOUNT_CMD_GET_GROUP);
		if (!hdr)
			break;
		if (ia_put_group(skb, g, ctx->next, ctx->ns)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->next = ia_group_next(g, ctx->next);
	}
	return skb->len;
}

static int ia_get_group_done(struct netlink_callback *cb)
{
	struct ia_group_dump *ctx = ia_group_dump_ctx(cb);

	ia_group_snap_free(ctx->snap);
	if (ctx->ns)
		put_user_ns(ctx->ns);
	return 0;
}

/* GET_THRESHOLDS, SET_THRESHOLDS */

static int ia_thresholds_reply(struct genl_info *info, u8 cmd)
{
	struct sk_buff *msg;
	u32 warn, crit;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ia_thresholds_get(&warn, &crit);
	hdr = ia_put_hdr(msg, info, NULL, cmd);
	if (!hdr || nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, warn) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, crit)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int ia_get_thresholds_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ia_thresholds_reply(info, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS);
}

static int ia_set_thresholds_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 warn, crit;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_THRESHOLDS_WARN) ||
	    GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT))
		return -EINVAL;
	warn = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_WARN]);
	crit = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT]);
	/* EINVAL (not the range policy's ERANGE), as documented. */
	if (!warn || crit > 1000) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[warn ? IOMMU_ACCOUNT_A_THRESHOLDS_CRIT :
						       IOMMU_ACCOUNT_A_THRESHOLDS_WARN],
				    "thresholds are per mille of the limit: 0 < warn < crit <= 1000");
		return -EINVAL;
	}
	if (warn >= crit) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_THRESHOLDS_WARN],
				    "warn must be below crit");
		return -EINVAL;
	}
	ia_thresholds_set(warn, crit);
	return ia_thresholds_reply(info, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS);
}

/* Events */

void ia_netlink_event(const struct ia_event *ev)
{
	const int pad = IOMMU_ACCOUNT_A_EVENT_PAD;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &ia_family, 0, IOMMU_ACCOUNT_CMD_EVENT);
	if (!hdr ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SEQ, ev->seq, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_TYPE,
			ev->type == IA_EV_FAILURE ? IOMMU_ACCOUNT_EVENT_TYPE_FAILURE :
						    IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_TIME_NS, ev->time_ns, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID, ev->container) ||
	    ia_put_groups(msg, IOMMU_ACCOUNT_A_EVENT_GROUP, ev->groups, ev->ngroups) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_ENTRIES, ev->entries) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_LIMIT, ev->limit) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_EVENT_OWNER, &ev->who, &init_user_ns))
		goto err;
	if (ev->type == IA_EV_FAILURE &&
	    (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_ERRNO, ev->err) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_IOVA, ev->iova, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SIZE, ev->size, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES, ev->locked_bytes, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT, ev->memlock, pad)))
		goto err;
	if (ev->type == IA_EV_THRESHOLD &&
	    (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_LEVEL, ev->level) ||
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_THRESHOLD, ev->threshold)))
		goto err;
	genlmsg_end(msg, hdr);
	/* -ESRCH: nobody listens, which is fine. */
	genlmsg_multicast(&ia_family, msg, 0, IA_MCGRP_EVENTS, GFP_KERNEL);
	return;
err:
	nlmsg_free(msg);
}

static const struct genl_ops ia_ops[] = {
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_STATUS,
		.doit = ia_get_status_doit,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_UID,
		.doit = ia_get_uid_doit,
		.start = ia_get_uid_start,
		.dumpit = ia_get_uid_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_uid_policy,
		.maxattr = IOMMU_ACCOUNT_A_UID_MAX,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_GROUP,
		.doit = ia_get_group_doit,
		.start = ia_get_group_start,
		.dumpit = ia_get_group_dumpit,
		.done = ia_get_group_done,
		.policy = ia_group_policy,
		.maxattr = IOMMU_ACCOUNT_A_GROUP_MAX,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_CONTAINER,
		.doit = ia_get_container_doit,
		.start = ia_get_container_start,
		.dumpit = ia_get_container_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_container_policy,
		.maxattr = IOMMU_ACCOUNT_A_CONTAINER_MAX,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_THRESHOLDS,
		.doit = ia_get_thresholds_doit,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_SET_THRESHOLDS,
		.doit = ia_set_thresholds_doit,
		.policy = ia_thresholds_policy,
		.maxattr = IOMMU_ACCOUNT_A_THRESHOLDS_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family ia_family __ro_after_init = {
	.name = IOMMU_ACCOUNT_FAMILY_NAME,
	.version = IOMMU_ACCOUNT_FAMILY_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = ia_ops,
	.n_ops = ARRAY_SIZE(ia_ops),
	.mcgrps = ia_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ia_mcgrps),
	.resv_start_op = IOMMU_ACCOUNT_CMD_GET_STATUS,
};

int __init ia_netlink_init(void)
{
	return genl_register_family(&ia_family);
}

void ia_netlink_exit(void)
{
	genl_unregister_family(&ia_family);
}
