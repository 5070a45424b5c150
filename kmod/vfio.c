// SPDX-License-Identifier: GPL-2.0
/*
 * VFIO type1 containers and the IOMMU groups attached to them.
 *
 * struct vfio_iommu and struct vfio_dma are private to vfio_iommu_type1.c, so
 * nothing here reads them. The hooks use function arguments and return values
 * only, on functions that exist as symbols on every kernel of the matrix
 * (Debian 6.1, 6.12, 7.3; see Documentation/design.md):
 *
 *   vfio_iommu_type1_open      return: a new container (struct vfio_iommu *);
 *                              its dma_avail was just set to dma_entry_limit
 *   vfio_iommu_type1_release   return: the container is gone
 *   vfio_iommu_type1_ioctl     MAP_DMA / UNMAP_DMA results; the caller's
 *                              struct is read back at return (the kernel has
 *                              just read it, so it is resident)
 *   vfio_remove_dma            the one place an entry leaves (unmap, release)
 *   mm_lock_acct               pages charged to a mapper's mm->locked_vm
 *   vfio_iommu_type1_attach_group / _detach_group   group membership
 *
 * One successful MAP_DMA without VFIO_DMA_MAP_FLAG_VADDR creates exactly one
 * entry (dma_avail--); each vfio_remove_dma() frees one (dma_avail++). So
 * entries == limit - DMA_AVAIL, which the selftests check.
 *
 * Probe handlers run in atomic context: state is under one irq-safe spinlock,
 * allocations are GFP_ATOMIC, and events are queued here and multicast from
 * a work item.
 */
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
#include <uapi/linux/iommu_account.h>

#include "ia.h"
#include "wrapper/kallsyms.h"

#define IA_TYPE1 "vfio_iommu_type1"

struct ia_container {
	struct hlist_node hnode;	/* ia_containers, by iommu */
	void *iommu;			/* struct vfio_iommu *, never dereferenced */
	struct ia_container_info info;
	u32 armed;			/* threshold levels crossed, bit per level */
};

static DEFINE_SPINLOCK(ia_lock);
static DEFINE_HASHTABLE(ia_containers, 6);
static u32 ia_next_id = 1;
static u32 ia_warn = 800, ia_crit = 950;
static unsigned int *ia_dma_entry_limit;

void ia_owner_current(struct ia_owner *o)
{
	o->pid = task_tgid_nr(current);
	o->uid = current_uid();
	get_task_comm(o->comm, current);
}

/* --- events ------------------------------------------------------------ */

#define IA_EVQ_LEN 256
static DEFINE_SPINLOCK(ia_evq_lock);
static struct ia_event ia_evq[IA_EVQ_LEN];
static unsigned int ia_evq_head, ia_evq_len;
static u64 ia_ev_seq, ia_ev_dropped;
static void ia_ev_workfn(struct work_struct *w);
static DECLARE_WORK(ia_ev_work, ia_ev_workfn);

/* Give @ev its sequence number and queue it; never sleeps. */
static void ia_event_queue(struct ia_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_evq_lock, flags);
	ev->seq = ++ia_ev_seq;
	if (ia_evq_len == IA_EVQ_LEN) {
		ia_ev_dropped++;
	} else {
		ia_evq[(ia_evq_head + ia_evq_len) % IA_EVQ_LEN] = *ev;
		ia_evq_len++;
	}
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	schedule_work(&ia_ev_work);
}

static void ia_ev_workfn(struct work_struct *w)
{
	struct ia_event *ev;
	unsigned long flags;

	ev = kmalloc(sizeof(*ev), GFP_KERNEL);
	for (;;) {
		spin_lock_irqsave(&ia_evq_lock, flags);
		if (!ia_evq_len) {
			spin_unlock_irqrestore(&ia_evq_lock, flags);
			break;
		}
		if (ev)
			*ev = ia_evq[ia_evq_head];
		else
			ia_ev_dropped++;
		ia_evq_head = (ia_evq_head + 1) % IA_EVQ_LEN;
		ia_evq_len--;
		spin_unlock_irqrestore(&ia_evq_lock, flags);
		if (ev)
			ia_netlink_event(ev);
	}
	kfree(ev);
}

u64 ia_events_dropped(void)
{
	unsigned long flags;
	u64 v;

	spin_lock_irqsave(&ia_evq_lock, flags);
	v = ia_ev_dropped;
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	return v;
}

