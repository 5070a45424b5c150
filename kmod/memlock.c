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

/* The ledger's tables (htab.h: they grow with what they hold). */
static struct ia_htab ia_ml_users;	/* struct ia_ml_user, by uid */
static struct ia_htab ia_ml_recs;	/* struct ia_ml_rec, by key */
static struct ia_htab ia_ml_holders;	/* struct ia_ml_holder, by pid */
static struct ia_htab ia_ml_rings;	/* struct ia_ml_ring, by ctx, while open */
static LIST_HEAD(ia_ml_all_users);
static unsigned int ia_ml_nusers;
static LIST_HEAD(ia_ml_pend_users);	/* users with a refusal report held */
static struct ia_thresholds ia_ml_thr = { 800, 950 };
static u32 ia_ml_margin = 50;
u32 ia_ml_thr_gen;

/*
 * Records given back (ia.h: struct ia_spare), under ia_ml_lock: a register
 * and its unregister cost a slab allocation and a free otherwise, about a
 * fifth of what the hooks add to them.
 */
static struct ia_spare ia_ml_spare = IA_SPARE_INIT(32);
/* So are holders, rings and links: a ring's first buffer makes all three. */
static struct ia_spare ia_ml_spare_h = IA_SPARE_INIT(32);
static struct ia_spare ia_ml_spare_r = IA_SPARE_INIT(32);
static struct ia_spare ia_ml_spare_l = IA_SPARE_INIT(32);

/* An object of @size (zeroed) whose spare-list node is at @off: a spare, or a new one. */
static void *ia_ml_obj_get(struct ia_spare *s, size_t size, size_t off)
{
	struct hlist_node *n = ia_spare_get(s);
	void *o;

	if (!n)
		return kzalloc(size, GFP_ATOMIC);
	o = (char *)n - off;
	memset(o, 0, size);
	return o;
}

static void ia_ml_obj_put(struct ia_spare *s, void *o, size_t off)
{
	if (READ_ONCE(ia_ml_exiting) || !ia_spare_put(s, (struct hlist_node *)((char *)o + off)))
		kfree(o);
}

#define IA_ML_GET(s, type, member) \
	((type *)ia_ml_obj_get(s, sizeof(type), offsetof(type, member)))

static unsigned long ia_ml_user_hash(const struct hlist_node *n)
{
	return __kuid_val(hlist_entry(n, struct ia_ml_user, hnode)->uid);
}

static unsigned long ia_ml_rec_hash(const struct hlist_node *n)
{
	return (unsigned long)hlist_entry(n, struct ia_ml_rec, hnode)->key;
}

static unsigned long ia_ml_holder_hash(const struct hlist_node *n)
{
	return (unsigned long)hlist_entry(n, struct ia_ml_holder, hnode)->pid;
}

static unsigned long ia_ml_ring_hash(const struct hlist_node *n)
{
	return (unsigned long)hlist_entry(n, struct ia_ml_ring, hnode)->ctx;
}

/* --- the ledger (ia_ml_lock held) ---------------------------------------------- */

struct ia_ml_user *ia_ml_user_get(kuid_t uid)
{
	struct hlist_head *head;
	struct ia_ml_user *u;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_ml_users, __kuid_val(uid), t)); t++)
		hlist_for_each_entry(u, head, hnode)
			if (uid_eq(u->uid, uid))
				return u;
	u = kzalloc(sizeof(*u), GFP_ATOMIC);
	if (!u)
		return NULL;
	u->uid = uid;
	INIT_LIST_HEAD(&u->holders);
	INIT_LIST_HEAD(&u->pend);
	ia_htab_add(&ia_ml_users, &u->hnode, __kuid_val(uid));
	list_add_tail(&u->all, &ia_ml_all_users);
	ia_ml_nusers++;
	return u;
}

struct ia_ml_rec *ia_ml_rec_of(const void *key)
{
	struct hlist_head *head;
	struct ia_ml_rec *r;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_ml_recs, (unsigned long)key, t)); t++)
		hlist_for_each_entry(r, head, hnode)
			if (r->key == key)
				return r;
	return NULL;
}

