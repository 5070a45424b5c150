// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (cmocka) of iommu-accountd's parts that need no kernel:
 * the predictor, the alert state machine with hysteresis, the configuration
 * parser, the exec sink (real processes) and the exporter's documents
 * (checked by promtool in scripts/check). Alerts go through the daemon's own
 * iad_raise() (alert.c) to a collecting sink and the exec sink.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
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

static struct iad_thr thr80(void)
{
	struct iad_thr t = { .warn = 0.80, .crit = 0.95, .hysteresis = 0.05,
			     .horizon_s = 600, .window_s = 60 };
	return t;
}

/* Feed @used at time @t and evaluate, as a poll does. */
static bool feed(struct iad_obj *ob, double t, uint64_t used, const struct iad_thr *thr,
		 struct iad_alert *a)
{
	char reason[200];

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
	free(ob.hist);
	free(ob.floor);
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
	free(ob.hist);
	free(ob.floor);
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
	free(ob.hist);
	free(ob.floor);
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
	free(ob.hist);
	free(ob.floor);
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
	free(ob.hist);
	free(ob.floor);
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
		"[exporter]\nlisten = off\n");

	(void)state;
	assert_int_equal(iad_config_load(&c, p, false, err, sizeof(err)), 0);
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
		{ "[nosuch]\nx = 1\n", ":2: unknown section [nosuch]" },
		{ "[daemon\n", ":1: not a key = value line or a [section]" },
		{ "[daemon]\ninterval = 2\nidle_interval = 1\n", ":3: [daemon] idle_interval (1 s) must not be below interval (2 s)" },
		{ "[daemon]\nwindow = 2\n", ":2: [daemon] window (2 s) must hold at least 3 intervals (1 s)" },
	};
	struct iad_config c, before;
	char err[512];
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

/* --- exec sink ------------------------------------------------------------------- */

static struct iad *exec_iad(const char *program, double timeout, unsigned int max)
{
	static struct iad d;

	iad_exec_fini(&d);
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.cfg.log = IAD_LOG_STDERR;
	d.foreground = true;
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
	FILE *f;

	(void)state;
	snprintf(out, sizeof(out), "%s/hook.out", tmpdir);
	snprintf(hook, sizeof(hook), "%s/hook.sh", tmpdir);
	f = fopen(hook, "w");
	fprintf(f, "#!/bin/sh\ncat >> %s\n", out);
	fclose(f);
	chmod(hook, 0755);
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
	snprintf(out, sizeof(out), "%s/hung.out", tmpdir);
	snprintf(hook, sizeof(hook), "%s/hung.sh", tmpdir);
	f = fopen(hook, "w");
	/* Writes, then hangs with a child of its own: the group is killed. */
	fprintf(f, "#!/bin/sh\ncat >> %s\nsleep 300 & echo $! >> %s.pids\nwait\n", out, out);
	fclose(f);
	chmod(hook, 0755);
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
}

/* --- exporter documents ----------------------------------------------------------- */

static void metrics_text_has_every_object_and_counter(void **state)
{
	static struct iad d;
	struct iad_obj *a, *b;
	char *txt, path[128];
	size_t len;
	FILE *f;

	(void)state;
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.up = true;
	a = iad_obj_get(&d.objs, 1, 1000);
	a->used = 4096;
	a->has_limit = true;
	a->limit = 8192;
	a->uid = 1000;
	a->state = IAD_WARNING;
	a->rate = 10;
	a->has_eta = true;
	a->eta_s = 409.6;
	b = iad_obj_get(&d.objs, 0, 3);
	b->used = 10;
	b->has_limit = true;
	b->limit = 100;
	d.events_lost = 5;
	/* Two holders of uid 1000's pot: a Kubernetes container, a path with a quote. */
	d.hs = calloc(2, sizeof(*d.hs));
	assert_non_null(d.hs);
	d.nhs = 2;
	d.hs[0] = (struct iad_hseries){ 1000, 77, 262144, strdup("/kubepods.slice/"
		"kubepods-burstable.slice/kubepods-burstable-pod7c1e9f2a_3b4c_4d5e_8f6a_0b1c2d3e4f5a"
		".slice/cri-containerd-9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321.scope") };
	d.hs[1] = (struct iad_hseries){ 1000, 78, 4096, strdup("/user.slice/a\"b\\c") };
	txt = iad_metrics_text(&d, &len);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "iommu_account_up 1\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_used{kind=\"kind-1\",object=\"1000\",uid=\"1000\"} 4096\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_limit{kind=\"kind-0\",object=\"3\",uid=\"0\"} 100\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_utilization_ratio{kind=\"kind-1\",object=\"1000\",uid=\"1000\"} 0.5\n"));
	assert_non_null(strstr(txt, "iommu_account_quota_exhaustion_seconds{kind=\"kind-1\",object=\"1000\",uid=\"1000\"} 409.6\n"));
	assert_null(strstr(txt, "iommu_account_quota_exhaustion_seconds{kind=\"kind-0\""));
	assert_non_null(strstr(txt, "iommu_account_alert_state{kind=\"kind-1\",object=\"1000\",uid=\"1000\"} 1\n"));
	assert_non_null(strstr(txt, "iommu_account_events_lost_total 5\n"));
	assert_non_null(strstr(txt, "iommu_account_holder_pot_bytes{uid=\"1000\",cgroup=\"/kubepods.slice/"
		"kubepods-burstable.slice/kubepods-burstable-pod7c1e9f2a_3b4c_4d5e_8f6a_0b1c2d3e4f5a.slice/"
		"cri-containerd-9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321.scope\","
		"container_id=\"9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321\","
		"pod_uid=\"7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a\",runtime=\"containerd\","
		"unit=\"\"} 262144\n"));
	assert_non_null(strstr(txt, "iommu_account_holder_pot_bytes{uid=\"1000\",cgroup=\"/user.slice/a\\\"b\\\\c\","
		"container_id=\"\",pod_uid=\"\",runtime=\"\",unit=\"\"} 4096\n"));
	/* Left for promtool (scripts/check). */
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
	free(txt);
	txt = iad_alerts_text(&d, &len);
	assert_non_null(strstr(txt, "kind-1\t1000\tWARNING\t"));
	free(txt);
	iad_hseries_free(&d);
	iad_objs_free(&d.objs);
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
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.cfg.log = IAD_LOG_STDERR;
	d.foreground = true;
	iad_log_open(&d);
	snprintf(d.cfg.listen, sizeof(d.cfg.listen), "127.0.0.1:%u", ntohs(sa.sin_port));
	assert_int_equal(iad_exporter_start(&d), -1);
	assert_null(d.mhd);
	assert_int_equal(d.mhd_fd, -1);
	/* Alerts still go to the other sinks. */
	nraised = 0;
	iad_raise(&d, &a);
	assert_int_equal(nraised, 1);
	/* A listen that is not ADDRESS:PORT: the same. */
	snprintf(d.cfg.listen, sizeof(d.cfg.listen), "localhost");
	assert_int_equal(iad_exporter_start(&d), -1);
	close(fd);
}