static void ia_event_fill(struct ia_event *ev, const struct ia_container *c,
			  enum ia_event_type type)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->time_ns = ktime_get_real_ns();
	ev->container = c->info.id;
	ev->ngroups = c->info.ngroups;
	memcpy(ev->groups, c->info.groups, sizeof(ev->groups));
	ev->entries = c->info.entries;
	ev->limit = c->info.limit;
	ia_owner_current(&ev->who);
}

/* --- container table (ia_lock held) -------------------------------------- */

static struct ia_container *ia_find(void *iommu)
{
	struct ia_container *c;

	hash_for_each_possible(ia_containers, c, hnode, (unsigned long)iommu)
		if (c->iommu == iommu)
			return c;
	return NULL;
}

/* Smallest entry count at or above @pm per mille of the limit. */
static u64 ia_threshold_entries(const struct ia_container *c, u32 pm)
{
	return DIV_ROUND_UP((u64)c->info.limit * pm, 1000);
}

/*
 * After an entry was added: raise an event for each level the count reached
 * that was not already raised (a level re-arms once the count falls below it).
 */
static void ia_thresholds_up(struct ia_container *c, struct ia_event *ev,
			     unsigned int *nev)
{
	const u32 pm[2] = { ia_warn, ia_crit };
	const u32 lvl[2] = { IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN,
			     IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT };
	int i;

	if (!c->info.limit)
		return;
	for (i = 0; i < 2; i++) {
		if (c->info.entries < ia_threshold_entries(c, pm[i]) ||
		    (c->armed & BIT(i)))
			continue;
		c->armed |= BIT(i);
		ia_event_fill(&ev[*nev], c, IA_EV_THRESHOLD);
		ev[*nev].level = lvl[i];
		ev[*nev].threshold = pm[i];
		(*nev)++;
	}
}

/* After an entry left: re-arm the levels the count fell below. */
static void ia_thresholds_down(struct ia_container *c)
{
	if (c->info.entries < ia_threshold_entries(c, ia_warn))
		c->armed &= ~BIT(0);
	if (c->info.entries < ia_threshold_entries(c, ia_crit))
		c->armed &= ~BIT(1);
}

/* --- probes ------------------------------------------------------------- */

/* ioctls and releases in flight, so mm_lock_acct knows its container. */
struct ia_active {
	struct list_head node;
	struct task_struct *task;
	void *iommu;
};

static LIST_HEAD(ia_active_list);

struct ia_ioctl_data {
	struct ia_active act;
	unsigned int cmd;
	unsigned long arg;
};

static void ia_active_add(struct ia_active *a, void *iommu)
{
	unsigned long flags;

	a->task = current;
	a->iommu = iommu;
	spin_lock_irqsave(&ia_lock, flags);
	list_add(&a->node, &ia_active_list);
	spin_unlock_irqrestore(&ia_lock, flags);
}

static void ia_active_del(struct ia_active *a)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_lock, flags);
	list_del(&a->node);
	spin_unlock_irqrestore(&ia_lock, flags);
}

static int ia_open_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	void *iommu = (void *)regs_return_value(regs);
	struct ia_container *c;
	unsigned long flags;

	if (IS_ERR_OR_NULL(iommu))
		return 0;
	c = kzalloc(sizeof(*c), GFP_ATOMIC);
	if (!c)
		return 0;
	c->iommu = iommu;
	c->info.limit = ia_dma_entry_limit ? READ_ONCE(*ia_dma_entry_limit) : 0;
	ia_owner_current(&c->info.owner);
	spin_lock_irqsave(&ia_lock, flags);
	c->info.id = ia_next_id++;
	hash_add(ia_containers, &c->hnode, (unsigned long)iommu);
	spin_unlock_irqrestore(&ia_lock, flags);
	return 0;
}

static int ia_release_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(void **)ri->data = (void *)regs_get_kernel_argument(regs, 0);
	return 0;
}

static int ia_release_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_container *c;
	unsigned long flags;

	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(*(void **)ri->data);
	if (c)
		hash_del(&c->hnode);
	spin_unlock_irqrestore(&ia_lock, flags);
	kfree(c);
	return 0;
}