/* Idle rings and holders kept (struct ia_ml_ring says why). */
#define IA_ML_IDLE 64
static LIST_HEAD(ia_ml_idle_holders);
static LIST_HEAD(ia_ml_idle_rings);
static unsigned int ia_ml_nidle_holders, ia_ml_nidle_rings;

static void ia_ml_holder_free(struct ia_ml_holder *h)
{
	list_del(&h->idle);
	ia_ml_nidle_holders--;
	ia_htab_del(&ia_ml_holders, &h->hnode);
	list_del(&h->unode);
	put_pid(h->pid);
	ia_ml_obj_put(&ia_ml_spare_h, h, offsetof(struct ia_ml_holder, hnode));
}

/* One reference more on @h, which leaves the idle list if it was idle. */
static void ia_ml_holder_pin(struct ia_ml_holder *h)
{
	if (!h->refs++ && !list_empty(&h->idle)) {
		list_del_init(&h->idle);
		ia_ml_nidle_holders--;
	}
}

/* @pid's holding of @u's pot, made if it is not there yet (NULL: no memory); one reference. */
static struct ia_ml_holder *ia_ml_holder_get(struct pid *pid, struct ia_ml_user *u)
{
	struct hlist_head *head;
	struct ia_ml_holder *h;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_ml_holders, (unsigned long)pid, t)); t++)
		hlist_for_each_entry(h, head, hnode)
			if (h->pid == pid && h->u == u)
				goto found;
	h = IA_ML_GET(&ia_ml_spare_h, struct ia_ml_holder, hnode);
	if (!h)
		return NULL;
	h->pid = get_pid(pid);
	h->u = u;
	INIT_LIST_HEAD(&h->idle);
	ia_htab_add(&ia_ml_holders, &h->hnode, (unsigned long)pid);
	list_add_tail(&h->unode, &u->holders);
found:
	ia_ml_holder_pin(h);
	return h;
}

static void ia_ml_holder_put(struct ia_ml_holder *h)
{
	if (--h->refs)
		return;
	list_add_tail(&h->idle, &ia_ml_idle_holders);
	if (++ia_ml_nidle_holders > IA_ML_IDLE)
		ia_ml_holder_free(list_first_entry(&ia_ml_idle_holders, struct ia_ml_holder, idle));
}

/* The ring goes with its links (all idle), which give back their holders. */
static void ia_ml_ring_free(struct ia_ml_ring *ring)
{
	struct ia_ml_link *l, *tmp;

	list_for_each_entry_safe(l, tmp, &ring->links, rnode) {
		list_del(&l->rnode);
		ia_ml_holder_put(l->h);
		ia_ml_obj_put(&ia_ml_spare_l, l, offsetof(struct ia_ml_link, snode));
	}
	if (!list_empty(&ring->idle)) {
		list_del(&ring->idle);
		ia_ml_nidle_rings--;
	}
	if (!ring->closed)
		ia_htab_del(&ia_ml_rings, &ring->hnode);
	ia_ml_obj_put(&ia_ml_spare_r, ring, offsetof(struct ia_ml_ring, hnode));
}

/* The open ring @ctx, or NULL. */
static struct ia_ml_ring *ia_ml_ring_of(const void *ctx)
{
	struct hlist_head *head;
	struct ia_ml_ring *ring;
	int t;

	for (t = 0; (head = ia_htab_chain(&ia_ml_rings, (unsigned long)ctx, t)); t++)
		hlist_for_each_entry(ring, head, hnode)
			if (ring->ctx == ctx)
				return ring;
	return NULL;
}

/* @h's link on the open ring @ctx, made if need be, with one record more (NULL: no memory). */
static struct ia_ml_link *ia_ml_link_get(const void *ctx, struct ia_ml_holder *h)
{
	struct ia_ml_ring *ring = ia_ml_ring_of(ctx);
	struct ia_ml_link *l;

