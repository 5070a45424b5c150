// SPDX-License-Identifier: GPL-2.0
/*
 * libia events: joining the events group (with room for bursts) and
 * receiving events, with the gaps in their sequence numbers counted as
 * losses. Above client.c (the socket) and objects.c (the parser).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <uapi/linux/iommu_account.h>

#include "ia.h"
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
	int fd = nl_socket_get_fd(c->sk), sz = IA_EVENTS_RCVBUF;
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
	int grp, ret;

	grp = genl_ctrl_resolve_grp(c->sk, IOMMU_ACCOUNT_FAMILY_NAME, IOMMU_ACCOUNT_MCGRP_EVENTS);
	if (grp < 0)
		return ia_fail(c, -EOPNOTSUPP, "%s",
			    "the loaded iommu_account offers no events group (see `status`, "
			    "feature \"events\")");
	ret = nl_socket_add_membership(c->sk, grp);
	if (ret == -NLE_PERM)
		return ia_fail(c, -EPERM, "%s", "cannot join the events group: needs CAP_SYS_ADMIN");
	if (ret)
		return ia_fail(c, -EIO, "cannot join the events group: %s", nl_geterror(ret));
	c->events_group = grp;
	ret = events_rcvbuf(c);
	if (ret)
		return ret;
	nl_socket_disable_seq_check(c->sk);
	return 0;
}

struct evstate {
	struct ia_events_cb *cb;
	int ret;
};

static int event_msg_cb(struct nl_msg *msg, void *arg)
{
	struct evstate *s = arg;
	struct ia_events_cb *cb = s->cb;
	struct nlattr *tb[IOMMU_ACCOUNT_A_EVENT_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct ia_event ev;
	uint64_t lost = 0;
	int ret;

	if (genlmsg_parse(nlh, 0, tb, IOMMU_ACCOUNT_A_EVENT_MAX, NULL))
		return NL_SKIP;
	if (ia_parse_event(nlh, tb, &ev))
		return NL_SKIP;
	/* A gap: events dropped by the module's queue or by our socket. */
	if (cb->last_seq && ev.seq > cb->last_seq + 1)
		lost = ev.seq - cb->last_seq - 1;
	/*
	 * The kernel reports ENOBUFS before the events still queued, so the
	 * overrun shows as the next gap, not at the next event.
	 */
	ret = cb->event(&ev, lost, cb->overrun && lost, cb->arg);
	ia_free_event(&ev);
	if (lost)
		cb->overrun = false;
	cb->last_seq = ev.seq;
	if (ret) {
		s->ret = ret;
		return NL_STOP;
	}
	return NL_OK;
}

int ia_events_recv(struct ia_client *c, struct ia_events_cb *cb)
{
	struct evstate s = { cb, 0 };
	struct nl_cb *nlcb;
	int ret;

	nlcb = nl_cb_clone(nl_socket_get_cb(c->sk));
	if (!nlcb)
		return ia_fail(c, -ENOMEM, "%s", "out of memory");
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, event_msg_cb, &s);
	ret = nl_recvmsgs(c->sk, nlcb);
	nl_cb_put(nlcb);
	if (s.ret)
		return s.ret;
	/*
	 * The socket overran (ENOBUFS, which libnl reports as NLE_NOMEM):
	 * events were lost; the next event's sequence number tells how many.
	 */
	if (ret == -NLE_NOMEM && errno == ENOBUFS) {
		cb->overrun = true;
		return 0;
	}
	if (ret == -NLE_INTR || ret == -NLE_AGAIN)
		return 0;
	if (ret < 0)
		return ia_fail(c, -EIO, "netlink: %s", nl_geterror(ret));
	return 0;
}
