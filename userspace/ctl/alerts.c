// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl alerts [--daemon ADDR:PORT]: the alert state of every
 * quota object as iommu-accountd sees it (trend, time to exhaustion, state),
 * read from the daemon's exporter (GET /alerts, JSON). Needs the
 * daemon, not the module. Default address: 127.0.0.1:9847 (the daemon's
 * default [exporter] listen).
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

/*
 * What is read of an answer: the whole of it within IA_CTL_HTTP_SECONDS, at
 * most IA_CTL_HTTP_MAX bytes. Whoever answers at the address may not be
 * the daemon (a process that took its port first), so neither a slow drip
 * nor an endless body holds the tool, and its bytes are shown escaped.
 */
#define IA_CTL_HTTP_SECONDS 10
#define IA_CTL_HTTP_MAX (64u << 20)

/* An answer's @len bytes at @p, for a message: escaped, and how many were left out. */
static void http_quote(const char *addr, unsigned int code, const char *p, size_t len)
{
	size_t show = len < 200 ? len : 200;
	char *s = strndup(p, show);

	fprintf(stderr, "iommu-accountctl: iommu-accountd at %s answered ", ia_sx(addr));
	if (code)
		fprintf(stderr, "%u: ", code);
	else
		fprintf(stderr, "what is not HTTP: ");
	fprintf(stderr, "\"%s\"", s ? ia_sx(s) : "?");
	if (len > show)
		fprintf(stderr, " (and %zu bytes more)", len - show);
	fputc('\n', stderr);
	free(s);
}

/* @fd connected to @sa within @deadline (monotonic seconds); 0 or -errno. */
static int connect_by(int fd, const struct sockaddr *sa, socklen_t salen, double deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t sl = sizeof(int);
	int err = 0;

	if (!connect(fd, sa, salen))
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	if (poll(&p, 1, (int)((deadline - ia_mono()) * 1000) + 1) <= 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) || err)
		return -(err ? err : errno);
	return 0;
}

/*
 * Whether the server at the other end of @fd (connected to @addr) may be
 * iommu-accountd: a process that took its port or socket path first (at a
 * restart, before the unit) would answer as it. The kernel names the
 * server's uid (ia_sock_peer_uid); the daemon runs as root, as the
 * packages' user iommu-accountd, as this tool's own uid, or (on a Unix
 * socket) as the owner of the directory the socket is in, which a
 * squatter elsewhere does not own. A server from another host cannot be
 * named and is not judged. 0, or -1 and a message.
 */
static int daemon_trusted(int fd, const char *addr)
{
	struct passwd *pw;
	struct stat st;
	uint32_t uid;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], *slash;

	if (ia_sock_peer_uid(fd, &uid))
		return 0;
	if (uid == 0 || uid == geteuid())
		return 0;
	pw = getpwnam(IA_DAEMON_USER);
	if (pw && pw->pw_uid == uid)
		return 0;
	if (!strncmp(addr, "unix:", 5)) {
		snprintf(dir, sizeof(dir), "%s", addr + 5);
		slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		if (!stat(dir, &st) && st.st_uid == uid)
			return 0;
	}
	pw = getpwuid(uid);
	fprintf(stderr, "iommu-accountctl: %s is served by uid %u%s%s%s, not by iommu-accountd's "
		"(root, %s%s): another program holds the daemon's address; not read\n",
		ia_sx(addr), uid, pw ? " (" : "", pw ? ia_sx(pw->pw_name) : "", pw ? ")" : "",
		IA_DAEMON_USER, strncmp(addr, "unix:", 5) ? "" : ", or the socket directory's owner");
	return -1;
}

/*
 * A socket connected to @addr ("host:port", or "unix:PATH": the daemon's
 * Unix socket, where it shows what this uid may see) within @deadline; -1
 * and a message when there is none.
 */
