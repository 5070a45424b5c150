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

struct iad_obj *iad_obj_find(struct iad_objs *o, uint32_t kind, uint32_t id)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->v[i]->kind == kind && o->v[i]->id == id)
			return o->v[i];
	return NULL;
}

struct iad_obj *iad_obj_get(struct iad_objs *o, uint32_t kind, uint32_t id)
{
	struct iad_obj *ob = iad_obj_find(o, kind, id), **v;

	if (ob)
		return ob;
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
	o->v[o->n++] = ob;
	return ob;
}

void iad_objs_free(struct iad_objs *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->v[i]);
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

void iad_obj_sample(struct iad_obj *ob, double t, const struct iad_thr *thr)
{
	ob->hist[ob->head].t = t;
	ob->hist[ob->head].v = (double)ob->used;
	ob->head = (ob->head + 1) % IAD_HIST;
	if (ob->nhist < IAD_HIST)
		ob->nhist++;
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
	if (who)
		ob->fail_who = *who;
	else
		memset(&ob->fail_who, 0, sizeof(ob->fail_who));
	ob->fail_errno = err;
	ob->fail_size = size;
	ob->fail_seq = seq;
	if (ob->state == IAD_FAILURE)
		return false;
	if (err)
		snprintf(reason, rlen, "the kernel refused a charge or mapping (errno %u)", err);
	else
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
