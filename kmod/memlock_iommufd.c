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
 * These six hooks are required.
 *
 * The contexts (quota kind iommufd-ctx), each an opaque pointer the kernel
 * passes around, never dereferenced:
 *  - iommufd_fops_open(inode, file), on return: the context is
 *    file->private_data; on entry that was the misc device opened, whose
 *    name says whether it is /dev/vfio/vfio (the compat container);
 *  - iommufd_fops_release(inode, file), on entry: the context goes from the
 *    listing (its objects are destroyed after, their records keep it until
 *    then);
 *  - iommufd_fops_ioctl(file, cmd, arg), in flight: a pages object
 *    iopt_alloc_pages makes inside it (IOMMU_IOAS_MAP, or the compat
 *    container's VFIO_IOMMU_MAP_DMA) belongs to the file's context, mapped
 *    by the current process, which becomes the context's owner. (The
 *    function that takes the context, iopt_map_user_pages, has seven
 *    arguments: a wrapper passes four.)
 * These three are optional: without them pins are followed as before and
 * the kind is not offered. A context opened before the module loaded is
 * not listed; what it maps later is in the pot, not in a context.
 *
 * The IOAS of a listed context (its quota object's ioas nests), optional
 * too, all seven or none:
 *  - iommufd_get_object(ictx, id, type), on return inside an ioctl in
 *    flight: the object looked up by the id its caller gave;
 *  - iopt_map_pages(iopt, list, length, ...), on entry inside one: a map
 *    into the IOAS that embeds @iopt, the one looked up last when @iopt
 *    lies just past it (MAP; COPY looks up its destination last), else one
 *    whose id is not known (the compat container's);
 *  - iopt_area_fill_domains(area, pages) returning 0, inside that map: an
 *    area of the IOAS, with its pages object; iopt_area_unfill_domains
 *    (area, pages), on entry: it goes (unmapped, or a failed map undone).
 *    The map's length counts when an area it filled is still there at the
 *    ioctl's return;
 *  - iopt_unmap_iova(iopt, iova, length, unmapped) and iopt_unmap_all(iopt,
 *    unmapped), on return: the kernel's own count of the bytes unmapped;
 *  - iommufd_ioas_destroy(obj), on entry: the IOAS goes.
 * An IOAS's pinned figure is read from the records of the pages objects
 * its areas map, each once.
 *
 * Locking: ia_fd_lock guards iommufd's own state (contexts, IOAS, areas)
 * and, with their uid's part (memlock.h), its records: every change to one
 * is made under both, so iommufd reads its records' figures under its own
 * lock. The ledger takes it (the records' outer lock) before a part when it
 * releases one itself. The calls in flight are the hook set's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>

#include "memlock.h"
#include "source.h"

#if IS_BUILTIN(CONFIG_IOMMUFD)
#define IA_IOMMUFD_SYM(f) f
#else
#define IA_IOMMUFD_SYM(f) "iommufd:" f
#endif

#if IS_ENABLED(CONFIG_IOMMUFD)

static struct ia_hook_set ia_ml_iommufd_hooks;

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
static DEFINE_SPINLOCK(ia_fd_lock);

/* Kinds of calls in flight. */
enum { IA_FD_CALL_PIN, IA_FD_CALL_MAP };

/*
 * Per call of iommufd_fops_ioctl, in flight on its task: the object the
 * ioctl last looked up by the id its caller gave, and the io_pagetable
 * iopt_map_pages was called on in it (with its length, and how many areas
 * it has filled, less those it undid).
 */
struct ia_fd_map {
	struct ia_call call;
	const void *ictx;
	const void *obj;
	u32 obj_id;
	const void *iopt;
	u64 len;
	int net;
};

/*
 * One iommufd context, under ia_fd_lock. It is listed from its open to its
 * release, and lives while a record refers to it.
 */
struct ia_fd_ctx {
	struct hlist_node hnode;	/* by context, while listed */
	const void *ictx;
	u32 id;
	unsigned int refs;		/* listed, plus one per record */
	bool listed, compat, mode_known;
	enum ia_ml_mode mode;
	u64 pages;			/* pinned by its records */
	u32 nr_ioas;			/* its IOAS records */
	struct ia_owner owner;
	u64 refusals;
	bool has_last;
	struct ia_failure last;
	struct ia_coalesce co;
};

static DEFINE_HASHTABLE(ia_fd_ctxs, 6);
static u32 ia_fd_ctx_seq;
static bool ia_fd_ctx_on;

/*
 * One IOAS of a listed context, under ia_fd_lock, from the first
 * iopt_map_pages on it to iommufd_ioas_destroy (or its context's release):
 * keyed by its io_pagetable, which the IOAS embeds; @obj is the object the
 * ioctl looked up by @id (0: not seen, as for the compat container's IOAS,
 * which the kernel takes without a lookup).
 */
struct ia_fd_ioas {
	struct hlist_node hnode;	/* by io_pagetable */
	const void *iopt, *obj;
	struct ia_fd_ctx *ctx;
	u32 id;
	u32 areas;
	s64 bytes;			/* mapped less unmapped: a racing unmap may come first */
	struct list_head area_list;
};

/* One area of an IOAS, filled into its domains (a live mapping of it). */
struct ia_fd_area {
	struct hlist_node hnode;	/* by area */
	struct list_head node;		/* in its IOAS */
	const void *area, *pages;
	struct ia_fd_ioas *ioas;
};

static DEFINE_HASHTABLE(ia_fd_ioases, 6);
/* Areas by address: one a mapping, so a table that grows (htab.h). */
static struct ia_htab ia_fd_areas;
static bool ia_fd_ioas_on;
static u32 ia_fd_nr_ioas;	/* records in ia_fd_ioases */
static u32 ia_fd_seen_gen;	/* a pages object counted once per IOAS in a snapshot */

/* One device bound to an iommufd context: by whom. */
struct ia_fd_dev {
	struct hlist_node hnode;	/* by binding */
	const void *idev;
	const void *ictx;
	char name[32];			/* dev_name(): a PCI address */
	struct ia_owner owner;		/* the binding process */
};

static DEFINE_HASHTABLE(ia_fd_devs, 4);
static DEFINE_SPINLOCK(ia_fd_dev_lock);	/* a leaf: the bindings only */

static struct ia_fd_ctx *ia_fd_ctx_of(const void *ictx)
{
	struct ia_fd_ctx *c;

	hash_for_each_possible(ia_fd_ctxs, c, hnode, (unsigned long)ictx)
		if (c->ictx == ictx)
			return c;
	return NULL;
}

static struct ia_fd_ioas *ia_fd_ioas_of(const void *iopt)
{
	struct ia_fd_ioas *x;

	hash_for_each_possible(ia_fd_ioases, x, hnode, (unsigned long)iopt)
		if (x->iopt == iopt)
			return x;
	return NULL;
}

static unsigned long ia_fd_area_hash(const struct hlist_node *n)
{
	return (unsigned long)hlist_entry(n, struct ia_fd_area, hnode)->area;
}

static struct ia_fd_area *ia_fd_area_of(const void *area)
{
	struct hlist_head *head;
	struct ia_fd_area *e;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_fd_areas, (unsigned long)area, t)); t++)
		hlist_for_each_entry(e, head, hnode)
			if (e->area == area)
				return e;
	return NULL;
}

