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
 *   vfio_iommu_type1_ioctl     MAP_DMA only: return value (refusals, events)
 *   vfio_iommu_type1_attach_group / _detach_group   group membership
 *
 * So entries == limit - DMA_AVAIL holds whatever fails: a refused map that
 * was linked and removed again (EFAULT, ENOMEM from RLIMIT_MEMLOCK) adds and
 * removes the same record; a vaddr update (VFIO_DMA_*_FLAG_VADDR) pins and
 * removes nothing. Pinned pages of a mapping are dropped with its record.
 *
 * Two mechanisms give these hooks (wrapper/hook.h): ftrace where the kernel
 * allows it (entry callbacks, and MAP_DMA calls of the ioctl redirected to a
 * wrapper that sees the return value: no return trampoline, no bound on
 * concurrent calls), else kprobes and a kretprobe on the ioctl. With the
 * kretprobe, if its 4096 instances ever run out, the refusals of that moment
 * are not counted, and every container live then is flagged inexact (never
 * silently wrong). Open and attach (rare) are kretprobes either way.
 *
 * Handlers run in atomic context under kprobes and may be preempted under
 * ftrace: either way state is under one irq-safe spinlock, allocations are
 * GFP_ATOMIC, events go through the core's queue.
 *
 * Locking, in the order taken: ia_vfio_attach_mutex (registering and removing
 * the hooks, type1's module reference), then ia_vfio_lock (an irq-safe spinlock:
 * containers, mappings, groups, actives), then ia_evq_lock. The hooks build
 * their events on the stack under ia_vfio_lock and queue them after releasing
 * it, to keep ia_vfio_lock's hold short on the mapping path; the coalescing
 * flush (a work item, once per interval) queues under ia_vfio_lock, which the
 * order allows. ia_feature_set() (ia_feat_lock, a leaf) may be called under
 * ia_vfio_attach_mutex, never under ia_vfio_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
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

#include "ia.h"
#include "wrapper/hook.h"
#include "wrapper/kallsyms.h"

#define IA_TYPE1 "vfio_iommu_type1"

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
	u32 armed;			/* threshold levels crossed, bit per level */
	u64 missed_base;		/* ioctl probe misses when it was created */
	struct ia_coalesce co;
};

/* A MAP_DMA in flight, so the hooks inside it know their container. */
struct ia_vfio_active {
	struct hlist_node hnode;	/* ia_vfio_actives, by task */
	struct task_struct *task;
	void *iommu;
	unsigned long arg;		/* the caller's request (user address) */
	struct ia_vfio_container *c;		/* its record, NULL if untracked */
	void *dma;			/* the mapping being pinned */
	bool created;			/* a mapping record was made by this call */
};

/* MAP_DMAs in flight: hooks outside any skip the actives lookup and the lock. */
static atomic_t ia_vfio_nactive = ATOMIC_INIT(0);

static DEFINE_SPINLOCK(ia_vfio_lock);
static DEFINE_HASHTABLE(ia_vfio_containers, 6);
static DEFINE_HASHTABLE(ia_vfio_dmas, 14);
static DEFINE_HASHTABLE(ia_vfio_actives, 8);
static struct kmem_cache *ia_vfio_dma_cache;
static u32 ia_vfio_next_id = 1;
static u32 ia_vfio_ntracked;
static struct ia_thresholds ia_vfio_th = { .warn = 800, .crit = 950 };
static unsigned int *ia_vfio_dma_entry_limit;

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
	struct ia_vfio_dma *d;

	hash_for_each_possible(ia_vfio_dmas, d, hnode, (unsigned long)dma)
		if (d->dma == dma)
			return d;
	return NULL;
}

static struct ia_vfio_active *ia_vfio_find_active(struct task_struct *task)
{
	struct ia_vfio_active *a;