static int ia_ioctl_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_ioctl_data *d = (struct ia_ioctl_data *)ri->data;

	d->cmd = regs_get_kernel_argument(regs, 1);
	if (d->cmd != VFIO_IOMMU_MAP_DMA && d->cmd != VFIO_IOMMU_UNMAP_DMA)
		return 1;	/* no return handler for this call */
	d->arg = regs_get_kernel_argument(regs, 2);
	ia_active_add(&d->act, (void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

static int ia_errno_class(int err)
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

static void ia_map_done(struct ia_ioctl_data *d, long ret)
{
	struct vfio_iommu_type1_dma_map map = {};
	struct ia_event ev[3];
	struct ia_container *c;
	unsigned long flags;
	unsigned int i, nev = 0;
	bool have;

	have = !copy_from_user_nofault(&map, (void __user *)d->arg, sizeof(map));
	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(d->act.iommu);
	if (!c)
		goto out;
	if (!ret) {
		if (have && (map.flags & VFIO_DMA_MAP_FLAG_VADDR))
			goto out;	/* a vaddr update: no new entry */
		c->info.entries++;
		c->info.map_ops++;
		c->info.mapped_bytes += have ? map.size : 0;
		ia_thresholds_up(c, ev, &nev);
		goto out;
	}
	c->info.fail[ia_errno_class(-ret)]++;
	c->info.has_last = true;
	c->info.last = (struct ia_failure){
		.time_ns = ktime_get_real_ns(),
		.err = -ret,
		.iova = have ? map.iova : 0,
		.size = have ? map.size : 0,
	};
	ia_owner_current(&c->info.last.who);
	ia_event_fill(&ev[0], c, IA_EV_FAILURE);
	ev[0].err = -ret;
	ev[0].iova = c->info.last.iova;
	ev[0].size = c->info.last.size;
	if (current->mm)
		ev[0].locked_bytes = (u64)READ_ONCE(current->mm->locked_vm) << PAGE_SHIFT;
	ev[0].memlock = rlimit(RLIMIT_MEMLOCK);
	if (ev[0].memlock == RLIM_INFINITY)
		ev[0].memlock = U64_MAX;
	nev = 1;
out:
	spin_unlock_irqrestore(&ia_lock, flags);
	for (i = 0; i < nev; i++)
		ia_event_queue(&ev[i]);
}

static void ia_unmap_done(struct ia_ioctl_data *d, long ret)
{
	struct vfio_iommu_type1_dma_unmap unmap = {};
	struct ia_container *c;
	unsigned long flags;
	bool have;

	if (ret)
		return;
	/* The kernel wrote the unmapped size back into the caller's struct. */
	have = !copy_from_user_nofault(&unmap, (void __user *)d->arg, sizeof(unmap));
	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(d->act.iommu);
	if (c) {
		c->info.unmap_ops++;
		if (have)
			c->info.mapped_bytes -= unmap.size;
	}
	spin_unlock_irqrestore(&ia_lock, flags);
}

static int ia_ioctl_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_ioctl_data *d = (struct ia_ioctl_data *)ri->data;
	long ret = (long)regs_return_value(regs);

	ia_active_del(&d->act);
	if (d->cmd == VFIO_IOMMU_MAP_DMA)
		ia_map_done(d, ret);
	else
		ia_unmap_done(d, ret);
	return 0;
}

static int ia_remove_dma_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ia_container *c;
	unsigned long flags;

	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find((void *)regs_get_kernel_argument(regs, 0));
	if (c && c->info.entries) {
		c->info.entries--;
		ia_thresholds_down(c);
	}
	spin_unlock_irqrestore(&ia_lock, flags);
	return 0;
}

struct ia_acct_data {
	void *iommu;
	long npage;
	kuid_t uid;
};

static int ia_acct_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_acct_data *d = (struct ia_acct_data *)ri->data;
	struct task_struct *task = (void *)regs_get_kernel_argument(regs, 0);
	struct ia_active *a;
	unsigned long flags;

	d->iommu = NULL;
	spin_lock_irqsave(&ia_lock, flags);
	list_for_each_entry(a, &ia_active_list, node)
		if (a->task == current) {
			d->iommu = a->iommu;
			break;
		}
	spin_unlock_irqrestore(&ia_lock, flags);
	if (!d->iommu)
		return 1;
	d->npage = (long)regs_get_kernel_argument(regs, 3);
	d->uid = task ? task_uid(task) : GLOBAL_ROOT_UID;
	return 0;
}