static int daemon_connect(const char *addr, double deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	char host[128], *port;
	int fd, err;

	if (!strncmp(addr, "unix:", 5)) {
		if (strlen(addr + 5) >= sizeof(su.sun_path)) {
			fprintf(stderr, "iommu-accountctl: %s: a path of under %zu bytes\n",
				ia_sx(addr), sizeof(su.sun_path));
			return -1;
		}
		memcpy(su.sun_path, addr + 5, strlen(addr + 5));
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		err = fd < 0 ? -errno : connect_by(fd, (struct sockaddr *)&su, sizeof(su), deadline);
	} else {
		snprintf(host, sizeof(host), "%s", addr[0] == '[' ? addr + 1 : addr);
		port = strrchr(host, ':');
		if (!port) {
			fprintf(stderr, "iommu-accountctl: daemon address '%s' is not HOST:PORT "
				"or unix:PATH\n", ia_sx(addr));
			return -1;
		}
		*port++ = 0;
		if (port - host >= 2 && port[-2] == ']')
			port[-2] = 0;
		err = getaddrinfo(host, port, &hints, &ai);
		if (err) {
			fprintf(stderr, "iommu-accountctl: %s: %s\n", ia_sx(addr), gai_strerror(err));
			return -1;
		}
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		err = fd < 0 ? -errno : connect_by(fd, ai->ai_addr, ai->ai_addrlen, deadline);
		freeaddrinfo(ai);
	}
	if (err) {
		fprintf(stderr, "iommu-accountctl: cannot reach iommu-accountd at %s: %s "
			"(is it running? `systemctl status iommu-accountd`)\n", ia_sx(addr),
			strerror(-err));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (daemon_trusted(fd, addr)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The body of GET @path from @addr ("host:port"), malloc'ed, and its status
 * in @code; NULL + message when there is no HTTP answer (none in time, one
 * larger than IA_CTL_HTTP_MAX, or not HTTP).
 */
static char *http_fetch(const char *addr, const char *path, unsigned int *code)
{
	double deadline = ia_mono() + IA_CTL_HTTP_SECONDS;
	char *buf = NULL, *body, req[512], whybuf[64];
	size_t len = 0, cap = 0, off = 0, reqlen;
	struct pollfd p;
	const char *why = NULL;
	ssize_t n;
	int fd;

	fd = daemon_connect(addr, deadline);
	if (fd < 0)
		return NULL;
	reqlen = (size_t)snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n",
				  path, strncmp(addr, "unix:", 5) ? addr : "localhost");
	if (reqlen >= sizeof(req))
		reqlen = sizeof(req) - 1;
	p.fd = fd;
	for (;;) {
		int left = (int)((deadline - ia_mono()) * 1000);

		p.events = off < reqlen ? POLLOUT : POLLIN;
		if (left <= 0 || poll(&p, 1, left) <= 0) {
			snprintf(whybuf, sizeof(whybuf), "no whole answer within %d s",
				 IA_CTL_HTTP_SECONDS);
			why = whybuf;
			break;
		}
		if (off < reqlen) {
			n = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				why = strerror(errno);
				break;
			}
			off += n > 0 ? (size_t)n : 0;
			continue;
		}
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (!nb) {
				why = strerror(ENOMEM);
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			why = strerror(errno);
			break;
		}
		if (!n)
			break;
		len += n;
		if (len > IA_CTL_HTTP_MAX) {
			snprintf(whybuf, sizeof(whybuf), "an answer larger than %u MiB: not read further",
				 IA_CTL_HTTP_MAX >> 20);
			why = whybuf;
			break;
		}
	}
	close(fd);
	if (why) {
		fprintf(stderr, "iommu-accountctl: iommu-accountd at %s: %s\n", ia_sx(addr), why);
		free(buf);
		return NULL;
	}
	if (!buf)
		buf = calloc(1, 1);
	if (!buf)
		return NULL;
	buf[len] = 0;
	body = strstr(buf, "\r\n\r\n");
	if (strncmp(buf, "HTTP/1.", 7) || !body || sscanf(buf + 8, " %3u", code) != 1 ||
	    strlen(buf) != len) {
		http_quote(addr, 0, buf, strlen(buf));
		free(buf);
		return NULL;
	}
	memmove(buf, body + 4, strlen(body + 4) + 1);
	return buf;
}

/* The body of GET @path when it is 200; NULL + message otherwise. */
static char *http_get(const char *addr, const char *path)
{
	unsigned int code = 0;
	char *body = http_fetch(addr, path, &code);

	if (body && code != 200) {
		http_quote(addr, code, body, strlen(body));
		free(body);
		return NULL;
	}
	return body;
}

/*
 * iommu-accountctl probe live|ready [--daemon ADDR:PORT]: the daemon's
 * GET /healthz or /readyz, for a container's liveness and readiness probes
 * where the runtime runs a command (podman's kube play turns an httpGet
 * probe into curl, which the image does not have): its line on stdout,
 * exit 0 when it answered 200, 1 otherwise (not reachable, not ready: the
 * reason on stderr).
 */
static int cmd_probe(struct ia_ctx *ctx)
{
	const char *addr = ctx->daemon ? ctx->daemon : "127.0.0.1:9847";
	const char *what = ctx->args[0];
	unsigned int code = 0;
	char *body;
	size_t len;

	if (strcmp(what, "live") && strcmp(what, "ready")) {
		fprintf(stderr, "iommu-accountctl: probe takes live or ready, not '%s'\n", what);
		return 2;
	}
	body = http_fetch(addr, what[0] == 'l' ? "/healthz" : "/readyz", &code);
	if (!body)
		return 1;
	/* Its line, in the sentence form: whoever answered chose the bytes. */
	len = strlen(body);
	if (len && body[len - 1] == '\n')
		body[len - 1] = 0;
	fprintf(code == 200 ? stdout : stderr, "%s\n", ia_sx(body));
	free(body);
	return code == 200 ? 0 : 1;
}

/* @s's bytes from its hex form (KEY_hex); NULL if it is not one. */
static char *unhex(const char *s)
{
	size_t n = strlen(s), i;
	char *out;
	unsigned int c;

	if (n % 2 || !(out = malloc(n / 2 + 1)))
		return NULL;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &c) != 1 || !c) {
			free(out);
			return NULL;
		}
		out[i] = (char)c;
	}
	out[i] = 0;
	return out;
}

