// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <uapi/linux/iommu_account.h>

#include "ia_nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

typedef int (*data_cb)(const struct nlmsghdr *nlh, void *arg);

static void parse_err(struct ia_nl *s, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t off = sizeof(*e);

	s->extack[0] = 0;
	s->miss_type = -1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(s->extack, sizeof(s->extack), "%s", mnl_attr_get_str(a));
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MISS_TYPE)
			s->miss_type = (int)mnl_attr_get_u32(a);
	}
}

/* Send @nlh and read until the ack, the error or the end of the dump. */
static int transact(struct ia_nl *s, struct nlmsghdr *nlh, data_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;
	uint32_t seq = ++s->seq;
	ssize_t n;

	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	s->extack[0] = 0;
	s->miss_type = -1;
	s->batches = 0;
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *m;
		int len;

		n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		len = (int)n;
		s->batches++;
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(m);

				parse_err(s, m);
				return e->error;	/* 0: the ack */
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)mnl_nlmsg_get_payload(m);

				if (err)
					return err;
				/* The ack of a dump follows DONE only on newer kernels. */
				if (dump)
					return 0;
				continue;
			}
			if (cb && cb(m, arg) < 0)
				return -EPROTO;
		}
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)arg = mnl_attr_get_u16(a);
	return 0;
}

static struct nlmsghdr *put_hdr(char *buf, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

int ia_nl_open(struct ia_nl *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int one = 1, ret;

	memset(s, 0, sizeof(*s));
	s->seq = (uint32_t)time(NULL);
	s->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl)
		return -errno;
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err;
	}
	mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	nlh = put_hdr(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, IOMMU_ACCOUNT_FAMILY_NAME);
	ret = transact(s, nlh, family_cb, &s->family);
	if (ret)
		goto err;
	if (!s->family) {
		ret = -ENOENT;
		goto err;
	}
	return 0;
err:
	mnl_socket_close(s->nl);
	s->nl = NULL;
	return ret;
}

void ia_nl_close(struct ia_nl *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

static int status_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ia_status *st = arg;
	const struct nlattr *a, *f;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION:
			snprintf(st->version, sizeof(st->version), "%s", mnl_attr_get_str(a));
			break;
		case IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE:
			snprintf(st->release, sizeof(st->release), "%s", mnl_attr_get_str(a));
			break;
		case IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE:
			st->page_size = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_STATUS_FEATURE: {
			struct ia_feature *ft;

			if (st->nfeat >= 16)
				break;
			ft = &st->feat[st->nfeat++];
			mnl_attr_for_each_nested(f, a) {
				if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FEATURE_NAME)
					snprintf(ft->name, sizeof(ft->name), "%s", mnl_attr_get_str(f));
				else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FEATURE_STATE)
					ft->state = mnl_attr_get_u32(f);
				else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FEATURE_DETAIL)
					snprintf(ft->detail, sizeof(ft->detail), "%s", mnl_attr_get_str(f));
			}
			break;
		}
		}
	}
	return 0;
}

int ia_get_status(struct ia_nl *s, struct ia_status *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(st, 0, sizeof(*st));
	return transact(s, put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_STATUS, 0),
			status_cb, st);
}

static void parse_uid(const struct nlmsghdr *nlh, struct ia_uid *u)
{
	const struct nlattr *a;

	memset(u, 0, sizeof(*u));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_UID_UID:
			u->uid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_UID_LOCKED_BYTES:
			u->locked = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_TASKS:
			u->tasks = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN:
			u->has_min = true;
			u->min = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX:
			u->has_max = true;
			u->max = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_HEADROOM:
			u->has_headroom = true;
			u->headroom = (int64_t)mnl_attr_get_u64(a);
			break;
		}
	}
}

struct dump_arg {
	struct ia_uid *out;
	int max, n;
};

static int uid_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_arg *d = arg;

	if (d->n >= d->max)
		return -1;
	parse_uid(nlh, &d->out[d->n++]);
	return 0;
}

int ia_get_uid(struct ia_nl *s, uint32_t uid, struct ia_uid *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_arg d = { out, 1, 0 };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_UID, 0);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_UID, uid);
	ret = transact(s, nlh, uid_cb, &d);
	if (!ret && d.n != 1)
		return -EPROTO;
	return ret;
}

int ia_dump_uids(struct ia_nl *s, struct ia_uid *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_arg d = { out, max, 0 };
	int ret;

	ret = transact(s, put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_UID, NLM_F_DUMP),
		       uid_cb, &d);
	return ret ? ret : d.n;
}

int ia_raw(struct ia_nl *s, char *buf, size_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	nlh->nlmsg_type = s->family;
	nlh->nlmsg_len = (uint32_t)len;
	return transact(s, nlh, NULL, NULL);
}

int64_t ia_locked(struct ia_nl *s, uint32_t uid)
{
	struct ia_uid u;

	if (ia_get_uid(s, uid, &u))
		return -1;
	return (int64_t)u.locked;
}
