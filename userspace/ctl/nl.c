// SPDX-License-Identifier: GPL-2.0
/* The netlink layer of iommu-accountctl: family discovery, requests, errors. */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int ia_open(struct ia_ctx *ctx)
{
	int one = 1, fd;

	ctx->sk = nl_socket_alloc();
	if (!ctx->sk) {
		fprintf(stderr, "iommu-accountctl: out of memory\n");
		return IA_EXIT_FAIL;
	}
	if (genl_connect(ctx->sk)) {
		fprintf(stderr, "iommu-accountctl: cannot open a generic netlink socket\n");
		return IA_EXIT_FAIL;
	}
	fd = nl_socket_get_fd(ctx->sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	ctx->family = genl_ctrl_resolve(ctx->sk, IOMMU_ACCOUNT_FAMILY_NAME);
	if (ctx->family < 0) {
		fprintf(stderr, "iommu-accountctl: iommu_account is not loaded: "
			"run `modprobe iommu_account`\n");
		return IA_EXIT_NOMODULE;
	}
	return IA_EXIT_OK;
}

void ia_close(struct ia_ctx *ctx)
{
	nl_socket_free(ctx->sk);
	ctx->sk = NULL;
}

struct nl_msg *ia_msg(struct ia_ctx *ctx, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctx->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, IOMMU_ACCOUNT_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Keep the kernel's error and its extack message. */
static int ia_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct ia_ctx *ctx = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off;
	int len;

	(void)nla;
	ctx->err = e->error;
	ctx->extack[0] = 0;
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
		snprintf(ctx->extack, sizeof(ctx->extack), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

struct ia_req {
	struct ia_ctx *ctx;
	int maxattr;
	ia_msg_cb cb;
	void *arg;
	int ret;
};

static int ia_valid_cb(struct nl_msg *msg, void *arg)
{
	struct ia_req *req = arg;
	struct nlattr *tb[64];
	int ret;

	if (req->maxattr >= 64)
		return NL_STOP;
	/* Unknown (newer) attributes are ignored: no policy, no strictness. */
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, req->maxattr, NULL))
		return NL_SKIP;
	ret = req->cb(req->ctx, nlmsg_hdr(msg), tb, req->arg);
	if (ret) {
		req->ret = ret;
		return NL_STOP;
	}
	return NL_OK;
}

static int ia_errno_exit(int err)
{
	switch (err) {
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

int ia_request(struct ia_ctx *ctx, struct nl_msg *msg, int maxattr,
	       ia_msg_cb cb, void *arg, const char *what)
{
	struct ia_req req = { ctx, maxattr, cb, arg, 0 };
	struct nl_cb *nlcb;
	int ret, err;

	nlcb = nl_cb_clone(nl_socket_get_cb(ctx->sk));
	if (!nlcb)
		return IA_EXIT_FAIL;
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, ia_valid_cb, &req);
	nl_cb_err(nlcb, NL_CB_CUSTOM, ia_err_cb, ctx);
	ctx->err = 0;
	ret = nl_send_auto(ctx->sk, msg);
	if (ret >= 0)
		ret = nl_recvmsgs(ctx->sk, nlcb);
	nl_cb_put(nlcb);
	nlmsg_free(msg);
	if (req.ret)
		return req.ret;
	err = ctx->err ? -ctx->err : 0;
	if (!err && ret < 0)
		err = EIO;
	if (!err)
		return IA_EXIT_OK;
	if (err == EOPNOTSUPP)
		fprintf(stderr, "iommu-accountctl: %s: the loaded iommu_account does not "
			"support this (module too old for this tool?)\n", what);
	else if (err == EPERM || err == EACCES)
		fprintf(stderr, "iommu-accountctl: %s: permission denied%s%s\n", what,
			ctx->extack[0] ? ": " : "", ctx->extack);
	else
		fprintf(stderr, "iommu-accountctl: %s: %s%s%s\n", what, strerror(err),
			ctx->extack[0] ? ": " : "", ctx->extack);
	return ia_errno_exit(err);
}

int ia_get_objects(struct ia_ctx *ctx, uint8_t cmd, int key_attr, int maxattr,
		   ia_msg_cb cb, void *arg)
{
	struct nl_msg *msg;
	int ret;

	msg = ia_msg(ctx, cmd, !ctx->have_key);
	if (!msg)
		return IA_EXIT_FAIL;
	if (ctx->have_key && nla_put_u32(msg, key_attr, ctx->key)) {
		nlmsg_free(msg);
		return IA_EXIT_FAIL;
	}
	if (ctx->json)
		printf("[");
	ret = ia_request(ctx, msg, maxattr, cb, arg, ctx->cmd);
	if (ctx->json)
		printf("]\n");
	return ret;
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
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "?";
}
