// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
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
	char small[MNL_SOCKET_BUFFER_SIZE], *buf = small, *big = NULL;
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;
	uint32_t seq = ++s->seq;
	int fd = mnl_socket_get_fd(s->nl), ret;
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

		/*
		 * A page, as libmnl reads, unless the message is larger (an element
		 * with a cgroup path of PATH_MAX): its size is peeked first. The
		 * kernel sizes later dumps by the reads it saw: pages, then.
		 */
		n = recv(fd, small, sizeof(small), MSG_PEEK | MSG_TRUNC);
		if (n > (ssize_t)sizeof(small)) {
			char *nb = realloc(big, n);

			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			big = buf = nb;
		} else {
			buf = small;
		}
		n = n < 0 ? n : recv(fd, buf, n > (ssize_t)sizeof(small) ? (size_t)n : sizeof(small), 0);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		len = (int)n;
		s->batches++;
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(m);

				parse_err(s, m);
				ret = e->error;	/* 0: the ack */
				goto out;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				ret = *(int *)mnl_nlmsg_get_payload(m);

				/* The ack of a dump follows DONE only on newer kernels. */
				if (ret || dump)
					goto out;
				continue;
			}
			if (cb && cb(m, arg) < 0) {
				ret = -EPROTO;
				goto out;
			}
		}
	}
out:
	free(big);
	return ret;
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ia_nl *s = arg;
	const struct nlattr *a, *g, *ga;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			s->family = mnl_attr_get_u16(a);
		if (mnl_attr_get_type(a) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		mnl_attr_for_each_nested(g, a) {
			uint32_t id = 0;
			const char *name = "";

			mnl_attr_for_each_nested(ga, g) {
				if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_ID)
					id = mnl_attr_get_u32(ga);
				if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_NAME)
					name = mnl_attr_get_str(ga);
			}
			if (!strcmp(name, IOMMU_ACCOUNT_MCGRP_EVENTS))
				s->events_group = id;
		}
	}
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
	ret = transact(s, nlh, family_cb, s);
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
		case IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED:
			st->events_dropped = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED:
			st->probes_missed = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED:
			st->vfio_untracked = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE:
			st->page_size = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND: {
			uint32_t kind = UINT32_MAX;
			uint64_t n = 0;
			bool has = false;

			mnl_attr_for_each_nested(f, a) {
				if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND)
					kind = mnl_attr_get_u32(f);
				else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS)
					has = true, n = mnl_attr_get_u64(f);
			}
			if (kind < 8) {
				st->has_kind_refusals[kind] = has;
				st->kind_refusals[kind] = n;
			}
			break;
		}
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

/* A consumer-bytes nest: bytes[consumer] += bytes (unknown consumers ignored). */
static void parse_consumer(const struct nlattr *nest, uint64_t *bytes)
{
	const struct nlattr *a;
	uint32_t c = UINT32_MAX;
	uint64_t b = 0;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER)
			c = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES)
			b = mnl_attr_get_u64(a);
	}
	if (c < IA_NCONS)
		bytes[c] += b;
}

static void parse_uid(const struct nlmsghdr *nlh, void *elem)
{
	struct ia_uid *u = elem;
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
		case IOMMU_ACCOUNT_A_UID_CONSUMER:
			parse_consumer(a, u->consumer);
			break;
		case IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES:
			u->has_breakdown = true;
			u->unattributed = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_PENDING_BYTES:
			u->pending = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES:
			u->has_iommufd = true;
			u->iommufd_mm = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES:
			u->iommufd_exempt = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_CGROUPS:
			u->cgroups = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_UID_CHARGES:
			u->charges = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_REFUSALS:
			u->refusals = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_UID_INEXACT:
			u->inexact = mnl_attr_get_u32(a);
			break;
		}
	}
}

/* Replies parsed into an array of @size-byte elements (room for @max). */
struct collect {
	void *out;
	size_t size;
	int max, n;
	void (*parse)(const struct nlmsghdr *nlh, void *elem);
};