	if (ring)
		goto found;
	ring = IA_ML_GET(&ia_ml_spare_r, struct ia_ml_ring, hnode);
	if (!ring)
		return NULL;
	ring->ctx = ctx;
	INIT_LIST_HEAD(&ring->links);
	INIT_LIST_HEAD(&ring->idle);
	ia_htab_add(&ia_ml_rings, &ring->hnode, (unsigned long)ctx);
	/* Idle until it has a record, as it would be were it kept. */
	list_add_tail(&ring->idle, &ia_ml_idle_rings);
	ia_ml_nidle_rings++;
found:
	/* One link per holder of the ring's records: a few at most. */
	list_for_each_entry(l, &ring->links, rnode)
		if (l->h == h)
			goto linked;
	l = IA_ML_GET(&ia_ml_spare_l, struct ia_ml_link, snode);
	if (!l) {
		if (list_empty(&ring->links))
			ia_ml_ring_free(ring);
		return NULL;
	}
	l->ring = ring;
	l->h = h;
	h->refs++;
	list_add_tail(&l->rnode, &ring->links);
linked:
	if (!l->nrec++ && !ring->busy++) {
		list_del_init(&ring->idle);
		ia_ml_nidle_rings--;
	}
	return l;
}

static void ia_ml_link_put(struct ia_ml_link *l)
{
	struct ia_ml_ring *ring = l->ring;

	if (--l->nrec || --ring->busy)
		return;
	if (ring->closed) {
		ia_ml_ring_free(ring);
		return;
	}
	list_add_tail(&ring->idle, &ia_ml_idle_rings);
	if (++ia_ml_nidle_rings > IA_ML_IDLE)
		ia_ml_ring_free(list_first_entry(&ia_ml_idle_rings, struct ia_ml_ring, idle));
}

/* Every idle ring and holder goes (exit, after the records). */
static void ia_ml_idle_free(void)
{
	while (!list_empty(&ia_ml_idle_rings))
		ia_ml_ring_free(list_first_entry(&ia_ml_idle_rings, struct ia_ml_ring, idle));
	while (!list_empty(&ia_ml_idle_holders))
		ia_ml_holder_free(list_first_entry(&ia_ml_idle_holders, struct ia_ml_holder, idle));
}

/* @pages of @r's more (@add) or fewer in its holder's and its link's figures. */
static void ia_ml_hold(struct ia_ml_rec *r, u64 pages, bool add)
{
	struct ia_ml_holder *h = r->h;
	struct ia_ml_link *l = r->link;
	bool had;

	if (r->mode != IA_ML_POT || !pages)
		return;
	if (add) {
		h->pages[r->consumer] += pages;
		h->total += pages;
	} else {
		h->pages[r->consumer] -= min(h->pages[r->consumer], pages);
		h->total -= min(h->total, pages);
	}
	if (!l)
		return;
	had = l->pages;
	if (add)
		l->pages += pages;
	else
		l->pages -= min(l->pages, pages);
	if (l->ring->closed) {
		if (add)
			h->closed_pages += pages;
		else
			h->closed_pages -= min(h->closed_pages, pages);
	}
	if (had != !!l->pages)
		h->rings += l->pages ? 1 : -1;
}

struct ia_ml_rec *ia_ml_rec_new(const void *key, const void *ctx, kuid_t uid,
				enum ia_consumer consumer, const struct ia_ml_rec_ops *ops)
{
	struct ia_ml_user *u = ia_ml_user_get(uid);
	struct ia_ml_holder *h = u ? ia_ml_holder_get(task_tgid(current), u) : NULL;
	struct ia_ml_link *l = NULL;
	struct ia_ml_rec *r;

	if (!h)
		return NULL;
	if (ctx) {
		l = ia_ml_link_get(ctx, h);
		if (!l) {
			ia_ml_holder_put(h);
			return NULL;
		}
	}
	/* A consumer's own record embeds the ledger's at its start (no spares of those). */
	r = ops->size ? kzalloc(ops->size, GFP_ATOMIC) :
			IA_ML_GET(&ia_ml_spare, struct ia_ml_rec, hnode);
	if (!r) {
		if (l)
			ia_ml_link_put(l);
		ia_ml_holder_put(h);
		return NULL;
	}
	r->ops = ops;
	r->key = key;
	r->ctx = ctx;
	r->uid = uid;
	r->consumer = consumer;
	r->pid = h->pid;	/* the holder's reference, which outlives the record */
	r->acct = u;
	r->h = h;
	r->link = l;
	ia_htab_add(&ia_ml_recs, &r->hnode, (unsigned long)key);
	return r;
}

