// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl history KIND:ID [--since T] [--until T] [--file PATH]
 * [--openmetrics]: the samples iommu-accountd kept of one object (its
 * [history] file), oldest first, as a table, JSON (-j) or OpenMetrics;
 * history --list: the objects the file holds, with their samples' span.
 * A FAILURE the daemon raised from an event is followed in the file by its
 * flight record's holders (format 3): shown under it, in JSON as its
 * "holders", in OpenMetrics as iommu_account_failure_holder_UNIT.
 * Needs neither the module nor the daemon: a post-mortem reads the file
 * alone. T is a time ago ("90s", "30m", "2h", "1d") or "@EPOCH"; --since is
 * by default the file's keep (24 h), --until now.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"

static const char *const state_names[] = { "OK", "WARNING", "CRITICAL", "FAILURE", "HOLDER" };

struct hsel {
	struct ia_ctx *ctx;
	const struct ia_hist_info *info;
	uint32_t kind, id;
	double since, until;
	unsigned int n;
	int pass;		/* OpenMetrics: 0 used, 1 limit, 2 the holders at FAILUREs */
	char unit[32];		/* OpenMetrics: the kind's unit as a name's part */
	/* The last record read was this object's FAILURE sample: its holders follow. */
	bool at_failure;
	struct ia_hist_rec failure;
	bool json_open, json_holders;	/* JSON: the last sample's object, its holders, open */
};

static const char *state_name(uint8_t s)
{
	return s <= IA_HIST_HOLDER ? state_names[s] : "?";
}

/* A sample's time, local, to the second. */
static const char *when_str(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

/* Whether @r is in the window --since and --until give. */
static bool in_window(const struct hsel *h, const struct ia_hist_rec *r)
{
	return r->t >= h->since && r->t <= h->until;
}

/* JSON: close the last sample's object (and its holders). */
static void json_close_sample(struct hsel *h)
{
	struct ia_json *j = &h->ctx->j;

	if (h->json_holders)
		ia_json_arr_close(j);
	if (h->json_open)
		ia_json_obj_close(j);
	h->json_holders = h->json_open = false;
}

/* A holder of the FAILURE just shown (h->failure): under it, or as its series. */
static void show_holder(struct hsel *h, const struct ia_hist_rec *r)
{
	const char *unit = h->info->units[h->kind], *kind = h->info->kinds[h->kind];
	struct ia_json *j = &h->ctx->j;
	char b1[32];

	if (h->ctx->hist_openmetrics) {
		if (h->pass != 2)
			return;
		printf("iommu_account_failure_holder_%s{kind=\"", h->unit);
		ia_fput_label(stdout, kind);
		printf("\",object=\"%u\",uid=\"%u\",pid=\"%u\",cgroup_id=\"%llu\"} %llu %.3f\n",
		       r->id, h->failure.uid, r->pid, (unsigned long long)r->cgroup_id,
		       (unsigned long long)r->held, r->t);
		return;
	}
	if (h->ctx->json) {
		if (!h->json_holders)
			ia_json_arr_open(j, "holders");
		h->json_holders = true;
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "pid", r->pid);
		ia_json_u64(j, "held", r->held);
		ia_json_u64(j, "cgroup_id", r->cgroup_id);
		ia_json_obj_close(j);
		return;
	}
	printf("%-19s %-15s %8s   held by pid %u (cgroup id %llu): %s\n", "", "", "", r->pid,
	       (unsigned long long)r->cgroup_id, ia_amount(unit, (double)r->held, b1, sizeof(b1)));
}

