// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * Source: quotas that applications publish (user-space queue pairs and
 * other bounded pools the kernel cannot see), through /dev/iommu-account
 * (uapi/linux/iommu_account_dev.h).
 *
 * An object is a file: IOMMU_ACCOUNT_QUOTA_CREATE returns its descriptor.
 * It has two pages: the counters, mapped writable by the publisher (which
 * updates them with atomic operations and no system call), and the state,
 * written by the module only (thresholds in the object's unit, the levels
 * raised, whether a rejection would start an episode) and mapped read-only.
 * The publisher's library reads the state after each update and calls
 * IOMMU_ACCOUNT_QUOTA_NOTIFY only when an event is due; the module then
 * reads the counters, raises the events and updates the state, so a
 * publisher that calls NOTIFY in a loop raises nothing more.
 *
 * The counters are the publisher's word, and a publisher may scribble on
 * its own page: the module only ever reads them, clamps what contradicts
 * itself and flags the object inconsistent; nothing it reads is used as a
 * size, an index or a pointer. The owner (pid, uid, comm, cgroup) is
 * recorded by the module at creation.
 *
 * Lifetime: the object lives while its file does (descriptors and
 * mappings); the file's release reports it gone (last values, what was
 * still outstanding) and frees it. Every file holds a reference on this
 * module, so the module cannot be unloaded while an object exists (rmmod:
 * "in use").
 *
 * Objects are open to every user, so they are bounded: quota_max_per_uid
 * live objects per real uid (EDQUOT past it), and their memory is charged
 * to the creator's memory cgroup.
 *
 * Locking, in the order taken: ia_pub_lock (a mutex: the objects' xarray,
 * the per-uid counts, the kind's thresholds), then an object's p->lock (a
 * spinlock: its thresholds in effect, what it last read, its state page),
 * then ia_evq_lock (events are queued under p->lock). NOTIFY takes p->lock
 * alone. The state page is written only under p->lock.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <net/netlink.h>

#include "compat.h"
#include "ia.h"
#include "source.h"

static unsigned int quota_max_per_uid = 1024;
module_param(quota_max_per_uid, uint, 0644);
MODULE_PARM_DESC(quota_max_per_uid,
		 "Live published quota objects (qpairs) per real uid; more: EDQUOT (default 1024)");

struct ia_pub {
	u32 id;
	u32 kind;
	char name[IOMMU_ACCOUNT_QUOTA_NAME_LEN];
	u64 capacity;
	struct ia_thresholds own;	/* 0/0: the kind's thresholds */
	struct ia_owner owner;
	u64 cgroup_id;
	struct page *pages[2];
	const struct iommu_account_quota_counters *c;	/* the publisher's */
	struct iommu_account_quota_state *st;		/* ours */

	spinlock_t lock;		/* everything below, and writes to *st */
	struct ia_thresholds thr;	/* in effect */
	u32 margin;			/* in effect, below thr.warn */
	u64 seen[4];			/* the monotonic counters last read */
	u32 flags;
	u64 rej_reported;		/* rejections covered by events */
	bool rej_work_armed;
	bool quiet;			/* no gone event (creation failed) */
	struct delayed_work rej_work;
};

/* Objects by id, the per-uid counts and the kind's thresholds. */
static DEFINE_MUTEX(ia_pub_lock);
static DEFINE_XARRAY_ALLOC1(ia_pub_objs);
static u32 ia_pub_next;
static DEFINE_XARRAY(ia_pub_uids);
static struct ia_thresholds ia_pub_thr = { .warn = 800, .crit = 950 };
static u32 ia_pub_margin = 50;

/* --- reading the publisher's counters ---------------------------------------- */

/*
 * The counters as the module can stand behind them. Read order matters: a
 * correct publisher completes after it submits, so completed is read before
 * submitted (and deferred_now before deferred_total); a publisher that
 * breaks that makes only its own object inconsistent.
 */
static void ia_pub_read_locked(struct ia_pub *p, struct ia_quota_rec *q)
{
	const struct iommu_account_quota_counters *c = p->c;
	u64 sub, comp, peak, rej, dnow, dtot, used;
	bool stable = false;
	int tries;
	u32 bad = 0;

	lockdep_assert_held(&p->lock);
	/*
	 * submitted minus completed is in use at the moment submitted was read
	 * if completed did not move meanwhile; a publisher busy on other CPUs
	 * (or this vCPU preempted between the reads) can make it move, and the
	 * difference then overstates in use: only a stable read may call it
	 * more than the capacity.
	 */
	for (tries = 0; tries < 4 && !stable; tries++) {
		comp = READ_ONCE(c->completed);
		dnow = READ_ONCE(c->deferred_now);
		/* Pairs with the publisher's release increments of completed and deferred_now. */
		smp_rmb();
		sub = READ_ONCE(c->submitted);
		dtot = READ_ONCE(c->deferred_total);
		/* Orders the read of submitted before the second read of completed. */
		smp_rmb();
		stable = READ_ONCE(c->completed) == comp;
	}
	peak = READ_ONCE(c->peak);
	rej = READ_ONCE(c->rejected);

	used = comp <= sub ? sub - comp : 0;
	if (comp > sub || (stable && used > p->capacity) || peak > p->capacity || dnow > dtot ||
	    sub < p->seen[0] || comp < p->seen[1] || rej < p->seen[2] || dtot < p->seen[3])
		bad = IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT;
	p->seen[0] = max(sub, p->seen[0]);
	p->seen[1] = max(comp, p->seen[1]);
	/* The kind's total takes what the publisher reported since the last read. */
	if (rej > p->seen[2])
		ia_kind_refused(p->kind, rej - p->seen[2]);
	p->seen[2] = max(rej, p->seen[2]);
	p->seen[3] = max(dtot, p->seen[3]);
	if (bad && !(p->flags & bad)) {
		p->flags |= bad;
		WRITE_ONCE(p->st->flags, p->flags);
	}
	used = min(used, p->capacity);
	/* The publisher raises peak after it adds: a reader may see it lag. */
	peak = clamp(peak, used, p->capacity);

	memset(q, 0, sizeof(*q));
	q->kind = p->kind;
	q->id = p->id;
	q->used = used;
	q->limit = p->capacity;
	q->has_limit = true;
	q->uid = p->owner.uid;
	q->owner = p->owner;
	q->has_owner = true;
	q->refusals = p->seen[2];
	q->flags = p->flags;
	memcpy(q->pub.name, p->name, sizeof(q->pub.name));
	q->pub.cgroup_id = p->cgroup_id;
	q->pub.peak = peak;
	q->pub.submitted = p->seen[0];
	q->pub.completed = min(p->seen[1], p->seen[0]);
	q->pub.deferred_now = min(dnow, dtot);
	q->pub.deferred_total = p->seen[3];
	q->pub.warn = p->thr.warn;
	q->pub.crit = p->thr.crit;
}

/* --- thresholds and events --------------------------------------------------------- */

/* The smallest count at or above @permille of @cap. */
static u64 ia_pub_at(u64 cap, u32 permille)
{
	return max_t(u64, 1, DIV_ROUND_UP_ULL(cap * permille, 1000));
}

/* Publish the thresholds in effect, in the object's unit. */
static void ia_pub_set_thr_locked(struct ia_pub *p, const struct ia_thresholds *t, u32 margin)
{
	struct iommu_account_quota_state *st = p->st;

	lockdep_assert_held(&p->lock);
	p->thr = *t;
	p->margin = min(margin, t->warn - 1);
	/* The same lines in counts, for the publisher (ia_levels_* decide here). */
	WRITE_ONCE(st->warn_at, ia_pub_at(p->capacity, t->warn));
	WRITE_ONCE(st->crit_at, ia_pub_at(p->capacity, t->crit));
	WRITE_ONCE(st->rearm_warn_at, ia_pub_at(p->capacity, t->warn - p->margin));
	WRITE_ONCE(st->rearm_crit_at, ia_pub_at(p->capacity, t->crit - p->margin));
}

/*
 * Events are queued under the object's lock (ia_event_queue() never
 * sleeps), so an object's events keep the order of its changes.
 */
static void ia_pub_event(const struct ia_pub *p, const struct ia_quota_rec *q,
			 enum ia_event_type type, enum ia_level level, u32 count)
{
	struct ia_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = ktime_get_real_ns();	/* wall clock, as every source's */
	ev.kind = p->kind;
	ev.type = type;
	ev.who = p->owner;
	ev.q = *q;
	if (type == IA_EV_FAILURE) {
		ev.err = ENOMEM;
		ev.count = count;
	} else if (type == IA_EV_THRESHOLD) {
		ev.level = level;
		ev.threshold = ia_level_line(&p->thr, level);
	}
	ia_event_queue(&ev);
}

/*
 * Rejections the module has not reported yet: one failure event with their
 * number. The episode stays open (no event for the next rejections) until
 * an interval passes without any (ia_pub_rej_workfn).
 */
static void ia_pub_rejections_locked(struct ia_pub *p, const struct ia_quota_rec *q,
				     bool want)
{
	u64 n = q->refusals - p->rej_reported;

	lockdep_assert_held(&p->lock);
	p->rej_reported = q->refusals;
	WRITE_ONCE(p->st->reject_armed, 0);
	if (!p->rej_work_armed) {
		p->rej_work_armed = true;
		schedule_delayed_work(&p->rej_work,
				      nsecs_to_jiffies(ia_coalesce_interval_ns()) + 1);
	}
	if (want)
		ia_pub_event(p, q, IA_EV_FAILURE, 0, min_t(u64, n, U32_MAX));
}

/*
 * Re-arm and raise levels (every level crossed is said), and open a
 * rejection episode, from the counters now. The page's raised bits are
 * BIT(level), as struct ia_levels keeps them.
 */
static void ia_pub_eval_locked(struct ia_pub *p, bool want)
{
	struct iommu_account_quota_state *st = p->st;
	struct ia_levels lv = { .raised = READ_ONCE(st->raised) };
	struct ia_quota_rec q;
	unsigned int raised, l;
	u64 pm;

	BUILD_BUG_ON(IOMMU_ACCOUNT_QUOTA_RAISED_WARN != BIT(IA_LEVEL_WARN) ||
		     IOMMU_ACCOUNT_QUOTA_RAISED_CRIT != BIT(IA_LEVEL_CRIT));
	lockdep_assert_held(&p->lock);
	ia_pub_read_locked(p, &q);
	pm = ia_per_mille(q.used, p->capacity);
	ia_levels_rearm(&lv, &p->thr, p->margin, pm);
	raised = ia_levels_raise(&lv, &p->thr, pm, false);
	for (l = 0; l < IA_LEVEL_COUNT && want; l++)
		if (raised & BIT(l))
			ia_pub_event(p, &q, IA_EV_THRESHOLD, l, 0);
	WRITE_ONCE(st->raised, lv.raised);
	if (q.refusals > p->rej_reported && READ_ONCE(st->reject_armed))
		ia_pub_rejections_locked(p, &q, want);
}

/* The interval after an episode's report: report what came since, or re-arm. */
static void ia_pub_rej_workfn(struct work_struct *w)
{
	struct ia_pub *p = container_of(to_delayed_work(w), struct ia_pub, rej_work);
	struct ia_quota_rec q;

	spin_lock(&p->lock);
	p->rej_work_armed = false;
	ia_pub_read_locked(p, &q);
	if (q.refusals > p->rej_reported)
		ia_pub_rejections_locked(p, &q, ia_events_wanted());
	else
		WRITE_ONCE(p->st->reject_armed, 1);
	spin_unlock(&p->lock);
}

static void ia_pub_notify(struct ia_pub *p)
{
	bool want = ia_events_wanted();

	spin_lock(&p->lock);
	WRITE_ONCE(p->st->notifies, p->st->notifies + 1);
	ia_pub_eval_locked(p, want);
	spin_unlock(&p->lock);
}

/* --- the object's file ------------------------------------------------------------- */

static void ia_pub_free(struct ia_pub *p)
{
	if (p->pages[0])
		__free_page(p->pages[0]);
	if (p->pages[1])
		__free_page(p->pages[1]);
	kfree(p);
}

/* Under ia_pub_lock. */
static void ia_pub_uid_put(kuid_t uid)
{
	unsigned long n = xa_to_value(xa_load(&ia_pub_uids, __kuid_val(uid)));

	if (n > 1)
		xa_store(&ia_pub_uids, __kuid_val(uid), xa_mk_value(n - 1), GFP_KERNEL);
	else
		xa_erase(&ia_pub_uids, __kuid_val(uid));
}

static int ia_pub_release(struct inode *inode, struct file *f)
{
	struct ia_pub *p = f->private_data;
	struct ia_quota_rec q;

	/* Out of reach of snapshots and thresholds first, then of its work. */
	mutex_lock(&ia_pub_lock);
	xa_erase(&ia_pub_objs, p->id);
	ia_pub_uid_put(p->owner.uid);
	mutex_unlock(&ia_pub_lock);
	cancel_delayed_work_sync(&p->rej_work);

	/* Its last values: into the kind's refusals, and reported once. */
	spin_lock(&p->lock);
	ia_pub_read_locked(p, &q);
	if (!p->quiet && ia_events_wanted())
		ia_pub_event(p, &q, IA_EV_GONE, 0, 0);
	spin_unlock(&p->lock);
	ia_pub_free(p);
	return 0;
}

static long ia_pub_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (cmd != IOMMU_ACCOUNT_QUOTA_NOTIFY)
		return -ENOTTY;
	ia_pub_notify(f->private_data);
	return 0;
}

