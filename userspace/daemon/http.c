// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP/1.1 server: GET and HEAD of a few fixed paths, plain
 * HTTP, driven from the daemon's loop through one epoll fd (no thread).
 *
 * Why not a library: Debian's libmicrohttpd, used until issue 31, links
 * GnuTLS and its dependencies (p11-kit, nettle, gmp, libtasn1, libidn2,
 * libunistring: ~2.5 MiB resident, 40 % of the daemon's RSS) for a server
 * that never speaks TLS; libevent's evhttp brings an event loop of its own
 * that cannot be driven from ours. What a scraper sends is small: a request
 * line and headers, no body. This server takes exactly that, strictly:
 *   - a request head of at most IAD_HTTP_HEAD bytes (else 431), CRLF or LF
 *     line ends; a request line "METHOD TARGET HTTP/1.x" (else 400, or 505
 *     for another version); a target in origin form or absolute form, its
 *     query ignored;
 *   - header fields "name: value", no space before the colon, no folding
 *     (else 400); a Content-Length other than 0 or any Transfer-Encoding:
 *     413, no request body is read;
 *   - no control byte in the head but HTAB and the line ends, a CR only
 *     right before its LF (RFC 9112 2.2): a NUL or a bare CR would hide
 *     what follows it on its line (a Content-Length, whose body would then
 *     be read as a second request), so 400 and the connection closed;
 *   - GET and HEAD (HEAD: the same head, no body); any other method 405
 *     with Allow;
 *   - persistent connections as HTTP/1.1 says (Connection: close, or
 *     HTTP/1.0 without keep-alive, closes after the response), pipelined
 *     requests answered in order; a connection that is closed writes its
 *     last response, shuts its side and drains the peer's until it closes
 *     (no reset that could lose the response).
 * Every error response closes the connection.
 *
 * No client can starve the others (a slowloris: connections that send
 * nothing, or a byte now and then, or never read their answer): a request
 * must arrive whole within IAD_HTTP_DEADLINE_S of the connection or of the
 * previous response, IAD_HTTP_IDLE_S without progress either way closes a
 * connection, and while more than IAD_HTTP_CONNS - IAD_HTTP_SPARE are open
 * the oldest without a request in hand are closed first, so a new client
 * always finds a place. Writes never raise SIGPIPE (MSG_NOSIGNAL).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "iad.h"

#define IAD_HTTP_CONNS 512		/* connections at once */
#define IAD_HTTP_SPARE 32		/* kept free for new clients */
#define IAD_HTTP_DEADLINE_S 2.0		/* for a whole request */
#define IAD_HTTP_IDLE_S 2.0		/* without a byte either way */
#define IAD_HTTP_HEAD 8192		/* a request's line and headers */

enum conn_state {
	C_READ,				/* waiting for a whole request */
	C_WRITE,			/* sending a response */
	C_DRAIN,			/* our side shut: reading until the peer closes */
	C_GONE,				/* closed; freed after the current epoll batch */
};

/* One open connection, oldest first in the list. */
struct iad_conn {
	int fd;
	enum conn_state st;
	uint32_t events;		/* in the epoll set: EPOLLIN or EPOLLOUT */
	double since;			/* the connection, or its last response */
	double last;			/* the last byte either way */
	bool close_after;		/* the response ends the connection */
	bool http10;			/* the request was HTTP/1.0 */
	bool served;			/* a response was sent */
	struct iad_peer peer;		/* who is connected (a Unix socket's peer) */
	char in[IAD_HTTP_HEAD];
	size_t nin;
	size_t scanned;			/* in[] looked at for the head's end */
	char *out;
	size_t nout, off;
	struct iad_conn *prev, *next;
};

struct iad_http {
	int ep, lfd;
	bool lpaused;			/* out of fds: the listener left the epoll set */
	iad_http_route route;
	void *cls;
	struct iad_conn *head, *tail;
	struct iad_conn *gone;		/* closed in this batch, freed after it */
	unsigned int n;
	uint64_t shut;			/* connections closed for being slow */
};

static void unlink_conn(struct iad_http *h, struct iad_conn *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		h->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		h->tail = k->prev;
	h->n--;
}

static void listener_on(struct iad_http *h, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (on == !h->lpaused)
		return;
	if (on && !epoll_ctl(h->ep, EPOLL_CTL_ADD, h->lfd, &ev))
		h->lpaused = false;
	else if (!on && !epoll_ctl(h->ep, EPOLL_CTL_DEL, h->lfd, NULL))
		h->lpaused = true;
}

/*
 * Close a connection. Its record outlives the epoll batch being handled,
 * which may name it again (a sweep closes others than the one at hand).
 * It leaves the epoll set first: close() alone would not take it out while
 * a forked exec hook still holds a copy of the fd (until its exec), and an
 * event could then name a record already freed.
 */
static void conn_close(struct iad_http *h, struct iad_conn *k)
{
	unlink_conn(h, k);
	epoll_ctl(h->ep, EPOLL_CTL_DEL, k->fd, NULL);
	close(k->fd);
	k->fd = -1;
	k->st = C_GONE;
	free(k->out);
	k->out = NULL;
	k->next = h->gone;
	h->gone = k;
	listener_on(h, true);
}

static void free_gone(struct iad_http *h)
{
	struct iad_conn *k;

	while ((k = h->gone)) {
		h->gone = k->next;
		free(k);
	}
}

static void conn_events(struct iad_http *h, struct iad_conn *k, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = k };

	if (k->events != events && !epoll_ctl(h->ep, EPOLL_CTL_MOD, k->fd, &ev))
		k->events = events;
}

