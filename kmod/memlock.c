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

bool ia_ml_exiting;
bool ia_ml_iommufd_on;

/* The parts (memlock.h), each with its users' table, idle lists and spares. */
static struct ia_ml_part ia_ml_partv[IA_ML_PARTS];

/* A table found by key without the uid: stripes, each with its own lock (a leaf). */
struct ia_ml_stripe {
	spinlock_t lock;		/* the table's (a leaf), not its entries' */
	struct ia_htab t;
} ____cacheline_aligned_in_smp;

static struct ia_ml_stripe ia_ml_recs[IA_ML_PARTS];	/* struct ia_ml_rec, by key */
static struct ia_ml_stripe ia_ml_holders[IA_ML_PARTS];	/* struct ia_ml_holder, by pid */
static struct ia_ml_stripe ia_ml_rings[IA_ML_PARTS];	/* struct ia_ml_ring, by ctx, while open */

/*
 * Stripes and parts by bits of the hash that a table's buckets do not use
 * (those take its top bits, IA_HTAB_MAX_BITS at most): a stripe's entries
 * spread over all its buckets.
 */
static unsigned int ia_ml_slot(u64 key)
{
	return (key * GOLDEN_RATIO_64) >> (64 - IA_HTAB_MAX_BITS - IA_ML_PART_BITS) &
	       (IA_ML_PARTS - 1);
}

struct ia_ml_part *ia_ml_part_of(kuid_t uid)
{
	return &ia_ml_partv[ia_ml_slot(__kuid_val(uid))];
}

static struct ia_ml_stripe *ia_ml_stripe_of(struct ia_ml_stripe *tab, const void *key)
{
	return &tab[ia_ml_slot((unsigned long)key)];
}

/* The list of users, in the order they came (a user is never removed before exit). */
static DEFINE_SPINLOCK(ia_ml_list_lock);
static LIST_HEAD(ia_ml_all_users);
static unsigned int ia_ml_nusers;
/* Users with a refusal report held. */
static DEFINE_SPINLOCK(ia_ml_pend_lock);
static LIST_HEAD(ia_ml_pend_users);
/* The pot's threshold lines. */
static DEFINE_SPINLOCK(ia_ml_thr_lock);
static struct ia_thresholds ia_ml_thr = { 800, 950 };
static u32 ia_ml_margin = 50;
u32 ia_ml_thr_gen;
/* A refused process's cgroup path is built here (a refusal is not the hot path). */
static DEFINE_SPINLOCK(ia_ml_cg_lock);
static char ia_ml_cgbuf[IA_CGPATH_BUF];

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

/* --- the ledger (the uid's part held) ------------------------------------------- */

/* Idle rings and holders kept per part (struct ia_ml_ring says why). */
#define IA_ML_IDLE 16

/* @uid's charge went unrecorded for want of an entry (its part held). */
static void ia_ml_lost_add(struct ia_ml_part *part, kuid_t uid)
{
	unsigned int i;

	for (i = 0; i < part->nlost; i++)
		if (uid_eq(part->lost[i], uid))
			return;
	if (part->nlost < IA_ML_LOST)
		part->lost[part->nlost++] = uid;
	else
		part->lost_more = true;
}

/* Whether @uid lost a charge before it had an entry; forgotten when @take. */
static bool ia_ml_lost_find(struct ia_ml_part *part, kuid_t uid, bool take)
{
	unsigned int i;

	for (i = 0; i < part->nlost; i++)
		if (uid_eq(part->lost[i], uid)) {
			if (take)
				part->lost[i] = part->lost[--part->nlost];
			return true;
		}
	return part->lost_more;
}

static bool ia_ml_lost_take(struct ia_ml_part *part, kuid_t uid)
{
	return ia_ml_lost_find(part, uid, true);
}

bool ia_memlock_uid_lost(kuid_t uid)
{
	struct ia_ml_part *part = ia_ml_part_of(uid);
	unsigned long flags;
	bool lost;

	spin_lock_irqsave(&part->lock, flags);
	lost = ia_ml_lost_find(part, uid, false);
	spin_unlock_irqrestore(&part->lock, flags);
	return lost;
}

struct ia_ml_user *ia_ml_user_get(kuid_t uid)
{
	struct ia_ml_part *part = ia_ml_part_of(uid);
	struct hlist_head *head;
	struct ia_ml_user *u;
	int t;

	lockdep_assert_held(&part->lock);
	for (t = 0; (head = ia_htab_chain(&part->users, __kuid_val(uid), t)); t++)
		hlist_for_each_entry(u, head, hnode)
			if (uid_eq(u->uid, uid))
				return u;
	u = kzalloc(sizeof(*u), GFP_ATOMIC);
	if (!u) {
		ia_ml_lost_add(part, uid);
		return NULL;
	}
	u->uid = uid;
	u->part = part;
	if (ia_ml_lost_take(part, uid))
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
	INIT_LIST_HEAD(&u->holders);
	INIT_LIST_HEAD(&u->pend);
	ia_htab_add(&part->users, &u->hnode, __kuid_val(uid));
	spin_lock(&ia_ml_list_lock);
	list_add_tail(&u->all, &ia_ml_all_users);
	ia_ml_nusers++;
	spin_unlock(&ia_ml_list_lock);
	return u;
}