static int ia_pub_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct ia_pub *p = f->private_data;
	struct page *page;

	if (vma->vm_end - vma->vm_start != PAGE_SIZE || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	switch (vma->vm_pgoff) {
	case IOMMU_ACCOUNT_QUOTA_PGOFF_COUNTERS:
		page = p->pages[0];
		break;
	case IOMMU_ACCOUNT_QUOTA_PGOFF_STATE:
		/* The module's page: read-only, now and after mprotect(). */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		ia_vma_flags_clear(vma, VM_MAYWRITE);
		page = p->pages[1];
		break;
	default:
		return -EINVAL;
	}
	ia_vma_flags_set(vma, VM_DONTEXPAND);
#if IA_HAVE_PAGE_KMEMCG
	/*
	 * The page is charged to the creator's cgroup and so typed Kmemcg
	 * (kmod/conftest/page_kmemcg.c): mapped by its frame. The mapping
	 * holds the file, whose release frees the page, so the frame
	 * outlives it.
	 */
	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(page), PAGE_SIZE,
			       vma->vm_page_prot);
#else
	return vm_insert_page(vma, vma->vm_start, page);
#endif
}

static const struct file_operations ia_pub_fops = {
	.owner = THIS_MODULE,
	.release = ia_pub_release,
	.unlocked_ioctl = ia_pub_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ia_pub_mmap,
	.llseek = noop_llseek,
};

