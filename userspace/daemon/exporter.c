// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exporter: its documents and paths, served by http.c from
 * the daemon's loop (no thread: the model needs no lock).
 *   /metrics  text exposition format 0.0.4
 *   /alerts   the alert state of every object, JSON (what
 *             `iommu-accountctl alerts` and `top` read)
 * It listens on [exporter] listen, 127.0.0.1:9847 by default, or on a Unix
 * socket (unix:PATH), where the kernel names each peer: root, the daemon's
 * own uid and the members of [exporter] group see every uid, any other
 * peer only its own uid's objects, holders and flight records, as the
 * module would show them to it (a TCP client is nobody known: it sees
 * what [exporter] detail says).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <netdb.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "iad.h"

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * A label value: valid UTF-8, escaped as the text format requires, whatever
 * bytes a tenant put in a cgroup name (libia's label form, lib/esc.c).
 */
static void label_value(FILE *f, const char *v)
{
	ia_fput_label(f, v);
}

/*
 * Per uid, its top [exporter] holders cgroups by the pot bytes their
 * processes hold, named as the operator knows them (libia's resolver):
 * container_id, pod_uid, runtime and unit, empty where the path names none.
 * A series is one cgroup: cgroup_id keeps two apart whose paths read the
 * same (cut by the module past PATH_MAX - 1 bytes, the value then ends with
 * IA_CUT_MARK; or unknown, "?").
 */
static void holder_series(FILE *f, struct iad *d)
{
	struct ia_identity id;
	size_t i;

	if (!d->nhs || d->cfg.objects_only)
		return;
	head(f, "iommu_account_holder_pot_bytes", "gauge",
	     "Pot bytes held by the processes of one cgroup (the top [exporter] holders per uid).");
	for (i = 0; i < d->nhs; i++) {
		if (!iad_view_sees(d, d->hs[i].uid))
			continue;
		ia_identity_of(d->hs[i].path, &id);
		fprintf(f, "iommu_account_holder_pot_bytes{uid=\"%u\",cgroup=\"", d->hs[i].uid);
		label_value(f, d->hs[i].path);
		if (d->hs[i].cut)
			fputs(IA_CUT_MARK, f);
		fprintf(f, "\",cgroup_id=\"%llu", (unsigned long long)d->hs[i].cgroup_id);
		fputs("\",container_id=\"", f);
		label_value(f, id.container_id);
		fputs("\",pod_uid=\"", f);
		label_value(f, id.pod_uid);
		fputs("\",runtime=\"", f);
		label_value(f, id.runtime);
		fputs("\",unit=\"", f);
		label_value(f, id.unit);
		fprintf(f, "\"} %llu\n", (unsigned long long)d->hs[i].bytes);
	}
	if (!d->nho)
		return;
	head(f, "iommu_account_holder_pot_other_bytes", "gauge",
	     "Pot bytes held by a uid's cgroups beyond its top [exporter] holders, summed: with its "
	     "holder series, what the uid's processes hold.");
	for (i = 0; i < d->nho; i++)
		if (iad_view_sees(d, d->ho[i].uid))
			fprintf(f, "iommu_account_holder_pot_other_bytes{uid=\"%u\"} %llu\n",
				d->ho[i].uid, (unsigned long long)d->ho[i].bytes);
}

/*
 * The exposition's own size, appended to @buf (@len bytes, open_memstream's):
 * its series (samples) counted, these three included, against [exporter]
 * series_budget, over which it says so. NULL if out of memory.
 */
static char *series_count(struct iad *d, char *buf, size_t *len)
{
	uint64_t n = 0, budget = (uint64_t)d->cfg.series_budget;
	char *p, *nb, tail[768];
	int tl;

	for (p = buf; p < buf + *len; p++) {
		if (*p != '#')
			n++;
		p = memchr(p, '\n', (size_t)(buf + *len - p));
		if (!p)
			break;
	}
	n += budget ? 3 : 1;
	tl = snprintf(tail, sizeof(tail),
		      "# HELP iommu_account_exporter_series Series in this exposition, these included.\n"
		      "# TYPE iommu_account_exporter_series gauge\n"
		      "iommu_account_exporter_series %llu\n", (unsigned long long)n);
	if (budget)
		tl += snprintf(tail + tl, sizeof(tail) - (size_t)tl,
			       "# HELP iommu_account_exporter_series_budget [exporter] series_budget.\n"
			       "# TYPE iommu_account_exporter_series_budget gauge\n"
			       "iommu_account_exporter_series_budget %llu\n"
			       "# HELP iommu_account_exporter_over_budget 1 while this exposition has "
			       "more series than [exporter] series_budget.\n"
			       "# TYPE iommu_account_exporter_over_budget gauge\n"
			       "iommu_account_exporter_over_budget %d\n",
			       (unsigned long long)budget, n > budget);
	nb = realloc(buf, *len + (size_t)tl + 1);
	if (!nb) {
		free(buf);
		return NULL;
	}
	memcpy(nb + *len, tail, (size_t)tl + 1);
	*len += (size_t)tl;
	return nb;
}

static void labels(struct iad *d, FILE *f, const struct iad_obj *ob)
{
	char kb[24];

	fprintf(f, "{kind=\"%s\",object=\"%u\",uid=\"%u\"",
		iad_kind_name(d, ob->kind, kb, sizeof(kb)), ob->id, ob->uid);
	/*
	 * The owner's container and pod (VFIO containers, iommufd contexts,
	 * qpairs), to join kube_pod_info on: one series per object either
	 * way, so within the cardinality the objects already cost. Left out
	 * when empty (the same series to Prometheus as an empty label), and
	 * under [exporter] detail = objects (they name a cgroup).
	 */
	if (!ob->ident || d->cfg.objects_only)
		return;
	if (ob->ident->container_id[0]) {
		fputs(",container_id=\"", f);
		label_value(f, ob->ident->container_id);
		fputc('"', f);
	}
	if (ob->ident->pod_uid[0]) {
		fputs(",pod_uid=\"", f);
		label_value(f, ob->ident->pod_uid);
		fputc('"', f);
	}
}

/*
 * The per-object families. One unit per metric name (Prometheus' rule):
 * used and limit are one family per unit the module announces for a kind
 * (iommu_account_quota_used_bytes, _entries, _descriptors); the alert state
 * is a state set. The names of 0.2.0 (LEGACY: used and limit in the
 * kind's unit under one name, the rate, the state as a number) are served
 * beside them only with [exporter] legacy_names = yes, for one release.
 */
enum { M_USED, M_LIMIT, M_LIMIT_MIN, M_UTIL, M_ETA, M_REFUSALS, M_STATE,
       M_OLD_USED, M_OLD_LIMIT, M_OLD_RATE, M_OLD_STATE, M_NOBJ };

#define PER_UNIT 1
#define LEGACY 2

static const struct metric {
	const char *name, *type, *help;
	int flags;
} obj_metrics[M_NOBJ] = {
	[M_USED] = { "iommu_account_quota_used", "gauge",
		     "What is charged now (uid-pot, iommufd-ctx: bytes; vfio-container: DMA mapping entries; qpair: descriptors).",
		     PER_UNIT },
	[M_LIMIT] = { "iommu_account_quota_limit", "gauge",
		      "Where the kernel refuses (absent: no limit applies; uid-pot: the RLIMIT_MEMLOCK of the process that charged it last, which the kernel compared with).",
		      PER_UNIT },
	[M_LIMIT_MIN] = { "iommu_account_uid_pot_smallest_limit_bytes", "gauge",
			  "uid-pot: the smallest RLIMIT_MEMLOCK among the uid's live processes, where the most constrained of them would be refused (absent: none alive, or unlimited).",
			  0 },
	[M_UTIL] = { "iommu_account_quota_utilization_ratio", "gauge", "used / limit.", 0 },
	[M_ETA] = { "iommu_account_quota_exhaustion_seconds", "gauge",
		    "Predicted seconds until used reaches limit, from the floor's trend (absent: not filling, or too early to tell a leak from a cycle).",
		    0 },
	[M_REFUSALS] = { "iommu_account_quota_refusals_total", "counter",
			 "Charges or mappings the kernel refused for lack of this quota (since the module loaded).",
			 0 },
	[M_STATE] = { "iommu_account_quota_state", "gauge",
		      "The daemon's alert state of the object, a state set: 1 for the state it is in, 0 for the others.",
		      0 },
	[M_OLD_USED] = { "iommu_account_quota_used", "gauge",
			 "Deprecated (legacy_names): what is charged now, in the kind's unit.", LEGACY },
	[M_OLD_LIMIT] = { "iommu_account_quota_limit", "gauge",
			  "Deprecated (legacy_names): where the kernel refuses, in the kind's unit.",
			  LEGACY },
	[M_OLD_RATE] = { "iommu_account_quota_rate", "gauge",
			 "Deprecated (legacy_names; deriv() of used): growth of used per second.",
			 LEGACY },
	[M_OLD_STATE] = { "iommu_account_alert_state", "gauge",
			  "Deprecated (legacy_names; iommu_account_quota_state): 0 ok, 1 warning, 2 critical, 3 failure.",
			  LEGACY },
};

/* Whether @m has a sample for @ob (absent: no limit, no rate of filling). */
static bool obj_has(const struct iad_obj *ob, int m)
{
	switch (m) {
	case M_LIMIT:
	case M_OLD_LIMIT:
		return ob->has_limit;
	case M_LIMIT_MIN:
		return ob->has_limit_min;
	case M_UTIL:
		return iad_obj_util(ob) >= 0;
	case M_ETA:
		/* A forecast the daemon stands by: what the shipped rules alert on. */
		return ob->has_eta && ob->trusted;
	default:
		return true;
	}
}

static void obj_metric(struct iad *d, FILE *f, int m, const char *name,
		       const struct iad_obj *ob)
{
	int s;

	if (!obj_has(ob, m) || !iad_view_sees(d, ob->uid))
		return;
	if (m == M_STATE) {
		for (s = 0; s < IAD_NSTATES; s++) {
			fputs(name, f);
			labels(d, f, ob);
			fprintf(f, ",state=\"%s\"} %d\n", iad_state_name(s), (int)ob->state == s);
		}
		return;
	}
	fputs(name, f);
	labels(d, f, ob);
	fputc('}', f);
	switch (m) {
	case M_USED:
	case M_OLD_USED:
		fprintf(f, " %llu\n", (unsigned long long)ob->used);
		break;
	case M_LIMIT:
	case M_OLD_LIMIT:
		fprintf(f, " %llu\n", (unsigned long long)ob->limit);
		break;
	case M_LIMIT_MIN:
		fprintf(f, " %llu\n", (unsigned long long)ob->limit_min);
		break;
	case M_UTIL:
		fprintf(f, " %.6g\n", iad_obj_util(ob));
		break;
	case M_OLD_RATE:
		fprintf(f, " %.6g\n", ob->rate);
		break;
	case M_ETA:
		fprintf(f, " %.6g\n", ob->eta_s);
		break;
	case M_REFUSALS:
		fprintf(f, " %llu\n", (unsigned long long)ob->refusals);
		break;
	default:
		fprintf(f, " %d\n", ob->state);
		break;
	}
}

/* The units a PER_UNIT family is split by: as many as the module has kinds. */
#define MAX_UNITS (IA_MAX_QUOTA_KINDS + 1)

/*
 * The objects' units as metric name parts, found once per exposition: the
 * distinct ones in the order of their first object, and each object's
 * index among them. Objects are sorted by kind, so a kind is looked up
 * and made a name part once. -ENOMEM or 0.
 */
struct unit_parts {
	char name[MAX_UNITS][32];
	unsigned int n;
	unsigned char *of;
};

static int unit_parts(struct iad *d, struct unit_parts *up)
{
	char unit[32];
	unsigned int u = 0;
	size_t i;

	up->n = 0;
	up->of = malloc(d->objs.n ? d->objs.n : 1);
	if (!up->of)
		return -ENOMEM;
	for (i = 0; i < d->objs.n; i++) {
		if (i && d->objs.v[i]->kind == d->objs.v[i - 1]->kind) {
			up->of[i] = up->of[i - 1];
			continue;
		}
		ia_metric_unit(iad_kind_unit(d, d->objs.v[i]->kind), unit, sizeof(unit));
		for (u = 0; u < up->n && strcmp(up->name[u], unit); u++)
			;
		if (u == up->n && up->n < MAX_UNITS)	/* (at most one per kind, and "units") */
			memcpy(up->name[up->n++], unit, sizeof(unit));
		up->of[i] = (unsigned char)u;
	}
	return 0;
}

/*
 * One family of @m: for a PER_UNIT metric, one per unit among the objects
 * (each under its own HELP and TYPE, its samples together, as the format
 * requires), in the order of each unit's first object.
 */
static void obj_family(struct iad *d, FILE *f, int m, const struct unit_parts *up)
{
	const struct metric *mt = &obj_metrics[m];
	char name[96];
	unsigned int u;
	size_t i;

	if (!(mt->flags & PER_UNIT)) {
		head(f, mt->name, mt->type, mt->help);
		for (i = 0; i < d->objs.n; i++)
			obj_metric(d, f, m, mt->name, d->objs.v[i]);
		return;
	}
	for (u = 0; u < up->n; u++) {
		snprintf(name, sizeof(name), "%.60s_%.31s", mt->name, up->name[u]);
		head(f, name, mt->type, mt->help);
		for (i = 0; i < d->objs.n; i++)
			if (up->of[i] == u)
				obj_metric(d, f, m, name, d->objs.v[i]);
	}
}

/*
 * The refusals the daemon attributed, by kind, the limit that refused
 * (cause), the consumer and [refusals] expected_uids: a count and the
 * kernel's time of the last. The shipped IommuAccountQuotaRefused fires on
 * the time (a new series is born with its first refusal, which increase()
 * would not count). Not in a one-uid view: they are every uid's.
 */
static void refusal_series(struct iad *d, FILE *f)
{
	static const char *const name[2] = { "iommu_account_refusals_total",
					     "iommu_account_refusal_last_timestamp_seconds" };
	char kb[24];
	size_t i;
	int m;

	if (!d->nrefusals || d->view_one_uid)
		return;
	for (m = 0; m < 2; m++) {
		head(f, name[m], m ? "gauge" : "counter",
		     m ? "When the kernel made the last of those refusals (CLOCK_REALTIME)." :
			 "Refusals the daemon attributed (an event, or a poll with the module's record of the last), since it started, by the limit that refused (cause), the consumer, and whether the refused uid is one of [refusals] expected_uids.");
		for (i = 0; i < d->nrefusals; i++) {
			const struct iad_refusal *r = &d->refusals[i];

			fprintf(f, "%s{kind=\"", name[m]);
			label_value(f, iad_kind_name(d, r->kind, kb, sizeof(kb)));
			fputs("\",cause=\"", f);
			label_value(f, r->cause);
			fputs("\",consumer=\"", f);
			label_value(f, r->consumer);
			fprintf(f, "\",expected=\"%s\"} ", r->expected ? "true" : "false");
			if (m)
				fprintf(f, "%.3f\n", r->last_t);
			else
				fprintf(f, "%llu\n", (unsigned long long)r->n);
		}
	}
}

/*
 * iommu_account_build_info: the daemon's version, and the module's and the
 * kernel's as the module last said (empty while it has not answered).
 */
static void build_info(struct iad *d, FILE *f)
{
	head(f, "iommu_account_build_info", "gauge",
	     "1, labelled with the daemon's version and the module's and kernel's it last saw.");
	fputs("iommu_account_build_info{version=\"", f);
	label_value(f, IA_VERSION);
	fputs("\",module_version=\"", f);
	label_value(f, d->st.module_version);
	fputs("\",kernel=\"", f);
	label_value(f, d->st.kernel_release);
	fputs("\"} 1\n", f);
}

/*
 * The kernel's refusals per kind since the module loaded, objects gone
 * included: a VM that fails to start on ENOSPC takes its container's series
 * with it before any scrape, this stays (the shipped IommuAccountQuotaRefused
 * is on it). Every kind the module follows has a sample, 0 included, so
 * increase() sees the first refusal.
 */
static void kind_refusals(struct iad *d, FILE *f)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < d->st.nkinds && d->up; i++) {
		if (!d->st.kinds[i].has_refusals)
			continue;
		if (!any)
			head(f, "iommu_account_kind_refusals_total", "counter",
			     "Refusals of the kind since the module loaded, every object's, gone ones included (the kernel's count).");
		any = true;
		fputs("iommu_account_kind_refusals_total{kind=\"", f);
		label_value(f, d->st.kinds[i].name);
		fprintf(f, "\"} %llu\n", (unsigned long long)d->st.kinds[i].refusals);
	}
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	head(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

char *iad_metrics_text(struct iad *d, size_t *len)
{
	struct unit_parts up;
	char *buf = NULL;
	FILE *f;
	int m, s;

	if (unit_parts(d, &up))
		return NULL;
	f = open_memstream(&buf, len);
	if (!f) {
		free(up.of);
		return NULL;
	}
	head(f, "iommu_account_up", "gauge", "Whether the module answers (1) or not (0).");
	fprintf(f, "iommu_account_up %d\n", d->up);
	build_info(d, f);
	for (m = 0; m < M_NOBJ; m++)
		if (!(obj_metrics[m].flags & LEGACY) || d->cfg.legacy_names)
			obj_family(d, f, m, &up);
	free(up.of);
	kind_refusals(d, f);
	refusal_series(d, f);
	head(f, "iommu_account_alerts_total", "counter",
	     "Alerts raised, by the state entered (CLEARED: back to ok).");
	for (s = 0; s < IAD_NSTATES; s++)
		fprintf(f, "iommu_account_alerts_total{alert=\"%s\"} %llu\n",
			s == IAD_OK ? "CLEARED" : iad_state_name(s),
			(unsigned long long)d->alerts[s]);
	counter(f, "iommu_account_events_total", "Events received from the module.",
		d->events_seen);
	counter(f, "iommu_account_events_lost_total",
		"Events missing from the sequence (module queue full or socket overrun).",
		d->events_lost);
	head(f, "iommu_account_events_last_seq", "gauge",
	     "Sequence number of the last event accounted for (received or counted lost).");
	fprintf(f, "iommu_account_events_last_seq %llu\n", (unsigned long long)d->last_seq);
	counter(f, "iommu_account_events_overruns_total",
		"Times the events socket overran (ENOBUFS).", d->overruns);
	counter(f, "iommu_account_resyncs_total",
		"Full dumps taken because events were lost or the module restarted.", d->resyncs);
	counter(f, "iommu_account_source_connects_total",
		"Times the daemon (re)connected to the module.", d->reconnects);
	counter(f, "iommu_account_module_restarts_total",
		"Event sequence restarts seen (module reloaded).", d->restarts);
	counter(f, "iommu_account_polls_total", "Polls of every quota object.", d->polls);
	counter(f, "iommu_account_poll_errors_total", "Polls that failed.", d->poll_errors);
	counter(f, "iommu_account_module_events_dropped_total",
		"Events the module could not queue (its own count).", d->st.events_dropped);
	counter(f, "iommu_account_exec_started_total", "Exec hooks started.", d->exec.started);
	counter(f, "iommu_account_exec_timeouts_total", "Exec hooks killed at the timeout.",
		d->exec.timeouts);
	counter(f, "iommu_account_exporter_slow_connections_total",
		"Exporter connections shut down for not sending a whole request in time.",
		iad_exporter_shut(d));
	counter(f, "iommu_account_exec_failed_total",
		"Exec hooks that failed (not started, non-zero exit, killed).", d->exec.failed);
	counter(f, "iommu_account_exec_dropped_total",
		"Alerts not run through the exec hook (queue full).", d->exec.dropped);
	counter(f, "iommu_account_history_write_errors_total",
		"Appends to the [history] file that failed (the daemon logs why and tries again).",
		d->hist_write_errors);
	head(f, "iommu_account_history_damaged_samples", "gauge",
	     "Samples of the [history] file whose checksum failed when the daemon last opened it.");
	fprintf(f, "iommu_account_history_damaged_samples %llu\n",
		(unsigned long long)d->hist_damaged);
	head(f, "iommu_account_history_open", "gauge",
	     "1 while the [history] file is open for writing, 0 when off or failing.");
	fprintf(f, "iommu_account_history_open %d\n", d->hist.hdr != NULL);
	head(f, "iommu_account_poll_interval_seconds", "gauge",
	     "Seconds between polls now: interval, doubled while nothing changes up to idle_interval.");
	fprintf(f, "iommu_account_poll_interval_seconds %g\n", d->cur_interval);
	head(f, "iommu_account_poll_duration_seconds", "gauge", "Duration of the last poll.");
	fprintf(f, "iommu_account_poll_duration_seconds %.6f\n", d->last_poll_s);
	holder_series(f, d);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return series_count(d, buf, len);
}

/*
 * /alerts (format 2), JSON: {"version":2,"up":BOOL,"alerts":[...]}, one
 * object per line. Each: kind, object, state, since_s (null before its
 * first alert), used, limit (null: none), unit, utilization (null without
 * a limit), rate, eta_s (null: not filling), trend (too_early, not_filling,
 * rising: not yet told from a cycle's rise, filling: eta_s stood by), uid;
 * with [exporter] detail =
 * full also pid and comm (of its owner, when it has one), reason, and
 * holders: the last FAILURE's flight record, most first ([] when none).
 * Names by libia's JSON rule (esc.c): valid UTF-8 always, and KEY_hex with
 * the raw bytes of a name that is not, so nothing a process calls itself
 * can break the document or forge an entry.
 */
char *iad_alerts_text(struct iad *d, size_t *len)
{
	char *buf = NULL, kb[24];
	FILE *f = open_memstream(&buf, len);
	struct ia_json j;
	unsigned int k;
	size_t i, n = 0;

	if (!f)
		return NULL;
	ia_json_init(&j, f);
	ia_json_obj_open(&j, NULL);
	ia_json_u64(&j, "version", 2);
	ia_json_bool(&j, "up", d->up);
	ia_json_arr_open(&j, "alerts");
	for (i = 0; i < d->objs.n; i++) {
		const struct iad_obj *ob = d->objs.v[i];
		double u = iad_obj_util(ob);

		if (!iad_view_sees(d, ob->uid))
			continue;
		/* One entry per line: the comma ends the line before. */
		fputs(n++ ? ",\n" : "\n", f);
		j.need_comma[j.depth] = false;
		ia_json_obj_open(&j, NULL);
		ia_json_str(&j, "kind", iad_kind_name(d, ob->kind, kb, sizeof(kb)));
		ia_json_u64(&j, "object", ob->id);
		ia_json_str(&j, "state", iad_state_name(ob->state));
		ia_json_double(&j, "since_s", "%.0f", ob->alerts ? d->now - ob->state_since : NAN);
		ia_json_u64(&j, "used", ob->used);
		ia_json_u64_or_null(&j, "limit", ob->has_limit ? ob->limit : UINT64_MAX);
		ia_json_str(&j, "unit", iad_kind_unit(d, ob->kind));
		ia_json_double(&j, "utilization", "%.6f", u >= 0 ? u : NAN);
		ia_json_double(&j, "rate", "%.6g", ob->rate);
		ia_json_double(&j, "eta_s", "%.1f", ob->has_eta ? ob->eta_s : NAN);
		ia_json_str(&j, "trend", iad_trend_name(ob->trend));
		ia_json_u64(&j, "uid", ob->uid);
		/* [exporter] detail = objects: no process, no reason naming one. */
		if (!d->cfg.objects_only && ob->owner.present) {
			ia_json_u64(&j, "pid", ob->owner.pid);
			if (ob->owner.comm[0])
				ia_json_str(&j, "comm", ob->owner.comm);
		}
		if (!d->cfg.objects_only && ob->reason && ob->reason[0])
			ia_json_str(&j, "reason", ob->reason);
		ia_json_arr_open(&j, "holders");
		for (k = 0; !d->cfg.objects_only && k < ob->nholders; k++) {
			const struct iad_holder *h = &ob->holders[k];

			if (!iad_view_sees(d, h->who.uid))
				continue;
			ia_json_obj_open(&j, NULL);
			ia_json_u64(&j, "pid", h->who.pid);
			ia_json_u64(&j, "uid", h->who.uid);
			ia_json_u64(&j, "held", h->held);
			ia_json_u64(&j, "cgroup_id", h->who.cgroup_id);
			ia_json_str(&j, "comm", h->who.comm);
			ia_json_obj_close(&j);
		}
		ia_json_arr_close(&j);
		ia_json_obj_close(&j);
	}
	ia_json_arr_close(&j);
	ia_json_obj_close(&j);
	fputc('\n', f);
	fclose(f);
	return buf;
}

/*
 * GET /healthz: 200 while the daemon's loop serves (a liveness probe: a
 * restart would not bring the module). GET /readyz: 200 once the module
 * answers, 503 and why not while it does not (not loaded, refused, out of
 * the supported range): a readiness probe, so a node without the module
 * shows not-ready, not a crash loop. The reason is the daemon's own text,
 * one line (it may name a module path; never tenant bytes).
 */
static char *probe_text(struct iad *d, bool ready, unsigned int *code, size_t *len)
{
	char *body = NULL, *c;
	int n;

	if (!ready)
		n = asprintf(&body, "ok\n");
	else if (d->up)
		n = asprintf(&body, "ready: iommu_account %s on %s\n", d->st.module_version,
			     d->st.kernel_release);
	else {
		*code = 503;
		n = asprintf(&body, "not ready: %s\n",
			     d->down_why[0] ? d->down_why : "iommu_account has not answered yet");
	}
	if (n < 0)
		return NULL;
	/* One line: a reason of several is joined. */
	for (c = body; *c && c[1]; c++)
		if (*c == '\n')
			*c = ' ';
	*len = (size_t)n;
	return body;
}

/*
 * Whether the user database puts @uid in group @gid (its primary group or
 * a member): what a TCP peer's groups are taken to be, the kernel giving
 * none. Answers are kept a minute, so that a scrape does not ask NSS each
 * time.
 */
static bool uid_in_group(uint32_t uid, gid_t gid)
{
	static struct { uint32_t uid; gid_t gid; bool in; double at; } seen[16];
	static unsigned int next;
	double now = ia_mono();
	struct passwd pw, *pwp = NULL;
	gid_t groups[256];
	int n = 256, i;
	char buf[4096];
	bool in = false;

	for (i = 0; i < 16; i++)
		if (seen[i].at && seen[i].uid == uid && seen[i].gid == gid && now - seen[i].at < 60)
			return seen[i].in;
	if (!getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) && pwp) {
		in = pw.pw_gid == gid;
		if (!in && getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) >= 0)
			for (i = 0; i < n && !in; i++)
				in = groups[i] == gid;
	}
	seen[next].uid = uid;
	seen[next].gid = gid;
	seen[next].in = in;
	seen[next].at = now;
	next = (next + 1) % 16;
	return in;
}