/*
 * Under @st's lock: the record of @key and @ops, of @uid's (any: NULL), or
 * of another uid's than @uid when @other.
 */
static struct ia_ml_rec *ia_ml_recs_find(struct ia_ml_stripe *st, const void *key,
					 const struct ia_ml_rec_ops *ops, const kuid_t *uid,
					 bool other)
{
	struct hlist_head *head;
	struct ia_ml_rec *r;
	int t;

	for (t = 0; (head = ia_htab_chain(&st->t, (unsigned long)key, t)); t++)
		hlist_for_each_entry(r, head, hnode)
			if (r->key == key && r->ops == ops &&
			    (!uid || uid_eq(r->uid, *uid) != other))
				return r;
	return NULL;
}

struct ia_ml_rec *ia_ml_rec_of(struct ia_ml_user *u, const void *key,
			       const struct ia_ml_rec_ops *ops, bool *other)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_recs, key);
	struct ia_ml_rec *r, *mine = NULL;
	struct hlist_head *head;
	int t;

	lockdep_assert_held(&u->part->lock);
	if (other)
		*other = false;
	spin_lock(&st->lock);
	for (t = 0; (head = ia_htab_chain(&st->t, (unsigned long)key, t)); t++)
		hlist_for_each_entry(r, head, hnode) {
			if (r->key != key || r->ops != ops)
				continue;
			if (r->acct == u)
				mine = r;
			else if (other)
				*other = true;
		}
	spin_unlock(&st->lock);
	return mine;
}

/*
 * The record of @key made by @ops' consumer, of any uid but @not_uid (if
 * not NULL), returned with its uid's part locked (@flags: the saved
 * interrupt state), or NULL with nothing locked; out of its stripe already
 * when @going (the caller releases all of it). Takes no part: called with
 * none held.
 */
static struct ia_ml_rec *ia_ml_rec_lock(const void *key, const struct ia_ml_rec_ops *ops,
					const kuid_t *not_uid, bool going, unsigned long *flags)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_recs, key);
	struct ia_ml_part *part;
	struct ia_ml_rec *r;
	unsigned long f;
	int tries;
	kuid_t uid;

	/*
	 * Its uid read under the stripe, then the record found again under
	 * that uid's part: it may have gone, or (an object at the address of
	 * one whose release was not seen) be another uid's, meanwhile.
	 */
	for (tries = 0; tries < 4; tries++) {
		spin_lock_irqsave(&st->lock, f);
		r = ia_ml_recs_find(st, key, ops, not_uid, true);
		if (r)
			uid = r->uid;
		spin_unlock_irqrestore(&st->lock, f);
		if (!r)
			return NULL;
		part = ia_ml_part_of(uid);
		spin_lock_irqsave(&part->lock, *flags);
		spin_lock(&st->lock);
		r = ia_ml_recs_find(st, key, ops, &uid, false);
		if (r && going)
			ia_htab_del(&st->t, &r->hnode);
		spin_unlock(&st->lock);
		if (r)
			return r;
		spin_unlock_irqrestore(&part->lock, *flags);
	}
	return NULL;
}

struct ia_ml_rec *ia_ml_rec_outer(const void *key, const struct ia_ml_rec_ops *ops)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_recs, key);
	unsigned long flags;
	struct ia_ml_rec *r;

	lockdep_assert_held(ops->outer);
	spin_lock_irqsave(&st->lock, flags);
	r = ia_ml_recs_find(st, key, ops, NULL, false);
	spin_unlock_irqrestore(&st->lock, flags);
	return r;
}

static void ia_ml_holder_free(struct ia_ml_holder *h)
{
	struct ia_ml_part *part = h->u->part;
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_holders, h->pid);

	list_del(&h->idle);
	part->nidle_holders--;
	spin_lock(&st->lock);
	ia_htab_del(&st->t, &h->hnode);
	spin_unlock(&st->lock);
	list_del(&h->unode);
	put_pid(h->pid);
	ia_ml_obj_put(&part->spare_h, h, offsetof(struct ia_ml_holder, hnode));
}

/* One reference more on @h, which leaves the idle list if it was idle. */
static void ia_ml_holder_pin(struct ia_ml_holder *h)
{
	if (!h->refs++ && !list_empty(&h->idle)) {
		list_del_init(&h->idle);
		h->u->part->nidle_holders--;
	}
}

/* Under @st's lock: @pid's holding of @uid's pot (any uid's: NULL). */
static struct ia_ml_holder *ia_ml_holders_find(struct ia_ml_stripe *st, struct pid *pid,
					       const struct ia_ml_user *u)
{
	struct hlist_head *head;
	struct ia_ml_holder *h;
	int t;

	for (t = 0; (head = ia_htab_chain(&st->t, (unsigned long)pid, t)); t++)
		hlist_for_each_entry(h, head, hnode)
			if (h->pid == pid && (!u || h->u == u))
				return h;
	return NULL;
}

