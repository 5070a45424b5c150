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
/*
 * The wire format is ynl-gen-c's, generated from the YNL spec as for
 * libia (userspace/lib/gen/, checked by scripts/ynl-check): its reply
 * parsers are not in its header, so the source is built into this file.
 * The transport stays this file's (libmnl): the tests need the raw
 * messages, extack's missing-attribute type and the count of reads.
 */
#include "iommu_account-user.c"

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
	struct ynl_error yerr = { 0 };
	unsigned int i;
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
	/* libynl resolves the family and its groups; its socket is the parsers' context. */
	s->ys = ynl_sock_create(&ynl_iommu_account_family, &yerr);
	if (!s->ys) {
		ret = yerr.code ? -(int)yerr.code : -ENOENT;
		goto err;
	}
	s->family = s->ys->family_id;
	for (i = 0; i < s->ys->n_mcast_groups; i++)
		if (!strcmp(s->ys->mcast_groups[i].name, IOMMU_ACCOUNT_MCGRP_EVENTS))
			s->events_group = s->ys->mcast_groups[i].id;
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
	if (s->ys)
		ynl_sock_destroy(s->ys);
	s->nl = NULL;
	s->ys = NULL;
}

/*
 * @nlh through the generated reply parser @parse (policy @pol) into a new
 * reply of @size bytes; NULL when it does not parse (its error in s->ys).
 */
static void *gen_parse(struct ia_nl *s, const struct nlmsghdr *nlh, size_t size,
		       const struct ynl_policy_nest *pol,
		       int (*parse)(const struct nlmsghdr *, struct ynl_parse_arg *))
{
	struct ynl_parse_arg ya = { .ys = s->ys, .rsp_policy = pol };

	ya.data = calloc(1, size);
	if (ya.data && parse(nlh, &ya) != YNL_PARSE_CB_OK) {
		free(ya.data);	/* what a failed parse allocated is leaked: a test fails anyway */
		ya.data = NULL;
	}
	return ya.data;
}

#define PARSE(s, nlh, op, set) \
	((struct iommu_account_##op##_rsp *)gen_parse((s), (nlh), \
		sizeof(struct iommu_account_##op##_rsp), &iommu_account_##set##_nest, \
		iommu_account_##op##_rsp_parse))

#define STR(dst, src) snprintf((dst), sizeof(dst), "%s", (src) ? (src) : "")

static void owner_of(const struct iommu_account_owner *w, struct ia_nl_owner *o)
{
	o->pid = w->pid;
	o->uid = w->uid;
	STR(o->comm, w->comm);
}

/* Consumer-bytes nests: bytes[consumer] += bytes (unknown consumers ignored). */
static void consumers_of(const struct iommu_account_consumer_bytes *w, unsigned int n,
			 uint64_t *bytes)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (w[i].consumer < IA_NCONS)
			bytes[w[i].consumer] += w[i].bytes;
}

/* Replies parsed into an array of @size-byte elements (room for @max). */
typedef int (*parse_fn)(struct ia_nl *s, const struct nlmsghdr *nlh, void *elem);

struct collect {
	struct ia_nl *s;
	void *out;
	size_t size;
	int max, n;
	parse_fn parse;
};

static int collect_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;

	if (c->n >= c->max)
		return -1;
	return c->parse(c->s, nlh, (char *)c->out + (size_t)c->n++ * c->size);
}

static int parse_status(struct ia_nl *s, const struct nlmsghdr *nlh, void *arg)
{
	struct iommu_account_get_status_rsp *w = PARSE(s, nlh, get_status, status);
	struct ia_nl_status *st = arg;
	unsigned int i;

	if (!w)
		return -1;
	STR(st->version, w->module_version);
	STR(st->release, w->kernel_release);
	st->events_dropped = w->events_dropped;
	st->probes_missed = w->probes_missed;
	st->vfio_untracked = w->vfio_untracked;
	st->page_size = w->page_size;
	for (i = 0; i < w->n_quota_kind; i++) {
		uint32_t kind = w->quota_kind[i]._present.kind ? w->quota_kind[i].kind : UINT32_MAX;

		if (kind < 8) {
			st->has_kind_refusals[kind] = w->quota_kind[i]._present.refusals;
			st->kind_refusals[kind] = w->quota_kind[i].refusals;
		}
	}
	for (i = 0; i < w->n_feature && st->nfeat < 16; i++) {
		struct ia_nl_feature *ft = &st->feat[st->nfeat++];

		STR(ft->name, w->feature[i].name);
		ft->state = w->feature[i].state;
		STR(ft->detail, w->feature[i].detail);
	}
	iommu_account_get_status_rsp_free(w);
	return 0;
}

int ia_get_status(struct ia_nl *s, struct ia_nl_status *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	struct collect c = { s, st, sizeof(*st), 1, 0, parse_status };

	memset(st, 0, sizeof(*st));
	return transact(s, put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_STATUS, 0),
			collect_cb, &c);
}

