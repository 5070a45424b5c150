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
#include "ynl.h"

/*
 * Every block the generated parsers allocate (a reply's strings and
 * arrays) is counted here, and every block their free functions release:
 * what is left when a test ends is a reply nobody freed. The count is the
 * process's (threads add to it; a fork starts from its parent's).
 */
static long ia_nl_blocks;

static void *ia_gen_malloc(size_t n)
{
	void *p = malloc(n);

	if (p)
		__atomic_add_fetch(&ia_nl_blocks, 1, __ATOMIC_RELAXED);
	return p;
}

static void *ia_gen_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p)
		__atomic_add_fetch(&ia_nl_blocks, 1, __ATOMIC_RELAXED);
	return p;
}

static void ia_gen_free(void *p)
{
	if (p)
		__atomic_sub_fetch(&ia_nl_blocks, 1, __ATOMIC_RELAXED);
	free(p);
}

/*
 * The wire format is ynl-gen-c's, generated from the YNL spec as for
 * libia (userspace/lib/gen/, checked by scripts/ynl-check): its reply
 * parsers are not in its header, so the source is built into this file,
 * its allocations counted (above). The transport stays this file's
 * (libmnl): the tests need the raw messages, extack's missing-attribute
 * type and the count of reads.
 */
#define malloc(n) ia_gen_malloc(n)
#define calloc(n, size) ia_gen_calloc(n, size)
#define free(p) ia_gen_free(p)
#include "iommu_account-user.c"
#undef malloc
#undef calloc
#undef free

long ia_nl_live_blocks(void)
{
	return __atomic_load_n(&ia_nl_blocks, __ATOMIC_RELAXED);
}

/*
 * A reply's members freed by its generated free function, which also frees
 * the reply itself: it is given a counted copy, and @obj is zeroed (freeing
 * it again is harmless).
 */
static void release(void *obj, size_t size, void (*rsp_free)(void *))
{
	void *copy = ia_gen_malloc(size);

	if (!copy)
		abort();
	memcpy(copy, obj, size);
	rsp_free(copy);
	memset(obj, 0, size);
}

#define IA_RELEASE(name, type, op) \
	void ia_nl_free_##name(type *obj) \
	{ \
		release(obj, sizeof(*obj), (void (*)(void *))iommu_account_##op##_rsp_free); \
	}
IA_RELEASE(status, ia_status_t, get_status)
IA_RELEASE(uid, ia_uid_t, get_uid)
IA_RELEASE(proc, ia_proc_t, get_proc)
IA_RELEASE(container, ia_container_t, get_container)
IA_RELEASE(quota, ia_quota_t, get_quota)

/* An event's free function takes the notification around it. */
static void event_rsp_free(void *obj)
{
	struct iommu_account_event *ntf = ia_gen_calloc(1, sizeof(*ntf));

	if (!ntf)
		abort();
	ntf->obj = *(ia_event_t *)obj;
	ia_gen_free(obj);
	iommu_account_event_free(ntf);
}

void ia_nl_free_event(ia_event_t *obj)
{
	release(obj, sizeof(*obj), event_rsp_free);
}

/*
 * The harness's leak check (ia_harness.h): the one process of a test (not
 * the processes it forks) sets ia_nl_exit_checked, and its exit finds every
 * reply freed or fails the test. Every program here links with
 * -Wl,--wrap=_exit; the check is off in all others.
 */
int ia_nl_exit_checked;
void __real__exit(int code) __attribute__((noreturn));
void __wrap__exit(int code) __attribute__((noreturn));

void __wrap__exit(int code)
{
	long n = ia_nl_live_blocks();

	if (ia_nl_exit_checked && n) {
		fprintf(stderr, "# leak: %ld block%s of parsed replies never freed (ia_nl_free)\n",
			n, n == 1 ? "" : "s");
		if (!code)
			code = 1;	/* KSFT_FAIL */
	}
	__real__exit(code);
}

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

/* A generated reply parser, its policy and free function, for replies of @size bytes. */
struct reply {
	const struct ynl_policy_nest *pol;
	int (*parse)(const struct nlmsghdr *nlh, struct ynl_parse_arg *ya);
	void (*free)(void *rsp);
	size_t size;
};

#define REPLY_FREE(op, set, free_fn) \
	((struct reply){ &iommu_account_##set##_nest, iommu_account_##op##_rsp_parse, \
			 (void (*)(void *))(free_fn), sizeof(struct iommu_account_##op##_rsp) })
#define REPLY(op, set) REPLY_FREE(op, set, iommu_account_##op##_rsp_free)

/*
 * @nlh parsed into @out (zeroed first) by @r; 0, or -1 when it does not
 * parse (and what was parsed of it is freed).
 */
static int parse_into(struct ia_nl *s, const struct nlmsghdr *nlh, struct reply r, void *out)
{
	struct ynl_parse_arg ya = { .ys = s->ys, .rsp_policy = r.pol, .data = out };

	memset(out, 0, r.size);
	if (r.parse(nlh, &ya) == YNL_PARSE_CB_OK)
		return 0;
	release(out, r.size, r.free);
	return -1;
}

/* Replies parsed into an array (room for @max). */
struct collect {
	struct ia_nl *s;
	void *out;
	int max, n;
	struct reply r;
};

static int collect_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;

	if (c->n >= c->max || parse_into(c->s, nlh, c->r, (char *)c->out + (size_t)c->n * c->r.size))
		return -1;
	c->n++;
	return 0;
}

/* @ret, after freeing what was collected when it is an error: the caller owns nothing then. */
static int collected(struct collect *c, int ret)
{
	if (ret)
		while (c->n > 0) {
			c->n--;
			release((char *)c->out + (size_t)c->n * c->r.size, c->r.size, c->r.free);
		}
	return ret;
}

/* A do of @cmd, with @attr = @key unless @attr is 0: exactly one reply. */
static int get_one(struct ia_nl *s, uint8_t cmd, uint16_t attr, uint32_t key,
		   struct reply r, void *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, 1, 0, r };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, cmd, 0);
	if (attr)
		mnl_attr_put_u32(nlh, attr, key);
	ret = transact(s, nlh, collect_cb, &c);
	return collected(&c, !ret && c.n != 1 ? -EPROTO : ret);
}

/* A dump of @cmd (filtered by @attr = @key when @attr); the count or -errno. */
static int dump_all(struct ia_nl *s, uint8_t cmd, uint16_t attr, uint32_t key,
		    struct reply r, void *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, max, 0, r };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, cmd, NLM_F_DUMP);
	if (attr)
		mnl_attr_put_u32(nlh, attr, key);
	ret = transact(s, nlh, collect_cb, &c);
	return collected(&c, ret) ?: c.n;
}

