// SPDX-License-Identifier: GPL-2.0
/*
 * Source: VFIO type1 containers and the IOMMU groups attached to them
 * (groups.c lists the groups themselves).
 *
 * struct vfio_iommu and struct vfio_dma are private to vfio_iommu_type1.c:
 * nothing here dereferences them. Their addresses identify containers and
 * mappings, and every figure is decided from the kernel's own arguments and
 * return values, never from user memory. The hooks (symbols present on every
 * kernel of the matrix, Debian 6.1, 6.12 and 7.3, where vfio_dma_do_map and
 * vfio_pin_map_dma are inlined into the ioctl):
 *
 *   vfio_iommu_type1_open      return: a new container (struct vfio_iommu *)
 *   vfio_iommu_type1_release   entry: the container goes (removed before the
 *                              kernel frees it, so a new container at the same
 *                              address can never meet the old record)
 *   vfio_pin_pages_remote      entry (dma, vaddr, npage): the first call for a
 *                              mapping pins it whole, npage = its size, from
 *                              the kernel's validated copy of the request; the
 *                              mapping was just linked (dma_avail--)
 *   vfio_remove_dma            entry (iommu, dma): the one place a mapping
 *                              leaves (unmap, refused map, last detach, close)
 *   mm_lock_acct               entry (task, mm, lock_cap, npage): pages charged
 *                              to the mapper's mm->locked_vm for the mapping
 *                              being pinned
 *   __account_locked_vm        the same, where type1 has no mm_lock_acct
 *                              (5.10: vfio_lock_acct() charges through it)
 *   vfio_iommu_type1_ioctl     MAP_DMA only: return value (refusals, events)
 *   vfio_iommu_type1_attach_group / _detach_group   group membership
 *
 * So entries == limit - DMA_AVAIL holds whatever fails: a refused map that
 * was linked and removed again (EFAULT, ENOMEM from RLIMIT_MEMLOCK) adds and
 * removes the same record; a vaddr update (VFIO_DMA_*_FLAG_VADDR) pins and
 * removes nothing. Pinned pages of a mapping are dropped with its record.
 *
 * The hooks are declared here and placed by wrapper/hook.c: entry hooks on
 * ftrace, and open, attach and the MAP_DMA calls of the ioctl wrapped (no
 * return trampoline, no bound on concurrent calls); else kprobes and
 * kretprobes. With the ioctl's kretprobe, if its 4096 instances ever run
 * out, the refusals of that moment are not counted, and every container live
 * then is flagged inexact (never silently wrong). vfio_attach.c registers
 * them when vfio_iommu_type1 is there; this file is what they mean.
 *
 * Handlers run in atomic context under kprobes and may be preempted under
 * ftrace: either way state is under one irq-safe spinlock, allocations are
 * GFP_ATOMIC, events go through the core's queue.
 *
 * Locking, in the order taken: ia_vfio_attach_mutex (vfio_attach.c:
 * registering and removing the hooks, type1's module reference), then
 * ia_vfio_lock (an irq-safe spinlock: containers, mappings, groups,
 * MAP_DMAs in flight), then ia_evq_lock: every event is queued under
 * ia_vfio_lock (one at a time, from one struct on the stack), which only a threshold crossed
 * or a refusal does. ia_feature_set() (ia_feat_lock, a leaf) may be called
 * under ia_vfio_attach_mutex, never under ia_vfio_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <uapi/linux/vfio.h>

#include "ia-conftest.h"
#include "htab.h"
#include "vfio.h"
#include "wrapper/kallsyms.h"

/* One live mapping (struct vfio_dma). */
struct ia_vfio_dma {
	struct hlist_node hnode;	/* ia_vfio_dmas, by dma */
	struct list_head cnode;		/* its container's mappings */
	void *dma;			/* struct vfio_dma *, never dereferenced */
	struct ia_vfio_container *c;
	u64 size;
	u64 pinned;			/* pages charged while it was pinned */
};

struct ia_vfio_container {
	struct hlist_node hnode;	/* ia_vfio_containers, by iommu */
	void *iommu;			/* struct vfio_iommu *, never dereferenced */
	struct list_head dmas;
	struct ia_container_info info;	/* groups/group_owner unused here */
	u32 *groups;
	struct ia_owner *group_owner;
	bool *group_backed;		/* an IOMMU-backed group (not emulated) */
	unsigned int ngroups, gcap;
	unsigned int nbacked;		/* of those, IOMMU-backed */
	struct ia_levels levels;
	struct ia_level_bounds bnd;	/* of entries (ia_vfio_levels_bounds()) */
	u64 missed_base;		/* ioctl probe misses when it was created */
	struct ia_coalesce co;
};