static int collect_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;

	if (c->n >= c->max)
		return -1;
	c->parse(nlh, (char *)c->out + (size_t)c->n++ * c->size);
	return 0;
}

/* A do of @cmd for the object whose @attr is @key: exactly one reply. */
static int get_one(struct ia_nl *s, uint8_t cmd, uint16_t attr, uint32_t key,
		   void (*parse)(const struct nlmsghdr *, void *), void *out, size_t size)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { out, size, 1, 0, parse };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, cmd, 0);
	mnl_attr_put_u32(nlh, attr, key);
	ret = transact(s, nlh, collect_cb, &c);
	if (!ret && c.n != 1)
		return -EPROTO;
	return ret;
}

/* A dump of @cmd (filtered by @attr = @key when @attr); the count or -errno. */
static int dump_all(struct ia_nl *s, uint8_t cmd, uint16_t attr, uint32_t key,
		    void (*parse)(const struct nlmsghdr *, void *), void *out, size_t size,
		    int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { out, size, max, 0, parse };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, cmd, NLM_F_DUMP);
	if (attr)
		mnl_attr_put_u32(nlh, attr, key);
	ret = transact(s, nlh, collect_cb, &c);
	return ret ? ret : c.n;
}

int ia_get_uid(struct ia_nl *s, uint32_t uid, struct ia_uid *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_UID, IOMMU_ACCOUNT_A_UID_UID, uid,
		       parse_uid, out, sizeof(*out));
}

int ia_dump_uids(struct ia_nl *s, struct ia_uid *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_UID, 0, 0, parse_uid, out, sizeof(*out), max);
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

static void parse_owner(const struct nlattr *nest, struct ia_owner *o)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_OWNER_PID:
			o->pid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_OWNER_UID:
			o->uid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_OWNER_COMM:
			snprintf(o->comm, sizeof(o->comm), "%s", mnl_attr_get_str(a));
			break;
		}
	}
}

static void parse_container(const struct nlmsghdr *nlh, void *elem)
{
	struct ia_container *c = elem;
	const struct nlattr *a, *f;

	memset(c, 0, sizeof(*c));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_CONTAINER_ID:
			c->id = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_GROUP:
			if (c->ngroups < 64)
				c->groups[c->ngroups] = mnl_attr_get_u32(a);
			c->ngroups++;
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_ENTRIES:
			c->entries = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_LIMIT:
			c->limit = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES:
			c->mapped_bytes = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES:
			c->pinned_pages = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID:
			c->pinned_uid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_OWNER:
			parse_owner(a, &c->owner);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS:
			c->map_ops = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS:
			c->unmap_ops = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC:
			c->fail_enospc = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM:
			c->fail_enomem = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL:
			c->fail_einval = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER:
			c->fail_other = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_INEXACT:
			c->inexact = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE:
			c->has_last = 1;
			mnl_attr_for_each_nested(f, a) {
				switch (mnl_attr_get_type(f)) {
				case IOMMU_ACCOUNT_A_FAILURE_ERRNO:
					c->last_errno = mnl_attr_get_u32(f);
					break;
				case IOMMU_ACCOUNT_A_FAILURE_IOVA:
					c->last_iova = mnl_attr_get_u64(f);
					break;
				case IOMMU_ACCOUNT_A_FAILURE_SIZE:
					c->last_size = mnl_attr_get_u64(f);
					break;
				case IOMMU_ACCOUNT_A_FAILURE_OWNER:
					parse_owner(f, &c->last_who);
					break;
				}
			}
			break;
		}
	}
}

int ia_get_container(struct ia_nl *s, uint32_t id, struct ia_container *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, IOMMU_ACCOUNT_A_CONTAINER_ID, id,
		       parse_container, out, sizeof(*out));
}

int ia_dump_containers(struct ia_nl *s, struct ia_container *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, 0, 0, parse_container, out,
			sizeof(*out), max);
}

int ia_container_of_pid(struct ia_nl *s, uint32_t pid, struct ia_container *out)
{
	static struct ia_container all[64];
	int i, n = ia_dump_containers(s, all, 64);

	for (i = 0; i < n; i++)
		if (all[i].owner.pid == pid) {
			*out = all[i];
			return 0;
		}
	return n < 0 ? n : -ENOENT;
}

