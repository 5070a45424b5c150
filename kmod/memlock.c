// SPDX-License-Identifier: GPL-2.0
/*
 * The charge paths of the per-uid pot (user_struct->locked_vm): who charges
 * it, through what, what is still held and by whom, and the moment a charge
 * is refused or crosses a threshold.
 *
 * Charges: a return hook on __io_account_mem(user, nr_pages), io_uring's
 * one charging function on every kernel of the matrix (global there), and
 * on io_account_mem(user, mm, nr_pages) where that exists, because 7.x
 * inlines the former into it for registered buffers (a charge seen by both
 * is counted once). The uncharge helper is static inline, so releases are
 * followed where they happen to a known object instead. The consumer is decided by the call
 * site: a charge made inside io_sqe_buffer_register() is a registered
 * buffer; other call sites are classified by the function the charge
 * returns to (ring/region memory, zero-copy notifications, other).
 *
 * Releases, found by symbol, whichever the kernel has:
 *  - per buffer: io_buffer_unmap(ctx, slot) exists and io_unaccount_mem()
 *    does not (the charge is inlined in the unmap): the charges made inside
 *    io_sqe_buffer_register(ctx, iov, pimu, ...) are recorded under the
 *    buffer the kernel stored at *pimu, and released when io_buffer_unmap
 *    is given that buffer (*slot);
 *  - per ring: no io_buffer_unmap (7.x: it and the uncharge are inlined
 *    into io_free_rsrc_node): the charges inside io_sqe_buffer_register(ctx,
 *    ...) are recorded under the ring; an io_unaccount_mem() call seen
 *    inside io_free_rsrc_node(ctx, ..) takes its exact count off, and when
 *    io_sqe_buffers_unregister(ctx) empties the ring's table (unregister or
 *    teardown) the rest goes. Replacing one occupied slot is not seen on
 *    such a kernel until the table goes (documented limitation).
 * Either way only the kernel's own arguments and return values are used:
 * the pot of each charge (user), its size (nr_pages), its result, and the
 * object the kernel stored. Consumers whose release is not hooked on this
 * kernel are counted (charges, refusals, events) but not attributed: their
 * bytes are in "unattributed", which is the kernel's counter minus what is
 * attributed, so the parts always add up.
 *
 * A ring being closed (io_uring_release, the fops' release) marks its
 * records as pending release; so does the exit of the charging process.
 *
 * This file is the ledger (users, records, thresholds, refusals, snapshots)
 * and the source's init and exit; memlock_uring.c and memlock_xdp.c follow
 * the consumers. Locking: memlock.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "memlock.h"
#include "source.h"
#include "wrapper/kallsyms.h"

DEFINE_SPINLOCK(ia_ml_lock);
bool ia_ml_exiting;
bool ia_ml_iommufd_on;
/* A refused process's cgroup path is built here, under ia_ml_lock. */
static char ia_ml_cgbuf[IA_CGPATH_BUF];

static DEFINE_HASHTABLE(ia_ml_users, 6);
static DEFINE_HASHTABLE(ia_ml_recs, 8);
static DEFINE_HASHTABLE(ia_ml_by_ctx, 8);	/* a closing ring finds its records */
static struct ia_thresholds ia_ml_thr = { 800, 950 };
static u32 ia_ml_margin = 50;

/*
 * Records given back (ia.h: struct ia_spare), under ia_ml_lock: a register
 * and its unregister cost a slab allocation and a free otherwise, about a
 * fifth of what the hooks add to them.
 */
static struct ia_spare ia_ml_spare = IA_SPARE_INIT(32);

/* --- the ledger (ia_ml_lock held) ---------------------------------------------- */

struct ia_ml_user *ia_ml_user_get(kuid_t uid)
{
	struct ia_ml_user *u;

	hash_for_each_possible(ia_ml_users, u, hnode, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	u = kzalloc(sizeof(*u), GFP_ATOMIC);
	if (!u)
		return NULL;
	u->uid = uid;
	hash_add(ia_ml_users, &u->hnode, __kuid_val(uid));
	return u;
}

struct ia_ml_rec *ia_ml_rec_of(const void *key)
{
	struct ia_ml_rec *r;