static void ia_fd_area_drop(struct ia_fd_area *e)
{
	ia_htab_del(&ia_fd_areas, &e->hnode);
	list_del(&e->node);
	e->ioas->areas--;
	kfree(e);
}

/* Under ia_fd_lock: the IOAS record goes, with its areas. */
static void ia_fd_ioas_drop(struct ia_fd_ioas *x)
{
	struct ia_fd_area *e, *t;

	list_for_each_entry_safe(e, t, &x->area_list, node)
		ia_fd_area_drop(e);
	hash_del(&x->hnode);
	x->ctx->nr_ioas--;
	WRITE_ONCE(ia_fd_nr_ioas, ia_fd_nr_ioas - 1);
	kfree(x);
}

/* Under ia_fd_lock: the IOAS records of @c (all: NULL) go. */
static void ia_fd_ioas_drop_ctx(const struct ia_fd_ctx *c)
{
	struct ia_fd_ioas *x;
	struct hlist_node *t;
	unsigned int bkt;

	hash_for_each_safe(ia_fd_ioases, bkt, t, x, hnode)
		if (!c || x->ctx == c)
			ia_fd_ioas_drop(x);
}

/* Under ia_fd_lock: the iommufd ioctl in flight on this task. */
static struct ia_fd_map *ia_fd_map_current(void)
{
	struct ia_call *call = ia_call_find(&ia_ml_fd_calls, IA_FD_CALL_MAP);

	return call ? container_of(call, struct ia_fd_map, call) : NULL;
}

/*
 * Under ia_fd_lock: the id of the IOAS an iommufd ioctl in flight on this
 * task is mapping into (iopt_map_pages), 0 when none or not known.
 */
static u32 ia_fd_ioas_mapping(void)
{
	const struct ia_fd_map *m = ia_fd_map_current();
	const struct ia_fd_ioas *x = m && m->iopt ? ia_fd_ioas_of(m->iopt) : NULL;

	return x ? x->id : 0;
}

/* An iommufd pages object's record: the ledger's, then iommufd's own. */
struct ia_fd_rec {
	struct ia_ml_rec r;
	const struct user_struct *user;	/* the pot, valid while the object lives */
	struct ia_fd_ctx *fdctx;	/* the context it was mapped in, if known */
	u32 seen;			/* counted in the IOAS being read */
};

/* Under ia_fd_lock: the record goes, and its reference on its context. */
static void ia_fd_rec_del(struct ia_ml_rec *r)
{
	struct ia_fd_rec *fr = container_of(r, struct ia_fd_rec, r);
	struct ia_fd_ctx *c = fr->fdctx;

	fr->fdctx = NULL;
	if (c && !--c->refs)
		kfree(c);
}

static void ia_fd_rec_unpinned(struct ia_ml_rec *r, u64 pages)
{
	struct ia_fd_ctx *c = container_of(r, struct ia_fd_rec, r)->fdctx;

	if (c)
		c->pages -= min(c->pages, pages);
}

static const struct ia_ml_rec_ops ia_fd_recs = {
	.hooks = &ia_ml_iommufd_hooks,
	.size = sizeof(struct ia_fd_rec),
	.outer = &ia_fd_lock,
	.unpinned = ia_fd_rec_unpinned,
	.del = ia_fd_rec_del,
};

/* Under ia_fd_lock: iommufd's record of pages object @pages, if there is one. */
static struct ia_fd_rec *ia_fd_rec_of(const void *pages)
{
	struct ia_ml_rec *r = ia_ml_rec_outer(pages, &ia_fd_recs);

	return r ? container_of(r, struct ia_fd_rec, r) : NULL;
}

static u32 ia_fd_mode_uapi(const struct ia_fd_ctx *c)
{
	if (!c->mode_known)
		return IOMMU_ACCOUNT_IOMMUFD_MODE_UNKNOWN;
	switch (c->mode) {
	case IA_ML_MM:
		return IOMMU_ACCOUNT_IOMMUFD_MODE_MM;
	case IA_ML_EXEMPT:
		return IOMMU_ACCOUNT_IOMMUFD_MODE_NONE;
	default:
		return IOMMU_ACCOUNT_IOMMUFD_MODE_USER;
	}
}

/* The RLIMIT_MEMLOCK of @pid (init namespace), or RLIM_INFINITY when it is gone. */
static u64 ia_fd_rlimit_of(pid_t pid)
{
	struct task_struct *t;
	u64 limit = RLIM_INFINITY;

	rcu_read_lock();
	t = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_TGID);
	if (t)
		limit = task_rlimit(t, RLIMIT_MEMLOCK);
	rcu_read_unlock();
	return limit;
}

