// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl alerts [--daemon ADDR:PORT]: the alert state of every
 * quota object as iommu-accountd sees it (trend, time to exhaustion, state),
 * read from the daemon's exporter (GET /alerts, tab-separated). Needs the
 * daemon, not the module. Default address: 127.0.0.1:9847 (the daemon's
 * default [exporter] listen).
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ctl.h"

/* The body of GET @path from @addr ("host:port"), malloc'ed; NULL + message. */
static char *http_get(const char *addr, const char *path)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct timeval tv = { .tv_sec = 5 };
	char host[128], *port, *buf = NULL, *body;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, err;

	snprintf(host, sizeof(host), "%s", addr[0] == '[' ? addr + 1 : addr);
	port = strrchr(host, ':');
	if (!port) {
		fprintf(stderr, "iommu-accountctl: daemon address '%s' is not HOST:PORT\n", addr);
		return NULL;
	}
	*port++ = 0;
	if (port - host >= 2 && port[-2] == ']')
		port[-2] = 0;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "iommu-accountctl: %s: %s\n", addr, gai_strerror(err));
		return NULL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		fprintf(stderr, "iommu-accountctl: cannot reach iommu-accountd at %s: %s "
			"(is it running? `systemctl status iommu-accountd`)\n", addr, strerror(errno));
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	freeaddrinfo(ai);
	dprintf(fd, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, addr);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = 0;
	body = strstr(buf, "\r\n\r\n");
	if (strncmp(buf, "HTTP/1.", 7) || !body || strncmp(buf + 8, " 200", 4)) {
		fprintf(stderr, "iommu-accountctl: iommu-accountd at %s answered: %.60s\n", addr,
			buf);
		free(buf);
		return NULL;
	}
	memmove(buf, body + 4, strlen(body + 4) + 1);
	return buf;
}

int ia_ctl_alerts_get(const char *addr, struct ia_alert_rows *r)
{
	char *line, *save = NULL;
	unsigned int cap = 0, i;
	void *nf;

	memset(r, 0, sizeof(*r));
	r->doc = http_get(addr, "/alerts");
	if (!r->doc)
		return -1;
	for (line = strtok_r(r->doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# iommu-accountd alerts v1", 26)) {
			r->up = strstr(line, "up=1");
			continue;
		}
		if (!strncmp(line, "kind\t", 5))
			continue;
		if (r->n == cap) {
			nf = realloc(r->f, (cap = cap ? cap * 2 : 64) * sizeof(*r->f));
			if (!nf) {
				fprintf(stderr, "iommu-accountctl: out of memory\n");
				ia_ctl_alerts_free(r);
				return -1;
			}
			r->f = nf;
		}
		for (i = 0; i < IA_AL_FIELDS; i++)
			if (!(r->f[r->n][i] = strsep(&line, "\t")))
				break;
		/* A daemon before the flight record: no holders column. */
		if (i == IA_AL_HOLDERS)
			r->f[r->n][i++] = "-";
		if (i == IA_AL_FIELDS) {
			/* Names come in their text form (lib/esc.c): back to their bytes. */
			ia_unesc_text(r->f[r->n][IA_AL_COMM]);
			ia_unesc_text(r->f[r->n][IA_AL_REASON]);
			r->n++;		/* a short row is skipped */
		}
	}
	return 0;
}

void ia_ctl_alerts_free(struct ia_alert_rows *r)
{
	free(r->f);
	free(r->doc);
	memset(r, 0, sizeof(*r));
}

/*
 * The holders column ("pid/uid/held/cgroup_id/comm" joined by '|'): as JSON
 * objects, or as text ("pot_leak[123] 7.8 MiB, ..."), in @unit.
 */
static void holders_out(struct ia_json *j, const char *field, const char *unit)
{
	char *copy = strdup(field), *save = NULL, *e, b[32], idtext[1100];
	unsigned long long pid, uid, held, cg;
	struct ia_identity id;
	bool has_id;
	unsigned int n = 0;
	int off;

	if (!copy)
		return;
	if (j)
		ia_json_arr_open(j, "holders");
	for (e = strtok_r(copy, "|", &save); e && strcmp(e, "-"); e = strtok_r(NULL, "|", &save)) {
		if (sscanf(e, "%llu/%llu/%llu/%llu/%n", &pid, &uid, &held, &cg, &off) != 4)
			continue;
		ia_unesc_text(e + off);
		/* The container or pod of its cgroup, as this host names it now. */
		has_id = ia_identity_of_cgroup(cg, &id);
		if (j) {
			ia_json_obj_open(j, NULL);
			ia_json_u64(j, "pid", pid);
			ia_json_u64(j, "uid", uid);
			ia_json_str(j, "comm", e + off);
			ia_json_u64(j, "cgroup_id", cg);
			if (has_id)
				ia_json_identity(j, "identity", &id);
			ia_json_u64(j, "held", held);
			ia_json_obj_close(j);
		} else {
			printf("%s%s[%llu] %s%s%s%s", n ? ", " : "    held by ", ia_tx(e + off), pid,
			       ia_amount(unit, (double)held, b, sizeof(b)), has_id ? " (" : "",
			       has_id ? ia_identity_str(&id, idtext, sizeof(idtext)) : "",
			       has_id ? ")" : "");
		}
		n++;
	}
	if (j)
		ia_json_arr_close(j);
	else if (n)
		printf("\n");
	free(copy);
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

int cmd_alerts(struct ia_ctx *ctx)
{
	const char *addr = ctx->daemon ? ctx->daemon : "127.0.0.1:9847";
	char b1[32], b2[32], eta[32], rate[48], **f;
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
			json_num_or_null(j, "uid", f[IA_AL_UID]);
			if (strcmp(f[IA_AL_PID], "0"))
				json_num_or_null(j, "pid", f[IA_AL_PID]);
			if (strcmp(f[IA_AL_COMM], "-"))
				ia_json_str(j, "comm", f[IA_AL_COMM]);
			if (strcmp(f[IA_AL_REASON], "-"))
				ia_json_str(j, "reason", f[IA_AL_REASON]);
			holders_out(j, f[IA_AL_HOLDERS], f[IA_AL_UNIT]);
			ia_json_obj_close(j);
			continue;
		}
		if (!n)
			printf("%-15s %8s %-9s %11s %11s %6s %16s %11s  %s\n", "KIND", "OBJECT",
			       "STATE", "USED", "LIMIT", "UTIL", "RATE", "FULL IN", "REASON");
		/* In the kind's unit per second; a flat or falling trend is "not filling". */
		if (strcmp(f[IA_AL_ETA], "-"))
			ia_duration_str(strtod(f[IA_AL_ETA], NULL), eta, sizeof(eta));
		else
			snprintf(eta, sizeof(eta), "not filling");
		if (strcmp(f[IA_AL_RATE], "-"))
			ia_rate_str(f[IA_AL_UNIT], strtod(f[IA_AL_RATE], NULL), rate, sizeof(rate));
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
			holders_out(NULL, f[IA_AL_HOLDERS], f[IA_AL_UNIT]);
	}
	ia_ctl_list_close(ctx);
	if (!ctx->json && !r.n)
		printf("no quota object followed%s\n",
		       r.up ? "" : " (iommu-accountd says: the module is not loaded)");
	ia_ctl_alerts_free(&r);
	return IA_EXIT_OK;
}