/*
 * Whether a named peer @p sees every uid: root, the daemon's own uid, or a
 * member of [exporter] group (its gid looked up when the name changes).
 */
static bool peer_sees_all(const struct iad *d, const struct iad_peer *p)
{
	static char name[sizeof(d->cfg.group)];
	static bool known;
	static gid_t gid;
	struct group *g;
	unsigned int i;

	if (p->uid == 0 || p->uid == geteuid())
		return true;
	if (strcmp(name, d->cfg.group)) {
		snprintf(name, sizeof(name), "%s", d->cfg.group);
		g = name[0] ? getgrnam(name) : NULL;
		known = g != NULL;
		gid = g ? g->gr_gid : 0;
	}
	if (!known)
		return false;
	if (!p->groups_known)
		return uid_in_group(p->uid, gid);
	if (p->gid == gid)
		return true;
	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

static char *route_doc(struct iad *d, const char *path, unsigned int *code, const char **type,
		       size_t *len);

/* The exporter's paths (http.c serves them), written for whom asked. */
static char *route(void *cls, const struct iad_peer *peer, const char *path, unsigned int *code,
		   const char **type, size_t *len)
{
	struct iad *d = cls;
	static int said;
	char *body;

	if (peer->err && peer->err != said && peer->err != -ENOTCONN) {
		iad_log(d, LOG_WARNING, "exporter: cannot name a TCP client (sock_diag: %s; "
			"the kernel's tcp_diag, CONFIG_INET_DIAG): it sees no uid's objects; "
			"listen = unix:PATH names every peer", strerror(-peer->err));
		said = peer->err;
	}
	/*
	 * The module's rule: a named peer sees its own uid, or every uid;
	 * a client from another host what [exporter] remote says (every uid,
	 * or none); a peer the kernel would not name, no uid.
	 */
	if (peer->named)
		d->view_one_uid = !peer_sees_all(d, peer);
	else
		d->view_one_uid = !(peer->remote && d->cfg.remote_all);
	d->view_uid = peer->named ? peer->uid : UINT32_MAX;
	body = route_doc(d, path, code, type, len);
	d->view_one_uid = false;
	return body;
}

static char *route_doc(struct iad *d, const char *path, unsigned int *code, const char **type,
		       size_t *len)
{
	char *body;

	*type = "text/plain; version=0.0.4; charset=utf-8";
	if (!strcmp(path, "/healthz") || !strcmp(path, "/readyz")) {
		*type = "text/plain; charset=utf-8";
		return probe_text(d, path[1] == 'r', code, len);
	}
	if (!strcmp(path, "/metrics"))
		return iad_metrics_text(d, len);
	if (!strcmp(path, "/alerts")) {
		*type = "application/json";
		return iad_alerts_text(d, len);
	}
	*code = 404;
	*type = "text/plain; charset=utf-8";
	body = strdup("iommu-accountd: /metrics (Prometheus), /alerts (alert states), /healthz, /readyz\n");
	if (body)
		*len = strlen(body);
	return body;
}

/*
 * "unix:PATH" into a bound, listening Unix socket, mode 0666: anyone may
 * connect, and sees what its uid may (route()). A socket already at PATH
 * that answers is another server's: refused (EADDRINUSE), as a taken port
 * is; one that does not is a stale one of ours, replaced; anything else
 * there is left alone (EEXIST).
 */
static int listen_unix(struct iad *d, const char *spec)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	const char *path = spec + 5;
	struct stat st;
	int fd, probe, err;

	snprintf(su.sun_path, sizeof(su.sun_path), "%s", path);
	if (!lstat(path, &st)) {
		err = S_ISSOCK(st.st_mode) ? EADDRINUSE : EEXIST;
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (err == EADDRINUSE && probe >= 0 &&
		    connect(probe, (struct sockaddr *)&su, sizeof(su)) && errno == ECONNREFUSED &&
		    !unlink(path))
			err = 0;
		if (probe >= 0)
			close(probe);
		if (err) {
			iad_log(d, LOG_ERR, "exporter: cannot listen on %s: %s", ia_sx(spec),
				strerror(err));
			return -err;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&su, sizeof(su)) || chmod(path, 0666) ||
	    listen(fd, 1024)) {
		err = errno;
		iad_log(d, LOG_ERR, "exporter: cannot listen on %s: %s", ia_sx(spec), strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	return fd;
}

/* "127.0.0.1:9847", "[::1]:9847", "0.0.0.0:9847" into a bound, listening socket. */
static int listen_on(struct iad *d, const char *spec)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai;
	char host[128], *port;
	int fd, one = 1, err;

	if (!strncmp(spec, "unix:", 5))
		return listen_unix(d, spec);
	snprintf(host, sizeof(host), "%s", spec[0] == '[' ? spec + 1 : spec);
	port = strrchr(host, ':');
	if (!port) {
		iad_log(d, LOG_ERR, "exporter: listen '%s' is not ADDRESS:PORT", spec);
		return -EINVAL;
	}
	*port++ = 0;
	if (spec[0] == '[' && port - host >= 2 && port[-2] == ']')
		port[-2] = 0;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		iad_log(d, LOG_ERR, "exporter: listen '%s': %s", spec, gai_strerror(err));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1024)) {
		err = errno;
		iad_log(d, LOG_ERR, "exporter: cannot listen on %s: %s", spec, strerror(err));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -err;
	}
	freeaddrinfo(ai);
	return fd;
}

