// SPDX-License-Identifier: GPL-2.0
/* iommu-accountd's model: history, trend and the alert state machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

const char *iad_state_name(enum iad_state s)
{
	static const char *const n[IAD_NSTATES] = { "OK", "WARNING", "CRITICAL", "FAILURE" };

	return s < IAD_NSTATES ? n[s] : "?";
}

const char *iad_alert_name(const struct iad_alert *a)
{
	return a->state == IAD_OK ? "CLEARED" : iad_state_name(a->state);
}

/* Objects are kept sorted by (kind, id), as the dumps come: binary search. */
static size_t lower_bound(const struct iad_objs *o, uint32_t kind, uint32_t id)
{
	size_t lo = 0, hi = o->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (o->v[mid]->kind < kind || (o->v[mid]->kind == kind && o->v[mid]->id < id))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct iad_obj *iad_obj_find(struct iad_objs *o, uint32_t kind, uint32_t id)
{
	size_t i = lower_bound(o, kind, id);

	return i < o->n && o->v[i]->kind == kind && o->v[i]->id == id ? o->v[i] : NULL;
}

struct iad_obj *iad_obj_get(struct iad_objs *o, uint32_t kind, uint32_t id)
{
	size_t i = lower_bound(o, kind, id);
	struct iad_obj *ob, **v;

	if (i < o->n && o->v[i]->kind == kind && o->v[i]->id == id)
		return o->v[i];
	if (o->n == o->cap) {
		v = realloc(o->v, (o->cap ? o->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return NULL;
		o->v = v;
		o->cap = o->cap ? o->cap * 2 : 16;
	}
	ob = calloc(1, sizeof(*ob));
	if (!ob)
		return NULL;
	ob->kind = kind;
	ob->id = id;
	memmove(&o->v[i + 1], &o->v[i], (o->n - i) * sizeof(*o->v));
	o->v[i] = ob;
	o->n++;
	return ob;
}

void iad_obj_free(struct iad_obj *ob)
{
	if (ob)
		free(ob->hist);
	free(ob);
}

void iad_objs_free(struct iad_objs *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		iad_obj_free(o->v[i]);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

double iad_trend(const struct iad_sample *s, unsigned int n, unsigned int head,
		 double window_s)
{
	double newest, st = 0, sv = 0, stt = 0, stv = 0, t0, den;
	unsigned int i, k = 0, idx;

	if (n < 3)
		return 0;
	newest = s[(head + IAD_HIST - 1) % IAD_HIST].t;
	t0 = newest;
	/* Centred on the newest time: keeps the sums small and exact enough. */
	for (i = 0; i < n; i++) {
		idx = (head + IAD_HIST - 1 - i) % IAD_HIST;
		if (newest - s[idx].t > window_s)
			break;
		st += s[idx].t - t0;
		sv += s[idx].v;
		stt += (s[idx].t - t0) * (s[idx].t - t0);
		stv += (s[idx].t - t0) * s[idx].v;
		k++;
	}
	if (k < 3)
		return 0;
	den = k * stt - st * st;
	if (fabs(den) < 1e-12)
		return 0;
	return (k * stv - st * sv) / den;
}

static void push(struct iad_obj *ob, double t, double v)
{
	ob->hist[ob->head].t = t;
	ob->hist[ob->head].v = v;
	ob->head = (ob->head + 1) % IAD_HIST;
	if (ob->nhist < IAD_HIST)
		ob->nhist++;
}

/*
 * The first change: a ring, holding the run of equal samples so far (at
 * evenly spread times: they came from periodic polls) and the new one.
 */
static bool unflatten(struct iad_obj *ob)
{
	unsigned int i, n = ob->flat_n < IAD_HIST - 1 ? ob->flat_n : IAD_HIST - 1;

	ob->hist = calloc(IAD_HIST, sizeof(*ob->hist));
	if (!ob->hist)
		return false;
	for (i = 0; i < n; i++)
		push(ob, n == 1 ? ob->flat_t1 :
			 ob->flat_t0 + (ob->flat_t1 - ob->flat_t0) * i / (n - 1),
		     ob->hist_v);
	return true;
}

void iad_obj_sample(struct iad_obj *ob, double t, const struct iad_thr *thr)
{
	if (!ob->hist) {
		if (!ob->flat_n || (double)ob->used == ob->hist_v) {
			if (!ob->flat_n++)
				ob->flat_t0 = t;
			ob->flat_t1 = t;
			ob->hist_v = (double)ob->used;
			ob->rate = 0;
			ob->has_eta = false;
			return;
		}
		if (!unflatten(ob)) {
			ob->rate = 0;	/* no memory for a trend: levels still work */
			ob->has_eta = false;
			return;
		}
	}
	push(ob, t, (double)ob->used);
	ob->rate = iad_trend(ob->hist, ob->nhist, ob->head, thr->window_s);
	ob->has_eta = false;
	if (ob->has_limit && ob->rate > 0) {
		ob->eta_s = ob->used >= ob->limit ? 0 :
			    (double)(ob->limit - ob->used) / ob->rate;
		ob->has_eta = true;
	}
}

double iad_obj_util(const struct iad_obj *ob)
{
	if (!ob->has_limit)
		return -1;
	if (!ob->limit)
		return ob->used ? 1 : 0;
	return (double)ob->used / (double)ob->limit;
}

static void alert_fill(struct iad_alert *a, struct iad_obj *ob, enum iad_state to,
		       const char *reason, double now)
{
	memset(a, 0, sizeof(*a));
	a->prev = ob->state;
	a->state = to;
	a->obj = ob;
	a->reason = reason;
	a->who = ob->owner;
	ob->state = to;
	ob->state_since = now;
	ob->alerts++;
	snprintf(ob->reason, sizeof(ob->reason), "%s", reason);
}

/* The level the figures call for, going up; @soon: ETA within the horizon. */
static enum iad_state level_up(double u, bool soon, const struct iad_thr *thr)
{
	if (u >= thr->crit)
		return IAD_CRITICAL;
	if (u >= thr->warn || soon)
		return IAD_WARNING;
	return IAD_OK;
}

bool iad_obj_evaluate(struct iad_obj *ob, double now, const struct iad_thr *thr,
		      char *reason, size_t rlen, struct iad_alert *a)
{
	double u = iad_obj_util(ob);
	bool soon = ob->has_eta && ob->eta_s < thr->horizon_s;
	enum iad_state to = ob->state, up;

	if (u < 0) {
		/* No limit (no live process, or unlimited): nothing to run out of. */
		if (ob->state == IAD_OK)
			return false;
		snprintf(reason, rlen, "no limit applies any more");
		alert_fill(a, ob, IAD_OK, reason, now);
		return true;
	}
	up = level_up(u, soon, thr);
	switch (ob->state) {
	case IAD_OK:
		to = up;
		break;
	case IAD_WARNING:
		if (up == IAD_CRITICAL)
			to = up;
		else if (u < thr->warn - thr->hysteresis && !soon)
			to = IAD_OK;
		break;
	case IAD_CRITICAL:
		if (u < thr->warn - thr->hysteresis && !soon)
			to = IAD_OK;
		else if (u < thr->crit - thr->hysteresis)
			to = IAD_WARNING;
		break;
	case IAD_FAILURE:
		if (u < thr->warn - thr->hysteresis && !soon)
			to = IAD_OK;
		break;
	default:
		break;
	}
	if (to == ob->state)
		return false;
	if (to == IAD_CRITICAL)
		snprintf(reason, rlen, "utilisation %.1f%% >= critical %.0f%%", u * 100,
			 thr->crit * 100);
	else if (to == IAD_WARNING && u >= thr->warn)
		snprintf(reason, rlen, "utilisation %.1f%% >= warning %.0f%%", u * 100,
			 thr->warn * 100);
	else if (to == IAD_WARNING && soon)
		snprintf(reason, rlen, "exhausted in %.0f s at %.3g/s (horizon %.0f s), "
			 "utilisation %.1f%%", ob->eta_s, ob->rate, thr->horizon_s, u * 100);
	else if (to == IAD_WARNING)
		snprintf(reason, rlen, "utilisation %.1f%% below critical %.0f%% - %.0f%%",
			 u * 100, thr->crit * 100, thr->hysteresis * 100);
	else
		snprintf(reason, rlen, "utilisation %.1f%% below warning %.0f%% - %.0f%%",
			 u * 100, thr->warn * 100, thr->hysteresis * 100);
	alert_fill(a, ob, to, reason, now);
	return true;
}

bool iad_obj_fail(struct iad_obj *ob, double now, const struct iad_who *who, uint32_t err,
		  uint64_t size, uint64_t seq, char *reason, size_t rlen, struct iad_alert *a)
{
	if (ob->state == IAD_FAILURE)
		return false;
	/* The caller's account of it, else a generic one. */
	if (!reason[0] && err)
		snprintf(reason, rlen, "the kernel refused a charge or mapping (errno %u)", err);
	else if (!reason[0])
		snprintf(reason, rlen, "the kernel refused a charge or mapping");
	alert_fill(a, ob, IAD_FAILURE, reason, now);
	if (who)
		a->who = *who;
	a->seq = seq;
	a->err = err;
	a->size = size;
	return true;
}

bool iad_obj_gone(struct iad_obj *ob, double now, struct iad_alert *a)
{
	if (ob->state == IAD_OK)
		return false;
	alert_fill(a, ob, IAD_OK, "the object is gone", now);
	return true;
}
