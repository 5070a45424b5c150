// SPDX-License-Identifier: GPL-2.0
/*
 * libia events: joining the events group (with room for bursts) and
 * receiving events, with the gaps in their sequence numbers counted as
 * losses. Above client.c (the socket) and objects.c (the parser).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uapi/linux/iommu_account.h>

#include "internal.h"

/*
 * Room for bursts: several uids' event_burst at once (about 1.2 KiB of
 * truesize per event). SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is
 * capped by the kernel at net.core.rmem_max. Either is best effort: the
 * loss arithmetic covers whatever still overflows. IA_EVENTS_RCVBUF=BYTES
 * asks for another size; 0 keeps the kernel's default (rmem_default).
 */
#define IA_EVENTS_RCVBUF (8 << 20)

static int events_rcvbuf(struct ia_client *c)
{
	const char *env = getenv("IA_EVENTS_RCVBUF");
	int fd = ynl_socket_get_fd(c->ys), sz = IA_EVENTS_RCVBUF;
	unsigned long long v;
	char *end;

	if (env) {
		errno = 0;
		v = strtoull(env, &end, 10);
		if (errno || end == env || *end || v > (1u << 30))
			return ia_fail(c, -EINVAL, "IA_EVENTS_RCVBUF='%s' is not a number of bytes "
				    "(0 to 1073741824; 0 keeps the kernel's default)", env);
		if (!v)
			return 0;
		sz = (int)v;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return 0;
}

int ia_events_subscribe(struct ia_client *c)
{
	struct ynl_sock *ys = c->ys;
	unsigned int i;
	int ret;

	for (i = 0; i < ys->n_mcast_groups; i++)
		if (!strcmp(ys->mcast_groups[i].name, IOMMU_ACCOUNT_MCGRP_EVENTS))
			break;
	if (i == ys->n_mcast_groups) {
		/*
		 * No group: the kernel cannot restrict one to CAP_SYS_ADMIN
		 * (5.10), so the module sends the events to each socket that
		 * asks, unicast: the same messages, read the same way.
		 */
		if (iommu_account_subscribe_events(ys)) {
			if (ys->err.code == EPERM || ys->err.code == EACCES)
				return ia_fail(c, -EPERM, "%s",
					       "cannot follow the events: needs CAP_SYS_ADMIN");
			if (ys->err.code == EOPNOTSUPP)
				return ia_fail(c, -EOPNOTSUPP, "%s",
					       "the loaded iommu_account offers no events (see "
					       "`status`, feature \"events\")");
			return ia_fail(c, -EIO, "cannot follow the events: %s", ys->err.msg);
		}
		return events_rcvbuf(c);
	}
	if (ynl_subscribe(ys, IOMMU_ACCOUNT_MCGRP_EVENTS)) {
		if (ys->err.code == EPERM || ys->err.code == EACCES)
			return ia_fail(c, -EPERM, "%s",
				       "cannot join the events group: needs CAP_SYS_ADMIN");
		return ia_fail(c, -EIO, "cannot join the events group: %s", ys->err.msg);
	}
	ret = events_rcvbuf(c);
	if (ret)
		return ret;
	return 0;
}

/* Each event libynl queued (read with a reply, or by ynl_ntf_check()), in order. */
static int deliver(struct ia_client *c, struct ia_events_cb *cb)
{
	struct ynl_ntf_base_type *ntf;
	struct ia_event ev;
	uint64_t lost;
	int ret;

	while ((ntf = ynl_ntf_dequeue(c->ys))) {
		lost = 0;
		if (ntf->cmd != IOMMU_ACCOUNT_CMD_EVENT ||
		    ia_event_of(&((struct iommu_account_event *)ntf)->obj, &ev)) {
			ynl_ntf_free(ntf);
			continue;
		}
		/* A gap: events dropped by the module's queue or by our socket. */
		if (cb->last_seq && ev.seq > cb->last_seq + 1)
			lost = ev.seq - cb->last_seq - 1;
		/*
		 * The kernel reports ENOBUFS before the events still queued,
		 * so the overrun shows as the next gap, not at the next event.
		 */
		ret = cb->event(&ev, lost, cb->overrun && lost, cb->arg);
		ynl_ntf_free(ntf);
		if (lost)
			cb->overrun = false;
		cb->last_seq = ev.seq;
		if (ret)
			return ret;
	}
	return 0;
}

int ia_events_recv(struct ia_client *c, struct ia_events_cb *cb)
{
	int fd = ynl_socket_get_fd(c->ys), fl, ret;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	/* Queued with an earlier reply: theirs first. */
	ret = deliver(c, cb);
	if (ret)
		return ret;
	/* libynl reads without waiting: a blocking socket waits here. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK) && poll(&p, 1, -1) < 0)
		return errno == EINTR ? 0 : ia_fail(c, -errno, "poll: %s", strerror(errno));
	errno = 0;
	ret = ynl_ntf_check(c->ys);
	/*
	 * What it read before a failure is queued: delivered first. The
	 * socket overran (ENOBUFS): events were lost; the next event's
	 * sequence number tells how many.
	 */
	if (ret < 0 && errno == ENOBUFS) {
		ret = deliver(c, cb);
		cb->overrun = true;
		return ret;
	}
	if (ret < 0 && (errno == EINTR || errno == EAGAIN))
		ret = 0;
	/*
	 * A message libynl could not parse (errno untouched: no read
	 * failed): it stops at it, and the rest of that read is lost. Not
	 * the socket's failure: the next event's gap counts what went.
	 */
	if (ret < 0 && !errno)
		ret = 0;
	if (ret < 0) {
		int err = deliver(c, cb);

		return err ? err : ia_fail(c, -EIO, "netlink: %s", c->ys->err.msg[0] ?
					   c->ys->err.msg : strerror(errno));
	}
	return deliver(c, cb);
}
