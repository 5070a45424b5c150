// SPDX-License-Identifier: GPL-2.0
/* GET_PROC: processes and what they hold of their uid's pot (source: memlock.c). */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/nsproxy.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/user_namespace.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"
#include "wrapper/kallsyms.h"

struct ia_proc_info {
	pid_t pid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
	u64 cgid;
	struct cgroup *cgrp;		/* a reference while collecting, then NULL */
	char cgpath[IA_CGPATH_LEN];	/* "" when unknown */
	u64 soft, hard;			/* bytes, U64_MAX: unlimited */
	u64 locked_vm, pinned_vm;	/* pages */
	u64 pages[IA_CONS_COUNT];
	u32 rings;
	u32 uring_fds;			/* U32_MAX: unknown */
};

struct ia_proc_snap {
	unsigned int nr;
	struct ia_proc_info p[];	/* sorted by pid */
};

/* Who the request is about: a pid, a uid, or (nothing) the charging ones. */
struct ia_proc_scope {
	bool by_pid, by_uid;
	bool all_of_uid;	/* every process of uid, not only charging ones */
	pid_t pid;
	kuid_t uid;
};

static u64 ia_rlim(unsigned long v)
{
	return v == RLIM_INFINITY ? U64_MAX : (u64)v;
}

static bool ia_proc_wanted(const struct ia_proc_scope *sc, struct task_struct *p, kuid_t uid,
			   const struct ia_memlock_procs *ml)
{
	if (sc->by_pid)
		return task_tgid_nr(p) == sc->pid;
	if (sc->by_uid && !uid_eq(uid, sc->uid))
		return false;
	if (sc->all_of_uid)
		return true;
	return ia_memlock_proc_find(ml, task_tgid_nr(p));
}

/*
 * The cgroup paths, outside RCU (cgroup_path_ns takes cgroup_mutex), in the
 * caller's cgroup namespace; the references taken while collecting go.
 */
static void ia_proc_cgroup_paths(struct ia_proc_snap *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct ia_proc_info *o = &s->p[i];

		o->cgpath[0] = 0;
		if (!o->cgrp)
			continue;
#ifdef CONFIG_CGROUPS
		if (cgroup_path_ns(o->cgrp, o->cgpath, sizeof(o->cgpath),
				   current->nsproxy->cgroup_ns) < 0)
			o->cgpath[0] = 0;
		cgroup_put(o->cgrp);
#endif
		o->cgrp = NULL;
	}
}

/* io_uring's file_operations (static in io_uring/io_uring.c), or NULL. */
static const struct file_operations *ia_uring_fops;

static int ia_count_uring_fd(const void *arg, struct file *file, unsigned int fd)
{
	if (file->f_op == ia_uring_fops)
		(*(u32 *)arg)++;
	return 0;
}

static int ia_proc_collect(struct ia_proc_snap *s, unsigned int cap,
			   const struct ia_proc_scope *sc, const struct ia_memlock_procs *ml)
{
	struct task_struct *p;
	unsigned int n = 0;
	int ret = 0;

	rcu_read_lock();
	for_each_process(p) {
		const struct ia_memlock_proc *m;
		struct ia_proc_info *o;
		kuid_t uid;

		if ((p->flags & PF_KTHREAD) || READ_ONCE(p->exit_state))
			continue;
		uid = __task_cred(p)->uid;
		if (!ia_proc_wanted(sc, p, uid, ml))
			continue;
		if (n == cap) {
			ret = -ENOSPC;
			break;
		}
		o = &s->p[n++];
		memset(o, 0, sizeof(*o));
		o->pid = task_tgid_nr(p);
		o->uid = uid;
		o->cgid = ia_task_cgroup_id(p);
#ifdef CONFIG_CGROUPS
		o->cgrp = task_dfl_cgroup(p);
		if (!css_tryget(&o->cgrp->self))
			o->cgrp = NULL;
#endif
		o->soft = ia_rlim(task_rlimit(p, RLIMIT_MEMLOCK));
		o->hard = ia_rlim(task_rlimit_max(p, RLIMIT_MEMLOCK));
		o->uring_fds = ia_uring_fops ? 0 : U32_MAX;
		task_lock(p);
		strscpy(o->comm, p->comm, sizeof(o->comm));
		if (p->mm) {
			o->locked_vm = READ_ONCE(p->mm->locked_vm);
			o->pinned_vm = atomic64_read(&p->mm->pinned_vm);
		}
		/* task_lock, then the table's lock: the order /proc/PID/fdinfo uses. */
		if (ia_uring_fops && p->files)
			iterate_fd(p->files, 0, ia_count_uring_fd, &o->uring_fds);
		task_unlock(p);
		m = ia_memlock_proc_find(ml, o->pid);
		if (m) {
			memcpy(o->pages, m->pages, sizeof(o->pages));
			o->rings = m->rings;
		}
	}
	rcu_read_unlock();
	s->nr = n;
	ia_proc_cgroup_paths(s);
	return ret;
}

