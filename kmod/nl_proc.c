// SPDX-License-Identifier: GPL-2.0
/* GET_PROC: processes and what they hold of their uid's pot (source: proc.c). */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"

static int ia_put_proc(struct sk_buff *msg, const void *snap, unsigned int i,
		       struct user_namespace *ns)
{
	const struct ia_proc_info *o = &((const struct ia_proc_snap *)snap)->p[i];
	const int pad = IOMMU_ACCOUNT_A_PROC_PAD;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_PID, o->pid) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_UID, from_kuid_munged(ns, o->uid)) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_PROC_COMM, o->comm) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_PROC_CGROUP_ID, o->cgid, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT, o->soft, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD, o->hard, pad) ||
	    ia_put_consumers(msg, IOMMU_ACCOUNT_A_PROC_CONSUMER, o->pages) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES,
			      o->locked_vm << PAGE_SHIFT, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES,
			      o->pinned_vm << PAGE_SHIFT, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_RINGS, o->rings) ||
	    (o->cgpath && nla_put_string(msg, IOMMU_ACCOUNT_A_PROC_CGROUP, o->cgpath->path)) ||
	    (o->cgpath && o->cgpath->truncated &&
	     nla_put_flag(msg, IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED)) ||
	    (o->uring_fds != U32_MAX &&
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_URING_FDS, o->uring_fds)))
		return -EMSGSIZE;
	return 0;
}

/* The scope of a request; an unprivileged caller is confined to its own uid. */
static int ia_proc_scope(const struct sk_buff *skb, struct nlattr **attrs,
			 struct netlink_ext_ack *extack, struct ia_proc_scope *sc)
{
	struct nlattr *pid = attrs ? attrs[IOMMU_ACCOUNT_A_PROC_PID] : NULL;
	struct nlattr *uid = attrs ? attrs[IOMMU_ACCOUNT_A_PROC_UID] : NULL;

	memset(sc, 0, sizeof(*sc));
	sc->pidns = task_active_pid_ns(current);
	if (pid) {
		sc->by_pid = true;
		sc->pid = nla_get_u32(pid);
	}
	/* With no uid: the charging processes of the caller's uid only. */
	sc->all_of_uid = !!uid;
	return ia_nl_uid_scope(skb, uid, extack, &sc->by_uid, &sc->uid);
}

int ia_nl_get_proc_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_PROC_PID];
	struct ia_proc_scope sc;
	struct ia_proc_snap *s;
	int ret;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_PROC_PID))
		return -EINVAL;
	ret = ia_proc_scope(skb, NULL, info->extack, &sc);
	if (ret)
		return ret;
	sc.by_pid = true;
	sc.pid = nla_get_u32(a);
	s = ia_proc_snapshot(&sc);
	if (IS_ERR(s))
		return PTR_ERR(s);
	/*
	 * Another uid's process is, to a caller who may not see it, what no
	 * process is: the same answer, or the error would say it is there.
	 */
	if (s->nr && (ia_nl_admin(skb) || uid_eq(s->p[0].uid, current_uid()))) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_PROC, ia_put_proc, s, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such process");
		ret = -ENOENT;
	}
	ia_proc_snap_free(s);
	return ret;
}

int ia_nl_get_proc_start(struct netlink_callback *cb)
{
	struct ia_proc_scope sc;
	struct ia_proc_snap *s;
	unsigned int i;
	int ret;

	ret = ia_proc_scope(cb->skb, ia_dump_attrs(cb), cb->extack, &sc);
	if (ret)
		return ret;
	sc.by_pid = false;
	s = ia_proc_snapshot(&sc);
	if (IS_ERR(s))
		return PTR_ERR(s);
	for (i = 0; i < s->nr; i++)
		ia_dump_room_for(cb, s->p[i].cgpath);
	ia_snap_dump_init(cb, s, s->nr, ia_proc_snap_free);
	return 0;
}

int ia_nl_get_proc_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_PROC, ia_put_proc);
}