/*
 * A member's text: a string's bytes (from KEY_hex when the daemon sent one:
 * a name that is not UTF-8), a number's text, "-" for null or absent.
 */
static const char *text_of(struct ia_alert_rows *r, const struct ia_jv *o, const char *key)
{
	const struct ia_jv *v = ia_jv_get(o, key), *hx;
	char hexkey[64], *raw, **nb;

	if (!v || (v->t != IA_JV_STR && v->t != IA_JV_NUM))
		return "-";
	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	hx = ia_jv_get(o, hexkey);
	if (v->t == IA_JV_STR && hx && hx->t == IA_JV_STR && (raw = unhex(hx->s))) {
		nb = realloc(r->own, (r->nown + 1) * sizeof(*r->own));
		if (!nb) {
			free(raw);
			return v->s;
		}
		r->own = nb;
		r->own[r->nown++] = raw;
		return raw;
	}
	return v->s;
}

static unsigned long long u64_of(const struct ia_jv *o, const char *key)
{
	const struct ia_jv *v = ia_jv_get(o, key);

	return v && v->t == IA_JV_NUM ? strtoull(v->s, NULL, 10) : 0;
}

const char *ia_ctl_full_in(const char *const *f, char *buf, size_t len)
{
	const char *trend = f[IA_AL_TREND];

	if (!strcmp(f[IA_AL_STATE], "FAILURE"))
		snprintf(buf, len, "refused");
	else if (strcmp(f[IA_AL_ETA], "-") && (!strcmp(trend, "-") || !strcmp(trend, "filling")))
		ia_duration_str(strtod(f[IA_AL_ETA], NULL), buf, len);
	else if (!strcmp(trend, "rising"))
		snprintf(buf, len, "rising");
	else if (!strcmp(trend, "too_early"))
		snprintf(buf, len, "too early");
	else
		snprintf(buf, len, "not filling");
	return buf;
}

int ia_ctl_alerts_get(const char *addr, struct ia_alert_rows *r)
{
	static const char *const keys[IA_AL_FIELDS] = {
		"kind", "object", "state", "since_s", "used", "limit", "unit", "utilization",
		"rate", "eta_s", "uid", "pid", "comm", "reason", "trend",
	};
	const struct ia_jv *list, *e, *hl, *up, *ver;
	char *body, err[128];
	unsigned int i, k;

	memset(r, 0, sizeof(*r));
	body = http_get(addr, "/alerts");
	if (!body)
		return -1;
	if (ia_jv_parse(body, &r->doc, err, sizeof(err))) {
		fprintf(stderr, "iommu-accountctl: iommu-accountd at %s sent an /alerts that is "
			"not JSON: %s\n", addr, err);
		free(body);
		return -1;
	}
	free(body);
	ver = ia_jv_get(&r->doc, "version");
	list = ia_jv_get(&r->doc, "alerts");
	if (!ver || ver->t != IA_JV_NUM || strcmp(ver->s, "2") || !list || list->t != IA_JV_ARR) {
		fprintf(stderr, "iommu-accountctl: iommu-accountd at %s sent an /alerts of another "
			"format (this tool reads version 2)\n", addr);
		ia_ctl_alerts_free(r);
		return -1;
	}
	up = ia_jv_get(&r->doc, "up");
	r->up = up && up->t == IA_JV_BOOL && up->b;
	r->f = calloc(list->n ? list->n : 1, sizeof(*r->f));
	r->holders = calloc(list->n ? list->n : 1, sizeof(*r->holders));
	if (!r->f || !r->holders) {
		fprintf(stderr, "iommu-accountctl: out of memory\n");
		ia_ctl_alerts_free(r);
		return -1;
	}
	for (i = 0; i < list->n; i++) {
		e = &list->a[i];
		if (e->t != IA_JV_OBJ)
			continue;
		for (k = 0; k < IA_AL_FIELDS; k++)
			r->f[r->n][k] = text_of(r, e, keys[k]);
		/* Before its first alert an object has no "since". */
		if (!strcmp(r->f[r->n][IA_AL_SINCE], "-"))
			r->f[r->n][IA_AL_SINCE] = "-1";
		hl = ia_jv_get(e, "holders");
		if (hl && hl->t == IA_JV_ARR && hl->n) {
			struct ia_alert_holders *h = &r->holders[r->n];

			h->h = calloc(hl->n, sizeof(*h->h));
			for (k = 0; h->h && k < hl->n; k++) {
				if (hl->a[k].t != IA_JV_OBJ)
					continue;
				h->h[h->n++] = (struct ia_alert_holder){
					.pid = u64_of(&hl->a[k], "pid"),
					.uid = u64_of(&hl->a[k], "uid"),
					.held = u64_of(&hl->a[k], "held"),
					.cgroup_id = u64_of(&hl->a[k], "cgroup_id"),
					.comm = text_of(r, &hl->a[k], "comm"),
				};
			}
		}
		r->n++;
	}
	return 0;
}

