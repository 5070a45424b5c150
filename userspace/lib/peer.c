// SPDX-License-Identifier: GPL-2.0
/*
 * Who is at the other end of a connected stream socket, as the kernel says:
 * over a Unix socket its credentials (SO_PEERCRED); over TCP the owner of
 * the other end's socket when that socket is on this host, found by its four
 * addresses through sock_diag (what `ss -e` shows as uid). The daemon names
 * its exporter's clients with it, iommu-accountctl the server it reads.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ia.h"

/* @sa's address into @id's 16 bytes and its port, as inet_diag takes them. */
static void diag_addr(const struct sockaddr_storage *sa, __be32 addr[4], __be16 *port)
{
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		addr[0] = s4->sin_addr.s_addr;
		*port = s4->sin_port;
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		memcpy(addr, &s6->sin6_addr, 16);
		*port = s6->sin6_port;
	}
}

/*
 * The owner of the TCP socket whose own address is @them and whose peer is
 * @us, if this network namespace has it: one exact lookup (not a dump), on
 * the sock_diag socket @fd.
 */
static int tcp_owner(int fd, const struct sockaddr_storage *us,
		     const struct sockaddr_storage *them, uint32_t *uid)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = 1,
		},
		.r = {
			.sdiag_family = (uint8_t)us->ss_family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~0u,
			.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
		},
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr h;
		char b[8192];
	} rsp;
	const struct inet_diag_msg *m;
	struct nlmsghdr *h;
	ssize_t n;
	int ret = -ENOENT;

	diag_addr(them, req.r.id.idiag_src, &req.r.id.idiag_sport);
	diag_addr(us, req.r.id.idiag_dst, &req.r.id.idiag_dport);
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
		return -errno;
	n = recv(fd, &rsp, sizeof(rsp), 0);
	if (n < 0)
		return -errno;
	for (h = &rsp.h; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error)
				ret = e->error;
			break;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			continue;
		m = NLMSG_DATA(h);
		/*
		 * A socket with a file (not closed by its process) or still
		 * established: its uid is its creator's. A closed one may be a
		 * time-wait socket, which inet_diag reports as uid 0.
		 */
		if (!m->idiag_inode && m->idiag_state != TCP_ESTABLISHED) {
			ret = -ENOTCONN;
			break;
		}
		*uid = m->idiag_uid;
		ret = 0;
		break;
	}
	return ret;
}

int ia_sock_peer_uid(int fd, uint32_t *uid)
{
	struct sockaddr_storage us, them;
	socklen_t ul = sizeof(us), tl = sizeof(them);
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	struct timeval tv = { .tv_sec = 1 };
	uint32_t own;
	int err, dfd;

	if (getsockname(fd, (struct sockaddr *)&us, &ul) ||
	    getpeername(fd, (struct sockaddr *)&them, &tl))
		return -errno;
	if (us.ss_family == AF_UNIX) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl))
			return -errno;
		if (cl != sizeof(cr) || cr.uid == (uid_t)-1)
			return -ENOENT;
		*uid = cr.uid;
		return 0;
	}
	if ((us.ss_family != AF_INET && us.ss_family != AF_INET6) || us.ss_family != them.ss_family)
		return -EAFNOSUPPORT;
	/*
	 * inet_diag says ENOENT both for a socket it does not have and when
	 * it is not there at all (no tcp_diag): this end, which must be
	 * found, tells the two apart.
	 */
	dfd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (dfd < 0)
		return -errno;
	/* The kernel answers an exact lookup within sendto; the timeout is a guard. */
	setsockopt(dfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	err = tcp_owner(dfd, &them, &us, &own);
	if (err)
		err = err == -ENOENT || err == -ENOTCONN ? -EPROTONOSUPPORT : err;
	else
		err = tcp_owner(dfd, &us, &them, uid);
	close(dfd);
	return err;
}
