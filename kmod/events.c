// SPDX-License-Identifier: GPL-2.0
/*
 * The event queue. Sources raise events from probe handlers (atomic
 * context): ia_event_queue() stamps a global sequence number and copies the
 * event into a fixed ring; a work item hands them, in order, to the sink the
 * netlink layer registered. A full ring drops the event (counted, and seen by
 * listeners as a gap in the sequence numbers).
 *
 * No object and no uid can drown the others:
 * - Repeated failures of one object are coalesced by its source
 *   (ia_coalesce_*): at most one event per interval, with their count.
 * - Threshold crossings of one object and level are coalesced here, for
 *   every source alike: the first is sent at once, the next ones within
 *   event_interval_ms are held and sent as one event whose count says how
 *   many crossings it stands for, when the interval ends.
 * - Each uid has a budget (a token bucket of event_rate events per second,
 *   event_burst deep), one for its failures and one for its other events:
 *   what is over it is not sent, and is counted against that uid
 *   (ia_events_budget()) - it costs no other uid anything. Such events get
 *   no sequence number: a listener's received + lost still adds up.
 * - The last IA_EVQ_RESERVE slots of the ring are for failures only, and a
 *   uid holds at most IA_EVQ_PER_UID slots at once (more: over its budget).
 *
 * Everything here runs under ia_evq_lock (irqsave), taken last: no other
 * lock is taken under it.
 */
#include <linux/hash.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "ia.h"

static unsigned int event_interval_ms = 1000;
module_param(event_interval_ms, uint, 0644);
MODULE_PARM_DESC(event_interval_ms,
		 "Repeated failures of one object within this interval are reported as one event (default 1000)");

static unsigned int event_rate = 100;
module_param(event_rate, uint, 0644);
MODULE_PARM_DESC(event_rate,
		 "Events per second each uid may raise, failures and others apart; more is counted against it and not sent (0: no limit; default 100)");

/*
 * A listener's socket holds about 170 events at the default rmem (212,992
 * bytes, about 1.2 KiB of truesize each): one uid's burst must leave room
 * for the others' failures.
 */
static unsigned int event_burst = 100;
module_param(event_burst, uint, 0644);
MODULE_PARM_DESC(event_burst, "How many events a uid may raise at once (default 100)");

#define IA_EVQ_LEN 256
/* Ring slots only failures may take. */
#define IA_EVQ_RESERVE 64
/* Ring slots one uid may hold at once (with budgets on): a burst fills no more. */
#define IA_EVQ_PER_UID 32

static DEFINE_SPINLOCK(ia_evq_lock);
static struct ia_event ia_evq[IA_EVQ_LEN];
struct ia_budget;
/* The budget slot each queued event is counted in (NULL: none). */
static struct ia_budget *ia_evq_owner[IA_EVQ_LEN];
static unsigned int ia_evq_head, ia_evq_len;
static u64 ia_ev_seq, ia_ev_dropped, ia_ev_dropped_fail, ia_ev_coalesced;
/* The sequence number of the last event handed to the sink. */
static u64 ia_ev_sent;
static const struct ia_event_sink *ia_sink;

static void ia_ev_workfn(struct work_struct *w);
static DECLARE_WORK(ia_ev_work, ia_ev_workfn);

/* --- threshold crossings, coalesced per object and level ---------------- */

#define IA_THR_SLOTS 256
#define IA_PROBE 8

struct ia_thr_slot {
	bool used;
	u32 kind, id, level;
	u64 last_ns;		/* when this object's last crossing was sent */
	u32 pending;		/* crossings held back since */
	struct ia_event ev;	/* the latest of them */
};

static struct ia_thr_slot ia_thr[IA_THR_SLOTS];
static bool ia_thr_flush_armed;

static void ia_thr_flushfn(struct work_struct *w);
static DECLARE_DELAYED_WORK(ia_thr_flush_work, ia_thr_flushfn);

/* --- per-uid budgets ---------------------------------------------------- */

#define IA_BUDGET_SLOTS 128

struct ia_budget {
	bool used;
	kuid_t uid;
	u64 last_ns;
	u64 credit[2];		/* ns of credit: [0] other events, [1] failures */
	u64 suppressed[2];
	unsigned int queued;	/* its events in the ring now */
};

static struct ia_budget ia_budget[IA_BUDGET_SLOTS];
/* Over budget, all uids (those of evicted slots too): [0] others, [1] failures. */
static u64 ia_ev_suppressed[2];

void ia_events_set_sink(const struct ia_event_sink *sink)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_evq_lock, flags);
	WRITE_ONCE(ia_sink, sink);
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	if (!sink)
		cancel_work_sync(&ia_ev_work);
}