static int show(const struct ia_hist_rec *r, void *arg)
{
	struct hsel *h = arg;
	const char *unit = h->info->units[h->kind], *kind = h->info->kinds[h->kind];
	struct ia_json *j = &h->ctx->j;
	char when[32], b1[32], b2[32], util[16];
	bool mine = r->kind == h->kind && r->id == h->id && in_window(h, r);

	/* A holder belongs to the FAILURE sample right before it (an orphan: its went with the ring). */
	if (r->state == IA_HIST_HOLDER) {
		if (mine && h->at_failure && r->t == h->failure.t)
			show_holder(h, r);
		return 0;
	}
	h->at_failure = mine && r->state == IA_HIST_FAILURE;
	if (!mine)
		return 0;
	h->failure = *r;
	h->n++;
	if (h->ctx->hist_openmetrics) {
		/* The exporter's names and labels: a backfill joins the live series. */
		if (h->pass == 2 || (h->pass == 1 && !r->has_limit))
			return 0;
		printf("iommu_account_quota_%s_%s{kind=\"", h->pass ? "limit" : "used", h->unit);
		ia_fput_label(stdout, kind);
		printf("\",object=\"%u\",uid=\"%u\"} %llu %.3f\n", r->id, r->uid,
		       (unsigned long long)(h->pass ? r->limit : r->used), r->t);
		return 0;
	}
	if (h->ctx->json) {
		json_close_sample(h);
		ia_json_obj_open(j, NULL);
		h->json_open = true;
		ia_json_double(j, "time", "%.3f", r->t);
		ia_json_str(j, "kind", kind);
		ia_json_u64(j, "object", r->id);
		ia_json_str(j, "unit", unit);
		ia_json_u64(j, "used", r->used);
		ia_json_u64_if(j, "limit", r->has_limit, r->limit);
		ia_json_str(j, "state", state_name(r->state));
		ia_json_u64(j, "uid", r->uid);
		return 0;
	}
	if (h->n == 1)
		printf("%-19s %-15s %8s %11s %11s %6s  %s\n", "TIME", "KIND", "OBJECT", "USED",
		       "LIMIT", "UTIL", "STATE");
	when_str(r->t, when, sizeof(when));
	if (r->has_limit && r->limit)
		snprintf(util, sizeof(util), "%.1f%%", 100.0 * (double)r->used / (double)r->limit);
	else
		snprintf(util, sizeof(util), "-");
	printf("%-19s %-15s %8u %11s %11s %6s  %s\n", when, kind, r->id,
	       ia_amount(unit, (double)r->used, b1, sizeof(b1)),
	       r->has_limit ? ia_amount(unit, (double)r->limit, b2, sizeof(b2)) : "none", util,
	       state_name(r->state));
	return 0;
}

/* --list: every sample's object and figures, then sorted by object and time. */
struct hlist {
	struct hl {
		double t;
		uint32_t id, uid;
		uint8_t kind, state;
	} *v;
	size_t n, cap;
	const struct hsel *sel;	/* the window (--since, --until) */
	bool oom;		/* out of memory: the list would be short */
};

static int collect(const struct ia_hist_rec *r, void *arg)
{
	struct hlist *l = arg;
	struct hl *nv;

	if (!in_window(l->sel, r) || r->state == IA_HIST_HOLDER)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		nv = realloc(l->v, l->cap * sizeof(*l->v));
		if (!nv) {
			l->oom = true;
			return -1;
		}
		l->v = nv;
	}
	l->v[l->n++] = (struct hl){ r->t, r->id, r->uid, r->kind, r->state };
	return 0;
}

static int hl_cmp(const void *a, const void *b)
{
	const struct hl *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* One row per object: its samples, the first and last, its last state and uid. */
static void list_objects(struct ia_ctx *ctx, const struct ia_hist_info *info, struct hlist *l)
{
	struct ia_json *j = &ctx->j;
	char b1[32], b2[32];
	size_t i, first;

	qsort(l->v, l->n, sizeof(*l->v), hl_cmp);
	if (!ctx->json && l->n)
		printf("%-15s %10s %8s  %-19s  %-19s  %-8s %10s\n", "KIND", "OBJECT", "SAMPLES",
		       "FIRST", "LAST", "STATE", "UID");
	for (i = 0; i < l->n; i = first) {
		const struct hl *last;

		for (first = i + 1; first < l->n && l->v[first].kind == l->v[i].kind &&
				    l->v[first].id == l->v[i].id; first++)
			;
		last = &l->v[first - 1];
		if (ctx->json) {
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "kind", info->kinds[l->v[i].kind]);
			ia_json_u64(j, "object", l->v[i].id);
			ia_json_str(j, "unit", info->units[l->v[i].kind]);
			ia_json_u64(j, "samples", first - i);
			ia_json_double(j, "first", "%.3f", l->v[i].t);
			ia_json_double(j, "last", "%.3f", last->t);
			ia_json_str(j, "state", state_name(last->state));
			ia_json_u64(j, "uid", last->uid);
			ia_json_obj_close(j);
			continue;
		}
		printf("%-15s %10u %8zu  %-19s  %-19s  %-8s %10u\n", ia_tx(info->kinds[l->v[i].kind]),
		       l->v[i].id, first - i, when_str(l->v[i].t, b1, sizeof(b1)),
		       when_str(last->t, b2, sizeof(b2)), state_name(last->state), last->uid);
	}
}