void ia_ctl_alerts_free(struct ia_alert_rows *r)
{
	unsigned int i;

	for (i = 0; r->holders && i < r->n; i++)
		free(r->holders[i].h);
	for (i = 0; i < r->nown; i++)
		free(r->own[i]);
	free(r->own);
	free(r->holders);
	free(r->f);
	ia_jv_free(&r->doc);
	memset(r, 0, sizeof(*r));
}

/* The flight record: as JSON objects, or as text ("pot_leak[123] 7.8 MiB, ..."), in @unit. */
static void holders_out(struct ia_json *j, const struct ia_alert_holders *hs, const char *unit)
{
	char b[32], idtext[IA_IDENTITY_TEXT];
	struct ia_identity id;
	unsigned int i;
	bool has_id;

	if (j)
		ia_json_arr_open(j, "holders");
	for (i = 0; i < hs->n; i++) {
		const struct ia_alert_holder *h = &hs->h[i];

		/* The container or pod of its cgroup, as this host names it now. */
		has_id = ia_identity_of_cgroup(h->cgroup_id, &id);
		if (j) {
			ia_json_obj_open(j, NULL);
			ia_json_u64(j, "pid", h->pid);
			ia_json_u64(j, "uid", h->uid);
			ia_json_str(j, "comm", h->comm);
			ia_json_u64(j, "cgroup_id", h->cgroup_id);
			if (has_id)
				ia_json_identity(j, "identity", &id);
			ia_json_u64(j, "held", h->held);
			ia_json_obj_close(j);
		} else {
			printf("%s%s[%llu] %s%s%s%s", i ? ", " : "    held by ", ia_tx(h->comm), h->pid,
			       ia_amount(unit, (double)h->held, b, sizeof(b)), has_id ? " (" : "",
			       has_id ? ia_identity_str(&id, idtext, sizeof(idtext)) : "",
			       has_id ? ")" : "");
		}
	}
	if (j)
		ia_json_arr_close(j);
	else if (hs->n)
		printf("\n");
}

static void json_num_or_null(struct ia_json *j, const char *key, const char *v)
{
	char *end;
	double d = strtod(v, &end);

	/* Only a finite number goes out as one: anything else is null. */
	if (!strcmp(v, "-") || end == v || *end || !isfinite(d))
		ia_json_null(j, key);
	else {
		if (j->need_comma[j->depth])
			fputc(',', j->f);
		fprintf(j->f, "\"%s\":%s", key, v);
		j->need_comma[j->depth] = true;
	}
}

/* A figure of the row in its unit, "-" as is. */
static const char *amount(const char *unit, const char *v, char *buf, size_t len)
{
	return strcmp(v, "-") ? ia_amount(unit, strtod(v, NULL), buf, len) : v;
}