/* warn, crit, margin of a thresholds reply into v[0..2]. */
static int thresholds_cb(const struct nlmsghdr *nlh, void *arg)
{
	uint32_t *v = arg;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_THRESHOLDS_WARN)
			v[0] = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_THRESHOLDS_CRIT)
			v[1] = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN)
			v[2] = mnl_attr_get_u32(a);
	}
	return 0;
}

/*
 * SET (@set: v[0..2] are sent, margin only when @pot) or GET, of the VFIO
 * thresholds or (@pot) the uid pot's; v[0..2] get the reply.
 */
static int thresholds_req(struct ia_nl *s, bool set, bool pot, uint32_t *v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = put_hdr(buf, s->family, set ? IOMMU_ACCOUNT_CMD_SET_THRESHOLDS :
					    IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, 0);
	if (set) {
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, v[0]);
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, v[1]);
	}
	if (pot)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND,
				 IOMMU_ACCOUNT_QUOTA_KIND_UID_POT);
	if (set && pot)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, v[2]);
	return transact(s, nlh, thresholds_cb, v);
}

int ia_set_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit)
{
	uint32_t v[3] = { warn, crit, 0 };

	return thresholds_req(s, true, false, v);
}

int ia_get_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit)
{
	uint32_t v[3] = { 0, 0, 0 };
	int ret = thresholds_req(s, false, false, v);

	*warn = v[0];
	*crit = v[1];
	return ret;
}

int ia_set_pot_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin)
{
	uint32_t v[3] = { warn, crit, margin };

	return thresholds_req(s, true, true, v);
}

int ia_get_pot_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit, uint32_t *margin)
{
	uint32_t v[3] = { 0, 0, 0 };
	int ret = thresholds_req(s, false, true, v);

	*warn = v[0];
	*crit = v[1];
	*margin = v[2];
	return ret;
}

int ia_events_join(struct ia_nl *s)
{
	int grp = (int)s->events_group;

	if (!grp)
		return -ENOENT;
	if (mnl_socket_setsockopt(s->nl, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return -errno;
	return 0;
}

static void parse_ioas(const struct nlattr *nest, struct ia_quota *q, unsigned int i)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_IOAS_ID:
			q->ioas[i].has_id = true;
			q->ioas[i].id = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_IOAS_AREAS:
			q->ioas[i].areas = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_IOAS_BYTES:
			q->ioas[i].bytes = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_IOAS_PINNED:
			q->ioas[i].pinned = mnl_attr_get_u64(a);
			break;
		}
	}
}

static void parse_quota_attr(const struct nlattr *a, struct ia_quota *q)
{
	const struct nlattr *f;

	switch (mnl_attr_get_type(a)) {
	case IOMMU_ACCOUNT_A_QUOTA_KIND:
		q->kind = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_ID:
		q->id = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_USED:
		q->used = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_LIMIT:
		q->has_limit = true;
		q->limit = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_UID:
		q->uid = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_OWNER:
		parse_owner(a, &q->owner);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_REFUSALS:
		q->refusals = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_NAME:
		q->has_name = true;
		snprintf(q->name, sizeof(q->name), "%s", mnl_attr_get_str(a));
		break;
	case IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID:
		q->cgroup_id = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_PEAK:
		q->peak = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_SUBMITTED:
		q->submitted = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_COMPLETED:
		q->completed = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW:
		q->deferred_now = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL:
		q->deferred_total = mnl_attr_get_u64(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_WARN:
		q->warn = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_CRIT:
		q->crit = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_FLAGS:
		q->flags = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE:
		q->has_mode = true;
		q->mode = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_MAPPINGS:
		q->mappings = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_DEVICES:
		q->devices = mnl_attr_get_u32(a);
		break;
	case IOMMU_ACCOUNT_A_QUOTA_IOAS:
		if (q->nioas < 8)
			parse_ioas(a, q, q->nioas);
		q->nioas++;
		break;
	case IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE:
		q->has_last = true;
		mnl_attr_for_each_nested(f, a) {
			if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FAILURE_ERRNO)
				q->last_err = mnl_attr_get_u32(f);
			else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FAILURE_SIZE)
				q->last_size = mnl_attr_get_u64(f);
			else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FAILURE_IOAS)
				q->last_ioas = mnl_attr_get_u32(f);
			else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FAILURE_CGROUP)
				snprintf(q->last_cgroup, sizeof(q->last_cgroup), "%s",
					 mnl_attr_get_str(f));
			else if (mnl_attr_get_type(f) == IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED)
				q->last_cgroup_truncated = true;
		}
		break;
	}
}

