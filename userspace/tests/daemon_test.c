// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (cmocka) of iommu-accountd's parts that need no kernel:
 * the predictor, the alert state machine with hysteresis, the configuration
 * parser, the exec sink (real processes) and the exporter's documents
 * (checked by promtool in scripts/check). Alerts go through the daemon's own
 * iad_raise() (alert.c) to a collecting sink and the exec sink.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "iad.h"
#include "traces.h"

/* --- the alerts raised: a sink that collects them ------------------------------ */

static struct iad_alert raised[64];
static unsigned int nraised;

static void collect(struct iad *d, const struct iad_alert *a)
{
	(void)d;
	if (nraised < 64)
		raised[nraised++] = *a;
}

/* The sinks a test's daemon raises to: collect, then exec (as main.c has log, exec). */
static void sinks(struct iad *d)
{
	d->nsinks = 0;
	iad_sink_add(d, collect);
	iad_sink_add(d, iad_exec_alert);
}

/* A daemon as the tests run it: zeroed, the test's sinks, defaults, in the foreground, logging to stderr. */
static void test_iad(struct iad *d)
{
	memset(d, 0, sizeof(*d));
	sinks(d);
	iad_config_defaults(&d->cfg);
	d->cfg.log = IAD_LOG_STDERR;
	d->foreground = true;
}

static struct iad_thr thr80(void)
{
	struct iad_thr t = { .warn = 0.80, .crit = 0.95, .hysteresis = 0.05,
			     .horizon_s = 600, .window_s = 60 };
	return t;
}

/* Feed @used at time @t and evaluate, as a poll does. */
/* A test's own object (on its stack): the sample rings the model gave it. */
static void ob_rings_free(struct iad_obj *ob)
{
	free(ob->hist);
	free(ob->floor);
	free(ob->reason);
	ob->hist = ob->floor = NULL;
	ob->reason = NULL;
}

static bool feed(struct iad_obj *ob, double t, uint64_t used, const struct iad_thr *thr,
		 struct iad_alert *a)
{
	static char reason[200];	/* a->reason points here after the return */

	ob->used = used;
	iad_obj_sample(ob, t, thr);
	return iad_obj_evaluate(ob, t, thr, "bytes", reason, sizeof(reason), a);
}

/* --- predictor ------------------------------------------------------------------- */

static void trend_is_exact_on_a_line(void **state)
{
	/* The floor of a line is the line a window ago: it rises at the line's rate. */
	struct iad_obj ob = { .has_limit = true, .limit = 1000000 };
	struct iad_thr t = thr80();
	int i;

	(void)state;
	for (i = 0; i <= 600; i++) {
		ob.used = 1000 + 37 * (uint64_t)i;
		iad_obj_sample(&ob, i, &t);
	}
	assert_true(fabs(ob.rate - 37) < 1e-9);
	assert_true(fabs(ob.long_rate - 37) < 1e-9);
	assert_true(ob.has_eta);
	/* From the window's peak (the newest value) to the limit: (1000000 - 23200) / 37. */
	assert_true(fabs(ob.peak - 23200) < 1e-9);
	assert_true(fabs(ob.eta_s - (1000000.0 - 23200) / 37) < 1e-6);
	ob_rings_free(&ob);
}

static void trend_needs_three_floor_points_and_forgets_outside_the_fit(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 100000 };
	struct iad_thr t = thr80();
	int i;

	(void)state;
	/* Rising from the first poll: the first floor point comes after a window. */
	for (i = 0; i < 60 + 15 * 2; i++) {
		ob.used = 100 + 10 * (uint64_t)i;
		iad_obj_sample(&ob, i, &t);
		assert_true(ob.rate == 0);
		assert_false(ob.has_eta);
	}
	for (; i < 200; i++) {
		ob.used = 100 + 10 * (uint64_t)i;
		iad_obj_sample(&ob, i, &t);
	}
	assert_true(fabs(ob.rate - 10) < 1e-9);
	/* Flat for longer than the short fit (4 windows): rate 0, no prediction. */
	for (; i < 200 + 6 * 60; i++)
		iad_obj_sample(&ob, i, &t);
	assert_true(fabs(ob.rate) < 1e-9);
	assert_false(ob.has_eta);
	ob_rings_free(&ob);
}

static void trend_least_squares_not_endpoints(void **state)
{
	/* y = 2t + noise (+3, -3 alternating): slope of least squares stays near 2. */
	struct iad_sample s[IAD_HIST];
	unsigned int i;
	double r;

	(void)state;
	for (i = 0; i < 20; i++) {
		s[i].t = i;
		s[i].v = 2.0 * i + (i % 2 ? 3 : -3);
	}
	r = iad_trend(s, 20, 20, 100);
	assert_true(fabs(r - 2) < 0.1);
	/* Endpoints alone would say (41 - (-3)) / 19 = 2.32; least squares says ~2.03. */
}

static void trend_survives_ring_wrap(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 1ull << 40 };
	struct iad_thr t = thr80();
	int i;

	(void)state;
	t.window_s = 8;		/* a floor point every 2 s: the rings wrap several times */
	for (i = 0; i < 3 * IAD_FLOORS * 4; i++) {
		ob.used = 4096ull * i;
		iad_obj_sample(&ob, i * 0.5, &t);
	}
	assert_int_equal(ob.nhist, IAD_HIST);
	assert_int_equal(ob.nfloor, IAD_FLOORS);
	assert_true(fabs(ob.rate - 8192) < 1e-6);
	assert_true(fabs(ob.long_rate - 8192) < 1e-6);
	ob_rings_free(&ob);
}

static void flat_run_then_change_keeps_the_trend(void **state)
{
	/* 10 min equal, then +50 per poll: the floor stays flat a window, then rises at 50/s. */
	struct iad_obj ob = { .has_limit = true, .limit = 10000000 };
	struct iad_thr t = thr80();
	int i;

	(void)state;
	for (i = 0; i < 600; i++) {
		ob.used = 100;
		iad_obj_sample(&ob, i, &t);
		assert_null(ob.hist);	/* flat: no ring yet */
		assert_null(ob.floor);
	}
	for (; i < 600 + 60 + 240 + 30; i++) {
		ob.used = 100 + 50 * (uint64_t)(i - 599);
		iad_obj_sample(&ob, i, &t);
	}
	assert_non_null(ob.hist);
	/* The run became floor points a quarter window apart (40), then the ramp's. */
	assert_true(ob.nfloor > 40);
	assert_true(fabs(ob.rate - 50) < 1e-9);
	/* The trend window still holds the flat floor: its fit rises slower. */
	assert_true(ob.long_rate > 0 && ob.long_rate < 50);
	ob_rings_free(&ob);
}

static void objects_sorted_and_found(void **state)
{
	struct iad_objs o = { 0 };
	unsigned int i, id;

	(void)state;
	/* Two kinds, ids in a scrambled order (37 is prime to 1000). */
	for (i = 0; i < 2000; i++) {
		id = (i / 2 * 37) % 1000;
		assert_non_null(iad_obj_get(&o, i & 1, id));
	}
	assert_int_equal(o.n, 2000);
	for (i = 1; i < o.n; i++)
		assert_true(o.v[i - 1]->kind < o.v[i]->kind ||
			    (o.v[i - 1]->kind == o.v[i]->kind && o.v[i - 1]->id < o.v[i]->id));
	for (id = 0; id < 1000; id++) {
		assert_non_null(iad_obj_find(&o, 0, id));
		assert_ptr_equal(iad_obj_find(&o, 1, id), iad_obj_get(&o, 1, id));
	}
	assert_null(iad_obj_find(&o, 2, 0));
	assert_int_equal(o.n, 2000);
	iad_objs_free(&o);
}

/* --- state machine ------------------------------------------------------------ */

static void levels_go_up_once_each(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 1000 };
	struct iad_thr t = thr80();
	struct iad_alert a;

	(void)state;
	t.horizon_s = 0;	/* levels only */
	assert_false(feed(&ob, 0, 100, &t, &a));
	assert_true(feed(&ob, 1, 800, &t, &a));
	assert_int_equal(a.state, IAD_WARNING);
	assert_int_equal(a.prev, IAD_OK);
	/* No repeat while the state holds. */
	assert_false(feed(&ob, 2, 850, &t, &a));
	assert_false(feed(&ob, 3, 900, &t, &a));
	assert_true(feed(&ob, 4, 950, &t, &a));
	assert_int_equal(a.state, IAD_CRITICAL);
	assert_false(feed(&ob, 5, 999, &t, &a));
	ob_rings_free(&ob);
}

static void hysteresis_holds_then_clears(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 1000 };
	struct iad_thr t = thr80();
	struct iad_alert a;

	(void)state;
	t.horizon_s = 0;
	assert_true(feed(&ob, 0, 960, &t, &a));
	assert_int_equal(a.state, IAD_CRITICAL);
	/* Below crit, not below crit - hysteresis (90 %): stays CRITICAL. */
	assert_false(feed(&ob, 1, 920, &t, &a));
	assert_true(feed(&ob, 2, 890, &t, &a));
	assert_int_equal(a.state, IAD_WARNING);
	/* Flapping around warn: no alert. */
	assert_false(feed(&ob, 3, 790, &t, &a));
	assert_false(feed(&ob, 4, 810, &t, &a));
	assert_false(feed(&ob, 5, 760, &t, &a));
	/* Below warn - hysteresis: CLEARED once it has stayed there a window (60 s). */
	assert_false(feed(&ob, 6, 740, &t, &a));
	assert_false(feed(&ob, 30, 700, &t, &a));
	assert_false(feed(&ob, 65, 740, &t, &a));
	assert_true(feed(&ob, 66, 740, &t, &a));
	assert_int_equal(a.state, IAD_OK);
	assert_string_equal(iad_alert_name(&a), "CLEARED");
	/* Straight from OK to CRITICAL: one alert. */
	assert_true(feed(&ob, 67, 1000, &t, &a));
	assert_int_equal(a.state, IAD_CRITICAL);
	assert_int_equal(ob.alerts, 4);
	ob_rings_free(&ob);
}

static void trend_warns_before_the_level(void **state)
{
	/*
	 * 10 % to 100 % of the limit in 30 min: full 10 min (the horizon)
	 * after 20 min, at 70 %. The prediction warns by then, below 80 %,
	 * and says why in the pot's own units.
	 */
	struct iad_obj ob = { .has_limit = true, .limit = 8ull << 20 };
	struct iad_thr t = thr80();
	struct iad_alert a;
	int i, warned_at = -1;
	double u = 0;

	(void)state;
	for (i = 0; i < 1800 && warned_at < 0; i++)
		if (feed(&ob, i, (8ull << 20) / 10 + (8ull << 20) * 9 / 10 * i / 1800, &t, &a))
			warned_at = i;
	u = iad_obj_util(&ob);
	assert_true(warned_at > 0 && warned_at <= 1200);
	assert_true(u < 0.8);
	assert_int_equal(a.state, IAD_WARNING);
	assert_non_null(strstr(a.reason, "the floor rose "));
	assert_non_null(strstr(a.reason, " KiB in 4 min"));
	assert_non_null(strstr(a.reason, "; full in about "));
	assert_non_null(strstr(a.reason, "(horizon 10 min)"));
	/* Growth stops: the floor rises slower and slower; past 1.25 horizons: CLEARED. */
	for (; i < 3600; i++)
		if (feed(&ob, i, ob.used, &t, &a))
			break;
	assert_int_equal(a.state, IAD_OK);
	assert_non_null(strstr(a.reason, "the prediction no longer holds: "));
	assert_non_null(strstr(a.reason, ", beyond the horizon 10 min; utilisation "));
	ob_rings_free(&ob);
}

static void failure_holds_until_below_warn_minus_hysteresis(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 1000 };
	struct iad_thr t = thr80();
	struct iad_who who = { .present = true, .pid = 42, .uid = 1000, .comm = "fio" };
	struct iad_alert a;
	char reason[200] = "";

	(void)state;
	t.horizon_s = 0;
	assert_true(feed(&ob, 0, 990, &t, &a));
	assert_true(iad_obj_fail(&ob, 1, &who, 12, 8192, 77, reason, sizeof(reason), &a));
	assert_int_equal(a.state, IAD_FAILURE);
	assert_int_equal(a.who.pid, 42);
	assert_int_equal(a.seq, 77);
	assert_string_equal(ob.reason, "the kernel refused a charge or mapping (errno 12)");
	/* More refusals while failing: no new alert. */
	assert_false(iad_obj_fail(&ob, 2, &who, 12, 8192, 78, reason, sizeof(reason), &a));
	assert_false(feed(&ob, 3, 900, &t, &a));
	assert_false(feed(&ob, 4, 760, &t, &a));
	assert_false(feed(&ob, 5, 100, &t, &a));
	assert_true(feed(&ob, 65, 100, &t, &a));
	assert_string_equal(iad_alert_name(&a), "CLEARED");
	assert_int_equal(a.prev, IAD_FAILURE);
	ob_rings_free(&ob);
}

/*
 * A queue pair that defers by design (the qpair default: sustain 30 s): a
 * burst at 100 % for 20 s, back under 50 %, again and again, raises
 * nothing; saturation that lasts 30 s raises CRITICAL, saying for how long;
 * without sustain the first burst would have. The default configuration
 * gives qpair its 30 s and no other kind any.
 */
static void qpair_saturation_alerts_only_when_it_lasts(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 512 };
	struct iad_config c;
	struct iad_thr t, none;
	struct iad_alert a;
	double now = 0;
	int burst, i;

	(void)state;
	iad_config_defaults(&c);
	iad_config_thr(&c, "qpair", &t);
	iad_config_thr(&c, "uid-pot", &none);
	assert_true(t.sustain_s == 30 && none.sustain_s == 0);
	for (burst = 0; burst < 7; burst++) {
		for (i = 0; i < 20; i++, now++)
			assert_false(feed(&ob, now, 512, &t, &a));
		for (i = 0; i < 20; i++, now++)
			assert_false(feed(&ob, now, 200, &t, &a));
	}
	for (i = 0; i < 30; i++, now++)
		assert_false(feed(&ob, now, 500, &t, &a));
	assert_true(feed(&ob, now, 500, &t, &a));
	assert_int_equal(a.state, IAD_CRITICAL);
	assert_non_null(strstr(a.reason, ">= critical 95% for 30 s"));
	ob_rings_free(&ob);

	/* The same first burst without sustain: CRITICAL at once. */
	memset(&ob, 0, sizeof(ob));
	ob.has_limit = true;
	ob.limit = 512;
	t.sustain_s = 0;
	assert_true(feed(&ob, 0, 512, &t, &a));
	assert_int_equal(a.state, IAD_CRITICAL);
	ob_rings_free(&ob);
}

/*
 * A failure's episode ends when the object drains: one job refused, the pot
 * emptied, another job of the uid fills it (a WARNING) and is refused (a
 * FAILURE naming it), before the clearing window has passed.
 */
static void failure_after_a_drain_is_a_new_episode(void **state)
{
	struct iad_obj ob = { .has_limit = true, .limit = 1000 };
	struct iad_thr t = thr80();
	struct iad_who first = { .present = true, .pid = 42, .uid = 1000, .comm = "fio" };
	struct iad_who second = { .present = true, .pid = 43, .uid = 1000, .comm = "fio" };
	struct iad_alert a;
	char reason[200] = "";

	(void)state;
	t.horizon_s = 0;
	assert_true(feed(&ob, 0, 990, &t, &a));
	assert_true(iad_obj_fail(&ob, 1, &first, 12, 8192, 77, reason, sizeof(reason), &a));
	/* Still full: no new level, no new FAILURE. */
	assert_false(feed(&ob, 2, 950, &t, &a));
	assert_false(iad_obj_fail(&ob, 3, &first, 12, 8192, 78, reason, sizeof(reason), &a));
	/* Drained (the window has not passed: no CLEARED), then filled to 85 %. */
	assert_false(feed(&ob, 4, 0, &t, &a));
	assert_true(feed(&ob, 6, 850, &t, &a));
	assert_int_equal(a.prev, IAD_FAILURE);
	assert_int_equal(a.state, IAD_WARNING);
	reason[0] = 0;
	assert_true(iad_obj_fail(&ob, 7, &second, 12, 65536, 79, reason, sizeof(reason), &a));
	assert_int_equal(a.state, IAD_FAILURE);
	assert_int_equal(a.who.pid, 43);
	/* Drained again (a poll sees it), then refused at once: a FAILURE again. */
	assert_false(feed(&ob, 8, 0, &t, &a));
	assert_true(iad_obj_fail(&ob, 9, &first, 12, 8192, 80, reason, sizeof(reason), &a));
	assert_int_equal(a.who.pid, 42);
	ob_rings_free(&ob);
}

static void no_limit_means_no_alert_and_gone_clears(void **state)
{
	struct iad_obj ob = { .has_limit = false };
	struct iad_thr t = thr80();
	struct iad_alert a;

	(void)state;
	assert_false(feed(&ob, 0, 1ull << 40, &t, &a));
	ob.has_limit = true;
	ob.limit = 100;
	assert_true(feed(&ob, 1, 99, &t, &a));
	assert_true(iad_obj_gone(&ob, 2, &a));
	assert_string_equal(iad_alert_name(&a), "CLEARED");
	assert_false(iad_obj_gone(&ob, 3, &a));
	ob_rings_free(&ob);
}

/* --- configuration ------------------------------------------------------------- */

static char tmpdir[64];

static const char *write_conf(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void config_defaults_and_kind_sections(void **state)
{
	struct iad_config c;
	struct iad_thr t;
	char err[512];
	const char *p = write_conf("a.conf",
		"# comment\n[daemon]\ninterval = 2\nwindow = 30\nlog = stderr\n"
		"[thresholds]\nwarn = 70\ncrit = 90\nhysteresis = 10\nhorizon = 120\n"
		"[thresholds.uid-pot]\nwarn = 60\n"
		"[exec]\nprogram = /bin/true\ntimeout = 2.5\nmax_running = 3\n"
		"[exporter]\nlisten = off\nlegacy_names = yes\n"
		"[refusals]\nexpected_uids = 4600-4699, 1234 0\n"
		"[thresholds.qpair]\nsustain = 5\n");

	(void)state;
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), 0);
	assert_true(c.legacy_names);
	assert_int_equal(c.nexpected, 3);
	iad_config_thr(&c, "qpair", &t);
	assert_true(t.sustain_s == 5);
	assert_true(iad_config_expected(&c, 4600) && iad_config_expected(&c, 4699) &&
		    iad_config_expected(&c, 1234) && iad_config_expected(&c, 0));
	assert_false(iad_config_expected(&c, 4700) || iad_config_expected(&c, 1233));
	assert_true(c.interval_s == 2 && c.window_s == 30 && c.log == IAD_LOG_STDERR);
	iad_config_thr(&c, "vfio-container", &t);
	assert_true(fabs(t.warn - 0.7) < 1e-9 && fabs(t.crit - 0.9) < 1e-9);
	assert_true(t.horizon_s == 120 && t.window_s == 30);
	iad_config_thr(&c, "uid-pot", &t);
	assert_true(fabs(t.warn - 0.6) < 1e-9 && fabs(t.crit - 0.9) < 1e-9);
	assert_string_equal(c.exec_program, "/bin/true");
	assert_true(c.exec_timeout_s == 2.5 && c.exec_max == 3);
	assert_string_equal(c.listen, "");
	/* Missing default file: the defaults; missing named file: an error. */
	assert_int_equal(iad_config_load(&c, "/nonexistent/x.conf", true, err, sizeof(err)), 0);
	assert_string_equal(c.listen, IAD_DEFAULT_LISTEN);
	assert_false(c.legacy_names);
	assert_true(fabs(c.thr.warn - 0.8) < 1e-9);
	assert_int_equal(iad_config_load(&c, "/nonexistent/x.conf", false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

static void config_errors_name_the_line_and_change_nothing(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[daemon]\ninterval = 1\nintervall = 2\n", ":3: unknown key 'intervall' in [daemon]" },
		{ "[daemon]\ninterval = fast\n", ":2: interval: 'fast' is not a number" },
		{ "[daemon]\ninterval = 0\n", ":2: interval: 0 is out of range" },
		{ "[thresholds]\nwarn = 120\n", ":2: warn: 120 is out of range" },
		/* Across keys: the line of the later one. */
		{ "[thresholds]\nwarn = 90\ncrit = 80\n", ":3: [thresholds]: warn (90%) must be above 0 and below crit (80%)" },
		{ "[thresholds]\ncrit = 85\n\nwarn = 90\n", ":4: [thresholds]: warn (90%) must be above 0 and below crit (85%)" },
		{ "[thresholds.uid-pot]\ncrit = 50\n", ":2: [thresholds.uid-pot]: warn (80%) must be above 0 and below crit (50%)" },
		{ "[thresholds]\nwarn = 70\n[thresholds.uid-pot]\ncrit = 60\n", ":4: [thresholds.uid-pot]: warn (70%) must be above 0 and below crit (60%)" },
		{ "[thresholds]\nhysteresis = 85\n", ":2: [thresholds]: hysteresis (85%) must be below warn (80%)" },
		{ "[daemon]\nwindow = 60\ntrend_window = 120\n", ":3: [daemon] trend_window (120 s) must span 4 to 32 windows (240 to 1920 s)" },
		{ "[daemon]\npersist = -1\n", ":2: persist: -1 is out of range" },
		{ "[exec]\nprogram = hook.sh\n", ":2: program: 'hook.sh' is not an absolute path" },
		{ "[daemon]\nevents = maybe\n", ":2: events: 'maybe' is neither yes nor no" },
		{ "[daemon]\nlog = loud\n", ":2: log: 'loud' is none of auto, journal, syslog, stderr" },
		{ "[nosuch]\nx = 1\n", ":1: unknown section [nosuch]" },
		{ "x = 1\n[daemon]\n", ":1: 'x' before any [section]" },
		{ "[thresholds.0123456789abcdef0123456789abcdef]\n", ":1: [thresholds.0123456789abcdef0123456789abcdef]: a kind's name is at most 31 bytes" },
		{ "[daemon]\ninterval\n", ":2: not a key = value line or a [section]" },
		{ "[daemon]\n= 2\n", ":2: not a key = value line or a [section]" },
		{ "[daemon\n", ":1: a section is [name], alone on its line" },
		{ "[exporter]\ndetail = some\n", ":2: detail: 'some' is neither full nor objects" },
		{ "[refusals]\nexpected_uids = 46x\n", ":2: expected_uids: '46x' is not a list of uids and ranges" },
		{ "[refusals]\nexpected_uids = 10-5\n", ":2: expected_uids: '10-5' is not a list of uids and ranges" },
		{ "[refusals]\nexpected_uids = 4294967296\n", ":2: expected_uids: '4294967296' is not a list" },
		{ "[refusals]\nexpected = 1\n", ":2: unknown key 'expected' in [refusals]" },
		{ "[exporter]\nlegacy_names = 1\n", ":2: legacy_names: '1' is neither yes nor no" },
		{ "[daemon]\ninterval = 2\nidle_interval = 1\n", ":3: [daemon] idle_interval (1 s) must not be below interval (2 s)" },
		{ "[daemon]\nwindow = 2\n", ":2: [daemon] window (2 s) must hold at least 3 intervals (1 s)" },
	};
	struct iad_config c, before;
	char err[IAD_CONFIG_ERR_LEN];
	unsigned int i;

	(void)state;
	iad_config_defaults(&c);
	c.interval_s = 7;
	before = c;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = write_conf("bad.conf", bad[i].text);

		err[0] = 0;
		assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].want))
			fail_msg("case %u: '%s' does not contain '%s'", i, err, bad[i].want);
		assert_memory_equal(&c, &before, sizeof(c));
	}
}