/* --- the exporter against a slowloris ---------------------------------------------- */

static volatile int http_stop;

/* The daemon's loop, as far as the exporter goes: poll its fd, run it. */
static void *http_loop(void *arg)
{
	struct iad *d = arg;
	struct pollfd p = { .fd = d->mhd_fd, .events = POLLIN };

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

/*
 * 2,000 connections that sent half a request and then nothing hold the
 * exporter; a scrape still gets its page, and the slow ones are shut down.
 */
static void exporter_serves_a_scrape_beside_2000_half_requests(void **state)
{
	static struct iad d;
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: a\r\n";
	static const char full[] = "GET /metrics HTTP/1.0\r\n\r\n";
	struct rlimit rl = { 8192, 8192 };
	int *fds, i, fd, closed = 0, n;
	char buf[65536];
	size_t got = 0;
	double t0, t1;
	pthread_t th;
	uint16_t port;

	(void)state;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	memset(&d, 0, sizeof(d));
	sinks(&d);
	iad_config_defaults(&d.cfg);
	d.cfg.log = IAD_LOG_STDERR;
	d.foreground = true;
	iad_log_open(&d);
	port = free_port();
	snprintf(d.cfg.listen, sizeof(d.cfg.listen), "127.0.0.1:%u", port);
	assert_int_equal(iad_exporter_start(&d), 0);
	http_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, http_loop, &d), 0);
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
		      (unsigned long long)iad_exporter_shut(&d));
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
	assert_true(iad_exporter_shut(&d) > 0);
	http_stop = 1;
	pthread_join(th, NULL);
	iad_exporter_stop(&d);
	free(fds);
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
	FILE *f;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/history", dir);
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
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
	/* The same size: kept. Another: started anew. */
	assert_int_equal(0, ia_hist_open(&h, path, max, 3600, err, sizeof(err)));
	assert_false(h.restarted);
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

/*
 * The cgroup -> identity resolver over the paths each runtime documents it
 * makes (Kubernetes' cgroup drivers, Docker's, Podman's rootful and
 * rootless, containerd without CRI, CRI-O, LXC/LXD, systemd units); a path
 * no rule knows is itself, never misnamed.
 */
static void cgroup_identity_of_real_paths(void **state)
{
#define CID "4f1c2b3a4d5e6f708192a3b4c5d6e7f80123456789abcdef0123456789abcdef"
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
		{ "/lxc.payload.web01", "container", "lxc", "", "", "", "", "web01" },
		{ "/lxc/web01", "container", "lxc", "", "", "", "", "web01" },
		/* No rule: the path itself. */
		{ "/", "", "", "", "", "", "", "" },
		{ "/ia-ctl-refused-1234", "", "", "", "", "", "", "" },
		{ "/system.slice/docker-4f1c.scope", "unit", "", "docker-4f1c.scope", "", "", "", "" },
		{ "/kubepods.slice", "", "", "", "", "", "", "" },
		{ "/mygroup/" CID, "", "", "", "", "", "", "" },
	};
	struct ia_identity id;
	char buf[256];
	size_t i;

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
#undef CID
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
		cmocka_unit_test(failure_after_a_drain_is_a_new_episode),
		cmocka_unit_test(no_limit_means_no_alert_and_gone_clears),
		cmocka_unit_test(config_defaults_and_kind_sections),
		cmocka_unit_test(config_errors_name_the_line_and_change_nothing),
		cmocka_unit_test(exec_hook_gets_the_alert_as_json),
		cmocka_unit_test(exec_hung_hook_is_killed_and_alerting_goes_on),
		cmocka_unit_test(exec_missing_program_is_said_once),
		cmocka_unit_test(metrics_text_has_every_object_and_counter),
		cmocka_unit_test(exporter_port_in_use_said_and_others_go_on),
		cmocka_unit_test(exporter_serves_a_scrape_beside_2000_half_requests),
		cmocka_unit_test(rates_and_times_in_human_units),
		cmocka_unit_test(history_ring_bounded_oldest_first),
		cmocka_unit_test(cgroup_identity_of_real_paths),
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