/* A MAP_DMA in flight, so the hooks inside it know their container. */
struct ia_vfio_active {
	struct ia_call call;		/* in ia_vfio_calls */
	void *iommu;
	unsigned long arg;		/* the caller's request (user address) */
	struct ia_vfio_container *c;		/* its record, NULL if untracked */
	void *dma;			/* the mapping being pinned */
	struct ia_vfio_dma *d;		/* its record, NULL if none */
	bool created;			/* a mapping record was made by this call */
};

/* MAP_DMAs in flight: hooks outside any skip the lookup and the lock. */
static struct ia_calls ia_vfio_calls;

DEFINE_SPINLOCK(ia_vfio_lock);
static DEFINE_HASHTABLE(ia_vfio_containers, 6);
/* Mappings by dma: 65,535 a container by default, more where raised (htab.h). */
static struct ia_htab ia_vfio_dmas;
static struct kmem_cache *ia_vfio_dma_cache;
/* Mapping records given back (ia.h: struct ia_spare), under ia_vfio_lock. */
static struct ia_spare ia_vfio_spare = IA_SPARE_INIT(64);
static u32 ia_vfio_next_id = 1;
static u32 ia_vfio_ntracked;
static struct ia_thresholds ia_vfio_th = { .warn = 800, .crit = 950 };
unsigned int *ia_vfio_dma_entry_limit;

static void ia_vfio_flush_workfn(struct work_struct *w);
static DECLARE_DELAYED_WORK(ia_vfio_flush_work, ia_vfio_flush_workfn);

/* --- lookups (ia_vfio_lock held) -------------------------------------------------- */

static struct ia_vfio_container *ia_vfio_find(void *iommu)
{
	struct ia_vfio_container *c;

	hash_for_each_possible(ia_vfio_containers, c, hnode, (unsigned long)iommu)
		if (c->iommu == iommu)
			return c;
	return NULL;
}

static struct ia_vfio_dma *ia_vfio_find_dma(void *dma)
{
	struct hlist_head *head;
	struct ia_vfio_dma *d;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_vfio_dmas, (unsigned long)dma, t)); t++)
		hlist_for_each_entry(d, head, hnode)
			if (d->dma == dma)
				return d;
	return NULL;
}

static unsigned long ia_vfio_dma_hash(const struct hlist_node *n)
{
	return (unsigned long)hlist_entry(n, struct ia_vfio_dma, hnode)->dma;
}

/* The current task's MAP_DMA in flight, or NULL. */
static struct ia_vfio_active *ia_vfio_find_active(void)
{
	struct ia_call *c = ia_call_find(&ia_vfio_calls, 0);

	return c ? container_of(c, struct ia_vfio_active, call) : NULL;
}

/* --- events ------------------------------------------------------------------ */

static void ia_vfio_event_fill(struct ia_event *ev, const struct ia_vfio_container *c,
			       enum ia_event_type type, const struct ia_owner *who)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->time_ns = ktime_get_real_ns();
	ev->vfio.id = c->info.id;
	ev->vfio.group_count = c->ngroups;
	ev->vfio.ngroups = min_t(unsigned int, c->ngroups, IA_EV_MAX_GROUPS);
	memcpy(ev->vfio.groups, c->groups, ev->vfio.ngroups * sizeof(u32));
	ev->vfio.entries = c->info.entries;
	ev->vfio.limit = c->info.limit;
	if (who)
		ev->who = *who;
	else
		ia_owner_current(&ev->who);
}

/* The container's count, per mille of its limit (0: no limit read). */
static u64 ia_vfio_pm(const struct ia_vfio_container *c)
{
	return ia_per_mille(c->info.entries, c->info.limit);
}

/*
 * The entry counts at which the levels change, from the levels raised, the
 * thresholds and the limit: a level of line L is reached when
 * floor(entries * 1000 / limit) >= L, that is when entries >= ceil(L * limit
 * / 1000), and re-armed below that. The paths that count entries compare
 * with these two figures and call the level code only when one is crossed
 * (a map and an unmap of 4 KiB otherwise paid two calls and a division).
 */
static void ia_vfio_levels_bounds(struct ia_vfio_container *c)
{
	ia_levels_bounds(&c->bnd, &c->levels, &ia_vfio_th, 0, c->info.limit, 0);
}

/*
 * Raise an event for each level the count has reached that is not raised
 * yet (every level, not the highest only: a jump past both says both).
 * @who: the owner to name, or NULL for the current task.
 */
