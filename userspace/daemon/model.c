// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountd's model: history, the floor and its trend, and the alert
 * state machine.
 *
 * The prediction watches the floor, not the raw samples: every quarter of
 * a window, the minimum of used over the last window. A job that registers
 * and releases its buffers over and over (a cycle shorter than the window)
 * leaves the floor flat however high its peaks go; a leak raises it. Two
 * least-squares fits of the floor must agree that it rises: over the last
 * four windows (speed) and over the trend window (significance), and its
 * window-to-window steps over the trend window must drift, three standard
 * errors above zero (a bounded random walk rises as far, by chance); the time
 * to exhaustion is the distance from the window's peak to the limit at the
 * short fit's rate, and it must stay within the horizon for persist_s before
 * WARNING, which then clears by the same signal (beyond 1.25 horizons, or
 * the floor no longer rising).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ia.h"
#include "model.h"

const char *iad_state_name(enum iad_state s)
{
	static const char *const n[IAD_NSTATES] = { "OK", "WARNING", "CRITICAL", "FAILURE" };

	return s < IAD_NSTATES ? n[s] : "?";
}

const char *iad_trend_name(enum iad_trend t)
{
	static const char *const n[] = { "too_early", "not_filling", "rising", "filling" };

	return t <= IAD_TREND_FILLING ? n[t] : "too_early";
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
	if (ob) {
		free(ob->hist);
		free(ob->floor);
		free(ob->reason);
		free(ob->ident);
	}
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

/*
 * Least squares over the newest samples of a ring of @size within @window_s
 * of the newest: the slope; @k the samples used, @first the oldest of them.
 */
static double fit(const struct iad_sample *s, unsigned int size, unsigned int n,
		  unsigned int head, double window_s, unsigned int *k,
		  const struct iad_sample **first)
{
	double newest, st = 0, sv = 0, stt = 0, stv = 0, t0, den;
	unsigned int i, idx;

	*k = 0;
	*first = NULL;
	if (n < 3)
		return 0;
	newest = s[(head + size - 1) % size].t;
	t0 = newest;
	/* Centred on the newest time: keeps the sums small and exact enough. */
	for (i = 0; i < n; i++) {
		idx = (head + size - 1 - i) % size;
		if (newest - s[idx].t > window_s)
			break;
		st += s[idx].t - t0;
		sv += s[idx].v;
		stt += (s[idx].t - t0) * (s[idx].t - t0);
		stv += (s[idx].t - t0) * s[idx].v;
		(*k)++;
		*first = &s[idx];
	}
	if (*k < 3)
		return 0;
	den = *k * stt - st * st;
	if (fabs(den) < 1e-12)
		return 0;
	return (*k * stv - st * sv) / den;
}

double iad_trend(const struct iad_sample *s, unsigned int n, unsigned int head,
		 double window_s)
{
	const struct iad_sample *first;
	unsigned int k;

	return fit(s, IAD_HIST, n, head, window_s, &k, &first);
}

/* Append (@t, @v) to a ring of @size samples. */
static void ring_push(struct iad_sample *r, unsigned int size, unsigned int *head,
		      unsigned int *n, double t, double v)
{
	r[*head].t = t;
	r[*head].v = v;
	*head = (*head + 1) % size;
	if (*n < size)
		(*n)++;
}

static void push(struct iad_obj *ob, double t, double v)
{
	ring_push(ob->hist, IAD_HIST, &ob->head, &ob->nhist, t, v);
}

static void push_floor(struct iad_obj *ob, double t, double v)
{
	ring_push(ob->floor, IAD_FLOORS, &ob->fhead, &ob->nfloor, t, v);
}

/* The trend window's fit must predict exhaustion within this many horizons (+ persist). */
#define LONG_AGREE 8
/* The span, in windows, over which the floor must climb in each third. */
#define THIRDS_WINDOWS 8
/*
 * The floor's drift over the trend window: at least this many standard
 * errors to start a prediction, and DRIFT_Z_HOLD to keep it (a real leak's
 * z wavers as windows come and go; a walk's seldom reaches DRIFT_Z).
 */
#define DRIFT_Z 3.0
#define DRIFT_Z_HOLD 2.0

static double quarter_s(const struct iad_thr *thr)
{
	return thr->window_s / 4;
}

static double trend_window(const struct iad_thr *thr)
{
	return thr->trend_window_s > 0 ? thr->trend_window_s : 30 * thr->window_s;
}

static double persist(const struct iad_thr *thr)
{
	return thr->persist_s > 0 ? thr->persist_s : 3 * thr->window_s;
}

/* Close the open quarter at @t: once a window of quarters is closed, a floor point. */
static void close_quarter(struct iad_obj *ob, double t)
{
	double m;
	unsigned int i;

	memmove(&ob->qmin[1], &ob->qmin[0], 3 * sizeof(ob->qmin[0]));
	memmove(&ob->qmax[1], &ob->qmax[0], 3 * sizeof(ob->qmax[0]));
	ob->qmin[0] = ob->q_min;
	ob->qmax[0] = ob->q_max;
	if (ob->nq < 4)
		ob->nq++;
	if (ob->nq < 4)
		return;
	for (m = ob->qmin[0], i = 1; i < 4; i++)
		if (ob->qmin[i] < m)
			m = ob->qmin[i];
	push_floor(ob, t, m);
}

/*
 * The first change: a ring, holding the run of equal samples so far (at
 * evenly spread times: they came from periodic polls) and the new one; the
 * floor, flat over the run (a quarter window apart), with its quarters.
 */
static bool unflatten(struct iad_obj *ob, const struct iad_thr *thr)
{
	unsigned int i, n = ob->flat_n < IAD_HIST - 1 ? ob->flat_n : IAD_HIST - 1;
	double q = quarter_s(thr), t;

	ob->hist = calloc(IAD_HIST, sizeof(*ob->hist));
	ob->floor = calloc(IAD_FLOORS, sizeof(*ob->floor));
	if (!ob->hist || !ob->floor) {
		free(ob->hist);
		free(ob->floor);
		ob->hist = ob->floor = NULL;
		return false;
	}
	for (i = 0; i < n; i++)
		push(ob, n == 1 ? ob->flat_t1 :
			 ob->flat_t0 + (ob->flat_t1 - ob->flat_t0) * i / (n - 1),
		     ob->hist_v);
	/* The quarters of the run, and a floor point for each once a window has passed. */
	for (t = ob->flat_t0 + q; t <= ob->flat_t1; t += q) {
		ob->q_min = ob->q_max = ob->hist_v;
		close_quarter(ob, t);
		ob->q_t0 = t;
	}
	if (ob->flat_t1 - ob->flat_t0 < q)
		ob->q_t0 = ob->flat_t0;
	ob->q_min = ob->q_max = ob->hist_v;
	return true;
}

/*
 * The floor climbs over the last @span: split in three, the lowest floor of
 * each third is above the one before. A leak does that; a cycle shorter
 * than a third, a walk, or a step that stopped does not (or not for long).
 */
static bool floor_climbs(const struct iad_obj *ob, double span)
{
	double newest, m[3] = { INFINITY, INFINITY, INFINITY }, age;
	unsigned int i, idx, part;

	if (!ob->nfloor)
		return false;
	newest = ob->floor[(ob->fhead + IAD_FLOORS - 1) % IAD_FLOORS].t;
	if (newest - ob->floor[(ob->fhead + IAD_FLOORS - ob->nfloor) % IAD_FLOORS].t < span)
		return false;	/* not yet a span of floor */
	for (i = 0; i < ob->nfloor; i++) {
		idx = (ob->fhead + IAD_FLOORS - 1 - i) % IAD_FLOORS;
		age = newest - ob->floor[idx].t;
		if (age > span)
			break;
		part = age * 3 < span ? 2 : age * 3 < 2 * span ? 1 : 0;
		if (ob->floor[idx].v < m[part])
			m[part] = ob->floor[idx].v;
	}
	return m[0] < m[1] && m[1] < m[2];
}

/*
 * How clearly the floor drifts upwards over @span: its increments one
 * window apart (the floor points within a window share samples), their
 * mean over their standard error, as a test of drift in a random walk. A
 * leak climbs by about the same step each window (z large, infinite when
 * the steps are equal); a walk's steps cancel, and its rise over the span is
 * of the order of one standard error (|z| about 1) however far it wandered.
 */
static double floor_drift_z(const struct iad_obj *ob, double span, double window_s)
{
	double x[IAD_FLOORS], newest, next, mean = 0, var = 0, d;
	unsigned int i, idx, n = 0, m;

	if (!ob->nfloor)
		return 0;
	newest = ob->floor[(ob->fhead + IAD_FLOORS - 1) % IAD_FLOORS].t;
	next = newest;
	for (i = 0; i < ob->nfloor; i++) {
		idx = (ob->fhead + IAD_FLOORS - 1 - i) % IAD_FLOORS;
		if (newest - ob->floor[idx].t > span + 1e-6)
			break;
		if (ob->floor[idx].t <= next + 1e-6) {
			x[n++] = ob->floor[idx].v;
			next = ob->floor[idx].t - window_s;
		}
	}
	if (n < 4)
		return 0;	/* three steps at least */
	m = n - 1;
	for (i = 0; i < m; i++)
		mean += x[i] - x[i + 1];
	mean /= m;
	for (i = 0; i < m; i++) {
		d = x[i] - x[i + 1] - mean;
		var += d * d;
	}
	var /= m - 1;
	if (var <= 0)
		return mean > 0 ? INFINITY : 0;
	return mean * sqrt(m / var);
}

/* The floor's fits, the peak and the prediction, after a sample at @t. */
static void predict(struct iad_obj *ob, double t, const struct iad_thr *thr)
{
	const struct iad_sample *first;
	unsigned int k, kl, i;
	double lim, z;
	bool soon;

	ob->peak = ob->q_max;
	for (i = 0; i < ob->nq && i < 3; i++)
		if (ob->qmax[i] > ob->peak)
			ob->peak = ob->qmax[i];
	ob->rate = fit(ob->floor, IAD_FLOORS, ob->nfloor, ob->fhead, 4 * thr->window_s, &k,
		       &first);
	ob->rise = first ? ob->floor[(ob->fhead + IAD_FLOORS - 1) % IAD_FLOORS].v - first->v : 0;
	ob->rise_span = first ? ob->floor[(ob->fhead + IAD_FLOORS - 1) % IAD_FLOORS].t - first->t :
		0;
	ob->long_rate = fit(ob->floor, IAD_FLOORS, ob->nfloor, ob->fhead, trend_window(thr), &kl,
			    &first);
	ob->has_eta = false;
	if (ob->has_limit && ob->rate > 0) {
		ob->eta_s = ob->peak >= (double)ob->limit ? 0 :
			    ((double)ob->limit - ob->peak) / ob->rate;
		ob->has_eta = true;
	}
	/*
	 * Within the horizon once the prediction has persisted (so that the
	 * WARNING lands a horizon ahead), and the trend window agrees: its fit
	 * predicts exhaustion within LONG_AGREE times that, and the floor's
	 * rise over it is a drift, not a walk's excursion.
	 */
	lim = thr->horizon_s + persist(thr) + quarter_s(thr);
	z = ob->has_eta && k >= 3 && ob->long_rate > 0 &&
	    floor_climbs(ob, THIRDS_WINDOWS * thr->window_s) ?
	    floor_drift_z(ob, trend_window(thr), thr->window_s) : -INFINITY;
	soon = ob->eta_s < lim && ((double)ob->limit - ob->peak) / ob->long_rate < LONG_AGREE * lim &&
	       z >= (ob->soon ? DRIFT_Z_HOLD : DRIFT_Z);
	ob->trusted = z >= (ob->trusted ? DRIFT_Z_HOLD : DRIFT_Z);
	if (soon && !ob->soon)
		ob->soon_since = t;
	ob->soon = soon;
	/* Four windows of floors before "not filling" or "rising" is said. */
	if (ob->has_eta && ob->trusted)
		ob->trend = IAD_TREND_FILLING;
	else if (ob->nfloor < 2 ||
		 ob->floor[(ob->fhead + IAD_FLOORS - 1) % IAD_FLOORS].t -
		 ob->floor[(ob->fhead + IAD_FLOORS - ob->nfloor) % IAD_FLOORS].t < 4 * thr->window_s)
		ob->trend = IAD_TREND_EARLY;
	else
		ob->trend = ob->rate > 0 ? IAD_TREND_RISING : IAD_TREND_FLAT;
}

static void flat(struct iad_obj *ob, const struct iad_thr *thr)
{
	ob->rate = ob->long_rate = ob->rise = ob->rise_span = 0;
	ob->has_eta = ob->soon = ob->trusted = false;
	ob->trend = ob->flat_t1 - ob->flat_t0 >= 4 * thr->window_s ? IAD_TREND_FLAT :
		    IAD_TREND_EARLY;
	ob->peak = ob->hist_v;
}

void iad_obj_sample(struct iad_obj *ob, double t, const struct iad_thr *thr)
{
	double v = (double)ob->used;

	if (!ob->hist) {
		if (!ob->flat_n || v == ob->hist_v) {
			if (!ob->flat_n++)
				ob->flat_t0 = t;
			ob->flat_t1 = t;
			ob->hist_v = v;
			flat(ob, thr);
			return;
		}
		if (!unflatten(ob, thr)) {
			flat(ob, thr);	/* no memory for a trend: levels still work */
			return;
		}
	}
	push(ob, t, v);
	if (t - ob->q_t0 >= quarter_s(thr)) {
		close_quarter(ob, t);
		ob->q_t0 = t;
		ob->q_min = ob->q_max = v;
	} else {
		if (v < ob->q_min)
			ob->q_min = v;
		if (v > ob->q_max)
			ob->q_max = v;
	}
	predict(ob, t, thr);
}

const char *iad_duration(double s, char *buf, size_t len)
{
	return ia_duration_str(s, buf, len);
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
	a->memlock_limit = a->locked_bytes = UINT64_MAX;
	a->prev = ob->state;
	a->state = to;
	a->obj = ob;
	a->reason = reason;
	a->who = ob->owner;
	ob->drained = false;	/* every alert is a transition, or a new episode's FAILURE */
	ob->state = to;
	ob->state_since = now;
	ob->alerts++;
	/* Whole, and only where an alert was raised (most objects never have one). */
	free(ob->reason);
	ob->reason = strdup(reason);
}

/*
 * The level the figures call for, going up (@soon: the prediction has held
 * long enough): a line counts once utilisation @u has stayed at or above
 * it for [thresholds] sustain (a queue pair that defers by design
 * crosses 95 % for a moment on every burst; its saturation alerts only
 * when it lasts).
 */
static enum iad_state level_up(struct iad_obj *ob, double u, bool soon, double now,
			       const struct iad_thr *thr)
{
	if (u >= thr->crit && !ob->at_crit)
		ob->crit_since = now;
	if (u >= thr->warn && !ob->at_warn)
		ob->warn_since = now;
	ob->at_crit = u >= thr->crit;
	ob->at_warn = u >= thr->warn;
	if (ob->at_crit && now - ob->crit_since >= thr->sustain_s)
		return IAD_CRITICAL;
	if ((ob->at_warn && now - ob->warn_since >= thr->sustain_s) || soon)
		return IAD_WARNING;
	return IAD_OK;
}

/* "the floor rose 1.2 MiB in 10 min; full in about 40 min (horizon 10 min)" */
static void prediction_str(const struct iad_obj *ob, const struct iad_thr *thr,
			   const char *unit, char *buf, size_t len)
{
	char rise[32], span[24], eta[24], hz[24];

	ia_amount(unit, ob->rise, rise, sizeof(rise));
	iad_duration(ob->rise_span, span, sizeof(span));
	iad_duration(thr->horizon_s, hz, sizeof(hz));
	if (ob->has_eta && ob->state != IAD_OK)
		snprintf(buf, len, "the prediction no longer holds: the floor rose %s in %s, "
			 "full in about %s, beyond the horizon %s", rise, span,
			 iad_duration(ob->eta_s, eta, sizeof(eta)), hz);
	else if (ob->has_eta)
		snprintf(buf, len, "the floor rose %s in %s; full in about %s (horizon %s)", rise,
			 span, iad_duration(ob->eta_s, eta, sizeof(eta)), hz);
	else if (ob->rate <= 0)
		snprintf(buf, len, "the floor no longer rises (%s in %s)", rise, span);
	else
		snprintf(buf, len, "the floor rose %s in %s; no limit applies", rise, span);
}

bool iad_obj_evaluate(struct iad_obj *ob, double now, const struct iad_thr *thr,
		      const char *unit, char *reason, size_t rlen, struct iad_alert *a)
{
	double u = iad_obj_util(ob);
	bool soon = ob->soon && now - ob->soon_since >= persist(thr);
	/* Hysteresis of the prediction: it goes on holding up to 1.25 times as far. */
	bool keep = ob->has_eta && ob->long_rate > 0 &&
		    ob->eta_s < 1.25 * (thr->horizon_s + persist(thr));
	bool below = u < thr->warn - thr->hysteresis;
	enum iad_state to = ob->state, up;
	char pred[200];

	/*
	 * A level clears once it has stayed below warn - hysteresis for a
	 * window: a cycle whose peaks cross warn holds its WARNING instead of
	 * raising it again every period.
	 */
	if (below && !ob->is_below)
		ob->below_since = now;
	ob->is_below = below;
	if (below && ob->state == IAD_FAILURE)
		ob->drained = true;
	below = below && now - ob->below_since >= thr->window_s;

	if (u < 0) {
		/* No limit (no live process, or unlimited): nothing to run out of. */
		if (ob->state == IAD_OK)
			return false;
		snprintf(reason, rlen, "no limit applies any more");
		alert_fill(a, ob, IAD_OK, reason, now);
		ob->by_trend = false;
		return true;
	}
	up = level_up(ob, u, soon, now, thr);
	switch (ob->state) {
	case IAD_OK:
		to = up;
		break;
	case IAD_WARNING:
		if (up == IAD_CRITICAL)
			to = up;
		else if (below && !keep)
			to = IAD_OK;
		break;
	case IAD_CRITICAL:
		if (below && !keep)
			to = IAD_OK;
		else if (u < thr->crit - thr->hysteresis)
			to = IAD_WARNING;
		break;
	case IAD_FAILURE:
		if (below && !keep)
			to = IAD_OK;
		else if (ob->drained && up != IAD_OK)
			to = up;	/* drained, then filled again: a new episode */
		break;
	default:
		break;
	}
	if (to == ob->state)
		return false;
	prediction_str(ob, thr, unit, pred, sizeof(pred));
	if (to == IAD_CRITICAL && thr->sustain_s > 0)
		snprintf(reason, rlen, "utilisation %.1f%% >= critical %.0f%% for %.0f s", u * 100,
			 thr->crit * 100, now - ob->crit_since);
	else if (to == IAD_CRITICAL)
		snprintf(reason, rlen, "utilisation %.1f%% >= critical %.0f%%", u * 100,
			 thr->crit * 100);
	else if (to == IAD_WARNING && u >= thr->warn && thr->sustain_s > 0)
		snprintf(reason, rlen, "utilisation %.1f%% >= warning %.0f%% for %.0f s", u * 100,
			 thr->warn * 100, now - ob->warn_since);
	else if (to == IAD_WARNING && u >= thr->warn)
		snprintf(reason, rlen, "utilisation %.1f%% >= warning %.0f%%", u * 100,
			 thr->warn * 100);
	else if (to == IAD_WARNING && soon && ob->state == IAD_OK)
		snprintf(reason, rlen, "%s, utilisation %.1f%%", pred, u * 100);
	else if (to == IAD_WARNING)
		snprintf(reason, rlen, "utilisation %.1f%% below critical %.0f%% - %.0f%%",
			 u * 100, thr->crit * 100, thr->hysteresis * 100);
	else if (ob->by_trend)
		snprintf(reason, rlen, "%s; utilisation %.1f%% below warning %.0f%% - %.0f%%",
			 pred, u * 100, thr->warn * 100, thr->hysteresis * 100);
	else
		snprintf(reason, rlen, "utilisation %.1f%% below warning %.0f%% - %.0f%%",
			 u * 100, thr->warn * 100, thr->hysteresis * 100);
	ob->by_trend = to == IAD_WARNING && ob->state == IAD_OK && u < thr->warn;
	alert_fill(a, ob, to, reason, now);
	return true;
}

bool iad_obj_refusal_raises(const struct iad_obj *ob)
{
	/* Refused again in the same episode: that FAILURE stands. */
	return ob->state != IAD_FAILURE || ob->drained;
}

bool iad_obj_fail(struct iad_obj *ob, double now, const struct iad_who *who, uint32_t err,
		  uint64_t size, uint64_t seq, char *reason, size_t rlen, struct iad_alert *a)
{
	if (!iad_obj_refusal_raises(ob))
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