/* @c as a quota object, under ia_fd_lock; its devices are counted after. */
static void ia_fd_ctx_fill(struct ia_quota_rec *q, const struct ia_fd_ctx *c)
{
	u64 limit;

	memset(q, 0, sizeof(*q));
	q->kind = IA_KIND_IOMMUFD_CTX;
	q->id = c->id;
	q->used = c->pages << PAGE_SHIFT;
	q->uid = c->owner.uid;
	q->owner = c->owner;
	q->has_owner = true;
	q->refusals = c->refusals;
	q->has_last = c->has_last;
	q->last = c->last;
	q->fd.mode = ia_fd_mode_uapi(c);
	q->fd.mappings = c->refs - c->listed;
	q->flags = c->compat ? IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT : 0;
	if (c->mode_known && c->mode == IA_ML_MM) {
		limit = ia_fd_rlimit_of(c->owner.pid);
		q->has_limit = limit != RLIM_INFINITY;
		q->limit = limit & PAGE_MASK;
	}
}

/*
 * A pin of @npages for @r (of context @c) was refused with ENOMEM: counted,
 * kept as the context's last failure, and in mm mode raised as a failure
 * of the context (the pot raises its own in user mode). @limit: the
 * mapper's RLIMIT_MEMLOCK.
 */
static void ia_fd_ctx_refused(struct ia_fd_ctx *c, const struct ia_ml_rec *r, u64 npages,
			      u64 limit)
{
	u64 now = ktime_get_ns();
	struct ia_event ev;
	u32 count;

	memset(&ev, 0, sizeof(ev));
	ev.kind = IA_KIND_IOMMUFD_CTX;
	ev.type = IA_EV_FAILURE;
	ev.time_ns = ktime_get_real_ns();
	ev.err = ENOMEM;
	ev.size = npages << PAGE_SHIFT;
	ev.memlock = limit;
	ev.cgroup_id = ia_task_cgroup_id(current);
	ia_owner_current(&ev.who);
	/* The process's counter, when it is the mapper's own (the usual case). */
	if (current->mm && task_tgid(current) == r->pid)
		ev.locked_bytes = (u64)READ_ONCE(current->mm->locked_vm) << PAGE_SHIFT;
	ev.ioas = ia_fd_ioas_mapping();
	c->refusals++;
	ia_kind_refused(IA_KIND_IOMMUFD_CTX, 1);
	c->has_last = true;
	c->last = (struct ia_failure){ .time_ns = ev.time_ns, .err = ENOMEM, .size = ev.size,
				       .who = ev.who, .cgroup_id = ev.cgroup_id, .ioas = ev.ioas };
	if (r->mode != IA_ML_MM || !ia_coalesce_fail(&c->co, now, &count))
		return;
	ev.count = count;
	ia_fd_ctx_fill(&ev.q, c);
	if (ia_events_wanted())
		ia_event_queue(&ev);
}

/* Under ia_fd_lock: @c leaves the listing. */
static void ia_fd_ctx_unlist(struct ia_fd_ctx *c)
{
	ia_fd_ioas_drop_ctx(c);
	hash_del(&c->hnode);
	c->listed = false;
	if (!--c->refs)
		kfree(c);
}

/* iommufd_fops_open(inode, file): the misc device opened, for the return. */
struct ia_fd_open {
	struct file *file;
	bool compat;
};

static bool ia_fd_open_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_fd_open *d = data;
	const struct miscdevice *misc;

	if (!READ_ONCE(ia_fd_ctx_on))
		return false;
	d->file = (struct file *)a[1];
	misc = d->file->private_data;	/* misc_open() set it */
	d->compat = misc && misc->name && !strcmp(misc->name, "vfio");
	return true;
}