static int ia_acct_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_acct_data *d = (struct ia_acct_data *)ri->data;
	struct ia_container *c;
	unsigned long flags;

	if (regs_return_value(regs))
		return 0;
	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(d->iommu);
	if (c) {
		c->info.pinned_pages += d->npage;
		c->info.pinned_uid = d->uid;
		c->info.has_pinned_uid = true;
	}
	spin_unlock_irqrestore(&ia_lock, flags);
	return 0;
}

struct ia_attach_data {
	void *iommu;
	u32 group;
};

static int ia_attach_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_attach_data *d = (struct ia_attach_data *)ri->data;

	d->iommu = (void *)regs_get_kernel_argument(regs, 0);
	d->group = iommu_group_id((struct iommu_group *)regs_get_kernel_argument(regs, 1));
	return 0;
}

static int ia_attach_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ia_attach_data *d = (struct ia_attach_data *)ri->data;
	struct ia_container *c;
	unsigned long flags;
	unsigned int n;

	if (regs_return_value(regs))
		return 0;
	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(d->iommu);
	if (c && c->info.ngroups < IA_MAX_GROUPS) {
		n = c->info.ngroups++;
		c->info.groups[n] = d->group;
		ia_owner_current(&c->info.group_owner[n]);
	}
	spin_unlock_irqrestore(&ia_lock, flags);
	return 0;
}

static int ia_detach_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *iommu = (void *)regs_get_kernel_argument(regs, 0);
	u32 group = iommu_group_id((struct iommu_group *)regs_get_kernel_argument(regs, 1));
	struct ia_container *c;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&ia_lock, flags);
	c = ia_find(iommu);
	for (i = 0; c && i < c->info.ngroups; i++) {
		if (c->info.groups[i] != group)
			continue;
		c->info.ngroups--;
		c->info.groups[i] = c->info.groups[c->info.ngroups];
		c->info.group_owner[i] = c->info.group_owner[c->info.ngroups];
		break;
	}
	spin_unlock_irqrestore(&ia_lock, flags);
	return 0;
}

static struct kretprobe ia_krp_open = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_open",
	.handler = ia_open_ret,
	.maxactive = 32,
};

static struct kretprobe ia_krp_release = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_release",
	.entry_handler = ia_release_entry,
	.handler = ia_release_ret,
	.data_size = sizeof(void *),
	.maxactive = 32,
};

static struct kretprobe ia_krp_ioctl = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_ioctl",
	.entry_handler = ia_ioctl_entry,
	.handler = ia_ioctl_ret,
	.data_size = sizeof(struct ia_ioctl_data),
	.maxactive = 256,
};

static struct kretprobe ia_krp_acct = {
	.kp.symbol_name = IA_TYPE1 ":mm_lock_acct",
	.entry_handler = ia_acct_entry,
	.handler = ia_acct_ret,
	.data_size = sizeof(struct ia_acct_data),
	.maxactive = 256,
};

static struct kretprobe ia_krp_attach = {
	.kp.symbol_name = IA_TYPE1 ":vfio_iommu_type1_attach_group",
	.entry_handler = ia_attach_entry,
	.handler = ia_attach_ret,
	.data_size = sizeof(struct ia_attach_data),
	.maxactive = 32,
};

static struct kprobe ia_kp_remove = {
	.symbol_name = IA_TYPE1 ":vfio_remove_dma",
	.pre_handler = ia_remove_dma_pre,
};

static struct kprobe ia_kp_detach = {
	.symbol_name = IA_TYPE1 ":vfio_iommu_type1_detach_group",
	.pre_handler = ia_detach_pre,
};

static struct kretprobe *const ia_kretprobes[] = {
	&ia_krp_open, &ia_krp_release, &ia_krp_attach, &ia_krp_acct, &ia_krp_ioctl,
};

static struct kprobe *const ia_kprobes[] = { &ia_kp_remove, &ia_kp_detach };

static DEFINE_MUTEX(ia_attach_mutex);
static bool ia_attached;

u64 ia_probes_missed(void)
{
	u64 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(ia_kretprobes); i++)
		n += ia_kretprobes[i]->nmissed;
	for (i = 0; i < ARRAY_SIZE(ia_kprobes); i++)
		n += ia_kprobes[i]->nmissed;
	return n;
}