	hash_for_each_possible(ia_vfio_actives, a, hnode, (unsigned long)task)
		if (a->task == task)
			return a;
	return NULL;
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

/* Smallest entry count at or above @pm per mille of the limit. */
static u64 ia_vfio_threshold_entries(const struct ia_vfio_container *c, u32 pm)
{
	return DIV_ROUND_UP((u64)c->info.limit * pm, 1000);
}

static u32 ia_vfio_level_pm(enum ia_level l)
{
	return l == IA_LEVEL_WARN ? ia_vfio_th.warn : ia_vfio_th.crit;
}

/*
 * Raise an event for each level the count has reached that is not armed yet
 * (a level re-arms once the count falls below it). @who: the owner to name,
 * or NULL for the current task. Returns the number of events put in @ev.
 */
static unsigned int ia_vfio_thresholds_up(struct ia_vfio_container *c, struct ia_event *ev,
					  const struct ia_owner *who)
{
	unsigned int nev = 0;
	enum ia_level l;

	if (!c->info.limit)
		return 0;
	for (l = 0; l < IA_LEVEL_COUNT; l++) {
		if (c->info.entries < ia_vfio_threshold_entries(c, ia_vfio_level_pm(l)) ||
		    (c->armed & BIT(l)))
			continue;
		c->armed |= BIT(l);
		if (!ia_events_wanted())
			continue;
		ia_vfio_event_fill(&ev[nev], c, IA_EV_THRESHOLD, who);
		ev[nev].level = l;
		ev[nev].threshold = ia_vfio_level_pm(l);
		nev++;
	}
	return nev;
}

/* After an entry left, or thresholds moved: re-arm the levels now above the count. */
static void ia_vfio_thresholds_down(struct ia_vfio_container *c)
{
	enum ia_level l;

	for (l = 0; l < IA_LEVEL_COUNT; l++)
		if (c->info.entries < ia_vfio_threshold_entries(c, ia_vfio_level_pm(l)))
			c->armed &= ~BIT(l);
}

static void ia_vfio_queue_all(struct ia_event *ev, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ia_event_queue(&ev[i]);
}

/* --- mapping records (ia_vfio_lock held) ---------------------------------------------- */

static void ia_vfio_dma_del(struct ia_vfio_dma *d)
{
	struct ia_vfio_container *c = d->c;

	lockdep_assert_held(&ia_vfio_lock);
	hash_del(&d->hnode);
	list_del(&d->cnode);
	if (c->info.entries)
		c->info.entries--;
	c->info.mapped_bytes -= d->size;
	c->info.pinned_pages -= d->pinned;
	kmem_cache_free(ia_vfio_dma_cache, d);
}

static void ia_vfio_container_del(struct ia_vfio_container *c)
{
	struct ia_vfio_dma *d, *tmp;

	list_for_each_entry_safe(d, tmp, &c->dmas, cnode) {
		hash_del(&d->hnode);
		kmem_cache_free(ia_vfio_dma_cache, d);
	}
	hash_del(&c->hnode);
	ia_vfio_ntracked--;
	kfree(c->groups);
	kfree(c->group_owner);
	kfree(c->group_backed);
	kfree(c);
}

/* --- hooks: what each hooked call means (mechanism below) ------------------------ */

static struct kretprobe ia_vfio_krp_ioctl;
static struct ia_wrap ia_vfio_wrap_ioctl;

static int ia_vfio_open_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	void *iommu = (void *)regs_return_value(regs);
	struct ia_vfio_container *c;
	unsigned long flags;

	if (IS_ERR_OR_NULL(iommu))
		return 0;
	c = kzalloc(sizeof(*c), GFP_ATOMIC);
	if (!c)
		return 0;	/* shows in STATUS as an untracked container */
	c->iommu = iommu;
	INIT_LIST_HEAD(&c->dmas);
	c->info.limit = ia_vfio_dma_entry_limit ? READ_ONCE(*ia_vfio_dma_entry_limit) : 0;
	c->missed_base = READ_ONCE(ia_vfio_krp_ioctl.nmissed);
	ia_owner_current(&c->info.owner);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	c->info.id = ia_vfio_next_id++;
	hash_add(ia_vfio_containers, &c->hnode, (unsigned long)iommu);
	ia_vfio_ntracked++;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	return 0;
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