bool ia_events_wanted(void)
{
	const struct ia_event_sink *sink = READ_ONCE(ia_sink);

	return sink && sink->listening();
}

static kuid_t ia_event_uid(const struct ia_event *ev)
{
	return ev->kind == IA_KIND_UID_POT ? ev->pot.uid : ev->who.uid;
}

static u32 ia_event_id(const struct ia_event *ev)
{
	switch (ev->kind) {
	case IA_KIND_UID_POT:
		return __kuid_val(ev->pot.uid);
	case IA_KIND_VFIO_CONTAINER:
		return ev->vfio.id;
	default:
		return ev->q.id;
	}
}

/* The slot of @ev's object and level, claimed if need be; NULL when all are busy. */
static struct ia_thr_slot *ia_thr_slot(const struct ia_event *ev, u64 now)
{
	u32 id = ia_event_id(ev), h = hash_32(id ^ (ev->kind << 24) ^ (ev->level << 30), 8);
	struct ia_thr_slot *t, *free = NULL;
	int i;

	for (i = 0; i < IA_PROBE; i++) {
		t = &ia_thr[(h + i) % IA_THR_SLOTS];
		if (t->used && t->kind == ev->kind && t->id == id && t->level == ev->level)
			return t;
		/* Idle: nothing held, its interval over. */
		if (!free && (!t->used ||
			      (!t->pending && now - t->last_ns >= ia_coalesce_interval_ns())))
			free = t;
	}
	if (free) {
		free->used = true;
		free->kind = ev->kind;
		free->id = id;
		free->level = ev->level;
		free->last_ns = 0;
		free->pending = 0;
	}
	return free;
}

/* False when @ev is held back: a crossing of an object whose last one left within the interval. */
static bool ia_thr_pass(struct ia_event *ev, u64 now)
{
	struct ia_thr_slot *t = ia_thr_slot(ev, now);

	if (!t)
		return true;
	if (t->last_ns && now - t->last_ns < ia_coalesce_interval_ns()) {
		t->pending++;
		t->ev = *ev;
		ia_ev_coalesced++;
		if (!ia_thr_flush_armed) {
			ia_thr_flush_armed = true;
			schedule_delayed_work(&ia_thr_flush_work,
					      nsecs_to_jiffies(ia_coalesce_interval_ns()) + 1);
		}
		return false;
	}
	ev->count = t->pending + 1;
	t->pending = 0;
	t->last_ns = now;
	return true;
}

/* @uid's budget slot, claimed if need be (the least recently used one otherwise). */
static struct ia_budget *ia_budget_slot(kuid_t uid)
{
	u32 h = hash_32(__kuid_val(uid), 7);
	struct ia_budget *b, *lru = NULL;
	int i;

	for (i = 0; i < IA_PROBE; i++) {
		b = &ia_budget[(h + i) % IA_BUDGET_SLOTS];
		if (b->used && uid_eq(b->uid, uid))
			return b;
		if (!b->used) {
			lru = b;
			break;
		}
		if (!b->queued && (!lru || b->last_ns < lru->last_ns))
			lru = b;
	}
	if (!lru)
		return NULL;	/* every candidate has events in the ring: no budget */
	/* A new uid starts with a full bucket (an evicted uid's counts stay in the totals). */
	memset(lru, 0, sizeof(*lru));
	lru->used = true;
	lru->uid = uid;
	lru->credit[0] = U64_MAX;
	lru->credit[1] = U64_MAX;
	return lru;
}

/*
 * False when @ev's uid is over its budget, or holds its share of the ring
 * already: counted against it, not sent. *@slot: where to count it queued.
 */
static bool ia_budget_pass(const struct ia_event *ev, u64 now, struct ia_budget **slot)
{
	unsigned int rate = READ_ONCE(event_rate), burst = max(READ_ONCE(event_burst), 1U);
	int f = ev->type == IA_EV_FAILURE;
	struct ia_budget *b;
	u64 cost, cap;
	int i;

	*slot = NULL;
	if (!rate)
		return true;
	cost = NSEC_PER_SEC / rate;
	cap = cost * burst;
	b = ia_budget_slot(ia_event_uid(ev));
	if (!b)
		return true;
	for (i = 0; i < 2; i++)
		b->credit[i] = min(cap, b->credit[i] == U64_MAX ? cap :
					b->credit[i] + (now - b->last_ns));
	b->last_ns = now;
	if (b->credit[f] >= cost && b->queued < IA_EVQ_PER_UID) {
		b->credit[f] -= cost;
		*slot = b;
		return true;
	}
	b->suppressed[f]++;
	ia_ev_suppressed[f]++;
	return false;
}

