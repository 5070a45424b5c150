// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl alerts [--daemon ADDR:PORT]: the alert state of every
 * quota object as iommu-accountd sees it (trend, time to exhaustion, state),
 * read from the daemon's exporter (GET /alerts, tab-separated). Needs the
 * daemon, not the module. Default address: 127.0.0.1:9847 (the daemon's
 * default [exporter] listen).
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ctl.h"

/* The body of GET @path from @addr ("host:port"), malloc'ed; NULL + message. */
char *ia_ctl_http_get(const char *addr, const char *path)
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

enum { F_KIND, F_OBJECT, F_STATE, F_SINCE, F_USED, F_LIMIT, F_UNIT, F_UTIL, F_RATE, F_ETA,
       F_UID, F_PID, F_COMM, F_REASON, F_COUNT };

static void json_num_or_null(struct ia_json *j, const char *key, const char *v)
{
	if (!strcmp(v, "-"))
		ia_json_null(j, key);
	else {
		if (j->need_comma[j->depth])
			fputc(',', j->f);
		fprintf(j->f, "\"%s\":%s", key, v);
		j->need_comma[j->depth] = true;
	}
}

static const char *amount(const char *unit, const char *v, char *buf, size_t len)
{
	if (!strcmp(unit, "bytes") && strcmp(v, "-"))
		return ia_human_bytes(strtoull(v, NULL, 10), buf, len);
	return v;
}

int cmd_alerts(struct ia_ctx *ctx)
{
	const char *addr = ctx->daemon ? ctx->daemon : "127.0.0.1:9847";
	char *doc = ia_ctl_http_get(addr, "/alerts"), *line, *save = NULL;
	char *f[F_COUNT], b1[32], b2[32], eta[32];
	struct ia_json *j = &ctx->j;
	unsigned int n = 0, i;
	bool up = false;

	if (!doc)
		return IA_EXIT_FAIL;
	ia_ctl_list_open(ctx);
	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# iommu-accountd alerts v1", 26)) {
			up = strstr(line, "up=1");
			continue;
		}
		if (!strncmp(line, "kind\t", 5))
			continue;
		for (i = 0; i < F_COUNT; i++) {
			f[i] = strsep(&line, "\t");
			if (!f[i])
				break;
		}
		if (i < F_COUNT)
			continue;
		if (ctx->json) {
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "kind", f[F_KIND]);
			json_num_or_null(j, "object", f[F_OBJECT]);
			ia_json_str(j, "state", f[F_STATE]);
			json_num_or_null(j, "since_s", strcmp(f[F_SINCE], "-1") ? f[F_SINCE] : "-");
			json_num_or_null(j, "used", f[F_USED]);
			json_num_or_null(j, "limit", f[F_LIMIT]);
			ia_json_str(j, "unit", f[F_UNIT]);
			json_num_or_null(j, "utilization", f[F_UTIL]);
			json_num_or_null(j, "rate", f[F_RATE]);
			json_num_or_null(j, "eta_s", f[F_ETA]);
			json_num_or_null(j, "uid", f[F_UID]);
			if (strcmp(f[F_PID], "0"))
				json_num_or_null(j, "pid", f[F_PID]);
			if (strcmp(f[F_COMM], "-"))
				ia_json_str(j, "comm", f[F_COMM]);
			if (strcmp(f[F_REASON], "-"))
				ia_json_str(j, "reason", f[F_REASON]);
			ia_json_obj_close(j);
			n++;
			continue;
		}
		if (!n++)
			printf("%-15s %8s %-9s %11s %11s %6s %12s %9s  %s\n", "KIND", "OBJECT", "STATE",
			       "USED", "LIMIT", "UTIL", "RATE/s", "ETA", "REASON");
		if (strcmp(f[F_ETA], "-"))
			snprintf(eta, sizeof(eta), "%.0fs", strtod(f[F_ETA], NULL));
		else
			snprintf(eta, sizeof(eta), "-");
		printf("%-15s %8s %-9s %11s %11s %5.1f%% %12.4g %9s  %s\n", f[F_KIND], f[F_OBJECT],
		       f[F_STATE], amount(f[F_UNIT], f[F_USED], b1, sizeof(b1)),
		       amount(f[F_UNIT], f[F_LIMIT], b2, sizeof(b2)),
		       strcmp(f[F_UTIL], "-") ? strtod(f[F_UTIL], NULL) * 100 : 0.0,
		       strtod(f[F_RATE], NULL), eta, f[F_REASON]);
	}
	ia_ctl_list_close(ctx);
	if (!ctx->json && !n)
		printf("no quota object followed%s\n",
		       up ? "" : " (iommu-accountd says: the module is not loaded)");
	free(doc);
	return IA_EXIT_OK;
}
