/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu-accountd's model: the quota objects it follows, their history, the
 * floor and its trend, and the alert state machine. Pure logic: no I/O,
 * no clock (times are passed in), so the host unit tests drive it.
 */
#ifndef IAD_MODEL_H
#define IAD_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Samples kept per object: the trend window is at most this many polls. */
#define IAD_HIST 64

enum iad_state {
	IAD_OK,
	IAD_WARNING,
	IAD_CRITICAL,
	IAD_FAILURE,
	IAD_NSTATES,
};

/* The alert names: "OK" (never sent: an OK that follows an alert is CLEARED). */
const char *iad_state_name(enum iad_state s);

/* What the floor's trend says, in words (alerts, top, the journal). */
enum iad_trend {
	IAD_TREND_EARLY,	/* under four windows of floors: too early to tell */
	IAD_TREND_FLAT,		/* the floor flat or falling over them: not filling */
	IAD_TREND_RISING,	/* the floor rising, not yet told from a cycle's rise */
	IAD_TREND_FILLING,	/* a rise the daemon stands by (trusted): eta_s */
};

/* "too_early", "not_filling", "rising", "filling": /alerts' trend. */
const char *iad_trend_name(enum iad_trend t);

/* Thresholds of one kind, fractions of the limit (0.80 = 80 %). */
struct iad_thr {
	double warn, crit;
	double hysteresis;	/* CLEARED below warn - hysteresis */
	double horizon_s;	/* WARNING when exhaustion is predicted sooner */
	double window_s;	/* the floor: the minimum over the last window_s */
	double trend_window_s;	/* the long fit of the floor (0: 30 windows) */
	double persist_s;	/* the prediction must hold this long (0: 3 windows) */
	double sustain_s;	/* a level must hold this long to be raised (0: at once) */
};

/* Floor points kept per object: a quarter window apart, the long fit's span. */
#define IAD_FLOORS 128

struct iad_sample {
	double t;		/* seconds, any epoch (monotonic) */
	double v;		/* used */
};

/* The process a failure or an object is attributed to. */
/* An alert's reason, whole: the buffers that make one and the object's copy. */
#define IAD_REASON_MAX 512

struct iad_who {
	bool present;
	uint32_t pid, uid;
	char comm[16];
	uint64_t cgroup_id;
};

/*
 * The flight record of a FAILURE: who held the quota at that moment, most
 * first (a pot: its uid's processes by the bytes GET_PROC attributes to
 * them; other kinds: the object's owner with all of it).
 */
#define IAD_HOLDERS 5

struct iad_holder {
	struct iad_who who;
	uint64_t held;			/* in the kind's unit */
};

/*
 * Who an object's owner is, by the cgroup it acted in (the kernel's id, as
 * the owner nest gives it): the labels that join a VFIO container or an
 * iommufd context to its pod (kube_pod_info's uid) or container.
 */
struct iad_ident {
	uint64_t cgroup_id;		/* resolved for this one (0: none) */
	char container_id[65];
	char pod_uid[40];
};

struct iad_obj {
	uint32_t kind, id;
	uint64_t used;
	bool has_limit;
	uint64_t limit;			/* uid-pot: the last charger's RLIMIT_MEMLOCK */
	bool has_limit_min;		/* uid-pot: the smallest among the uid's processes */
	uint64_t limit_min;
	uint32_t uid;
	struct iad_who owner;		/* as the kernel reports it (may be absent) */
	struct iad_ident *ident;	/* its owner's, once it had a cgroup id (else NULL) */
	uint64_t refusals;		/* the kernel's count */
	bool refusals_known;		/* baseline taken (not at the first sight) */
	bool refusal_deferred;		/* the count rose; waiting a poll for its event */
	/* What the history file last got of it (history.c). */
	bool hist_written, hist_has_limit;
	uint8_t hist_state;
	uint64_t hist_used, hist_limit;
	double hist_t;
	/* The last FAILURE's flight record, for /alerts. */
	struct iad_holder holders[IAD_HOLDERS];
	unsigned int nholders;

	/*
	 * History: allocated at the first change of used. Until then only
	 * the run of equal samples is kept (count, first and last time): most
	 * objects (idle uids) never change, and a ring each would be 1 KiB.
	 */
	struct iad_sample *hist;	/* IAD_HIST, a ring; NULL while flat */
	unsigned int nhist, head;
	unsigned int flat_n;
	double flat_t0, flat_t1;
	double hist_v;			/* the run's value */

	/*
	 * The floor: every quarter window, the minimum of used over the last
	 * window (a leak raises it; a cycle shorter than the window does not).
	 * Allocated with hist.
	 */
	struct iad_sample *floor;	/* IAD_FLOORS, a ring */
	unsigned int nfloor, fhead;
	double q_t0;			/* the open quarter: since when, its min and max */
	double q_min, q_max;
	double qmin[4], qmax[4];	/* the last four closed quarters (one window) */
	unsigned int nq;
	double peak;			/* the max of used over the last window */