/* @pid's holding of @u's pot, made if it is not there yet (NULL: no memory); one reference. */
static struct ia_ml_holder *ia_ml_holder_get(struct pid *pid, struct ia_ml_user *u)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_holders, pid);
	struct ia_ml_holder *h;

	spin_lock(&st->lock);
	h = ia_ml_holders_find(st, pid, u);
	spin_unlock(&st->lock);
	if (h)
		goto found;
	h = IA_ML_GET(&u->part->spare_h, struct ia_ml_holder, hnode);
	if (!h)
		return NULL;
	h->pid = get_pid(pid);
	h->u = u;
	INIT_LIST_HEAD(&h->idle);
	spin_lock(&st->lock);
	ia_htab_add(&st->t, &h->hnode, (unsigned long)pid);
	spin_unlock(&st->lock);
	list_add_tail(&h->unode, &u->holders);
found:
	ia_ml_holder_pin(h);
	return h;
}

static void ia_ml_holder_put(struct ia_ml_holder *h)
{
	struct ia_ml_part *part = h->u->part;

	if (--h->refs)
		return;
	list_add_tail(&h->idle, &part->idle_holders);
	if (++part->nidle_holders > IA_ML_IDLE)
		ia_ml_holder_free(list_first_entry(&part->idle_holders, struct ia_ml_holder, idle));
}

static void ia_ml_ring_unlist(struct ia_ml_ring *ring)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_rings, ring->ctx);

	spin_lock(&st->lock);
	ia_htab_del(&st->t, &ring->hnode);
	spin_unlock(&st->lock);
}

/* The ring goes with its links (all idle), which give back their holders. */
static void ia_ml_ring_free(struct ia_ml_ring *ring)
{
	struct ia_ml_part *part = ring->u->part;
	struct ia_ml_link *l, *tmp;

	list_for_each_entry_safe(l, tmp, &ring->links, rnode) {
		list_del(&l->rnode);
		ia_ml_holder_put(l->h);
		ia_ml_obj_put(&part->spare_l, l, offsetof(struct ia_ml_link, snode));
	}
	if (!list_empty(&ring->idle)) {
		list_del(&ring->idle);
		part->nidle_rings--;
	}
	if (!ring->closed)
		ia_ml_ring_unlist(ring);
	ia_ml_obj_put(&part->spare_r, ring, offsetof(struct ia_ml_ring, hnode));
}

/* Under @st's lock: the open ring @ctx of @u (any uid's: NULL), or NULL. */
static struct ia_ml_ring *ia_ml_rings_find(struct ia_ml_stripe *st, const void *ctx,
					   const struct ia_ml_user *u)
{
	struct hlist_head *head;
	struct ia_ml_ring *ring;
	int t;

	for (t = 0; (head = ia_htab_chain(&st->t, (unsigned long)ctx, t)); t++)
		hlist_for_each_entry(ring, head, hnode)
			if (ring->ctx == ctx && (!u || ring->u == u))
				return ring;
	return NULL;
}

/* @u's open ring @ctx, or NULL. */
static struct ia_ml_ring *ia_ml_ring_of(const void *ctx, struct ia_ml_user *u)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_rings, ctx);
	struct ia_ml_ring *ring;

	spin_lock(&st->lock);
	ring = ia_ml_rings_find(st, ctx, u);
	spin_unlock(&st->lock);
	return ring;
}

/*
 * @h's link on @u's open ring @ctx (@ring, when it was found: NULL makes
 * it), made if need be, with one record more (NULL: no memory).
 */
static struct ia_ml_link *ia_ml_link_get(const void *ctx, struct ia_ml_ring *ring,
					 struct ia_ml_holder *h, struct ia_ml_user *u)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_rings, ctx);
	struct ia_ml_part *part = u->part;
	struct ia_ml_link *l;

	if (ring)
		goto found;
	ring = IA_ML_GET(&part->spare_r, struct ia_ml_ring, hnode);
	if (!ring)
		return NULL;
	ring->ctx = ctx;
	ring->u = u;
	INIT_LIST_HEAD(&ring->links);
	INIT_LIST_HEAD(&ring->idle);
	spin_lock(&st->lock);
	ia_htab_add(&st->t, &ring->hnode, (unsigned long)ctx);
	spin_unlock(&st->lock);
	/* Idle until it has a record, as it would be were it kept. */
	list_add_tail(&ring->idle, &part->idle_rings);
	part->nidle_rings++;
found:
	/* One link per holder of the ring's records: a few at most. */
	list_for_each_entry(l, &ring->links, rnode)
		if (l->h == h)
			goto linked;
	l = IA_ML_GET(&part->spare_l, struct ia_ml_link, snode);
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
		part->nidle_rings--;
	}
	return l;
}

static void ia_ml_link_put(struct ia_ml_link *l)
{
	struct ia_ml_ring *ring = l->ring;
	struct ia_ml_part *part = ring->u->part;

	if (--l->nrec || --ring->busy)
		return;
	if (ring->closed) {
		ia_ml_ring_free(ring);
		return;
	}
	list_add_tail(&ring->idle, &part->idle_rings);
	if (++part->nidle_rings > IA_ML_IDLE)
		ia_ml_ring_free(list_first_entry(&part->idle_rings, struct ia_ml_ring, idle));
}