static int ia_proc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ia_proc_info *)a)->pid;
	pid_t y = ((const struct ia_proc_info *)b)->pid;

	return x < y ? -1 : x > y;
}

static struct ia_proc_snap *ia_proc_snapshot(const struct ia_proc_scope *sc)
{
	struct ia_memlock_procs *ml = ia_memlock_procs();
	struct ia_proc_snap *s = NULL;
	unsigned int cap, tries;
	int ret = -ENOSPC;

	if (IS_ERR(ml))
		return ERR_CAST(ml);
	if (!READ_ONCE(ia_uring_fops))
		WRITE_ONCE(ia_uring_fops, (const struct file_operations *)
			   ia_kallsyms_lookup_name("io_uring_fops"));
	cap = ia_count_processes();
	for (tries = 0; tries < 4 && ret == -ENOSPC; tries++) {
		cap += cap / 4 + 64;
		s = kvmalloc(struct_size(s, p, cap), GFP_KERNEL);
		if (!s) {
			ret = -ENOMEM;
			break;
		}
		ret = ia_proc_collect(s, cap, sc, ml);
		if (ret) {
			kvfree(s);
			s = NULL;
		}
	}
	kvfree(ml);
	if (ret)
		return ERR_PTR(ret == -ENOSPC ? -EAGAIN : ret);
	sort(s->p, s->nr, sizeof(s->p[0]), ia_proc_cmp, NULL);
	return s;
}

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
	    (o->cgpath[0] && nla_put_string(msg, IOMMU_ACCOUNT_A_PROC_CGROUP, o->cgpath)) ||
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
	bool admin = ia_nl_admin(skb);

	memset(sc, 0, sizeof(*sc));
	if (pid) {
		sc->by_pid = true;
		sc->pid = nla_get_u32(pid);
	}
	if (uid) {
		sc->by_uid = true;
		sc->all_of_uid = true;
		sc->uid = make_kuid(current_user_ns(), nla_get_u32(uid));
		if (!uid_valid(sc->uid)) {
			NL_SET_ERR_MSG_ATTR(extack, uid,
					    "uid has no mapping in the caller's user namespace");
			return -EINVAL;
		}
		if (!admin && !uid_eq(sc->uid, current_uid())) {
			NL_SET_ERR_MSG_ATTR(extack, uid, "seeing another uid needs CAP_SYS_ADMIN");
			return -EPERM;
		}
	} else if (!admin) {
		/* Charging processes of the caller's uid only. */
		sc->by_uid = true;
		sc->uid = current_uid();
	}
	return 0;
}

static void ia_proc_snap_free(void *snap)
{
	kvfree(snap);
}

int ia_nl_get_proc_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_PROC_PID];
	struct ia_proc_scope sc;
	struct ia_proc_snap *s;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_PROC_PID))
		return -EINVAL;
	ret = ia_proc_scope(skb, NULL, info->extack, &sc);
	if (ret)
		return ret;
	sc.by_pid = true;
	sc.pid = nla_get_u32(a);
	s = ia_proc_snapshot(&sc);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (s->nr && !ia_nl_admin(skb) && !uid_eq(s->p[0].uid, current_uid())) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "seeing another uid's process needs CAP_SYS_ADMIN");
		ret = -EPERM;
	} else if (s->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_PROC, ia_put_proc, s, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such process");
		ret = -ENOENT;
	}
	kvfree(s);
	return ret;
}

int ia_nl_get_proc_start(struct netlink_callback *cb)
{
	struct ia_proc_scope sc;
	struct ia_proc_snap *s;
	int ret;

	ret = ia_proc_scope(cb->skb, ia_dump_attrs(cb), cb->extack, &sc);
	if (ret)
		return ret;
	sc.by_pid = false;
	s = ia_proc_snapshot(&sc);
	if (IS_ERR(s))
		return PTR_ERR(s);
	ia_snap_dump_init(cb, s, s->nr, ia_proc_snap_free);
	return 0;
}

int ia_nl_get_proc_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_PROC, ia_put_proc);
}
