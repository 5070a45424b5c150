// SPDX-License-Identifier: GPL-2.0
/*
 * The iommufd consumer of the per-uid pot: the pages an IOAS mapping pins.
 * Each IOMMU_IOAS_MAP makes one pages object (struct iopt_pages; the areas
 * IOMMU_IOAS_COPY makes share it), and iommufd charges what that object
 * pins, once however many domains and accesses use the pages, when it pins
 * them and uncharges when it unpins them.
 *
 * iommufd's structures are private to drivers/iommu/iommufd/ (no headers
 * package has them), so none of their fields is read: only the functions'
 * arguments, their return values, and which function the kernel called.
 *  - iopt_alloc_pages(uptr, length, writable), on return: an object made
 *    for the current user, whose pins go to that user's pot unless the
 *    caller has CAP_IPC_LOCK (the kernel's own test there, repeated without
 *    audit), then to no counter. Recorded under the returned pointer with
 *    the current process as its owner.
 *  - do_update_pinned(pages, npages, inc, user), on return: the one place a
 *    pin count is charged or uncharged, and its result: -ENOMEM when the
 *    pot (user mode) or the process's locked_vm (mm mode) would pass the
 *    mapper's RLIMIT_MEMLOCK.
 *  - __account_locked_vm(mm, pages, inc, task, bypass), on entry, when it is
 *    called inside do_update_pinned on the same task: the object's context
 *    accounts per process (IOMMU_OPTION_RLIMIT_MODE 1, or the /dev/vfio/vfio
 *    container iommufd provides), so its pins go to the mapping process's
 *    mm->locked_vm instead (update_mm_locked_vm, inlined on the lab kernel,
 *    calls it; user mode charges the pot inline). A context's mode is copied
 *    to the object before it pins anything, so the first pin says it. Other
 *    callers (VFIO type1 among them) are passed over at the cost of one
 *    atomic read while no do_update_pinned call is in flight.
 *  - iopt_release_pages(kref), on entry: the object goes (the kref is its
 *    first member; a record never matched is replaced when the address is
 *    reused).
 * Objects made before the module loaded are not recorded: what they pin is
 * in the pot's unattributed part.
 *
 * Devices bound to an iommufd context (through the VFIO cdev), for the
 * group listing and the reset survey: iommufd_device_bind(ictx, dev, id)
 * returning the binding, by whom, and iommufd_device_unbind(idev). A device
 * bound before the module loaded is not known (the group shows no holder).
 * All six hooks are required.
 *
 * Locking: memlock.h; the calls in flight are under ia_ml_lock too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include "memlock.h"

bool ia_ml_iommufd_on;

#if IS_BUILTIN(CONFIG_IOMMUFD)
#define IA_IOMMUFD_SYM(f) f
#else
#define IA_IOMMUFD_SYM(f) "iommufd:" f
#endif

#if IS_ENABLED(CONFIG_IOMMUFD)

/* Per call of iopt_alloc_pages: the mode its caller gets. */
struct ia_ml_fd_alloc {
	enum ia_ml_mode mode;
};

/* Per call of do_update_pinned, in flight on its task. */
struct ia_ml_fd_pin {
	struct ia_call call;
	const void *pages;
	u64 npages;
	bool inc;
	bool mm;		/* it called __account_locked_vm: mm mode */
};

static struct ia_calls ia_ml_fd_calls;

/* One device bound to an iommufd context: by whom. */
struct ia_fd_dev {
	struct hlist_node hnode;	/* by binding */
	const void *idev;
	char name[32];			/* dev_name(): a PCI address */
	struct ia_owner owner;		/* the binding process */
};

static DEFINE_HASHTABLE(ia_fd_devs, 4);
static DEFINE_SPINLOCK(ia_fd_dev_lock);	/* a leaf: the bindings only */

static bool ia_ml_fd_alloc_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_ml_fd_alloc *d = data;

	if (!READ_ONCE(ia_ml_iommufd_on))
		return false;
	/* iopt_alloc_pages: capable(CAP_IPC_LOCK) ? ACCOUNT_NONE : ACCOUNT_USER. */
	d->mode = ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK) ? IA_ML_EXEMPT : IA_ML_POT;
	return true;
}