/* Every idle ring and holder of @part goes (exit, after the records). */
static void ia_ml_idle_free(struct ia_ml_part *part)
{
	while (!list_empty(&part->idle_rings))
		ia_ml_ring_free(list_first_entry(&part->idle_rings, struct ia_ml_ring, idle));
	while (!list_empty(&part->idle_holders))
		ia_ml_holder_free(list_first_entry(&part->idle_holders, struct ia_ml_holder,
						   idle));
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

struct ia_ml_rec *ia_ml_rec_new(struct ia_ml_user *u, const void *key, const void *ctx,
				enum ia_consumer consumer, const struct ia_ml_rec_ops *ops)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_recs, key);
	struct ia_ml_ring *ring = ctx ? ia_ml_ring_of(ctx, u) : NULL;
	struct pid *pid = task_tgid(current);
	struct ia_ml_link *l = NULL, *pos;
	struct ia_ml_holder *h = NULL;
	struct ia_ml_rec *r;

	/* The ring's holders first (a few): the usual case, one lookup fewer. */
	if (ring)
		list_for_each_entry(pos, &ring->links, rnode)
			if (pos->h->pid == pid) {
				h = pos->h;
				ia_ml_holder_pin(h);
				break;
			}
	if (!h)
		h = ia_ml_holder_get(pid, u);
	if (!h)
		return NULL;
	if (ctx) {
		l = ia_ml_link_get(ctx, ring, h, u);
		if (!l) {
			ia_ml_holder_put(h);
			return NULL;
		}
	}
	/* A consumer's own record embeds the ledger's at its start (no spares of those). */
	r = ops->size ? kzalloc(ops->size, GFP_ATOMIC) :
			IA_ML_GET(&u->part->spare, struct ia_ml_rec, hnode);
	if (!r) {
		if (l)
			ia_ml_link_put(l);
		ia_ml_holder_put(h);
		return NULL;
	}
	r->ops = ops;
	r->key = key;
	r->ctx = ctx;
	r->uid = u->uid;
	r->consumer = consumer;
	r->pid = h->pid;	/* the holder's reference, which outlives the record */
	r->acct = u;
	r->h = h;
	r->link = l;
	spin_lock(&st->lock);
	ia_htab_add(&st->t, &r->hnode, (unsigned long)key);
	spin_unlock(&st->lock);
	return r;
}

static void ia_ml_rec_del(struct ia_ml_rec *r)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_recs, r->key);
	struct ia_ml_part *part = r->acct->part;

	if (r->ops->del)
		r->ops->del(r);
	ia_ml_hold(r, r->pages, false);
	/* Taken out of its stripe already by a release that found it there. */
	if (!hlist_unhashed(&r->hnode)) {
		spin_lock(&st->lock);
		ia_htab_del(&st->t, &r->hnode);
		spin_unlock(&st->lock);
	}
	if (r->link)
		ia_ml_link_put(r->link);
	ia_ml_holder_put(r->h);
	if (r->ops->size)
		kfree(r);
	else
		ia_ml_obj_put(&part->spare, r, offsetof(struct ia_ml_rec, hnode));
}

void ia_ml_flag(kuid_t uid, u32 bit)
{
	struct ia_ml_user *u;
	unsigned long flags;

	ia_ml_lock_uid(uid, flags);
	u = READ_ONCE(ia_ml_exiting) ? NULL : ia_ml_user_get(uid);
	if (u)
		u->inexact |= bit;
	ia_ml_unlock_uid(uid, flags);
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
	struct ia_ml_user *u = r->acct;
	u64 *c;

	lockdep_assert_held(&u->part->lock);
	if (pages > r->pages) {
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS;
		pages = r->pages;
	}
	ia_ml_hold(r, pages, false);
	r->pages -= pages;
	if (r->ops->unpinned)
		r->ops->unpinned(r, pages);
	c = ia_ml_mode_pages(r, u);
	*c -= min(*c, pages);
	if (!r->pages && !r->keep)
		ia_ml_rec_del(r);
}

/*
 * @pages of the record of @key go (U64_MAX: all, and the record with
 * them); even while exiting when @forget (the ledger's own walk). With
 * @not_uid, only another uid's record, and its uid is flagged: an object
 * at the address of one whose release was not seen.
 */
static void ia_ml_drop_key(const void *key, const struct ia_ml_rec_ops *ops, u64 pages,
			   bool forget, const kuid_t *not_uid)
{
	bool all = pages == U64_MAX && (forget || !READ_ONCE(ia_ml_exiting));
	unsigned long flags, oflags = 0;
	struct ia_ml_part *part;
	struct ia_ml_rec *r;

	if (ops->outer)
		spin_lock_irqsave(ops->outer, oflags);
	r = ia_ml_rec_lock(key, ops, not_uid, all, &flags);
	if (r) {
		part = r->acct->part;
		if (all && not_uid)
			r->acct->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
		if (all) {
			r->keep = false;
			ia_ml_release(r, r->pages);	/* it goes */
		} else if (pages != U64_MAX && !READ_ONCE(ia_ml_exiting)) {
			ia_ml_release(r, pages);
		}
		spin_unlock_irqrestore(&part->lock, flags);
	}
	if (ops->outer)
		spin_unlock_irqrestore(ops->outer, oflags);
}