	a->task = current;
	a->iommu = iommu;
	a->arg = arg;
	a->dma = NULL;
	a->created = false;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a->c = ia_vfio_find(iommu);
	hash_add(ia_vfio_actives, &a->hnode, (unsigned long)current);
	atomic_inc(&ia_vfio_nactive);
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
			       const struct vfio_iommu_type1_dma_map *map,
			       int err, struct ia_event *ev, unsigned int *nev)
{
	u64 now = ktime_get_real_ns();
	u32 count;

	c->info.fail[ia_vfio_errno_class(err)]++;
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
	ia_vfio_failure_event(&ev[*nev], c, count);
	if (current->mm)
		ev[*nev].locked_bytes = (u64)READ_ONCE(current->mm->locked_vm) << PAGE_SHIFT;
	ev[*nev].memlock = rlimit(RLIMIT_MEMLOCK);
	if (ev[*nev].memlock == RLIM_INFINITY)
		ev[*nev].memlock = U64_MAX;
	(*nev)++;
}

/*
 * The MAP_DMA described by @a returned @ret (the ioctl's own return value).
 * After a refusal the caller's request is read back, only to describe it
 * (iova and size of the event); the kernel has just read it, so it is resident.
 */
static void ia_vfio_map_end(struct ia_vfio_active *a, long ret)
{
	struct vfio_iommu_type1_dma_map req, *map = NULL;
	struct ia_event ev[1];
	unsigned long flags;
	unsigned int nev = 0;

	if (ret && !copy_from_user_nofault(&req, (void __user *)a->arg, sizeof(req)))
		map = &req;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	hash_del(&a->hnode);
	atomic_dec(&ia_vfio_nactive);
	if (a->c && ret)
		ia_vfio_map_failed(a->c, map, (int)-ret, ev, &nev);
	/*
	 * Linked without a pin while no IOMMU-backed group is attached
	 * (mediated devices only): the kernel pins such a mapping only when a
	 * device asks, so it is not seen. Said, not guessed at. (A vaddr
	 * update pins nothing either, but changes no entry.)
	 */
	if (a->c && !ret && !a->created && !a->c->nbacked)
		a->c->info.inexact |= IA_INEXACT_UNPINNED;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	ia_vfio_queue_all(ev, nev);
}

/* vfio_pin_pages_remote(dma, vaddr, npage, ...) */
static void ia_vfio_pin(unsigned long dma_arg, unsigned long vaddr, unsigned long npage,
			unsigned long a3)
{
	void *dma = (void *)dma_arg;
	struct ia_event ev[IA_LEVEL_COUNT];
	struct ia_vfio_container *c;
	struct ia_vfio_active *a;
	struct ia_vfio_dma *d;
	unsigned long flags;
	unsigned int nev = 0;

	if (!atomic_read(&ia_vfio_nactive))
		return;		/* not inside a MAP_DMA we saw (below) */
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a = ia_vfio_find_active(current);
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
	if (!c || ia_vfio_find_dma(dma))
		goto out;	/* untracked container, or a further chunk */
	d = kmem_cache_alloc(ia_vfio_dma_cache, GFP_ATOMIC);
	if (!d) {
		c->info.inexact |= IA_INEXACT_NO_MEMORY;
		goto out;
	}
	d->dma = dma;
	d->c = c;
	d->size = (u64)npage << PAGE_SHIFT;
	d->pinned = 0;
	hash_add(ia_vfio_dmas, &d->hnode, (unsigned long)dma);
	list_add(&d->cnode, &c->dmas);
	a->created = true;
	c->info.entries++;
	c->info.map_ops++;
	c->info.mapped_bytes += d->size;
	nev = ia_vfio_thresholds_up(c, ev, NULL);
out:
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	ia_vfio_queue_all(ev, nev);
}