static void ia_ml_fd_alloc_ret(void *data, unsigned long rv)
{
	struct ia_ml_fd_alloc *d = data;
	const void *pages = (const void *)rv;
	struct ia_ml_rec *r;
	unsigned long flags;

	if (IS_ERR_OR_NULL(pages))
		return;
	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting)
		goto out;
	r = ia_ml_rec_of(pages);
	if (r) {
		/* An object at the address of one whose release we did not see. */
		if (r->pages)
			ia_ml_flag(r->uid, IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED);
		r->keep = false;
		ia_ml_release(r, r->pages);
	}
	r = ia_ml_rec_new(pages, NULL, current_uid(), IA_CONS_IOMMUFD);
	if (!r) {
		ia_ml_flag(current_uid(), IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
		goto out;
	}
	r->keep = true;
	r->mode = d->mode;
	r->user = current_user();
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* __account_locked_vm(mm, pages, inc, task, bypass): inside do_update_pinned, mm mode. */
static void ia_ml_fd_mm(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct ia_call *c;
	unsigned long flags;

	if (ia_calls_none(&ia_ml_fd_calls))
		return;		/* VFIO type1 and the others */
	spin_lock_irqsave(&ia_ml_lock, flags);
	c = ia_ml_exiting ? NULL : ia_call_find(&ia_ml_fd_calls, 0);
	if (c)
		container_of(c, struct ia_ml_fd_pin, call)->mm = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

static bool ia_ml_fd_pin_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_ml_fd_pin *d = data;
	unsigned long flags;
	bool on;

	if (!READ_ONCE(ia_ml_iommufd_on))
		return false;
	d->pages = (const void *)a[0];
	d->npages = a[1];
	d->inc = a[2] & 0xff;		/* a bool argument */
	d->mm = false;
	spin_lock_irqsave(&ia_ml_lock, flags);
	on = !ia_ml_exiting;
	if (on)
		ia_call_add(&ia_ml_fd_calls, &d->call, 0);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return on;
}

/* The pinning process's RLIMIT_MEMLOCK, else the current one's. */
static u64 ia_ml_fd_limit(const struct ia_ml_rec *r)
{
	struct task_struct *t;
	u64 limit;

	rcu_read_lock();
	t = pid_task(r->pid, PIDTYPE_TGID);
	limit = task_rlimit(t ? t : current, RLIMIT_MEMLOCK);
	rcu_read_unlock();
	return limit;
}

static void ia_ml_fd_pin_ret(void *data, unsigned long rv)
{
	struct ia_ml_fd_pin *d = data;
	int err = (int)rv;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting)
		goto out;	/* the calls in flight are forgotten at exit */
	ia_call_del(&ia_ml_fd_calls, &d->call);
	r = ia_ml_rec_of(d->pages);
	if (!r)
		goto out;	/* made before the module loaded: unattributed */
	if (d->mm && r->mode != IA_ML_MM) {
		/* The first pin of an object of a per-process context. */
		if (r->pages)
			ia_ml_flag(r->uid, IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED);
		r->mode = IA_ML_MM;
	}
	if (!d->inc) {
		if (!err)
			ia_ml_release(r, d->npages);
		goto out;
	}
	u = ia_ml_user_get(r->uid);
	if (!u) {
		ia_ml_flag(r->uid, IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
		goto out;
	}
	if (err) {
		/* The pot refused (user mode); mm mode's refusal is the process's own. */
		if (err == -ENOMEM && r->mode == IA_ML_POT)
			ia_ml_refused(u, IA_CONS_IOMMUFD, d->npages,
				      atomic_long_read(&r->user->locked_vm), ia_ml_fd_limit(r),
				      ENOMEM);
		goto out;
	}
	r->pages += d->npages;
	switch (r->mode) {
	case IA_ML_POT:
		u->charges++;
		u->pages[IA_CONS_IOMMUFD] += d->npages;
		ia_ml_thresholds(u, IA_CONS_IOMMUFD, d->npages,
				 atomic_long_read(&r->user->locked_vm), ia_ml_fd_limit(r));
		break;
	case IA_ML_MM:
		u->iommufd_mm_pages += d->npages;
		break;
	case IA_ML_EXEMPT:
		u->iommufd_exempt_pages += d->npages;
		break;
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* iopt_release_pages(kref): the object goes (its kref is its first member). */
static void ia_ml_fd_release(unsigned long a0, unsigned long a1, unsigned long a2,
			     unsigned long a3)
{
	if (READ_ONCE(ia_ml_iommufd_on))
		ia_ml_release_key((const void *)a0);
}

/* iommufd_device_bind(ictx, dev, id): the device, for the return. */
static bool ia_fd_bind_entry(void *data, const unsigned long *a, unsigned long caller)
{
	const struct device *dev = (const struct device *)a[1];

	if (!READ_ONCE(ia_ml_iommufd_on) || !dev)
		return false;
	*(const struct device **)data = dev;
	return true;
}

static void ia_fd_bind_ret(void *data, unsigned long rv)
{
	const struct device *dev = *(const struct device **)data;
	const void *idev = (const void *)rv;
	struct ia_fd_dev *b;
	unsigned long flags;

	if (IS_ERR_OR_NULL(idev))
		return;
	b = kzalloc(sizeof(*b), GFP_ATOMIC);
	if (!b)
		return;		/* the group shows no holder: as if bound before load */
	b->idev = idev;
	strscpy(b->name, dev_name(dev), sizeof(b->name));
	ia_owner_current(&b->owner);
	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_add(ia_fd_devs, &b->hnode, (unsigned long)idev);
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
}

/* iommufd_device_unbind(idev): the binding goes. */
static void ia_fd_unbind(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct ia_fd_dev *b;
	struct hlist_node *t;
	unsigned long flags;

	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_for_each_possible_safe(ia_fd_devs, b, t, hnode, a0)
		if (b->idev == (const void *)a0) {
			hash_del(&b->hnode);
			kfree(b);
		}
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
}

bool ia_iommufd_dev_owner(const char *name, struct ia_owner *o)
{
	struct ia_fd_dev *b;
	unsigned long flags;
	unsigned int bkt;
	bool found = false;

	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_for_each(ia_fd_devs, bkt, b, hnode)
		if (!strcmp(b->name, name)) {
			*o = b->owner;
			found = true;
			break;
		}
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
	return found;
}

IA_HOOK_RETURN(ia_fd_bind, "iommufd_device_bind", const struct device *, ia_fd_bind_entry,
	       ia_fd_bind_ret, 16);
IA_HOOK_ENTRY(ia_fd_unbind, "iommufd_device_unbind", ia_fd_unbind);
IA_HOOK_RETURN(ia_ml_fd_alloc, IA_IOMMUFD_SYM("iopt_alloc_pages"), struct ia_ml_fd_alloc,
	       ia_ml_fd_alloc_entry, ia_ml_fd_alloc_ret, 64);
IA_HOOK_RETURN(ia_ml_fd_pin, IA_IOMMUFD_SYM("do_update_pinned"), struct ia_ml_fd_pin,
	       ia_ml_fd_pin_entry, ia_ml_fd_pin_ret, 64);
IA_HOOK_ENTRY(ia_ml_fd_mm, "__account_locked_vm", ia_ml_fd_mm);
IA_HOOK_ENTRY(ia_ml_fd_release, IA_IOMMUFD_SYM("iopt_release_pages"), ia_ml_fd_release);

/*
 * In the order placed where each is a probe of its own: what ends or
 * changes a record before what counts in one, before what makes one.
 */
static struct ia_hook *ia_ml_iommufd_list[] = {
	&ia_ml_fd_release_hook, &ia_ml_fd_mm_hook, &ia_fd_unbind_hook, &ia_ml_fd_pin_hook,
	&ia_ml_fd_alloc_hook, &ia_fd_bind_hook,
};

struct ia_hook_set ia_ml_iommufd_hooks = {
	.name = "iommufd",
	.hooks = ia_ml_iommufd_list,
	.n = ARRAY_SIZE(ia_ml_iommufd_list),
};

void ia_ml_iommufd_want(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ia_ml_iommufd_list); i++)
		ia_ml_iommufd_list[i]->required = true;
}

/* After unregistration: the calls in flight will not return to us; no binding is kept. */
void ia_ml_iommufd_forget(void)
{
	struct ia_fd_dev *b;
	struct hlist_node *t;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_calls_forget(&ia_ml_fd_calls);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_for_each_safe(ia_fd_devs, bkt, t, b, hnode) {
		hash_del(&b->hnode);
		kfree(b);
	}
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
}

void ia_ml_iommufd_start(void)
{
	char mech[64];

	if (!ia_ml_iommufd_hooks.registered) {
		ia_feature_set(IA_FEAT_IOMMUFD, false, "%s: its pins are in unattributed",
			       ia_ml_iommufd_hooks.why);
		return;
	}
	WRITE_ONCE(ia_ml_iommufd_on, true);
	ia_hook_set_describe(&ia_ml_iommufd_hooks, mech, sizeof(mech));
	ia_feature_set(IA_FEAT_IOMMUFD, true,
		       "pins: iopt_alloc_pages, do_update_pinned, __account_locked_vm, iopt_release_pages; devices: iommufd_device_bind/unbind; hooks: %s",
		       mech);
}

#else

struct ia_hook_set ia_ml_iommufd_hooks = { .name = "iommufd" };

void ia_ml_iommufd_want(void)
{
}

void ia_ml_iommufd_start(void)
{
	ia_feature_set(IA_FEAT_IOMMUFD, false, "CONFIG_IOMMUFD is not set in this kernel");
}

void ia_ml_iommufd_forget(void)
{
}

bool ia_iommufd_dev_owner(const char *name, struct ia_owner *o)
{
	return false;
}

#endif