/* --- creation ---------------------------------------------------------------------- */

/* The size of the first version of the request. */
#define IA_PUB_CREATE_SIZE_V1 sizeof(struct iommu_account_quota_create)

/* A name: NUL-terminated, not empty, UTF-8 without control characters. */
static int ia_pub_check_name(const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strnlen(name, len);
	size_t i = 0;
	int more;

	if (n == len)
		return -ENAMETOOLONG;
	if (!n)
		return -EINVAL;
	while (i < n) {
		unsigned char b = s[i++];
		u32 cp;

		if (b < 0x20 || b == 0x7f)
			return -EINVAL;
		if (b < 0x80)
			continue;
		if (b >= 0xc2 && b <= 0xdf) {
			more = 1;
			cp = b & 0x1f;
		} else if (b >= 0xe0 && b <= 0xef) {
			more = 2;
			cp = b & 0x0f;
		} else if (b >= 0xf0 && b <= 0xf4) {
			more = 3;
			cp = b & 0x07;
		} else {
			return -EILSEQ;
		}
		while (more--) {
			if (i >= n || (s[i] & 0xc0) != 0x80)
				return -EILSEQ;
			cp = (cp << 6) | (s[i++] & 0x3f);
		}
		/* Overlong forms, surrogates, beyond U+10FFFF. */
		if ((cp < 0x800 && b >= 0xe0) || (cp < 0x10000 && b >= 0xf0) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return -EILSEQ;
	}
	return 0;
}

static int ia_pub_check(const struct iommu_account_quota_create *req)
{
	if (req->kind != IA_KIND_QPAIR)
		return -EOPNOTSUPP;
	if (req->flags || !req->capacity || req->capacity > IOMMU_ACCOUNT_QUOTA_CAPACITY_MAX)
		return -EINVAL;
	if ((req->warn || req->crit) &&
	    (!req->warn || req->warn >= req->crit || req->crit > 1000))
		return -EINVAL;
	return ia_pub_check_name(req->name, sizeof(req->name));
}

static struct ia_pub *ia_pub_alloc(const struct iommu_account_quota_create *req)
{
	struct ia_pub *p;
	int i;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return NULL;
	for (i = 0; i < 2; i++) {
		p->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!p->pages[i]) {
			ia_pub_free(p);
			return NULL;
		}
	}
	p->c = page_address(p->pages[0]);
	p->st = page_address(p->pages[1]);
	p->kind = req->kind;
	p->capacity = req->capacity;
	p->own.warn = req->warn;
	p->own.crit = req->crit;
	memcpy(p->name, req->name, sizeof(p->name));
	ia_owner_current(&p->owner);
	p->cgroup_id = ia_task_cgroup_id(current);
	spin_lock_init(&p->lock);
	INIT_DELAYED_WORK(&p->rej_work, ia_pub_rej_workfn);
	p->st->magic = IOMMU_ACCOUNT_QUOTA_MAGIC;
	p->st->abi = IOMMU_ACCOUNT_QUOTA_ABI;
	p->st->kind = p->kind;
	p->st->capacity = p->capacity;
	p->st->reject_armed = 1;
	return p;
}