/* A file of @n bytes of @fill after @head, then @tail. */
static const char *write_long(const char *name, const char *head, char fill, size_t n,
			      const char *tail)
{
	char *t = malloc(strlen(head) + n + strlen(tail) + 1);
	const char *p;

	assert_non_null(t);
	strcpy(t, head);
	memset(t + strlen(head), fill, n);
	strcpy(t + strlen(head) + n, tail);
	p = write_conf(name, t);
	free(t);
	return p;
}

/*
 * Lines as long as a path can be (libinih cut them at 200 bytes, and read the
 * rest as a line of its own, on the wrong line number): a comment of 5,000
 * bytes, a program path of 4,000, and the line numbers after them still true.
 */
static void config_long_lines_whole_and_lines_counted(void **state)
{
	char err[IAD_CONFIG_ERR_LEN], want[64];
	struct iad_config c;
	const char *p;

	(void)state;
	p = write_long("long.conf", "# ", 'c', 5000, "\n[exec]\nprogram = /");
	{
		/* The path: "/" then 4,000 bytes of 'p' (a long but valid string). */
		FILE *f = fopen(p, "a");
		unsigned int i;

		assert_non_null(f);
		for (i = 0; i < 4000; i++)
			fputc('p', f);
		fputs("\n[daemon]\ninterval = 2 ; a comment after white space\n"
		      "window: 30\n", f);
		fclose(f);
	}
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), 0);
	assert_int_equal(strlen(c.exec_program), 4001);
	assert_true(c.exec_program[0] == '/' && c.exec_program[4000] == 'p');
	assert_true(c.interval_s == 2 && c.window_s == 30);

	/* After a long comment, an error names its own line (line 4). */
	p = write_long("long2.conf", "# ", 'c', 5000, "\n\n[daemon]\nintervall = 2\n");
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":4: unknown key 'intervall' in [daemon]"));
	assert_null(strchr(err, '\n'));

	/* A line beyond the bound: said with its length, and the next line read. */
	p = write_long("long3.conf", "# ", 'c', IAD_CONFIG_LINE_MAX, "\n[daemon]\nlog = loud\n");
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), ":1: a line of %d bytes (at most %d)",
		 IAD_CONFIG_LINE_MAX + 2, IAD_CONFIG_LINE_MAX);
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, "\n"));
	assert_non_null(strstr(err, ":3: log: 'loud' is none of"));

	/* A byte-order mark and CRLF line ends, as some editors write them. */
	p = write_conf("crlf.conf", "\xef\xbb\xbf[daemon]\r\ninterval = 3\r\nwindow = 30\r\n");
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), 0);
	assert_true(c.interval_s == 3);
}

/*
 * Every error said, each with its own line and its own reason (libinih
 * stopped at the first line's number with the last error's text), and a
 * control byte in a key or value shown escaped: one error, one line.
 */
static void config_every_error_with_its_own_line(void **state)
{
	char err[IAD_CONFIG_ERR_LEN], *l, *save;
	struct iad_config c, before;
	unsigned int n = 0, i;
	const char *p;

	(void)state;
	iad_config_defaults(&c);
	before = c;
	p = write_conf("many.conf", "[daemon]\ninterval = fast\n\nlog = loud\n[bogus]\nx = 1\n"
			"[exec]\nprogram = rel\x1b[2J\nOK\n");
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), -1);
	assert_memory_equal(&c, &before, sizeof(c));
	for (l = strtok_r(err, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
		static const char *const want[] = {
			":2: interval: 'fast' is not a number",
			":4: log: 'loud' is none of auto, journal, syslog, stderr",
			":5: unknown section [bogus]",
			":8: program: 'rel\\x1b[2J' is not an absolute path",
			":9: not a key = value line or a [section]",
		};
		assert_true(n < 5);
		if (!strstr(l, want[n]))
			fail_msg("error %u: '%s' does not contain '%s'", n, l, want[n]);
		for (i = 0; l[i]; i++)
			assert_true((unsigned char)l[i] >= 0x20 && l[i] != 0x7f);
	}
	assert_int_equal(n, 5);

	/* More than the room holds: as many as fit, then how many more. */
	{
		char *t = malloc(4000 * 24 + 16), *w;

		assert_non_null(t);
		w = t + sprintf(t, "[daemon]\n");
		for (i = 0; i < 4000; i++)
			w += sprintf(w, "interval = x%u\n", i);
		p = write_conf("flood.conf", t);
		free(t);
	}
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), -1);
	assert_true(strlen(err) < sizeof(err));
	assert_non_null(strstr(err, ":2: interval: 'x0' is not a number"));
	assert_non_null(strstr(err, "more error(s)"));
}

/* --- exec sink ------------------------------------------------------------------- */

static struct iad *exec_iad(const char *program, double timeout, unsigned int max)
{
	static struct iad d;

	iad_exec_fini(&d);
	test_iad(&d);
	snprintf(d.cfg.exec_program, sizeof(d.cfg.exec_program), "%s", program);
	d.cfg.exec_timeout_s = timeout;
	d.cfg.exec_max = max;
	d.cfg.exec_queue = 2;
	iad_log_open(&d);
	return &d;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Running, not dead or a zombie waiting for its new parent (polled: up to 2 s). */
static bool alive(int pid)
{
	char path[64], st[256], *p;
	int tries;
	FILE *f;

	for (tries = 0; tries < 200; tries++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			return false;
		p = fgets(st, sizeof(st), f);
		fclose(f);
		p = p ? strrchr(st, ')') : NULL;
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return false;
		usleep(10000);
	}
	return true;
}

/* The whole of a small file, NUL-terminated, into @buf. */
static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
}

/*
 * An exec hook @name.sh in tmpdir (its path in @hook) writing to @name.out
 * (its path in @out, "$out" in @body): "#!/bin/sh", out=..., then @body.
 */
static void exec_hook_script(const char *name, char *hook, char *out, size_t len,
			     const char *body)
{
	FILE *f;

	snprintf(hook, len, "%s/%s.sh", tmpdir, name);
	snprintf(out, len, "%s/%s.out", tmpdir, name);
	f = fopen(hook, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nout='%s'\n%s", out, body);
	assert_int_equal(fclose(f), 0);
	chmod(hook, 0755);
}

/* Tick until no hook runs or @limit seconds pass. */
static void exec_drain(struct iad *d, double limit)
{
	double end = now_s() + limit;

	do {
		usleep(10000);
		d->now = now_s();
		iad_exec_tick(d);
	} while ((d->exec.nrun || d->exec.qlen) && d->now < end);
}

static void exec_hook_gets_the_alert_as_json(void **state)
{
	char hook[128], out[128], buf[2048];
	struct iad_obj ob = { .kind = 1, .id = 1000, .used = 900, .has_limit = true,
			      .limit = 1000, .uid = 1000 };
	struct iad_alert a = { .state = IAD_WARNING, .prev = IAD_OK, .obj = &ob,
			       .reason = "utilisation 90.0% >= warning 80%" };
	struct iad *d;

	(void)state;
	exec_hook_script("hook", hook, out, sizeof(out), "cat >> \"$out\"\n");
	d = exec_iad(hook, 5, 2);
	d->now = now_s();
	iad_exec_alert(d, &a);
	exec_drain(d, 5);
	assert_int_equal(d->exec.started, 1);
	assert_int_equal(d->exec.failed, 0);
	slurp(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"alert\":\"WARNING\""));
	assert_non_null(strstr(buf, "\"previous\":\"OK\""));
	assert_non_null(strstr(buf, "\"object\":1000"));
	assert_non_null(strstr(buf, "\"used\":900"));
	assert_non_null(strstr(buf, "\"limit\":1000"));
	assert_non_null(strstr(buf, "\"utilization\":0.900000"));
	assert_non_null(strstr(buf, "\"reason\":\"utilisation 90.0% >= warning 80%\""));
	ob_rings_free(&ob);
}

/*
 * The DaemonSet's daemon runs as uid 65532 with CAP_SYS_ADMIN ambient (issue
 * 68): its exec hooks run with no capability. In a child of uid 1000
 * holding CAP_SYS_ADMIN in its permitted, effective, inheritable and
 * ambient sets, a hook started as the daemon starts it writes its own sets:
 * permitted, effective and ambient empty. The same hook run by plain
 * system() from that child keeps the ambient capability: what the daemon's
 * clearing takes away. (A daemon running as root hands its hooks root's;
 * the unit and the DaemonSet run it as a user of its own.)
 */
static void exec_hook_runs_without_the_daemons_capability(void **state)
{
	char dir[] = "/tmp/iad-cap-XXXXXX", hook[160], out[160], plain[160], buf[2048];
	struct iad_obj ob = { .kind = 1, .id = 1000, .used = 900, .has_limit = true,
			      .limit = 1000, .uid = 1000 };
	struct iad_alert a = { .state = IAD_WARNING, .prev = IAD_OK, .obj = &ob, .reason = "r" };
	char cmd[512];
	int st;
	pid_t pid;
	FILE *f;

	(void)state;
	if (geteuid())
		skip();		/* becoming uid 1000 with a capability needs root */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(hook, sizeof(hook), "%s/caps.sh", dir);
	snprintf(out, sizeof(out), "%s/caps.out", dir);
	snprintf(plain, sizeof(plain), "%s/plain.out", dir);
	f = fopen(hook, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat >/dev/null\ngrep -E '^Cap(Prm|Eff|Amb):' /proc/self/status >\"${1:-%s}\"\n",
		out);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(hook, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct c[2];
		struct iad *d;

		memset(c, 0, sizeof(c));
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
		    setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(10);
		c[0].effective = c[0].permitted = c[0].inheritable = 1u << CAP_SYS_ADMIN;
		if (syscall(SYS_capset, &h, c) ||
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_ADMIN, 0, 0))
			_exit(11);
		snprintf(cmd, sizeof(cmd), "%s %s </dev/null", hook, plain);
		if (system(cmd))
			_exit(12);
		d = exec_iad(hook, 5, 1);
		d->now = now_s();
		iad_exec_alert(d, &a);
		exec_drain(d, 5);
		_exit(d->exec.started == 1 && !d->exec.failed ? 0 : 13);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	slurp(plain, buf, sizeof(buf));
	assert_non_null(strstr(buf, "CapAmb:\t0000000000200000"));
	slurp(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "CapPrm:\t0000000000000000"));
	assert_non_null(strstr(buf, "CapEff:\t0000000000000000"));
	assert_non_null(strstr(buf, "CapAmb:\t0000000000000000"));
	unlink(hook);
	unlink(out);
	unlink(plain);
	rmdir(dir);
}

static void exec_hung_hook_is_killed_and_alerting_goes_on(void **state)
{
	char hook[128], out[128], path[160], buf[4096];
	struct iad_obj ob = { .kind = 1, .id = 7, .used = 1, .has_limit = true, .limit = 2 };
	int pid;
	struct iad_alert a = { .state = IAD_CRITICAL, .obj = &ob, .reason = "r" };
	struct iad *d;
	double t0;
	unsigned int i;
	FILE *f;

	(void)state;
	/* Writes, then hangs with a child of its own: the group is killed. */
	exec_hook_script("hung", hook, out, sizeof(out),
			 "cat >> \"$out\"\nsleep 300 & echo $! >> \"$out.pids\"\nwait\n");
	d = exec_iad(hook, 0.3, 1);
	d->now = t0 = now_s();
	/* One runs, two wait, the fourth is dropped (queue 2). */
	for (i = 0; i < 4; i++)
		iad_exec_alert(d, &a);
	assert_int_equal(d->exec.nrun, 1);
	assert_int_equal(d->exec.qlen, 2);
	assert_int_equal(d->exec.dropped, 1);
	exec_drain(d, 10);
	assert_int_equal(d->exec.nrun, 0);
	assert_int_equal(d->exec.started, 3);
	assert_int_equal(d->exec.timeouts, 3);
	/* Each ran one after the other, each killed at ~0.3 s. */
	assert_true(d->now - t0 >= 0.9 && d->now - t0 < 5);
	slurp(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"alert\":\"CRITICAL\""));
	/* No sleep of theirs survives: their process groups were killed. */
	snprintf(path, sizeof(path), "%s.pids", out);
	f = fopen(path, "r");
	assert_non_null(f);
	for (i = 0; fscanf(f, "%d", &pid) == 1; i++)
		assert_false(alive(pid));
	fclose(f);
	assert_int_equal(i, 3);
	ob_rings_free(&ob);
}

/* How many times @needle is in @hay. */
static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/*
 * One uid's flood does not crowd out another's alerts (issue 68): one hook
 * runs, the queue holds 4. Uid 1000 raises 7 (1 runs, 4 wait, 2 dropped);
 * uid 2000's FAILURE then takes the place of uid 1000's newest, and so
 * does uid 3000's WARNING; another of uid 1000 (still the most waiting)
 * is dropped itself. Every hook run: uid 2000's and 3000's alerts come
 * through, uid 1000's 3 (the running one and two waiting).
 */
static void exec_one_uids_flood_does_not_crowd_out_anothers(void **state)
{
	char hook[128], out[128], buf[16384];
	struct iad_obj a = { .kind = 1, .id = 1000, .used = 1, .has_limit = true, .limit = 2,
			     .uid = 1000 };
	struct iad_obj b = a, c = a;
	struct iad_alert aa = { .state = IAD_CRITICAL, .obj = &a, .reason = "flood" };
	struct iad_alert ba = { .state = IAD_FAILURE, .obj = &b, .reason = "refused" };
	struct iad_alert ca = { .state = IAD_WARNING, .obj = &c, .reason = "warn" };
	struct iad *d;
	unsigned int i;

	(void)state;
	b.id = b.uid = 2000;
	c.id = c.uid = 3000;
	exec_hook_script("fair", hook, out, sizeof(out), "cat >> \"$out\"\necho >> \"$out\"\n");
	d = exec_iad(hook, 5, 1);
	d->cfg.exec_queue = 4;
	d->now = now_s();
	for (i = 0; i < 7; i++)
		iad_exec_alert(d, &aa);
	assert_int_equal(d->exec.nrun, 1);
	assert_int_equal(d->exec.qlen, 4);
	assert_int_equal(d->exec.dropped, 2);
	iad_exec_alert(d, &ba);
	iad_exec_alert(d, &ca);
	iad_exec_alert(d, &aa);
	assert_int_equal(d->exec.qlen, 4);
	assert_int_equal(d->exec.dropped, 5);
	exec_drain(d, 10);
	assert_int_equal(d->exec.started, 5);
	slurp(out, buf, sizeof(buf));
	assert_int_equal(count_of(buf, "\"object\":2000"), 1);
	assert_int_equal(count_of(buf, "\"alert\":\"FAILURE\""), 1);
	assert_int_equal(count_of(buf, "\"object\":3000"), 1);
	assert_int_equal(count_of(buf, "\"object\":1000"), 3);
	ob_rings_free(&a);
}

static void exec_missing_program_is_said_once(void **state)
{
	struct iad_obj ob = { .kind = 1, .id = 7 };
	struct iad_alert a = { .state = IAD_WARNING, .obj = &ob, .reason = "r" };
	struct iad *d = exec_iad("/nonexistent/hook", 1, 1);

	(void)state;
	iad_exec_alert(d, &a);
	iad_exec_alert(d, &a);
	assert_int_equal(d->exec.started, 0);
	assert_int_equal(d->exec.failed, 2);
	assert_true(d->exec.warned_missing);
	ob_rings_free(&ob);
}

/* --- exporter documents ----------------------------------------------------------- */

/* Uid 1000's pot in @d: 4 KiB of 8 KiB used, in @state. */
static struct iad_obj *pot_1000(struct iad *d, enum iad_state state)
{
	struct iad_obj *a = iad_obj_get(&d->objs, 1, 1000);

	a->used = 4096;
	a->has_limit = true;
	a->limit = 8192;
	a->uid = 1000;
	a->state = state;
	return a;
}

