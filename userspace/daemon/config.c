// SPDX-License-Identifier: GPL-2.0
/* iommu-accountd.conf: parsed with libinih into a copy, checked, then taken. */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

void iad_config_defaults(struct iad_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_s = 1;
	c->idle_interval_s = 8;
	c->window_s = 60;
	c->trend_window_s = 0;		/* 30 windows */
	c->persist_s = 0;		/* 2 windows */
	c->log = IAD_LOG_AUTO;
	c->events = true;
	c->thr.warn = 0.80;
	c->thr.crit = 0.95;
	c->thr.hysteresis = 0.05;
	c->thr.horizon_s = 600;
	c->exec_timeout_s = 10;
	c->exec_max = 4;
	c->exec_queue = 64;
	snprintf(c->listen, sizeof(c->listen), "%s", IAD_DEFAULT_LISTEN);
	snprintf(c->history, sizeof(c->history), "%s", IAD_HISTORY_PATH);
	c->history_max = 16 << 20;
	c->history_keep_s = 86400;
	c->holders = 5;
}

struct parse {
	struct iad_config *c;
	char why[200];
	unsigned int section_kinds;
};

/* A number within [lo, hi]; the unit suffix (none, or % for percents). */
static int num(struct parse *p, const char *name, const char *v, double lo, double hi,
	       double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(d)) {
		snprintf(p->why, sizeof(p->why), "%s: '%s' is not a number", name, v);
		return -1;
	}
	if (d < lo || d > hi) {
		snprintf(p->why, sizeof(p->why), "%s: %s is out of range [%g, %g]", name, v, lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

static int thr_key(struct parse *p, const char *name, const char *v, double *val, bool *has)
{
	double d;

	if (!strcmp(name, "horizon")) {
		if (num(p, name, v, 0, 86400 * 365, &d))
			return -1;
		*val = d;
	} else {
		if (num(p, name, v, 0, 100, &d))
			return -1;
		*val = d / 100;
	}
	if (has)
		*has = true;
	return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct iad_config *c = p->c;
	struct iad_kind_cfg *k;
	unsigned int i;
	double d;

	if (!strcmp(section, "daemon")) {
		if (!strcmp(name, "interval"))
			return !num(p, name, value, 0.05, 3600, &c->interval_s);
		if (!strcmp(name, "idle_interval"))
			return !num(p, name, value, 0.05, 3600, &c->idle_interval_s);
		if (!strcmp(name, "window"))
			return !num(p, name, value, 1, 86400, &c->window_s);
		if (!strcmp(name, "trend_window"))
			return !num(p, name, value, 1, 86400 * 7, &c->trend_window_s);
		if (!strcmp(name, "persist"))
			return !num(p, name, value, 0, 86400, &c->persist_s);
		if (!strcmp(name, "events")) {
			if (!strcmp(value, "yes") || !strcmp(value, "no")) {
				c->events = !strcmp(value, "yes");
				return 1;
			}
			snprintf(p->why, sizeof(p->why), "events: '%s' is neither yes nor no", value);
			return 0;
		}
		if (!strcmp(name, "log")) {
			static const char *const logs[] = { "auto", "journal", "syslog", "stderr" };

			for (i = 0; i < 4; i++)
				if (!strcmp(value, logs[i])) {
					c->log = i;
					return 1;
				}
			snprintf(p->why, sizeof(p->why),
				 "log: '%s' is none of auto, journal, syslog, stderr", value);
			return 0;
		}
	} else if (!strcmp(section, "thresholds")) {
		if (!strcmp(name, "warn"))
			return !thr_key(p, name, value, &c->thr.warn, NULL);
		if (!strcmp(name, "crit"))
			return !thr_key(p, name, value, &c->thr.crit, NULL);
		if (!strcmp(name, "hysteresis"))
			return !thr_key(p, name, value, &c->thr.hysteresis, NULL);
		if (!strcmp(name, "horizon"))
			return !thr_key(p, name, value, &c->thr.horizon_s, NULL);
	} else if (!strncmp(section, "thresholds.", 11) && section[11]) {
		for (i = 0; i < c->nkinds; i++)
			if (!strcmp(c->kinds[i].name, section + 11))
				break;
		if (i == c->nkinds) {
			if (c->nkinds == IAD_MAX_KIND_CFG || strlen(section + 11) >= sizeof(k->name)) {
				snprintf(p->why, sizeof(p->why), "too many kinds, or a name too long");
				return 0;
			}
			snprintf(c->kinds[c->nkinds++].name, sizeof(k->name), "%s", section + 11);
		}
		k = &c->kinds[i];
		if (!strcmp(name, "warn"))
			return !thr_key(p, name, value, &k->warn, &k->has_warn);
		if (!strcmp(name, "crit"))
			return !thr_key(p, name, value, &k->crit, &k->has_crit);
		if (!strcmp(name, "hysteresis"))
			return !thr_key(p, name, value, &k->hysteresis, &k->has_hysteresis);
		if (!strcmp(name, "horizon"))
			return !thr_key(p, name, value, &k->horizon_s, &k->has_horizon);
	} else if (!strcmp(section, "exec")) {
		if (!strcmp(name, "program")) {
			if (value[0] && value[0] != '/') {
				snprintf(p->why, sizeof(p->why), "program: '%s' is not an absolute path",
					 value);
				return 0;
			}
			if (strlen(value) >= sizeof(c->exec_program)) {
				snprintf(p->why, sizeof(p->why), "program: path too long");
				return 0;
			}
			snprintf(c->exec_program, sizeof(c->exec_program), "%s", value);
			return 1;
		}
		if (!strcmp(name, "timeout"))
			return !num(p, name, value, 0.01, 3600, &c->exec_timeout_s);
		if (!strcmp(name, "max_running")) {
			if (num(p, name, value, 1, 64, &d))
				return 0;
			c->exec_max = (unsigned int)d;
			return 1;
		}
		if (!strcmp(name, "queue")) {
			if (num(p, name, value, 0, 100000, &d))
				return 0;
			c->exec_queue = (unsigned int)d;
			return 1;
		}
	} else if (!strcmp(section, "exporter")) {
		if (!strcmp(name, "listen")) {
			if (strlen(value) >= sizeof(c->listen)) {
				snprintf(p->why, sizeof(p->why), "listen: too long");
				return 0;
			}
			snprintf(c->listen, sizeof(c->listen), "%s",
				 strcmp(value, "off") ? value : "");
			return 1;
		}
		if (!strcmp(name, "holders"))
			return !num(p, name, value, 0, 100, &c->holders);
	} else if (!strcmp(section, "history")) {
		if (!strcmp(name, "path")) {
			if (strlen(value) >= sizeof(c->history) ||
			    (strcmp(value, "off") && value[0] != '/')) {
				snprintf(p->why, sizeof(p->why),
					 "path: an absolute path (under 256 bytes) or off");
				return 0;
			}
			snprintf(c->history, sizeof(c->history), "%s",
				 strcmp(value, "off") ? value : "");
			return 1;
		}
		if (!strcmp(name, "max_size"))
			return !num(p, name, value, 65536, 1 << 30, &c->history_max);
		if (!strcmp(name, "keep"))
			return !num(p, name, value, 60, 30 * 86400, &c->history_keep_s);
	} else {
		snprintf(p->why, sizeof(p->why), "unknown section [%s]", section);
		return 0;
	}
	snprintf(p->why, sizeof(p->why), "unknown key '%s' in [%s]", name, section);
	return 0;
}

/*
 * The line of @key in [@section] of @path (its last setting), 0 when it is
 * not set there: a check across keys names the line of the later one.
 */
static int key_line(const char *path, const char *section, const char *key)
{
	char buf[512], sec[128] = "", *b, *e;
	int line = 0, found = 0;
	size_t n = strlen(key);
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		for (b = buf; *b == ' ' || *b == '\t'; b++)
			;
		if (*b == '[') {
			e = strchr(b, ']');
			if (e) {
				*e = 0;
				snprintf(sec, sizeof(sec), "%s", b + 1);
			}
			continue;
		}
		if (strcmp(sec, section) || strncmp(b, key, n))
			continue;
		for (b += n; *b == ' ' || *b == '\t'; b++)
			;
		if (*b == '=' || *b == ':')
			found = line;
	}
	fclose(f);
	return found;
}

/* The later of the lines of two keys in [@section] or (inherited) [thresholds]. */
static int later_line(const char *path, const char *section, const char *k1, const char *k2)
{
	int l[4] = { key_line(path, section, k1), key_line(path, section, k2), 0, 0 }, m = 0, i;

	if (strcmp(section, "thresholds")) {
		/* A kind's own setting wins; else the line it inherits. */
		l[2] = l[0] ? 0 : key_line(path, "thresholds", k1);
		l[3] = l[1] ? 0 : key_line(path, "thresholds", k2);
	}
	for (i = 0; i < 4; i++)
		if (l[i] > m)
			m = l[i];
	return m;
}

/* Thresholds must order: hysteresis < warn < crit. @line: that of the later key. */
static int check_thr(const struct iad_thr *t, const char *path, const char *section, int *line,
		     char *why, size_t len)
{
	if (t->warn <= 0 || t->warn >= t->crit) {
		*line = later_line(path, section, "warn", "crit");
		snprintf(why, len, "[%s]: warn (%g%%) must be above 0 and below crit (%g%%)",
			 section, t->warn * 100, t->crit * 100);
		return -1;
	}
	if (t->hysteresis >= t->warn) {
		*line = later_line(path, section, "hysteresis", "warn");
		snprintf(why, len, "[%s]: hysteresis (%g%%) must be below warn (%g%%)", section,
			 t->hysteresis * 100, t->warn * 100);
		return -1;
	}
	return 0;
}

void iad_config_thr(const struct iad_config *c, const char *kind, struct iad_thr *thr)
{
	const struct iad_kind_cfg *k;
	unsigned int i;

	*thr = c->thr;
	thr->window_s = c->window_s;
	thr->trend_window_s = c->trend_window_s;
	thr->persist_s = c->persist_s;
	for (i = 0; kind && i < c->nkinds; i++) {
		k = &c->kinds[i];
		if (strcmp(k->name, kind))
			continue;
		if (k->has_warn)
			thr->warn = k->warn;
		if (k->has_crit)
			thr->crit = k->crit;
		if (k->has_hysteresis)
			thr->hysteresis = k->hysteresis;
		if (k->has_horizon)
			thr->horizon_s = k->horizon_s;
	}
}

int iad_config_load(struct iad_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen)
{
	struct iad_config n;
	struct parse p = { &n, "", 0 };
	struct iad_thr t;
	char where[64];
	unsigned int i;
	FILE *f;
	int line;

	iad_config_defaults(&n);
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && missing_ok) {
			*c = n;
			return 0;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	line = ini_parse_file(f, handler, &p);
	fclose(f);
	if (line) {
		snprintf(err, errlen, "%s:%d: %s", path, line,
			 p.why[0] ? p.why : "not a key = value line or a [section]");
		return -1;
	}
	if (check_thr(&n.thr, path, "thresholds", &line, p.why, sizeof(p.why)))
		goto bad;
	for (i = 0; i < n.nkinds; i++) {
		iad_config_thr(&n, n.kinds[i].name, &t);
		snprintf(where, sizeof(where), "thresholds.%s", n.kinds[i].name);
		if (check_thr(&t, path, where, &line, p.why, sizeof(p.why)))
			goto bad;
	}
	if (n.idle_interval_s < n.interval_s) {
		line = later_line(path, "daemon", "idle_interval", "interval");
		snprintf(p.why, sizeof(p.why),
			 "[daemon] idle_interval (%g s) must not be below interval (%g s)",
			 n.idle_interval_s, n.interval_s);
		goto bad;
	}
	if (n.window_s < 3 * n.interval_s) {
		line = later_line(path, "daemon", "window", "interval");
		snprintf(p.why, sizeof(p.why),
			 "[daemon] window (%g s) must hold at least 3 intervals (%g s)",
			 n.window_s, n.interval_s);
		goto bad;
	}
	if (n.trend_window_s &&
	    (n.trend_window_s < 4 * n.window_s || n.trend_window_s > IAD_FLOORS / 4 * n.window_s)) {
		line = later_line(path, "daemon", "trend_window", "window");
		snprintf(p.why, sizeof(p.why),
			 "[daemon] trend_window (%g s) must span 4 to %d windows (%g to %g s)",
			 n.trend_window_s, IAD_FLOORS / 4, 4 * n.window_s,
			 IAD_FLOORS / 4 * n.window_s);
		goto bad;
	}
	*c = n;
	return 0;
bad:
	if (line)
		snprintf(err, errlen, "%s:%d: %s", path, line, p.why);
	else
		snprintf(err, errlen, "%s: %s", path, p.why);
	return -1;
}
