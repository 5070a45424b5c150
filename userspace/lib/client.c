// SPDX-License-Identifier: GPL-2.0
/* libia transport: family discovery, requests, the kernel's errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <uapi/linux/iommu_account.h>

#include "ia.h"
#include "internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int ia_fail(struct ia_client *c, int err, const char *fmt, const char *arg)
{
	c->err = err;
	snprintf(c->errmsg, sizeof(c->errmsg), fmt, arg);
	return err;
}

int ia_client_open(struct ia_client *c)
{
	int one = 1, fd;

	memset(c, 0, sizeof(*c));
	c->events_group = -1;
	c->sk = nl_socket_alloc();
	if (!c->sk)
		return ia_fail(c, -ENOMEM, "%s", "out of memory");
	if (genl_connect(c->sk))
		return ia_fail(c, -EIO, "%s", "cannot open a generic netlink socket");
	/*
	 * No NLM_F_ACK: every do of the family replies with a message (or an
	 * error), every dump ends with DONE. An ACK after those would be left
	 * on the socket (libnl stops after a reply, and kernels differ on an
	 * ACK after DONE) and taken as the answer to the next request.
	 */
	nl_socket_disable_auto_ack(c->sk);
	/*
	 * Every message whole, whatever its size: an element with a cgroup
	 * path of PATH_MAX is over 4 KiB (libnl peeks at the size first).
	 */
	nl_socket_enable_msg_peek(c->sk);
	fd = nl_socket_get_fd(c->sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	c->family = genl_ctrl_resolve(c->sk, IOMMU_ACCOUNT_FAMILY_NAME);
	if (c->family < 0) {
		struct ia_module_diag d;

		ia_module_diagnose(&d);
		c->nomodule_exit = ia_module_exit_status(&d);
		return ia_fail(c, -ENOENT, "iommu_account is not loaded: %s", d.text);
	}
	return 0;
}

void ia_client_close(struct ia_client *c)
{
	if (c->sk)
		nl_socket_free(c->sk);
	c->sk = NULL;
}

int ia_client_fd(const struct ia_client *c)
{
	return nl_socket_get_fd(c->sk);
}

int ia_exit_status(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return IA_EXIT_OK;
	case EPERM:
	case EACCES:
		return IA_EXIT_PERM;
	case ENOENT:
		return IA_EXIT_NOENT;
	case EOPNOTSUPP:
		return IA_EXIT_UNSUPP;
	default:
		return IA_EXIT_FAIL;
	}
}

const char *ia_errno_name(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
		{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
		{ ERANGE, "ERANGE" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EMSGSIZE, "EMSGSIZE" }, { ENOBUFS, "ENOBUFS" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "?";
}

struct nl_msg *ia_msg(struct ia_client *c, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, IOMMU_ACCOUNT_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Keep the kernel's error and its extack message. */
static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct ia_client *c = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off;
	int len;

	(void)nla;
	c->err = e->error;
	c->extack[0] = 0;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)(nlh->nlmsg_len - NLMSG_HDRLEN - off);
	if (len <= 0)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off), len, NULL))
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(c->extack, sizeof(c->extack), "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

struct req {
	struct ia_client *c;
	int maxattr;
	ia_msg_fn fn;
	void *arg;
	int ret;
};

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;
	struct nlattr *tb[IA_MAX_ATTRS];
	int ret;

	if (r->maxattr >= IA_MAX_ATTRS)
		return NL_STOP;
	/* Unknown (newer) attributes are ignored: no policy, no strictness. */
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, r->maxattr, NULL))
		return NL_SKIP;
	ret = r->fn(nlmsg_hdr(msg), tb, r->arg);
	if (ret) {
		r->ret = ret;
		return NL_STOP;
	}
	return NL_OK;
}

int ia_request(struct ia_client *c, struct nl_msg *msg, int maxattr, ia_msg_fn fn, void *arg)
{
	struct req r = { c, maxattr, fn, arg, 0 };
	struct nl_cb *nlcb;
	int ret;

	if (!msg)
		return ia_fail(c, -ENOMEM, "%s", "out of memory");
	nlcb = nl_cb_clone(nl_socket_get_cb(c->sk));
	if (!nlcb) {
		nlmsg_free(msg);
		return ia_fail(c, -ENOMEM, "%s", "out of memory");
	}
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &r);
	nl_cb_err(nlcb, NL_CB_CUSTOM, err_cb, c);
	c->err = 0;
	c->extack[0] = 0;
	c->errmsg[0] = 0;
	ret = nl_send_auto(c->sk, msg);
	if (ret >= 0)
		ret = nl_recvmsgs(c->sk, nlcb);
	nl_cb_put(nlcb);
	nlmsg_free(msg);
	if (r.ret)
		return r.ret;
	if (c->err)
		return ia_fail(c, c->err, "%s", c->extack[0] ? c->extack : strerror(-c->err));
	if (ret < 0)
		return ia_fail(c, -EIO, "netlink: %s", nl_geterror(ret));
	return 0;
}

int ia_request_key(struct ia_client *c, uint8_t cmd, int key_attr, const uint32_t *key,
		   int maxattr, ia_msg_fn fn, void *arg)
{
	struct nl_msg *msg = ia_msg(c, cmd, !key);

	if (msg && key && nla_put_u32(msg, key_attr, *key)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, maxattr, fn, arg);
}

bool ia_in_initial_netns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/net", &self) || stat("/proc/1/ns/net", &init))
		return true;	/* cannot tell: say nothing */
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}