static void ia_ml_rec_del(struct ia_ml_rec *r)
{
	if (r->ops->del)
		r->ops->del(r);
	ia_ml_hold(r, r->pages, false);
	ia_htab_del(&ia_ml_recs, &r->hnode);
	if (r->link)
		ia_ml_link_put(r->link);
	ia_ml_holder_put(r->h);
	if (r->ops->size)
		kfree(r);
	else
		ia_ml_obj_put(&ia_ml_spare, r, offsetof(struct ia_ml_rec, hnode));
}

/* The ledger entry of @r's uid (set when it was made). */
static struct ia_ml_user *ia_ml_rec_user(struct ia_ml_rec *r)
{
	return r->acct;
}

void ia_ml_flag(kuid_t uid, u32 bit)
{
	struct ia_ml_user *u = ia_ml_user_get(uid);

	if (u)
		u->inexact |= bit;
}

/* Where @r's pages are counted in @u, by its mode. */
static u64 *ia_ml_mode_pages(struct ia_ml_rec *r, struct ia_ml_user *u)
{
	return r->mode == IA_ML_MM ? &u->iommufd_mm_pages :
	       r->mode == IA_ML_EXEMPT ? &u->iommufd_exempt_pages :
	       &u->pages[r->consumer];
}

void ia_ml_charged(struct ia_ml_rec *r, struct ia_ml_user *u, u64 pages)
{
	r->pages += pages;
	*ia_ml_mode_pages(r, u) += pages;
	ia_ml_hold(r, pages, true);
}

void ia_ml_set_mode(struct ia_ml_rec *r, enum ia_ml_mode mode)
{
	ia_ml_hold(r, r->pages, false);
	r->mode = mode;
	ia_ml_hold(r, r->pages, true);
}