static void ia_vfio_levels_raise(struct ia_vfio_container *c, const struct ia_owner *who)
{
	unsigned int raised, l;
	struct ia_event ev;

	lockdep_assert_held(&ia_vfio_lock);
	if (c->info.entries < c->bnd.raise_at)
		return;
	raised = ia_levels_raise(&c->levels, &ia_vfio_th, ia_vfio_pm(c), false);
	ia_vfio_levels_bounds(c);
	for (l = 0; l < IA_LEVEL_COUNT && ia_events_wanted(); l++) {
		if (!(raised & BIT(l)))
			continue;
		ia_vfio_event_fill(&ev, c, IA_EV_THRESHOLD, who);
		ev.level = l;
		ev.threshold = ia_level_line(&ia_vfio_th, l);
		ia_event_queue(&ev);
	}
}

/*
 * After an entry left, or thresholds moved: re-arm the levels now above the
 * count (no margin: the count is exact, and the spec refuses one here).
 */
static void ia_vfio_levels_rearm(struct ia_vfio_container *c)
{
	if (c->info.entries >= c->bnd.rearm_below)
		return;
	ia_levels_rearm(&c->levels, &ia_vfio_th, 0, ia_vfio_pm(c));
	ia_vfio_levels_bounds(c);
}

/* --- mapping records (ia_vfio_lock held) ---------------------------------------------- */

static struct ia_vfio_dma *ia_vfio_dma_alloc(void)
{
	struct hlist_node *n = ia_spare_get(&ia_vfio_spare);

	if (!n)
		return kmem_cache_alloc(ia_vfio_dma_cache, GFP_ATOMIC);
	return hlist_entry(n, struct ia_vfio_dma, hnode);
}

static void ia_vfio_dma_free(struct ia_vfio_dma *d)
{
	if (!ia_spare_put(&ia_vfio_spare, &d->hnode))
		kmem_cache_free(ia_vfio_dma_cache, d);
}

static void ia_vfio_dma_del(struct ia_vfio_dma *d)
{
	struct ia_vfio_container *c = d->c;

	lockdep_assert_held(&ia_vfio_lock);
	ia_htab_del(&ia_vfio_dmas, &d->hnode);
	list_del(&d->cnode);
	if (c->info.entries)
		c->info.entries--;
	c->info.mapped_bytes -= d->size;
	c->info.pinned_pages -= d->pinned;
	ia_vfio_dma_free(d);
}

static void ia_vfio_container_del(struct ia_vfio_container *c)
{
	struct ia_vfio_dma *d, *tmp;

	/*
	 * Empty but for removals not seen: the kernel removes a container's
	 * mappings at its last group's detach, each through vfio_remove_dma.
	 */
	list_for_each_entry_safe(d, tmp, &c->dmas, cnode) {
		ia_htab_del(&ia_vfio_dmas, &d->hnode);
		ia_vfio_dma_free(d);
	}
	hash_del(&c->hnode);
	ia_vfio_ntracked--;
	kfree(c->groups);
	kfree(c->group_owner);
	kfree(c->group_backed);
	kfree(c);
}

/* --- hooks: what each hooked call means (declared below) ------------------------ */

static struct ia_hook ia_vfio_ioctl_hook;

static bool ia_vfio_open_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return true;
}