/* Has the comma-separated header value @v the token @tok (case-insensitive)? */
static bool has_token(const char *v, const char *tok)
{
	size_t n = strlen(tok);

	while (*v) {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		if (!strncasecmp(v, tok, n) &&
		    (!v[n] || v[n] == ',' || v[n] == ' ' || v[n] == '\t'))
			return true;
		v += strcspn(v, ",");
	}
	return false;
}

static const char *reason(unsigned int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Internal Server Error";
	}
}

/* Queue a response (its body is ours to free); HEAD sends the head only. */
static void respond(struct iad_conn *k, unsigned int code, const char *type, char *body,
		    size_t len, bool head_only)
{
	char hd[512], date[64];
	time_t t = time(NULL);
	struct tm tm;
	int n;

	if (code != 200)
		k->close_after = true;
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	n = snprintf(hd, sizeof(hd),
		     "HTTP/1.1 %u %s\r\nServer: iommu-accountd\r\nDate: %s\r\n"
		     "Content-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
		     code, reason(code), date, type, len,
		     code == 405 ? "Allow: GET, HEAD\r\n" : "",
		     k->close_after ? "Connection: close\r\n" :
		     k->http10 ? "Connection: keep-alive\r\n" : "");
	if (head_only)
		len = 0;
	k->out = malloc(n + len);
	if (!k->out) {
		free(body);
		k->close_after = true;
		k->nout = k->off = 0;
		return;
	}
	memcpy(k->out, hd, n);
	if (len)
		memcpy(k->out + n, body, len);
	free(body);
	k->nout = n + len;
	k->off = 0;
}

static void respond_text(struct iad_conn *k, unsigned int code, const char *text, bool head_only)
{
	char *b = strdup(text);

	respond(k, code, "text/plain; charset=utf-8", b, b ? strlen(b) : 0, head_only);
}

/* A head whose bytes are all a head's: no control byte but HTAB, LF and a CR before its LF. */
static bool head_bytes_ok(const char *req, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)req[i];

		if (c == '\r' ? i + 1 == len || req[i + 1] != '\n' :
		    (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			return false;
	}
	return true;
}