/* mm_lock_acct(task, mm, lock_cap, npage) */
static void ia_vfio_acct(unsigned long task_arg, unsigned long mm, unsigned long lock_cap,
			 unsigned long npage_arg)
{
	struct task_struct *task = (struct task_struct *)task_arg;
	long npage = (long)npage_arg;
	struct ia_vfio_active *a;
	struct ia_vfio_dma *d;
	unsigned long flags;

	/* Only charges inside a MAP_DMA are attributed: an unmap's go with its record. */
	if (!atomic_read(&ia_vfio_nactive))
		return;
	spin_lock_irqsave(&ia_vfio_lock, flags);
	a = ia_vfio_find_active(current);
	d = a && a->dma ? ia_vfio_find_dma(a->dma) : NULL;
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
	a = atomic_read(&ia_vfio_nactive) ? ia_vfio_find_active(current) : NULL;
	if (a && a->dma == dma && a->created) {
		c->info.map_ops--;	/* the map that made it was refused */
		a->created = false;
	} else {
		c->info.unmap_ops++;
	}
	ia_vfio_dma_del(d);
	ia_vfio_thresholds_down(c);
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

static int ia_vfio_attach_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_vfio_attach_data *d = (struct ia_vfio_attach_data *)ri->data;

	d->iommu = (void *)regs_get_kernel_argument(regs, 0);
	d->group = iommu_group_id((struct iommu_group *)regs_get_kernel_argument(regs, 1));
	/* attach_group(iommu, group, type): an emulated group (mdev) has no domain. */
	d->backed = (u32)regs_get_kernel_argument(regs, 2) == IA_VFIO_IOMMU;
	return 0;
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

static int ia_vfio_attach_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_vfio_attach_data *d = (struct ia_vfio_attach_data *)ri->data;
	struct ia_vfio_container *c;
	unsigned long flags;

	if (regs_return_value(regs))
		return 0;
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
	return 0;
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

/*
 * --- mechanism 1 (preferred): ftrace -------------------------------------------------
 *
 * Entry hooks on release, detach, remove, mm_lock_acct and pin; MAP_DMA calls
 * of the ioctl redirected to ia_vfio_ioctl_wrapper(), which calls the original and
 * sees its return value. Per MAP+UNMAP pair of 4 KiB: MAP = redirect + the
 * original's own entry + pin + charge; UNMAP = the ioctl's entry (not
 * redirected) + uncharge + remove: seven ftrace hits, none with pt_regs
 * saved or a return trampoline, and no bound on concurrent MAP_DMAs.
 */

static struct ia_fentry ia_vfio_fentries[] = {
	{ .sym = IA_TYPE1 ":vfio_iommu_type1_release", .fn = ia_vfio_release },
	{ .sym = IA_TYPE1 ":vfio_iommu_type1_detach_group", .fn = ia_vfio_detach },
	{ .sym = IA_TYPE1 ":vfio_remove_dma", .fn = ia_vfio_remove },
	{ .sym = IA_TYPE1 ":mm_lock_acct", .fn = ia_vfio_acct },
	{ .sym = IA_TYPE1 ":vfio_pin_pages_remote", .fn = ia_vfio_pin },
};

static struct ia_fentry_set ia_vfio_fset = {
	.e = ia_vfio_fentries,
	.n = ARRAY_SIZE(ia_vfio_fentries),
};

typedef long (*ia_vfio_ioctl_fn)(void *iommu, unsigned int cmd, unsigned long arg);

static noinline notrace long ia_vfio_ioctl_wrapper(void *iommu, unsigned int cmd, unsigned long arg)
{
	struct ia_vfio_active a;
	long ret;

	ia_wrap_enter(&ia_vfio_wrap_ioctl);
	ia_vfio_map_begin(&a, iommu, arg);
	/*
	 * Never a tail call (work follows): the original's own entry sees a
	 * return address in this wrapper and is let through.
	 */
	ret = ((ia_vfio_ioctl_fn)ia_vfio_wrap_ioctl.orig)(iommu, cmd, arg);
	ia_vfio_map_end(&a, ret);
	ia_wrap_leave(&ia_vfio_wrap_ioctl);
	return ret;
}

static struct ia_wrap ia_vfio_wrap_ioctl = {
	.sym = IA_TYPE1 ":vfio_iommu_type1_ioctl",
	.wrapper = ia_vfio_ioctl_wrapper,
	.only_arg = 1,			/* cmd */
	.only_val = VFIO_IOMMU_MAP_DMA,
};

/*
 * --- mechanism 2 (fallback): kprobes -------------------------------------------------
 *
 * Where ftrace hooks cannot be had (no DYNAMIC_FTRACE_WITH_ARGS, another
 * IPMODIFY user such as a livepatch on the ioctl, or hooks=kprobes): a
 * kretprobe on the ioctl and kprobes on the rest, calling the same functions.
 * Only the ioctl's return probe has a bounded number of instances (4096): if
 * it ever runs out, the refusals of that moment are not counted, and every
 * container live then is flagged inexact (never silently wrong).
 */

static int ia_vfio_ioctl_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if ((u32)regs_get_kernel_argument(regs, 1) != VFIO_IOMMU_MAP_DMA)
		return 1;	/* no return handler for this call */
	ia_vfio_map_begin((struct ia_vfio_active *)ri->data,
			  (void *)regs_get_kernel_argument(regs, 0),
			  regs_get_kernel_argument(regs, 2));
	return 0;
}