static int parse_uid(struct ia_nl *s, const struct nlmsghdr *nlh, void *elem)
{
	struct iommu_account_get_uid_rsp *w = PARSE(s, nlh, get_uid, uid);
	struct ia_nl_uid *u = elem;

	memset(u, 0, sizeof(*u));
	if (!w)
		return -1;
	u->uid = w->uid;
	u->locked = w->locked_bytes;
	u->tasks = w->tasks;
	u->has_min = w->_present.memlock_min;
	u->min = w->memlock_min;
	u->has_max = w->_present.memlock_max;
	u->max = w->memlock_max;
	u->has_headroom = w->_present.headroom;
	u->headroom = w->headroom;
	consumers_of(w->consumer, w->n_consumer, u->consumer);
	u->has_breakdown = w->_present.unattributed_bytes;
	u->unattributed = w->unattributed_bytes;
	u->pending = w->pending_bytes;
	u->has_iommufd = w->_present.iommufd_mm_bytes;
	u->iommufd_mm = w->iommufd_mm_bytes;
	u->iommufd_exempt = w->iommufd_exempt_bytes;
	u->cgroups = w->cgroups;
	u->charges = w->charges;
	u->refusals = w->refusals;
	u->inexact = w->inexact;
	iommu_account_get_uid_rsp_free(w);
	return 0;
}

/* A do of @cmd for the object whose @attr is @key: exactly one reply. */
static int get_one(struct ia_nl *s, uint8_t cmd, uint16_t attr, uint32_t key,
		   parse_fn parse, void *out, size_t size)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, size, 1, 0, parse };
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
		    parse_fn parse, void *out, size_t size, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, size, max, 0, parse };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, cmd, NLM_F_DUMP);
	if (attr)
		mnl_attr_put_u32(nlh, attr, key);
	ret = transact(s, nlh, collect_cb, &c);
	return ret ? ret : c.n;
}

int ia_get_uid(struct ia_nl *s, uint32_t uid, struct ia_nl_uid *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_UID, IOMMU_ACCOUNT_A_UID_UID, uid,
		       parse_uid, out, sizeof(*out));
}

int ia_dump_uids(struct ia_nl *s, struct ia_nl_uid *out, int max)
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
	struct ia_nl_uid u;

	if (ia_get_uid(s, uid, &u))
		return -1;
	return (int64_t)u.locked;
}

static int parse_container(struct ia_nl *s, const struct nlmsghdr *nlh, void *elem)
{
	struct iommu_account_get_container_rsp *w = PARSE(s, nlh, get_container, container);
	struct ia_nl_container *c = elem;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (!w)
		return -1;
	c->id = w->id;
	c->ngroups = (int)w->n_group;
	for (i = 0; i < w->n_group && i < 64; i++)
		c->groups[i] = w->group[i];
	c->entries = w->entries;
	c->limit = w->limit;
	c->mapped_bytes = w->mapped_bytes;
	c->pinned_pages = w->pinned_pages;
	c->pinned_uid = w->pinned_uid;
	owner_of(&w->owner, &c->owner);
	c->map_ops = w->map_ops;
	c->unmap_ops = w->unmap_ops;
	c->fail_enospc = w->fail_enospc;
	c->fail_enomem = w->fail_enomem;
	c->fail_einval = w->fail_einval;
	c->fail_other = w->fail_other;
	c->inexact = w->inexact;
	c->has_last = w->_present.last_failure;
	c->last_errno = w->last_failure.errno_;
	c->last_iova = w->last_failure.iova;
	c->last_size = w->last_failure.size;
	owner_of(&w->last_failure.owner, &c->last_who);
	iommu_account_get_container_rsp_free(w);
	return 0;
}