void ia_ml_release_key(const void *key, const struct ia_ml_rec_ops *ops)
{
	ia_ml_drop_key(key, ops, U64_MAX, false, NULL);
}

void ia_ml_release_key_pages(const void *key, const struct ia_ml_rec_ops *ops, u64 pages)
{
	ia_ml_drop_key(key, ops, pages, false, NULL);
}

void ia_ml_release_other(const void *key, const struct ia_ml_rec_ops *ops, kuid_t uid)
{
	ia_ml_drop_key(key, ops, U64_MAX, false, &uid);
}

/*
 * Ring @ctx was closed: its links' pages wait for release, and it leaves the
 * table of open rings (a new ring at its address is another ring). Its uid
 * read under its stripe, then the ring found again under that uid's part.
 */
void ia_ml_ring_closed(const void *ctx)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_rings, ctx);
	struct ia_ml_ring *ring;
	struct ia_ml_part *part;
	struct ia_ml_link *l;
	struct ia_ml_user *u;
	unsigned long flags;
	int tries;

	for (tries = 0; tries < 4; tries++) {
		spin_lock_irqsave(&st->lock, flags);
		ring = ia_ml_rings_find(st, ctx, NULL);
		u = ring ? ring->u : NULL;	/* users live until exit */
		spin_unlock_irqrestore(&st->lock, flags);
		if (!u)
			return;
		part = u->part;
		spin_lock_irqsave(&part->lock, flags);
		if (READ_ONCE(ia_ml_exiting)) {
			spin_unlock_irqrestore(&part->lock, flags);
			return;
		}
		spin_lock(&st->lock);
		ring = ia_ml_rings_find(st, ctx, u);
		if (ring)
			ia_htab_del(&st->t, &ring->hnode);
		spin_unlock(&st->lock);
		if (ring) {
			ring->closed = true;
			list_for_each_entry(l, &ring->links, rnode)
				l->h->closed_pages += l->pages;
			if (!ring->busy)
				ia_ml_ring_free(ring);	/* idle: nothing of it is left to release */
		}
		spin_unlock_irqrestore(&part->lock, flags);
		if (ring)
			return;
	}
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
static void ia_ml_levels_bounds(struct ia_ml_user *u, u64 limit,
				const struct ia_thresholds *thr, u32 margin)
{
	u->bnd_limit = limit;
	ia_levels_bounds(&u->bnd, &u->levels, thr, margin,
			 limit == RLIM_INFINITY ? 0 : limit, PAGE_SHIFT);
}

/* The pot's lines, as set now. */
static void ia_ml_lines(struct ia_thresholds *thr, u32 *margin)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_thr_lock, flags);
	*thr = ia_ml_thr;
	*margin = ia_ml_margin;
	spin_unlock_irqrestore(&ia_ml_thr_lock, flags);
}

/* ia_ml_thresholds() found a bound crossed, or none computed for @limit. */
void ia_ml_thresholds_cross(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
			    u64 pot, u64 limit)
{
	struct ia_thresholds thr;
	unsigned int raised;
	struct ia_event ev;
	u32 margin;

	lockdep_assert_held(&u->part->lock);
	ia_ml_lines(&thr, &margin);
	if (limit == RLIM_INFINITY || !limit) {
		ia_ml_levels_bounds(u, limit, &thr, margin);
		return;
	}
	/* Re-armed from the pot before this charge, raised from the pot after. */
	ia_levels_rearm(&u->levels, &thr, margin,
			ia_per_mille((pot - min(pot, pages)) << PAGE_SHIFT, limit));
	raised = ia_levels_raise(&u->levels, &thr, ia_per_mille(pot << PAGE_SHIFT, limit),
				 true);
	ia_ml_levels_bounds(u, limit, &thr, margin);
	if (!raised || !ia_events_wanted())
		return;
	ia_ml_event_init(&ev, IA_EV_THRESHOLD, u->uid, consumer, pages, pot, limit);
	ev.level = fls(raised) - 1;
	ev.threshold = ia_level_line(&thr, ev.level);
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

	lockdep_assert_held(&u->part->lock);
	u->refusals++;
	ia_kind_refused(IA_KIND_UID_POT, 1);
	ia_ml_event_init(&ev, IA_EV_FAILURE, u->uid, consumer, pages, pot, limit);
	ev.err = err;
	ev.ioas = ioas;
	u->has_last = true;
	u->last = (struct ia_failure){ .time_ns = ev.time_ns, .err = err, .size = ev.size,
				       .who = ev.who, .cgroup_id = ev.cgroup_id, .ioas = ioas };
	/*
	 * The path is taken now, the cgroup may go soon. Unknown, rather than
	 * an earlier refusal's path, when it cannot be had.
	 */
	spin_lock(&ia_ml_cg_lock);
	cgp = ia_task_cgpath(current, ia_ml_cgbuf, u->last_cgpath, GFP_ATOMIC);
	spin_unlock(&ia_ml_cg_lock);
	ia_cgpath_put(u->last_cgpath);
	u->last_cgpath = cgp;
	if (ia_coalesce_fail(&u->co, now, &count)) {
		ev.count = count;
		if (ia_events_wanted())
			ia_event_queue(&ev);
		return;
	}
	u->pending_ev = ev;
	spin_lock(&ia_ml_pend_lock);
	if (list_empty(&u->pend))
		list_add_tail(&u->pend, &ia_ml_pend_users);
	ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
	spin_unlock(&ia_ml_pend_lock);
}