	double rate;			/* the floor's growth over 4 windows, units per second */
	double long_rate;		/* ... over the trend window */
	double rise, rise_span;		/* how far the floor rose over how long (the short fit) */
	bool has_eta;
	double eta_s;			/* the peak to the limit at that rate */
	/*
	 * The trend is one the daemon stands by: enough floors, the trend
	 * window's fit rising too, the floor climbing and drifting (not a
	 * cycle's or a walk's excursion): the exporter publishes eta_s only
	 * then, whatever the horizon, and the shipped rules alert on it.
	 */
	bool trusted;
	enum iad_trend trend;		/* what is said of it, from the above */
	bool soon;			/* the prediction: trusted, eta within the horizon, both fits agree */
	double soon_since;		/* since when it holds (valid while soon) */
	bool by_trend;			/* the WARNING came from the prediction */
	bool is_below;			/* below warn - hysteresis, since below_since */
	double below_since;
	/* at or above warn (crit) in every sample since warn_since (crit_since) */
	bool at_warn, at_crit;
	double warn_since, crit_since;
	/*
	 * In FAILURE, it has since been seen below warn - hysteresis: the
	 * episode of that failure is over, so a new fill raises its levels and
	 * a new refusal its FAILURE, without waiting out the clearing window.
	 */
	bool drained;

	enum iad_state state;
	double state_since;
	uint64_t alerts;		/* state changes raised */
	char *reason;			/* of the last state change (NULL: none, or no memory) */
	bool seen;			/* in the last dump (sweep mark) */
};

/* An alert: a state change of one object, with what explains it. */
struct iad_alert {
	enum iad_state state;		/* the new state; IAD_OK: CLEARED */
	enum iad_state prev;
	const struct iad_obj *obj;
	const char *reason;		/* "utilisation 81.0% >= warn 80%", ... */
	struct iad_who who;		/* failure: the process refused; else the owner */
	uint64_t seq;			/* the kernel's event sequence, 0 from a poll */
	uint64_t kernel_time_ns;	/* the event's time (CLOCK_REALTIME), 0 from a poll */
	uint32_t err;			/* failure: errno */
	uint64_t size;			/* failure: what was asked */
	/* failure: the kernel limit that refused ("dma_entry_limit",
	 * "RLIMIT_MEMLOCK"; NULL: not known), and for RLIMIT_MEMLOCK the
	 * refused process's limit and what was locked (UINT64_MAX: none) */
	const char *refused_by;
	uint64_t memlock_limit, locked_bytes;
	/* failure: the flight record (the object's, valid while it lives) */
	const struct iad_holder *holders;
	unsigned int nholders;
	/* a pot's failure: the fixes libia's diagnosis finds (1 << IA_FIX_*) */
	unsigned int fixes;
};

/* The name of an alert as sinks print it: CLEARED for a return to OK. */
const char *iad_alert_name(const struct iad_alert *a);

/* Sorted by (kind, id); found by binary search. */
struct iad_objs {
	struct iad_obj **v;
	size_t n, cap;
};

struct iad_obj *iad_obj_find(struct iad_objs *o, uint32_t kind, uint32_t id);
/* Find or add (zeroed, state OK); NULL on allocation failure. */
struct iad_obj *iad_obj_get(struct iad_objs *o, uint32_t kind, uint32_t id);
void iad_objs_free(struct iad_objs *o);

/* Free what an object owns, and the object. */
void iad_obj_free(struct iad_obj *ob);
/*
 * Append a sample: the floor, its two fits (the last four windows, and the
 * trend window) and the prediction.
 */
void iad_obj_sample(struct iad_obj *ob, double t, const struct iad_thr *thr);

/*
 * Least squares slope of the samples whose time is within @window_s of the
 * newest; 0 with fewer than 3 or when they all share one time.
 */
double iad_trend(const struct iad_sample *s, unsigned int n, unsigned int head,
		 double window_s);

/*
 * Evaluate the object after new figures: fills @a and returns true when
 * its state changes (one alert per change). Levels go up at once; they go
 * down only below the level minus the hysteresis. A WARNING from the
 * prediction needs it to have held for persist_s, and clears when it no
 * longer holds (the time to exhaustion beyond 1.25 horizons, or the floor
 * not rising) with the level below warn - hysteresis. FAILURE holds until
 * the utilisation falls below warn - hysteresis (then CLEARED). @unit
 * ("bytes" or another) words the reasons.
 */
bool iad_obj_evaluate(struct iad_obj *ob, double now, const struct iad_thr *thr,
		      const char *unit, char *reason, size_t rlen, struct iad_alert *a);

/* "about 40 min", "2.5 h", "12 s". */
const char *iad_duration(double s, char *buf, size_t len);

/* Whether a refusal of @ob now raises a FAILURE (not one in the same episode). */
bool iad_obj_refusal_raises(const struct iad_obj *ob);
/* The kernel refused: FAILURE unless already there; @reason: the caller's
 * account ("" for a generic one, written there). */
bool iad_obj_fail(struct iad_obj *ob, double now, const struct iad_who *who, uint32_t err,
		  uint64_t size, uint64_t seq, char *reason, size_t rlen, struct iad_alert *a);

/* The object left (process exited, container closed): CLEARED if alerting. */
bool iad_obj_gone(struct iad_obj *ob, double now, struct iad_alert *a);

/* Utilisation 0..1+, or -1 when there is no limit. */
double iad_obj_util(const struct iad_obj *ob);

#endif