static void ia_hooks_detach_locked(void)
{
	struct ia_container *c;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	if (!ia_attached)
		return;
	unregister_kprobes((struct kprobe **)ia_kprobes, ARRAY_SIZE(ia_kprobes));
	unregister_kretprobes((struct kretprobe **)ia_kretprobes, ARRAY_SIZE(ia_kretprobes));
	ia_attached = false;
	spin_lock_irqsave(&ia_lock, flags);
	hash_for_each_safe(ia_containers, bkt, tmp, c, hnode) {
		hash_del(&c->hnode);
		kfree(c);
	}
	INIT_LIST_HEAD(&ia_active_list);
	spin_unlock_irqrestore(&ia_lock, flags);
	ia_dma_entry_limit = NULL;
	ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
		       IA_TYPE1 " not loaded: hooks attach when it loads");
}

/* Attach to vfio_iommu_type1 if it is loaded; a missing symbol is reported. */
static void ia_hooks_attach_locked(void)
{
	const char *what = "";
	int i, ret;

	if (ia_attached)
		return;
	/* Re-registration needs clean structures. */
	for (i = 0; i < ARRAY_SIZE(ia_kretprobes); i++) {
		struct kretprobe *rp = ia_kretprobes[i];
		const char *sym = rp->kp.symbol_name;

		memset(&rp->kp, 0, sizeof(rp->kp));
		rp->kp.symbol_name = sym;
		rp->nmissed = 0;
	}
	for (i = 0; i < ARRAY_SIZE(ia_kprobes); i++) {
		struct kprobe *kp = ia_kprobes[i];
		const char *sym = kp->symbol_name;
		kprobe_pre_handler_t pre = kp->pre_handler;

		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = sym;
		kp->pre_handler = pre;
	}
	ia_dma_entry_limit = (unsigned int *)ia_kallsyms_lookup_name(IA_TYPE1 ":dma_entry_limit");
	for (i = 0; i < ARRAY_SIZE(ia_kretprobes); i++) {
		ret = register_kretprobe(ia_kretprobes[i]);
		if (ret) {
			what = ia_kretprobes[i]->kp.symbol_name;
			goto err_kret;
		}
	}
	for (i = 0; i < ARRAY_SIZE(ia_kprobes); i++) {
		ret = register_kprobe(ia_kprobes[i]);
		if (ret) {
			what = ia_kprobes[i]->symbol_name;
			goto err_kp;
		}
	}
	ia_attached = true;
	if (ia_dma_entry_limit)
		ia_feature_set(IA_FEAT_VFIO_TYPE1, true, "kprobes on " IA_TYPE1);
	else
		ia_feature_set(IA_FEAT_VFIO_TYPE1, true,
			       "kprobes on " IA_TYPE1 "; dma_entry_limit not found: limit reads 0");
	return;

err_kp:
	if (i)
		unregister_kprobes((struct kprobe **)ia_kprobes, i);
	i = ARRAY_SIZE(ia_kretprobes);
err_kret:
	if (i)
		unregister_kretprobes((struct kretprobe **)ia_kretprobes, i);
	ia_dma_entry_limit = NULL;
	if (what == ia_krp_open.kp.symbol_name && ret == -ENOENT)
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
			       IA_TYPE1 " not loaded: hooks attach when it loads");
	else
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false, "probe on %s failed (%d)", what, ret);
}

static int ia_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, IA_TYPE1))
		return NOTIFY_DONE;
	mutex_lock(&ia_attach_mutex);
	if (action == MODULE_STATE_LIVE)
		ia_hooks_attach_locked();
	else if (action == MODULE_STATE_GOING)
		ia_hooks_detach_locked();
	mutex_unlock(&ia_attach_mutex);
	return NOTIFY_OK;
}

static struct notifier_block ia_module_nb = {
	.notifier_call = ia_module_notify,
};

/* --- snapshots for netlink ---------------------------------------------- */

static int ia_info_cmp(const void *a, const void *b)
{
	u32 x = ((const struct ia_container_info *)a)->id;
	u32 y = ((const struct ia_container_info *)b)->id;

	return x < y ? -1 : x > y;
}