static void ia_ml_flush_fn(struct work_struct *w)
{
	u64 now = ktime_get_ns();
	struct ia_ml_part *part;
	struct ia_ml_user *u;
	unsigned long flags;
	bool again = false;
	LIST_HEAD(todo);
	u32 count;

	/*
	 * Only the users with a report held (a refusal put each on the list),
	 * one at a time under its part: taken off the list there, and put
	 * back there while it still holds one (a refusal meanwhile finds it
	 * listed, on @todo, and leaves it to this walk).
	 */
	spin_lock_irqsave(&ia_ml_pend_lock, flags);
	ia_ml_flush_pending = false;
	list_splice_init(&ia_ml_pend_users, &todo);
	spin_unlock_irqrestore(&ia_ml_pend_lock, flags);
	for (;;) {
		spin_lock_irqsave(&ia_ml_pend_lock, flags);
		u = list_first_entry_or_null(&todo, struct ia_ml_user, pend);
		spin_unlock_irqrestore(&ia_ml_pend_lock, flags);
		if (!u)
			break;
		part = u->part;
		spin_lock_irqsave(&part->lock, flags);
		spin_lock(&ia_ml_pend_lock);
		list_del_init(&u->pend);
		spin_unlock(&ia_ml_pend_lock);
		count = u->co.pending ? ia_coalesce_due(&u->co, now) : 0;
		if (count) {
			u->pending_ev.count = count;
			u->pending_ev.time_ns = ktime_get_real_ns();
			if (ia_events_wanted())
				ia_event_queue(&u->pending_ev);
		}
		if (u->co.pending) {
			spin_lock(&ia_ml_pend_lock);
			list_add_tail(&u->pend, &ia_ml_pend_users);
			spin_unlock(&ia_ml_pend_lock);
			again = true;
		}
		spin_unlock_irqrestore(&part->lock, flags);
		cond_resched();
	}
	if (again) {
		spin_lock_irqsave(&ia_ml_pend_lock, flags);
		ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
		spin_unlock_irqrestore(&ia_ml_pend_lock, flags);
	}
}

/* --- init / exit ---------------------------------------------------------------- */

/* The consumers (the memlock source's parts, from the table) and their hook sets. */
static const struct ia_source *const *ia_ml_parts;
static struct ia_hook_set *ia_ml_sets[IA_CONS_COUNT];
static unsigned int ia_ml_nsets;

static const struct ia_source *ia_ml_source_of(const struct ia_hook_set *s)
{
	const struct ia_source *const *p;

	for (p = ia_ml_parts; p && *p; p++)
		if ((*p)->hooks == s)
			return *p;
	return NULL;
}

/*
 * Every record a set's hooks made (@s; NULL: every record) goes, its pages
 * leaving the uid's parts (unattributed from then on). Each stripe of the
 * records is read a batch of buckets per hold of its lock, the keys found
 * there released after, each under its consumer's outer lock and its uid's
 * part (ia_ml_release_key()). A stripe whose entries moved meanwhile is
 * read again from its start (what went is no longer in it).
 */
#define IA_ML_FORGET_MAX 64

struct ia_ml_forget_one {
	const void *key;
	const struct ia_ml_rec_ops *ops;
};

static void ia_ml_forget(const struct ia_hook_set *s)
{
	struct ia_ml_forget_one few[8], *batch;
	unsigned int i, n, max, bkt, end;
	struct ia_ml_stripe *st;
	unsigned long gen, flags;
	struct ia_ml_rec *r;
	bool full;

	batch = kmalloc_array(IA_ML_FORGET_MAX, sizeof(*batch), GFP_KERNEL);
	max = batch ? IA_ML_FORGET_MAX : ARRAY_SIZE(few);
	if (!batch)
		batch = few;
	for (st = ia_ml_recs; st < ia_ml_recs + IA_ML_PARTS; st++) {
		bkt = 0;
		gen = 0;
		do {
			n = 0;
			full = false;
			spin_lock_irqsave(&st->lock, flags);
			if (gen != st->t.gen) {
				gen = st->t.gen;
				bkt = 0;
			}
			end = min(bkt + IA_HTAB_BATCH, ia_htab_buckets(&st->t));
			/* A bucket whose records fill the batch is read again after it. */
			for (; bkt < end && !full; bkt += !full)
				hlist_for_each_entry(r, ia_htab_bucket_at(&st->t, bkt), hnode) {
					if (s && r->ops->hooks != s)
						continue;
					if (n == max) {
						full = true;
						break;
					}
					batch[n].key = r->key;
					batch[n++].ops = r->ops;
				}
			spin_unlock_irqrestore(&st->lock, flags);
			for (i = 0; i < n; i++)
				ia_ml_drop_key(batch[i].key, batch[i].ops, U64_MAX, true, NULL);
			cond_resched();
		} while (bkt < ia_htab_buckets(&st->t));
	}
	if (batch != few)
		kfree(batch);
}