/* "90s", "30m", "2h", "1d" ago, or "@EPOCH": seconds since the epoch; -1 if neither. */
static double parse_since(const char *s, double now)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s + (s[0] == '@'), &end);
	/* Digits only: strtod would take "nan", "inf" and hex. */
	if (end == s + (s[0] == '@') || errno || v < 0 || !isfinite(v) ||
	    !strchr("0123456789.", s[s[0] == '@']))
		return -1;
	if (s[0] == '@')
		return *end ? -1 : v;
	if (!strcmp(end, "s"))
		return now - v;
	if (!strcmp(end, "m"))
		return now - v * 60;
	if (!strcmp(end, "h"))
		return now - v * 3600;
	if (!strcmp(end, "d"))
		return now - v * 86400;
	return -1;
}

/* --since or --until's T, as seconds since the epoch; -1 (said) if it is neither form. */
static double time_arg(const char *opt, const char *v, double now)
{
	double t = parse_since(v, now);

	if (t < 0)
		fprintf(stderr, "iommu-accountctl: %s takes 90s, 30m, 2h, 1d or @EPOCH, not '%s'\n",
			opt, v);
	return t;
}

static int cmd_history(struct ia_ctx *ctx)
{
	const char *path = ctx->file ? ctx->file : "/var/lib/iommu-accountd/history";
	struct hsel h = { .ctx = ctx };
	struct hlist l = { 0 };
	struct ia_hist_info info;
	char name[64], err[512], *colon = NULL;
	struct timespec ts;
	double now;
	uint32_t k = 0;
	int ret;

	if (ctx->hist_list && (ctx->nargs || ctx->hist_openmetrics)) {
		fprintf(stderr, "iommu-accountctl: history --list lists the objects of the file: "
			"it takes no KIND:ID and no --openmetrics\n");
		return IA_EXIT_USAGE;
	}
	if (!ctx->hist_list) {
		/* KIND:ID, the kind by the name the daemon wrote into the file. */
		if (ctx->nargs == 1) {
			snprintf(name, sizeof(name), "%s", ctx->args[0]);
			colon = strrchr(name, ':');
		}
		if (!colon || ia_parse_u32(colon + 1, &h.id)) {
			fprintf(stderr, "iommu-accountctl: history takes KIND:ID (uid-pot:1000, "
				"vfio-container:3), or --list, not '%s'\n",
				ctx->nargs ? ctx->args[0] : "");
			return IA_EXIT_USAGE;
		}
		*colon = 0;
		if (!strcmp(name, "vfio"))
			snprintf(name, sizeof(name), "vfio-container");
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	h.until = INFINITY;
	if (ctx->hist_since && (h.since = time_arg("--since", ctx->hist_since, now)) < 0)
		return IA_EXIT_USAGE;
	if (ctx->hist_until && (h.until = time_arg("--until", ctx->hist_until, now)) < 0)
		return IA_EXIT_USAGE;
	if (ctx->hist_since && h.until < h.since) {
		fprintf(stderr, "iommu-accountctl: --until %s is before --since %s\n",
			ctx->hist_until, ctx->hist_since);
		return IA_EXIT_USAGE;
	}
	/* First the header alone: the kinds, and the keep for the default --since. */
	ret = ia_hist_read(path, &info, NULL, NULL, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iommu-accountctl: history: %s%s\n", err, ret == -ENOENT ?
			" (iommu-accountd writes it where [history] path says; --file names "
			"another)" : "");
		return ret == -ENOENT ? IA_EXIT_NOENT : IA_EXIT_FAIL;
	}
	if (!ctx->hist_since)
		h.since = now - info.keep_s;
	if (ctx->hist_list) {
		l.sel = &h;
		ia_ctl_list_open(ctx);
		ret = ia_hist_read(path, &info, collect, &l, err, sizeof(err));
		if (!ret && l.oom) {
			snprintf(err, sizeof(err), "%s: out of memory after %zu samples", path, l.n);
			ret = -ENOMEM;
		}
		if (!ret)
			list_objects(ctx, &info, &l);
		ia_ctl_list_close(ctx);
		if (!ret && !ctx->json && !l.n)
			printf("no sample in %s in that time\n", path);
		free(l.v);
		goto done;
	}
	for (k = 0; k < IA_HIST_KINDS && strcmp(info.kinds[k], name); k++)
		;
	if (k == IA_HIST_KINDS) {
		fprintf(stderr, "iommu-accountctl: history: %s has no kind '%s'\n", path, name);
		return IA_EXIT_NOENT;
	}
	h.kind = k;
	h.info = &info;
	if (ctx->hist_openmetrics) {
		ia_metric_unit(info.units[k], h.unit, sizeof(h.unit));
		printf("# TYPE iommu_account_quota_used_%s gauge\n# UNIT iommu_account_quota_used_%s %s\n",
		       h.unit, h.unit, h.unit);
		ret = ia_hist_read(path, &info, show, &h, err, sizeof(err));
		h.pass = 1;
		if (!ret) {
			printf("# TYPE iommu_account_quota_limit_%s gauge\n"
			       "# UNIT iommu_account_quota_limit_%s %s\n", h.unit, h.unit, h.unit);
			ret = ia_hist_read(path, &info, show, &h, err, sizeof(err));
		}
		h.pass = 2;
		if (!ret) {
			printf("# TYPE iommu_account_failure_holder_%s gauge\n"
			       "# UNIT iommu_account_failure_holder_%s %s\n"
			       "# HELP iommu_account_failure_holder_%s What each holder held at a FAILURE "
			       "(its flight record).\n", h.unit, h.unit, h.unit, h.unit);
			ret = ia_hist_read(path, &info, show, &h, err, sizeof(err));
		}
		if (!ret)
			printf("# EOF\n");
	} else {
		ia_ctl_list_open(ctx);
		ret = ia_hist_read(path, &info, show, &h, err, sizeof(err));
		json_close_sample(&h);
		ia_ctl_list_close(ctx);
		if (!ret && !ctx->json && !h.n)
			printf("no sample of %s:%u in %s in that time\n", name, h.id, path);
	}
done:
	if (ret) {
		fprintf(stderr, "iommu-accountctl: history: %s\n", err);
		return IA_EXIT_FAIL;
	}
	/* What could not be read is said, and fails the command: never silently less. */
	if (info.rebuilt)
		fprintf(stderr, "iommu-accountctl: history: %s: its header is damaged (checksum): "
			"read from the samples' own checksums, kinds by number\n", path);
	if (info.damaged || info.missing) {
		fprintf(stderr, "iommu-accountctl: history: %s: %llu of its %llu samples damaged "
			"(checksum), %llu missing (the file is cut short); the rest are shown\n",
			path, (unsigned long long)info.damaged, (unsigned long long)info.count,
			(unsigned long long)info.missing);
		return IA_EXIT_FAIL;
	}
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_history = {
	.name = "history",
	.fn = cmd_history,
	.opts = IA_CTL_OPTS(&ia_opt_since, &ia_opt_until, &ia_opt_list, &ia_opt_file,
			    &ia_opt_openmetrics),
	.max_args = 1,
	.no_netlink = true,
	.synopsis = "KIND:ID [--since T] [--until T] [--file PATH] [--openmetrics] | --list [--since "
		"T] [--until T] [--file PATH]",
	.help = "what iommu-accountd kept of it; the objects it kept",
	.example = "iommu-accountctl history uid-pot:1000 --since 2h\n"
		"iommu-accountctl history --list",
};