static void parse_quota(const struct nlmsghdr *nlh, void *elem)
{
	struct ia_quota *q = elem;
	const struct nlattr *a;

	memset(q, 0, sizeof(*q));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		parse_quota_attr(a, q);
}

int ia_get_quota(struct ia_nl *s, uint32_t kind, uint32_t id, struct ia_quota *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { out, sizeof(*out), 1, 0, parse_quota };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_QUOTA, 0);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, kind);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, id);
	ret = transact(s, nlh, collect_cb, &c);
	if (!ret && c.n != 1)
		return -EPROTO;
	return ret;
}

int ia_dump_quotas(struct ia_nl *s, int64_t kind, int64_t uid, int64_t pid,
		   struct ia_quota *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { out, sizeof(*out), max, 0, parse_quota };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_QUOTA, NLM_F_DUMP);
	if (kind >= 0)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, (uint32_t)kind);
	if (uid >= 0)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_UID, (uint32_t)uid);
	if (pid >= 0)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_PID, (uint32_t)pid);
	ret = transact(s, nlh, collect_cb, &c);
	return ret ? ret : c.n;
}

int ia_set_qpair_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t v[3];
	struct nlmsghdr *nlh;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS, 0);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, warn);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, crit);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, IOMMU_ACCOUNT_QUOTA_KIND_QPAIR);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, margin);
	return transact(s, nlh, thresholds_cb, v);
}

static void parse_event(const struct nlmsghdr *nlh, struct ia_event *ev)
{
	const struct nlattr *a;

	memset(ev, 0, sizeof(*ev));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_EVENT_SEQ:
			ev->seq = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_TYPE:
			ev->type = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID:
			ev->container = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_GROUP:
			if (ev->ngroups < 64)
				ev->groups[ev->ngroups] = mnl_attr_get_u32(a);
			ev->ngroups++;
			break;
		case IOMMU_ACCOUNT_A_EVENT_ENTRIES:
			ev->entries = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_LIMIT:
			ev->limit = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_OWNER:
			parse_owner(a, &ev->who);
			break;
		case IOMMU_ACCOUNT_A_EVENT_ERRNO:
			ev->err = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_IOVA:
			ev->iova = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_SIZE:
			ev->size = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES:
			ev->locked = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT:
			ev->memlock = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_LEVEL:
			ev->level = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_THRESHOLD:
			ev->threshold = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_IOAS:
			ev->ioas = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_COUNT:
			ev->count = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT:
			ev->group_count = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_KIND:
			ev->kind = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_UID:
			ev->uid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_CONSUMER:
			ev->consumer = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_CGROUP_ID:
			ev->cgroup_id = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_EVENT_QUOTA: {
			const struct nlattr *q;

			ev->has_quota = true;
			mnl_attr_for_each_nested(q, a)
				parse_quota_attr(q, &ev->quota);
			break;
		}
		}
	}
}

/* Events queued but not yet handed out (one recv may carry several). */
static char ev_buf[16384];
static int ev_len, ev_off;

int ia_timeout_scale(void)
{
	static int k;
	const char *e;
	char *end;
	long v;

	if (k)
		return k;
	k = 1;
	e = getenv("IA_TIMEOUT_SCALE");
	if (e && *e) {
		v = strtol(e, &end, 10);
		if (!*end && v >= 1 && v <= 20)
			k = (int)v;
	}
	return k;
}