static int ia_vfio_ioctl_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ia_vfio_map_end((struct ia_vfio_active *)ri->data, (long)regs_return_value(regs));
	return 0;
}

typedef void (*ia_vfio_hook_fn)(unsigned long a0, unsigned long a1, unsigned long a2,
			   unsigned long a3);

/* Inlined with a constant @fn: a direct call. */
static __always_inline int ia_vfio_kp_call(struct pt_regs *regs, ia_vfio_hook_fn fn)
{
	fn(regs_get_kernel_argument(regs, 0), regs_get_kernel_argument(regs, 1),
	   regs_get_kernel_argument(regs, 2), regs_get_kernel_argument(regs, 3));
	return 0;
}

static int ia_vfio_release_pre(struct kprobe *p, struct pt_regs *regs)
{
	return ia_vfio_kp_call(regs, ia_vfio_release);
}

static int ia_vfio_pin_pre(struct kprobe *p, struct pt_regs *regs)
{
	return ia_vfio_kp_call(regs, ia_vfio_pin);
}

static int ia_vfio_acct_pre(struct kprobe *p, struct pt_regs *regs)
{
	return ia_vfio_kp_call(regs, ia_vfio_acct);
}

static int ia_vfio_remove_dma_pre(struct kprobe *p, struct pt_regs *regs)
{
	return ia_vfio_kp_call(regs, ia_vfio_remove);
}

static int ia_vfio_detach_pre(struct kprobe *p, struct pt_regs *regs)
{
	return ia_vfio_kp_call(regs, ia_vfio_detach);
}

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
 * Instances of the return probes: a MAP_DMA sleeps on the container's mutex
 * while holding one, so the ioctl needs one per thread that can wait there.
 */
#define IA_MAXACTIVE_IOCTL 4096

static struct kretprobe ia_vfio_krp_open = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_open",
	.handler = ia_vfio_open_ret,
	.maxactive = 256,
};

static struct kretprobe ia_vfio_krp_ioctl = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_ioctl",
	.entry_handler = ia_vfio_ioctl_entry,
	.handler = ia_vfio_ioctl_ret,
	.data_size = sizeof(struct ia_vfio_active),
	.maxactive = IA_MAXACTIVE_IOCTL,
};

static struct kretprobe ia_vfio_krp_attach = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_attach_group",
	.entry_handler = ia_vfio_attach_entry,
	.handler = ia_vfio_attach_ret,
	.data_size = sizeof(struct ia_vfio_attach_data),
	.maxactive = 256,
};

