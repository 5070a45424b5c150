// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exporter, driven from the daemon's loop through its epoll
 * fd (no thread: the model needs no lock).
 *   /metrics  text exposition format 0.0.4
 *   /alerts   the alert state of every object, tab-separated with a header
 *             (what `iommu-accountctl alerts` reads)
 * It listens on [exporter] listen, 127.0.0.1:9847 by default.
 *
 * The HTTP is its own, and small: GET and HEAD of a path, HTTP/1.0 or 1.1,
 * one request per connection (answered with Connection: close), a request
 * of at most IAD_HTTP_REQ_MAX bytes, no body, no TLS. A library would add
 * nothing a scraper needs here; Debian's libmicrohttpd brought GnuTLS and
 * its dependencies along (2.5 MiB resident of the daemon's 6.5).
 *
 * No client can starve the others (a slowloris: connections that send
 * nothing, or a byte now and then): a request must arrive whole within
 * IAD_HTTP_DEADLINE_S of the connection, or the connection is shut down;
 * IAD_HTTP_IDLE_S without progress either way closes it too; and while
 * more than IAD_HTTP_CONNS - IAD_HTTP_SPARE connections are open, the
 * oldest that have not sent a whole request are shut down first, so a new
 * client always finds a place.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "iad.h"

#define IAD_HTTP_CONNS 512		/* connections at once */
#define IAD_HTTP_SPARE 32		/* kept free for new clients */
#define IAD_HTTP_DEADLINE_S 2.0		/* for a whole request, from the connection */
#define IAD_HTTP_IDLE_S 2.0		/* without progress either way */
#define IAD_HTTP_REQ_MAX 4096		/* a request's line and headers */

/* One open connection, oldest first in the list. */
struct iad_conn {
	int fd;
	double start, last;		/* connected; last progress */
	bool answered;			/* a whole request came: writing the answer */
	char in[IAD_HTTP_REQ_MAX];
	size_t nin;
	char *out;			/* the answer, and how far it went */
	size_t nout, off;
	struct iad_conn *prev, *next;
};

struct iad_http {
	int lfd, efd;			/* listening socket; epoll of it and the connections */
	struct iad_conn *head, *tail;
	unsigned int n;
	uint64_t shut;			/* connections shut down for being slow */
};

struct metric {
	const char *name, *type, *help;
};

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void labels(struct iad *d, FILE *f, const struct iad_obj *ob)
{
	char kb[24];

	fprintf(f, "{kind=\"%s\",object=\"%u\",uid=\"%u\"}",
		iad_kind_name(d, ob->kind, kb, sizeof(kb)), ob->id, ob->uid);
}

enum { M_USED, M_LIMIT, M_UTIL, M_RATE, M_ETA, M_REFUSALS, M_STATE, M_NOBJ };

static const struct metric obj_metrics[M_NOBJ] = {
	[M_USED] = { "iommu_account_quota_used", "gauge",
		     "What is charged now, in the kind's unit (uid-pot: bytes; vfio-container: DMA mapping entries)." },
	[M_LIMIT] = { "iommu_account_quota_limit", "gauge",
		      "Where the kernel refuses, in the kind's unit (absent: no limit applies)." },
	[M_UTIL] = { "iommu_account_quota_utilization_ratio", "gauge",
		     "used / limit." },
	[M_RATE] = { "iommu_account_quota_rate", "gauge",
		     "Growth of used per second, least squares over the daemon's window." },
	[M_ETA] = { "iommu_account_quota_exhaustion_seconds", "gauge",
		    "Predicted seconds until used reaches limit at that rate (absent: not growing)." },
	[M_REFUSALS] = { "iommu_account_quota_refusals_total", "counter",
			 "Charges or mappings the kernel refused for lack of this quota (since the module loaded)." },
	[M_STATE] = { "iommu_account_alert_state", "gauge",
		      "Alert state: 0 ok, 1 warning, 2 critical, 3 failure." },
};

static void obj_metric(struct iad *d, FILE *f, int m, const struct iad_obj *ob)
{
	double u = iad_obj_util(ob);

	switch (m) {
	case M_USED:
		break;
	case M_LIMIT:
		if (!ob->has_limit)
			return;
		break;
	case M_UTIL:
		if (u < 0)
			return;
		break;
	case M_ETA:
		if (!ob->has_eta)
			return;
		break;
	default:
		break;
	}
	fputs(obj_metrics[m].name, f);
	labels(d, f, ob);
	switch (m) {
	case M_USED:
		fprintf(f, " %llu\n", (unsigned long long)ob->used);
		break;
	case M_LIMIT:
		fprintf(f, " %llu\n", (unsigned long long)ob->limit);
		break;
	case M_UTIL:
		fprintf(f, " %.6g\n", u);
		break;
	case M_RATE:
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

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	head(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

char *iad_metrics_text(struct iad *d, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;
	int m, s;

	if (!f)
		return NULL;
	head(f, "iommu_account_up", "gauge", "Whether the module answers (1) or not (0).");
	fprintf(f, "iommu_account_up %d\n", d->up);
	for (m = 0; m < M_NOBJ; m++) {
		head(f, obj_metrics[m].name, obj_metrics[m].type, obj_metrics[m].help);
		for (i = 0; i < d->objs.n; i++)
			obj_metric(d, f, m, d->objs.v[i]);
	}
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
	head(f, "iommu_account_poll_interval_seconds", "gauge",
	     "Seconds between polls now: interval, doubled while nothing changes up to idle_interval.");
	fprintf(f, "iommu_account_poll_interval_seconds %g\n", d->cur_interval);
	head(f, "iommu_account_poll_duration_seconds", "gauge", "Duration of the last poll.");
	fprintf(f, "iommu_account_poll_duration_seconds %.6f\n", d->last_poll_s);
	fclose(f);
	return buf;
}

char *iad_alerts_text(struct iad *d, size_t *len)
{
	char *buf = NULL, kb[24];
	FILE *f = open_memstream(&buf, len);
	size_t i;

	if (!f)
		return NULL;
	fprintf(f, "# iommu-accountd alerts v1 up=%d\n"
		   "kind\tobject\tstate\tsince_s\tused\tlimit\tunit\tutilization\trate\teta_s\t"
		   "uid\tpid\tcomm\treason\n", d->up);
	for (i = 0; i < d->objs.n; i++) {
		const struct iad_obj *ob = d->objs.v[i];
		double u = iad_obj_util(ob);

		fprintf(f, "%s\t%u\t%s\t%.0f\t%llu\t", iad_kind_name(d, ob->kind, kb, sizeof(kb)),
			ob->id, iad_state_name(ob->state),
			ob->alerts ? d->now - ob->state_since : -1.0,
			(unsigned long long)ob->used);
		if (ob->has_limit)
			fprintf(f, "%llu", (unsigned long long)ob->limit);
		else
			fputc('-', f);
		fprintf(f, "\t%s\t", iad_kind_unit(d, ob->kind));
		if (u >= 0)
			fprintf(f, "%.6f", u);
		else
			fputc('-', f);
		fprintf(f, "\t%.6g\t", ob->rate);
		if (ob->has_eta)
			fprintf(f, "%.1f", ob->eta_s);
		else
			fputc('-', f);
		fprintf(f, "\t%u\t%u\t%s\t%s\n", ob->uid, ob->owner.present ? ob->owner.pid : 0,
			ob->owner.present && ob->owner.comm[0] ? ob->owner.comm : "-",
			ob->reason[0] ? ob->reason : "-");
	}
	fclose(f);
	return buf;
}

/* The answer to one request: status line, headers and (not for HEAD) the body. */
static void answer(struct iad *d, struct iad_conn *k)
{
	const char *type = "text/plain; version=0.0.4; charset=utf-8";
	const char *status = "200 OK", *extra = "";
	char method[8] = "", path[256] = "", version[16] = "";
	char *body = NULL, *hdr = NULL;
	size_t len = 0;
	int n;

	k->in[k->nin < sizeof(k->in) ? k->nin : sizeof(k->in) - 1] = 0;
	if (sscanf(k->in, "%7s %255s %15s", method, path, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7)) {
		status = "400 Bad Request";
		body = strdup("a request line: METHOD PATH HTTP/1.x\n");
	} else if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		status = "405 Method Not Allowed";
		extra = "Allow: GET, HEAD\r\n";
		body = strdup("only GET\n");
	} else {
		path[strcspn(path, "?")] = 0;
		if (!strcmp(path, "/metrics")) {
			body = iad_metrics_text(d, &len);
		} else if (!strcmp(path, "/alerts")) {
			body = iad_alerts_text(d, &len);
			type = "text/tab-separated-values; charset=utf-8";
		} else {
			status = "404 Not Found";
			body = strdup("iommu-accountd: /metrics (Prometheus), /alerts (alert states)\n");
		}
	}
	if (body && status[0] != '2')
		len = strlen(body);
	n = body ? asprintf(&hdr, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			    "%sConnection: close\r\n\r\n", status,
			    status[0] == '2' ? type : "text/plain", len, extra) : -1;
	k->answered = true;
	if (n < 0) {
		free(body);
		k->out = NULL;	/* out of memory: closed without an answer */
		return;
	}
	if (!strcmp(method, "HEAD"))
		len = 0;
	k->out = realloc(hdr, (size_t)n + len);
	if (!k->out) {
		free(hdr);
		free(body);
		return;
	}
	memcpy(k->out + n, body, len);
	k->nout = (size_t)n + len;
	k->off = 0;
	free(body);
}

static void conn_close(struct iad_http *h, struct iad_conn *k)
{
	close(k->fd);		/* leaves the epoll set with it */
	if (k->prev)
		k->prev->next = k->next;
	else
		h->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		h->tail = k->prev;
	h->n--;
	free(k->out);
	free(k);
}

/* Accept what waits; a connection beyond the fds we have waits for the sweep. */
static void accept_all(struct iad_http *h)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct iad_conn *k;
	int fd;

	while ((fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		k = calloc(1, sizeof(*k));
		ev.data.ptr = k;
		if (!k || epoll_ctl(h->efd, EPOLL_CTL_ADD, fd, &ev)) {
			free(k);
			close(fd);
			continue;
		}
		k->fd = fd;
		k->start = k->last = iad_mono();
		k->prev = h->tail;
		if (h->tail)
			h->tail->next = k;
		else
			h->head = k;
		h->tail = k;
		h->n++;
	}
}

/* Read a request, answer it, write the answer; false: the connection is done. */
static bool conn_io(struct iad *d, struct iad_conn *k)
{
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLRDHUP, .data.ptr = k };
	ssize_t n;

	while (!k->answered) {
		n = read(k->fd, k->in + k->nin, sizeof(k->in) - 1 - k->nin);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n <= 0)
			return false;
		k->nin += (size_t)n;
		k->last = iad_mono();
		k->in[k->nin] = 0;
		if (strstr(k->in, "\r\n\r\n") || strstr(k->in, "\n\n")) {
			answer(d, k);
			if (!k->out || epoll_ctl(d->http->efd, EPOLL_CTL_MOD, k->fd, &ev))
				return false;
		} else if (k->nin >= sizeof(k->in) - 1) {
			return false;	/* too long for a scrape: no answer */
		}
	}
	while (k->off < k->nout) {
		n = send(k->fd, k->out + k->off, k->nout - k->off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		k->off += (size_t)n;
		k->last = iad_mono();
	}
	shutdown(k->fd, SHUT_WR);
	return false;
}

/*
 * Close the connections past their deadline or idle, and while too many
 * are open the oldest without a whole request.
 */
static void sweep(struct iad_http *h)
{
	struct iad_conn *k, *next;
	double now = iad_mono();

	for (k = h->head; k; k = next) {
		next = k->next;
		if (now - k->last >= IAD_HTTP_IDLE_S ||
		    (!k->answered && (now - k->start >= IAD_HTTP_DEADLINE_S ||
				      h->n > IAD_HTTP_CONNS - IAD_HTTP_SPARE))) {
			if (!k->answered)
				h->shut++;
			conn_close(h, k);
		}
	}
}

/* "127.0.0.1:9847", "[::1]:9847", "0.0.0.0:9847" into a bound, listening socket. */
static int listen_on(struct iad *d, const char *spec)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai;
	char host[128], *port;
	int fd, one = 1, err;

	snprintf(host, sizeof(host), "%s", spec[0] == '[' ? spec + 1 : spec);
	port = strrchr(host, ':');
	if (!port) {
		iad_log(d, LOG_ERR, "exporter: listen '%s' is not ADDRESS:PORT; exporter off", spec);
		return -1;
	}
	*port++ = 0;
	if (spec[0] == '[' && port - host >= 2 && port[-2] == ']')
		port[-2] = 0;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		iad_log(d, LOG_ERR, "exporter: listen '%s': %s; exporter off", spec,
			gai_strerror(err));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1024)) {
		iad_log(d, LOG_ERR, "exporter: cannot listen on %s: %s; exporter off, "
			"the other sinks go on", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	return fd;
}

int iad_exporter_start(struct iad *d)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct rlimit rl;
	int fd;

	d->http_fd = -1;
	if (!d->cfg.listen[0])
		return 0;
	fd = listen_on(d, d->cfg.listen);
	if (fd < 0)
		return -1;
	/* Room for IAD_HTTP_CONNS connections beside the daemon's own fds. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4 * IAD_HTTP_CONNS) {
		rl.rlim_cur = rl.rlim_max < 4 * IAD_HTTP_CONNS ? rl.rlim_max : 4 * IAD_HTTP_CONNS;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	d->http = calloc(1, sizeof(*d->http));
	if (d->http) {
		d->http->lfd = fd;
		d->http->efd = epoll_create1(EPOLL_CLOEXEC);
		ev.data.ptr = NULL;	/* the listening socket */
		if (d->http->efd < 0 || epoll_ctl(d->http->efd, EPOLL_CTL_ADD, fd, &ev)) {
			if (d->http->efd >= 0)
				close(d->http->efd);
			free(d->http);
			d->http = NULL;
		}
	}
	if (!d->http) {
		iad_log(d, LOG_ERR, "exporter: %s; exporter off", strerror(errno));
		close(fd);
		return -1;
	}
	d->http_fd = d->http->efd;
	iad_log(d, LOG_INFO, "exporter listening on http://%s/metrics", d->cfg.listen);
	return 0;
}

void iad_exporter_run(struct iad *d)
{
	struct iad_http *h = d->http;
	struct epoll_event ev[64];
	int n, i;

	if (!h)
		return;
	do {
		n = epoll_wait(h->efd, ev, 64, 0);
		for (i = 0; i < n; i++) {
			struct iad_conn *k = ev[i].data.ptr;

			if (!k)
				accept_all(h);
			else if (!conn_io(d, k))
				conn_close(h, k);
		}
	} while (n == 64);
	sweep(h);
}

double iad_exporter_wait(const struct iad *d, double wait_s)
{
	/* Open connections: come back in time for their deadline. */
	return d->http && d->http->n && wait_s > 0.25 ? 0.25 : wait_s;
}

uint64_t iad_exporter_shut(const struct iad *d)
{
	return d->http ? d->http->shut : 0;
}

void iad_exporter_stop(struct iad *d)
{
	struct iad_http *h = d->http;

	if (h) {
		while (h->head)
			conn_close(h, h->head);
		close(h->efd);
		close(h->lfd);
		free(h);
	}
	d->http = NULL;
	d->http_fd = -1;
}