int ia_get_status(struct ia_nl *s, ia_status_t *st)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_STATUS, 0, 0, REPLY(get_status, status), st);
}

int ia_get_uid(struct ia_nl *s, uint32_t uid, ia_uid_t *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_UID, IOMMU_ACCOUNT_A_UID_UID, uid,
		       REPLY(get_uid, uid), out);
}

int ia_dump_uids(struct ia_nl *s, ia_uid_t *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_UID, 0, 0, REPLY(get_uid, uid), out, max);
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
	ia_uid_t u;

	int64_t bytes;

	if (ia_get_uid(s, uid, &u))
		return -1;
	bytes = (int64_t)u.locked_bytes;
	ia_nl_free(&u);
	return bytes;
}

int ia_get_container(struct ia_nl *s, uint32_t id, ia_container_t *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, IOMMU_ACCOUNT_A_CONTAINER_ID, id,
		       REPLY(get_container, container), out);
}

int ia_dump_containers(struct ia_nl *s, ia_container_t *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_CONTAINER, 0, 0, REPLY(get_container, container),
			out, max);
}

int ia_container_of_pid(struct ia_nl *s, uint32_t pid, ia_container_t *out)
{
	ia_container_t *all = calloc(64, sizeof(*all));
	int i, n, ret = -ENOENT;

	if (!all)
		return -ENOMEM;
	n = ia_dump_containers(s, all, 64);
	if (n < 0)
		ret = n;
	for (i = 0; i < n; i++) {
		if (ret == -ENOENT && all[i].owner.pid == pid) {
			*out = all[i];	/* its members are the caller's now */
			ret = 0;
			continue;
		}
		ia_nl_free(&all[i]);
	}
	free(all);
	return ret;
}

/*
 * SET (@set: v[0..2] are sent, margin only when @kind) or GET, of the VFIO
 * thresholds or (@kind) those of that quota kind; v[0..2] get the reply's
 * warn, crit and margin (GET's and SET's replies are alike).
 */
static int thresholds_req(struct ia_nl *s, bool set, uint32_t kind, uint32_t *v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct iommu_account_get_thresholds_rsp t;
	struct collect c = { s, &t, 1, 0, REPLY(get_thresholds, thresholds) };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, set ? IOMMU_ACCOUNT_CMD_SET_THRESHOLDS :
					    IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, 0);
	if (set) {
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, v[0]);
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, v[1]);
	}
	if (kind)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, kind);
	if (set && kind)
		mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, v[2]);
	ret = transact(s, nlh, collect_cb, &c);
	if (!ret && c.n == 1) {
		v[0] = t.warn;
		v[1] = t.crit;
		v[2] = t.margin;
	}
	collected(&c, -1);
	return ret;
}