/* Register @p under a new id, within its uid's cap. */
static int ia_pub_add(struct ia_pub *p)
{
	unsigned long n;
	int ret;

	mutex_lock(&ia_pub_lock);
	n = xa_to_value(xa_load(&ia_pub_uids, __kuid_val(p->owner.uid)));
	if (n >= READ_ONCE(quota_max_per_uid)) {
		ret = -EDQUOT;
		goto out;
	}
	ret = xa_err(xa_store(&ia_pub_uids, __kuid_val(p->owner.uid), xa_mk_value(n + 1),
			      GFP_KERNEL_ACCOUNT));
	if (ret)
		goto out;
	ret = xa_alloc_cyclic(&ia_pub_objs, &p->id, p, XA_LIMIT(1, INT_MAX), &ia_pub_next,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ia_pub_uid_put(p->owner.uid);
		goto out;
	}
	ret = 0;
	p->st->id = p->id;
	spin_lock(&p->lock);
	ia_pub_set_thr_locked(p, p->own.warn ? &p->own : &ia_pub_thr, ia_pub_margin);
	spin_unlock(&p->lock);
out:
	mutex_unlock(&ia_pub_lock);
	return ret;
}

static long ia_pub_create(struct iommu_account_quota_create __user *ureq)
{
	struct iommu_account_quota_create req;
	struct file *file;
	struct ia_pub *p;
	u32 size;
	int fd, ret;

	if (get_user(size, &ureq->size))
		return -EFAULT;
	if (size < IA_PUB_CREATE_SIZE_V1 || size > PAGE_SIZE)
		return -EINVAL;
	/* A larger request from a newer library: E2BIG unless its tail is 0. */
	ret = copy_struct_from_user(&req, sizeof(req), ureq, size);
	if (ret)
		return ret;
	ret = ia_pub_check(&req);
	if (ret)
		return ret;
	p = ia_pub_alloc(&req);
	if (!p)
		return -ENOMEM;
	ret = ia_pub_add(p);
	if (ret) {
		ia_pub_free(p);
		return ret;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_del;
	}
	file = anon_inode_getfile("[iommu-account-quota]", &ia_pub_fops, p, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_fd;
	}
	if (put_user(p->id, &ureq->id)) {
		/* The release frees it; it was never seen. */
		p->quiet = true;
		put_unused_fd(fd);
		fput(file);
		return -EFAULT;
	}
	fd_install(fd, file);
	return fd;

err_fd:
	put_unused_fd(fd);
err_del:
	mutex_lock(&ia_pub_lock);
	xa_erase(&ia_pub_objs, p->id);
	ia_pub_uid_put(p->owner.uid);
	mutex_unlock(&ia_pub_lock);
	ia_pub_free(p);
	return ret;
}