/* Under ia_evq_lock: number @ev and put it in the ring (or count it lost). */
static bool ia_event_put_locked(struct ia_event *ev, struct ia_budget *b)
{
	unsigned int room = ev->type == IA_EV_FAILURE ? IA_EVQ_LEN : IA_EVQ_LEN - IA_EVQ_RESERVE;
	unsigned int tail = (ia_evq_head + ia_evq_len) % IA_EVQ_LEN;

	lockdep_assert_held(&ia_evq_lock);
	ev->seq = ++ia_ev_seq;
	if (ia_evq_len >= room) {
		ia_ev_dropped++;
		if (ev->type == IA_EV_FAILURE)
			ia_ev_dropped_fail++;
		return false;
	}
	ia_evq[tail] = *ev;
	ia_evq_owner[tail] = b;
	if (b)
		b->queued++;
	ia_evq_len++;
	return true;
}

/* Under ia_evq_lock: @ev passes the budget, and goes in the ring. */
static bool ia_event_send_locked(struct ia_event *ev, u64 now)
{
	struct ia_budget *b;

	return ia_budget_pass(ev, now, &b) && ia_event_put_locked(ev, b);
}

/* @ev's object is gone: what it held back leaves first, so its gone event is its last. */
static bool ia_thr_gone_locked(const struct ia_event *ev, u64 now)
{
	u32 id = ia_event_id(ev);
	struct ia_thr_slot *t;
	bool queued = false;
	int i;

	for (i = 0; i < IA_THR_SLOTS; i++) {
		t = &ia_thr[i];
		if (!t->used || t->kind != ev->kind || t->id != id)
			continue;
		if (t->pending) {
			t->ev.count = t->pending;
			queued |= ia_event_send_locked(&t->ev, now);
		}
		t->used = false;
	}
	return queued;
}

void ia_event_queue(struct ia_event *ev)
{
	unsigned long flags;
	bool queued = false;
	u64 now = ktime_get_ns();

	if (ev->type != IA_EV_FAILURE)
		ev->count = 1;
	spin_lock_irqsave(&ia_evq_lock, flags);
	if (ia_sink && ev->type == IA_EV_GONE)
		queued = ia_thr_gone_locked(ev, now);
	if (ia_sink && (ev->type != IA_EV_THRESHOLD || ia_thr_pass(ev, now)))
		queued |= ia_event_send_locked(ev, now);
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	if (queued)
		schedule_work(&ia_ev_work);
}

/* The interval is over: send what each object held back, as one event with its count. */
static void ia_thr_flushfn(struct work_struct *w)
{
	u64 now = ktime_get_ns(), iv = ia_coalesce_interval_ns();
	bool queued = false, more = false;
	struct ia_thr_slot *t;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&ia_evq_lock, flags);
	ia_thr_flush_armed = false;
	for (i = 0; i < IA_THR_SLOTS; i++) {
		t = &ia_thr[i];
		if (!t->used || !t->pending)
			continue;
		if (now - t->last_ns < iv) {
			more = true;
			continue;
		}
		t->ev.count = t->pending;
		t->pending = 0;
		t->last_ns = now;
		if (ia_sink)
			queued |= ia_event_send_locked(&t->ev, now);
	}
	if (more) {
		ia_thr_flush_armed = true;
		schedule_delayed_work(&ia_thr_flush_work, nsecs_to_jiffies(iv) + 1);
	}
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	if (queued)
		schedule_work(&ia_ev_work);
}

void ia_events_budget(struct ia_events_stats *st, struct ia_budget_rec *rec, unsigned int max,
		      unsigned int *n)
{
	unsigned long flags;
	unsigned int i;

	*n = 0;
	spin_lock_irqsave(&ia_evq_lock, flags);
	st->coalesced = ia_ev_coalesced;
	st->suppressed = ia_ev_suppressed[0];
	st->suppressed_failures = ia_ev_suppressed[1];
	st->dropped_failures = ia_ev_dropped_fail;
	for (i = 0; i < IA_BUDGET_SLOTS && *n < max; i++) {
		const struct ia_budget *b = &ia_budget[i];

		if (!b->used || !(b->suppressed[0] | b->suppressed[1]))
			continue;
		rec[*n].uid = b->uid;
		rec[*n].suppressed = b->suppressed[0];
		rec[*n].suppressed_failures = b->suppressed[1];
		(*n)++;
	}
	spin_unlock_irqrestore(&ia_evq_lock, flags);
}