struct ia_container_snap *ia_container_snapshot(bool filter, u32 id,
						bool uid_filter, kuid_t uid)
{
	struct ia_container_snap *snap;
	struct ia_container *c;
	unsigned int cap = 0, n;
	unsigned long flags;
	int bkt;

	for (;;) {
		snap = kvmalloc(struct_size(snap, c, cap), GFP_KERNEL);
		if (!snap)
			return ERR_PTR(-ENOMEM);
		n = 0;
		spin_lock_irqsave(&ia_lock, flags);
		hash_for_each(ia_containers, bkt, c, hnode) {
			if (filter && c->info.id != id)
				continue;
			if (uid_filter && !uid_eq(c->info.owner.uid, uid))
				continue;
			if (n < cap)
				snap->c[n] = c->info;
			n++;
		}
		spin_unlock_irqrestore(&ia_lock, flags);
		if (n <= cap)
			break;
		kvfree(snap);
		cap = n + 8;
	}
	snap->nr = n;
	sort(snap->c, n, sizeof(snap->c[0]), ia_info_cmp, NULL);
	return snap;
}

struct ia_group_walk {
	struct ia_group_dev *dev;
	unsigned int n, cap;
};

static int ia_group_dev_fn(struct device *dev, void *data)
{
	struct ia_group_walk *w = data;
	struct pci_dev *pdev = to_pci_dev(dev);
	struct iommu_group *grp;
	struct ia_group_dev *d;
	const char *drv;

	grp = iommu_group_get(dev);
	if (!grp)
		return 0;
	if (w->n < w->cap) {
		d = &w->dev[w->n];
		d->group = iommu_group_id(grp);
		strscpy(d->address, pci_name(pdev), sizeof(d->address));
		d->vendor = pdev->vendor;
		d->device = pdev->device;
		drv = READ_ONCE(dev->driver) ? dev_driver_string(dev) : "";
		strscpy(d->driver, drv, sizeof(d->driver));
	}
	w->n++;
	iommu_group_put(grp);
	return 0;
}

static int ia_group_dev_cmp(const void *a, const void *b)
{
	const struct ia_group_dev *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->address, y->address);
}

struct ia_group_snap *ia_group_snapshot(void)
{
	struct ia_group_walk w = { .cap = 64 };
	struct ia_group_snap *g;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	for (;;) {
		w.dev = kvcalloc(w.cap, sizeof(*w.dev), GFP_KERNEL);
		if (!w.dev)
			goto nomem;
		w.n = 0;
		bus_for_each_dev(&pci_bus_type, NULL, &w, ia_group_dev_fn);
		if (w.n <= w.cap)
			break;
		kvfree(w.dev);
		w.cap = w.n + 16;
	}
	sort(w.dev, w.n, sizeof(*w.dev), ia_group_dev_cmp, NULL);
	g->dev = w.dev;
	g->ndev = w.n;
	g->containers = ia_container_snapshot(false, 0, false, GLOBAL_ROOT_UID);
	if (IS_ERR(g->containers)) {
		g->containers = NULL;
		goto nomem;
	}
	return g;
nomem:
	ia_group_snap_free(g);
	return ERR_PTR(-ENOMEM);
}

void ia_group_snap_free(struct ia_group_snap *g)
{
	if (!g)
		return;
	kvfree(g->dev);
	kvfree(g->containers);
	kfree(g);
}

void ia_thresholds_get(u32 *warn, u32 *crit)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_lock, flags);
	*warn = ia_warn;
	*crit = ia_crit;
	spin_unlock_irqrestore(&ia_lock, flags);
}

void ia_thresholds_set(u32 warn, u32 crit)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_lock, flags);
	ia_warn = warn;
	ia_crit = crit;
	spin_unlock_irqrestore(&ia_lock, flags);
}

/* --- init / exit --------------------------------------------------------- */

int ia_vfio_init(void)
{
	int ret;

	ia_feature_set(IA_FEAT_VFIO_GROUPS, true, "PCI devices with an IOMMU group");
	ia_feature_set(IA_FEAT_IOMMUFD, false, IS_ENABLED(CONFIG_IOMMUFD) ?
		       "iommufd accounting is not implemented yet" :
		       "CONFIG_IOMMUFD is not set in this kernel");
	ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
		       IA_TYPE1 " not loaded: hooks attach when it loads");
	ret = register_module_notifier(&ia_module_nb);
	if (ret)
		return ret;
	mutex_lock(&ia_attach_mutex);
	ia_hooks_attach_locked();
	mutex_unlock(&ia_attach_mutex);
	return 0;
}

void ia_vfio_exit(void)
{
	unregister_module_notifier(&ia_module_nb);
	mutex_lock(&ia_attach_mutex);
	ia_hooks_detach_locked();
	mutex_unlock(&ia_attach_mutex);
	cancel_work_sync(&ia_ev_work);
}