int ia_event_read(struct ia_nl *s, struct ia_event *ev, int timeout_ms)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(s->nl), .events = POLLIN };

	timeout_ms *= ia_timeout_scale();

	for (;;) {
		while (ev_off < ev_len) {
			struct nlmsghdr *m = (struct nlmsghdr *)(ev_buf + ev_off);

			if (!mnl_nlmsg_ok(m, ev_len - ev_off)) {
				ev_len = ev_off = 0;
				break;
			}
			ev_off += NLMSG_ALIGN(m->nlmsg_len);
			if (m->nlmsg_type == s->family) {
				parse_event(m, ev);
				return 1;
			}
		}
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
		ev_len = (int)mnl_socket_recvfrom(s->nl, ev_buf, sizeof(ev_buf));
		ev_off = 0;
		if (ev_len < 0)
			return -errno;
	}
}

int ia_dump_groups_split(struct ia_nl *s, void (*between)(void *), void *arg,
			 uint32_t *ids, uint32_t *ctrs, int max, int *nrecv)
{
	char buf[4096];
	struct nlmsghdr *nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_GROUP, NLM_F_DUMP);
	uint32_t seq = ++s->seq;
	int n = 0;

	*nrecv = 0;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *m;
		ssize_t r = recv(mnl_socket_get_fd(s->nl), buf, sizeof(buf), 0);
		int len;

		if (r < 0)
			return -errno;
		if (!(*nrecv)++ && between)
			between(arg);
		len = (int)r;
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
			const struct nlattr *a;
			uint32_t id = 0, ctr = 0;

			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)mnl_nlmsg_get_payload(m))->error;
			if (m->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)mnl_nlmsg_get_payload(m);

				return err ? err : n;
			}
			mnl_attr_for_each(a, m, sizeof(struct genlmsghdr)) {
				if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_GROUP_ID)
					id = mnl_attr_get_u32(a);
				if (mnl_attr_get_type(a) == IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID)
					ctr = mnl_attr_get_u32(a);
			}
			if (n < max) {
				ids[n] = id;
				ctrs[n] = ctr;
			}
			n++;
		}
	}
}

static void parse_proc(const struct nlmsghdr *nlh, void *elem)
{
	struct ia_proc *p = elem;
	const struct nlattr *a;

	memset(p, 0, sizeof(*p));
	p->uring_fds = -1;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case IOMMU_ACCOUNT_A_PROC_PID:
			p->pid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_UID:
			p->uid = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_COMM:
			snprintf(p->comm, sizeof(p->comm), "%s", mnl_attr_get_str(a));
			break;
		case IOMMU_ACCOUNT_A_PROC_CGROUP_ID:
			p->cgroup_id = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT:
			p->soft = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD:
			p->hard = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_CONSUMER:
			parse_consumer(a, p->consumer);
			break;
		case IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES:
			p->locked_vm = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES:
			p->pinned_vm = mnl_attr_get_u64(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_RINGS:
			p->rings = mnl_attr_get_u32(a);
			break;
		case IOMMU_ACCOUNT_A_PROC_CGROUP:
			snprintf(p->cgroup, sizeof(p->cgroup), "%s", mnl_attr_get_str(a));
			break;
		case IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED:
			p->cgroup_truncated = true;
			break;
		case IOMMU_ACCOUNT_A_PROC_URING_FDS:
			p->uring_fds = mnl_attr_get_u32(a);
			break;
		}
	}
}

int ia_get_proc(struct ia_nl *s, uint32_t pid, struct ia_proc *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_PROC, IOMMU_ACCOUNT_A_PROC_PID, pid,
		       parse_proc, out, sizeof(*out));
}

int ia_dump_procs(struct ia_nl *s, bool by_uid, uint32_t uid, struct ia_proc *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_PROC, by_uid ? IOMMU_ACCOUNT_A_PROC_UID : 0, uid,
			parse_proc, out, sizeof(*out), max);
}

uint64_t ia_uid_consumers(const struct ia_uid *u)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < IA_NCONS; i++)
		s += u->consumer[i];
	return s;
}