static struct kprobe ia_vfio_kp_release = {
	.symbol_name = IA_TYPE1 ":vfio_iommu_type1_release",
	.pre_handler = ia_vfio_release_pre,
};

static struct kprobe ia_vfio_kp_pin = {
	.symbol_name = IA_TYPE1 ":vfio_pin_pages_remote",
	.pre_handler = ia_vfio_pin_pre,
};

static struct kprobe ia_vfio_kp_acct = {
	.symbol_name = IA_TYPE1 ":mm_lock_acct",
	.pre_handler = ia_vfio_acct_pre,
};

static struct kprobe ia_vfio_kp_remove = {
	.symbol_name = IA_TYPE1 ":vfio_remove_dma",
	.pre_handler = ia_vfio_remove_dma_pre,
};

static struct kprobe ia_vfio_kp_detach = {
	.symbol_name = IA_TYPE1 ":vfio_iommu_type1_detach_group",
	.pre_handler = ia_vfio_detach_pre,
};

/* Registered with either mechanism: containers opening and groups attaching. */
static struct kretprobe *const ia_vfio_kretprobes[] = {
	&ia_vfio_krp_open, &ia_vfio_krp_attach,
};

/* Mechanism 2, registered in this order, unregistered in the reverse one. */
static struct kprobe *const ia_vfio_kprobes[] = {
	&ia_vfio_kp_release, &ia_vfio_kp_detach, &ia_vfio_kp_remove, &ia_vfio_kp_acct,
	&ia_vfio_kp_pin,
};

static DEFINE_MUTEX(ia_vfio_attach_mutex);
static bool ia_vfio_attached;
static bool ia_vfio_use_ftrace;		/* mechanism 1 is the one registered */
static struct module *ia_vfio_type1_mod;	/* under ia_vfio_attach_mutex */

u64 ia_vfio_probes_missed(void)
{
	u64 n = READ_ONCE(ia_vfio_krp_ioctl.nmissed);
	int i;

	for (i = 0; i < ARRAY_SIZE(ia_vfio_kretprobes); i++)
		n += READ_ONCE(ia_vfio_kretprobes[i]->nmissed);
	for (i = 0; i < ARRAY_SIZE(ia_vfio_kprobes); i++)
		n += READ_ONCE(ia_vfio_kprobes[i]->nmissed);
	return n;
}

u32 ia_vfio_untracked(void)
{
	unsigned long flags;
	u32 tracked, refs = 0;

	mutex_lock(&ia_vfio_attach_mutex);
	if (ia_vfio_type1_mod)
		refs = module_refcount(ia_vfio_type1_mod);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	tracked = ia_vfio_ntracked;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	mutex_unlock(&ia_vfio_attach_mutex);
	/* Every container with type1 set holds one reference on the module. */
	return refs > tracked ? refs - tracked : 0;
}

static void ia_vfio_kprobes_unregister(void)
{
	unregister_kprobes((struct kprobe **)ia_vfio_kprobes, ARRAY_SIZE(ia_vfio_kprobes));
	unregister_kretprobe(&ia_vfio_krp_ioctl);
}

static void ia_vfio_hooks_detach_locked(void)
{
	struct ia_vfio_container *c;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	if (!ia_vfio_attached)
		return;
	if (ia_vfio_use_ftrace) {
		/* Waits for MAP_DMAs inside the wrapper to return. */
		ia_wrap_unregister(&ia_vfio_wrap_ioctl);
		ia_fentry_unregister(&ia_vfio_fset);
	} else {
		ia_vfio_kprobes_unregister();
	}
	unregister_kretprobes((struct kretprobe **)ia_vfio_kretprobes,
			      ARRAY_SIZE(ia_vfio_kretprobes));
	ia_vfio_attached = false;
	cancel_delayed_work_sync(&ia_vfio_flush_work);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	hash_for_each_safe(ia_vfio_containers, bkt, tmp, c, hnode)
		ia_vfio_container_del(c);
	/* No handler runs any more: in-flight records are gone with the probes. */
	hash_init(ia_vfio_actives);
	atomic_set(&ia_vfio_nactive, 0);
	ia_vfio_flush_pending = false;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	ia_vfio_dma_entry_limit = NULL;
	ia_vfio_type1_mod = NULL;
	ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
		       IA_TYPE1 " not loaded: hooks attach when it loads");
}