static void ia_vfio_open_ret(void *data, unsigned long rv)
{
	void *iommu = (void *)rv;
	struct ia_vfio_container *c;
	unsigned long flags;

	if (IS_ERR_OR_NULL(iommu))
		return;
	c = kzalloc(sizeof(*c), GFP_ATOMIC);
	if (!c)
		return;		/* shows in STATUS as an untracked container */
	c->iommu = iommu;
	INIT_LIST_HEAD(&c->dmas);
	c->info.limit = ia_vfio_dma_entry_limit ? READ_ONCE(*ia_vfio_dma_entry_limit) : 0;
	c->missed_base = ia_hook_missed(&ia_vfio_ioctl_hook);
	ia_owner_current(&c->info.owner);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	c->info.id = ia_vfio_next_id++;
	ia_vfio_levels_bounds(c);	/* under the lock: the thresholds' */
	hash_add(ia_vfio_containers, &c->hnode, (unsigned long)iommu);
	ia_vfio_ntracked++;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* vfio_iommu_type1_release(iommu) */
static void ia_vfio_release(unsigned long iommu, unsigned long a1, unsigned long a2,
			    unsigned long a3)
{
	struct ia_vfio_container *c;
	unsigned long flags;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	c = ia_vfio_find((void *)iommu);
	if (c)
		ia_vfio_container_del(c);
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/*
 * A MAP_DMA begins: @a (the caller's) describes it until ia_vfio_map_end(). The
 * container cannot go meanwhile: its file is held by the ioctl, and the
 * records only go with the file or with vfio_iommu_type1 itself.
 */
static void ia_vfio_map_begin(struct ia_vfio_active *a, void *iommu, unsigned long arg)
{
	unsigned long flags;

	a->iommu = iommu;
	a->arg = arg;
	a->dma = NULL;
	a->d = NULL;
	a->created = false;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a->c = ia_vfio_find(iommu);
	ia_call_add(&ia_vfio_calls, &a->call, 0);
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

static int ia_vfio_errno_class(int err)
{
	switch (err) {
	case ENOSPC:
		return IA_FAIL_ENOSPC;
	case ENOMEM:
		return IA_FAIL_ENOMEM;
	case EINVAL:
		return IA_FAIL_EINVAL;
	default:
		return IA_FAIL_OTHER;
	}
}

/* The failure event of @c, from its last refusal. */
static void ia_vfio_failure_event(struct ia_event *ev, const struct ia_vfio_container *c, u32 count)
{
	const struct ia_failure *f = &c->info.last;

	ia_vfio_event_fill(ev, c, IA_EV_FAILURE, &f->who);
	ev->time_ns = f->time_ns;
	ev->err = f->err;
	ev->iova = f->iova;
	ev->size = f->size;
	ev->cgroup_id = f->cgroup_id;
	ev->count = count;
}

static bool ia_vfio_flush_pending;

static void ia_vfio_map_failed(struct ia_vfio_container *c,
			       const struct vfio_iommu_type1_dma_map *map, int err)
{
	int class = ia_vfio_errno_class(err);
	u64 now = ktime_get_real_ns();
	struct ia_event ev;
	u32 count;

	c->info.fail[class]++;
	/* The container's refusals (get-quota's) are its ENOSPC: so is the kind's total. */
	if (class == IA_FAIL_ENOSPC)
		ia_kind_refused(IA_KIND_VFIO_CONTAINER, 1);
	c->info.has_last = true;
	c->info.last = (struct ia_failure){
		.time_ns = now,
		.err = err,
		.iova = map ? map->iova : 0,
		.size = map ? map->size : 0,
	};
	ia_owner_current(&c->info.last.who);
	c->info.last.cgroup_id = ia_task_cgroup_id(current);
	if (!ia_coalesce_fail(&c->co, ktime_get_ns(), &count)) {
		ia_coalesce_schedule(&ia_vfio_flush_work, &ia_vfio_flush_pending);
		return;
	}
	if (!ia_events_wanted())
		return;
	ia_vfio_failure_event(&ev, c, count);
	if (current->mm)
		ev.locked_bytes = (u64)READ_ONCE(current->mm->locked_vm) << PAGE_SHIFT;
	ev.memlock = rlimit(RLIMIT_MEMLOCK);
	if (ev.memlock == RLIM_INFINITY)
		ev.memlock = U64_MAX;
	ia_event_queue(&ev);
}

/*
 * The MAP_DMA described by @a returned @ret (the ioctl's own return value).
 * After a refusal the caller's request is read back, only to describe it
 * (iova and size of the event); the kernel has just read it, so it is resident.
 */
static void ia_vfio_map_end(struct ia_vfio_active *a, long ret)
{
	struct vfio_iommu_type1_dma_map req, *map = NULL;
	unsigned long flags;

	if (ret && !copy_from_user_nofault(&req, (void __user *)a->arg, sizeof(req)))
		map = &req;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	ia_call_del(&ia_vfio_calls, &a->call);
	if (a->c && ret)
		ia_vfio_map_failed(a->c, map, (int)-ret);
	/*
	 * Linked without a pin while no IOMMU-backed group is attached
	 * (mediated devices only): the kernel pins such a mapping only when a
	 * device asks, so it is not seen. Said, not guessed at. (A vaddr
	 * update pins nothing either, but changes no entry.)
	 */
	if (a->c && !ret && !a->created && !a->c->nbacked)
		a->c->info.inexact |= IA_INEXACT_UNPINNED;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* vfio_pin_pages_remote(dma, vaddr, npage, ...) */
static void ia_vfio_pin(unsigned long dma_arg, unsigned long vaddr, unsigned long npage,
			unsigned long a3)
{
	void *dma = (void *)dma_arg;
	struct ia_vfio_container *c;
	struct ia_vfio_active *a;
	struct ia_vfio_dma *d;
	unsigned long flags;

	if (ia_calls_none(&ia_vfio_calls))
		return;		/* not inside a MAP_DMA we saw (below) */
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a = ia_vfio_find_active();
	if (!a) {
		/*
		 * Not inside a MAP_DMA we saw: the return probe ran out of
		 * instances, or a group attach replays mappings made while the
		 * container had no IOMMU domain (mdev only): not attributed.
		 */
		goto out;
	}
	a->dma = dma;
	c = a->c;
	if (!c)
		goto out;	/* untracked container */
	/* A further chunk of the mapping this call pins. */
	if (a->d && a->d->dma == dma)
		goto out;
	d = ia_vfio_find_dma(dma);
	if (d) {
		a->d = d;
		goto out;
	}
	d = ia_vfio_dma_alloc();
	if (!d) {
		c->info.inexact |= IA_INEXACT_NO_MEMORY;
		goto out;
	}
	d->dma = dma;
	d->c = c;
	d->size = (u64)npage << PAGE_SHIFT;
	d->pinned = 0;
	ia_htab_add(&ia_vfio_dmas, &d->hnode, (unsigned long)dma);
	list_add(&d->cnode, &c->dmas);
	a->d = d;
	a->created = true;
	c->info.entries++;
	c->info.map_ops++;
	c->info.mapped_bytes += d->size;
	ia_vfio_levels_raise(c, NULL);
out:
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* @npage charged (or uncharged) to @task's locked_vm by type1. */
static void ia_vfio_charge(struct task_struct *task, long npage)
{
	struct ia_vfio_active *a;
	struct ia_vfio_dma *d;
	unsigned long flags;

	/* Only charges inside a MAP_DMA are attributed: an unmap's go with its record. */
	if (ia_calls_none(&ia_vfio_calls))
		return;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a = ia_vfio_find_active();
	d = a ? a->d : NULL;
	if (!d)
		goto out;
	/*
	 * Inside a MAP_DMA, a charge can only fail when the map fails, and
	 * then the mapping is removed with its record: no return probe needed.
	 */
	if (npage < 0 && (u64)-npage > d->pinned) {
		d->c->info.inexact |= IA_INEXACT_PINNED;
		npage = -(long)d->pinned;
	}
	d->pinned += npage;
	d->c->info.pinned_pages += npage;
	if (task) {
		d->c->info.pinned_uid = task_uid(task);
		d->c->info.has_pinned_uid = true;
	}
out:
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* mm_lock_acct(task, mm, lock_cap, npage) */
static void ia_vfio_acct(unsigned long task, unsigned long mm, unsigned long lock_cap,
			 unsigned long npage)
{
	ia_vfio_charge((struct task_struct *)task, (long)npage);
}

/*
 * __account_locked_vm(mm, pages, inc, task, bypass_rlim), where type1 has no
 * mm_lock_acct (before 6.2 and its backports): its vfio_lock_acct() charges
 * through it. Others call it too (drivers, iommufd): only a charge inside a
 * MAP_DMA seen on this task counts (ia_vfio_charge()).
 */
static void ia_vfio_acct_vm(unsigned long mm, unsigned long pages, unsigned long inc,
			    unsigned long task)
{
	ia_vfio_charge((struct task_struct *)task, (u8)inc ? (long)pages : -(long)pages);
}

/* vfio_remove_dma(iommu, dma) */
static void ia_vfio_remove(unsigned long iommu, unsigned long dma_arg, unsigned long a2,
			   unsigned long a3)
{
	void *dma = (void *)dma_arg;
	struct ia_vfio_container *c;
	struct ia_vfio_active *a;
	struct ia_vfio_dma *d;
	unsigned long flags;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	d = ia_vfio_find_dma(dma);
	if (!d)
		goto out;
	c = d->c;
	a = ia_calls_none(&ia_vfio_calls) ? NULL : ia_vfio_find_active();
	if (a && a->d == d)
		a->d = NULL;	/* a refused map's record: no charge follows */
	if (a && a->dma == dma && a->created) {
		c->info.map_ops--;	/* the map that made it was refused */
		a->created = false;
	} else {
		c->info.unmap_ops++;
	}
	ia_vfio_dma_del(d);
	ia_vfio_levels_rearm(c);
out:
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

struct ia_vfio_attach_data {
	void *iommu;
	u32 group;
	bool backed;
};

/* drivers/vfio/vfio.h: enum vfio_group_type, whose first value is VFIO_IOMMU. */
#define IA_VFIO_IOMMU 0

/* vfio_iommu_type1_attach_group(iommu, group, type) */
static bool ia_vfio_attach_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_vfio_attach_data *d = data;

	d->iommu = (void *)a[0];
	d->group = iommu_group_id((struct iommu_group *)a[1]);
#if IA_HAVE_VFIO_ATTACH_GROUP_TWO_ARGS
	/*
	 * No group type (kmod/conftest/vfio_attach_group_two_args.c): counted
	 * as emulated, so a MAP_DMA that succeeds without pinning is flagged
	 * unpinned. There type1 pins whenever it has an IOMMU domain, so that
	 * is the mdev-only container; a vaddr update (5.12 to 5.15) is flagged
	 * too: said, not guessed at.
	 */
	d->backed = false;
#else
	/* An emulated group (mdev) has no domain. */
	d->backed = (u32)a[2] == IA_VFIO_IOMMU;
#endif
	return true;
}

/* Room for one more group in @c (ia_vfio_lock held); false when memory ran out. */
static bool ia_vfio_groups_grow(struct ia_vfio_container *c)
{
	unsigned int cap = c->gcap ? 2 * c->gcap : 1;
	struct ia_owner *o;
	bool *b;
	u32 *g;

	if (c->ngroups < c->gcap)
		return true;
	g = krealloc(c->groups, cap * sizeof(*g), GFP_ATOMIC);
	if (!g)
		return false;
	c->groups = g;
	o = krealloc(c->group_owner, cap * sizeof(*o), GFP_ATOMIC);
	if (!o)
		return false;
	c->group_owner = o;
	b = krealloc(c->group_backed, cap * sizeof(*b), GFP_ATOMIC);
	if (!b)
		return false;
	c->group_backed = b;
	c->gcap = cap;
	return true;
}

static void ia_vfio_attach_ret(void *data, unsigned long rv)
{
	struct ia_vfio_attach_data *d = data;
	struct ia_vfio_container *c;
	unsigned long flags;

	if ((int)rv)
		return;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	c = ia_vfio_find(d->iommu);
	if (c && ia_vfio_groups_grow(c)) {
		c->groups[c->ngroups] = d->group;
		ia_owner_current(&c->group_owner[c->ngroups]);
		c->group_backed[c->ngroups] = d->backed;
		c->nbacked += d->backed;
		c->ngroups++;
	} else if (c) {
		c->info.inexact |= IA_INEXACT_NO_MEMORY;
	}
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* vfio_iommu_type1_detach_group(iommu, group) */
static void ia_vfio_detach(unsigned long iommu_arg, unsigned long grp, unsigned long a2,
			   unsigned long a3)
{
	void *iommu = (void *)iommu_arg;
	u32 group = iommu_group_id((struct iommu_group *)grp);
	struct ia_vfio_container *c;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	c = ia_vfio_find(iommu);
	for (i = 0; c && i < c->ngroups; i++) {
		if (c->groups[i] != group)
			continue;
		c->nbacked -= c->group_backed[i];
		c->ngroups--;
		c->groups[i] = c->groups[c->ngroups];
		c->group_owner[i] = c->group_owner[c->ngroups];
		c->group_backed[i] = c->group_backed[c->ngroups];
		break;
	}
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* vfio_iommu_type1_ioctl(iommu, VFIO_IOMMU_MAP_DMA, arg): the other commands are not hooked. */
static bool ia_vfio_ioctl_entry(void *data, const unsigned long *a, unsigned long caller)
{
	ia_vfio_map_begin(data, (void *)a[0], a[2]);
	return true;
}

static void ia_vfio_ioctl_ret(void *data, unsigned long rv)
{
	ia_vfio_map_end(data, (long)rv);
}

/*
 * --- the hooks -----------------------------------------------------------------------
 *
 * Per MAP+UNMAP pair of 4 KiB on ftrace: MAP = redirect + the original's own
 * entry + pin + charge; UNMAP = the ioctl's entry (not redirected) + uncharge
 * + remove: seven ftrace hits, none with pt_regs saved or a return
 * trampoline. Under kprobes, return probes have bounded instances: a
 * MAP_DMA sleeps on the container's mutex while holding one, so the ioctl
 * needs one per thread that can wait there.
 */
#define IA_MAXACTIVE_IOCTL 4096

IA_HOOK_RETURN(ia_vfio_open, IA_TYPE1 ":vfio_iommu_type1_open", u8,
	       ia_vfio_open_entry, ia_vfio_open_ret, 256);
IA_HOOK_RETURN_IF(ia_vfio_ioctl, IA_TYPE1 ":vfio_iommu_type1_ioctl", 1, VFIO_IOMMU_MAP_DMA,
		  struct ia_vfio_active, ia_vfio_ioctl_entry, ia_vfio_ioctl_ret,
		  IA_MAXACTIVE_IOCTL);
IA_HOOK_RETURN(ia_vfio_attach, IA_TYPE1 ":vfio_iommu_type1_attach_group",
	       struct ia_vfio_attach_data, ia_vfio_attach_entry, ia_vfio_attach_ret, 256);
IA_HOOK_ENTRY(ia_vfio_release, IA_TYPE1 ":vfio_iommu_type1_release", ia_vfio_release);
IA_HOOK_ENTRY(ia_vfio_detach, IA_TYPE1 ":vfio_iommu_type1_detach_group", ia_vfio_detach);
IA_HOOK_ENTRY(ia_vfio_remove, IA_TYPE1 ":vfio_remove_dma", ia_vfio_remove);
IA_HOOK_ENTRY(ia_vfio_acct, IA_TYPE1 ":mm_lock_acct", ia_vfio_acct);
IA_HOOK_ENTRY(ia_vfio_acct_vm, "__account_locked_vm", ia_vfio_acct_vm);
IA_HOOK_ENTRY(ia_vfio_pin, IA_TYPE1 ":vfio_pin_pages_remote", ia_vfio_pin);

/*
 * All of them, or none (vfio_attach.c marks them required). Hottest first:
 * a set's ftrace callbacks find their hook by address in this order, and
 * every MAP+UNMAP pair passes the ioctl twice, the charge twice, the pin
 * and the removal once.
 */
static struct ia_hook *ia_vfio_hook_list[] = {
	&ia_vfio_ioctl_hook, &ia_vfio_acct_hook, &ia_vfio_acct_vm_hook, &ia_vfio_pin_hook,
	&ia_vfio_remove_hook, &ia_vfio_release_hook, &ia_vfio_detach_hook, &ia_vfio_open_hook,
	&ia_vfio_attach_hook,
};

/*
 * The charge hook this type1 needs: mm_lock_acct, else (a kernel without
 * it) the function its vfio_lock_acct() charges through. Every hook wanted
 * is required: all of them, or none.
 */
void ia_vfio_hooks_choose(void)
{
	struct ia_hook_set *s = &ia_vfio_hooks;
	unsigned int i;

	ia_vfio_acct_hook.want = ia_kallsyms_lookup_name(IA_TYPE1 ":mm_lock_acct") != 0;
	ia_vfio_acct_vm_hook.want = !ia_vfio_acct_hook.want;
	for (i = 0; i < s->n; i++)
		s->hooks[i]->required = s->hooks[i]->want;
}

struct ia_hook_set ia_vfio_hooks = {
	.name = IA_TYPE1,
	.hooks = ia_vfio_hook_list,
	.n = ARRAY_SIZE(ia_vfio_hook_list),
	.calls = &ia_vfio_calls,
};

/* Refusals coalesced during the interval: one event per container. */
static void ia_vfio_flush_workfn(struct work_struct *w)
{
	struct ia_vfio_container *c;
	struct ia_event ev;
	unsigned long flags;
	bool again = false;
	u32 n;
	int bkt;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	hash_for_each(ia_vfio_containers, bkt, c, hnode) {
		if (!c->co.pending)
			continue;
		n = ia_coalesce_due(&c->co, ktime_get_ns());
		if (!n) {
			again = true;	/* pending, interval not over */
			continue;
		}
		if (ia_events_wanted()) {
			ia_vfio_failure_event(&ev, c, n);
			ia_event_queue(&ev);
		}
	}
	ia_vfio_flush_pending = false;
	if (again)
		ia_coalesce_schedule(&ia_vfio_flush_work, &ia_vfio_flush_pending);
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/*
 * The hooks are gone (vfio_attach.c): no handler runs any more, so every
 * record goes, and the MAP_DMAs that were in flight are forgotten.
 */
void ia_vfio_forget(void)
{
	struct ia_vfio_container *c;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	cancel_delayed_work_sync(&ia_vfio_flush_work);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	hash_for_each_safe(ia_vfio_containers, bkt, tmp, c, hnode)
		ia_vfio_container_del(c);
	ia_calls_forget(&ia_vfio_calls);
	ia_vfio_flush_pending = false;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

u32 ia_vfio_tracked_locked(void)
{
	lockdep_assert_held(&ia_vfio_lock);
	return ia_vfio_ntracked;
}

/* --- snapshots for netlink ---------------------------------------------------------- */

static int ia_vfio_info_cmp(const void *a, const void *b)
{
	u32 x = ((const struct ia_container_info *)a)->id;
	u32 y = ((const struct ia_container_info *)b)->id;

	return x < y ? -1 : x > y;
}

void ia_container_snap_free(struct ia_container_snap *s)
{
	kvfree(s);
}

/*
 * One allocation: the header, the infos, then every container's groups and
 * group owners. Sized by counting under the lock, retried if it grew.
 */
struct ia_container_snap *ia_container_snapshot(const struct ia_filter *f)
{
	unsigned int cap = 0, gcap = 0, n, ng;
	u64 missed = ia_hook_missed(&ia_vfio_ioctl_hook);
	struct ia_container_snap *snap;
	struct ia_owner *owners;
	struct ia_vfio_container *c;
	unsigned long flags;
	size_t size;
	u32 *groups;
	int bkt;

	for (;;) {
		size = sizeof(*snap) + cap * sizeof(snap->c[0]) +
		       gcap * (sizeof(*groups) + sizeof(*owners));
		snap = kvmalloc(size, GFP_KERNEL);
		if (!snap)
			return ERR_PTR(-ENOMEM);
		snap->c = (struct ia_container_info *)(snap + 1);
		owners = (struct ia_owner *)(snap->c + cap);
		groups = (u32 *)(owners + gcap);
		n = 0;
		ng = 0;
		spin_lock_irqsave(&ia_vfio_lock, flags);
		hash_for_each(ia_vfio_containers, bkt, c, hnode) {
			struct ia_container_info *ci;

			if (!ia_filter_pass(f, c->info.id, c->info.owner.uid, c->info.owner.pid))
				continue;
			if (n < cap && ng + c->ngroups <= gcap) {
				ci = &snap->c[n];
				*ci = c->info;
				ci->ngroups = c->ngroups;
				ci->groups = groups + ng;
				ci->group_owner = owners + ng;
				memcpy(ci->groups, c->groups, c->ngroups * sizeof(*groups));
				memcpy(ci->group_owner, c->group_owner,
				       c->ngroups * sizeof(*owners));
				if (missed > c->missed_base)
					ci->inexact |= IA_INEXACT_PROBE_MISSED;
			}
			n++;
			ng += c->ngroups;
		}
		spin_unlock_irqrestore(&ia_vfio_lock, flags);
		if (n <= cap && ng <= gcap)
			break;
		kvfree(snap);
		cap = n + 8;
		gcap = ng + 16;
	}
	snap->nr = n;
	sort(snap->c, n, sizeof(snap->c[0]), ia_vfio_info_cmp, NULL);
	return snap;
}

void ia_vfio_thresholds_get(struct ia_thresholds *t)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	*t = ia_vfio_th;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/*
 * New thresholds apply to the present counts at once: levels now above a
 * container's count re-arm, and a level it is already past is raised now
 * (named after the container's owner), as if it had just been crossed.
 */
void ia_vfio_thresholds_set(const struct ia_thresholds *t)
{
	struct ia_vfio_container *c;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	ia_vfio_th = *t;
	hash_for_each(ia_vfio_containers, bkt, c, hnode) {
		ia_vfio_levels_bounds(c);
		ia_vfio_levels_rearm(c);
		ia_vfio_levels_raise(c, &c->info.owner);
	}
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

int ia_vfio_records_init(void)
{
	ia_vfio_dma_cache = KMEM_CACHE(ia_vfio_dma, 0);
	if (!ia_vfio_dma_cache)
		return -ENOMEM;
	if (ia_htab_init(&ia_vfio_dmas, 10, &ia_vfio_lock, ia_vfio_dma_hash)) {
		kmem_cache_destroy(ia_vfio_dma_cache);
		return -ENOMEM;
	}
	return 0;
}

void ia_vfio_records_exit(void)
{
	struct ia_vfio_dma *d;
	struct hlist_node *tmp;

	ia_vfio_forget();
	/* Nothing runs any more: no lock needed for the records given back. */
	hlist_for_each_entry_safe(d, tmp, &ia_vfio_spare.head, hnode)
		kmem_cache_free(ia_vfio_dma_cache, d);
	ia_spare_reset(&ia_vfio_spare);
	ia_htab_destroy(&ia_vfio_dmas);
	kmem_cache_destroy(ia_vfio_dma_cache);
}