	hash_for_each_possible(ia_ml_recs, r, hnode, (unsigned long)key)
		if (r->key == key)
			return r;
	return NULL;
}

struct ia_ml_rec *ia_ml_rec_new(const void *key, const void *ctx, kuid_t uid,
				enum ia_consumer consumer, const struct ia_ml_rec_ops *ops)
{
	struct hlist_node *n = ops->size ? NULL : ia_spare_get(&ia_ml_spare);
	struct ia_ml_rec *r;

	if (n) {
		r = hlist_entry(n, struct ia_ml_rec, hnode);
		memset(r, 0, sizeof(*r));
	} else {
		/* A consumer's own record embeds the ledger's at its start. */
		r = kzalloc(ops->size ?: sizeof(*r), GFP_ATOMIC);
		if (!r)
			return NULL;
	}
	r->ops = ops;
	r->key = key;
	r->ctx = ctx;
	r->uid = uid;
	r->consumer = consumer;
	r->pid = get_pid(task_tgid(current));
	hash_add(ia_ml_recs, &r->hnode, (unsigned long)key);
	hash_add(ia_ml_by_ctx, &r->cnode, (unsigned long)ctx);
	return r;
}

static void ia_ml_rec_del(struct ia_ml_rec *r)
{
	if (r->ops->del)
		r->ops->del(r);
	hash_del(&r->hnode);
	hash_del(&r->cnode);
	put_pid(r->pid);
	if (!r->ops->size && !READ_ONCE(ia_ml_exiting) && ia_spare_put(&ia_ml_spare, &r->hnode))
		return;
	kfree(r);
}

/* The ledger entry of @r's uid, looked up once. */
static struct ia_ml_user *ia_ml_rec_user(struct ia_ml_rec *r)
{
	if (!r->acct)
		r->acct = ia_ml_user_get(r->uid);
	return r->acct;
}

void ia_ml_flag(kuid_t uid, u32 bit)
{
	struct ia_ml_user *u = ia_ml_user_get(uid);

	if (u)
		u->inexact |= bit;
}

void ia_ml_release(struct ia_ml_rec *r, u64 pages)
{
	struct ia_ml_user *u = ia_ml_rec_user(r);

	if (pages > r->pages) {
		if (u)
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS;
		pages = r->pages;
	}
	r->pages -= pages;
	if (r->ops->unpinned)
		r->ops->unpinned(r, pages);
	if (u) {
		u64 *c = r->mode == IA_ML_MM ? &u->iommufd_mm_pages :
			 r->mode == IA_ML_EXEMPT ? &u->iommufd_exempt_pages :
			 &u->pages[r->consumer];

		*c -= min(*c, pages);
	}
	if (!r->pages && !r->keep)
		ia_ml_rec_del(r);
}

void ia_ml_release_key(const void *key)
{
	struct ia_ml_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	r = ia_ml_rec_of(key);
	if (r) {
		r->keep = false;
		ia_ml_release(r, r->pages);
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

void ia_ml_ring_closed(const void *ctx)
{
	struct ia_ml_rec *r;

	hash_for_each_possible(ia_ml_by_ctx, r, cnode, (unsigned long)ctx)
		if (r->ctx == ctx)
			r->closed = true;
}

/* --- events ------------------------------------------------------------------ */

static void ia_ml_event_init(struct ia_event *ev, enum ia_event_type type, kuid_t uid,
			     enum ia_consumer consumer, u64 pages, u64 pot_pages, u64 limit)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = IA_KIND_UID_POT;
	ev->type = type;
	ev->time_ns = ktime_get_real_ns();
	ev->pot.uid = uid;
	ev->pot.consumer = consumer;
	ev->size = pages << PAGE_SHIFT;
	ev->locked_bytes = pot_pages << PAGE_SHIFT;
	ev->memlock = limit;
	ev->cgroup_id = ia_task_cgroup_id(current);
	ia_owner_current(&ev->who);
}

/* For a process whose limit is @limit (bytes; RLIM_INFINITY: no level). */
static void ia_ml_levels_bounds(struct ia_ml_user *u, u64 limit)
{
	u->bnd_limit = limit;
	ia_levels_bounds(&u->bnd, &u->levels, &ia_ml_thr, ia_ml_margin,
			 limit == RLIM_INFINITY ? 0 : limit, PAGE_SHIFT);
}

/* ia_ml_thresholds() found a bound crossed, or none computed for @limit. */
void ia_ml_thresholds_cross(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
			    u64 pot, u64 limit)
{
	unsigned int raised;
	struct ia_event ev;

	lockdep_assert_held(&ia_ml_lock);
	if (limit == RLIM_INFINITY || !limit) {
		ia_ml_levels_bounds(u, limit);
		return;
	}
	/* Re-armed from the pot before this charge, raised from the pot after. */
	ia_levels_rearm(&u->levels, &ia_ml_thr, ia_ml_margin,
			ia_per_mille((pot - min(pot, pages)) << PAGE_SHIFT, limit));
	raised = ia_levels_raise(&u->levels, &ia_ml_thr, ia_per_mille(pot << PAGE_SHIFT, limit),
				 true);
	ia_ml_levels_bounds(u, limit);
	if (!raised || !ia_events_wanted())
		return;
	ia_ml_event_init(&ev, IA_EV_THRESHOLD, u->uid, consumer, pages, pot, limit);
	ev.level = fls(raised) - 1;
	ev.threshold = ia_level_line(&ia_ml_thr, ev.level);
	ia_event_queue(&ev);
}

static void ia_ml_flush_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(ia_ml_flush_work, ia_ml_flush_fn);
static bool ia_ml_flush_pending;

void ia_ml_refused_in(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages, u64 pot,
		      u64 limit, int err, u32 ioas)
{
	u64 now = ktime_get_ns();
	struct ia_cgpath *cgp;
	struct ia_event ev;
	u32 count;

	lockdep_assert_held(&ia_ml_lock);
	u->refusals++;
	ia_kind_refused(IA_KIND_UID_POT, 1);
	ia_ml_event_init(&ev, IA_EV_FAILURE, u->uid, consumer, pages, pot, limit);
	ev.err = err;
	ev.ioas = ioas;
	u->has_last = true;
	u->last = (struct ia_failure){ .time_ns = ev.time_ns, .err = err, .size = ev.size,
				       .who = ev.who, .cgroup_id = ev.cgroup_id, .ioas = ioas };
	/*
	 * Under ia_ml_lock (which also guards the scratch buffer): the path is
	 * taken now, the cgroup may go soon. Unknown, rather than an earlier
	 * refusal's path, when it cannot be had.
	 */
	cgp = ia_task_cgpath(current, ia_ml_cgbuf, u->last_cgpath, GFP_ATOMIC);
	ia_cgpath_put(u->last_cgpath);
	u->last_cgpath = cgp;
	if (ia_coalesce_fail(&u->co, now, &count)) {
		ev.count = count;
		if (ia_events_wanted())
			ia_event_queue(&ev);
		return;
	}
	u->pending_ev = ev;
	ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
}

static void ia_ml_flush_fn(struct work_struct *w)
{
	u64 now = ktime_get_ns();
	struct ia_ml_user *u;
	unsigned long flags;
	bool again = false;
	unsigned int bkt;
	u32 count;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_flush_pending = false;
	hash_for_each(ia_ml_users, bkt, u, hnode) {
		if (!u->co.pending)
			continue;
		count = ia_coalesce_due(&u->co, now);
		if (!count) {
			again = true;
			continue;
		}
		u->pending_ev.count = count;
		u->pending_ev.time_ns = ktime_get_real_ns();
		if (ia_events_wanted())
			ia_event_queue(&u->pending_ev);
	}
	if (again)
		ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* --- init / exit ---------------------------------------------------------------- */

/* The consumers (the memlock source's parts, from the table) and their hook sets. */
static const struct ia_source *const *ia_ml_parts;
static struct ia_hook_set *ia_ml_sets[IA_CONS_COUNT];
static unsigned int ia_ml_nsets;

static const struct ia_source *ia_ml_part_of(const struct ia_hook_set *s)
{
	const struct ia_source *const *p;

	for (p = ia_ml_parts; p && *p; p++)
		if ((*p)->hooks == s)
			return *p;
	return NULL;
}

/*
 * A set's hooks changed under it (hook.c: a livepatch came). Its feature is
 * written again; a set taken down (PREEMPT_RT) is off from here (its start
 * function says so) and what it followed is forgotten: the pot's bytes are
 * unattributed, never attributed to records whose release is not seen.
 */
static void ia_ml_hooks_changed(struct ia_hook_set *s)
{
	const struct ia_source *part = ia_ml_part_of(s);
	struct ia_ml_rec *r;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;

	if (!part)
		return;
	part->start();
	if (s->registered)
		return;
	if (part->exit)
		part->exit(part);
	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each_safe(ia_ml_recs, bkt, tmp, r, hnode)
		if (r->ops->hooks == s) {
			/* Its pages leave the uid's parts; the record goes. */
			r->keep = false;
			ia_ml_release(r, r->pages);
		}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

int ia_memlock_init(const struct ia_source *self)
{
	const char *why = ia_kallsyms_unavailable();
	const struct ia_source *const *p;
	int ret;

	ia_ml_parts = self->parts;
	for (p = ia_ml_parts; *p; p++) {
		if (WARN_ON(ia_ml_nsets == ARRAY_SIZE(ia_ml_sets)))
			return -EINVAL;
		ia_ml_sets[ia_ml_nsets++] = (*p)->hooks;
	}
	for (p = ia_ml_parts; *p; p++) {
		if (why) {
			ia_feature_set((*p)->feature, false, "%s", why);
			continue;
		}
		ret = (*p)->init(*p);
		if (ret)
			return ret;
		(*p)->hooks->changed = ia_ml_hooks_changed;
	}
	if (why)
		return 0;
	/*
	 * Failures are the features' to report (the hooks that took stay
	 * until exit and do nothing until their consumer starts).
	 */
	for (p = ia_ml_parts; *p; p++)
		ia_hook_set_register((*p)->hooks);
	for (p = ia_ml_parts; *p; p++)
		(*p)->start();
	return 0;
}

void ia_memlock_exit(const struct ia_source *self)
{
	const struct ia_source *const *p;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_exiting = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	/* Every set at once: their wrappers share the grace periods. */
	ia_hook_sets_unregister(ia_ml_sets, ia_ml_nsets);
	for (p = ia_ml_parts; p && *p; p++)
		if ((*p)->exit)
			(*p)->exit(*p);
	cancel_delayed_work_sync(&ia_ml_flush_work);
	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each_safe(ia_ml_recs, bkt, tmp, r, hnode)
		ia_ml_rec_del(r);
	hlist_for_each_entry_safe(r, tmp, &ia_ml_spare.head, hnode)
		kfree(r);
	ia_spare_reset(&ia_ml_spare);
	hash_for_each_safe(ia_ml_users, bkt, tmp, u, hnode) {
		hash_del(&u->hnode);
		ia_cgpath_put(u->last_cgpath);
		kfree(u);
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* Calls not seen: kprobe hits and kretprobe instances lost (ftrace misses none). */
u64 ia_memlock_probes_missed(void)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < ia_ml_nsets; i++)
		n += ia_hook_set_missed(ia_ml_sets[i]);
	return n;
}

/* --- snapshots ---------------------------------------------------------------- */

static bool ia_ml_rec_pending(const struct ia_ml_rec *r)
{
	bool gone;

	if (r->closed)
		return true;
	rcu_read_lock();
	gone = !pid_task(r->pid, PIDTYPE_TGID);
	rcu_read_unlock();
	return gone;
}

static int ia_ml_uid_cmp(const void *a, const void *b)
{
	u32 x = __kuid_val(((const struct ia_memlock_uid *)a)->uid);
	u32 y = __kuid_val(((const struct ia_memlock_uid *)b)->uid);

	return x < y ? -1 : x > y;
}

static unsigned int ia_ml_uids_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_uids *s = buf;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	unsigned long flags;
	unsigned int bkt, n = 0, i;

	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each(ia_ml_users, bkt, u, hnode)
		n++;
	if (n > cap)
		goto out;
	n = 0;
	hash_for_each(ia_ml_users, bkt, u, hnode) {
		struct ia_memlock_uid *o = &s->u[n++];

		o->uid = u->uid;
		memcpy(o->pages, u->pages, sizeof(o->pages));
		o->iommufd_mm_pages = u->iommufd_mm_pages;
		o->iommufd_exempt_pages = u->iommufd_exempt_pages;
		o->charges = u->charges;
		o->refusals = u->refusals;
		o->inexact = u->inexact;
		o->has_last = u->has_last;
		o->last = u->last;
		o->last_cgpath = ia_cgpath_get(u->last_cgpath);
	}
	hash_for_each(ia_ml_recs, bkt, r, hnode) {
		if (r->mode != IA_ML_POT || !r->pages || !ia_ml_rec_pending(r))
			continue;
		for (i = 0; i < n; i++)
			if (uid_eq(s->u[i].uid, r->uid))
				s->u[i].pending_pages += r->pages;
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return n;
}

struct ia_memlock_uids *ia_memlock_uids(void)
{
	struct ia_memlock_uids *s;
	unsigned int n;

	s = ia_snapshot_take(offsetof(struct ia_memlock_uids, u), sizeof(s->u[0]), 16,
			     ia_ml_uids_fill, NULL, &n);
	if (IS_ERR(s))
		return s;
	s->nr = n;
	s->probe_missed = ia_memlock_probes_missed() != 0;
	s->iommufd = READ_ONCE(ia_ml_iommufd_on);
	sort(s->u, n, sizeof(s->u[0]), ia_ml_uid_cmp, NULL);
	return s;
}

void ia_memlock_uids_free(struct ia_memlock_uids *s)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(s))
		return;
	for (i = 0; i < s->nr; i++)
		ia_cgpath_put(s->u[i].last_cgpath);
	kvfree(s);
}

const struct ia_memlock_uid *ia_memlock_uid_find(const struct ia_memlock_uids *s, kuid_t uid)
{
	unsigned int lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (uid_eq(s->u[mid].uid, uid))
			return &s->u[mid];
		if (__kuid_val(s->u[mid].uid) < __kuid_val(uid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int ia_ml_proc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ia_memlock_proc *)a)->pid;
	pid_t y = ((const struct ia_memlock_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

static unsigned int ia_ml_procs_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_procs *s = buf;
	struct ia_ml_rec *r, *q;
	unsigned long flags;
	unsigned int bkt, bkt2, n = 0, i;

	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each(ia_ml_recs, bkt, r, hnode)
		n++;
	if (n > cap)
		goto out;
	n = 0;
	hash_for_each(ia_ml_recs, bkt, r, hnode) {
		pid_t pid = pid_nr(r->pid);
		bool first_ring = true;

		/* What the pot holds: not iommufd's pins charged elsewhere, nor kept empties. */
		if (r->mode != IA_ML_POT || !r->pages)
			continue;

		for (i = 0; i < n && s->p[i].pid != pid; i++)
			;
		if (i == n) {
			s->p[n].pid = pid;
			n++;
		}
		s->p[i].pages[r->consumer] += r->pages;
		if (r->consumer != IA_CONS_URING_BUFFERS)
			continue;
		/* Count each ring once per process. */
		hash_for_each(ia_ml_recs, bkt2, q, hnode) {
			if (q == r)
				break;
			if (q->consumer == IA_CONS_URING_BUFFERS && q->ctx == r->ctx &&
			    q->pid == r->pid)
				first_ring = false;
		}
		s->p[i].rings += first_ring;
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return n;
}

/* What each live charging process holds: pages by consumer, rings. */
struct ia_memlock_procs *ia_memlock_procs(void)
{
	struct ia_memlock_procs *s;
	unsigned int n;

	s = ia_snapshot_take(offsetof(struct ia_memlock_procs, p), sizeof(s->p[0]), 16,
			     ia_ml_procs_fill, NULL, &n);
	if (IS_ERR(s))
		return s;
	s->nr = n;
	sort(s->p, n, sizeof(s->p[0]), ia_ml_proc_cmp, NULL);
	return s;
}

const struct ia_memlock_proc *ia_memlock_proc_find(const struct ia_memlock_procs *s, pid_t pid)
{
	unsigned int lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (s->p[mid].pid == pid)
			return &s->p[mid];
		if (s->p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ia_memlock_thresholds_get(struct ia_thresholds *t, u32 *margin)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	*t = ia_ml_thr;
	*margin = ia_ml_margin;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* New lines: every level re-arms; the next charge raises what it reaches. */
void ia_memlock_thresholds_set(const struct ia_thresholds *t, u32 margin)
{
	struct ia_ml_user *u;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_thr = *t;
	ia_ml_margin = margin;
	hash_for_each(ia_ml_users, bkt, u, hnode) {
		u->levels.raised = 0;
		u->bnd.raise_at = 0;	/* the bounds, at the next charge */
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}