int ia_get_container(struct ia_nl *s, uint32_t id, struct ia_nl_container *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, IOMMU_ACCOUNT_A_CONTAINER_ID, id,
		       parse_container, out, sizeof(*out));
}

int ia_dump_containers(struct ia_nl *s, struct ia_nl_container *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, 0, 0, parse_container, out,
			sizeof(*out), max);
}

int ia_container_of_pid(struct ia_nl *s, uint32_t pid, struct ia_nl_container *out)
{
	static struct ia_nl_container all[64];
	int i, n = ia_dump_containers(s, all, 64);

	for (i = 0; i < n; i++)
		if (all[i].owner.pid == pid) {
			*out = all[i];
			return 0;
		}
	return n < 0 ? n : -ENOENT;
}

/* warn, crit, margin of a thresholds reply into v[0..2] (GET's and SET's replies are alike). */
static int thresholds_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;
	struct iommu_account_get_thresholds_rsp *w = PARSE(c->s, nlh, get_thresholds, thresholds);
	uint32_t *v = c->out;

	if (!w)
		return -1;
	v[0] = w->warn;
	v[1] = w->crit;
	v[2] = w->margin;
	iommu_account_get_thresholds_rsp_free(w);
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
	return transact(s, nlh, thresholds_cb, &(struct collect){ .s = s, .out = v });
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

/* The attributes a GET_QUOTA reply and an event's quota nest share (two generated types). */
#define QUOTA_OF(w, q)							\
({									\
	(q)->kind = (w)->kind;						\
	(q)->id = (w)->id;						\
	(q)->used = (w)->used;						\
	(q)->has_limit = (w)->_present.limit;				\
	(q)->limit = (w)->limit;					\
	(q)->uid = (w)->uid;						\
	owner_of(&(w)->owner, &(q)->owner);				\
	(q)->refusals = (w)->refusals;					\
	(q)->has_name = (w)->_present.name_len;				\
	STR((q)->name, (w)->name);					\
	(q)->cgroup_id = (w)->cgroup_id;				\
	(q)->peak = (w)->peak;						\
	(q)->submitted = (w)->submitted;				\
	(q)->completed = (w)->completed;				\
	(q)->deferred_now = (w)->deferred_now;				\
	(q)->deferred_total = (w)->deferred_total;			\
	(q)->warn = (w)->warn;						\
	(q)->crit = (w)->crit;						\
	(q)->flags = (w)->flags;					\
	(q)->has_mode = (w)->_present.iommufd_mode;			\
	(q)->mode = (w)->iommufd_mode;					\
	(q)->mappings = (w)->mappings;					\
	(q)->devices = (w)->devices;					\
})

/* A quota's last refusal (a GET_QUOTA reply's, or an event's quota nest's). */
static void quota_last_of(const struct iommu_account_failure *f, bool present,
			  struct ia_nl_quota *q)
{
	q->has_last = present;
	q->last_err = f->errno_;
	q->last_size = f->size;
	q->last_ioas = f->ioas;
	STR(q->last_cgroup, f->cgroup);
	q->last_cgroup_truncated = f->_present.cgroup_truncated;
}

static int parse_quota(struct ia_nl *s, const struct nlmsghdr *nlh, void *elem)
{
	struct iommu_account_get_quota_rsp *w = PARSE(s, nlh, get_quota, quota);
	struct ia_nl_quota *q = elem;
	unsigned int i;

	memset(q, 0, sizeof(*q));
	if (!w)
		return -1;
	QUOTA_OF(w, q);
	q->nioas = w->n_ioas;
	for (i = 0; i < w->n_ioas && i < 8; i++) {
		q->ioas[i].has_id = w->ioas[i]._present.id;
		q->ioas[i].id = w->ioas[i].id;
		q->ioas[i].areas = w->ioas[i].areas;
		q->ioas[i].bytes = w->ioas[i].bytes;
		q->ioas[i].pinned = w->ioas[i].pinned;
	}
	quota_last_of(&w->last_failure, w->_present.last_failure, q);
	iommu_account_get_quota_rsp_free(w);
	return 0;
}

int ia_get_quota(struct ia_nl *s, uint32_t kind, uint32_t id, struct ia_nl_quota *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, sizeof(*out), 1, 0, parse_quota };
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
		   struct ia_nl_quota *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, sizeof(*out), max, 0, parse_quota };
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
	return transact(s, nlh, thresholds_cb, &(struct collect){ .s = s, .out = v });
}