static void ia_vfio_kprobe_reset(struct kprobe *kp)
{
	const char *sym = kp->symbol_name;
	kprobe_pre_handler_t pre = kp->pre_handler;

	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = sym;
	kp->pre_handler = pre;
}

static void ia_vfio_kretprobe_reset(struct kretprobe *rp)
{
	const char *sym = rp->kp.symbol_name;

	memset(&rp->kp, 0, sizeof(rp->kp));
	rp->kp.symbol_name = sym;
	rp->nmissed = 0;
}

/* Mechanism 1; 0 or -errno with @why filled. */
static int ia_vfio_ftrace_register(char *why, size_t len)
{
	int ret;

	if (!ia_hooks_ftrace()) {
		snprintf(why, len, "hooks=%s", ia_hooks_mode());
		return -EPERM;
	}
	ret = ia_fentry_register(&ia_vfio_fset, why, len);
	if (ret)
		return ret;
	ret = ia_wrap_register(&ia_vfio_wrap_ioctl, why, len);
	if (ret)
		ia_fentry_unregister(&ia_vfio_fset);
	return ret;
}

/* Mechanism 2; 0 or -errno with the failing symbol in @what. */
static int ia_vfio_kprobes_register(const char **what)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(ia_vfio_kprobes); i++)
		ia_vfio_kprobe_reset(ia_vfio_kprobes[i]);
	ia_vfio_kretprobe_reset(&ia_vfio_krp_ioctl);
	ret = register_kretprobe(&ia_vfio_krp_ioctl);
	if (ret) {
		*what = ia_vfio_krp_ioctl.kp.symbol_name;
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(ia_vfio_kprobes); i++) {
		ret = register_kprobe(ia_vfio_kprobes[i]);
		if (ret) {
			*what = ia_vfio_kprobes[i]->symbol_name;
			if (i)
				unregister_kprobes((struct kprobe **)ia_vfio_kprobes, i);
			unregister_kretprobe(&ia_vfio_krp_ioctl);
			return ret;
		}
	}
	return 0;
}

/* "kprobes on vfio_iommu_type1 (ftrace: WHY)", in place of @why. */
static void ia_vfio_fallback_detail(char *why, size_t len)
{
	char tmp[96];

	strscpy(tmp, why, sizeof(tmp));
	snprintf(why, len, "kprobes on " IA_TYPE1 " (ftrace: %s)", tmp);
}