static long ia_dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (cmd != IOMMU_ACCOUNT_QUOTA_CREATE)
		return -ENOTTY;
	return ia_pub_create((struct iommu_account_quota_create __user *)arg);
}

static const struct file_operations ia_dev_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ia_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ia_pub_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "iommu-account",
	.fops = &ia_dev_fops,
	.mode = 0666,
};

/* --- snapshots and thresholds --------------------------------------------------------- */

static struct ia_quota_list *ia_pub_snapshot(const struct ia_quota_query *q)
{
	const struct ia_filter *f = &q->seen;
	s64 kind = q->kind;
	struct ia_quota_list *snap;
	struct ia_pub *p;
	unsigned long i, n = 0;

	mutex_lock(&ia_pub_lock);
	xa_for_each(&ia_pub_objs, i, p)
		n++;
	snap = kvmalloc(struct_size(snap, rec, n), GFP_KERNEL);
	if (!snap) {
		mutex_unlock(&ia_pub_lock);
		return ERR_PTR(-ENOMEM);
	}
	snap->nr = 0;
	xa_for_each(&ia_pub_objs, i, p) {
		if ((kind >= 0 && p->kind != kind) ||
		    !ia_filter_pass(f, p->id, p->owner.uid, p->owner.pid))
			continue;
		spin_lock(&p->lock);
		ia_pub_read_locked(p, &snap->rec[snap->nr++]);
		spin_unlock(&p->lock);
		cond_resched();
	}
	mutex_unlock(&ia_pub_lock);
	return snap;
}