/*
 * A set's hooks changed under it (hook.c: a livepatch came). Its feature is
 * written again; a set taken down (PREEMPT_RT) is off from here (its start
 * function says so) and what it followed is forgotten: the pot's bytes are
 * unattributed, never attributed to records whose release is not seen.
 */
static void ia_ml_hooks_changed(struct ia_hook_set *s)
{
	const struct ia_source *part = ia_ml_source_of(s);

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
	unsigned int i;

	for (i = 0; i < IA_ML_PARTS; i++) {
		ia_htab_destroy(&ia_ml_rings[i].t);
		ia_htab_destroy(&ia_ml_holders[i].t);
		ia_htab_destroy(&ia_ml_recs[i].t);
		ia_htab_destroy(&ia_ml_partv[i].users);
	}
}

/* Lock classes named as lockdep and /proc/lock_stat show them. */
static struct lock_class_key ia_ml_part_key, ia_ml_recs_key, ia_ml_holders_key, ia_ml_rings_key;

static int ia_ml_stripe_init(struct ia_ml_stripe *st, unsigned int bits,
			     unsigned long (*hash_of)(const struct hlist_node *n),
			     struct lock_class_key *key, const char *name)
{
	spin_lock_init(&st->lock);
	lockdep_set_class_and_name(&st->lock, key, name);
	return ia_htab_init(&st->t, bits, &st->lock, hash_of);
}

