// SPDX-License-Identifier: GPL-2.0
/*
 * The event queue. Sources raise events from probe handlers (atomic
 * context): ia_event_queue() stamps a global sequence number and copies the
 * event into a fixed ring; a work item hands them, in order, to the sink the
 * netlink layer registered. A full ring drops the event (counted, and seen by
 * listeners as a gap in the sequence numbers).
 *
 * Repeated failures of one object are coalesced (ia_coalesce_*), so one
 * object refusing in a loop costs the others nothing: it raises at most one
 * event per interval.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ia.h"

static unsigned int event_interval_ms = 1000;
module_param(event_interval_ms, uint, 0644);
MODULE_PARM_DESC(event_interval_ms,
		 "Repeated failures of one object within this interval are reported as one event (default 1000)");

#define IA_EVQ_LEN 256

static DEFINE_SPINLOCK(ia_evq_lock);
static struct ia_event ia_evq[IA_EVQ_LEN];
static unsigned int ia_evq_head, ia_evq_len;
static u64 ia_ev_seq, ia_ev_dropped;
/* The sequence number of the last event handed to the sink. */
static u64 ia_ev_sent;
static const struct ia_event_sink *ia_sink;

static void ia_ev_workfn(struct work_struct *w);
static DECLARE_WORK(ia_ev_work, ia_ev_workfn);

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

void ia_event_queue(struct ia_event *ev)
{
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&ia_evq_lock, flags);
	if (ia_sink) {
		ev->seq = ++ia_ev_seq;
		if (ia_evq_len == IA_EVQ_LEN) {
			ia_ev_dropped++;
		} else {
			ia_evq[(ia_evq_head + ia_evq_len) % IA_EVQ_LEN] = *ev;
			ia_evq_len++;
			queued = true;
		}
	}
	spin_unlock_irqrestore(&ia_evq_lock, flags);
	if (queued)
		schedule_work(&ia_ev_work);
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