int ia_set_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit)
{
	uint32_t v[3] = { warn, crit, 0 };

	return thresholds_req(s, true, 0, v);
}

int ia_get_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit)
{
	uint32_t v[3] = { 0, 0, 0 };
	int ret = thresholds_req(s, false, 0, v);

	*warn = v[0];
	*crit = v[1];
	return ret;
}

int ia_set_pot_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin)
{
	uint32_t v[3] = { warn, crit, margin };

	return thresholds_req(s, true, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT, v);
}

int ia_get_pot_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit, uint32_t *margin)
{
	uint32_t v[3] = { 0, 0, 0 };
	int ret = thresholds_req(s, false, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT, v);

	*warn = v[0];
	*crit = v[1];
	*margin = v[2];
	return ret;
}

int ia_events_subscribe(struct ia_nl *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS, 0);
	return transact(s, nlh, NULL, NULL);
}

int ia_events_join(struct ia_nl *s)
{
	int grp = (int)s->events_group;

	/* No group (a kernel that cannot restrict one): unicast, on request. */
	if (!grp)
		return ia_events_subscribe(s);
	if (mnl_socket_setsockopt(s->nl, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return -errno;
	return 0;
}

int ia_get_quota(struct ia_nl *s, uint32_t kind, uint32_t id, ia_quota_t *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, 1, 0, REPLY(get_quota, quota) };
	struct nlmsghdr *nlh;
	int ret;

	nlh = put_hdr(buf, s->family, IOMMU_ACCOUNT_CMD_GET_QUOTA, 0);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, kind);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, id);
	ret = transact(s, nlh, collect_cb, &c);
	return collected(&c, !ret && c.n != 1 ? -EPROTO : ret);
}

int ia_dump_quotas(struct ia_nl *s, int64_t kind, int64_t uid, int64_t pid,
		   ia_quota_t *out, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct collect c = { s, out, max, 0, REPLY(get_quota, quota) };
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
	return collected(&c, ret) ?: c.n;
}

int ia_set_qpair_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin)
{
	uint32_t v[3] = { warn, crit, margin };

	return thresholds_req(s, true, IOMMU_ACCOUNT_QUOTA_KIND_QPAIR, v);
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

int ia_event_read(struct ia_nl *s, ia_event_t *ev, int timeout_ms)
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
				return parse_into(s, m, REPLY_FREE(event, event, event_rsp_free),
						  ev) ? -EPROTO : 1;
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
			struct iommu_account_get_group_rsp w;

			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)mnl_nlmsg_get_payload(m))->error;
			if (m->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)mnl_nlmsg_get_payload(m);

				return err ? err : n;
			}
			if (parse_into(s, m, REPLY(get_group, group), &w))
				return -EPROTO;	/* nothing of @w left to free */
			if (n < max) {
				ids[n] = w.id;
				ctrs[n] = w.container_id;
			}
			n++;
			release(&w, sizeof(w), (void (*)(void *))iommu_account_get_group_rsp_free);
		}
	}
}

int ia_get_proc(struct ia_nl *s, uint32_t pid, ia_proc_t *out)
{
	return get_one(s, IOMMU_ACCOUNT_CMD_GET_PROC, IOMMU_ACCOUNT_A_PROC_PID, pid,
		       REPLY(get_proc, proc), out);
}

int ia_dump_procs(struct ia_nl *s, bool by_uid, uint32_t uid, ia_proc_t *out, int max)
{
	return dump_all(s, IOMMU_ACCOUNT_CMD_GET_PROC, by_uid ? IOMMU_ACCOUNT_A_PROC_UID : 0, uid,
			REPLY(get_proc, proc), out, max);
}

uint64_t ia_nl_consumer(const struct iommu_account_consumer_bytes *v, unsigned int n, unsigned int c)
{
	uint64_t bytes = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i].consumer == c)
			bytes += v[i].bytes;
	return bytes;
}

uint64_t ia_uid_consumers(const ia_uid_t *u)
{
	uint64_t bytes = 0;
	unsigned int i;

	for (i = 0; i < u->n_consumer; i++)
		bytes += u->consumer[i].bytes;
	return bytes;
}

const struct iommu_account_feature *ia_nl_feature(const ia_status_t *st, const char *name)
{
	unsigned int i;

	for (i = 0; i < st->n_feature; i++)
		if (st->feature[i].name && !strcmp(st->feature[i].name, name))
			return &st->feature[i];
	return NULL;
}

int64_t ia_nl_kind_refusals(const ia_status_t *st, uint32_t kind)
{
	unsigned int i;

	for (i = 0; i < st->n_quota_kind; i++)
		if (st->quota_kind[i]._present.kind && st->quota_kind[i].kind == kind &&
		    st->quota_kind[i]._present.refusals)
			return (int64_t)st->quota_kind[i].refusals;
	return -1;
}