/* Attach to vfio_iommu_type1 if it is loaded; a missing symbol is reported. */
static void ia_vfio_hooks_attach_locked(struct module *mod)
{
	char why[160] = "";
	const char *what = "";
	int i, nk, ret;

	if (ia_vfio_attached)
		return;
	/* Re-registration needs clean structures. */
	for (i = 0; i < ARRAY_SIZE(ia_vfio_kretprobes); i++)
		ia_vfio_kretprobe_reset(ia_vfio_kretprobes[i]);
	ia_vfio_dma_entry_limit =
		(unsigned int *)ia_kallsyms_lookup_name(IA_TYPE1 ":dma_entry_limit");
	for (nk = 0; nk < ARRAY_SIZE(ia_vfio_kretprobes); nk++) {
		ret = register_kretprobe(ia_vfio_kretprobes[nk]);
		if (ret) {
			what = ia_vfio_kretprobes[nk]->kp.symbol_name;
			goto err_kret;
		}
	}
	ia_vfio_use_ftrace = !ia_vfio_ftrace_register(why, sizeof(why));
	if (!ia_vfio_use_ftrace) {
		ret = ia_vfio_kprobes_register(&what);
		if (ret)
			goto err_kret;
	}
	ia_vfio_attached = true;
	ia_vfio_type1_mod = mod ? mod :
		(struct module *)ia_kallsyms_lookup_name(IA_TYPE1 ":__this_module");
	if (ia_vfio_use_ftrace)
		strscpy(why, "ftrace hooks (MAP_DMA wrapped) on " IA_TYPE1, sizeof(why));
	else
		ia_vfio_fallback_detail(why, sizeof(why));
	ia_feature_set(IA_FEAT_VFIO_TYPE1, true, "%s%s%s", why,
		       ia_vfio_dma_entry_limit ? "" : "; dma_entry_limit not found: limit reads 0",
		       ia_vfio_type1_mod ? "" :
		       "; module not found: untracked containers not counted");
	return;

err_kret:
	if (nk)
		unregister_kretprobes((struct kretprobe **)ia_vfio_kretprobes, nk);
	ia_vfio_dma_entry_limit = NULL;
	if (what == ia_vfio_krp_open.kp.symbol_name && ret == -ENOENT)
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
			       IA_TYPE1 " not loaded: hooks attach when it loads");
	else
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false, "probe on %s failed (%d)", what, ret);
}

static int ia_vfio_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, IA_TYPE1))
		return NOTIFY_DONE;
	mutex_lock(&ia_vfio_attach_mutex);
	if (action == MODULE_STATE_LIVE)
		ia_vfio_hooks_attach_locked(mod);
	else if (action == MODULE_STATE_GOING)
		ia_vfio_hooks_detach_locked();
	mutex_unlock(&ia_vfio_attach_mutex);
	return NOTIFY_OK;
}

static struct notifier_block ia_vfio_module_nb = {
	.notifier_call = ia_vfio_module_notify,
};

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
	u64 missed = READ_ONCE(ia_vfio_krp_ioctl.nmissed);
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
	struct ia_event ev[IA_LEVEL_COUNT];
	struct ia_vfio_container *c;
	unsigned long flags;
	unsigned int nev;
	int bkt;

	spin_lock_irqsave(&ia_vfio_lock, flags);
	ia_vfio_th = *t;
	hash_for_each(ia_vfio_containers, bkt, c, hnode) {
		ia_vfio_thresholds_down(c);
		nev = ia_vfio_thresholds_up(c, ev, &c->info.owner);
		ia_vfio_queue_all(ev, nev);
	}
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

/* --- init / exit ------------------------------------------------------------------- */

int ia_vfio_init(void)
{
	int ret;

	ia_vfio_dma_cache = KMEM_CACHE(ia_vfio_dma, 0);
	if (!ia_vfio_dma_cache)
		return -ENOMEM;
	ia_feature_set(IA_FEAT_VFIO_GROUPS, true, "PCI devices with an IOMMU group");
	ia_feature_set(IA_FEAT_IOMMUFD, false, IS_ENABLED(CONFIG_IOMMUFD) ?
		       "iommufd accounting is not implemented yet" :
		       "CONFIG_IOMMUFD is not set in this kernel");
	ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
		       IA_TYPE1 " not loaded: hooks attach when it loads");
	ret = register_module_notifier(&ia_vfio_module_nb);
	if (ret) {
		kmem_cache_destroy(ia_vfio_dma_cache);
		return ret;
	}
	mutex_lock(&ia_vfio_attach_mutex);
	ia_vfio_hooks_attach_locked(NULL);
	mutex_unlock(&ia_vfio_attach_mutex);
	return 0;
}

void ia_vfio_exit(void)
{
	unregister_module_notifier(&ia_vfio_module_nb);
	mutex_lock(&ia_vfio_attach_mutex);
	ia_vfio_hooks_detach_locked();
	mutex_unlock(&ia_vfio_attach_mutex);
	cancel_delayed_work_sync(&ia_vfio_flush_work);
	kmem_cache_destroy(ia_vfio_dma_cache);
}
