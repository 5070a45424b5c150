// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountd.conf: read whole into a copy, every line checked and every
 * error said with its own line, then the checks across keys; taken only when
 * all is good. Its own reader (not libinih, whose line length is compiled
 * into the library: 200 bytes in Debian's, where a longer line was split and
 * its rest read as a line of its own).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ia.h"

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
	/*
	 * A queue pair's pool is one its application defers on by design: a
	 * busy queue crosses 95 % on every burst. Its levels count when they
	 * last (its rejections are FAILUREs at once, as every kind's).
	 */
	snprintf(c->kinds[0].name, sizeof(c->kinds[0].name), "qpair");
	c->kinds[0].sustain_s = 30;
	c->kinds[0].has_sustain = true;
	c->nkinds = 1;
	c->exec_timeout_s = 10;
	c->exec_max = 4;
	c->exec_queue = 64;
	snprintf(c->listen, sizeof(c->listen), "%s", IAD_DEFAULT_LISTEN);
	snprintf(c->history, sizeof(c->history), "%s", IAD_HISTORY_PATH);
	c->history_max = 16 << 20;
	c->history_keep_s = 86400;
	c->holders = 5;
	c->series_budget = 10000;
	snprintf(c->group, sizeof(c->group), "%s", IAD_DEFAULT_GROUP);
}

/* Where each key was set: a check across keys names the later line. */
struct parse_key {
	char section[48], key[32];
	int line;
};