static void ia_ev_workfn(struct work_struct *w)
{
	const struct ia_event_sink *sink;
	struct ia_event *ev;
	unsigned long flags;

	ev = kmalloc(sizeof(*ev), GFP_KERNEL);
	for (;;) {
		spin_lock_irqsave(&ia_evq_lock, flags);
		sink = ia_sink;
		if (!ia_evq_len || !sink) {
			spin_unlock_irqrestore(&ia_evq_lock, flags);
			break;
		}
		if (ev)
			*ev = ia_evq[ia_evq_head];
		else
			ia_ev_dropped++;
		if (ia_evq_owner[ia_evq_head])
			ia_evq_owner[ia_evq_head]->queued--;
		ia_evq_owner[ia_evq_head] = NULL;
		ia_evq_head = (ia_evq_head + 1) % IA_EVQ_LEN;
		ia_evq_len--;
		spin_unlock_irqrestore(&ia_evq_lock, flags);
		if (ev) {
			sink->deliver(ev);
			WRITE_ONCE(ia_ev_sent, ev->seq);
		}
	}
	kfree(ev);
}

static atomic64_t ia_kind_refusals_total[IA_KIND_MAX + 1];

void ia_kind_refused(enum ia_kind kind, u64 n)
{
	if ((unsigned int)kind <= IA_KIND_MAX)
		atomic64_add(n, &ia_kind_refusals_total[kind]);
}

u64 ia_kind_refusals(enum ia_kind kind)
{
	return (unsigned int)kind <= IA_KIND_MAX ? atomic64_read(&ia_kind_refusals_total[kind]) : 0;
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

u64 ia_events_sent(void)
{
	return READ_ONCE(ia_ev_sent);
}

void ia_events_exit(void)
{
	ia_events_set_sink(NULL);
	cancel_delayed_work_sync(&ia_thr_flush_work);
}

u64 ia_coalesce_interval_ns(void)
{
	return (u64)READ_ONCE(event_interval_ms) * NSEC_PER_MSEC;
}

bool ia_coalesce_fail(struct ia_coalesce *co, u64 now, u32 *count)
{
	if (co->last_ns && now - co->last_ns < ia_coalesce_interval_ns()) {
		co->pending++;
		return false;
	}
	*count = co->pending + 1;
	co->pending = 0;
	co->last_ns = now;
	return true;
}

void ia_coalesce_schedule(struct delayed_work *work, bool *armed)
{
	if (*armed)
		return;
	*armed = true;
	schedule_delayed_work(work, nsecs_to_jiffies(ia_coalesce_interval_ns()) + 1);
}

u32 ia_coalesce_due(struct ia_coalesce *co, u64 now)
{
	u32 n = co->pending;

	if (!n || now - co->last_ns < ia_coalesce_interval_ns())
		return 0;
	co->pending = 0;
	co->last_ns = now;
	return n;
}

/* --- threshold levels (see ia.h) ------------------------------------------------ */

u64 ia_per_mille(u64 value, u64 limit)
{
	return mul_u64_u64_div_u64(value, 1000, limit);
}

/* The smallest count x with ia_per_mille(x << @shift, @limit) >= @pm. */
static u64 ia_count_at(u64 pm, u64 limit, unsigned int shift)
{
	u64 x = mul_u64_u64_div_u64(pm, limit, 1000) >> shift;

	/* x is at most one below: the same rounding as ia_per_mille()'s. */
	while (ia_per_mille(x << shift, limit) < pm)
		x++;
	return x;
}

void ia_levels_bounds(struct ia_level_bounds *b, const struct ia_levels *lv,
		      const struct ia_thresholds *t, u32 margin, u64 limit, unsigned int shift)
{
	unsigned int l;
	u32 line;

	b->raise_at = U64_MAX;
	b->rearm_below = 0;
	if (!limit)
		return;
	for (l = 0; l < IA_LEVEL_COUNT; l++) {
		line = ia_level_line(t, l);
		if (!(lv->raised & BIT(l)))
			b->raise_at = min(b->raise_at, ia_count_at(line, limit, shift));
		else if (line > margin)
			b->rearm_below = max(b->rearm_below,
					     ia_count_at(line - margin, limit, shift));
	}
}

void ia_levels_rearm(struct ia_levels *lv, const struct ia_thresholds *t, u32 margin, u64 pm)
{
	unsigned int l;

	for (l = 0; l < IA_LEVEL_COUNT; l++)
		if (pm + margin < ia_level_line(t, l))
			lv->raised &= ~BIT(l);
}

unsigned int ia_levels_raise(struct ia_levels *lv, const struct ia_thresholds *t, u64 pm,
			     bool highest)
{
	unsigned int l, mask = 0;

	for (l = 0; l < IA_LEVEL_COUNT; l++)
		if (pm >= ia_level_line(t, l) && !(lv->raised & BIT(l)))
			mask |= BIT(l);
	if (!mask)
		return 0;
	if (highest) {
		l = fls(mask) - 1;
		lv->raised |= BIT(l + 1) - 1;	/* it and every level below */
		return BIT(l);
	}
	lv->raised |= mask;
	return mask;
}