static void ia_fd_open_ret(void *data, unsigned long rv)
{
	struct ia_fd_open *d = data;
	struct ia_fd_ctx *c, *old;
	unsigned long flags;

	if ((int)rv)
		return;
	c = kzalloc(sizeof(*c), GFP_ATOMIC);
	if (!c)
		return;		/* not listed, as if opened before load */
	c->ictx = READ_ONCE(d->file->private_data);
	c->refs = 1;
	c->listed = true;
	c->compat = d->compat;
	/* iommufd_fops_open: the compat container accounts per process. */
	c->mode_known = d->compat;
	c->mode = d->compat ? IA_ML_MM : IA_ML_POT;
	ia_owner_current(&c->owner);
	spin_lock_irqsave(&ia_fd_lock, flags);
	if (ia_ml_exiting) {
		spin_unlock_irqrestore(&ia_fd_lock, flags);
		kfree(c);
		return;
	}
	c->id = ++ia_fd_ctx_seq;
	/* At the address of one whose release we did not see: that one is gone. */
	old = ia_fd_ctx_of(c->ictx);
	if (old)
		ia_fd_ctx_unlist(old);
	hash_add(ia_fd_ctxs, &c->hnode, (unsigned long)c->ictx);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iommufd_fops_release(inode, file): the context leaves the listing. */
static void ia_fd_release_ctx(unsigned long a0, unsigned long a1, unsigned long a2,
			      unsigned long a3)
{
	const struct file *file = (const struct file *)a1;
	struct ia_fd_ctx *c;
	unsigned long flags;

	if (!READ_ONCE(ia_fd_ctx_on))
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	c = ia_ml_exiting ? NULL : ia_fd_ctx_of(file->private_data);
	if (c)
		ia_fd_ctx_unlist(c);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iommufd_fops_ioctl(file, cmd, arg): in flight, for iopt_alloc_pages inside it. */
/* @c is in flight on this task as @kind, unless the module is going (false). */
static bool ia_fd_call_enter(struct ia_call *c, unsigned int kind)
{
	return ia_call_add(&ia_ml_fd_calls, c, kind);
}

static bool ia_fd_map_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_fd_map *d = data;

	if (!READ_ONCE(ia_fd_ctx_on))
		return false;
	d->ictx = READ_ONCE(((const struct file *)a[0])->private_data);
	d->obj = NULL;
	d->iopt = NULL;
	return ia_fd_call_enter(&d->call, IA_FD_CALL_MAP);
}

/*
 * Under ia_fd_lock: the iopt_map_pages of @d is over. It mapped its length
 * when an area it filled is still there: a failed fill undoes those before
 * it, and once all are filled it cannot fail.
 */
static void ia_fd_map_settle(struct ia_fd_map *d)
{
	struct ia_fd_ioas *x = d->iopt && d->net > 0 ? ia_fd_ioas_of(d->iopt) : NULL;

	if (x)
		x->bytes += d->len;
	d->iopt = NULL;
}

static void ia_fd_map_ret(void *data, unsigned long rv)
{
	struct ia_fd_map *d = data;
	unsigned long flags;

	spin_lock_irqsave(&ia_fd_lock, flags);
	if (!ia_ml_exiting) {
		ia_fd_map_settle(d);
		ia_call_del(&ia_ml_fd_calls, &d->call);
	}
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iommufd_get_object(ictx, id, type): an ioctl looks an object up by its id. */
struct ia_fd_get {
	u32 id;
};

static bool ia_fd_get_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_fd_get *d = data;

	if (!READ_ONCE(ia_fd_ioas_on) || ia_calls_none(&ia_ml_fd_calls))
		return false;
	d->id = a[1];
	return true;
}

static void ia_fd_get_ret(void *data, unsigned long rv)
{
	struct ia_fd_get *d = data;
	struct ia_fd_map *m;
	unsigned long flags;

	if (IS_ERR_OR_NULL((const void *)rv))
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	m = ia_ml_exiting ? NULL : ia_fd_map_current();
	if (m) {
		m->obj = (const void *)rv;
		m->obj_id = d->id;
	}
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/*
 * iopt_map_pages(iopt, pages_list, length, ...): IOMMU_IOAS_MAP, COPY (its
 * destination, the IOAS looked up last) or the compat container's MAP_DMA
 * maps @length bytes into the IOAS embedding @iopt. Its IOAS record is made
 * here when its context is listed: the IOAS is the object looked up in this
 * ioctl when it holds @iopt (struct iommufd_ioas embeds the io_pagetable
 * after its object header), else its id is not known.
 */
static void ia_fd_iopt_map(unsigned long a0, unsigned long a1, unsigned long a2,
			   unsigned long a3)
{
	const void *iopt = (const void *)a0;
	struct ia_fd_ioas *x;
	struct ia_fd_ctx *c;
	struct ia_fd_map *m;
	unsigned long flags;
	bool paired;

	if (!READ_ONCE(ia_fd_ioas_on) || ia_calls_none(&ia_ml_fd_calls))
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	m = ia_ml_exiting ? NULL : ia_fd_map_current();
	c = m ? ia_fd_ctx_of(m->ictx) : NULL;
	if (!c)
		goto out;
	ia_fd_map_settle(m);
	paired = m->obj && iopt > m->obj && iopt - m->obj < 1024;
	x = ia_fd_ioas_of(iopt);
	/* At the address of one whose destroy we did not see: that one is gone. */
	if (x && (x->ctx != c || (paired && x->obj && x->obj != m->obj))) {
		ia_fd_ioas_drop(x);
		x = NULL;
	}
	if (!x) {
		x = kzalloc(sizeof(*x), GFP_ATOMIC);
		if (!x) {
			ia_ml_flag(current_uid(), IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
			goto out;
		}
		x->iopt = iopt;
		x->ctx = c;
		INIT_LIST_HEAD(&x->area_list);
		hash_add(ia_fd_ioases, &x->hnode, (unsigned long)iopt);
		c->nr_ioas++;
		WRITE_ONCE(ia_fd_nr_ioas, ia_fd_nr_ioas + 1);
	}
	if (paired && !x->id) {
		x->id = m->obj_id;
		x->obj = m->obj;
	}
	m->iopt = iopt;
	m->len = a2;
	m->net = 0;
out:
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iopt_area_fill_domains(area, pages): an area of the map in flight, on return 0. */
struct ia_fd_fill {
	const void *area, *pages;
};

static bool ia_fd_fill_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_fd_fill *d = data;

	if (!READ_ONCE(ia_fd_ioas_on) || ia_calls_none(&ia_ml_fd_calls))
		return false;
	d->area = (const void *)a[0];
	d->pages = (const void *)a[1];
	return true;
}

static void ia_fd_fill_ret(void *data, unsigned long rv)
{
	struct ia_fd_fill *d = data;
	struct ia_fd_ioas *x;
	struct ia_fd_area *e;
	struct ia_fd_map *m;
	unsigned long flags;

	if ((int)rv)
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	m = ia_ml_exiting ? NULL : ia_fd_map_current();
	x = m && m->iopt ? ia_fd_ioas_of(m->iopt) : NULL;
	if (!x)
		goto out;
	e = ia_fd_area_of(d->area);
	if (e)		/* one whose removal we did not see */
		ia_fd_area_drop(e);
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e) {
		ia_ml_flag(current_uid(), IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
		goto out;
	}
	e->area = d->area;
	e->pages = d->pages;
	e->ioas = x;
	ia_htab_add(&ia_fd_areas, &e->hnode, (unsigned long)e->area);
	list_add_tail(&e->node, &x->area_list);
	x->areas++;
	m->net++;
out:
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iopt_area_unfill_domains(area, pages): the area goes (unmapped, or a failed map undone). */
static void ia_fd_unfill(unsigned long a0, unsigned long a1, unsigned long a2,
			 unsigned long a3)
{
	struct ia_fd_area *e;
	struct ia_fd_map *m;
	unsigned long flags;

	if (!READ_ONCE(ia_fd_ioas_on))
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	e = ia_ml_exiting ? NULL : ia_fd_area_of((const void *)a0);
	if (e) {
		m = ia_fd_map_current();
		if (m && m->iopt == e->ioas->iopt)
			m->net--;
		ia_fd_area_drop(e);
	}
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/*
 * iopt_unmap_iova(iopt, iova, length, unmapped) and iopt_unmap_all(iopt,
 * unmapped): on return the kernel's own count of the bytes unmapped (set
 * also when it stops part way; NULL when an IOAS is destroyed).
 */
struct ia_fd_unmap {
	const void *iopt;
	const unsigned long *unmapped;
};

static bool ia_fd_unmap_follow(struct ia_fd_unmap *d, unsigned long iopt, unsigned long unmapped)
{
	if (!READ_ONCE(ia_fd_ioas_on) || !unmapped || !READ_ONCE(ia_fd_nr_ioas))
		return false;
	d->iopt = (const void *)iopt;
	d->unmapped = (const unsigned long *)unmapped;
	return true;
}

static bool ia_fd_unmap_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_fd_unmap_follow(data, a[0], a[3]);
}

static bool ia_fd_unmap_all_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_fd_unmap_follow(data, a[0], a[1]);
}

static void ia_fd_unmap_ret(void *data, unsigned long rv)
{
	struct ia_fd_unmap *d = data;
	struct ia_fd_ioas *x;
	unsigned long flags;

	spin_lock_irqsave(&ia_fd_lock, flags);
	x = ia_ml_exiting ? NULL : ia_fd_ioas_of(d->iopt);
	if (x)
		x->bytes -= READ_ONCE(*d->unmapped);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iommufd_ioas_destroy(obj): the IOAS goes, with whatever it still maps. */
static void ia_fd_ioas_destroy(unsigned long a0, unsigned long a1, unsigned long a2,
			       unsigned long a3)
{
	struct ia_fd_ioas *x;
	struct hlist_node *t;
	unsigned long flags;
	unsigned int bkt;

	if (!READ_ONCE(ia_fd_ioas_on))
		return;
	spin_lock_irqsave(&ia_fd_lock, flags);
	if (!ia_ml_exiting)
		hash_for_each_safe(ia_fd_ioases, bkt, t, x, hnode)
			if (x->obj == (const void *)a0)
				ia_fd_ioas_drop(x);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* Under ia_fd_lock: the context of the ioctl in flight on this task, if listed. */
static struct ia_fd_ctx *ia_fd_ctx_mapping(void)
{
	const struct ia_fd_map *m = ia_fd_map_current();

	return m ? ia_fd_ctx_of(m->ictx) : NULL;
}

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
	kuid_t uid = current_uid();
	unsigned long flags, pflags;
	struct ia_fd_rec *fr;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;

	if (IS_ERR_OR_NULL(pages))
		return;
	/* An object at the address of one whose release we did not see. */
	ia_ml_release_other(pages, &ia_fd_recs, uid);
	spin_lock_irqsave(&ia_fd_lock, flags);
	ia_ml_lock_uid(uid, pflags);
	if (ia_ml_exiting)
		goto out;
	u = ia_ml_user_get(uid);
	if (!u)
		goto out;
	r = ia_ml_rec_of(u, pages, &ia_fd_recs, NULL);
	if (r) {
		if (r->pages)
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
		r->keep = false;
		ia_ml_release(r, r->pages);
	}
	r = ia_ml_rec_new(u, pages, NULL, IA_CONS_IOMMUFD, &ia_fd_recs);
	if (!r) {
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
		goto out;
	}
	r->keep = true;
	ia_ml_set_mode(r, d->mode);
	fr = container_of(r, struct ia_fd_rec, r);
	fr->user = current_user();
	fr->fdctx = ia_fd_ctx_mapping();
	if (fr->fdctx) {
		fr->fdctx->refs++;
		ia_owner_current(&fr->fdctx->owner);
	}
out:
	ia_ml_unlock_uid(uid, pflags);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* __account_locked_vm(mm, pages, inc, task, bypass): inside do_update_pinned, mm mode. */
static void ia_ml_fd_mm(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct ia_call *c;
	unsigned long flags;

	if (ia_calls_none(&ia_ml_fd_calls))
		return;		/* VFIO type1 and the others */
	spin_lock_irqsave(&ia_fd_lock, flags);
	c = ia_ml_exiting ? NULL : ia_call_find(&ia_ml_fd_calls, IA_FD_CALL_PIN);
	if (c)
		container_of(c, struct ia_ml_fd_pin, call)->mm = true;
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

static bool ia_ml_fd_pin_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_ml_fd_pin *d = data;

	if (!READ_ONCE(ia_ml_iommufd_on))
		return false;
	d->pages = (const void *)a[0];
	d->npages = a[1];
	d->inc = a[2] & 0xff;		/* a bool argument */
	d->mm = false;
	return ia_fd_call_enter(&d->call, IA_FD_CALL_PIN);
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
	unsigned long flags, pflags;
	int err = (int)rv;
	struct ia_ml_user *u;
	struct ia_fd_rec *fr;
	struct ia_ml_rec *r;

	ia_call_del(&ia_ml_fd_calls, &d->call);
	spin_lock_irqsave(&ia_fd_lock, flags);
	fr = ia_ml_exiting ? NULL : ia_fd_rec_of(d->pages);
	if (!fr) {
		/* made before the module loaded: unattributed */
		spin_unlock_irqrestore(&ia_fd_lock, flags);
		return;
	}
	r = &fr->r;
	u = r->acct;
	ia_ml_lock_uid(u->uid, pflags);
	if (d->mm && r->mode != IA_ML_MM) {
		/* The first pin of an object of a per-process context. */
		if (r->pages)
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
		ia_ml_set_mode(r, IA_ML_MM);
	}
	if (fr->fdctx) {
		fr->fdctx->mode = r->mode;
		fr->fdctx->mode_known = true;
	}
	if (!d->inc) {
		if (!err)
			ia_ml_release(r, d->npages);
		goto out;
	}
	if (err) {
		/* The pot refused (user mode); mm mode's refusal is the process's own. */
		if (err == -ENOMEM && r->mode == IA_ML_POT)
			ia_ml_refused_in(u, IA_CONS_IOMMUFD, d->npages,
					 atomic_long_read(&fr->user->locked_vm),
					 ia_ml_fd_limit(r), ENOMEM, ia_fd_ioas_mapping());
		if (err == -ENOMEM && fr->fdctx && r->mode != IA_ML_EXEMPT)
			ia_fd_ctx_refused(fr->fdctx, r, d->npages, ia_ml_fd_limit(r));
		goto out;
	}
	ia_ml_charged(r, u, d->npages);
	if (fr->fdctx)
		fr->fdctx->pages += d->npages;
	if (r->mode == IA_ML_POT) {
		u->charges++;
		ia_ml_thresholds(u, IA_CONS_IOMMUFD, d->npages,
				 atomic_long_read(&fr->user->locked_vm), ia_ml_fd_limit(r));
	}
out:
	ia_ml_unlock_uid(u->uid, pflags);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
}

/* iopt_release_pages(kref): the object goes (its kref is its first member). */
static void ia_ml_fd_release(unsigned long a0, unsigned long a1, unsigned long a2,
			     unsigned long a3)
{
	if (READ_ONCE(ia_ml_iommufd_on))
		ia_ml_release_key((const void *)a0, &ia_fd_recs);
}

/* iommufd_device_bind(ictx, dev, id): the context and the device, for the return. */
struct ia_fd_bind {
	const void *ictx;
	const struct device *dev;
};

static bool ia_fd_bind_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct ia_fd_bind *d = data;

	if (!READ_ONCE(ia_ml_iommufd_on) || !a[1])
		return false;
	d->ictx = (const void *)a[0];
	d->dev = (const struct device *)a[1];
	return true;
}

static void ia_fd_bind_ret(void *data, unsigned long rv)
{
	const struct ia_fd_bind *d = data;
	const struct device *dev = d->dev;
	const void *idev = (const void *)rv;
	struct ia_fd_dev *b;
	unsigned long flags;

	if (IS_ERR_OR_NULL(idev))
		return;
	b = kzalloc(sizeof(*b), GFP_ATOMIC);
	if (!b)
		return;		/* the group shows no holder: as if bound before load */
	b->idev = idev;
	b->ictx = d->ictx;
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

static bool ia_iommufd_ctx_followed(void)
{
	return READ_ONCE(ia_fd_ctx_on);
}

static int ia_fd_rec_cmp(const void *a, const void *b)
{
	u32 x = ((const struct ia_quota_rec *)a)->id, y = ((const struct ia_quota_rec *)b)->id;

	return x < y ? -1 : x > y;
}

/* Under ia_fd_lock: how many listed contexts @f passes, filled into @l up to @max. */
static unsigned int ia_fd_ctx_fill_all(const struct ia_filter *f, struct ia_quota_list *l,
				       const void **ictx, unsigned int max)
{
	struct ia_fd_ctx *c;
	unsigned int bkt, n = 0;

	hash_for_each(ia_fd_ctxs, bkt, c, hnode) {
		if (!ia_filter_pass(f, c->id, c->owner.uid, c->owner.pid))
			continue;
		if (l && n < max) {
			ia_fd_ctx_fill(&l->rec[n], c);
			l->rec[n].nr_extra = c->nr_ioas;
			ictx[n] = c->ictx;
		}
		n++;
	}
	return n;
}

static int ia_fd_ioas_cmp(const void *a, const void *b)
{
	u32 x = ((const struct ia_ioas_info *)a)->id, y = ((const struct ia_ioas_info *)b)->id;

	return x < y ? -1 : x > y;
}

/* Under ia_fd_lock: @x as its figures; its pages objects' pins, each once. */
static void ia_fd_ioas_info(struct ia_ioas_info *o, const struct ia_fd_ioas *x)
{
	const struct ia_fd_area *e;
	struct ia_fd_rec *fr;
	u64 pinned = 0;

	ia_fd_seen_gen++;
	list_for_each_entry(e, &x->area_list, node) {
		fr = ia_fd_rec_of(e->pages);
		if (fr && fr->seen != ia_fd_seen_gen) {
			fr->seen = ia_fd_seen_gen;
			pinned += fr->r.pages;
		}
	}
	o->id = x->id;
	o->areas = x->areas;
	o->bytes = max_t(s64, x->bytes, 0);
	o->pinned = pinned << PAGE_SHIFT;
}

/*
 * Under ia_fd_lock: the IOAS records of each context in @l (the one at
 * @ictx[i] with @l->rec[i]'s id) into its array, which has room for
 * @room[i]. How many each has goes to @need; false when one lacked room.
 */
static bool ia_fd_ioas_fill_all(struct ia_quota_list *l, const void **ictx, const u32 *room,
				u32 *need)
{
	struct ia_ioas_info *ioas;
	const struct ia_fd_ioas *x;
	unsigned int bkt, i;
	bool fits = true;

	memset(need, 0, l->nr * sizeof(*need));
	hash_for_each(ia_fd_ioases, bkt, x, hnode)
		for (i = 0; i < l->nr; i++) {
			if (ictx[i] != x->ctx->ictx || l->rec[i].id != x->ctx->id)
				continue;
			ioas = l->rec[i].extra;
			if (need[i] < room[i])
				ia_fd_ioas_info(&ioas[need[i]], x);
			else
				fits = false;
			need[i]++;
			break;
		}
	return fits;
}

/* Each context's IOAS figures, sorted by id; -EAGAIN when they kept growing. */
static int ia_fd_ioas_snapshot(struct ia_quota_list *l, const void **ictx)
{
	u32 *room, *need;
	unsigned long flags;
	unsigned int i;
	int tries, ret = -EAGAIN;
	bool fits = false;

	if (!l->nr)
		return 0;
	room = kcalloc(l->nr, sizeof(*room), GFP_KERNEL);
	need = kcalloc(l->nr, sizeof(*need), GFP_KERNEL);
	if (!room || !need) {
		ret = -ENOMEM;
		goto out;
	}
	/* The counts the listing saw, as a first guess; none until filled. */
	for (i = 0; i < l->nr; i++) {
		need[i] = l->rec[i].nr_extra;
		l->rec[i].nr_extra = 0;
	}
	if (!READ_ONCE(ia_fd_ioas_on)) {
		ret = 0;
		goto out;
	}
	for (tries = 0; tries < 4 && !fits; tries++) {
		for (i = 0; i < l->nr; i++) {
			if (l->rec[i].extra && need[i] <= room[i])
				continue;
			kvfree(l->rec[i].extra);
			room[i] = need[i] + 4;	/* room for IOAS mapped meanwhile */
			l->rec[i].extra = kvcalloc(room[i], sizeof(struct ia_ioas_info),
						   GFP_KERNEL);
			if (!l->rec[i].extra) {
				ret = -ENOMEM;
				goto out;
			}
		}
		spin_lock_irqsave(&ia_fd_lock, flags);
		fits = !ia_ml_exiting && ia_fd_ioas_fill_all(l, ictx, room, need);
		spin_unlock_irqrestore(&ia_fd_lock, flags);
	}
	if (!fits)
		goto out;
	for (i = 0; i < l->nr; i++) {
		l->rec[i].nr_extra = need[i];
		sort(l->rec[i].extra, need[i], sizeof(struct ia_ioas_info), ia_fd_ioas_cmp, NULL);
	}
	ret = 0;
out:
	kfree(room);
	kfree(need);
	return ret;
}

static struct ia_quota_list *ia_iommufd_ctx_snapshot(const struct ia_quota_query *q)
{
	const struct ia_filter *f = &q->seen;
	struct ia_quota_list *l = NULL;
	const void **ictx = NULL;
	unsigned int n = 0, want, i;
	unsigned long flags;
	struct ia_fd_dev *b;
	unsigned int bkt;
	int tries, err;

	for (tries = 0; tries < 4; tries++) {
		spin_lock_irqsave(&ia_fd_lock, flags);
		want = ia_fd_ctx_on && !ia_ml_exiting ? ia_fd_ctx_fill_all(f, l, ictx, n) : 0;
		spin_unlock_irqrestore(&ia_fd_lock, flags);
		if (l && want <= n)
			break;
		kvfree(l);
		kvfree(ictx);
		n = want + 8;	/* room for contexts opened meanwhile */
		l = kvzalloc(struct_size(l, rec, n), GFP_KERNEL);
		ictx = kvcalloc(n, sizeof(*ictx), GFP_KERNEL);
		if (!l || !ictx) {
			kvfree(l);
			kvfree(ictx);
			return ERR_PTR(-ENOMEM);
		}
	}
	if (want > n) {
		kvfree(l);
		kvfree(ictx);
		return ERR_PTR(-EAGAIN);
	}
	l->nr = want;
	/* The devices each has bound: by pointer, the context need not live. */
	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_for_each(ia_fd_devs, bkt, b, hnode)
		for (i = 0; i < l->nr; i++)
			if (ictx[i] == b->ictx)
				l->rec[i].fd.devices++;
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
	err = ia_fd_ioas_snapshot(l, ictx);
	kvfree(ictx);
	if (err) {
		ia_quota_list_free(l);
		return ERR_PTR(err);
	}
	sort(l->rec, l->nr, sizeof(l->rec[0]), ia_fd_rec_cmp, NULL);
	return l;
}

IA_HOOK_RETURN(ia_fd_bind, "iommufd_device_bind", struct ia_fd_bind, ia_fd_bind_entry,
	       ia_fd_bind_ret, 16);
IA_HOOK_RETURN(ia_fd_open, IA_IOMMUFD_SYM("iommufd_fops_open"), struct ia_fd_open,
	       ia_fd_open_entry, ia_fd_open_ret, 16);
IA_HOOK_ENTRY(ia_fd_release_ctx, IA_IOMMUFD_SYM("iommufd_fops_release"), ia_fd_release_ctx);
IA_HOOK_RETURN(ia_fd_map, IA_IOMMUFD_SYM("iommufd_fops_ioctl"), struct ia_fd_map,
	       ia_fd_map_entry, ia_fd_map_ret, 64);
IA_HOOK_ENTRY(ia_fd_unbind, "iommufd_device_unbind", ia_fd_unbind);
IA_HOOK_RETURN(ia_ml_fd_alloc, IA_IOMMUFD_SYM("iopt_alloc_pages"), struct ia_ml_fd_alloc,
	       ia_ml_fd_alloc_entry, ia_ml_fd_alloc_ret, 64);
IA_HOOK_RETURN(ia_ml_fd_pin, IA_IOMMUFD_SYM("do_update_pinned"), struct ia_ml_fd_pin,
	       ia_ml_fd_pin_entry, ia_ml_fd_pin_ret, 64);
IA_HOOK_ENTRY(ia_ml_fd_mm, "__account_locked_vm", ia_ml_fd_mm);
IA_HOOK_ENTRY(ia_ml_fd_release, IA_IOMMUFD_SYM("iopt_release_pages"), ia_ml_fd_release);
IA_HOOK_RETURN(ia_fd_get, IA_IOMMUFD_SYM("iommufd_get_object"), struct ia_fd_get,
	       ia_fd_get_entry, ia_fd_get_ret, 64);
IA_HOOK_ENTRY(ia_fd_iopt_map, IA_IOMMUFD_SYM("iopt_map_pages"), ia_fd_iopt_map);
IA_HOOK_RETURN(ia_fd_fill, IA_IOMMUFD_SYM("iopt_area_fill_domains"), struct ia_fd_fill,
	       ia_fd_fill_entry, ia_fd_fill_ret, 64);
IA_HOOK_ENTRY(ia_fd_unfill, IA_IOMMUFD_SYM("iopt_area_unfill_domains"), ia_fd_unfill);
IA_HOOK_RETURN(ia_fd_unmap, IA_IOMMUFD_SYM("iopt_unmap_iova"), struct ia_fd_unmap,
	       ia_fd_unmap_entry, ia_fd_unmap_ret, 64);
IA_HOOK_RETURN(ia_fd_unmap_all, IA_IOMMUFD_SYM("iopt_unmap_all"), struct ia_fd_unmap,
	       ia_fd_unmap_all_entry, ia_fd_unmap_ret, 64);
IA_HOOK_ENTRY(ia_fd_ioas_destroy, IA_IOMMUFD_SYM("iommufd_ioas_destroy"), ia_fd_ioas_destroy);

/*
 * In the order placed where each is a probe of its own: what ends or
 * changes a record before what counts in one, before what makes one.
 */
static struct ia_hook *ia_ml_iommufd_list[] = {
	&ia_ml_fd_release_hook, &ia_ml_fd_mm_hook, &ia_fd_unbind_hook, &ia_ml_fd_pin_hook,
	&ia_ml_fd_alloc_hook, &ia_fd_bind_hook,
	/* the contexts, optional: the first six come first */
	&ia_fd_release_ctx_hook, &ia_fd_map_hook, &ia_fd_open_hook,
	/* their IOAS, optional too */
	&ia_fd_ioas_destroy_hook, &ia_fd_unfill_hook, &ia_fd_unmap_hook, &ia_fd_unmap_all_hook,
	&ia_fd_iopt_map_hook, &ia_fd_fill_hook, &ia_fd_get_hook,
};

#define IA_FD_REQUIRED 6

static struct ia_hook_set ia_ml_iommufd_hooks = {
	.name = "iommufd",
	.hooks = ia_ml_iommufd_list,
	.n = ARRAY_SIZE(ia_ml_iommufd_list),
	.calls = &ia_ml_fd_calls,
};

static int ia_ml_iommufd_init(const struct ia_source *self)
{
	unsigned int i;

	for (i = 0; i < IA_FD_REQUIRED; i++)
		ia_ml_iommufd_list[i]->required = true;
	return ia_htab_init(&ia_fd_areas, 8, &ia_fd_lock, ia_fd_area_hash);
}

/* After unregistration: the calls in flight will not return to us; no binding is kept. */
static void ia_ml_iommufd_exit(const struct ia_source *self)
{
	struct ia_fd_ctx *c;
	struct ia_fd_dev *b;
	struct hlist_node *t;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&ia_fd_lock, flags);
	ia_calls_forget(&ia_ml_fd_calls);
	ia_fd_ioas_drop_ctx(NULL);
	/* The records still referring to one free it when they go. */
	hash_for_each_safe(ia_fd_ctxs, bkt, t, c, hnode)
		ia_fd_ctx_unlist(c);
	spin_unlock_irqrestore(&ia_fd_lock, flags);
	spin_lock_irqsave(&ia_fd_dev_lock, flags);
	hash_for_each_safe(ia_fd_devs, bkt, t, b, hnode) {
		hash_del(&b->hnode);
		kfree(b);
	}
	spin_unlock_irqrestore(&ia_fd_dev_lock, flags);
	ia_htab_destroy(&ia_fd_areas);	/* its areas went with their IOAS */
}

static void ia_ml_iommufd_start(void)
{
	char mech[160];

	if (!ia_ml_iommufd_hooks.registered) {
		WRITE_ONCE(ia_ml_iommufd_on, false);
		WRITE_ONCE(ia_fd_ctx_on, false);
		WRITE_ONCE(ia_fd_ioas_on, false);
		ia_feature_set(IA_FEAT_IOMMUFD, false, "%s: its pins are in unattributed",
			       ia_ml_iommufd_hooks.why);
		return;
	}
	WRITE_ONCE(ia_ml_iommufd_on, true);
	WRITE_ONCE(ia_fd_ctx_on, ia_hook_on(&ia_fd_open_hook) &&
		   ia_hook_on(&ia_fd_release_ctx_hook) && ia_hook_on(&ia_fd_map_hook));
	WRITE_ONCE(ia_fd_ioas_on, ia_fd_ctx_on && ia_hook_on(&ia_fd_ioas_destroy_hook) &&
		   ia_hook_on(&ia_fd_unfill_hook) && ia_hook_on(&ia_fd_unmap_hook) &&
		   ia_hook_on(&ia_fd_unmap_all_hook) && ia_hook_on(&ia_fd_iopt_map_hook) &&
		   ia_hook_on(&ia_fd_fill_hook) && ia_hook_on(&ia_fd_get_hook));
	ia_hook_set_describe(&ia_ml_iommufd_hooks, mech, sizeof(mech));
	/* The functions are in design.md; the mechanism line may be long. */
	ia_feature_set(IA_FEAT_IOMMUFD, true, "pins, bound devices%s; hooks: %s",
		       !ia_fd_ctx_on ? ", not contexts (a hook missing)" :
		       ia_fd_ioas_on ? ", contexts and their IOAS" :
		       " and contexts, not their IOAS (a hook missing)", mech);
}

#else

static struct ia_hook_set ia_ml_iommufd_hooks = { .name = "iommufd" };

static int ia_ml_iommufd_init(const struct ia_source *self)
{
	return 0;
}

static void ia_ml_iommufd_start(void)
{
	ia_feature_set(IA_FEAT_IOMMUFD, false, "CONFIG_IOMMUFD is not set in this kernel");
}

static void ia_ml_iommufd_exit(const struct ia_source *self)
{
}

bool ia_iommufd_dev_owner(const char *name, struct ia_owner *o)
{
	return false;
}

static bool ia_iommufd_ctx_followed(void)
{
	return false;
}

static struct ia_quota_list *ia_iommufd_ctx_snapshot(const struct ia_quota_query *q)
{
	return kvzalloc(sizeof(struct ia_quota_list), GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
}

#endif

/* A context's own attributes in GET_QUOTA: its mode, mappings, devices and IOAS. */
static int ia_iommufd_ctx_put(struct sk_buff *msg, const struct ia_quota_rec *q)
{
	const struct ia_ioas_info *x = q->extra;
	const int pad = IOMMU_ACCOUNT_A_IOAS_PAD;
	struct nlattr *nest;
	u32 i;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE, q->fd.mode) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_MAPPINGS, q->fd.mappings) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_DEVICES, q->fd.devices) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_FLAGS, q->flags))
		return -EMSGSIZE;
	for (i = 0; x && i < q->nr_extra; i++, x++) {
		nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_QUOTA_IOAS);
		if (!nest ||
		    (x->id && nla_put_u32(msg, IOMMU_ACCOUNT_A_IOAS_ID, x->id)) ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_IOAS_AREAS, x->areas) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_IOAS_BYTES, x->bytes, pad) ||
		    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_IOAS_PINNED, x->pinned, pad))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* Its user-mode pins are in the uid-pot's: it has no thresholds of its own. */
static const struct ia_quota_kind ia_iommufd_ctx_kind = {
	.id = IA_KIND_IOMMUFD_CTX,
	.name = "iommufd-ctx",
	.unit = "bytes",
	.needs = IA_FEAT_IOMMUFD,
	.followed = ia_iommufd_ctx_followed,
	.snapshot = ia_iommufd_ctx_snapshot,
	.put = ia_iommufd_ctx_put,
	.no_thresholds = "iommufd-ctx has no thresholds: its user-mode pins are in the uid-pot's",
};

const struct ia_source ia_ml_iommufd_source = {
	.name = "iommufd",
	.init = ia_ml_iommufd_init,
	.exit = ia_ml_iommufd_exit,
	.kind = &ia_iommufd_ctx_kind,
	.feature = IA_FEAT_IOMMUFD,
	.hooks = &ia_ml_iommufd_hooks,
	.start = ia_ml_iommufd_start,
};
