// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and what they hold: a walk of every process the caller's pid
 * namespace holds (pid as it numbers them, uid, comm,
 * cgroup, RLIMIT_MEMLOCK, mm->locked_vm and pinned_vm, io_uring fds), each
 * looked up in memlock.c's ledger for what it still holds of its uid's pot
 * (a lookup: the ledger keeps each process's figures). The source of
 * GET_PROC (nl_proc.c puts it into messages).
 */
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

#include "compat.h"
#include "ia.h"
#include "wrapper/kallsyms.h"

static u64 ia_rlim(unsigned long v)
{
	return v == RLIM_INFINITY ? U64_MAX : (u64)v;
}

/* @p is in the scope; @m: what it holds (looked up only when the scope needs it). */
static bool ia_proc_wanted(const struct ia_proc_scope *sc, struct task_struct *p, kuid_t uid,
			   struct ia_memlock_proc *m)
{
	if (sc->by_pid)
		return task_tgid_nr_ns(p, sc->pidns) == sc->pid;
	if (sc->by_uid && !uid_eq(uid, sc->uid))
		return false;
	if (sc->all_of_uid)
		return true;
	return ia_memlock_proc_of(task_tgid(p), m);
}

/*
 * The cgroup paths, outside RCU (cgroup_path_ns takes cgroup_mutex), in the
 * caller's cgroup namespace, when the collection is kept (@keep); the
 * references taken while collecting go either way. A path that cannot be
 * had (no memory for it or the scratch buffer) is absent, as for a cgroup
 * being removed.
 */
static void ia_proc_cgroup_paths(struct ia_proc_snap *s, bool keep)
{
	char *scratch = keep ? kmalloc(IA_CGPATH_BUF, GFP_KERNEL) : NULL;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct ia_proc_info *o = &s->p[i];

		o->cgpath = NULL;
		if (!o->cgrp)
			continue;
#ifdef CONFIG_CGROUPS
		if (scratch)
			o->cgpath = ia_cgroup_cgpath_ns(o->cgrp, current->nsproxy->cgroup_ns,
							scratch);
		cgroup_put(o->cgrp);
#endif
		o->cgrp = NULL;
	}
	kfree(scratch);
}

/* io_uring's file_operations (static in io_uring/io_uring.c), or NULL. */
static const struct file_operations *ia_uring_fops;
static bool ia_uring_fops_looked;

static int ia_count_uring_fd(const void *arg, struct file *file, unsigned int fd)
{
	if (file->f_op == ia_uring_fops)
		(*(u32 *)arg)++;
	return 0;
}

static int ia_proc_collect(struct ia_proc_snap *s, unsigned int cap,
			   const struct ia_proc_scope *sc)
{
	struct task_struct *p;
	unsigned int n = 0;
	int ret = 0;

	rcu_read_lock();
	for_each_process(p) {
		struct ia_memlock_proc m = { .holds = false };
		struct ia_proc_info *o;
		pid_t nr;
		kuid_t uid;

		if ((p->flags & PF_KTHREAD) || READ_ONCE(p->exit_state))
			continue;
		/* Outside the caller's pid namespace: not there for it. */
		nr = task_tgid_nr_ns(p, sc->pidns);
		if (!nr)
			continue;
		uid = __task_cred(p)->uid;
		if (!ia_proc_wanted(sc, p, uid, &m))
			continue;
		if (n == cap) {
			ret = -ENOSPC;
			break;
		}
		o = &s->p[n++];
		memset(o, 0, sizeof(*o));
		o->pid = nr;
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
		if (m.holds || ia_memlock_proc_of(task_tgid(p), &m)) {
			memcpy(o->pages, m.pages, sizeof(o->pages));
			o->rings = m.rings;
		}
	}
	rcu_read_unlock();
	s->nr = n;
	/* A collection that ran out of room is taken again, larger. */
	ia_proc_cgroup_paths(s, !ret);
	return ret;
}

static int ia_proc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ia_proc_info *)a)->pid;
	pid_t y = ((const struct ia_proc_info *)b)->pid;

	return x < y ? -1 : x > y;
}

static unsigned int ia_proc_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_proc_snap *s = buf;

	if (ia_proc_collect(s, cap, arg))
		return cap + 1;
	return s->nr;
}

struct ia_proc_snap *ia_proc_snapshot(const struct ia_proc_scope *sc)
{
	struct ia_proc_snap *s;
	unsigned int cap, nr;

	/*
	 * Looked up once (built in where io_uring is): absent stays absent. The
	 * release orders the pointer before the flag for a parallel request.
	 */
	if (!smp_load_acquire(&ia_uring_fops_looked)) {
		WRITE_ONCE(ia_uring_fops, (const struct file_operations *)
			   ia_kallsyms_lookup_name("io_uring_fops"));
		/* Pairs with the acquire above: the pointer is there first. */
		smp_store_release(&ia_uring_fops_looked, true);
	}
	cap = ia_count_processes();
	cap += cap / 4 + 64;
	s = ia_snapshot_take(offsetof(struct ia_proc_snap, p), sizeof(s->p[0]), cap,
			     ia_proc_fill, (void *)sc, &nr);
	if (IS_ERR(s))
		return s;
	sort(s->p, s->nr, sizeof(s->p[0]), ia_proc_cmp, NULL);
	return s;
}

void ia_proc_snap_free(void *snap)
{
	struct ia_proc_snap *s = snap;
	unsigned int i;

	if (IS_ERR_OR_NULL(s))
		return;
	for (i = 0; i < s->nr; i++)
		ia_cgpath_put(s->p[i].cgpath);
	kvfree(s);
}