/* @fd's own address as [exporter] listen would say it, in @buf. */
static void sock_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	char host[64], port[16];

	snprintf(buf, len, "?");
	if (getsockname(fd, (struct sockaddr *)&sa, &sl))
		return;
	if (sa.ss_family == AF_UNIX) {
		snprintf(buf, len, "unix:%.*s", (int)(sl - offsetof(struct sockaddr_un, sun_path)),
			 ((struct sockaddr_un *)&sa)->sun_path);
		return;
	}
	if (!getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port, sizeof(port),
			 NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, len, sa.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/*
 * The listening socket systemd passed (sd_listen_fds(3)): fd 3, when
 * LISTEN_PID is this process and LISTEN_FDS at least 1; -1 when none was
 * passed, -EBADF (said) when fd 3 is not a listening stream socket. Looked
 * at once, at the first start; the variables are removed, so that no
 * child (an exec hook) takes them for its own.
 */
static int activated_fd(struct iad *d)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int on = 0, type = 0, n = fds ? atoi(fds) : 0;
	socklen_t l = sizeof(on), tl = sizeof(type);
	bool ours = pid && strtol(pid, NULL, 10) == (long)getpid() && n >= 1;

	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (!ours)
		return -1;
	if (getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) || !on ||
	    getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_STREAM) {
		iad_log(d, LOG_ERR, "exporter: the socket systemd passed (fd 3) is not a "
			"listening stream socket (ListenStream= in iommu-accountd.socket)");
		return -EBADF;
	}
	if (n > 1)
		iad_log(d, LOG_WARNING, "exporter: systemd passed %d sockets; the first is "
			"served", n);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	fcntl(3, F_SETFL, fcntl(3, F_GETFL) | O_NONBLOCK);
	return 3;
}