static int ia_ml_tables_init(void)
{
	struct ia_ml_part *part;
	unsigned int i;

	for (i = 0; i < IA_ML_PARTS; i++) {
		part = &ia_ml_partv[i];
		spin_lock_init(&part->lock);
		lockdep_set_class_and_name(&part->lock, &ia_ml_part_key, "ia_ml_part");
		INIT_LIST_HEAD(&part->idle_holders);
		INIT_LIST_HEAD(&part->idle_rings);
		part->spare = (struct ia_spare)IA_SPARE_INIT(32);
		part->spare_h = (struct ia_spare)IA_SPARE_INIT(8);
		part->spare_r = (struct ia_spare)IA_SPARE_INIT(8);
		part->spare_l = (struct ia_spare)IA_SPARE_INIT(8);
		/* Sized for a few of each; they grow with what they hold. */
		if (ia_htab_init(&part->users, 2, &part->lock, ia_ml_user_hash) ||
		    ia_ml_stripe_init(&ia_ml_recs[i], 4, ia_ml_rec_hash, &ia_ml_recs_key,
				      "ia_ml_recs") ||
		    ia_ml_stripe_init(&ia_ml_holders[i], 2, ia_ml_holder_hash, &ia_ml_holders_key,
				      "ia_ml_holders") ||
		    ia_ml_stripe_init(&ia_ml_rings[i], 2, ia_ml_ring_hash, &ia_ml_rings_key,
				      "ia_ml_rings")) {
			ia_ml_tables_destroy();
			return -ENOMEM;
		}
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
	struct ia_ml_part *part;
	unsigned long flags;

	for (part = ia_ml_partv; part < ia_ml_partv + IA_ML_PARTS; part++) {
		spin_lock_irqsave(&part->lock, flags);
		WRITE_ONCE(ia_ml_exiting, true);
		spin_unlock_irqrestore(&part->lock, flags);
	}
	/* Every set at once: their wrappers share the grace periods. */
	ia_hook_sets_unregister(ia_ml_sets, ia_ml_nsets);
	for (p = ia_ml_parts; p && *p; p++)
		if ((*p)->exit)
			(*p)->exit(*p);
	cancel_delayed_work_sync(&ia_ml_flush_work);
	/* The records, a batch at a time (and with them holders, links, rings). */
	ia_ml_forget(NULL);
	for (part = ia_ml_partv; part < ia_ml_partv + IA_ML_PARTS; part++) {
		spin_lock_irqsave(&part->lock, flags);
		ia_ml_spares_free(&part->spare, offsetof(struct ia_ml_rec, hnode));
		ia_ml_idle_free(part);
		ia_ml_spares_free(&part->spare_h, offsetof(struct ia_ml_holder, hnode));
		ia_ml_spares_free(&part->spare_r, offsetof(struct ia_ml_ring, hnode));
		ia_ml_spares_free(&part->spare_l, offsetof(struct ia_ml_link, snode));
		spin_unlock_irqrestore(&part->lock, flags);
	}
	/* No hook, no reader is left: the users go. */
	list_for_each_entry_safe(u, utmp, &ia_ml_all_users, all) {
		list_del(&u->all);
		spin_lock_irqsave(&u->part->lock, flags);
		ia_htab_del(&u->part->users, &u->hnode);
		spin_unlock_irqrestore(&u->part->lock, flags);
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
 * its part's lock, counted in @done across the users of one fill. Where a
 * batch ends, that holder is pinned (a reference keeps it, and on its
 * uid's list) while the lock is dropped, and the walk goes on after it;
 * holders that came meanwhile (at the list's tail) are summed too: either
 * is right for a snapshot. Called and returns with @u's part held (@flags:
 * its saved interrupt state).
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
		spin_unlock_irqrestore(&u->part->lock, *flags);
		cond_resched();
		spin_lock_irqsave(&u->part->lock, *flags);
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
	o->has_charger_limit = u->has_charger_limit;
	o->charger_limit = u->charger_limit;
	o->has_last = u->has_last;
	o->last = u->last;
	o->last_cgpath = ia_cgpath_get(u->last_cgpath);
}

/*
 * Users, each under its part, the list read a user at a time: users are
 * never deleted before exit and only added at the list's tail, so the
 * cursor stays valid between. Users that came meanwhile are taken while
 * there is room (they were not there when the snapshot began: either is
 * right).
 */
static unsigned int ia_ml_uids_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_uids *s = buf;
	unsigned int n = 0, done = 0;
	struct list_head *pos;
	struct ia_ml_user *u;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_list_lock, flags);
	if (ia_ml_nusers > cap) {
		n = ia_ml_nusers;
		spin_unlock_irqrestore(&ia_ml_list_lock, flags);
		return n;
	}
	pos = &ia_ml_all_users;
	spin_unlock_irqrestore(&ia_ml_list_lock, flags);
	while (n < cap) {
		spin_lock_irqsave(&ia_ml_list_lock, flags);
		pos = pos->next;
		spin_unlock_irqrestore(&ia_ml_list_lock, flags);
		if (pos == &ia_ml_all_users)
			break;
		u = list_entry(pos, struct ia_ml_user, all);
		spin_lock_irqsave(&u->part->lock, flags);
		ia_ml_uid_copy(&s->u[n], u);
		ia_ml_uid_pending(&s->u[n++], u, &flags, &done);
		spin_unlock_irqrestore(&u->part->lock, flags);
		if (!(n % IA_HTAB_BATCH))
			cond_resched();
	}
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

/*
 * The uids @pid holds pots of are read under its stripe of the holders,
 * then each holder found again under its uid's part, whose lock guards
 * its figures. One uid, almost always; an array for more, made outside
 * the lock (and again if more came meanwhile); without memory for it the
 * process is not listed as a holder (GFP_ATOMIC: callers hold RCU).
 */
bool ia_memlock_proc_of(struct pid *pid, struct ia_memlock_proc *out)
{
	struct ia_ml_stripe *st = ia_ml_stripe_of(ia_ml_holders, pid);
	struct ia_ml_user *few[4], **users = few;
	unsigned int i, c, n, max = ARRAY_SIZE(few);
	struct hlist_head *head;
	struct ia_ml_holder *h;
	unsigned long flags;
	int t;

	memset(out, 0, sizeof(*out));
	out->pid = pid_nr(pid);
	for (;;) {
		n = 0;
		spin_lock_irqsave(&st->lock, flags);
		for (t = 0; (head = ia_htab_chain(&st->t, (unsigned long)pid, t)); t++)
			hlist_for_each_entry(h, head, hnode)
				if (h->pid == pid) {
					if (n < max)
						users[n] = h->u;	/* users live until exit */
					n++;
				}
		spin_unlock_irqrestore(&st->lock, flags);
		if (n <= max)
			break;
		if (users != few)
			kfree(users);
		/* Called under RCU (a walk of the task list): no sleeping. */
		max = n + 4;
		users = kmalloc_array(max, sizeof(*users), GFP_ATOMIC | __GFP_NOWARN);
		if (!users)
			return false;
	}
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&users[i]->part->lock, flags);
		spin_lock(&st->lock);
		h = ia_ml_holders_find(st, pid, users[i]);
		spin_unlock(&st->lock);
		if (h && h->total) {
			for (c = 0; c < IA_CONS_COUNT; c++)
				out->pages[c] += h->pages[c];
			out->rings += h->rings;
			out->holds = true;
		}
		spin_unlock_irqrestore(&users[i]->part->lock, flags);
	}
	if (users != few)
		kfree(users);
	return out->holds;
}

void ia_memlock_thresholds_get(struct ia_thresholds *t, u32 *margin)
{
	ia_ml_lines(t, margin);
}

/* New lines: every level re-arms; the next charge raises what it reaches. */
void ia_memlock_thresholds_set(const struct ia_thresholds *t, u32 margin)
{
	unsigned long flags;

	/* Each user's levels re-arm at its next charge (ia_ml_thresholds()). */
	spin_lock_irqsave(&ia_ml_thr_lock, flags);
	ia_ml_thr = *t;
	ia_ml_margin = margin;
	WRITE_ONCE(ia_ml_thr_gen, ia_ml_thr_gen + 1);
	spin_unlock_irqrestore(&ia_ml_thr_lock, flags);
}