static int parse_event(struct ia_nl *s, const struct nlmsghdr *nlh, struct ia_nl_event *ev)
{
	/* A notification: its parsed form sits in the generated wrapper. */
	struct iommu_account_event *n = calloc(1, sizeof(*n));
	struct ynl_parse_arg ya = { .ys = s->ys, .rsp_policy = &iommu_account_event_nest };
	struct iommu_account_event_rsp *w;
	unsigned int i;

	memset(ev, 0, sizeof(*ev));
	if (!n)
		return -1;
	w = ya.data = &n->obj;
	if (iommu_account_event_rsp_parse(nlh, &ya) != YNL_PARSE_CB_OK) {
		free(n);
		return -1;
	}
	ev->seq = w->seq;
	ev->type = w->type;
	ev->container = w->container_id;
	ev->ngroups = (int)w->n_group;
	for (i = 0; i < w->n_group && i < 64; i++)
		ev->groups[i] = w->group[i];
	ev->entries = w->entries;
	ev->limit = w->limit;
	owner_of(&w->owner, &ev->who);
	ev->err = w->errno_;
	ev->iova = w->iova;
	ev->size = w->size;
	ev->locked = w->locked_bytes;
	ev->memlock = w->memlock_limit;
	ev->level = w->level;
	ev->threshold = w->threshold;
	ev->ioas = w->ioas;
	ev->count = w->count;
	ev->group_count = w->group_count;
	ev->kind = w->kind;
	ev->uid = w->uid;
	ev->consumer = w->consumer;
	ev->cgroup_id = w->cgroup_id;
	ev->has_quota = w->_present.quota;
	if (ev->has_quota) {
		QUOTA_OF(&w->quota, &ev->quota);
		quota_last_of(&w->quota.last_failure, w->quota._present.last_failure, &ev->quota);
	}
	iommu_account_event_free(n);
	return 0;
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

int ia_event_read(struct ia_nl *s, struct ia_nl_event *ev, int timeout_ms)
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
			if (m->nlmsg_type == s->family)
				return parse_event(s, m, ev) ? -EPROTO : 1;
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
			struct iommu_account_get_group_rsp *w;

			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)mnl_nlmsg_get_payload(m))->error;
			if (m->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)mnl_nlmsg_get_payload(m);

				return err ? err : n;
			}
			w = PARSE(s, m, get_group, group);
			if (!w)
				return -EPROTO;
			if (n < max) {
				ids[n] = w->id;
				ctrs[n] = w->container_id;
			}
			n++;
			iommu_account_get_group_rsp_free(w);
		}
	}
}

static int parse_proc(struct ia_nl *s, const struct nlmsghdr *nlh, void *elem)
{
	struct iommu_account_get_proc_rsp *w = PARSE(s, nlh, get_proc, proc);
	struct ia_nl_proc *p = elem;

	memset(p, 0, sizeof(*p));
	if (!w)
		return -1;
	p->pid = w->pid;
	p->uid = w->uid;
	STR(p->comm, w->comm);
	p->cgroup_id = w->cgroup_id;
	p->soft = w->memlock_soft;
	p->hard = w->memlock_hard;
	consumers_of(w->consumer, w->n_consumer, p->consumer);
	p->locked_vm = w->locked_vm_bytes;
	p->pinned_vm = w->pinned_vm_bytes;
	p->rings = w->rings;
	STR(p->cgroup, w->cgroup);
	p->cgroup_truncated = w->_present.cgroup_truncated;
	p->uring_fds = w->_present.uring_fds ? (int64_t)w->uring_fds : -1;
	iommu_account_get_proc_rsp_free(w);
	return 0;
}

int ia_get_proc(struct ia_nl *s, uint32_t pid, struct ia_nl_proc *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_PROC, IOMMU_ACCOUNT_A_PROC_PID, pid,
		       parse_proc, out, sizeof(*out));
}

int ia_dump_procs(struct ia_nl *s, bool by_uid, uint32_t uid, struct ia_nl_proc *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_PROC, by_uid ? IOMMU_ACCOUNT_A_PROC_UID : 0, uid,
			parse_proc, out, sizeof(*out), max);
}

uint64_t ia_uid_consumers(const struct ia_nl_uid *u)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < IA_NCONS; i++)
		s += u->consumer[i];
	return s;
}