static int cmd_alerts(struct ia_ctx *ctx)
{
	const char *addr = ctx->daemon ? ctx->daemon : "127.0.0.1:9847";
	char b1[32], b2[32], eta[32], rate[48];
	const char **f;
	struct ia_json *j = &ctx->j;
	struct ia_alert_rows r;
	unsigned int n;

	if (ia_ctl_alerts_get(addr, &r))
		return IA_EXIT_FAIL;
	ia_ctl_list_open(ctx);
	for (n = 0; n < r.n; n++) {
		f = r.f[n];
		if (ctx->json) {
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "kind", f[IA_AL_KIND]);
			json_num_or_null(j, "object", f[IA_AL_OBJECT]);
			ia_json_str(j, "state", f[IA_AL_STATE]);
			json_num_or_null(j, "since_s", strcmp(f[IA_AL_SINCE], "-1") ? f[IA_AL_SINCE] : "-");
			json_num_or_null(j, "used", f[IA_AL_USED]);
			json_num_or_null(j, "limit", f[IA_AL_LIMIT]);
			ia_json_str(j, "unit", f[IA_AL_UNIT]);
			json_num_or_null(j, "utilization", f[IA_AL_UTIL]);
			json_num_or_null(j, "rate", f[IA_AL_RATE]);
			json_num_or_null(j, "eta_s", f[IA_AL_ETA]);
			if (strcmp(f[IA_AL_TREND], "-"))
				ia_json_str(j, "trend", f[IA_AL_TREND]);
			json_num_or_null(j, "uid", f[IA_AL_UID]);
			if (strcmp(f[IA_AL_PID], "-") && strcmp(f[IA_AL_PID], "0"))
				json_num_or_null(j, "pid", f[IA_AL_PID]);
			if (strcmp(f[IA_AL_COMM], "-"))
				ia_json_str(j, "comm", f[IA_AL_COMM]);
			if (strcmp(f[IA_AL_REASON], "-"))
				ia_json_str(j, "reason", f[IA_AL_REASON]);
			holders_out(j, &r.holders[n], f[IA_AL_UNIT]);
			ia_json_obj_close(j);
			continue;
		}
		if (!n)
			printf("%-15s %8s %-9s %11s %11s %6s %16s %11s  %s\n", "KIND", "OBJECT",
			       "STATE", "USED", "LIMIT", "UTIL", "RATE", "FULL IN", "REASON");
		ia_ctl_full_in(f, eta, sizeof(eta));
		if (strcmp(f[IA_AL_RATE], "-"))
			ia_rate_str(ia_tx(f[IA_AL_UNIT]), strtod(f[IA_AL_RATE], NULL), rate, sizeof(rate));
		else
			snprintf(rate, sizeof(rate), "-");
		printf("%-15s %8s %-9s %11s %11s %5.1f%% %16s %11s  %s\n", ia_tx(f[IA_AL_KIND]),
		       ia_tx(f[IA_AL_OBJECT]), ia_tx(f[IA_AL_STATE]),
		       amount(f[IA_AL_UNIT], f[IA_AL_USED], b1, sizeof(b1)),
		       amount(f[IA_AL_UNIT], f[IA_AL_LIMIT], b2, sizeof(b2)),
		       strcmp(f[IA_AL_UTIL], "-") ? strtod(f[IA_AL_UTIL], NULL) * 100 : 0.0,
		       rate, eta, ia_tx(f[IA_AL_REASON]));
		/* A FAILURE's flight record, on a line of its own. */
		if (!strcmp(f[IA_AL_STATE], "FAILURE"))
			holders_out(NULL, &r.holders[n], f[IA_AL_UNIT]);
	}
	ia_ctl_list_close(ctx);
	if (!ctx->json && !r.n)
		printf("no quota object followed%s\n",
		       r.up ? "" : " (iommu-accountd says: the module is not loaded)");
	ia_ctl_alerts_free(&r);
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_alerts = {
	.name = "alerts",
	.fn = cmd_alerts,
	.opts = IA_CTL_OPTS(&ia_opt_daemon),
	.no_netlink = true,
	.synopsis = "[--daemon ADDR:PORT]",
	.help = "iommu-accountd's alert states: trend, time to exhaustion",
	.example = "iommu-accountctl alerts\n"
		"iommu-accountctl alerts --daemon unix:/run/iommu-accountd/exporter.sock",
};

const struct ia_ctl_cmd ia_cmd_probe = {
	.name = "probe",
	.fn = cmd_probe,
	.opts = IA_CTL_OPTS(&ia_opt_daemon),
	.min_args = 1,
	.max_args = 1,
	.no_netlink = true,
	.synopsis = "live|ready [--daemon ADDR:PORT]",
	.help = "is iommu-accountd alive, does the module answer it (exit 0 or 1): a container's "
		"probes",
	.no_json = true,
	.example = "iommu-accountctl probe ready",
};