/* One request head of @hlen bytes (a NUL-terminated copy, ending in an empty line): queue its response. */
static void request(struct iad_http *h, struct iad_conn *k, char *req, size_t hlen)
{
	char *line, *save, *method, *target, *version, *p;
	bool keep = false, close = false, body = false;
	bool head_only;
	unsigned int code = 200;
	const char *type = NULL;
	char *b;
	size_t len = 0, n;

	if (!head_bytes_ok(req, hlen))
		goto bad;
	line = strtok_r(req, "\n", &save);
	if (!line)
		goto bad;
	line[strcspn(line, "\r")] = 0;
	method = line;
	target = strchr(method, ' ');
	if (!target)
		goto bad;
	*target++ = 0;
	version = strchr(target, ' ');
	if (!version)
		goto bad;
	*version++ = 0;
	if (!*method || !*target || strchr(version, ' '))
		goto bad;
	if (strncmp(version, "HTTP/", 5) || !version[5]) {
		goto bad;
	} else if (!strcmp(version, "HTTP/1.1")) {
		k->http10 = false;
	} else if (!strcmp(version, "HTTP/1.0")) {
		k->http10 = true;
	} else {
		k->close_after = true;
		respond_text(k, 505, "only HTTP/1.0 and HTTP/1.1\n", false);
		return;
	}
	while ((p = strtok_r(NULL, "\n", &save))) {
		char *colon, *v;

		p[strcspn(p, "\r")] = 0;
		if (!*p)
			break;		/* the empty line that ends the head */
		if (*p == ' ' || *p == '\t')
			goto bad;		/* obsolete line folding */
		colon = strchr(p, ':');
		if (!colon || colon == p || colon[-1] == ' ' || colon[-1] == '\t')
			goto bad;
		*colon = 0;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (n = strlen(v); n && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
			v[n - 1] = 0;
		if (!strcasecmp(p, "Connection")) {
			keep |= has_token(v, "keep-alive");
			close |= has_token(v, "close");
		} else if (!strcasecmp(p, "Transfer-Encoding")) {
			body = true;
		} else if (!strcasecmp(p, "Content-Length")) {
			if (strspn(v, "0") != strlen(v) || !*v)
				body = true;
		}
	}
	/* HTTP/1.0 persists only with keep-alive, and then says so in the answer. */
	k->close_after = close || (k->http10 && !keep);
	head_only = !strcmp(method, "HEAD");
	if (body) {
		respond_text(k, 413, "no request body is accepted\n", head_only);
		return;
	}
	if (strcmp(method, "GET") && !head_only) {
		respond_text(k, 405, "only GET and HEAD\n", false);
		return;
	}
	/*
	 * Absolute form (http://host/path): the path; "http://host" alone is
	 * the root, written into our own copy (a string literal here was
	 * written to below: a request crashed the daemon).
	 */
	if (!strncasecmp(target, "http://", 7)) {
		char *path = strchr(target + 7, '/');

		if (path) {
			target = path;
		} else {
			target[0] = '/';
			target[1] = 0;
		}
	}
	if (*target != '/')
		goto bad;
	target[strcspn(target, "?#")] = 0;
	b = h->route(h->cls, &k->peer, target, &code, &type, &len);
	if (!b) {
		respond_text(k, 500, "out of memory\n", head_only);
		return;
	}
	respond(k, code, type, b, len, head_only);
	return;
bad:
	respond_text(k, 400, "a request line METHOD /PATH HTTP/1.x and header fields\n", false);
}

/*
 * The end of the request head in @k->in, past its empty line, or 0; each
 * byte is looked at about once however the request is split into reads.
 */
static size_t head_end(struct iad_conn *k)
{
	size_t i = k->scanned > 2 ? k->scanned - 2 : 0;

	for (k->scanned = k->nin; i + 1 < k->nin; i++) {
		if (k->in[i] != '\n')
			continue;
		if (k->in[i + 1] == '\n')
			return i + 2;
		if (k->in[i + 1] == '\r' && i + 2 < k->nin && k->in[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/*
 * Send what can be sent of the response. Sent whole, the connection reads
 * its next request, or shuts its side and drains the peer's; false when
 * the connection is gone.
 */
static bool flush_out(struct iad_http *h, struct iad_conn *k, double now)
{
	ssize_t w;

	while (k->off < k->nout) {
		w = send(k->fd, k->out + k->off, k->nout - k->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			conn_events(h, k, EPOLLOUT);
			return true;
		}
		if (w <= 0) {
			conn_close(h, k);
			return false;
		}
		k->off += w;
		k->last = now;
	}
	free(k->out);
	k->out = NULL;
	k->nout = k->off = 0;
	conn_events(h, k, EPOLLIN);
	if (k->close_after) {
		shutdown(k->fd, SHUT_WR);
		k->st = C_DRAIN;
		k->nin = 0;
	} else {
		k->st = C_READ;
		k->since = now;
	}
	k->served = true;
	return true;
}

/* Answer the whole requests in hand, in order, as far as the peer reads. */
static void serve(struct iad_http *h, struct iad_conn *k, double now)
{
	char req[IAD_HTTP_HEAD + 1];
	size_t end;

	for (;;) {
		if (k->st == C_WRITE && (!flush_out(h, k, now) || k->st == C_WRITE))
			return;		/* gone, or the peer is not reading */
		if (k->st != C_READ)
			return;
		/* Empty lines before a request line are ignored (RFC 9112 2.2). */
		for (end = 0; end < k->nin && (k->in[end] == '\r' || k->in[end] == '\n'); end++)
			;
		memmove(k->in, k->in + end, k->nin - end);
		k->nin -= end;
		if (end)
			k->scanned = 0;
		end = head_end(k);
		if (!end && k->nin == sizeof(k->in)) {
			respond_text(k, 431, "the request head is over 8 KiB\n", false);
			k->st = C_WRITE;
			continue;
		}
		if (!end)
			return;
		memcpy(req, k->in, end);
		req[end] = 0;
		memmove(k->in, k->in + end, k->nin - end);
		k->nin -= end;
		k->scanned = 0;
		request(h, k, req, end);
		k->st = C_WRITE;
	}
}

static void conn_read(struct iad_http *h, struct iad_conn *k, double now)
{
	char sink[4096];
	ssize_t r;

	if (k->st == C_DRAIN) {
		r = recv(k->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (r > 0)
			k->last = now;
		else if (r == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(h, k);
		return;
	}
	r = recv(k->fd, k->in + k->nin, sizeof(k->in) - k->nin, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(h, k);
		return;
	}
	if (r < 0)
		return;
	k->nin += r;
	k->last = now;
	serve(h, k, now);
}

/*
 * Close the connections past their deadline or idle too long, and while
 * more than @room connections are open the oldest that are not answering a
 * request. Returns how many are open.
 */
static unsigned int sweep(struct iad_http *h, double now, unsigned int room)
{
	struct iad_conn *k, *next;
	unsigned int open = h->n;

	for (k = h->head; k; k = next) {
		next = k->next;
		if (now - k->last >= IAD_HTTP_IDLE_S ||
		    (k->st == C_READ && now - k->since >= IAD_HTTP_DEADLINE_S) ||
		    (k->st != C_WRITE && open > room)) {
			if (k->st == C_READ && (k->nin || !k->served))
				h->shut++;	/* a request that did not come whole */
			conn_close(h, k);
			open--;
		}
	}
	return open;
}

/*
 * A Unix socket's peer, as the kernel recorded it at connect(): its uid,
 * gid and groups (none known over TCP, or if the kernel does not say).
 */
static void peer_of(int fd, struct iad_peer *p)
{
	gid_t g[IAD_PEER_GROUPS];
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	struct ucred cr;
	unsigned int i;
	int err;

	memset(p, 0, sizeof(*p));
	/* A peer the kernel does not name is nobody's uid: it sees no uid's objects. */
	p->uid = p->gid = UINT32_MAX;
	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		return;
	if (sa.ss_family != AF_UNIX) {
		err = ia_sock_peer_uid(fd, &p->uid);
		p->named = !err;
		/* Not on this host (or in this network namespace): from elsewhere. */
		p->remote = err == -ENOENT;
		if (err && err != -ENOENT) {
			p->uid = UINT32_MAX;
			p->err = err;
		}
		return;
	}
	len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof(cr))
		return;
	p->named = p->groups_known = true;
	p->uid = cr.uid;
	p->gid = cr.gid;
	len = sizeof(g);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len))
		for (i = 0; i < len / sizeof(g[0]); i++)
			p->groups[p->ngroups++] = g[i];
}

static void accept_all(struct iad_http *h, double now)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct iad_conn *k;
	int fd, i;

	for (i = 0; i < 64; i++) {
		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of fds: wait for a connection to close. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				listener_on(h, false);
			return;
		}
		if (h->n >= IAD_HTTP_CONNS - IAD_HTTP_SPARE &&
		    sweep(h, now, IAD_HTTP_CONNS - IAD_HTTP_SPARE - 1) >= IAD_HTTP_CONNS) {
			close(fd);
			continue;
		}
		k = calloc(1, sizeof(*k));
		ev.data.ptr = k;
		if (!k || epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev)) {
			free(k);
			close(fd);
			continue;
		}
		k->fd = fd;
		peer_of(fd, &k->peer);
		k->events = EPOLLIN;
		k->since = k->last = now;
		k->prev = h->tail;
		if (h->tail)
			h->tail->next = k;
		else
			h->head = k;
		h->tail = k;
		h->n++;
	}
}

struct iad_http *iad_http_new(int lfd, iad_http_route route, void *cls)
{
	struct iad_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->lfd = lfd;
	h->route = route;
	h->cls = cls;
	h->lpaused = true;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	if (h->ep < 0) {
		free(h);
		return NULL;
	}
	listener_on(h, true);
	if (h->lpaused) {
		close(h->ep);
		free(h);
		return NULL;
	}
	return h;
}

int iad_http_fd(const struct iad_http *h)
{
	return h ? h->ep : -1;
}

void iad_http_run(struct iad_http *h, double now)
{
	struct epoll_event ev[64];
	int i, n, rounds = 0;

	if (!h)
		return;
	sweep(h, now, IAD_HTTP_CONNS - IAD_HTTP_SPARE);
	free_gone(h);
	do {
		n = epoll_wait(h->ep, ev, 64, 0);
		for (i = 0; i < n; i++) {
			struct iad_conn *k = ev[i].data.ptr;

			if (!k)
				accept_all(h, now);
			else if (k->st == C_WRITE)
				serve(h, k, now);
			else if (k->st != C_GONE)
				conn_read(h, k, now);
		}
		free_gone(h);
	} while (n == 64 && ++rounds < 16);
}

double iad_http_wait(const struct iad_http *h, double wait_s)
{
	/* Open connections: come back in time for their deadline. */
	return h && h->n && wait_s > 0.25 ? 0.25 : wait_s;
}

uint64_t iad_http_shut(const struct iad_http *h)
{
	return h ? h->shut : 0;
}

void iad_http_free(struct iad_http *h)
{
	if (!h)
		return;
	while (h->head)
		conn_close(h, h->head);
	free_gone(h);
	close(h->ep);
	close(h->lfd);
	free(h);
}