int iad_exporter_start(struct iad *d)
{
	struct rlimit rl;
	int fd = -1;

	if (!d->activation_looked) {
		d->activation_looked = true;
		fd = activated_fd(d);
		d->activated = fd >= 0 || fd == -EBADF;
		if (fd == -EBADF)
			return fd;
		if (d->activated)
			sock_name(fd, d->act_name, sizeof(d->act_name));
	}
	if (d->activated && fd < 0)
		return 0;	/* a reload: the socket systemd passed stays served */
	if (!d->activated && !d->cfg.listen[0])
		return 0;
	if (!d->activated)
		fd = listen_on(d, d->cfg.listen);
	if (fd < 0)
		return fd;
	/* Room for the server's connections beside the daemon's own fds. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 2048) {
		rl.rlim_cur = rl.rlim_max < 2048 ? rl.rlim_max : 2048;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	d->http = iad_http_new(fd, route, d);
	if (!d->http) {
		iad_log(d, LOG_ERR, "exporter: %s", strerror(ENOMEM));
		close(fd);
		return -ENOMEM;
	}
	if (d->activated)
		iad_log(d, LOG_INFO, "exporter serving the socket systemd passed, %s "
			"([exporter] listen not bound)", ia_sx(d->act_name));
	else if (!strncmp(d->cfg.listen, "unix:", 5))
		iad_log(d, LOG_INFO, "exporter listening on %s (GET /metrics; each peer sees "
			"what its uid may)", ia_sx(d->cfg.listen));
	else
		iad_log(d, LOG_INFO, "exporter listening on http://%s/metrics", d->cfg.listen);
	return 0;
}

int iad_exporter_fd(const struct iad *d)
{
	return iad_http_fd(d->http);
}

void iad_exporter_run(struct iad *d)
{
	iad_http_run(d->http, ia_mono());
}

double iad_exporter_wait(const struct iad *d, double wait_s)
{
	return iad_http_wait(d->http, wait_s);
}

uint64_t iad_exporter_shut(const struct iad *d)
{
	return iad_http_shut(d->http);
}

void iad_exporter_stop(struct iad *d)
{
	/* A Unix socket's file goes with it (a crash leaves it stale: replaced at start). */
	if (d->http && !d->activated && !strncmp(d->cfg.listen, "unix:", 5))
		unlink(d->cfg.listen + 5);
	iad_http_free(d->http);		/* closes the listening socket too */
	d->http = NULL;
}