static void metrics_text_has_every_object_and_counter(void **state)
{
	static struct iad d;
	static char longp[4096], want[4200];
	struct iad_obj *a, *b;
	char *txt, path[128];
	unsigned int i;
	size_t len;
	FILE *f;

	(void)state;
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.up = true;
	/* The kinds and units as STATUS gives them; kind 9 the module did not announce. */
	d.st.nkinds = 4;
	/* Each kind's refusals since load; the future kind from a module without them. */
	d.st.kinds[0] = (struct ia_quota_kind){ 0, "vfio-container", "entries", true, 3 };
	d.st.kinds[1] = (struct ia_quota_kind){ 1, "uid-pot", "bytes", true, 0 };
	d.st.kinds[2] = (struct ia_quota_kind){ 2, "qpair", "descriptors", true, 12 };
	d.st.kinds[3] = (struct ia_quota_kind){ 3, "kind-of-a-future", "Slots\"}{x", false, 0 };
	snprintf(d.st.module_version, sizeof(d.st.module_version), "9.9.9");
	snprintf(d.st.kernel_release, sizeof(d.st.kernel_release), "6.12.1-\"x");
	a = pot_1000(&d, IAD_WARNING);
	a->rate = 10;
	a->has_eta = a->trusted = true;
	a->eta_s = 409.6;
	b = iad_obj_get(&d.objs, 0, 3);
	b->used = 10;
	b->has_limit = true;
	b->limit = 100;
	/* A forecast too early to stand by (a floor that may be a cycle's): not published. */
	b->has_eta = true;
	b->eta_s = 77;
	b = iad_obj_get(&d.objs, 2, 5);
	b->used = 7;
	b->has_limit = true;
	b->limit = 64;
	b = iad_obj_get(&d.objs, 3, 4);
	b->used = 7;
	b = iad_obj_get(&d.objs, 9, 6);
	b->used = 8;
	b = iad_obj_get(&d.objs, 0, 3);
	/* Its owner acted in a pod's container: the series carry both. */
	b->ident = calloc(1, sizeof(*b->ident));
	assert_non_null(b->ident);
	b->ident->cgroup_id = 90;
	snprintf(b->ident->container_id, sizeof(b->ident->container_id), "c0ffee");
	snprintf(b->ident->pod_uid, sizeof(b->ident->pod_uid), "7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a");
	/* The pot's charger has 8 KiB, a process of its uid 4 KiB: its own series. */
	a->has_limit_min = true;
	a->limit_min = 4096;
	/* Refusals the daemon attributed: by cause, consumer, expected. */
	d.refusals = calloc(2, sizeof(*d.refusals));
	assert_non_null(d.refusals);
	d.nrefusals = 2;
	d.refusals[0] = (struct iad_refusal){ 1, "rlimit_memlock", "io_uring-buffers", false, 2,
					      1765000000.25 };
	d.refusals[1] = (struct iad_refusal){ 0, "dma_entry_limit", "", true, 1, 1765000001.5 };
	d.events_lost = 5;
	/* Two holders of uid 1000's pot: a Kubernetes container, a path with a quote. */
	d.hs = calloc(5, sizeof(*d.hs));
	assert_non_null(d.hs);
	d.nhs = 5;
	d.hs[0] = (struct iad_hseries){ 1000, 77, 262144, strdup("/kubepods.slice/"
		"kubepods-burstable.slice/kubepods-burstable-pod7c1e9f2a_3b4c_4d5e_8f6a_0b1c2d3e4f5a"
		".slice/cri-containerd-9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321.scope"), false };
	d.hs[1] = (struct iad_hseries){ 1000, 78, 4096, strdup("/user.slice/a\"b\\c"), false };
	/* A tenant's cgroup name of bytes that are not UTF-8, with an escape and a newline. */
	d.hs[2] = (struct iad_hseries){ 1000, 79, 8192, strdup("/user.slice/t\xff\xc0\x80\x1b[2J\nx"),
					false };
	/*
	 * Two cgroups whose paths the module cut at the same 4095 bytes (a
	 * tenant's deep tree): two series, each marked, told apart by cgroup_id.
	 */
	memset(longp, 'd', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	d.hs[3] = (struct iad_hseries){ 1000, 80, 4096, strdup(longp), true };
	d.hs[4] = (struct iad_hseries){ 1000, 81, 8192, strdup(longp), true };
	txt = iad_metrics_text(&d, &len);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "iommu_account_up 1\n"));
	assert_non_null(strstr(txt, "iommu_account_build_info{version=\"" IA_VERSION "\","
				    "module_version=\"9.9.9\",kernel=\"6.12.1-\\\"x\"} 1\n"));
	/* The kernel's per-kind refusals, 0 included (increase() needs it), gone objects' too. */
	assert_non_null(strstr(txt, "# TYPE iommu_account_kind_refusals_total counter\n"
				    "iommu_account_kind_refusals_total{kind=\"vfio-container\"} 3\n"
				    "iommu_account_kind_refusals_total{kind=\"uid-pot\"} 0\n"
				    "iommu_account_kind_refusals_total{kind=\"qpair\"} 12\n#"));
	/* One unit per name: used and limit by the kind's unit, each family once. */
	assert_non_null(strstr(txt, "iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_limit_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 8192\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_used_entries{kind=\"vfio-container\",object=\"3\",uid=\"0\","
				    "container_id=\"c0ffee\",pod_uid=\"7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a\"} 10\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_limit_entries{kind=\"vfio-container\",object=\"3\",uid=\"0\","
				    "container_id=\"c0ffee\",pod_uid=\"7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a\"} 100\n"));
	assert_non_null(strstr(txt, "iommu_account_uid_pot_smallest_limit_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_null(strstr(txt, "iommu_account_uid_pot_smallest_limit_bytes{kind=\"vfio"));
	assert_non_null(strstr(txt, "iommu_account_refusals_total{kind=\"uid-pot\",cause=\"rlimit_memlock\","
				    "consumer=\"io_uring-buffers\",expected=\"false\"} 2\n"));
	assert_non_null(strstr(txt, "iommu_account_refusal_last_timestamp_seconds{kind=\"vfio-container\","
				    "cause=\"dma_entry_limit\",consumer=\"\",expected=\"true\"} 1765000001.500\n"));
	/* A unit that is not a name's part is made one; none known: "units". */
	assert_non_null(strstr(txt, "iommu_account_quota_limit_descriptors{kind=\"qpair\",object=\"5\",uid=\"0\"} 64\n"));
	assert_non_null(strstr(txt, "\niommu_account_quota_used_slots___x{kind=\"kind-of-a-future\",object=\"4\",uid=\"0\"} 7\n"));
	assert_non_null(strstr(txt, "\niommu_account_quota_used_units{kind=\"kind-9\",object=\"6\",uid=\"0\"} 8\n"));
	assert_null(strstr(txt, "iommu_account_quota_limit_slots___x{"));
	for (i = 0; i < 4; i++) {
		static const char *const fam[] = { "used_bytes", "used_entries", "limit_bytes", "used_units" };
		char *at;

		snprintf(want, sizeof(want), "# TYPE iommu_account_quota_%s gauge\n", fam[i]);
		at = strstr(txt, want);
		assert_non_null(at);
		assert_null(strstr(at + 1, want));
	}
	assert_non_null(strstr(txt, "iommu_account_quota_utilization_ratio{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 0.5\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_exhaustion_seconds{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 409.6\n"));
	assert_null(strstr(txt, "iommu_account_quota_exhaustion_seconds{kind=\"vfio-container\""));
	/* The alert state, a state set: the state it is in 1, the others 0. */
	assert_non_null(strstr(txt, "iommu_account_quota_state{kind=\"uid-pot\",object=\"1000\",uid=\"1000\",state=\"OK\"} 0\n"
				    "iommu_account_quota_state{kind=\"uid-pot\",object=\"1000\",uid=\"1000\",state=\"WARNING\"} 1\n"
				    "iommu_account_quota_state{kind=\"uid-pot\",object=\"1000\",uid=\"1000\",state=\"CRITICAL\"} 0\n"
				    "iommu_account_quota_state{kind=\"uid-pot\",object=\"1000\",uid=\"1000\",state=\"FAILURE\"} 0\n"));
	/* 0.2.0's names only behind legacy_names. */
	assert_null(strstr(txt, "iommu_account_quota_used{"));
	assert_null(strstr(txt, "iommu_account_quota_limit{"));
	assert_null(strstr(txt, "iommu_account_quota_rate"));
	assert_null(strstr(txt, "iommu_account_alert_state"));
	assert_non_null(strstr(txt, "iommu_account_events_lost_total 5\n"));
	assert_non_null(strstr(txt, "iommu_account_holder_pot_bytes{uid=\"1000\",cgroup=\"/kubepods.slice/"
		"kubepods-burstable.slice/kubepods-burstable-pod7c1e9f2a_3b4c_4d5e_8f6a_0b1c2d3e4f5a.slice/"
		"cri-containerd-9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321.scope\","
		"cgroup_id=\"77\",container_id=\"9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321\","
		"pod_uid=\"7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a\",runtime=\"containerd\","
		"unit=\"\"} 262144\n"));
	assert_non_null(strstr(txt, "iommu_account_holder_pot_bytes{uid=\"1000\",cgroup=\"/user.slice/a\\\"b\\\\c\","
		"cgroup_id=\"78\",container_id=\"\",pod_uid=\"\",runtime=\"\",unit=\"\"} 4096\n"));
	/* Valid UTF-8, the bytes shown as \xHH, no raw control: promtool takes it. */
	assert_non_null(strstr(txt, "cgroup=\"/user.slice/t\\\\xff\\\\xc0\\\\x80\\\\x1b[2J\\\\x0ax\""));
	for (i = 80; i <= 81; i++) {
		snprintf(want, sizeof(want), "cgroup=\"%s" IA_CUT_MARK "\",cgroup_id=\"%u\",", longp, i);
		assert_non_null(strstr(txt, want));
	}
	assert_true(ia_utf8_valid(txt));
	/* Left for promtool and dashboard-check (scripts/check): the default names. */
	snprintf(path, sizeof(path), "%s/metrics.txt", tmpdir);
	f = fopen(path, "w");
	fwrite(txt, 1, len, f);
	fclose(f);
	if (getenv("IAD_METRICS_OUT")) {
		f = fopen(getenv("IAD_METRICS_OUT"), "w");
		assert_non_null(f);
		fwrite(txt, 1, len, f);
		fclose(f);
	}
	/* legacy_names = yes: the old names too (one release), beside the new. */
	free(txt);
	d.cfg.legacy_names = true;
	txt = iad_metrics_text(&d, &len);
	assert_non_null(strstr(txt, "iommu_account_quota_used{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_limit{kind=\"vfio-container\",object=\"3\",uid=\"0\","
				    "container_id=\"c0ffee\",pod_uid=\"7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a\"} 100\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_rate{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 10\n"));
	assert_non_null(strstr(txt, "iommu_account_alert_state{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 1\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_true(ia_utf8_valid(txt));
	free(txt);
	/* Its owner and reason, as a FAILURE of a process leaves them. */
	a->owner = (struct iad_who){ .present = true, .pid = 4242, .uid = 1000, .comm = "secret-job" };
	free(a->reason);
	a->reason = strdup("refused by secret-job[4242]");
	txt = iad_alerts_text(&d, &len);
	assert_non_null(strstr(txt, "{\"version\":2,\"up\":true,\"alerts\":["));
	assert_non_null(strstr(txt, "{\"kind\":\"uid-pot\",\"object\":1000,\"state\":\"WARNING\","));
	assert_non_null(strstr(txt, "\"uid\":1000,\"pid\":4242,\"comm\":\"secret-job\","
				    "\"reason\":\"refused by secret-job[4242]\",\"holders\":[]}"));
	free(txt);

	/* A comm of bytes that are not UTF-8, with a newline: JSON, its bytes beside it. */
	snprintf(a->owner.comm, sizeof(a->owner.comm), "e\xff\nv\x1b[");
	txt = iad_alerts_text(&d, &len);
	assert_true(ia_utf8_valid(txt));
	assert_non_null(strstr(txt, "\"comm\":\"e\xef\xbf\xbd\\nv\\u001b[\",\"comm_hex\":\"65ff0a761b5b\""));
	assert_int_equal(memchr(txt, 0x1b, len), NULL);
	free(txt);

	/*
	 * [exporter] detail = objects: the objects' figures and states stay,
	 * no process, cgroup or reason naming one is shown.
	 */
	d.cfg.objects_only = true;
	d.cfg.legacy_names = false;
	txt = iad_metrics_text(&d, &len);
	assert_non_null(strstr(txt, "iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_null(strstr(txt, "holder_pot_bytes"));
	assert_null(strstr(txt, "cgroup="));
	assert_null(strstr(txt, "pod_uid="));
	free(txt);
	txt = iad_alerts_text(&d, &len);
	assert_non_null(strstr(txt, "{\"kind\":\"uid-pot\",\"object\":1000,\"state\":\"WARNING\","));
	assert_non_null(strstr(txt, "\"uid\":1000,\"holders\":[]}"));
	assert_null(strstr(txt, "\"pid\""));
	assert_null(strstr(txt, "\"reason\""));
	assert_null(strstr(txt, "4242"));
	assert_null(strstr(txt, "secret-job"));
	free(txt);
	iad_hseries_free(&d);
	iad_objs_free(&d.objs);
	free(d.refusals);
}

/* Count the samples (lines not starting with '#') of an exposition. */
static unsigned int samples_in(const char *txt)
{
	unsigned int n = 0;
	const char *p;

	for (p = txt; *p; p = strchr(p, '\n') + 1) {
		if (*p != '#')
			n++;
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

/*
 * The holder series bounded: per uid its top [exporter] holders cgroups,
 * one series for the rest summed, so a uid's series add up to what its
 * processes hold (several processes of a cgroup summed first); the
 * exposition counts its own series against series_budget and says when it
 * is over.
 */
static void holders_bounded_rest_summed_series_counted(void **state)
{
	static struct iad d;
	struct iad_hseries *v = calloc(7, sizeof(*v));
	uint64_t sum = 0;
	char *txt, want[256];
	size_t len, i;

	(void)state;
	assert_non_null(v);
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.cfg.holders = 2;
	d.up = true;
	/* uid 1000: cgroup 3 twice (two processes), 4 cgroups; uid 1001: one. */
	v[0] = (struct iad_hseries){ 1000, 3, 15, strdup("/c"), false };
	v[1] = (struct iad_hseries){ 1000, 1, 10, strdup("/a"), false };
	v[2] = (struct iad_hseries){ 1001, 9, 7, strdup("/z"), false };
	v[3] = (struct iad_hseries){ 1000, 2, 20, strdup("/b"), false };
	v[4] = (struct iad_hseries){ 1000, 3, 15, strdup("/c"), false };
	v[5] = (struct iad_hseries){ 1000, 4, 5, strdup("/d"), false };
	v[6] = (struct iad_hseries){ 1000, 5, 1, strdup("/e"), false };
	for (i = 0; i < 7; i++)
		assert_non_null(v[i].path);
	assert_int_equal(0, iad_hseries_set(&d, v, 7));
	assert_int_equal(3, d.nhs);
	assert_int_equal(1000, d.hs[0].uid);
	assert_int_equal(3, d.hs[0].cgroup_id);
	assert_int_equal(30, d.hs[0].bytes);
	assert_int_equal(2, d.hs[1].cgroup_id);
	assert_int_equal(1001, d.hs[2].uid);
	assert_int_equal(1, d.nho);
	assert_int_equal(1000, d.ho[0].uid);
	assert_int_equal(3, d.ho[0].cgroups);
	assert_int_equal(16, d.ho[0].bytes);
	for (i = 0; i < d.nhs; i++)
		if (d.hs[i].uid == 1000)
			sum += d.hs[i].bytes;
	assert_int_equal(66, sum + d.ho[0].bytes);
	txt = iad_metrics_text(&d, &len);
	assert_non_null(txt);
	assert_int_equal(len, strlen(txt));
	assert_non_null(strstr(txt, "\niommu_account_holder_pot_other_bytes{uid=\"1000\"} 16\n"));
	assert_null(strstr(txt, "iommu_account_holder_pot_other_bytes{uid=\"1001\"}"));
	/* Its own count, itself included; under the default budget of 10,000. */
	snprintf(want, sizeof(want), "\niommu_account_exporter_series %u\n", samples_in(txt));
	assert_non_null(strstr(txt, want));
	assert_non_null(strstr(txt, "\niommu_account_exporter_series_budget 10000\n"));
	assert_non_null(strstr(txt, "\niommu_account_exporter_over_budget 0\n"));
	free(txt);
	d.cfg.series_budget = 5;
	txt = iad_metrics_text(&d, &len);
	assert_non_null(strstr(txt, "\niommu_account_exporter_over_budget 1\n"));
	free(txt);
	d.cfg.series_budget = 0;
	txt = iad_metrics_text(&d, &len);
	snprintf(want, sizeof(want), "\niommu_account_exporter_series %u\n", samples_in(txt));
	assert_non_null(strstr(txt, want));
	assert_null(strstr(txt, "budget"));
	free(txt);
	iad_hseries_free(&d);
	assert_int_equal(0, d.nho);
}

static void exporter_port_in_use_said_and_others_go_on(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct iad_obj ob = { .kind = 1, .id = 9 };
	struct iad_alert a = { .state = IAD_WARNING, .obj = &ob, .reason = "r" };
	static struct iad d;
	int fd;

	(void)state;
	/* Someone else listens on the port. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	test_iad(&d);
	iad_log_open(&d);
	snprintf(d.cfg.listen, sizeof(d.cfg.listen), "127.0.0.1:%u", ntohs(sa.sin_port));
	assert_int_equal(iad_exporter_start(&d), -EADDRINUSE);
	assert_null(d.http);
	assert_int_equal(iad_exporter_fd(&d), -1);
	/* Alerts still go to the other sinks. */
	nraised = 0;
	iad_raise(&d, &a);
	assert_int_equal(nraised, 1);
	/* A listen that is not ADDRESS:PORT: the same. */
	snprintf(d.cfg.listen, sizeof(d.cfg.listen), "localhost");
	assert_int_equal(iad_exporter_start(&d), -EINVAL);
	close(fd);
	ob_rings_free(&ob);
}

/* --- the exporter against a slowloris ---------------------------------------------- */

static volatile int http_stop;

/* The daemon's loop, as far as the exporter goes: poll its fd, run it. */
static void *http_loop(void *arg)
{
	struct iad *d = arg;
	struct pollfd p = { .fd = iad_exporter_fd(d), .events = POLLIN };

	while (!http_stop) {
		poll(&p, 1, (int)(iad_exporter_wait(d, 1) * 1000));
		iad_exporter_run(d);
	}
	return NULL;
}

/* A loopback port nobody listens on now (the kernel's pick). */
static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static int http_connect(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct iad http_d;
static pthread_t http_th;

/* http_d's exporter on a free loopback port, served by a thread running the loop. */
static uint16_t http_serve(void)
{
	uint16_t port = free_port();

	snprintf(http_d.cfg.listen, sizeof(http_d.cfg.listen), "127.0.0.1:%u", port);
	assert_int_equal(iad_exporter_start(&http_d), 0);
	http_stop = 0;
	assert_int_equal(pthread_create(&http_th, NULL, http_loop, &http_d), 0);
	return port;
}

/* A fresh http_d, served. */
static uint16_t http_up(void)
{
	test_iad(&http_d);
	iad_log_open(&http_d);
	return http_serve();
}

static void http_down(void)
{
	http_stop = 1;
	pthread_join(http_th, NULL);
	iad_exporter_stop(&http_d);
}

/*
 * 2,000 connections that sent half a request and then nothing hold the
 * exporter; a scrape still gets its page, and the slow ones are shut down.
 */
static void exporter_serves_a_scrape_beside_2000_half_requests(void **state)
{
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: a\r\n";
	static const char full[] = "GET /metrics HTTP/1.0\r\n\r\n";
	struct rlimit rl = { 8192, 8192 };
	int *fds, i, fd, closed = 0, n;
	char buf[65536];
	size_t got = 0;
	double t0, t1;
	uint16_t port;

	(void)state;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	port = http_up();
	fds = calloc(2000, sizeof(*fds));
	assert_non_null(fds);
	for (i = 0; i < 2000; i++) {
		fds[i] = http_connect(port);
		assert_true(fds[i] >= 0);
		assert_int_equal(write(fds[i], half, sizeof(half) - 1), (ssize_t)sizeof(half) - 1);
	}
	/* The scrape, while all 2,000 are held open by their client. */
	t0 = now_s();
	fd = http_connect(port);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, full, sizeof(full) - 1), (ssize_t)sizeof(full) - 1);
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	t1 = now_s();
	buf[got] = 0;
	close(fd);
	print_message("# exporter: a scrape beside 2,000 half requests took %.3f s; "
		      "%llu slow connections shut down\n", t1 - t0,
		      (unsigned long long)iad_exporter_shut(&http_d));
	assert_non_null(strstr(buf, " 200 OK"));
	assert_non_null(strstr(buf, "iommu_account_up "));
	/* Every half request was shut down (its deadline, or to make room): EOF. */
	for (i = 0; i < 2000; i++) {
		struct timeval tv = { 10, 0 };

		setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		closed += read(fds[i], buf, sizeof(buf)) <= 0;
		close(fds[i]);
	}
	assert_int_equal(closed, 2000);
	assert_true(iad_exporter_shut(&http_d) > 0);
	http_down();
	free(fds);
}

/* --- the exporter's HTTP server (http.c) ------------------------------------------ */

/* Send @req on a new connection and read until the server closes it (5 s at most). */
static size_t http_exchange(uint16_t port, const char *req, size_t reqlen, char *buf, size_t cap)
{
	struct timeval tv = { 5, 0 };
	size_t got = 0;
	ssize_t n;
	int fd = http_connect(port);

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(write(fd, req, reqlen), (ssize_t)reqlen);
	while (got < cap - 1 && (n = read(fd, buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	/* The server closed it: EOF, not the timeout. */
	assert_int_equal(read(fd, buf + got, 1), 0);
	close(fd);
	return got;
}

/* The value of header @name in the response head starting at @r, or -1. */
static long http_header_num(const char *r, const char *name)
{
	const char *end = strstr(r, "\r\n\r\n"), *p = r;
	size_t n = strlen(name);

	while ((p = strstr(p, "\r\n")) && p < end) {
		p += 2;
		if (!strncasecmp(p, name, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	}
	return -1;
}

/* Is @str in the head of the response starting at @r? */
static bool http_head_has(const char *r, const char *str)
{
	const char *end = strstr(r, "\r\n\r\n"), *p = strstr(r, str);

	return p && end && p < end;
}

/* The built iommu-accountd beside this test (make -C userspace), or the test fails. */
static void built_daemon(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 32);
	char *slash;

	assert_true(n > 0 && (size_t)n < len - 32);
	path[n] = 0;
	slash = strrchr(path, '/');
	assert_non_null(slash);
	snprintf(slash, len - (size_t)(slash - path), "/../iommu-accountd");
	if (access(path, X_OK))
		fail_msg("%s: not built (make -C userspace)", path);
}

/* A loopback TCP socket listening on a port of the kernel's choice: the port. */
static uint16_t squat(int *fd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(*fd, 8), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&sa, &len), 0);
	return ntohs(sa.sin_port);
}

/* The next sd_notify datagram holding @want, within 10 s; false at the time-out. */
static bool notified(int nfd, const char *want)
{
	struct pollfd p = { .fd = nfd, .events = POLLIN };
	char buf[600];
	ssize_t n;

	while (poll(&p, 1, 10000) == 1) {
		n = recv(nfd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			return false;
		buf[n] = 0;
		if (strstr(buf, want))
			return true;
	}
	return false;
}

/* @pid's exit within 10 s (a pidfd polled): true and its status, or false (killed). */
static bool exited_within(pid_t pid, int *st)
{
	struct pollfd p = { .fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	bool done;

	assert_true(p.fd >= 0);
	done = poll(&p, 1, 10000) == 1;
	close(p.fd);
	if (!done)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, st, 0), pid);
	return done;
}

/* The built daemon on @conf, notifying @sock, its stderr in @log: its pid. */
static pid_t daemon_run(const char *bin, const char *conf, const char *sock, const char *log)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		setenv("NOTIFY_SOCKET", sock, 1);
		if (!freopen(log, "w", stderr))
			_exit(127);
		execl(bin, bin, "-c", conf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void port_conf(const char *path, uint16_t port)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "[daemon]\nlog = stderr\n[history]\npath = off\n[exporter]\n"
		"listen = 127.0.0.1:%u\n", port);
	assert_int_equal(fclose(f), 0);
}

/*
 * A run of the real daemon: its binary, a directory of its own with its
 * configuration, its log (stderr) and the sd_notify socket it is given
 * (bound here, @nfd).
 */
struct daemon_fix {
	char bin[4096], dir[32], conf[64], log[64], sock[64];
	int nfd;
};

static void daemon_fix_up(struct daemon_fix *f, const char *name)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };

	built_daemon(f->bin, sizeof(f->bin));
	snprintf(f->dir, sizeof(f->dir), "/tmp/%s-XXXXXX", name);
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->conf, sizeof(f->conf), "%s/c.conf", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/log", f->dir);
	snprintf(f->sock, sizeof(f->sock), "%s/notify", f->dir);
	snprintf(su.sun_path, sizeof(su.sun_path), "%s", f->sock);
	f->nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(f->nfd, (struct sockaddr *)&su, sizeof(su)), 0);
}

static void daemon_fix_down(struct daemon_fix *f)
{
	close(f->nfd);
	unlink(f->sock);
	unlink(f->log);
	unlink(f->conf);
	rmdir(f->dir);
}

/*
 * Port squatting (issue 68): another process listening on the exporter's
 * address would answer every scrape for the daemon. The real daemon,
 * started on a taken address, exits 1 at once, naming the address and
 * the errno, before it says READY; started on a free one it serves, and a
 * reload onto a taken address keeps serving the old one (bound until the
 * new one is, never let go for another to take), saying so.
 */
static void daemon_refuses_a_taken_port_at_start_and_keeps_its_own_at_reload(void **state)
{
	char buf[8192], want[64];
	struct daemon_fix f;
	int sq, st, fd, free_fd;
	uint16_t taken, own;
	pid_t pid;

	(void)state;
	daemon_fix_up(&f, "iad-port");
	taken = squat(&sq);
	own = squat(&free_fd);
	close(free_fd);		/* a port free now */

	/* Taken: exit 1, said, never READY. */
	port_conf(f.conf, taken);
	pid = daemon_run(f.bin, f.conf, f.sock, f.log);
	assert_true(exited_within(pid, &st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	slurp(f.log, buf, sizeof(buf));
	snprintf(want, sizeof(want), "cannot listen on 127.0.0.1:%u: Address already in use", taken);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "not starting"));
	assert_int_equal(recv(f.nfd, buf, sizeof(buf), MSG_DONTWAIT), -1);

	/* Free: READY; reloaded onto the taken one, still serving its own. */
	port_conf(f.conf, own);
	pid = daemon_run(f.bin, f.conf, f.sock, f.log);
	assert_true(notified(f.nfd, "READY=1"));
	port_conf(f.conf, taken);
	assert_int_equal(kill(pid, SIGHUP), 0);
	assert_true(notified(f.nfd, "RELOADING=1"));
	assert_true(notified(f.nfd, "READY=1"));
	http_exchange(own, "GET /healthz HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	/* No connection reached the squatter. */
	fd = accept(sq, NULL, NULL);
	assert_int_equal(fd, -1);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_true(exited_within(pid, &st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	slurp(f.log, buf, sizeof(buf));
	snprintf(want, sizeof(want), "still serving 127.0.0.1:%u, not", own);
	assert_non_null(strstr(buf, want));
	close(sq);
	daemon_fix_down(&f);
}

/*
 * Socket activation (issue 68): systemd holds the exporter's address
 * (iommu-accountd.socket) and passes it as fd 3 (LISTEN_PID, LISTEN_FDS).
 * The real daemon serves that socket, binds nothing of [exporter] listen
 * (here an address another process holds, which would end its start), says
 * so, and keeps it through a reload that changes listen (said too). A
 * fd 3 that is not a listening socket ends the start (status 1, said).
 */
static void daemon_serves_the_socket_systemd_passed(void **state)
{
	struct daemon_fix f;
	char buf[8192];
	int lfd, sq, st, i;
	uint16_t port, taken;
	pid_t pid;

	(void)state;
	daemon_fix_up(&f, "iad-act");
	taken = squat(&sq);
	port = squat(&lfd);	/* what systemd would hold */
	port_conf(f.conf, taken);

	for (i = 0; i < 2; i++) {
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			char p[16];

			/* As systemd passes it: fd 3, for this very process. */
			if (i == 0 && dup2(lfd, 3) != 3)
				_exit(127);
			if (i == 1 && dup2(f.nfd, 3) != 3)	/* a datagram socket: not one */
				_exit(127);
			snprintf(p, sizeof(p), "%d", (int)getpid());
			setenv("LISTEN_PID", p, 1);
			setenv("LISTEN_FDS", "1", 1);
			setenv("NOTIFY_SOCKET", f.sock, 1);
			if (!freopen(f.log, "w", stderr))
				_exit(127);
			execl(f.bin, f.bin, "-c", f.conf, (char *)NULL);
			_exit(127);
		}
		if (i == 1)
			break;
		assert_true(notified(f.nfd, "READY=1"));
		http_exchange(port, "GET /healthz HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
		assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
		/* Nothing came to the address of [exporter] listen. */
		assert_int_equal(accept(sq, NULL, NULL), -1);
		/* A reload onto another listen keeps the socket systemd passed. */
		port_conf(f.conf, (uint16_t)(taken + 1));
		assert_int_equal(kill(pid, SIGHUP), 0);
		assert_true(notified(f.nfd, "READY=1"));
		http_exchange(port, "GET /healthz HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
		assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
		assert_int_equal(kill(pid, SIGTERM), 0);
		assert_true(exited_within(pid, &st));
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		slurp(f.log, buf, sizeof(buf));
		assert_non_null(strstr(buf, "exporter serving the socket systemd passed, 127.0.0.1:"));
		assert_non_null(strstr(buf, "not bound: the exporter serves the socket systemd passed"));
		assert_null(strstr(buf, "cannot listen"));
		port_conf(f.conf, taken);
	}
	/* fd 3 a datagram socket: status 1, said. */
	assert_true(exited_within(pid, &st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	slurp(f.log, buf, sizeof(buf));
	assert_non_null(strstr(buf, "is not a listening stream socket"));
	assert_non_null(strstr(buf, "not starting: the exporter must serve the socket systemd passed"));
	close(lfd);
	close(sq);
	daemon_fix_down(&f);
}

/*
 * /alerts read back by the real client: `iommu-accountctl alerts` (text and
 * --json) against this exporter, with an owner, a reason and a holder named
 * with bytes that are not UTF-8, a newline and an escape sequence. The JSON
 * it prints gives each name's bytes back exactly (comm_hex, reason_hex);
 * the text shows them escaped, on one line, with no raw control byte.
 */
static void alerts_read_back_whole_by_iommu_accountctl(void **state)
{
	char ctl[4096], cmd[4096 + 128], out[16384], *slash;
	uint16_t port;
	struct iad_obj *a;
	size_t n;
	FILE *p;

	(void)state;
	n = (size_t)readlink("/proc/self/exe", ctl, sizeof(ctl) - 32);
	assert_true(n > 0 && n < sizeof(ctl) - 32);
	ctl[n] = 0;
	slash = strrchr(ctl, '/');
	assert_non_null(slash);
	snprintf(slash, sizeof(ctl) - (size_t)(slash - ctl), "/../iommu-accountctl");
	if (access(ctl, X_OK))
		fail_msg("%s: not built (make -C userspace)", ctl);
	test_iad(&http_d);
	iad_log_open(&http_d);
	http_d.up = true;
	a = pot_1000(&http_d, IAD_FAILURE);
	a->owner = (struct iad_who){ .present = true, .pid = 4242, .uid = 1000 };
	snprintf(a->owner.comm, sizeof(a->owner.comm), "e\xff\nv\x1b[2J");
	free(a->reason);
	a->reason = strdup("refused for e\xff\nv\x1b[2J[4242]");
	a->holders[0] = (struct iad_holder){ .who = a->owner, .held = 4096 };
	a->holders[0].who.comm[0] = '|';
	a->nholders = 1;
	port = http_serve();

	snprintf(cmd, sizeof(cmd), "%s -j alerts --daemon 127.0.0.1:%u", ctl, port);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_true(ia_utf8_valid(out));
	assert_non_null(strstr(out, "\"object\":1000,\"state\":\"FAILURE\""));
	assert_non_null(strstr(out, "\"pid\":4242,\"comm\":\"e\xef\xbf\xbd\\nv\\u001b[2J\","
				    "\"comm_hex\":\"65ff0a761b5b324a\""));
	assert_non_null(strstr(out, "\"reason_hex\":\"7265667573656420666f722065ff0a761b5b324a5b343234325d\""));
	assert_non_null(strstr(out, "\"holders\":[{\"pid\":4242,\"uid\":1000,\"comm\":\"|\xef\xbf\xbd\\nv\\u001b[2J\","
				    "\"comm_hex\":\"7cff0a761b5b324a\""));

	snprintf(cmd, sizeof(cmd), "%s alerts --daemon 127.0.0.1:%u", ctl, port);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_true(ia_utf8_valid(out));
	assert_null(memchr(out, 0x1b, n));
	assert_non_null(strstr(out, "refused for e\\xff\\nv\\x1b[2J[4242]\n"));
	assert_non_null(strstr(out, "held by |\\xff\\nv\\x1b[2J[4242] "));
	http_down();
	iad_objs_free(&http_d.objs);
}

/*
 * GET @path over the Unix socket @sock as a process of @uid with @gid and
 * supplementary group @grp (-1: none): a child that drops to them, then
 * connects; the whole answer in @buf.
 */
/* A connected stream socket to @addr: "unix:PATH" or "IPV4:PORT"; -1 if none. */
static int connect_to(const char *addr)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct sockaddr_in si = { .sin_family = AF_INET };
	char host[64], *colon;
	int fd;

	if (!strncmp(addr, "unix:", 5)) {
		snprintf(su.sun_path, sizeof(su.sun_path), "%s", addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&su, sizeof(su)))
			goto fail;
		return fd;
	}
	snprintf(host, sizeof(host), "%s", addr);
	colon = strrchr(host, ':');
	if (!colon)
		return -1;
	*colon = 0;
	si.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &si.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&si, sizeof(si)))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * GET @path from @addr (connect_to's form) as uid @uid, gid @gid and
 * supplementary group @grp (-1: none), in a child; its answer in @buf.
 */
static void get_as(const char *addr, uid_t uid, gid_t gid, gid_t grp, const char *path,
		   char *buf, size_t cap)
{
	int pp[2], fd, st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char req[128];

		close(pp[0]);
		if (setgroups(grp == (gid_t)-1 ? 0 : 1, &grp) || setresgid(gid, gid, gid) ||
		    setresuid(uid, uid, uid))
			_exit(2);
		fd = connect_to(addr);
		if (fd < 0)
			_exit(3);
		n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
		if (write(fd, req, (size_t)n) != n)
			_exit(4);
		while ((n = read(fd, req, sizeof(req))) > 0)
			if (write(pp[1], req, (size_t)n) != n)
				_exit(5);
		_exit(0);
	}
	close(pp[1]);
	while (got < cap - 1 && (n = read(pp[0], buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	close(pp[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void unix_get_as(const char *sock, uid_t uid, gid_t gid, gid_t grp, const char *path,
			char *buf, size_t cap)
{
	char addr[128];

	snprintf(addr, sizeof(addr), "unix:%s", sock);
	get_as(addr, uid, gid, grp, path, buf, cap);
}

/*
 * http_d with two uids' pots in FAILURE, 1000's (owner pid 4242 "mine",
 * holder series /user.slice/mine) and 2000's (5353 "theirs",
 * /user.slice/theirs), each with its flight record.
 */
static void two_uids_pots(void)
{
	struct iad_obj *a, *b;

	a = pot_1000(&http_d, IAD_FAILURE);
	a->owner = (struct iad_who){ .present = true, .pid = 4242, .uid = 1000 };
	snprintf(a->owner.comm, sizeof(a->owner.comm), "mine");
	a->holders[0] = (struct iad_holder){ .who = a->owner, .held = 4096 };
	a->nholders = 1;
	b = iad_obj_get(&http_d.objs, 1, 2000);
	b->used = 8192;
	b->uid = 2000;
	b->state = IAD_FAILURE;
	b->owner = (struct iad_who){ .present = true, .pid = 5353, .uid = 2000 };
	snprintf(b->owner.comm, sizeof(b->owner.comm), "theirs");
	b->holders[0] = (struct iad_holder){ .who = b->owner, .held = 8192 };
	b->nholders = 1;
	http_d.hs = calloc(2, sizeof(*http_d.hs));
	assert_non_null(http_d.hs);
	http_d.nhs = 2;
	http_d.hs[0] = (struct iad_hseries){ 1000, 77, 4096, strdup("/user.slice/mine"), false };
	http_d.hs[1] = (struct iad_hseries){ 2000, 78, 8192, strdup("/user.slice/theirs"), false };
}

/* What of two_uids_pots() a /metrics answer @buf shows: bit 0 uid 1000's, bit 1 2000's. */
static unsigned int uids_shown(const char *buf)
{
	assert_non_null(strstr(buf, "iommu_account_up 1\n"));
	/* A uid's pot and its holder series go together. */
	assert_true(!strstr(buf, "object=\"1000\",uid=\"1000\"} 4096\n") ==
		    !strstr(buf, "/user.slice/mine"));
	assert_true(!strstr(buf, "object=\"2000\",uid=\"2000\"} 8192\n") ==
		    !strstr(buf, "/user.slice/theirs"));
	return (strstr(buf, "/user.slice/mine") ? 1 : 0) | (strstr(buf, "/user.slice/theirs") ? 2 : 0);
}

/* This test binary's directory, where iommu-accountctl is one up. */
static void ctl_path(char *ctl, size_t cap)
{
	char *slash;
	ssize_t n = readlink("/proc/self/exe", ctl, cap - 32);

	assert_true(n > 0);
	ctl[n] = 0;
	slash = strrchr(ctl, '/');
	assert_non_null(slash);
	snprintf(slash, cap - (size_t)(slash - ctl), "/../iommu-accountctl");
}

/* What of two_uids_pots() an /alerts answer @buf shows, as uids_shown() says it. */
static unsigned int alerts_shown(const char *buf)
{
	bool mine = strstr(buf, "\"object\":1000,"), theirs = strstr(buf, "\"object\":2000,");

	/* An entry and its owner's pid and comm go together. */
	assert_true(mine == !!strstr(buf, "\"comm\":\"mine\""));
	assert_true(theirs == !!strstr(buf, "theirs"));
	assert_true(theirs == !!strstr(buf, "5353"));
	if (!mine && !theirs)
		assert_non_null(strstr(buf, "\"alerts\":[]"));
	return (mine ? 1 : 0) | (theirs ? 2 : 0);
}

/*
 * What of two_uids_pots() @addr shows uid @uid (gid @gid, supplementary
 * group @grp or -1) in /metrics and in /alerts, which must agree: bit 0
 * uid 1000's, bit 1 uid 2000's.
 */
static unsigned int shown_to(const char *addr, uid_t uid, gid_t gid, gid_t grp)
{
	static char buf[65536];
	unsigned int m;

	get_as(addr, uid, gid, grp, "/metrics", buf, sizeof(buf));
	m = uids_shown(buf);
	if (!(m & 1))
		assert_null(strstr(buf, "uid=\"1000\""));
	if (!(m & 2))
		assert_null(strstr(buf, "uid=\"2000\""));
	get_as(addr, uid, gid, grp, "/alerts", buf, sizeof(buf));
	assert_int_equal(alerts_shown(buf), m);
	return m;
}

/*
 * Visibility as the module's (issue 68), over [exporter] listen = unix:PATH:
 * the kernel names each peer (SO_PEERCRED, SO_PEERGROUPS). Two uids' pots,
 * each with a holder series and a FAILURE's flight record; uid 1000 reads
 * /metrics and /alerts with its own pot, holder and flight record only (no
 * series, entry, pid or cgroup of uid 2000's); uid 3000 sees no uid's
 * object; uid 3000 in [exporter] group (here "root", gid 0), and root, see
 * both. The socket is 0666 (whoever connects sees what its uid may); a
 * second daemon on a path that answers is refused (EADDRINUSE), a stale
 * socket is replaced, a file that is not a socket is left alone (EEXIST).
 * `iommu-accountctl alerts --daemon unix:PATH` reads it.
 */
static void exporter_unix_socket_shows_each_peer_what_its_uid_may(void **state)
{
	char dir[] = "/tmp/iad-unix-XXXXXX", sock[64], addr[80], other[96], buf[65536], cmd[8192];
	char ctl[4096];
	struct stat st;
	ssize_t n;
	FILE *p;
	int fd;

	(void)state;
	if (geteuid())
		skip();		/* dropping to other uids needs root */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(sock, sizeof(sock), "%s/exporter.sock", dir);
	test_iad(&http_d);
	iad_log_open(&http_d);
	http_d.up = true;
	snprintf(http_d.cfg.group, sizeof(http_d.cfg.group), "root");
	two_uids_pots();
	snprintf(http_d.cfg.listen, sizeof(http_d.cfg.listen), "unix:%s", sock);
	assert_int_equal(iad_exporter_start(&http_d), 0);
	http_stop = 0;
	assert_int_equal(pthread_create(&http_th, NULL, http_loop, &http_d), 0);
	assert_int_equal(stat(sock, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666);

	snprintf(addr, sizeof(addr), "unix:%s", sock);
	assert_int_equal(shown_to(addr, 1000, 1000, (gid_t)-1), 1);
	assert_int_equal(shown_to(addr, 3000, 3000, (gid_t)-1), 0);
	/* A member of [exporter] group, and root: every uid. */
	assert_int_equal(shown_to(addr, 3000, 3000, 0), 3);
	assert_int_equal(shown_to(addr, 0, 0, (gid_t)-1), 3);
	ctl_path(ctl, sizeof(ctl));
	snprintf(cmd, sizeof(cmd), "%s -j alerts --daemon unix:%s", ctl, sock);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(buf, "\"object\":1000,"));
	assert_non_null(strstr(buf, "\"object\":2000,"));
	assert_non_null(strstr(buf, "\"comm\":\"theirs\""));

	/* Its path answers: a second server there is refused, and it still serves. */
	snprintf(other, sizeof(other), "unix:%s", sock);
	{
		struct iad d2;

		test_iad(&d2);
		iad_log_open(&d2);
		snprintf(d2.cfg.listen, sizeof(d2.cfg.listen), "%s", other);
		assert_int_equal(iad_exporter_start(&d2), -EADDRINUSE);
		/* Not a socket: left alone. */
		snprintf(other, sizeof(other), "%s/file", dir);
		fd = open(other, O_CREAT | O_WRONLY, 0600);
		assert_true(fd >= 0);
		close(fd);
		snprintf(d2.cfg.listen, sizeof(d2.cfg.listen), "unix:%s", other);
		assert_int_equal(iad_exporter_start(&d2), -EEXIST);
		assert_int_equal(stat(other, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		unlink(other);
	}
	unix_get_as(sock, 1000, 1000, (gid_t)-1, "/metrics", buf, sizeof(buf));
	assert_non_null(strstr(buf, " 200 OK"));
	http_stop = 1;
	pthread_join(http_th, NULL);
	iad_http_free(http_d.http);	/* gone without a word: the socket file stays, stale */
	http_d.http = NULL;
	assert_int_equal(stat(sock, &st), 0);
	assert_int_equal(iad_exporter_start(&http_d), 0);
	iad_exporter_stop(&http_d);
	assert_int_equal(stat(sock, &st), -1);	/* a clean stop takes it away */
	iad_hseries_free(&http_d);
	iad_objs_free(&http_d.objs);
	rmdir(dir);
}

/*
 * Over TCP the kernel names a local peer too (issue 68): the owner of the
 * client's socket, which sock_diag finds by the connection's addresses
 * (what `ss -e` shows). On 127.0.0.1, uid 1000 sees its own pot, holder
 * series and flight record only; uid 3000 no uid's; root every uid. The
 * kernel gives no TCP peer's groups: membership of [exporter] group is the
 * group database's, so a user whose primary group it is sees every uid
 * (though its process holds no group of it), and uid 3000 holding the
 * group's gid as a supplementary group, which the database does not give
 * it, does not.
 */
static void exporter_tcp_names_each_local_peer_as_the_kernel_does(void **state)
{
	char addr[64];
	struct passwd *pw;
	struct group *g = NULL;
	uid_t member = 0;
	gid_t gid = 0;

	(void)state;
	if (geteuid())
		skip();		/* dropping to other uids needs root */
	setpwent();
	while ((pw = getpwent()))
		if (pw->pw_uid && pw->pw_uid != 1000 && pw->pw_uid != 3000 && pw->pw_gid &&
		    (g = getgrgid(pw->pw_gid))) {
			member = pw->pw_uid;
			gid = g->gr_gid;
			break;
		}
	endpwent();
	assert_true(member && g);
	test_iad(&http_d);
	iad_log_open(&http_d);
	http_d.up = true;
	two_uids_pots();
	snprintf(http_d.cfg.group, sizeof(http_d.cfg.group), "%s", g->gr_name);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", http_serve());

	assert_int_equal(shown_to(addr, 1000, 1000, (gid_t)-1), 1);
	assert_int_equal(shown_to(addr, 3000, 3000, (gid_t)-1), 0);
	assert_int_equal(shown_to(addr, 3000, 3000, gid), 0);
	assert_int_equal(shown_to(addr, member, 65534, (gid_t)-1), 3);
	assert_int_equal(shown_to(addr, 0, 0, (gid_t)-1), 3);
	http_down();
	iad_hseries_free(&http_d);
	iad_objs_free(&http_d.objs);
}

/* The far end of a veth pair in a network namespace of its own: a host elsewhere. */
struct elsewhere {
	pid_t pid;
	int cmd, res;		/* commands to it, answers from it */
	char near[16], far[16];	/* the two interfaces' names */
	char near_ip[20], far_ip[20];
};

/*
 * A child in a new network namespace, joined to this one by a veth pair
 * with a /30 of 198.18.0.0/15 (RFC 2544's range) picked from this pid.
 * false (and nothing left) when the host does not let it be made.
 */
static bool elsewhere_up(struct elsewhere *e)
{
	unsigned int i = (unsigned int)getpid() & 0x7fff;
	int c[2], r[2];
	char cmd[512], b;

	memset(e, 0, sizeof(*e));
	snprintf(e->near, sizeof(e->near), "iadt%ua", i);
	snprintf(e->far, sizeof(e->far), "iadt%ub", i);
	snprintf(e->near_ip, sizeof(e->near_ip), "198.%u.%u.%u", 18 + (i >> 14), (i >> 6) & 255,
		 (i & 63) << 2 | 1);
	snprintf(e->far_ip, sizeof(e->far_ip), "198.%u.%u.%u", 18 + (i >> 14), (i >> 6) & 255,
		 (i & 63) << 2 | 2);
	assert_int_equal(pipe(c), 0);
	assert_int_equal(pipe(r), 0);
	e->pid = fork();
	assert_true(e->pid >= 0);
	if (!e->pid) {
		char line[1024];
		ssize_t n;

		close(c[1]);
		close(r[0]);
		b = unshare(CLONE_NEWNET) ? 'n' : 'y';
		if (write(r[1], &b, 1) != 1 || b != 'y')
			_exit(1);
		/* Each command: a line for sh; its exit status back as one byte. */
		while ((n = read(c[0], line, sizeof(line) - 1)) > 0) {
			line[n] = 0;
			b = (char)WEXITSTATUS(system(line));
			if (write(r[1], &b, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(c[0]);
	close(r[1]);
	e->cmd = c[1];
	e->res = r[0];
	if (read(e->res, &b, 1) != 1 || b != 'y')
		goto fail;
	snprintf(cmd, sizeof(cmd),
		 "ip link add %s type veth peer name %s netns %d && ip addr add %s/30 dev %s && "
		 "ip link set %s up", e->near, e->far, (int)e->pid, e->near_ip, e->near, e->near);
	if (system(cmd))
		goto fail;
	snprintf(cmd, sizeof(cmd), "ip link set lo up && ip addr add %s/30 dev %s && "
		 "ip link set %s up", e->far_ip, e->far, e->far);
	if (write(e->cmd, cmd, strlen(cmd)) < 0 || read(e->res, &b, 1) != 1 || b)
		goto fail;
	return true;
fail:
	snprintf(cmd, sizeof(cmd), "ip link del %s 2>/dev/null", e->near);
	if (system(cmd)) {
		/* not made */
	}
	close(e->cmd);
	close(e->res);
	kill(e->pid, SIGKILL);
	waitpid(e->pid, NULL, 0);
	return false;
}

/* @sh run over there; its exit status. */
static int elsewhere_run(struct elsewhere *e, const char *sh)
{
	char b;

	assert_true(write(e->cmd, sh, strlen(sh)) == (ssize_t)strlen(sh));
	assert_int_equal(read(e->res, &b, 1), 1);
	return (unsigned char)b;
}

static void elsewhere_down(struct elsewhere *e)
{
	char cmd[64];

	close(e->cmd);
	close(e->res);
	waitpid(e->pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "ip link del %s 2>/dev/null", e->near);
	if (system(cmd)) {
		/* went with the namespace */
	}
}

/*
 * A TCP client whose socket is not on this host (here: in another network
 * namespace, over a veth pair) has nothing to name it: by default
 * ([exporter] remote = none) it sees no uid's objects, only the daemon's
 * own series; with remote = all, every uid. A local client of the same
 * address is still named (uid 1000: its own). iommu-accountctl over there
 * cannot name the server either, and reads it (not judged).
 */
static void exporter_tcp_client_from_elsewhere_sees_what_remote_says(void **state)
{
	char buf[65536], addr[64], out[128], ctl[4096], sh[8192];
	struct elsewhere e;
	int fd;

	(void)state;
	if (geteuid())
		skip();		/* a veth pair and a namespace need root */
	if (!elsewhere_up(&e)) {
		print_message("# no veth pair could be made here (ip link add ... type veth)\n");
		skip();
	}
	test_iad(&http_d);
	iad_log_open(&http_d);
	http_d.up = true;
	two_uids_pots();
	snprintf(addr, sizeof(addr), "%s:%u", e.near_ip, free_port());
	snprintf(http_d.cfg.listen, sizeof(http_d.cfg.listen), "%s", addr);
	assert_int_equal(iad_exporter_start(&http_d), 0);
	http_stop = 0;
	assert_int_equal(pthread_create(&http_th, NULL, http_loop, &http_d), 0);

	ctl_path(ctl, sizeof(ctl));
	snprintf(out, sizeof(out), "/tmp/iad-else-XXXXXX");
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	snprintf(sh, sizeof(sh), "%s -j alerts --daemon %s >%s 2>&1", ctl, addr, out);
	assert_int_equal(elsewhere_run(&e, sh), 0);
	slurp(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "[]"));
	assert_null(strstr(buf, "\"object\""));
	http_d.cfg.remote_all = true;
	assert_int_equal(elsewhere_run(&e, sh), 0);
	slurp(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"object\":1000,"));
	assert_non_null(strstr(buf, "\"object\":2000,"));
	assert_non_null(strstr(buf, "\"comm\":\"theirs\""));
	/* Here, on the same address, the kernel names the client. */
	assert_int_equal(shown_to(addr, 1000, 1000, (gid_t)-1), 1);
	unlink(out);
	http_down();
	elsewhere_down(&e);
	iad_hseries_free(&http_d);
	iad_objs_free(&http_d.objs);
}

/* What a squatter on the daemon's port answers, per case of the test below. */
enum squat_answer { SQ_ERROR, SQ_NOT_HTTP, SQ_HUGE, SQ_DRIP };

/* A process answering one connection on @fd as @how says (killed by the test). */
static pid_t squatter(int fd, enum squat_answer how)
{
	static const char err[] = "HTTP/1.1 503 Service Unavailable\r\n\r\n"
				  "down\x1b]0;owned\x07\x1b[2J";
	char buf[65536];
	size_t i, total;
	pid_t pid = fork();
	int c;

	assert_true(pid >= 0);
	if (pid)
		return pid;
	/* The listening socket is non-blocking: wait for the client first. */
	if (poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 30000) != 1)
		_exit(1);
	c = accept4(fd, NULL, NULL, 0);
	if (c < 0)
		_exit(1);
	if (read(c, buf, sizeof(buf)) <= 0)
		_exit(1);
	switch (how) {
	case SQ_ERROR:	/* an error page with escape sequences, 300 bytes of them */
		if (write(c, err, sizeof(err) - 1) < 0)
			_exit(1);
		memset(buf, 0x1b, 300);
		if (write(c, buf, 300) < 0)
			_exit(1);
		break;
	case SQ_NOT_HTTP:
		if (write(c, "\x1b[31mSSH-2.0-x\r\n", 16) < 0)
			_exit(1);
		break;
	case SQ_HUGE:	/* a 200 whose body does not end */
		if (write(c, "HTTP/1.1 200 OK\r\n\r\n", 19) < 0)
			_exit(1);
		memset(buf, 'x', sizeof(buf));
		for (total = 0; total < (80u << 20); total += sizeof(buf))
			if (write(c, buf, sizeof(buf)) < 0)
				_exit(0);
		break;
	case SQ_DRIP:	/* a byte every 100 ms, for a minute */
		for (i = 0; i < 600; i++) {
			if (write(c, "H", 1) < 0)
				_exit(0);
			poll(NULL, 0, 100);
		}
		break;
	}
	close(c);
	_exit(0);
}

/*
 * `iommu-accountctl ARGS --daemon @daemon` (NULL: ARGS name it): its exit
 * status, stdout and stderr.
 */
static int ctl_run_at(const char *args, const char *daemon, char *out, size_t olen, char *err,
		      size_t elen)
{
	char ctl[4096], cmd[8192], dir[] = "/tmp/iad-ctl-XXXXXX", ef[64];
	ssize_t n;
	FILE *p;
	int st;

	ctl_path(ctl, sizeof(ctl));
	assert_non_null(mkdtemp(dir));
	snprintf(ef, sizeof(ef), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s %s%s%s 2>%s", ctl, args, daemon ? " --daemon " : "",
		 daemon ? daemon : "", ef);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = (ssize_t)fread(out, 1, olen - 1, p);
	out[n] = 0;
	st = pclose(p);
	slurp(ef, err, elen);
	unlink(ef);
	rmdir(dir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `iommu-accountctl ARGS` against 127.0.0.1:@port. */
static int ctl_run(const char *args, uint16_t port, char *out, size_t olen, char *err, size_t elen)
{
	char daemon[32];

	snprintf(daemon, sizeof(daemon), "127.0.0.1:%u", port);
	return ctl_run_at(args, daemon, out, olen, err, elen);
}

/*
 * Issue 70 item 6: the daemon's words follow what its model can say. A pot
 * sampled every second (the default window, 60 s): "too early" under four
 * windows of history, then flat: "not filling"; a leak of 4 KiB/s that
 * starts at 10 min is "rising" (its floor rises, not yet told from a
 * cycle's) before it is "filling" (the forecast the daemon stands by and
 * publishes), and that before the kernel would refuse it.
 */
static void trend_words_follow_the_floor(void **state)
{
	struct iad_thr thr = thr80();
	struct iad_obj ob = { .has_limit = true, .limit = 8u << 20 };
	enum iad_trend seen[8];
	unsigned int nseen = 0;
	double t;

	(void)state;
	for (t = 0; t < 3600 && ob.used < ob.limit; t += 1) {
		ob.used = (1u << 20) + (t > 600 ? (uint64_t)((t - 600) * 4096) : 0);
		iad_obj_sample(&ob, t, &thr);
		if (t == 30)
			assert_string_equal(iad_trend_name(ob.trend), "too_early");
		if (t == 300)
			assert_string_equal(iad_trend_name(ob.trend), "not_filling");
		if (!nseen || seen[nseen - 1] != ob.trend) {
			assert_true(nseen < 8);
			seen[nseen++] = ob.trend;
		}
		if (ob.trend == IAD_TREND_FILLING)
			break;
	}
	/* In order, each once: early, flat, rising, filling; the pot not yet full. */
	assert_int_equal(nseen, 4);
	assert_int_equal(seen[0], IAD_TREND_EARLY);
	assert_int_equal(seen[1], IAD_TREND_FLAT);
	assert_int_equal(seen[2], IAD_TREND_RISING);
	assert_int_equal(seen[3], IAD_TREND_FILLING);
	assert_true(ob.used < ob.limit && ob.has_eta && ob.trusted);
	print_message("# trend: rising, then filling at %.0f s (%.0f s after the leak began), "
		      "full in %.0f s\n", t, t - 600, ob.eta_s);
	free(ob.hist);
	free(ob.floor);
	free(ob.reason);
}

/* What iad_log_alert says of @a (stderr, the test's log), in @buf. */
static void logged(struct iad *d, const struct iad_alert *a, char *buf, size_t cap)
{
	int p[2], saved;
	ssize_t n;

	fflush(stderr);
	assert_int_equal(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	dup2(p[1], STDERR_FILENO);
	iad_log_alert(d, a);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, cap - 1);
	buf[n > 0 ? n : 0] = 0;
	close(p[0]);
}

/*
 * The same words where they are read: the journal's sentence and
 * iommu-accountctl alerts's FULL IN (and /alerts' trend), for a forecast
 * stood by, a rise not yet told from a cycle's, too early, flat, and at a
 * FAILURE none.
 */
static void trend_words_in_the_log_and_in_alerts(void **state)
{
	static const struct { enum iad_trend trend; enum iad_state st; const char *log, *full; }
	cases[] = {
		{ IAD_TREND_FILLING, IAD_WARNING,
		  "; used 4096 of 8192, floor rising 10 units/s, full in 3 min; ", "3 min" },
		{ IAD_TREND_RISING, IAD_WARNING,
		  "; used 4096 of 8192, floor rising 10 units/s, too early to tell; ", "rising" },
		{ IAD_TREND_EARLY, IAD_WARNING, "; used 4096 of 8192, too early to tell; ",
		  "too early" },
		{ IAD_TREND_FLAT, IAD_WARNING, "; used 4096 of 8192, not filling; ", "not filling" },
		{ IAD_TREND_FILLING, IAD_FAILURE, "; used 4096 of 8192; ", "refused" },
	};
	char buf[4096], out[4096], err[4096], want[160];
	struct iad_alert a = { .prev = IAD_OK, .reason = "r" };
	struct iad_obj *ob;
	unsigned int i;
	uint16_t port;

	(void)state;
	port = http_up();
	http_d.up = true;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ob = pot_1000(&http_d, cases[i].st);
		ob->rate = 10;
		ob->eta_s = 180;
		ob->has_eta = ob->trusted = cases[i].trend == IAD_TREND_FILLING;
		ob->trend = cases[i].trend;
		a.obj = ob;
		a.state = cases[i].st;
		logged(&http_d, &a, buf, sizeof(buf));
		if (!strstr(buf, cases[i].log))
			fail_msg("case %u: '%s' not in: %s", i, cases[i].log, buf);
		if (cases[i].st == IAD_FAILURE)
			assert_null(strstr(buf, "full in"));
		assert_int_equal(ctl_run("alerts", port, out, sizeof(out), err, sizeof(err)), 0);
		snprintf(want, sizeof(want), " %s  -\n", cases[i].full);
		if (!strstr(out, want))
			fail_msg("case %u: FULL IN '%s' not in: %s", i, cases[i].full, out);
		assert_int_equal(ctl_run("-j alerts", port, out, sizeof(out), err, sizeof(err)), 0);
		snprintf(want, sizeof(want), "\"trend\":\"%s\"", iad_trend_name(cases[i].trend));
		assert_non_null(strstr(out, want));
	}
	http_down();
	iad_objs_free(&http_d.objs);
}


/*
 * Whoever answers at the daemon's address may not be the daemon (issue 68:
 * a process took the port first). `iommu-accountctl` reads its answer with
 * a bound: an error page's bytes are shown escaped (no ESC or BEL reaches
 * the terminal) and cut visibly, with how many were left out; a banner that
 * is not HTTP likewise; a body past 64 MiB is not read further; a peer
 * dripping a byte every 100 ms is given up on after 10 s. probe exits 1
 * (not live), alerts and top 6 (ctl.md: any other failure).
 */
static void ctl_reads_a_squatter_bounded_and_escaped(void **state)
{
	char out[4096], err[4096];
	struct timespec t0, t1;
	uint16_t port;
	int fd, st;
	pid_t pid;

	(void)state;
	port = squat(&fd);

	pid = squatter(fd, SQ_ERROR);
	assert_int_equal(ctl_run("probe live", port, out, sizeof(out), err, sizeof(err)), 1);
	assert_null(strchr(err, 0x1b));
	assert_null(strchr(err, 0x07));
	assert_non_null(strstr(err, "down\\x1b]0;owned\\x07\\x1b[2J\\x1b\\x1b"));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	pid = squatter(fd, SQ_ERROR);
	assert_int_equal(ctl_run("alerts", port, out, sizeof(out), err, sizeof(err)), 6);
	assert_null(strchr(err, 0x1b));
	assert_non_null(strstr(err, "answered 503: \"down\\x1b]0;owned\\x07\\x1b[2J"));
	/* 200 of its 318 bytes shown: the rest counted. */
	assert_non_null(strstr(err, "\" (and 118 bytes more)\n"));
	assert_int_equal(waitpid(pid, &st, 0), pid);

	pid = squatter(fd, SQ_NOT_HTTP);
	assert_int_equal(ctl_run("-j alerts", port, out, sizeof(out), err, sizeof(err)), 6);
	assert_null(strchr(err, 0x1b));
	assert_non_null(strstr(err, "answered what is not HTTP: \"\\x1b[31mSSH-2.0-x\\r\\n\"\n"));
	assert_int_equal(out[0], 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);

	pid = squatter(fd, SQ_HUGE);
	assert_int_equal(ctl_run("alerts", port, out, sizeof(out), err, sizeof(err)), 6);
	assert_non_null(strstr(err, "an answer larger than 64 MiB: not read further"));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);

	pid = squatter(fd, SQ_DRIP);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ctl_run("top --count 1", port, out, sizeof(out), err, sizeof(err)), 6);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* top says the daemon does not answer (its last frame: status 6); why on stderr. */
	assert_non_null(strstr(out, "does not answer"));
	assert_non_null(strstr(err, "no whole answer within 10 s"));
	assert_true(t1.tv_sec - t0.tv_sec < 30);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(fd);
}

/*
 * iommu-accountctl reads a server the daemon could be, as the kernel names
 * it (issue 68): a listener of uid 1000 on a loopback port (a squatter) is
 * refused before a byte is sent, said with its uid; a Unix socket of uid
 * 1000 in a directory root owns likewise; in a directory uid 1000 owns (as
 * the DaemonSet's daemon owns its socket's), read. probe exits 1, alerts 6.
 */
static void ctl_refuses_a_server_of_another_uid(void **state)
{
	char out[4096], err[4096], dir[] = "/tmp/iad-sq-XXXXXX", sub[64], args[256];
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	uint16_t port;
	pid_t pid;
	int fd, st;

	(void)state;
	if (geteuid())
		skip();
	/* The listener and the process answering on it are uid 1000's. */
	assert_int_equal(seteuid(1000), 0);
	port = squat(&fd);
	pid = squatter(fd, SQ_ERROR);
	assert_int_equal(seteuid(0), 0);
	assert_int_equal(ctl_run("probe live", port, out, sizeof(out), err, sizeof(err)), 1);
	assert_non_null(strstr(err, "is served by uid 1000"));
	assert_null(strstr(err, "owned"));
	assert_int_equal(ctl_run("alerts", port, out, sizeof(out), err, sizeof(err)), 6);
	assert_non_null(strstr(err, "is served by uid 1000"));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(fd);

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 01777), 0);
	snprintf(sub, sizeof(sub), "%s/own", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chown(sub, 1000, 1000), 0);
	for (int own = 0; own < 2; own++) {
		snprintf(su.sun_path, sizeof(su.sun_path), "%s/exporter.sock", own ? sub : dir);
		assert_int_equal(seteuid(1000), 0);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		assert_true(fd >= 0);
		assert_int_equal(bind(fd, (struct sockaddr *)&su, sizeof(su)), 0);
		assert_int_equal(listen(fd, 8), 0);
		pid = squatter(fd, SQ_ERROR);
		assert_int_equal(seteuid(0), 0);
		snprintf(args, sizeof(args), "probe live --daemon unix:%s", su.sun_path);
		assert_int_equal(ctl_run_at(args, NULL, out, sizeof(out), err, sizeof(err)), 1);
		if (own) {	/* read: probe shows the page's line */
			assert_non_null(strstr(err, "down\\x1b]0;owned"));
		} else {
			assert_non_null(strstr(err, "is served by uid 1000"));
			assert_null(strstr(err, "owned"));
		}
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		close(fd);
		unlink(su.sun_path);
	}
	rmdir(sub);
	rmdir(dir);
}

/*
 * Persistent connections and pipelining: three requests in one write on
 * one HTTP/1.1 connection (GET, HEAD, GET of /alerts with a query and
 * Connection: close) get three answers in order, each as long as its
 * Content-Length says, HEAD's without a body but with GET's length; the
 * connection is closed after the third. HTTP/1.0 with keep-alive stays
 * open for a second request; HTTP/1.0 without it is closed.
 */
static void exporter_http_keeps_connections_and_answers_pipelined_requests(void **state)
{
	static const char three[] =
		"GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"
		"HEAD /metrics HTTP/1.1\r\nHost: a\r\n\r\n"
		"GET /alerts?since=0 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
	static const char ka10[] = "GET /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
	static char buf[1 << 20];
	const char *r1, *r2, *r3;
	long l1, l2, l3;
	size_t got;
	uint16_t port;
	int fd, n;

	(void)state;
	port = http_up();
	got = http_exchange(port, three, sizeof(three) - 1, buf, sizeof(buf));
	r1 = buf;
	assert_int_equal(strncmp(r1, "HTTP/1.1 200 OK\r\n", 17), 0);
	l1 = http_header_num(r1, "Content-Length");
	assert_true(l1 > 0);
	assert_false(http_head_has(r1, "Connection: close"));
	r2 = strstr(r1, "\r\n\r\n") + 4 + l1;
	assert_int_equal(strncmp(r2, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(r1 + 4 + (strstr(r1, "\r\n\r\n") - r1), "iommu_account_up "));
	l2 = http_header_num(r2, "Content-Length");
	assert_int_equal(l2, l1);
	r3 = strstr(r2, "\r\n\r\n") + 4;	/* HEAD: no body */
	assert_int_equal(strncmp(r3, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_true(http_head_has(r3, "Content-Type: application/json"));
	assert_true(http_head_has(r3, "Connection: close\r\n"));
	l3 = http_header_num(r3, "Content-Length");
	assert_true(l3 > 0);
	assert_int_equal((size_t)(strstr(r3, "\r\n\r\n") + 4 + l3 - buf), got);

	/* HTTP/1.0 with keep-alive: two answers on one connection. */
	fd = http_connect(port);
	assert_true(fd >= 0);
	for (n = 0; n < 2; n++) {
		size_t want = 0, have = 0;
		char *e;

		assert_int_equal(write(fd, ka10, sizeof(ka10) - 1), (ssize_t)sizeof(ka10) - 1);
		for (;;) {
			ssize_t k = read(fd, buf + have, sizeof(buf) - 1 - have);

			assert_true(k > 0);
			have += (size_t)k;
			buf[have] = 0;
			e = strstr(buf, "\r\n\r\n");
			if (e && !want)
				want = (size_t)(e + 4 - buf) + (size_t)http_header_num(buf, "Content-Length");
			if (want && have >= want)
				break;
		}
		assert_int_equal(have, want);
		assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
		assert_true(http_head_has(buf, "Connection: keep-alive\r\n"));
	}
	close(fd);
	/* HTTP/1.0 without keep-alive: closed after its answer. */
	http_exchange(port, "GET /metrics HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_true(http_head_has(buf, "Connection: close\r\n"));
	http_down();
}

/*
 * The probes: /healthz answers 200 while the daemon serves; /readyz 503 with
 * the daemon's reason while the module does not answer (a node outside the
 * supported range is not-ready, not a crash loop), 200 once it does.
 */
static void exporter_probes_say_live_and_ready_from_the_source_state(void **state)
{
	static char buf[65536];
	uint16_t port;

	(void)state;
	port = http_up();
	http_d.up = false;
	snprintf(http_d.down_why, sizeof(http_d.down_why),
		 "iommu_account is not loaded: no module for 9.9.9-amd64\n(run: modprobe iommu_account)");
	http_exchange(port, "GET /healthz HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(buf, "\r\n\r\nok\n"));
	http_exchange(port, "GET /readyz HTTP/1.0\r\n\r\n", 24, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 503 Service Unavailable\r\n", 34), 0);
	/* One line: the reason's own line break is a space. */
	assert_non_null(strstr(buf, "\r\n\r\nnot ready: iommu_account is not loaded: no module for "
				    "9.9.9-amd64 (run: modprobe iommu_account)\n"));
	http_d.up = true;
	snprintf(http_d.st.module_version, sizeof(http_d.st.module_version), "0.2.0");
	snprintf(http_d.st.kernel_release, sizeof(http_d.st.kernel_release), "6.12.1-amd64");
	http_exchange(port, "GET /readyz HTTP/1.0\r\n\r\n", 24, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(buf, "\r\n\r\nready: iommu_account 0.2.0 on 6.12.1-amd64\n"));
	http_d.up = false;
	http_down();
}

/*
 * What a scraper never sends gets its status and a closed connection, and
 * the server goes on serving: each request below on a connection of its
 * own, then a scrape.
 */
static void exporter_http_refuses_bad_requests_with_their_status(void **state)
{
	static const struct {
		const char *req, *status;
	} t[] = {
		{ "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "405" },
		{ "DELETE /metrics HTTP/1.1\r\n\r\n", "405" },
		{ "get /metrics HTTP/1.1\r\n\r\n", "405" },
		{ "GET /metrics HTTP/2.0\r\n\r\n", "505" },
		{ "GET /metrics HTTPS/1.1\r\n\r\n", "400" },
		{ "GARBAGE\r\n\r\n", "400" },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", "400" },
		{ "GET metrics HTTP/1.1\r\n\r\n", "400" },
		{ "GET /metrics HTTP/1.1\r\nHost : a\r\n\r\n", "400" },
		{ "GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", "400" },
		{ "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", "400" },
		{ "GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", "413" },
		{ "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "413" },
		{ "GET /nothing HTTP/1.1\r\n\r\n", "404" },
		{ "GET http://127.0.0.1/metrics HTTP/1.1\r\nConnection: close\r\n\r\n", "200" },
		/* No path: the root (404). This crashed the daemon until exporter_http_fuzzed found it. */
		{ "GET http://127.0.0.1 HTTP/1.1\r\nConnection: close\r\n\r\n", "404" },
		{ "GET http://h?x=1 HTTP/1.1\r\nConnection: close\r\n\r\n", "404" },
		{ "\r\n\r\nGET /metrics?x=1 HTTP/1.1\nConnection: close\n\n", "200" },
		{ "\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n", "200" },
	};
	static char buf[1 << 20], big[10000];
	char want[32], got[16];
	uint16_t port;
	size_t i;

	(void)state;
	port = http_up();
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		http_exchange(port, t[i].req, strlen(t[i].req), buf, sizeof(buf));
		snprintf(want, sizeof(want), "HTTP/1.1 %s ", t[i].status);
		snprintf(got, sizeof(got), "%.13s", buf);
		assert_string_equal(got, want);
		if (strcmp(t[i].status, "200"))
			assert_true(http_head_has(buf, "Connection: close\r\n"));
		if (!strcmp(t[i].status, "405"))
			assert_true(http_head_has(buf, "Allow: GET, HEAD\r\n"));
	}
	/* A request head over 8 KiB: 431. */
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	memset(big + 26, 'a', sizeof(big) - 26);
	http_exchange(port, big, sizeof(big), buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 431 ", 13), 0);
	/* And the server still serves. */
	http_exchange(port, "GET /metrics HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(buf, "iommu_account_up "));
	http_down();
}

/*
 * Request smuggling: a NUL, a bare CR or another control byte inside a
 * header line would hide what follows it on the line (a Content-Length
 * whose body is a second request). Each head below is sent with a
 * complete second request after it in one write: one answer, 400, and the
 * connection closed (the second never answered); the same second request
 * alone is answered 200.
 */
static void exporter_http_answers_a_head_with_nul_or_bare_cr_once_with_400(void **state)
{
	static const char second[] = "GET /alerts HTTP/1.1\r\nConnection: close\r\n\r\n";
	static const char *const heads[] = {
		"GET /metrics HTTP/1.1\r\nX: a\0\r\nContent-Length: 43\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nX: a\rContent-Length: 43\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nX: a\r\r\nContent-Length: 43\r\n\r\n",
		"GET /metrics HTTP/1.1\rContent-Length: 43\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nX: a\x01" "b\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nX: a\x7f\r\n\r\n",
		"GET /met\0rics HTTP/1.1\r\n\r\n",
	};
	/* Each head's length: up to its end, embedded NULs counted. */
	static const size_t lens[] = { 52, 50, 52, 44, 33, 32, 26 };
	static char buf[1 << 20];
	char req[256];
	size_t i, n;
	uint16_t port;

	(void)state;
	port = http_up();
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		n = lens[i];
		assert_int_equal(memcmp(heads[i] + n - 4, "\r\n\r\n", 4), 0);
		memcpy(req, heads[i], n);
		memcpy(req + n, second, sizeof(second) - 1);
		http_exchange(port, req, n + sizeof(second) - 1, buf, sizeof(buf));
		assert_int_equal(strncmp(buf, "HTTP/1.1 400 ", 13), 0);
		assert_true(http_head_has(buf, "Connection: close\r\n"));
		assert_int_equal(count_of(buf, "HTTP/1.1 "), 1);
	}
	http_exchange(port, second, sizeof(second) - 1, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	http_down();
}

/*
 * Clients that go away: 50 that reset the connection right after their
 * request, and one that pipelines 2,000 requests, never reads, and resets
 * (the server's writes then fail). The server serves the next scrape, and
 * then holds no connection.
 */
static void exporter_http_survives_clients_that_vanish(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
	static char buf[1 << 20], many[2000 * (sizeof(req) - 1)];
	struct linger lg = { 1, 0 };
	uint16_t port;
	size_t off;
	int i, fd;

	(void)state;
	port = http_up();
	for (i = 0; i < 50; i++) {
		fd = http_connect(port);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	for (i = 0; i < 2000; i++)
		memcpy(many + i * (sizeof(req) - 1), req, sizeof(req) - 1);
	fd = http_connect(port);
	assert_true(fd >= 0);
	for (off = 0; off < sizeof(many);) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t w;

		/* The server stops reading once the answers back up: give up then. */
		if (poll(&p, 1, 1000) != 1)
			break;
		w = write(fd, many + off, sizeof(many) - off);
		assert_true(w > 0);
		off += (size_t)w;
	}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	http_exchange(port, "GET /metrics HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	/* The loop, run here now: every connection closed within 5 s. */
	http_stop = 1;
	pthread_join(http_th, NULL);
	for (i = 0; i < 50 && iad_exporter_wait(&http_d, 1) < 1; i++) {
		struct pollfd p = { .fd = iad_exporter_fd(&http_d), .events = POLLIN };

		poll(&p, 1, 100);
		iad_exporter_run(&http_d);
	}
	assert_true(iad_exporter_wait(&http_d, 1) == 1);
	iad_exporter_stop(&http_d);
}

/*
 * The exec sink forks hooks: until a hook execs, it holds a copy of every
 * fd, the exporter's connections too. A connection the server closes then
 * (here: a half request past its 2-s deadline) must leave the server's
 * epoll set, or the peer's next bytes raise events for a record already
 * freed (AddressSanitizer, in `make check`'s ASan run, reports the read).
 * The server goes on serving, and the peer of the closed connection is
 * not answered.
 */
static void exporter_http_closes_connections_a_forked_hook_still_holds(void **state)
{
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: a\r\n";
	static char buf[1 << 20];
	struct timeval tv = { 0, 300000 };
	int fd, i, pipefd[2];
	uint16_t port;
	pid_t child;
	char c;

	(void)state;
	port = http_up();
	fd = http_connect(port);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, half, sizeof(half) - 1), (ssize_t)sizeof(half) - 1);
	/* Until the server has accepted it (the loop thread), then fork. */
	for (i = 0; i < 100 && iad_exporter_wait(&http_d, 1) == 1; i++)
		poll(NULL, 0, 10);
	assert_int_equal(pipe(pipefd), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {		/* the hook before its exec: holds every fd */
		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pipefd[0]);
	/* The server closes it at its deadline: the loop says none open. */
	for (i = 0; i < 500 && iad_exporter_wait(&http_d, 1) < 1; i++)
		poll(NULL, 0, 10);
	assert_true(iad_exporter_wait(&http_d, 1) == 1);
	/* The peer, still connected through the child's copy, sends more. */
	for (i = 0; i < 20; i++)
		assert_int_equal(write(fd, "X-A: b\r\n", 8), 8);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_true(read(fd, buf, sizeof(buf)) < 0);	/* no answer on it */
	http_exchange(port, "GET /metrics HTTP/1.0\r\n\r\n", 25, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	close(fd);
	http_down();
}

/* --- systemd's protocols (sd.c) ---------------------------------------------------- */

/* A datagram socket bound at a fresh path under /tmp (its path in @path). */
static int dgram_at(char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/ia-sd-XXXXXX";
	int fd, one = 1;

	assert_non_null(mkdtemp(dir));
	snprintf(path, len, "%s/socket", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	return fd;
}

static void dgram_gone(int fd, const char *path)
{
	char dir[108];

	close(fd);
	unlink(path);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
}

/*
 * The journal's native protocol, as journald parses it: "NAME=value\n" per
 * field; a value with a newline as "NAME\n", its length in 64-bit little
 * endian, the value, "\n"; an entry too large for a datagram as a sealed
 * memfd passed with SCM_RIGHTS, holding the same bytes.
 */
static void journal_entries_in_the_native_protocol(void **state)
{
	static char big[1 << 20], rx[1 << 16];
	char path[108], *f[3], *huge;
	const char *want_head = "MESSAGE=one line\nHOLDERS\n";
	/* journald takes the sender's credentials too (SO_PASSCRED), as here. */
	char cbuf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	struct iovec iov = { rx, sizeof(rx) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	uint64_t le;
	ssize_t n;
	int fd, mfd;
	size_t off;

	(void)state;
	fd = dgram_at(path, sizeof(path));
	iad_journal_socket = path;
	f[0] = "MESSAGE=one line";
	f[1] = "HOLDERS=a[1]\nb[2]";
	f[2] = "SEQ=7";
	assert_int_equal(iad_journal_send(f, 3), 0);
	n = recv(fd, rx, sizeof(rx), 0);
	off = strlen(want_head);
	assert_int_equal(n, off + 8 + 9 + 1 + 6);
	assert_memory_equal(rx, want_head, off);
	memcpy(&le, rx + off, 8);
	assert_int_equal(le64toh(le), 9);
	assert_memory_equal(rx + off + 8, "a[1]\nb[2]\nSEQ=7\n", 16);

	/* 1 MiB: more than one datagram carries; a memfd then. */
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "MESSAGE=", 8);
	huge = big;
	assert_int_equal(iad_journal_send(&huge, 1), 0);
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	n = recvmsg(fd, &mh, 0);
	assert_int_equal(n, 0);
	for (c = CMSG_FIRSTHDR(&mh); c && c->cmsg_type != SCM_RIGHTS; c = CMSG_NXTHDR(&mh, c))
		;
	assert_non_null(c);
	memcpy(&mfd, CMSG_DATA(c), sizeof(int));
	assert_int_equal(fcntl(mfd, F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW),
			 F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW);
	assert_int_equal(lseek(mfd, 0, SEEK_END), (off_t)sizeof(big));
	assert_int_equal(pread(mfd, rx, 16, sizeof(big) - 16), 16);
	assert_memory_equal(rx, "xxxxxxxxxxxxxxx\n", 16);
	close(mfd);
	dgram_gone(fd, path);
	/* No journal there: an error, not a crash or a hang. */
	assert_true(iad_journal_send(f, 3) < 0);
	iad_journal_socket = "/run/systemd/journal/socket";
}

/*
 * sd_notify's protocol: one datagram to $NOTIFY_SOCKET (a path, or "@name"
 * in the abstract namespace); nothing without it. The watchdog interval is
 * $WATCHDOG_USEC when $WATCHDOG_PID is absent or this process.
 */
static void notify_and_watchdog_as_systemd_sets_them(void **state)
{
	char path[108], rx[256], pid[16];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t us = 0;
	ssize_t n;
	int fd;

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(iad_notify("READY=1"), 0);
	fd = dgram_at(path, sizeof(path));
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(iad_notify("WATCHDOG=1\nSTATUS=%s, %d object(s)", "source up", 3), 1);
	n = recv(fd, rx, sizeof(rx) - 1, 0);
	assert_true(n > 0);
	rx[n] = 0;
	assert_string_equal(rx, "WATCHDOG=1\nSTATUS=source up, 3 object(s)");
	dgram_gone(fd, path);
	/* The abstract namespace. */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "ia-notify-%d", (int)getpid());
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1)), 0);
	snprintf(path, sizeof(path), "@%s", sa.sun_path + 1);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(iad_notify("READY=1"), 1);
	n = recv(fd, rx, sizeof(rx) - 1, 0);
	assert_int_equal(n, 7);
	close(fd);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_true(iad_notify("READY=1") < 0);
	unsetenv("NOTIFY_SOCKET");

	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_false(iad_watchdog_usec(&us));
	setenv("WATCHDOG_USEC", "30000000", 1);
	assert_true(iad_watchdog_usec(&us));
	assert_int_equal(us, 30000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_true(iad_watchdog_usec(&us));
	setenv("WATCHDOG_PID", "1", 1);
	assert_false(iad_watchdog_usec(&us));
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "30s", 1);
	assert_false(iad_watchdog_usec(&us));
	unsetenv("WATCHDOG_USEC");
}

/*
 * What alerts, top and the log print: a rate in its kind's unit per second
 * and a time to full, never "2.95e+06/s" or "exhausted in none".
 */
static void rates_and_times_in_human_units(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal("2.8 MiB/s", ia_rate_str("bytes", 2.8 * 1048576, b, sizeof(b)));
	assert_string_equal("512 B/s", ia_rate_str("bytes", 512, b, sizeof(b)));
	assert_string_equal("-1.5 KiB/s", ia_rate_str("bytes", -1536, b, sizeof(b)));
	assert_string_equal("0 B/s", ia_rate_str("bytes", 0, b, sizeof(b)));
	assert_string_equal("33 entries/s", ia_rate_str("entries", 33.2, b, sizeof(b)));
	assert_string_equal("0.5 descriptors/s", ia_rate_str("descriptors", 0.5, b, sizeof(b)));
	assert_string_equal("0 entries/s", ia_rate_str("entries", 0, b, sizeof(b)));
	assert_string_equal("-", ia_rate_str("entries", NAN, b, sizeof(b)));
	assert_string_equal("45 s", ia_duration_str(45, b, sizeof(b)));
	assert_string_equal("3 min", ia_duration_str(180, b, sizeof(b)));
	assert_string_equal("2.5 h", ia_duration_str(9000, b, sizeof(b)));
	assert_string_equal("3.0 days", ia_duration_str(3 * 86400, b, sizeof(b)));
	assert_string_equal("full in 3 min", ia_fill_str(180, b, sizeof(b)));
	assert_string_equal("not filling", ia_fill_str(-1, b, sizeof(b)));
	assert_string_equal("not filling", ia_fill_str(NAN, b, sizeof(b)));
}

struct hist_seen {
	unsigned int n;
	uint32_t first, last;
	bool ordered;
	double prev_t;
};

static int hist_seen_cb(const struct ia_hist_rec *r, void *arg)
{
	struct hist_seen *h = arg;

	if (!h->n)
		h->first = r->id;
	else if (r->id != h->last + 1 || r->t < h->prev_t)
		h->ordered = false;
	h->last = r->id;
	h->prev_t = r->t;
	h->n++;
	return 0;
}

/*
 * The history ring: 250 samples appended in chunks of 7 into room for 100
 * keep the newest 100, read oldest first; the file never outgrows header +
 * 100 records; reopened at the same size it keeps them, at another size it
 * starts anew; a file that is not a history is refused with the reason.
 */
static void history_ring_bounded_oldest_first(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[64], err[256];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	struct ia_hist_rec r[7];
	struct hist_seen seen = { .ordered = true };
	struct ia_hist_info info;
	struct ia_hist h;
	struct stat st;
	uint32_t id = 0;
	mode_t old_mask;
	FILE *f;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	/* Made 0640 (its group reads it) under the unit's umask, and kept so. */
	old_mask = umask(077);
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	umask(old_mask);
	assert_int_equal(0, stat(path, &st));
	assert_int_equal(0640, st.st_mode & 07777);
	ia_hist_set_kind(&h, 1, "uid-pot", "bytes");
	while (id < 250) {
		int n = 250 - id < 7 ? (int)(250 - id) : 7;

		for (i = 0; i < n; i++, id++)
			r[i] = (struct ia_hist_rec){ .t = 1000.0 + id, .kind = 1, .id = id,
						     .used = id * 4096ULL };
		assert_int_equal(0, ia_hist_append(&h, r, (size_t)n));
		assert_int_equal(0, stat(path, &st));
		assert_true((uint64_t)st.st_size <= max);
	}
	ia_hist_close(&h);
	assert_int_equal(0, ia_hist_read(path, &info, hist_seen_cb, &seen, err, sizeof(err)));
	assert_int_equal(100, seen.n);
	assert_int_equal(150, seen.first);
	assert_int_equal(249, seen.last);
	assert_true(seen.ordered);
	assert_int_equal(250, info.written);
	assert_string_equal("uid-pot", info.kinds[1]);
	assert_string_equal("bytes", info.units[1]);
	assert_true(info.keep_s == 3600);
	/* The same size: kept (an older version's 0600 made 0640). Another: started anew. */
	assert_int_equal(0, chmod(path, 0600));
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_false(h.restarted);
	assert_int_equal(0, stat(path, &st));
	assert_int_equal(0640, st.st_mode & 07777);
	ia_hist_close(&h);
	assert_int_equal(0, ia_hist_open(&h, path, max * 2, 3600, err, sizeof(err)));
	assert_true(h.restarted);
	ia_hist_close(&h);
	assert_int_equal(0, ia_hist_read(path, &info, NULL, NULL, err, sizeof(err)));
	assert_int_equal(0, info.count);
	/* Not a history: refused, saying so. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a history file at all, but long enough to hold a header? no.\n", f);
	fclose(f);
	assert_int_equal(-EINVAL, ia_hist_read(path, &info, NULL, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "not an iommu-accountd history file"));
	unlink(path);
	rmdir(dir);
}

/* Every record of a history file, in order (room for 64). */
struct hist_all {
	unsigned int n;
	struct ia_hist_rec v[64];
};

static int hist_all_cb(const struct ia_hist_rec *r, void *arg)
{
	struct hist_all *a = arg;

	if (a->n < 64)
		a->v[a->n++] = *r;
	return 0;
}

/*
 * A FAILURE raised from an event is written at once: the object's sample
 * at the kernel's time, then its flight record's holders (pid, what each
 * held, its cgroup id); a container's, with none, its mapper holding the
 * container. A sample a poll wrote after the kernel's time keeps the
 * object's samples in order. A format 2 file (the previous release's) is
 * read, and taken over by the daemon without losing a sample.
 */
static void history_failure_sample_then_holders(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[64], err[256], hdr[1024];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	static struct iad d;
	struct iad_who mapper = { .present = true, .pid = 4242, .uid = 107, .cgroup_id = 99 };
	struct hist_all all = { 0 };
	struct ia_hist_info info;
	struct iad_obj *pot, *ct;
	uint32_t crc;
	int fd;

	(void)state;
	test_iad(&d);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	assert_int_equal(0, ia_hist_open(&d.hist, path, max, 3600, err, sizeof(err)));
	ia_hist_set_kind(&d.hist, 0, "vfio-container", "entries");
	ia_hist_set_kind(&d.hist, 1, "uid-pot", "bytes");
	pot = iad_obj_get(&d.objs, 1, 1000);
	assert_non_null(pot);
	pot->uid = 1000;
	pot->used = 8384512;
	pot->has_limit = true;
	pot->limit = 8388608;
	pot->state = IAD_FAILURE;
	pot->nholders = 2;
	pot->holders[0] = (struct iad_holder){ { true, 311, 1000, "fio", 5001 }, 6291456 };
	pot->holders[1] = (struct iad_holder){ { true, 312, 1000, "fio", 5002 }, 2093056 };
	iad_history_failure(&d, pot, NULL, 5000.25);
	/* Born, refused and gone between two polls: no holders of its own. */
	ct = iad_obj_get(&d.objs, 0, 7);
	assert_non_null(ct);
	ct->uid = 107;
	ct->used = 12;
	ct->has_limit = true;
	ct->limit = 12;
	ct->state = IAD_FAILURE;
	iad_history_failure(&d, ct, &mapper, 5001.5);
	/* A poll's sample at 6000, then a refusal the kernel timed before it. */
	pot->hist_t = 6000;
	iad_history_failure(&d, pot, NULL, 5999);
	ia_hist_close(&d.hist);

	assert_int_equal(0, ia_hist_read(path, &info, hist_all_cb, &all, err, sizeof(err)));
	assert_int_equal(8, all.n);
	assert_int_equal(IA_HIST_FAILURE, all.v[0].state);
	assert_true(all.v[0].t == 5000.25);
	assert_int_equal(1000, all.v[0].id);
	assert_int_equal(1000, all.v[0].uid);
	assert_int_equal(8384512, all.v[0].used);
	assert_int_equal(8388608, all.v[0].limit);
	assert_int_equal(IA_HIST_HOLDER, all.v[1].state);
	assert_true(all.v[1].t == 5000.25);
	assert_int_equal(1, all.v[1].kind);
	assert_int_equal(1000, all.v[1].id);
	assert_int_equal(311, all.v[1].pid);
	assert_int_equal(6291456, all.v[1].held);
	assert_int_equal(5001, all.v[1].cgroup_id);
	assert_int_equal(312, all.v[2].pid);
	assert_int_equal(2093056, all.v[2].held);
	assert_int_equal(5002, all.v[2].cgroup_id);
	/* The container: its sample, then its mapper with all its entries. */
	assert_int_equal(IA_HIST_FAILURE, all.v[3].state);
	assert_int_equal(0, all.v[3].kind);
	assert_int_equal(7, all.v[3].id);
	assert_int_equal(IA_HIST_HOLDER, all.v[4].state);
	assert_int_equal(4242, all.v[4].pid);
	assert_int_equal(12, all.v[4].held);
	assert_int_equal(99, all.v[4].cgroup_id);
	/* After the poll's sample, not before it. */
	assert_true(all.v[5].t > 6000 && all.v[5].t < 6000.01);
	assert_true(all.v[6].t == all.v[5].t && all.v[7].t == all.v[5].t);

	/* The previous release's format 2 header over the same records. */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(sizeof(hdr), pread(fd, hdr, sizeof(hdr), 0));
	assert_memory_equal("IAHIST03", hdr, 8);
	memcpy(hdr, "IAHIST02", 8);
	memset(hdr + 568, 0, 4);	/* its crc: of the header with it 0 */
	crc = ia_crc32(0, hdr, sizeof(hdr));
	memcpy(hdr + 568, &crc, 4);
	assert_int_equal(sizeof(hdr), pwrite(fd, hdr, sizeof(hdr), 0));
	all.n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_all_cb, &all, err, sizeof(err)));
	assert_int_equal(8, all.n);
	/* The daemon takes it over: format 3, nothing lost, nothing damaged. */
	assert_int_equal(0, ia_hist_open(&d.hist, path, max, 3600, err, sizeof(err)));
	assert_false(d.hist.restarted);
	assert_int_equal(0, d.hist.damaged);
	ia_hist_close(&d.hist);
	assert_int_equal(sizeof(hdr), pread(fd, hdr, sizeof(hdr), 0));
	assert_memory_equal("IAHIST03", hdr, 8);
	close(fd);
	all.n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_all_cb, &all, err, sizeof(err)));
	assert_int_equal(8, all.n);
	iad_objs_free(&d.objs);
	/* Left for scripts/check: ctl history --openmetrics of it, backfilled by promtool. */
	if (getenv("IAD_HIST_OUT"))
		assert_int_equal(0, rename(path, getenv("IAD_HIST_OUT")));
	unlink(path);
	rmdir(dir);
}

/*
 * One rule for the kinds the file keeps, in polls and failures alike: a
 * kind its header cannot name (16 and up, from a newer module) is not
 * written, never aliased (a record's kind is a byte: 258 would read as 2),
 * and the kinds it can name are written as before.
 */
static void history_kinds_beyond_the_file_not_kept(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[64], err[256];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	static struct iad d;
	struct hist_all all = { 0 };
	struct ia_hist_info info;
	struct iad_obj *qp, *alias, *beyond;

	(void)state;
	test_iad(&d);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	assert_int_equal(0, ia_hist_open(&d.hist, path, max, 3600, err, sizeof(err)));
	qp = iad_obj_get(&d.objs, 2, 5);
	alias = iad_obj_get(&d.objs, 258, 5);
	beyond = iad_obj_get(&d.objs, IA_HIST_KINDS, 6);
	assert_non_null(qp);
	assert_non_null(alias);
	assert_non_null(beyond);
	qp->used = 10;
	alias->used = 20;
	alias->state = IAD_FAILURE;
	beyond->used = 30;
	iad_history_poll(&d);
	iad_history_failure(&d, alias, NULL, 5000);
	iad_history_failure(&d, qp, NULL, 0);
	assert_true(d.hist_kind_said);
	ia_hist_close(&d.hist);
	assert_int_equal(0, ia_hist_read(path, &info, hist_all_cb, &all, err, sizeof(err)));
	assert_int_equal(2, all.n);
	assert_int_equal(2, all.v[0].kind);
	assert_int_equal(10, all.v[0].used);
	assert_int_equal(2, all.v[1].kind);
	assert_int_equal(10, all.v[1].used);
	iad_objs_free(&d.objs);
	unlink(path);
	rmdir(dir);
}

/* n samples 0..n-1 of kind 1 into @path (a ring of room for 100). */
static void hist_fill(const char *path, unsigned int n)
{
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	struct ia_hist_rec r;
	struct ia_hist h;
	char err[256];
	unsigned int i;

	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	ia_hist_set_kind(&h, 1, "uid-pot", "bytes");
	for (i = 0; i < n; i++) {
		r = (struct ia_hist_rec){ .t = 1000.0 + i, .kind = 1, .id = i, .used = i };
		assert_int_equal(0, ia_hist_append(&h, &r, 1));
	}
	ia_hist_close(&h);
}

/*
 * The daemon's file as a root daemon keeps it: a symlink put in its place is
 * refused and its target left alone; a directory others can write, refused;
 * a second writer told by the lock; a file of two links refused.
 */
static void history_refuses_symlink_open_dir_and_second_writer(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[96], target[96], err[256], buf[16];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	struct ia_hist h, h2;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	snprintf(target, sizeof(target), "%s/precious", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(0, symlink(target, path));
	assert_int_equal(-ELOOP, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_non_null(strstr(err, "symbolic link"));
	f = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "precious\n");
	unlink(path);
	/* A hard link to another file: refused too. */
	assert_int_equal(0, link(target, path));
	assert_int_equal(-EPERM, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	unlink(path);
	unlink(target);
	/* A directory anyone may write. */
	assert_int_equal(0, chmod(dir, 0777));
	assert_int_equal(-EPERM, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_non_null(strstr(err, "writable by no one else"));
	assert_int_equal(-1, access(path, F_OK));
	assert_int_equal(0, chmod(dir, 0750));
	/* Two writers: the second is told, and the first's file goes on. */
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_int_equal(-EBUSY, ia_hist_open(&h2, path, max, 3600, err, sizeof(err)));
	assert_non_null(strstr(err, "another iommu-accountd"));
	ia_hist_close(&h);
	assert_int_equal(0, ia_hist_open(&h2, path, max, 3600, err, sizeof(err)));
	ia_hist_close(&h2);
	unlink(path);
	rmdir(dir);
}

static int hist_count_cb(const struct ia_hist_rec *r, void *arg)
{
	(void)r;
	(*(unsigned int *)arg)++;
	return 0;
}

/*
 * Damage found by whoever reads next: a flipped byte in a sample, a sample
 * whose time is NaN (written as the file's own, checksum and all), a file cut
 * short; each counted, the others still read; a damaged header, refused by
 * readers and started anew by the daemon, saying why.
 */
static void history_damage_and_truncation_counted(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[96], err[256];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	struct ia_hist_info info;
	struct ia_hist_rec r;
	struct ia_hist h;
	unsigned int n = 0;
	unsigned char b;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	hist_fill(path, 50);
	assert_int_equal(0, ia_hist_read(path, &info, hist_count_cb, &n, err, sizeof(err)));
	assert_int_equal(50, n);
	assert_int_equal(0, info.damaged);
	/* One bit of sample 10's figure. */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(1, pread(fd, &b, 1, 1024 + 10 * 40 + 8));
	b ^= 4;
	assert_int_equal(1, pwrite(fd, &b, 1, 1024 + 10 * 40 + 8));
	/* Sample 20 with a NaN time and a matching checksum. */
	assert_int_equal(40, pread(fd, &r, 40, 1024 + 20 * 40));
	r.t = NAN;
	r.crc = ia_crc32(0, &r, offsetof(struct ia_hist_rec, crc));
	assert_int_equal(40, pwrite(fd, &r, 40, 1024 + 20 * 40));
	/* Sample 30 of a kind beyond the header's table, its checksum matching. */
	assert_int_equal(40, pread(fd, &r, 40, 1024 + 30 * 40));
	r.kind = IA_HIST_KINDS;
	r.crc = ia_crc32(0, &r, offsetof(struct ia_hist_rec, crc));
	assert_int_equal(40, pwrite(fd, &r, 40, 1024 + 30 * 40));
	close(fd);
	n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_count_cb, &n, err, sizeof(err)));
	assert_int_equal(47, n);
	assert_int_equal(3, info.damaged);
	/* The daemon's next start finds them too. */
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_int_equal(3, h.damaged);
	assert_false(h.restarted);
	ia_hist_close(&h);
	/* Cut short after 30 samples: 20 missing, 28 read. */
	assert_int_equal(0, truncate(path, 1024 + 30 * 40));
	n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_count_cb, &n, err, sizeof(err)));
	assert_int_equal(28, n);
	assert_int_equal(20, info.missing);
	/*
	 * A damaged header on the file cut short (at a sample's end: it looks
	 * a whole ring of 30): readers rebuild it and read the 28 intact; the
	 * daemon, whose ring is 100, starts anew and says why.
	 */
	fd = open(path, O_RDWR);
	assert_int_equal(1, pwrite(fd, "X", 1, 40));
	close(fd);
	n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_count_cb, &n, err, sizeof(err)));
	assert_true(info.rebuilt);
	assert_int_equal(28, n);
	assert_int_equal(2, info.damaged);
	/* Cut inside a sample: no whole ring; refused. */
	assert_int_equal(0, truncate(path, 1024 + 30 * 40 - 1));
	assert_int_equal(-EINVAL, ia_hist_read(path, &info, NULL, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "header is damaged"));
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_true(h.restarted);
	assert_non_null(strstr(h.why, "damaged"));
	ia_hist_close(&h);
	unlink(path);
	rmdir(dir);
}

/* Each sample's time, in the order read. */
struct hist_times {
	double t[256];
	unsigned int n;
};

static int hist_times_cb(const struct ia_hist_rec *r, void *arg)
{
	struct hist_times *ts = arg;

	if (ts->n < 256)
		ts->t[ts->n] = r->t;
	ts->n++;
	return 0;
}

/* The file's header with @cap and @count put in and its checksum made to match. */
static void hist_forge(const char *path, uint64_t cap, uint64_t count)
{
	unsigned char hd[1024];
	uint32_t crc = 0;
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(1024, pread(fd, hd, sizeof(hd), 0));
	memcpy(hd + 16, &cap, 8);	/* magic 8, version 4, rec_size 4, then cap */
	memcpy(hd + 32, &count, 8);	/* head 8, then count */
	memcpy(hd + 568, &crc, 4);	/* the crc, after keep_s and the kinds' names and units */
	crc = ia_crc32(0, hd, sizeof(hd));
	memcpy(hd + 568, &crc, 4);
	assert_int_equal(1024, pwrite(fd, hd, sizeof(hd), 0));
	close(fd);
}

/*
 * A damaged header loses no intact sample: one byte of it flipped on a
 * ring that has turned (150 samples in 100 slots) and on one that has not
 * (40), readers rebuild it from the samples' own checksums and order and
 * read the same samples in the same order (a damaged sample besides: all
 * but it); the daemon's next start rebuilds it in the file, which readers
 * then read as before. A header forged with a valid checksum and a
 * capacity and count of 2^62 on a file of its header alone (the size
 * arithmetic overflowed: the reader looped for ever), or a ring smaller
 * than the file, is refused at once.
 */
static void history_damaged_header_rebuilt_and_forged_sizes_refused(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[96], err[256];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	struct hist_times before = { 0 }, after = { 0 };
	struct ia_hist_info info;
	struct ia_hist h;
	unsigned char b;
	unsigned int i, fills[] = { 150, 40 };
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	for (i = 0; i < 2; i++) {
		unlink(path);
		hist_fill(path, fills[i]);
		before.n = after.n = 0;
		assert_int_equal(0, ia_hist_read(path, &info, hist_times_cb, &before, err,
						 sizeof(err)));
		assert_int_equal(fills[i] > 100 ? 100 : fills[i], before.n);
		assert_false(info.rebuilt);
		fd = open(path, O_RDWR);
		assert_int_equal(1, pread(fd, &b, 1, 24));	/* the head */
		b ^= 0x10;
		assert_int_equal(1, pwrite(fd, &b, 1, 24));
		close(fd);
		assert_int_equal(0, ia_hist_read(path, &info, hist_times_cb, &after, err,
						 sizeof(err)));
		assert_true(info.rebuilt);
		assert_int_equal(0, info.damaged);
		assert_int_equal(before.n, after.n);
		assert_memory_equal(before.t, after.t, before.n * sizeof(double));
	}
	/* The 40-sample ring: its 8th sample damaged too; the daemon rebuilds the header. */
	fd = open(path, O_RDWR);
	assert_int_equal(1, pwrite(fd, "X", 1, 1024 + 7 * 40 + 3));
	close(fd);
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_true(h.rebuilt);
	assert_false(h.restarted);
	assert_int_equal(1, h.damaged);
	ia_hist_close(&h);
	after.n = 0;
	assert_int_equal(0, ia_hist_read(path, &info, hist_times_cb, &after, err, sizeof(err)));
	assert_false(info.rebuilt);
	assert_int_equal(39, after.n);
	assert_int_equal(1, info.damaged);
	assert_true(after.t[6] == before.t[6] && after.t[7] == before.t[8]);

	/*
	 * Forged: 2^62 slots and samples, checksum valid, the file its header
	 * alone (2^62 x 40 wraps to 0: "no longer than its ring" held). Refused,
	 * not read for ever.
	 */
	hist_forge(path, 1ULL << 62, 1ULL << 62);
	assert_int_equal(0, truncate(path, 1024));
	assert_int_equal(-EINVAL, ia_hist_read(path, &info, hist_times_cb, &after, err,
					       sizeof(err)));
	assert_non_null(strstr(err, "does not hold together"));
	/* A ring of 20 in a file of 100 slots, count 20: refused too. */
	hist_fill(path, 40);
	hist_forge(path, 20, 20);
	assert_int_equal(-EINVAL, ia_hist_read(path, &info, NULL, NULL, err, sizeof(err)));
	unlink(path);
	rmdir(dir);
}

/* The fuzz tests' generator (xorshift64*): IAD_FUZZ_SEED=N replays a run. */
static uint64_t fuzz_state;

static uint64_t fuzz_seed(const char *what)
{
	const char *e = getenv("IAD_FUZZ_SEED");

	fuzz_state = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	if (!fuzz_state)
		fuzz_state = 1;
	printf("# %s: IAD_FUZZ_SEED=%llu\n", what, (unsigned long long)fuzz_state);
	return fuzz_state;
}

static uint64_t fuzz_next(void)
{
	fuzz_state ^= fuzz_state >> 12;
	fuzz_state ^= fuzz_state << 25;
	fuzz_state ^= fuzz_state >> 27;
	return fuzz_state * 0x2545f4914f6cdd1dull;
}

static int hist_give_cb(const struct ia_hist_rec *r, void *arg)
{
	assert_true(isfinite(r->t) && r->kind < IA_HIST_KINDS);
	(*(uint64_t *)arg)++;
	return 0;
}

/*
 * The history reader and the daemon's open against 1,500 damaged files (a
 * ring of 100 that has turned, then: bytes flipped in the header or the
 * samples, the file cut anywhere, or the header forged with a valid
 * checksum and random capacity, head and count). Each read ends (no
 * wrap-around loop), refuses or gives only samples that pass their
 * checksum, and what it gives, finds damaged and finds missing add up to
 * the count it reads; the daemon opens each (kept, rebuilt or started
 * anew) and leaves a file that reads back whole.
 */
static void history_reader_fuzzed(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[96], err[256];
	const uint64_t max = 1024 + 100 * sizeof(struct ia_hist_rec);
	/* Room for a file longer than the ring (a forged header's), zeros past it. */
	static unsigned char base[1024 + 100 * 40], buf[1024 + 200 * 40];
	struct ia_hist_info info;
	struct ia_hist h;
	uint64_t given, v;
	unsigned int i, k, n;
	size_t len;
	uint32_t crc;
	int fd, ret;

	(void)state;
	fuzz_seed("history_reader_fuzzed");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	hist_fill(path, 150);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, base, sizeof(base)), (ssize_t)sizeof(base));
	close(fd);
	for (i = 0; i < 1500; i++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, base, sizeof(base));
		len = sizeof(base);
		switch (fuzz_next() % 4) {
		case 0:		/* bytes flipped anywhere */
			for (k = 1 + fuzz_next() % 8; k; k--)
				buf[fuzz_next() % len] ^= (unsigned char)(1 + fuzz_next() % 255);
			break;
		case 1:		/* in the header */
			buf[fuzz_next() % 1024] ^= (unsigned char)(1 + fuzz_next() % 255);
			break;
		case 2:		/* cut short */
			len = fuzz_next() % len;
			break;
		default:	/* forged: cap, head and count, the checksum made to match */
			for (k = 0; k < 3; k++) {
				v = fuzz_next() % 4 ? fuzz_next() % 300 : fuzz_next() >> (fuzz_next() % 64);
				memcpy(buf + 16 + 8 * k, &v, 8);
			}
			if (fuzz_next() % 2)
				len = 1024 + (fuzz_next() % 200) * 40;
			crc = 0;
			memcpy(buf + 568, &crc, 4);
			crc = ia_crc32(0, buf, 1024);
			memcpy(buf + 568, &crc, 4);
			break;
		}
		fd = open(path, O_WRONLY | O_TRUNC);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		close(fd);
		given = 0;
		ret = ia_hist_read(path, &info, hist_give_cb, &given, err, sizeof(err));
		if (ret) {
			assert_int_equal(ret, -EINVAL);
		} else {
			assert_true(info.count <= info.cap);
			assert_int_equal(given + info.damaged + info.missing, info.count);
		}
		assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
		ia_hist_close(&h);
		given = 0;
		assert_int_equal(0, ia_hist_read(path, &info, hist_give_cb, &given, err, sizeof(err)));
		assert_int_equal(info.missing, 0);
		assert_int_equal(given + info.damaged, info.count);
		n = (unsigned int)given;
		assert_true(n <= 100);
	}
	unlink(path);
	rmdir(dir);
}

/* The end of the first request head in @b (past its empty line), or 0. */
static size_t first_head_end(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (b[i] != '\n')
			continue;
		if (b[i + 1] == '\n')
			return i + 2;
		if (b[i + 1] == '\r' && i + 2 < n && b[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/*
 * The exporter's request parser against 1,500 mutated requests (one or two
 * valid GETs, then bytes flipped to NUL, CR, LF, blanks, colons, control and
 * high bytes, inserted or deleted), each on a connection of its own whose
 * sending side is then shut. The server answers at most one response per
 * empty line sent, each beginning with a status line; a first head with a
 * byte no head may hold (NUL, a CR not before its LF, a control byte but
 * HTAB) gets one answer, 400; and afterwards it serves a scrape. Under
 * ASan in daemon_test_asan.
 */
static void exporter_http_fuzzed(void **state)
{
	static const char *const bases[] = {
		"GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /healthz HTTP/1.0\r\n\r\nGET /alerts HTTP/1.1\r\nConnection: close\r\n\r\n",
		"GET http://h/readyz?x HTTP/1.1\r\nX: 1\r\nConnection: keep-alive\r\n\r\n",
	};
	static const unsigned char picks[] = { 0, '\r', '\n', ' ', '\t', ':', 0x01, 0x1b, 0x7f,
					       0x80, 0xff, 'G', '/' };
	static char out[1 << 20];
	unsigned char req[256];
	size_t n, got, i, k, hend, empties;
	unsigned int it, responses;
	struct timeval tv = { 5, 0 };
	uint16_t port;
	ssize_t r;
	bool bad;
	int fd;

	(void)state;
	fuzz_seed("exporter_http_fuzzed");
	port = http_up();
	for (it = 0; it < 1500; it++) {
		const char *b = bases[fuzz_next() % 3];

		n = strlen(b);
		memcpy(req, b, n);
		for (k = 1 + fuzz_next() % 4; k; k--) {
			size_t at = fuzz_next() % n;
			unsigned char c = fuzz_next() % 2 ? picks[fuzz_next() % sizeof(picks)] :
				(unsigned char)fuzz_next();

			switch (fuzz_next() % 3) {
			case 0:
				req[at] = c;
				break;
			case 1:
				if (n < sizeof(req)) {
					memmove(req + at + 1, req + at, n - at);
					req[at] = c;
					n++;
				}
				break;
			default:
				if (n > 1) {
					memmove(req + at, req + at + 1, n - at - 1);
					n--;
				}
				break;
			}
		}
		fd = http_connect(port);
		assert_true(fd >= 0);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		/* The server may close before it has read all (an error closes): no SIGPIPE. */
		r = send(fd, req, n, MSG_NOSIGNAL);
		assert_true(r == (ssize_t)n || (r < 0 && (errno == EPIPE || errno == ECONNRESET)));
		shutdown(fd, SHUT_WR);
		got = 0;
		while (got < sizeof(out) - 1 && (r = read(fd, out + got, sizeof(out) - 1 - got)) > 0)
			got += (size_t)r;
		out[got] = 0;
		/* Closed by the server (EOF, or a reset), not by the time-out. */
		assert_true(r == 0 || (r < 0 && errno == ECONNRESET));
		close(fd);
		for (i = 0, empties = 0; i + 1 < n; i++)
			empties += req[i] == '\n' && (req[i + 1] == '\n' ||
				   (req[i + 1] == '\r' && i + 2 < n && req[i + 2] == '\n'));
		responses = count_of(out, "\r\nServer: iommu-accountd\r\n");
		assert_true(responses <= empties);
		if (got)
			assert_int_equal(strncmp(out, "HTTP/1.1 ", 9), 0);
		/* A first head (past any empty lines before it) with a byte no head may hold. */
		for (i = 0; i < n && (req[i] == '\r' || req[i] == '\n'); i++)
			;
		hend = first_head_end(req + i, n - i);
		bad = false;
		for (k = i; hend && k < i + hend; k++)
			if (req[k] == '\r' ? k + 1 == i + hend || req[k + 1] != '\n' :
			    (req[k] < 0x20 && req[k] != '\t' && req[k] != '\n') || req[k] == 0x7f)
				bad = true;
		if (bad) {
			assert_int_equal(strncmp(out, "HTTP/1.1 400 ", 13), 0);
			assert_int_equal(responses, 1);
		}
	}
	http_exchange(port, "GET /metrics HTTP/1.0\r\n\r\n", 25, out, sizeof(out));
	assert_int_equal(strncmp(out, "HTTP/1.1 200 OK\r\n", 17), 0);
	http_down();
}

/*
 * A full filesystem (a tmpfs of 64 KiB, as root): said with ENOSPC when the
 * daemon opens the history, not a stale errno; once there is room (the tmpfs
 * grown), the daemon's next try after IAD_HIST_RETRY_S writes again.
 */
static void history_enospc_said_truly_and_retried(void **state)
{
	char dir[] = "/tmp/ia-hist-XXXXXX", path[96], err[256];
	struct ia_hist_info info;
	static struct iad d;
	struct iad_obj *ob;
	unsigned int n = 0;
	struct ia_hist h;

	(void)state;
	assert_non_null(mkdtemp(dir));
	if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0755")) {
		rmdir(dir);
		skip();
	}
	snprintf(path, sizeof(path), "%s/history", dir);
	assert_int_equal(-ENOSPC, ia_hist_open(&h, path, 1 << 20, 3600, err, sizeof(err)));
	assert_non_null(strstr(err, strerror(ENOSPC)));
	/* The daemon: logs it, goes on, tries again when its time has come. */
	test_iad(&d);
	snprintf(d.cfg.history, sizeof(d.cfg.history), "%s", path);
	d.cfg.history_max = 1 << 20;
	d.now = 100;
	iad_history_open(&d);
	assert_null(d.hist.hdr);
	assert_true(d.hist_retry_at > d.now);
	ob = iad_obj_get(&d.objs, 1, 1000);
	ob->used = 4096;
	d.now += 1;
	iad_history_poll(&d);
	assert_null(d.hist.hdr);		/* not yet its time */
	assert_int_equal(0, mount("tmpfs", dir, "tmpfs", MS_REMOUNT, "size=4m,mode=0755"));
	d.now = d.hist_retry_at;
	iad_history_poll(&d);
	assert_non_null(d.hist.hdr);
	iad_history_close(&d);
	assert_int_equal(0, ia_hist_read(path, &info, hist_count_cb, &n, err, sizeof(err)));
	assert_int_equal(1, n);
	iad_objs_free(&d.objs);
	assert_int_equal(0, umount(dir));
	rmdir(dir);
}

/*
 * The cgroup -> identity resolver over the paths each runtime documents it
 * makes (Kubernetes' cgroup drivers, Docker's, Podman's rootful and
 * rootless, containerd without CRI, CRI-O, LXC/LXD, systemd units); a path
 * no rule knows is itself, never misnamed.
 */
static void cgroup_identity_of_real_paths(void **state)
{
#define CID "4f1c2b3a4d5e6f708192a3b4c5d6e7f80123456789abcdef0123456789abcdef"
#define CID2 "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b"
#define POD "7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a"
#define PODU "7c1e9f2a_3b4c_4d5e_8f6a_0b1c2d3e4f5a"
	static const struct {
		const char *path, *kind, *runtime, *unit, *cid, *pod, *qos, *name;
	} t[] = {
		{ "/system.slice/nginx.service", "unit", "", "nginx.service", "", "", "", "" },
		{ "/system.slice/run-r0d4c2e.scope", "unit", "", "run-r0d4c2e.scope", "", "", "", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-fio.scope", "unit", "",
		  "app-fio.scope", "", "", "", "" },
		{ "/system.slice/docker-" CID ".scope", "container", "docker", "", CID, "", "", "" },
		{ "/docker/" CID, "container", "docker", "", CID, "", "", "" },
		{ "/system.slice/nerdctl-" CID ".scope", "container", "containerd", "", CID, "", "", "" },
		{ "/default/" CID, "container", "containerd", "", CID, "", "", "" },
		{ "/machine.slice/libpod-" CID ".scope", "container", "podman", "", CID, "", "", "" },
		{ "/machine.slice/libpod-" CID ".scope/container", "container", "podman", "", CID, "",
		  "", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope",
		  "container", "podman", "", CID, "", "", "" },
		{ "/libpod_parent/libpod-" CID, "container", "podman", "", CID, "", "", "" },
		/* Rootless Docker (systemd driver): the scope under the user's manager. */
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/docker-" CID ".scope",
		  "container", "docker", "", CID, "", "", "" },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" PODU
		  ".slice/cri-containerd-" CID ".scope", "kubernetes", "containerd", "", CID, POD,
		  "burstable", "" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" PODU
		  ".slice/crio-" CID ".scope", "kubernetes", "cri-o", "", CID, POD, "besteffort", "" },
		{ "/kubepods.slice/kubepods-pod" PODU ".slice/cri-containerd-" CID ".scope",
		  "kubernetes", "containerd", "", CID, POD, "guaranteed", "" },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" PODU ".slice",
		  "kubernetes", "", "", "", POD, "burstable", "" },
		{ "/kubepods/burstable/pod" POD "/" CID, "kubernetes", "cri", "", CID, POD,
		  "burstable", "" },
		{ "/kubepods/pod" POD "/" CID, "kubernetes", "cri", "", CID, POD, "guaranteed", "" },
		/* CRI-O under kubelet's cgroupfs driver; its conmon is the pod's. */
		{ "/kubepods/besteffort/pod" POD "/crio-" CID, "kubernetes", "cri-o", "", CID, POD,
		  "besteffort", "" },
		{ "/kubepods/pod" POD "/crio-conmon-" CID, "kubernetes", "", "", "", POD,
		  "guaranteed", "" },
		{ "/lxc.payload.web01", "container", "lxc", "", "", "", "", "web01" },
		{ "/lxc/web01", "container", "lxc", "", "", "", "", "web01" },
		/* systemd-nspawn: its template unit, or machined's scope (names unit-escaped). */
		{ "/machine.slice/systemd-nspawn@build\\x2dbox.service/payload", "container",
		  "systemd-nspawn", "", "", "", "", "build-box" },
		{ "/machine.slice/machine-build\\x2dbox.scope/payload/system.slice/sshd.service",
		  "container", "systemd-nspawn", "", "", "", "", "build-box" },
		/* libvirt's machines: a VM is not a container. */
		{ "/machine.slice/machine-qemu\\x2d3\\x2dgpu\\x2dvm.scope/libvirt/vcpu0", "vm",
		  "libvirt", "", "", "", "", "gpu-vm" },
		/* Podman's pods: the container's scope under the pod's slice. */
		{ "/machine.slice/machine-libpod_pod_0123.slice/libpod-" CID ".scope", "container",
		  "podman", "", CID, "", "", "" },
		/* Nested: kind's nodes (systemd and cgroupfs drivers), Docker in Docker. */
		{ "/system.slice/docker-" CID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
		  "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" PODU ".slice/"
		  "cri-containerd-" CID ".scope", "kubernetes", "containerd", "", CID, POD,
		  "besteffort", "" },
		{ "/system.slice/docker-" CID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
		  "kubelet-kubepods-pod" PODU ".slice", "kubernetes", "", "", "", POD, "guaranteed", "" },
		{ "/docker/" CID2 "/kubelet/kubepods/burstable/pod" POD "/" CID, "kubernetes", "cri",
		  "", CID, POD, "burstable", "" },
		{ "/system.slice/docker-" CID2 ".scope/docker/" CID, "container", "docker", "", CID,
		  "", "", "" },
		/* Docker inside a pod's container: the inner container, in that pod. */
		{ "/kubepods/burstable/pod" POD "/" CID2 "/docker/" CID, "container", "docker", "",
		  CID, POD, "", "" },
		/* No rule: the path itself. */
		{ "/", "", "", "", "", "", "", "" },
		{ "/ia-ctl-refused-1234", "", "", "", "", "", "", "" },
		{ "/system.slice/docker-4f1c.scope", "unit", "", "docker-4f1c.scope", "", "", "", "" },
		{ "/kubepods.slice", "", "", "", "", "", "", "" },
		{ "/mygroup/" CID, "", "", "", "", "", "", "" },
	};
	static char deep[IA_CGROUP_MAX];
	static struct ia_identity id;
	static char buf[IA_IDENTITY_TEXT];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ia_identity_of(t[i].path, &id);
		print_message("# %s -> %s\n", t[i].path, ia_identity_str(&id, buf, sizeof(buf)));
		assert_string_equal(t[i].kind, id.kind);
		assert_string_equal(t[i].runtime, id.runtime);
		assert_string_equal(t[i].unit, id.unit);
		assert_string_equal(t[i].cid, id.container_id);
		assert_string_equal(t[i].pod, id.pod_uid);
		assert_string_equal(t[i].qos, id.qos);
		assert_string_equal(t[i].name, id.name);
		if (!id.kind[0])
			assert_string_equal(t[i].path, buf);
	}
	/* The container a nested one runs in: the kind node, the outer Docker. */
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strncmp(t[i].path, "/system.slice/docker-" CID2, 21 + 64) &&
		    strncmp(t[i].path, "/docker/" CID2, 8 + 64))
			continue;
		ia_identity_of(t[i].path, &id);
		assert_string_equal("docker", id.outer_runtime);
		assert_string_equal(CID2, id.outer_container_id);
		assert_non_null(strstr(ia_identity_str(&id, buf, sizeof(buf)),
				       " in container 0a9b8c7d6e5f… (docker)"));
	}
	ia_identity_of("/system.slice/docker-" CID ".scope", &id);
	assert_string_equal("", id.outer_runtime);
	/* Every component is read: 40 levels, and 3,800 bytes, before the container. */
	for (i = 0, n = 0; i < 40; i++)
		n += snprintf(deep + n, sizeof(deep) - n, "/l%zu", i);
	snprintf(deep + n, sizeof(deep) - n, "/docker-" CID ".scope");
	ia_identity_of(deep, &id);
	assert_string_equal("container", id.kind);
	assert_string_equal(CID, id.container_id);
	for (i = 0, n = 0; n < 3800; i++) {
		deep[n++] = '/';
		memset(deep + n, 'x', 190);
		n += 190;
	}
	snprintf(deep + n, sizeof(deep) - n, "/kubepods/besteffort/pod" POD "/crio-" CID);
	assert_true(strlen(deep) < IA_CGROUP_MAX);
	ia_identity_of(deep, &id);
	assert_string_equal("kubernetes", id.kind);
	assert_string_equal("cri-o", id.runtime);
	assert_string_equal(CID, id.container_id);
	assert_string_equal(POD, id.pod_uid);
#undef CID
#undef CID2
#undef POD
#undef PODU
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trend_is_exact_on_a_line),
		cmocka_unit_test(trend_needs_three_floor_points_and_forgets_outside_the_fit),
		cmocka_unit_test(trend_least_squares_not_endpoints),
		cmocka_unit_test(trend_survives_ring_wrap),
		cmocka_unit_test(flat_run_then_change_keeps_the_trend),
		cmocka_unit_test(objects_sorted_and_found),
		cmocka_unit_test(levels_go_up_once_each),
		cmocka_unit_test(hysteresis_holds_then_clears),
		cmocka_unit_test(trend_warns_before_the_level),
		cmocka_unit_test(failure_holds_until_below_warn_minus_hysteresis),
		cmocka_unit_test(qpair_saturation_alerts_only_when_it_lasts),
		cmocka_unit_test(failure_after_a_drain_is_a_new_episode),
		cmocka_unit_test(no_limit_means_no_alert_and_gone_clears),
		cmocka_unit_test(config_defaults_and_kind_sections),
		cmocka_unit_test(config_errors_name_the_line_and_change_nothing),
		cmocka_unit_test(config_long_lines_whole_and_lines_counted),
		cmocka_unit_test(config_every_error_with_its_own_line),
		cmocka_unit_test(exec_hook_gets_the_alert_as_json),
		cmocka_unit_test(exec_hook_runs_without_the_daemons_capability),
		cmocka_unit_test(exec_hung_hook_is_killed_and_alerting_goes_on),
		cmocka_unit_test(exec_one_uids_flood_does_not_crowd_out_anothers),
		cmocka_unit_test(exec_missing_program_is_said_once),
		cmocka_unit_test(metrics_text_has_every_object_and_counter),
		cmocka_unit_test(holders_bounded_rest_summed_series_counted),
		cmocka_unit_test(exporter_port_in_use_said_and_others_go_on),
		cmocka_unit_test(daemon_refuses_a_taken_port_at_start_and_keeps_its_own_at_reload),
		cmocka_unit_test(daemon_serves_the_socket_systemd_passed),
		cmocka_unit_test(exporter_serves_a_scrape_beside_2000_half_requests),
		cmocka_unit_test(exporter_http_keeps_connections_and_answers_pipelined_requests),
		cmocka_unit_test(alerts_read_back_whole_by_iommu_accountctl),
		cmocka_unit_test(ctl_reads_a_squatter_bounded_and_escaped),
		cmocka_unit_test(exporter_unix_socket_shows_each_peer_what_its_uid_may),
		cmocka_unit_test(exporter_tcp_names_each_local_peer_as_the_kernel_does),
		cmocka_unit_test(exporter_tcp_client_from_elsewhere_sees_what_remote_says),
		cmocka_unit_test(ctl_refuses_a_server_of_another_uid),
		cmocka_unit_test(exporter_http_refuses_bad_requests_with_their_status),
		cmocka_unit_test(exporter_http_answers_a_head_with_nul_or_bare_cr_once_with_400),
		cmocka_unit_test(exporter_probes_say_live_and_ready_from_the_source_state),
		cmocka_unit_test(exporter_http_survives_clients_that_vanish),
		cmocka_unit_test(exporter_http_closes_connections_a_forked_hook_still_holds),
		cmocka_unit_test(journal_entries_in_the_native_protocol),
		cmocka_unit_test(notify_and_watchdog_as_systemd_sets_them),
		cmocka_unit_test(rates_and_times_in_human_units),
		cmocka_unit_test(history_ring_bounded_oldest_first),
		cmocka_unit_test(history_failure_sample_then_holders),
		cmocka_unit_test(history_kinds_beyond_the_file_not_kept),
		cmocka_unit_test(history_refuses_symlink_open_dir_and_second_writer),
		cmocka_unit_test(history_damage_and_truncation_counted),
		cmocka_unit_test(history_damaged_header_rebuilt_and_forged_sizes_refused),
		cmocka_unit_test(history_reader_fuzzed),
		cmocka_unit_test(exporter_http_fuzzed),
		cmocka_unit_test(history_enospc_said_truly_and_retried),
		cmocka_unit_test(cgroup_identity_of_real_paths),
		cmocka_unit_test(trend_words_follow_the_floor),
		cmocka_unit_test(trend_words_in_the_log_and_in_alerts),
		cmocka_unit_test(traces_stationary_raise_no_warning),
		cmocka_unit_test(traces_leaks_warned_by_their_deadline),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/iad-test.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("iommu-accountd", tests, NULL, NULL);
	if (!getenv("IAD_KEEP_TMP")) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			ret = ret ? ret : 1;
	}
	return ret;
}