static void ia_pub_thresholds_get(struct ia_thresholds *t, u32 *margin)
{
	mutex_lock(&ia_pub_lock);
	*t = ia_pub_thr;
	*margin = ia_pub_margin;
	mutex_unlock(&ia_pub_lock);
}

static void ia_pub_thresholds_set(const struct ia_thresholds *t, const u32 *want_margin)
{
	bool want = ia_events_wanted();
	struct ia_pub *p;
	unsigned long i;

	u32 margin;

	mutex_lock(&ia_pub_lock);
	/* Without one asked for, the kind's margin stays below its new warn. */
	margin = want_margin ? *want_margin : min(ia_pub_margin, t->warn - 1);
	ia_pub_thr = *t;
	ia_pub_margin = margin;
	xa_for_each(&ia_pub_objs, i, p) {
		spin_lock(&p->lock);
		ia_pub_set_thr_locked(p, p->own.warn ? &p->own : t, margin);
		/* A level already passed is raised now, one above re-arms. */
		ia_pub_eval_locked(p, want);
		spin_unlock(&p->lock);
		cond_resched();
	}
	mutex_unlock(&ia_pub_lock);
}

/* A published object's own attributes in GET_QUOTA and its events. */
static int ia_pub_put(struct sk_buff *msg, const struct ia_quota_rec *q)
{
	const int pad = IOMMU_ACCOUNT_A_QUOTA_PAD;

	if (nla_put_string(msg, IOMMU_ACCOUNT_A_QUOTA_NAME, q->pub.name) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID, q->pub.cgroup_id, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_PEAK, q->pub.peak, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_SUBMITTED, q->pub.submitted, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_COMPLETED, q->pub.completed, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW, q->pub.deferred_now, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL, q->pub.deferred_total,
			      pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_WARN, q->pub.warn) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_CRIT, q->pub.crit) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_FLAGS, q->flags))
		return -EMSGSIZE;
	return 0;
}

const struct ia_quota_kind ia_qpair_kind = {
	.id = IA_KIND_QPAIR,
	.name = "qpair",
	.unit = "descriptors",
	.needs = IA_FEAT_PUBLISHED,
	.snapshot = ia_pub_snapshot,
	.put = ia_pub_put,
	.thr_get = ia_pub_thresholds_get,
	.thr_set = ia_pub_thresholds_set,
	.has_margin = true,
};

static bool ia_pub_registered;

int ia_pub_init(const struct ia_source *self)
{
	int ret = misc_register(&ia_pub_dev);

	ia_pub_registered = !ret;
	if (ret) {
		/* The rest of the module works without it. */
		ia_feature_set(IA_FEAT_PUBLISHED, false, "misc_register: error %d", ret);
		return 0;
	}
	ia_feature_set(IA_FEAT_PUBLISHED, true,
		       "/dev/iommu-account (mode 0666), %u objects per uid",
		       READ_ONCE(quota_max_per_uid));
	return 0;
}

void ia_pub_exit(const struct ia_source *self)
{
	/* No object is left: each one's file holds a reference on the module. */
	if (ia_pub_registered)
		misc_deregister(&ia_pub_dev);
	WARN_ON(!xa_empty(&ia_pub_objs));
	xa_destroy(&ia_pub_uids);
}