struct parse {
	struct iad_config *c;
	char why[IAD_CONFIG_LINE_MAX + 256];	/* this line's reason */
	const char *path;
	char *err;				/* every error, a line each */
	size_t errlen, errused;
	unsigned int nerr, lost;		/* said; beyond @err's room */
	struct parse_key *keys;
	unsigned int nkeys, capkeys;
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

/* yes or no. */
static int yes_no(struct parse *p, const char *name, const char *v, bool *out)
{
	if (strcmp(v, "yes") && strcmp(v, "no")) {
		snprintf(p->why, sizeof(p->why), "%s: '%s' is neither yes nor no", name, v);
		return -1;
	}
	*out = !strcmp(v, "yes");
	return 0;
}

static int thr_key(struct parse *p, const char *name, const char *v, double *val, bool *has)
{
	double d;

	if (!strcmp(name, "horizon") || !strcmp(name, "sustain")) {
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

/*
 * "4600-4699, 1234 2000": uids and inclusive ranges, separated by commas or
 * white space; empty: none. 0, or -1 with why.
 */
static int uid_ranges(struct parse *p, const char *name, const char *value,
		      struct iad_config *c)
{
	const char *s = value;
	unsigned int n = 0;
	unsigned long lo, hi;
	char *end;

	for (;;) {
		while (*s == ',' || *s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		errno = 0;
		if (*s < '0' || *s > '9' || (lo = strtoul(s, &end, 10), errno) || lo > UINT32_MAX)
			goto bad;
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9' || (hi = strtoul(s, &end, 10), errno) ||
			    hi > UINT32_MAX || hi < lo)
				goto bad;
		}
		if (*end && *end != ',' && *end != ' ' && *end != '\t')
			goto bad;
		if (n == IAD_MAX_EXPECTED) {
			snprintf(p->why, sizeof(p->why), "%s: more than %d uids or ranges", name,
				 IAD_MAX_EXPECTED);
			return -1;
		}
		c->expected[n].lo = (uint32_t)lo;
		c->expected[n++].hi = (uint32_t)hi;
		s = end;
	}
	c->nexpected = n;
	return 0;
bad:
	snprintf(p->why, sizeof(p->why),
		 "%s: '%.64s' is not a list of uids and ranges (\"4600-4699, 1234\")", name, value);
	return -1;
}

bool iad_config_expected(const struct iad_config *c, uint32_t uid)
{
	unsigned int i;

	for (i = 0; i < c->nexpected; i++)
		if (uid >= c->expected[i].lo && uid <= c->expected[i].hi)
			return true;
	return false;
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
		if (!strcmp(name, "events"))
			return !yes_no(p, name, value, &c->events);
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
		if (!strcmp(name, "sustain"))
			return !thr_key(p, name, value, &c->thr.sustain_s, NULL);
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
		if (!strcmp(name, "sustain"))
			return !thr_key(p, name, value, &k->sustain_s, &k->has_sustain);
	} else if (!strcmp(section, "exec")) {
		if (!strcmp(name, "program")) {
			if (value[0] && value[0] != '/') {
				snprintf(p->why, sizeof(p->why), "program: '%s' is not an absolute path",
					 value);
				return 0;
			}
			if (strlen(value) >= sizeof(c->exec_program)) {
				snprintf(p->why, sizeof(p->why),
					 "program: a path of %zu bytes (at most %zu)", strlen(value),
					 sizeof(c->exec_program) - 1);
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
				snprintf(p->why, sizeof(p->why), "listen: %zu bytes (at most %zu)",
					 strlen(value), sizeof(c->listen) - 1);
				return 0;
			}
			/* A Unix socket: an absolute path that fits sun_path. */
			if (!strncmp(value, "unix:", 5) &&
			    (value[5] != '/' || strlen(value + 5) >= IAD_SUN_PATH)) {
				snprintf(p->why, sizeof(p->why),
					 "listen: unix: takes an absolute path of under %d bytes",
					 IAD_SUN_PATH);
				return 0;
			}
			snprintf(c->listen, sizeof(c->listen), "%s",
				 strcmp(value, "off") ? value : "");
			return 1;
		}
		if (!strcmp(name, "group")) {
			if (strlen(value) >= sizeof(c->group)) {
				snprintf(p->why, sizeof(p->why), "group: %zu bytes (at most %zu)",
					 strlen(value), sizeof(c->group) - 1);
				return 0;
			}
			snprintf(c->group, sizeof(c->group), "%s", value);
			return 1;
		}
		if (!strcmp(name, "remote")) {
			if (strcmp(value, "none") && strcmp(value, "all")) {
				snprintf(p->why, sizeof(p->why),
					 "remote: '%s' is neither none nor all", value);
				return 0;
			}
			c->remote_all = !strcmp(value, "all");
			return 1;
		}
		if (!strcmp(name, "holders"))
			return !num(p, name, value, 0, 100, &c->holders);
		if (!strcmp(name, "series_budget"))
			return !num(p, name, value, 0, 10000000, &c->series_budget);
		if (!strcmp(name, "detail")) {
			if (strcmp(value, "full") && strcmp(value, "objects")) {
				snprintf(p->why, sizeof(p->why),
					 "detail: '%s' is neither full nor objects", value);
				return 0;
			}
			c->objects_only = !strcmp(value, "objects");
			return 1;
		}
		if (!strcmp(name, "legacy_names"))
			return !yes_no(p, name, value, &c->legacy_names);
	} else if (!strcmp(section, "history")) {
		if (!strcmp(name, "path")) {
			if (strlen(value) >= sizeof(c->history) ||
			    (strcmp(value, "off") && value[0] != '/')) {
				snprintf(p->why, sizeof(p->why),
					 "path: an absolute path (under %zu bytes) or off",
					 sizeof(c->history));
				return 0;
			}
			snprintf(c->history, sizeof(c->history), "%s",
				 strcmp(value, "off") ? value : "");
			return 1;
		}
		if (!strcmp(name, "max_size"))
			return !num(p, name, value, 65536, IA_HIST_MAX_BYTES, &c->history_max);
		if (!strcmp(name, "keep"))
			return !num(p, name, value, 60, 30 * 86400, &c->history_keep_s);
	} else if (!strcmp(section, "refusals")) {
		if (!strcmp(name, "expected_uids"))
			return !uid_ranges(p, name, value, c);
	} else {
		snprintf(p->why, sizeof(p->why), "unknown section [%s]", section);
		return 0;
	}
	snprintf(p->why, sizeof(p->why), "unknown key '%s' in [%s]", name, section);
	return 0;
}

/* The line of @key's last setting in [@section], 0 when it is not set there. */
static int key_line(const struct parse *p, const char *section, const char *key)
{
	int i;

	for (i = (int)p->nkeys - 1; i >= 0; i--)
		if (!strcmp(p->keys[i].section, section) && !strcmp(p->keys[i].key, key))
			return p->keys[i].line;
	return 0;
}

/* The later of the lines of two keys in [@section] or (inherited) [thresholds]. */
static int later_line(const struct parse *p, const char *section, const char *k1, const char *k2)
{
	int l[4] = { key_line(p, section, k1), key_line(p, section, k2), 0, 0 }, m = 0, i;

	if (strcmp(section, "thresholds")) {
		/* A kind's own setting wins; else the line it inherits. */
		l[2] = l[0] ? 0 : key_line(p, "thresholds", k1);
		l[3] = l[1] ? 0 : key_line(p, "thresholds", k2);
	}
	for (i = 0; i < 4; i++)
		if (l[i] > m)
			m = l[i];
	return m;
}

/* Thresholds must order: hysteresis < warn < crit. @line: that of the later key. */
static int check_thr(const struct iad_thr *t, const struct parse *p, const char *section,
		     int *line, char *why, size_t len)
{
	if (t->warn <= 0 || t->warn >= t->crit) {
		*line = later_line(p, section, "warn", "crit");
		snprintf(why, len, "[%s]: warn (%g%%) must be above 0 and below crit (%g%%)",
			 section, t->warn * 100, t->crit * 100);
		return -1;
	}
	if (t->hysteresis >= t->warn) {
		*line = later_line(p, section, "hysteresis", "warn");
		snprintf(why, len, "[%s]: hysteresis (%g%%) must be below warn (%g%%)", section,
			 t->hysteresis * 100, t->warn * 100);
		return -1;
	}
	return 0;
}

/*
 * One error, on a line of its own in @p->err: "PATH:LINE: why" (no LINE
 * when 0), its bytes as a sentence (lib/esc.c: a key or value holding a
 * control byte cannot forge a line). Past the room, counted.
 */
static void error_at(struct parse *p, int line, const char *why)
{
	char text[IAD_CONFIG_LINE_MAX + 512], lno[16] = "";
	size_t n, room = p->errlen - p->errused;

	p->nerr++;
	if (line)
		snprintf(lno, sizeof(lno), ":%d", line);
	n = (size_t)snprintf(text, sizeof(text), "%s%s%s: ", p->nerr > 1 ? "\n" : "", p->path, lno);
	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	ia_esc_sentence(why, text + n, sizeof(text) - n);
	n = strlen(text);
	/* Room for this line and for the count of what might not fit after it. */
	if (p->lost || n + 48 >= room) {
		p->lost++;
		return;
	}
	memcpy(p->err + p->errused, text, n + 1);
	p->errused += n;
}

static void remember(struct parse *p, const char *section, const char *key, int line)
{
	struct parse_key *k;

	if (p->nkeys == p->capkeys) {
		unsigned int cap = p->capkeys ? 2 * p->capkeys : 32;

		k = realloc(p->keys, cap * sizeof(*k));
		if (!k)
			return;	/* a check across keys then names no line: said without it */
		p->keys = k;
		p->capkeys = cap;
	}
	k = &p->keys[p->nkeys++];
	snprintf(k->section, sizeof(k->section), "%s", section);
	snprintf(k->key, sizeof(k->key), "%s", key);
	k->line = line;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* [@name]: a section the daemon knows; else why not in @p->why. */
static bool section_ok(struct parse *p, const char *name)
{
	static const char *const known[] = { "daemon", "thresholds", "exec", "exporter",
					     "history", "refusals" };
	unsigned int i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			return true;
	if (!strncmp(name, "thresholds.", 11) && name[11]) {
		if (strlen(name + 11) < sizeof(p->c->kinds[0].name))
			return true;
		snprintf(p->why, sizeof(p->why), "[%s]: a kind's name is at most %zu bytes", name,
			 sizeof(p->c->kinds[0].name) - 1);
		return false;
	}
	snprintf(p->why, sizeof(p->why), "unknown section [%s]", name);
	return false;
}

/*
 * The file's lines: "[section]", "key = value" (or "key: value"), blank
 * lines, comments from a first '#' or ';', and a ';' after white space ends
 * a value (libinih's rules, which the file was written for). A line is at
 * most IAD_CONFIG_LINE_MAX bytes. Each bad line is an error of its own; the
 * keys under an unknown section are not each said again.
 */
static void parse_text(struct parse *p, char *text, size_t len)
{
	char *line = text, *next, *end, *b, *e, *eq, *v;
	char section[IAD_CONFIG_LINE_MAX + 1] = "";
	bool in_bad = false, have = false;
	int no = 0;

	/* A UTF-8 byte-order mark, as an editor may write one. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		line += 3;
	for (; line < text + len; line = next) {
		no++;
		end = memchr(line, '\n', text + len - line);
		next = end ? end + 1 : text + len;
		if (!end)
			end = text + len;
		if (end - line > IAD_CONFIG_LINE_MAX) {
			snprintf(p->why, sizeof(p->why), "a line of %td bytes (at most %d)",
				 end - line, IAD_CONFIG_LINE_MAX);
			error_at(p, no, p->why);
			continue;
		}
		if (memchr(line, 0, end - line)) {
			error_at(p, no, "a NUL byte in the line");
			continue;
		}
		*end = 0;
		for (b = line; blank(*b); b++)
			;
		for (e = end; e > b && blank(e[-1]); e--)
			;
		*e = 0;
		if (!*b || *b == '#' || *b == ';')
			continue;
		if (*b == '[') {
			if (e[-1] != ']' || e - b < 3) {
				error_at(p, no, "a section is [name], alone on its line");
				in_bad = true;
				continue;
			}
			e[-1] = 0;
			for (b++; blank(*b); b++)
				;
			for (e -= 1; e > b && blank(e[-1]); e--)
				;
			*e = 0;
			snprintf(section, sizeof(section), "%s", b);
			have = true;
			in_bad = !section_ok(p, section);
			if (in_bad)
				error_at(p, no, p->why);
			continue;
		}
		eq = strpbrk(b, "=:");
		if (!eq || eq == b) {
			error_at(p, no, "not a key = value line or a [section]");
			continue;
		}
		for (v = eq + 1; blank(*v); v++)
			;
		for (e = v; *e; e++)
			if (*e == ';' && e > v && blank(e[-1]))
				break;
		for (*e = 0; e > v && blank(e[-1]); e--)
			;
		*e = 0;
		for (e = eq; e > b && blank(e[-1]); e--)
			;
		*e = 0;
		if (!have) {
			snprintf(p->why, sizeof(p->why), "'%s' before any [section]", b);
			error_at(p, no, p->why);
			continue;
		}
		if (in_bad)
			continue;
		p->why[0] = 0;
		if (!handler(p, section, b, v)) {
			error_at(p, no, p->why[0] ? p->why : "a bad value");
			continue;
		}
		remember(p, section, b, no);
	}
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
		if (k->has_sustain)
			thr->sustain_s = k->sustain_s;
	}
}

int iad_config_load(struct iad_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen)
{
	struct iad_config n;
	struct parse p = { .c = &n, .path = path, .err = err, .errlen = errlen };
	char where[64], *text = NULL;
	size_t len = 0, got;
	struct iad_thr t;
	unsigned int i;
	int line = 0;
	FILE *f;

	if (!errlen)
		return -1;
	err[0] = 0;
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
	/* Whole, within a bound that no configuration comes near. */
	text = malloc(IAD_CONFIG_MAX_SIZE + 2);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	while (len <= IAD_CONFIG_MAX_SIZE &&
	       (got = fread(text + len, 1, IAD_CONFIG_MAX_SIZE + 1 - len, f)) > 0)
		len += got;
	if (ferror(f) || len > IAD_CONFIG_MAX_SIZE) {
		snprintf(err, errlen, "%s: %s", path, ferror(f) ? strerror(errno) :
			 "larger than " IAD_STR(IAD_CONFIG_MAX_SIZE) " bytes");
		fclose(f);
		free(text);
		return -1;
	}
	fclose(f);
	text[len] = 0;
	parse_text(&p, text, len);
	free(text);
	/* Across keys: once every line is good (a bad value left its default). */
	if (!p.nerr) {
		if (check_thr(&n.thr, &p, "thresholds", &line, p.why, sizeof(p.why)))
			error_at(&p, line, p.why);
		for (i = 0; i < n.nkinds; i++) {
			iad_config_thr(&n, n.kinds[i].name, &t);
			snprintf(where, sizeof(where), "thresholds.%s", n.kinds[i].name);
			if (check_thr(&t, &p, where, &line, p.why, sizeof(p.why)))
				error_at(&p, line, p.why);
		}
		if (n.idle_interval_s < n.interval_s) {
			snprintf(p.why, sizeof(p.why),
				 "[daemon] idle_interval (%g s) must not be below interval (%g s)",
				 n.idle_interval_s, n.interval_s);
			error_at(&p, later_line(&p, "daemon", "idle_interval", "interval"), p.why);
		}
		if (n.window_s < 3 * n.interval_s) {
			snprintf(p.why, sizeof(p.why),
				 "[daemon] window (%g s) must hold at least 3 intervals (%g s)",
				 n.window_s, n.interval_s);
			error_at(&p, later_line(&p, "daemon", "window", "interval"), p.why);
		}
		if (n.trend_window_s &&
		    (n.trend_window_s < 4 * n.window_s ||
		     n.trend_window_s > IAD_FLOORS / 4 * n.window_s)) {
			snprintf(p.why, sizeof(p.why),
				 "[daemon] trend_window (%g s) must span 4 to %d windows (%g to %g s)",
				 n.trend_window_s, IAD_FLOORS / 4, 4 * n.window_s,
				 IAD_FLOORS / 4 * n.window_s);
			error_at(&p, later_line(&p, "daemon", "trend_window", "window"), p.why);
		}
	}
	free(p.keys);
	if (p.lost)
		snprintf(err + p.errused, errlen - p.errused, "\n%s: and %u more error(s)", path,
			 p.lost);
	if (p.nerr)
		return -1;
	*c = n;
	return 0;
}