void ia_ml_release(struct ia_ml_rec *r, u64 pages)
{
	struct ia_ml_user *u = ia_ml_rec_user(r);

	if (pages > r->pages) {
		if (u)
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS;
		pages = r->pages;
	}
	ia_ml_hold(r, pages, false);
	r->pages -= pages;
	if (r->ops->unpinned)
		r->ops->unpinned(r, pages);
	if (u) {
		u64 *c = ia_ml_mode_pages(r, u);

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

/*
 * Ring @ctx was closed: its links' pages wait for release, and it leaves the
 * table of open rings (a new ring at its address is another ring).
 */
void ia_ml_ring_closed(const void *ctx)
{
	struct ia_ml_ring *ring = ia_ml_ring_of(ctx);
	struct ia_ml_link *l;

	if (!ring)
		return;
	ring->closed = true;
	ia_htab_del(&ia_ml_rings, &ring->hnode);
	list_for_each_entry(l, &ring->links, rnode)
		l->h->closed_pages += l->pages;
	if (!ring->busy)
		ia_ml_ring_free(ring);	/* idle: nothing of it is left to release */
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
	if (list_empty(&u->pend))
		list_add_tail(&u->pend, &ia_ml_pend_users);
	ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
}

static void ia_ml_flush_fn(struct work_struct *w)
{
	u64 now = ktime_get_ns();
	struct ia_ml_user *u, *tmp;
	unsigned long flags;
	bool again = false;
	u32 count;

	/* Only the users with a report held (a refusal put each on the list). */
	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_flush_pending = false;
	list_for_each_entry_safe(u, tmp, &ia_ml_pend_users, pend) {
		if (!u->co.pending) {
			list_del_init(&u->pend);
			continue;
		}
		count = ia_coalesce_due(&u->co, now);
		if (!count) {
			again = true;
			continue;
		}
		if (!u->co.pending)
			list_del_init(&u->pend);
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
 * Every record a set's hooks made (@s; NULL: every record) goes, its pages
 * leaving the uid's parts (unattributed from then on): a batch of buckets
 * per hold of the lock. A table whose entries moved meanwhile is read
 * again from its start (what went is no longer in it).
 */
static void ia_ml_forget(const struct ia_hook_set *s)
{
	unsigned long gen = 0, flags;
	unsigned int bkt = 0, end;
	struct hlist_node *tmp;
	struct ia_ml_rec *r;
	bool done;

	do {
		spin_lock_irqsave(&ia_ml_lock, flags);
		if (!bkt || gen != ia_ml_recs.gen) {
			gen = ia_ml_recs.gen;
			bkt = 0;
		}
		end = min(bkt + IA_HTAB_BATCH, ia_htab_buckets(&ia_ml_recs));
		for (; bkt < end; bkt++)
			hlist_for_each_entry_safe(r, tmp, ia_htab_bucket_at(&ia_ml_recs, bkt),
						  hnode)
				if (!s || r->ops->hooks == s) {
					r->keep = false;
					ia_ml_release(r, r->pages);
				}
		done = bkt >= ia_htab_buckets(&ia_ml_recs);
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		cond_resched();
	} while (!done);
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

	if (!part)
		return;
	part->start();
	if (s->registered)
		return;
	if (part->exit)
		part->exit(part);
	ia_ml_forget(s);
}

static void ia_ml_spares_free(struct ia_spare *s, size_t off)
{
	struct hlist_node *n, *tmp;

	hlist_for_each_safe(n, tmp, &s->head)
		kfree((char *)n - off);
	ia_spare_reset(s);
}

static void ia_ml_tables_destroy(void)
{
	ia_htab_destroy(&ia_ml_rings);
	ia_htab_destroy(&ia_ml_holders);
	ia_htab_destroy(&ia_ml_recs);
	ia_htab_destroy(&ia_ml_users);
}

static int ia_ml_tables_init(void)
{
	/* Sized for a few hundred of each; they grow with what they hold. */
	if (ia_htab_init(&ia_ml_users, 6, &ia_ml_lock, ia_ml_user_hash) ||
	    ia_htab_init(&ia_ml_recs, 8, &ia_ml_lock, ia_ml_rec_hash) ||
	    ia_htab_init(&ia_ml_holders, 6, &ia_ml_lock, ia_ml_holder_hash) ||
	    ia_htab_init(&ia_ml_rings, 6, &ia_ml_lock, ia_ml_ring_hash)) {
		ia_ml_tables_destroy();
		return -ENOMEM;
	}
	return 0;
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
	ret = ia_ml_tables_init();
	if (ret)
		return ret;
	for (p = ia_ml_parts; *p; p++) {
		if (why) {
			ia_feature_set((*p)->feature, false, "%s", why);
			continue;
		}
		ret = (*p)->init(*p);
		if (ret) {
			ia_ml_tables_destroy();
			return ret;
		}
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
	struct ia_ml_user *u, *utmp;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_exiting = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	/* Every set at once: their wrappers share the grace periods. */
	ia_hook_sets_unregister(ia_ml_sets, ia_ml_nsets);
	for (p = ia_ml_parts; p && *p; p++)
		if ((*p)->exit)
			(*p)->exit(*p);
	cancel_delayed_work_sync(&ia_ml_flush_work);
	/* The records, a batch at a time (and with them holders, links, rings). */
	ia_ml_forget(NULL);
	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_spares_free(&ia_ml_spare, offsetof(struct ia_ml_rec, hnode));
	ia_ml_idle_free();
	ia_ml_spares_free(&ia_ml_spare_h, offsetof(struct ia_ml_holder, hnode));
	ia_ml_spares_free(&ia_ml_spare_r, offsetof(struct ia_ml_ring, hnode));
	ia_ml_spares_free(&ia_ml_spare_l, offsetof(struct ia_ml_link, snode));
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	/* No hook, no reader is left: the users go without the lock. */
	list_for_each_entry_safe(u, utmp, &ia_ml_all_users, all) {
		list_del(&u->all);
		ia_cgpath_put(u->last_cgpath);
		kfree(u);
	}
	INIT_LIST_HEAD(&ia_ml_pend_users);
	ia_ml_nusers = 0;
	ia_ml_tables_destroy();
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

/* What @h holds that waits for a deferred release: all once its process is gone. */
static u64 ia_ml_holder_pending(const struct ia_ml_holder *h)
{
	bool gone;

	if (!h->total)
		return 0;
	rcu_read_lock();
	gone = !pid_task(h->pid, PIDTYPE_TGID);
	rcu_read_unlock();
	return gone ? h->total : h->closed_pages;
}

static int ia_ml_uid_cmp(const void *a, const void *b)
{
	u32 x = __kuid_val(((const struct ia_memlock_uid *)a)->uid);
	u32 y = __kuid_val(((const struct ia_memlock_uid *)b)->uid);

	return x < y ? -1 : x > y;
}

/*
 * What @u's holders hold that waits for release, into @o: a walk of its
 * holders (one uid's processes may be 100,000), IA_HTAB_BATCH a hold of
 * the lock, counted in @done across the users of one fill (so a batch of
 * users with a few holders each is one hold too). Where a batch ends, that
 * holder is pinned (a reference keeps it, and on its uid's list) while the
 * lock is dropped, and the walk goes on after it; holders that came
 * meanwhile (at the list's tail) are summed too: either is right for a
 * snapshot. Called and returns with ia_ml_lock held (@flags: its saved
 * interrupt state).
 */
static void ia_ml_uid_pending(struct ia_memlock_uid *o, struct ia_ml_user *u,
			      unsigned long *flags, unsigned int *done)
{
	struct list_head *pos = u->holders.next;
	struct ia_ml_holder *h;

	o->pending_pages = 0;
	while (pos != &u->holders) {
		h = list_entry(pos, struct ia_ml_holder, unode);
		o->pending_pages += ia_ml_holder_pending(h);
		pos = pos->next;
		if (++*done % IA_HTAB_BATCH || pos == &u->holders)
			continue;
		ia_ml_holder_pin(h);
		spin_unlock_irqrestore(&ia_ml_lock, *flags);
		cond_resched();
		spin_lock_irqsave(&ia_ml_lock, *flags);
		/*
		 * Unpinned first: idle, it goes to the idle list's tail, and
		 * only the list's head can be freed by it, so @h stays (a
		 * holder after it may not have: its next is read after).
		 */
		ia_ml_holder_put(h);
		pos = h->unode.next;
	}
}

/* @u's figures into @o; its pending pages after (ia_ml_uid_pending()). */
static void ia_ml_uid_copy(struct ia_memlock_uid *o, const struct ia_ml_user *u)
{
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

/*
 * Users, IA_HTAB_BATCH a hold of the lock: they are never deleted before
 * exit and only added at the list's tail, so the cursor stays valid while
 * the lock is dropped. Users that came meanwhile are taken while there is
 * room (they were not there when the snapshot began: either is right).
 */
static unsigned int ia_ml_uids_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_uids *s = buf;
	unsigned int n = 0, k, done = 0;
	struct list_head *pos;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_nusers > cap) {
		n = ia_ml_nusers;
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		return n;
	}
	pos = ia_ml_all_users.next;
	for (;;) {
		for (k = 0; k < IA_HTAB_BATCH && pos != &ia_ml_all_users && n < cap;
		     k++, pos = pos->next) {
			struct ia_ml_user *u = list_entry(pos, struct ia_ml_user, all);

			ia_ml_uid_copy(&s->u[n], u);
			ia_ml_uid_pending(&s->u[n++], u, &flags, &done);
		}
		if (pos == &ia_ml_all_users || n == cap)
			break;
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		cond_resched();
		spin_lock_irqsave(&ia_ml_lock, flags);
	}
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

bool ia_memlock_proc_of(struct pid *pid, struct ia_memlock_proc *out)
{
	struct hlist_head *head;
	struct ia_ml_holder *h;
	unsigned long flags;
	unsigned int c;
	int t;

	memset(out, 0, sizeof(*out));
	out->pid = pid_nr(pid);
	spin_lock_irqsave(&ia_ml_lock, flags);
	/* One holder per uid the process charged as: usually one. */
	for (t = 0; (head = ia_htab_chain(&ia_ml_holders, (unsigned long)pid, t)); t++)
		hlist_for_each_entry(h, head, hnode) {
			if (h->pid != pid || !h->total)
				continue;
			for (c = 0; c < IA_CONS_COUNT; c++)
				out->pages[c] += h->pages[c];
			out->rings += h->rings;
			out->holds = true;
		}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return out->holds;
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
	unsigned long flags;

	/* Each user's levels re-arm at its next charge (ia_ml_thresholds()). */
	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_thr = *t;
	ia_ml_margin = margin;
	ia_ml_thr_gen++;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}
