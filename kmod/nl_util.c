// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink layer's helpers, below every handler: the permission test,
 * snapshot dumps (.start takes the snapshot, .dumpit walks it with an index
 * cursor, .done frees it), replies that grow until the element fits, and the
 * owner and failure nests every source sends. A leaf: it calls nothing of
 * the handlers (nl.c hands it the family before registering it).
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/nsproxy.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"

static const struct genl_family *ia_nl_family;

void ia_nl_util_init(const struct genl_family *family)
{
	ia_nl_family = family;
}

bool ia_nl_admin(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

int ia_nl_uid_scope(const struct sk_buff *skb, const struct nlattr *a,
		    struct netlink_ext_ack *extack, bool *by_uid, kuid_t *uid)
{
	bool admin = ia_nl_admin(skb);

	*by_uid = a || !admin;
	if (!a) {
		*uid = current_uid();
		return 0;
	}
	*uid = make_kuid(current_user_ns(), nla_get_u32(a));
	if (!uid_valid(*uid)) {
		NL_SET_ERR_MSG_ATTR(extack, a, "uid has no mapping in the caller's user namespace");
		return -EINVAL;
	}
	if (!admin && !uid_eq(*uid, current_uid())) {
		NL_SET_ERR_MSG_ATTR(extack, a, "seeing another uid needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	return 0;
}

/*
 * The reader's cgroup namespace is rooted at the hierarchy's root: paths
 * taken from the root mean to it what they say (init_cgroup_ns is not
 * exported; its root css_set's cgroup has no parent).
 */
bool ia_nl_init_cgroup_ns(void)
{
#ifdef CONFIG_CGROUPS
	return !cgroup_parent(current->nsproxy->cgroup_ns->root_cset->dfl_cgrp);
#else
	return true;
#endif
}

/* --- dump and reply machinery ------------------------------------------------ */

void *ia_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   ia_nl_family, NLM_F_MULTI, cmd);
}

int ia_dump_too_big(struct sk_buff *skb, struct netlink_callback *cb)
{
	/* Something already in this message: the element goes in the next one. */
	if (skb->len)
		return skb->len;
	NL_SET_ERR_MSG(cb->extack, "an element does not fit in one dump message");
	return -EMSGSIZE;
}

/* The rest of one element beside its one long string (a path): ample. */
#define IA_DUMP_ELEM_ROOM 2048

void ia_dump_room_for(struct netlink_callback *cb, const struct ia_cgpath *p)
{
	size_t want;

	if (!p)
		return;
	want = strlen(p->path) + 1 + IA_DUMP_ELEM_ROOM;
	if (want > NLMSG_GOODSIZE && want > cb->min_dump_alloc)
		cb->min_dump_alloc = want;
}

struct ia_snap_dump *ia_snap_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ia_snap_dump) > sizeof(cb->ctx));
	return (struct ia_snap_dump *)cb->ctx;
}

void ia_snap_dump_init(struct netlink_callback *cb, void *snap, unsigned int nr,
		       void (*free)(void *snap))
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);

	ctx->snap = snap;
	ctx->free = free;
	ctx->nr = nr;
	ctx->next = 0;
	ctx->ns = get_user_ns(current_user_ns());
}

int ia_snap_dumpit(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		   ia_put_elem_t put)
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);
	void *hdr;

	while (ctx->next < ctx->nr) {
		hdr = ia_dump_hdr(skb, cb, cmd);
		if (!hdr)
			return ia_dump_too_big(skb, cb);
		if (put(skb, ctx->snap, ctx->next, ctx->ns)) {
			genlmsg_cancel(skb, hdr);
			return ia_dump_too_big(skb, cb);
		}
		genlmsg_end(skb, hdr);
		ctx->next++;
	}
	return skb->len;
}

int ia_snap_dump_done(struct netlink_callback *cb)
{
	struct ia_snap_dump *ctx = ia_snap_dump_ctx(cb);

	if (ctx->snap)
		ctx->free(ctx->snap);
	if (ctx->ns)
		put_user_ns(ctx->ns);
	return 0;
}

/* Largest do reply: a container with thousands of groups still fits. */
#define IA_REPLY_MAX (1024 * 1024)

int ia_reply_elem(struct genl_info *info, u8 cmd, ia_put_elem_t put,
		  const void *snap, unsigned int i)
{
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *msg;
	void *hdr;

	for (;;) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		hdr = genlmsg_put_reply(msg, info, ia_nl_family, 0, cmd);
		if (hdr && !put(msg, snap, i, current_user_ns()))
			break;
		nlmsg_free(msg);
		if (size >= IA_REPLY_MAX) {
			NL_SET_ERR_MSG(info->extack, "reply larger than 1 MiB");
			return -EMSGSIZE;
		}
		size *= 4;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

int ia_put_failure(struct sk_buff *msg, int attr, const struct ia_failure *f,
		   const struct ia_cgpath *cgpath, struct user_namespace *ns)
{
	struct nlattr *nest = nla_nest_start(msg, attr);
	const int pad = IOMMU_ACCOUNT_A_FAILURE_PAD;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_TIME_NS, f->time_ns, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_FAILURE_ERRNO, f->err) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_IOVA, f->iova, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_SIZE, f->size, pad) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_FAILURE_OWNER, &f->who, ns) ||
	    (f->cgroup_id &&
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_FAILURE_CGROUP_ID, f->cgroup_id, pad)) ||
	    (f->ioas && nla_put_u32(msg, IOMMU_ACCOUNT_A_FAILURE_IOAS, f->ioas)) ||
	    (cgpath && ia_nl_init_cgroup_ns() &&
	     (nla_put_string(msg, IOMMU_ACCOUNT_A_FAILURE_CGROUP, cgpath->path) ||
	      (cgpath->truncated &&
	       nla_put_flag(msg, IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED))))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

int ia_put_owner(struct sk_buff *msg, int attr, const struct ia_owner *o,
		 struct user_namespace *ns)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_OWNER_PID, o->pid) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_OWNER_UID, from_kuid_munged(ns, o->uid)) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_OWNER_COMM, o->comm) ||
	    (o->cgroup_id && nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_OWNER_CGROUP_ID, o->cgroup_id,
					       IOMMU_ACCOUNT_A_OWNER_PAD))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}
