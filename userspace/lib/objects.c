// SPDX-License-Identifier: GPL-2.0
/*
 * libia typed parsers and the requests that use them. A missing attribute
 * reads as 0 / absent; attributes this library does not know are ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "internal.h"

static uint64_t u64a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint32_t u32a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static void stra(struct nlattr **tb, int a, char *buf, size_t len)
{
	buf[0] = 0;
	if (tb[a])
		snprintf(buf, len, "%s", nla_get_string(tb[a]));
}

/* Iterate the top-level attributes of a generic netlink message. */
#define for_each_top_attr(a, nlh, rem) \
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0), \
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)

/* Every @attr of @nlh as a heap array; -ENOMEM. */
static int u32_list(struct nlmsghdr *nlh, int attr, uint32_t **out, unsigned int *n)
{
	struct nlattr *a;
	unsigned int cnt = 0;
	int rem;

	*out = NULL;
	*n = 0;
	for_each_top_attr(a, nlh, rem)
		cnt += nla_type(a) == attr;
	if (!cnt)
		return 0;
	*out = calloc(cnt, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for_each_top_attr(a, nlh, rem)
		if (nla_type(a) == attr)
			(*out)[(*n)++] = nla_get_u32(a);
	return 0;
}

static void parse_owner(struct nlattr *nest, struct ia_owner *o)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_OWNER_MAX + 1];

	memset(o, 0, sizeof(*o));
	if (!nest || nla_parse_nested(tb, IOMMU_ACCOUNT_A_OWNER_MAX, nest, NULL))
		return;
	o->present = true;
	o->pid = u32a(tb, IOMMU_ACCOUNT_A_OWNER_PID);
	o->uid = u32a(tb, IOMMU_ACCOUNT_A_OWNER_UID);
	stra(tb, IOMMU_ACCOUNT_A_OWNER_COMM, o->comm, sizeof(o->comm));
}

const char *ia_consumer_name(unsigned int c)
{
	static const char *const names[IA_NCONSUMERS] = {
		[IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS] = "io_uring-buffers",
		[IOMMU_ACCOUNT_CONSUMER_IO_URING_RINGS] = "io_uring-rings",
		[IOMMU_ACCOUNT_CONSUMER_IO_URING_ZEROCOPY] = "io_uring-zerocopy",
		[IOMMU_ACCOUNT_CONSUMER_IO_URING_OTHER] = "io_uring-other",
		[IOMMU_ACCOUNT_CONSUMER_XDP_UMEM] = "xdp-umem",
		[IOMMU_ACCOUNT_CONSUMER_IOMMUFD] = "iommufd",
	};

	return c < IA_NCONSUMERS ? names[c] : "unknown";
}

const char *ia_iommufd_mode_name(uint32_t mode)
{
	static const char *const names[] = {
		[IOMMU_ACCOUNT_IOMMUFD_MODE_UNKNOWN] = "unknown",
		[IOMMU_ACCOUNT_IOMMUFD_MODE_USER] = "user",
		[IOMMU_ACCOUNT_IOMMUFD_MODE_MM] = "mm",
		[IOMMU_ACCOUNT_IOMMUFD_MODE_NONE] = "none",
	};

	return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "unknown";
}

uint64_t ia_consumers_total(const uint64_t consumer[IA_NCONSUMERS])
{
	uint64_t s = 0;
	int c;

	for (c = 0; c < IA_NCONSUMERS; c++)
		s += consumer[c];
	return s;
}

/* The consumer-bytes nests @attr of @nlh, summed into bytes[consumer]. */
static void consumers(struct nlmsghdr *nlh, int attr, uint64_t *bytes)
{
	struct nlattr *a, *tb[IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX + 1];
	int rem;
	uint32_t c;

	for_each_top_attr(a, nlh, rem) {
		if (nla_type(a) != attr ||
		    nla_parse_nested(tb, IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX, a, NULL))
			continue;
		c = u32a(tb, IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER);
		if (c < IA_NCONSUMERS)
			bytes[c] += u64a(tb, IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES);
	}
}

/* --- status ----------------------------------------------------------- */

static void parse_feature(struct nlattr *nest, struct ia_feature *f)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_FEATURE_MAX + 1];

	memset(f, 0, sizeof(*f));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_FEATURE_MAX, nest, NULL))
		return;
	stra(tb, IOMMU_ACCOUNT_A_FEATURE_NAME, f->name, sizeof(f->name));
	stra(tb, IOMMU_ACCOUNT_A_FEATURE_DETAIL, f->detail, sizeof(f->detail));
	f->active = u32a(tb, IOMMU_ACCOUNT_A_FEATURE_STATE) == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE;
}

static void parse_quota_kind(struct nlattr *nest, struct ia_quota_kind *k)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX + 1];

	memset(k, 0, sizeof(*k));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX, nest, NULL))
		return;
	k->kind = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND);
	stra(tb, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME, k->name, sizeof(k->name));
	stra(tb, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT, k->unit, sizeof(k->unit));
	k->has_refusals = tb[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS];
	k->refusals = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS);
}

static void parse_budget(struct nlattr *nest, struct ia_event_budget *b)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX + 1];

	memset(b, 0, sizeof(*b));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX, nest, NULL))
		return;
	b->uid = u32a(tb, IOMMU_ACCOUNT_A_EVENT_BUDGET_UID);
	b->suppressed = u64a(tb, IOMMU_ACCOUNT_A_EVENT_BUDGET_SUPPRESSED);
	b->failures_suppressed = u64a(tb, IOMMU_ACCOUNT_A_EVENT_BUDGET_FAILURES_SUPPRESSED);
}

static int status_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct ia_status *st = arg;
	struct nlattr *a;
	int rem;

	memset(st, 0, sizeof(*st));
	stra(tb, IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION, st->module_version,
	     sizeof(st->module_version));
	stra(tb, IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE, st->kernel_release,
	     sizeof(st->kernel_release));
	st->page_size = u32a(tb, IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE);
	st->events_dropped = u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED);
	st->probes_missed = u64a(tb, IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED);
	st->vfio_untracked = u32a(tb, IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED);
	st->has_events_seq = tb[IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ];
	st->events_seq = u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ);
	st->has_budget = tb[IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED];
	st->events_coalesced = u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_COALESCED);
	st->events_suppressed = u64a(tb, IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED);
	st->failures_suppressed = u64a(tb, IOMMU_ACCOUNT_A_STATUS_FAILURES_SUPPRESSED);
	st->failures_dropped = u64a(tb, IOMMU_ACCOUNT_A_STATUS_FAILURES_DROPPED);
	for_each_top_attr(a, nlh, rem)
		if (nla_type(a) == IOMMU_ACCOUNT_A_STATUS_FEATURE && st->nfeatures < IA_MAX_FEATURES)
			parse_feature(a, &st->features[st->nfeatures++]);
		else if (nla_type(a) == IOMMU_ACCOUNT_A_STATUS_BUDGET && st->nbudget < IA_MAX_BUDGETS)
			parse_budget(a, &st->budget[st->nbudget++]);
		else if (nla_type(a) == IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND &&
			 st->nkinds < IA_MAX_QUOTA_KINDS)
			parse_quota_kind(a, &st->kinds[st->nkinds++]);
	return 0;
}

const struct ia_quota_kind *ia_quota_kind_find(const struct ia_status *st, uint32_t kind)
{
	unsigned int i;

	for (i = 0; i < st->nkinds; i++)
		if (st->kinds[i].kind == kind)
			return &st->kinds[i];
	return NULL;
}

int ia_get_status(struct ia_client *c, struct ia_status *st)
{
	return ia_request(c, ia_msg(c, IOMMU_ACCOUNT_CMD_GET_STATUS, false),
			  IOMMU_ACCOUNT_A_STATUS_MAX, status_fn, st);
}

/* --- uids ------------------------------------------------------------- */

struct cb_arg {
	void *fn;
	void *arg;
};

static int uid_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_uid *, void *) = ca->fn;
	struct ia_uid u = { 0 };

	(void)nlh;
	if (!tb[IOMMU_ACCOUNT_A_UID_UID] || !tb[IOMMU_ACCOUNT_A_UID_LOCKED_BYTES])
		return 0;
	u.uid = u32a(tb, IOMMU_ACCOUNT_A_UID_UID);
	u.locked_bytes = u64a(tb, IOMMU_ACCOUNT_A_UID_LOCKED_BYTES);
	u.tasks = u32a(tb, IOMMU_ACCOUNT_A_UID_TASKS);
	u.has_memlock = tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN] && tb[IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX];
	u.memlock_min = u64a(tb, IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN);
	u.memlock_max = u64a(tb, IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX);
	u.has_headroom = tb[IOMMU_ACCOUNT_A_UID_HEADROOM];
	u.headroom = (int64_t)u64a(tb, IOMMU_ACCOUNT_A_UID_HEADROOM);
	u.b.present = tb[IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES];
	consumers(nlh, IOMMU_ACCOUNT_A_UID_CONSUMER, u.b.consumer);
	u.b.unattributed = u64a(tb, IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES);
	u.b.pending = u64a(tb, IOMMU_ACCOUNT_A_UID_PENDING_BYTES);
	u.b.cgroups = u32a(tb, IOMMU_ACCOUNT_A_UID_CGROUPS);
	u.b.charges = u64a(tb, IOMMU_ACCOUNT_A_UID_CHARGES);
	u.b.refusals = u64a(tb, IOMMU_ACCOUNT_A_UID_REFUSALS);
	u.b.inexact = u32a(tb, IOMMU_ACCOUNT_A_UID_INEXACT);
	u.b.has_iommufd = tb[IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES] &&
			  tb[IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES];
	u.b.iommufd_mm = u64a(tb, IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES);
	u.b.iommufd_exempt = u64a(tb, IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES);
	return fn(&u, ca->arg);
}

int ia_get_uids(struct ia_client *c, const uint32_t *key,
		int (*cb)(const struct ia_uid *u, void *arg), void *arg)
{
	struct cb_arg ca = { (void *)cb, arg };

	return ia_request_key(c, IOMMU_ACCOUNT_CMD_GET_UID, IOMMU_ACCOUNT_A_UID_UID, key,
			      IOMMU_ACCOUNT_A_UID_MAX, uid_fn, &ca);
}

/* --- containers ------------------------------------------------------- */

static void parse_failure(struct nlattr *nest, struct ia_failure *f)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_FAILURE_MAX + 1];

	memset(f, 0, sizeof(*f));
	if (!nest || nla_parse_nested(tb, IOMMU_ACCOUNT_A_FAILURE_MAX, nest, NULL))
		return;
	f->present = true;
	f->time_ns = u64a(tb, IOMMU_ACCOUNT_A_FAILURE_TIME_NS);
	f->err = u32a(tb, IOMMU_ACCOUNT_A_FAILURE_ERRNO);
	f->iova = u64a(tb, IOMMU_ACCOUNT_A_FAILURE_IOVA);
	f->size = u64a(tb, IOMMU_ACCOUNT_A_FAILURE_SIZE);
	parse_owner(tb[IOMMU_ACCOUNT_A_FAILURE_OWNER], &f->owner);
	f->cgroup_id = u64a(tb, IOMMU_ACCOUNT_A_FAILURE_CGROUP_ID);
	stra(tb, IOMMU_ACCOUNT_A_FAILURE_CGROUP, f->cgroup, sizeof(f->cgroup));
	f->cgroup_truncated = tb[IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED] != NULL;
	f->ioas = u32a(tb, IOMMU_ACCOUNT_A_FAILURE_IOAS);
}

static int container_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_container *, void *) = ca->fn;
	struct ia_container ct = { 0 };
	int ret;

	ct.id = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_ID);
	if (u32_list(nlh, IOMMU_ACCOUNT_A_CONTAINER_GROUP, &ct.groups, &ct.ngroups))
		return -ENOMEM;
	ct.entries = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_ENTRIES);
	ct.limit = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_LIMIT);
	ct.mapped_bytes = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES);
	ct.pinned_pages = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES);
	ct.has_pinned_uid = tb[IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID];
	ct.pinned_uid = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID);
	parse_owner(tb[IOMMU_ACCOUNT_A_CONTAINER_OWNER], &ct.owner);
	ct.map_ops = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS);
	ct.unmap_ops = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS);
	ct.fail_enospc = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC);
	ct.fail_enomem = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM);
	ct.fail_einval = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL);
	ct.fail_other = u64a(tb, IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER);
	ct.inexact = u32a(tb, IOMMU_ACCOUNT_A_CONTAINER_INEXACT);
	parse_failure(tb[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE], &ct.last_failure);
	ret = fn(&ct, ca->arg);
	free(ct.groups);
	return ret;
}

int ia_get_containers(struct ia_client *c, const uint32_t *key,
		      int (*cb)(const struct ia_container *ct, void *arg), void *arg)
{
	struct cb_arg ca = { (void *)cb, arg };

	return ia_request_key(c, IOMMU_ACCOUNT_CMD_GET_CONTAINER, IOMMU_ACCOUNT_A_CONTAINER_ID,
			      key, IOMMU_ACCOUNT_A_CONTAINER_MAX, container_fn, &ca);
}

/* --- quotas ---------------------------------------------------------- */

/* The attributes of a GET_QUOTA reply or an event's quota nest; -EINVAL without kind and id. */
static int parse_quota(struct nlattr **tb, struct ia_quota *q)
{
	memset(q, 0, sizeof(*q));
	if (!tb[IOMMU_ACCOUNT_A_QUOTA_KIND] || !tb[IOMMU_ACCOUNT_A_QUOTA_ID])
		return -EINVAL;
	q->kind = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_KIND);
	q->id = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_ID);
	q->used = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_USED);
	q->has_limit = tb[IOMMU_ACCOUNT_A_QUOTA_LIMIT];
	q->limit = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_LIMIT);
	q->uid = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_UID);
	parse_owner(tb[IOMMU_ACCOUNT_A_QUOTA_OWNER], &q->owner);
	q->refusals = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_REFUSALS);
	q->has_pub = tb[IOMMU_ACCOUNT_A_QUOTA_NAME];
	stra(tb, IOMMU_ACCOUNT_A_QUOTA_NAME, q->name, sizeof(q->name));
	q->cgroup_id = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID);
	q->peak = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_PEAK);
	q->submitted = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_SUBMITTED);
	q->completed = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_COMPLETED);
	q->deferred_now = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW);
	q->deferred_total = u64a(tb, IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL);
	q->warn = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_WARN);
	q->crit = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_CRIT);
	q->flags = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_FLAGS);
	parse_failure(tb[IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE], &q->last_failure);
	q->has_iommufd = tb[IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE];
	q->iommufd_mode = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE);
	q->mappings = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_MAPPINGS);
	q->devices = u32a(tb, IOMMU_ACCOUNT_A_QUOTA_DEVICES);
	return 0;
}

static void parse_ioas(struct nlattr *nest, struct ia_ioas *x)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_IOAS_MAX + 1];

	memset(x, 0, sizeof(*x));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_IOAS_MAX, nest, NULL))
		return;
	x->has_id = tb[IOMMU_ACCOUNT_A_IOAS_ID];
	x->id = u32a(tb, IOMMU_ACCOUNT_A_IOAS_ID);
	x->areas = u32a(tb, IOMMU_ACCOUNT_A_IOAS_AREAS);
	x->bytes = u64a(tb, IOMMU_ACCOUNT_A_IOAS_BYTES);
	x->pinned = u64a(tb, IOMMU_ACCOUNT_A_IOAS_PINNED);
}

static int quota_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_quota *, void *) = ca->fn;
	struct ia_quota q;
	struct ia_ioas *x = NULL;
	struct nlattr *a;
	unsigned int n = 0;
	int rem, ret;

	if (parse_quota(tb, &q))
		return 0;
	for_each_top_attr(a, nlh, rem)
		n += nla_type(a) == IOMMU_ACCOUNT_A_QUOTA_IOAS;
	if (n) {
		x = calloc(n, sizeof(*x));
		if (!x)
			return -ENOMEM;
	}
	for_each_top_attr(a, nlh, rem)
		if (nla_type(a) == IOMMU_ACCOUNT_A_QUOTA_IOAS)
			parse_ioas(a, &x[q.nioas++]);
	q.ioas = x;
	q.ioas_listed = q.has_iommufd;
	ret = fn(&q, ca->arg);
	free(x);
	return ret;
}

int ia_get_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *id,
		  int (*cb)(const struct ia_quota *q, void *arg), void *arg)
{
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_GET_QUOTA, !id);
	struct cb_arg ca = { (void *)cb, arg };

	if (msg && ((kind && nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND, *kind)) ||
		    (id && nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_ID, *id)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_QUOTA_MAX, quota_fn, &ca);
}

int ia_dump_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *uid,
		   const uint32_t *pid, int (*cb)(const struct ia_quota *q, void *arg),
		   void *arg)
{
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_GET_QUOTA, true);
	struct cb_arg ca = { (void *)cb, arg };

	if (msg && ((kind && nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_KIND, *kind)) ||
		    (uid && nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_UID, *uid)) ||
		    (pid && nla_put_u32(msg, IOMMU_ACCOUNT_A_QUOTA_PID, *pid)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_QUOTA_MAX, quota_fn, &ca);
}

/* --- groups ----------------------------------------------------------- */

static void parse_device(struct nlattr *nest, struct ia_device *d)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_DEVICE_MAX + 1];

	memset(d, 0, sizeof(*d));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_DEVICE_MAX, nest, NULL))
		return;
	stra(tb, IOMMU_ACCOUNT_A_DEVICE_ADDRESS, d->address, sizeof(d->address));
	stra(tb, IOMMU_ACCOUNT_A_DEVICE_DRIVER, d->driver, sizeof(d->driver));
	if (tb[IOMMU_ACCOUNT_A_DEVICE_VENDOR])
		d->vendor = nla_get_u16(tb[IOMMU_ACCOUNT_A_DEVICE_VENDOR]);
	if (tb[IOMMU_ACCOUNT_A_DEVICE_DEVICE])
		d->device = nla_get_u16(tb[IOMMU_ACCOUNT_A_DEVICE_DEVICE]);
}

static int group_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_group *, void *) = ca->fn;
	struct ia_group g = { 0 };
	struct nlattr *a;
	unsigned int n = 0;
	int rem, ret;

	g.id = u32a(tb, IOMMU_ACCOUNT_A_GROUP_ID);
	g.backend = u32a(tb, IOMMU_ACCOUNT_A_GROUP_BACKEND);
	g.has_container = tb[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID];
	g.container = u32a(tb, IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID);
	parse_owner(tb[IOMMU_ACCOUNT_A_GROUP_OWNER], &g.owner);
	for_each_top_attr(a, nlh, rem)
		n += nla_type(a) == IOMMU_ACCOUNT_A_GROUP_DEVICE;
	if (n) {
		g.devices = calloc(n, sizeof(*g.devices));
		if (!g.devices)
			return -ENOMEM;
	}
	for_each_top_attr(a, nlh, rem)
		if (nla_type(a) == IOMMU_ACCOUNT_A_GROUP_DEVICE)
			parse_device(a, &g.devices[g.ndevices++]);
	ret = fn(&g, ca->arg);
	free(g.devices);
	return ret;
}

int ia_get_groups(struct ia_client *c, const uint32_t *key,
		  int (*cb)(const struct ia_group *g, void *arg), void *arg)
{
	struct cb_arg ca = { (void *)cb, arg };

	return ia_request_key(c, IOMMU_ACCOUNT_CMD_GET_GROUP, IOMMU_ACCOUNT_A_GROUP_ID, key,
			      IOMMU_ACCOUNT_A_GROUP_MAX, group_fn, &ca);
}

/* --- hot-reset scopes ------------------------------------------------- */

static void parse_reset_dev(struct nlattr *nest, struct ia_reset_dev *d)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_RESET_DEVICE_MAX + 1];

	memset(d, 0, sizeof(*d));
	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_MAX, nest, NULL))
		return;
	stra(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_ADDRESS, d->dev.address, sizeof(d->dev.address));
	stra(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_DRIVER, d->dev.driver, sizeof(d->dev.driver));
	if (tb[IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR])
		d->dev.vendor = nla_get_u16(tb[IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR]);
	if (tb[IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE])
		d->dev.device = nla_get_u16(tb[IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE]);
	d->has_group = tb[IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP];
	d->group = u32a(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP);
	d->holder = u32a(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_HOLDER);
	d->has_container = tb[IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID];
	d->container = u32a(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID);
	parse_owner(tb[IOMMU_ACCOUNT_A_RESET_DEVICE_OWNER], &d->owner);
	d->has_set = tb[IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET];
	d->set = u32a(tb, IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET);
	d->vfio = tb[IOMMU_ACCOUNT_A_RESET_DEVICE_VFIO_DEVICE];
	d->virtfn = tb[IOMMU_ACCOUNT_A_RESET_DEVICE_VIRTFN];
}

static int reset_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_reset *, void *) = ca->fn;
	struct ia_reset r = { 0 };
	struct nlattr *a;
	unsigned int n = 0;
	int rem, ret;

	if (!tb[IOMMU_ACCOUNT_A_RESET_ADDRESS])
		return 0;
	stra(tb, IOMMU_ACCOUNT_A_RESET_ADDRESS, r.address, sizeof(r.address));
	r.scope = u32a(tb, IOMMU_ACCOUNT_A_RESET_SCOPE);
	r.has_group = tb[IOMMU_ACCOUNT_A_RESET_GROUP];
	r.group = u32a(tb, IOMMU_ACCOUNT_A_RESET_GROUP);
	r.has_set_kind = tb[IOMMU_ACCOUNT_A_RESET_SET_KIND];
	r.set_kind = u32a(tb, IOMMU_ACCOUNT_A_RESET_SET_KIND);
	r.vfio = tb[IOMMU_ACCOUNT_A_RESET_VFIO_DEVICE];
	for_each_top_attr(a, nlh, rem)
		n += nla_type(a) == IOMMU_ACCOUNT_A_RESET_AFFECTED;
	if (n) {
		r.affected = calloc(n, sizeof(*r.affected));
		if (!r.affected)
			return -ENOMEM;
	}
	for_each_top_attr(a, nlh, rem)
		if (nla_type(a) == IOMMU_ACCOUNT_A_RESET_AFFECTED)
			parse_reset_dev(a, &r.affected[r.naffected++]);
	ret = fn(&r, ca->arg);
	free(r.affected);
	return ret;
}

int ia_get_resets(struct ia_client *c, const char *address,
		  int (*cb)(const struct ia_reset *r, void *arg), void *arg)
{
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE, !address);
	struct cb_arg ca = { (void *)cb, arg };

	if (msg && address && nla_put_string(msg, IOMMU_ACCOUNT_A_RESET_ADDRESS, address)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_RESET_MAX, reset_fn, &ca);
}

const char *ia_reset_scope_name(uint32_t scope)
{
	switch (scope) {
	case IOMMU_ACCOUNT_RESET_SCOPE_SLOT:
		return "slot";
	case IOMMU_ACCOUNT_RESET_SCOPE_BUS:
		return "bus";
	case IOMMU_ACCOUNT_RESET_SCOPE_NONE:
		return "none";
	}
	return "unknown";
}

const char *ia_verdict_name(enum ia_verdict_kind k)
{
	static const char *const names[] = {
		[IA_VERDICT_OK] = "ok",
		[IA_VERDICT_NO_RESET] = "no-reset",
		[IA_VERDICT_UNKNOWN] = "unknown",
		[IA_VERDICT_NOT_IN_SET] = "not-in-reset-set",
		[IA_VERDICT_NO_GROUP] = "no-iommu-group",
		[IA_VERDICT_HOST_DRIVER] = "host-driver",
		[IA_VERDICT_UNBOUND] = "unbound-device",
		[IA_VERDICT_FOREIGN] = "foreign-group",
		[IA_VERDICT_NOT_HELD] = "group-not-held",
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *ia_reset_set_kind_name(uint32_t kind)
{
	switch (kind) {
	case IOMMU_ACCOUNT_RESET_SET_KIND_DEVICE:
		return "device";
	case IOMMU_ACCOUNT_RESET_SET_KIND_SLOT:
		return "slot";
	case IOMMU_ACCOUNT_RESET_SET_KIND_BUS:
		return "bus";
	}
	return "unknown";
}

const char *ia_reset_set_name(uint32_t set)
{
	switch (set) {
	case IOMMU_ACCOUNT_RESET_SET_SAME:
		return "same";
	case IOMMU_ACCOUNT_RESET_SET_OTHER:
		return "other";
	case IOMMU_ACCOUNT_RESET_SET_NEVER:
		return "never";
	}
	return "unknown";
}

bool ia_driver_is_vfio(const char *drv)
{
	size_t n = strlen(drv);

	return !strcmp(drv, "vfio-pci") || (n >= 8 && !strcmp(drv + n - 8, "vfio_pci"));
}

static void add_group(struct ia_verdict *v, uint32_t g)
{
	unsigned int i;

	for (i = 0; i < v->ngroups; i++)
		if (v->groups[i] == g)
			return;
	if (v->ngroups < IA_VERDICT_MAX_GROUPS)
		v->groups[v->ngroups++] = g;
}

/* Keep the worst reason (the first of the worst kind). */
static void blame(struct ia_verdict *v, enum ia_verdict_kind k, const struct ia_reset_dev *d)
{
	if (v->kind == IA_VERDICT_OK || k < v->kind) {
		v->kind = k;
		v->culprit = d;
	}
}

/* "DDDD:BB" of two PCI addresses as the kernel writes them: the same bus? */
static bool same_bus(const char *a, const char *b)
{
	return strlen(a) >= 7 && !strncmp(a, b, 7);
}

/* Why @d, outside @r's reset set, can never be in it, and what would make a reset possible. */
static void not_in_set_reason(const struct ia_reset *r, const struct ia_reset_dev *d,
			      struct ia_verdict *v)
{
	const struct ia_reset_dev *self = NULL;
	char why[200], fix[160];
	unsigned int i;

	for (i = 0; i < r->naffected; i++)
		if (!strcmp(r->affected[i].dev.address, r->address))
			self = &r->affected[i];
	if (d->set == IOMMU_ACCOUNT_RESET_SET_NEVER)
		snprintf(why, sizeof(why), "%s is a bridge (or another device vfio-pci cannot "
			 "drive), in no reset set", d->dev.address);
	else if (self && self->virtfn)
		snprintf(why, sizeof(why), "%s is an SR-IOV VF, alone in a reset set of its own, "
			 "and its %s reset also reaches %s", r->address,
			 ia_reset_scope_name(r->scope), d->dev.address);
	else if (d->virtfn)
		snprintf(why, sizeof(why), "%s is an SR-IOV VF, alone in a reset set of its own",
			 d->dev.address);
	else
		snprintf(why, sizeof(why), "%s %s in the reset set of its own %s, not in %s's",
			 d->dev.address, d->vfio ? "is" : "would be",
			 same_bus(d->dev.address, r->address) ? "slot or bus" :
			 "bus (below a bridge)", r->address);
	if (self && self->virtfn)
		snprintf(fix, sizeof(fix), "reset the VF alone with a function reset "
			 "(VFIO_DEVICE_RESET)");
	else if (d->virtfn)
		snprintf(fix, sizeof(fix), "disable the VFs (sriov_numvfs 0) to reset the PF, or "
			 "reset each VF with a function reset (VFIO_DEVICE_RESET)");
	else
		snprintf(fix, sizeof(fix), "no choice of group fds helps; a function reset "
			 "(VFIO_DEVICE_RESET) resets %s alone", r->address);
	snprintf(v->reason, sizeof(v->reason), "%s: the kernel refuses a hot reset that reaches "
		 "it, whatever anybody holds (EINVAL); %s", why, fix);
}

void ia_reset_verdict(const struct ia_reset *r, uint32_t uid, bool caller_is_uid,
		      struct ia_verdict *v)
{
	const struct ia_reset_dev *d;
	unsigned int i;
	char via[48];

	memset(v, 0, sizeof(*v));
	v->in_own_group = r->scope != IOMMU_ACCOUNT_RESET_SCOPE_NONE && r->has_group;
	if (r->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE) {
		v->kind = IA_VERDICT_NO_RESET;
		v->errno_name = "ENODEV";
		snprintf(v->reason, sizeof(v->reason), "no reset: the kernel has neither a slot "
			 "nor a bus reset for %s (VFIO_DEVICE_PCI_HOT_RESET: ENODEV)", r->address);
		return;
	}
	for (i = 0; i < r->naffected; i++) {
		bool mine;

		d = &r->affected[i];
		if (!d->has_group || !r->has_group || d->group != r->group)
			v->in_own_group = false;
		if (d->has_group)
			add_group(v, d->group);
		if (!d->has_set) {
			blame(v, IA_VERDICT_UNKNOWN, d);
			continue;
		}
		if (d->set != IOMMU_ACCOUNT_RESET_SET_SAME) {
			blame(v, IA_VERDICT_NOT_IN_SET, d);
			continue;
		}
		if (!d->has_group) {
			blame(v, IA_VERDICT_NO_GROUP, d);
			continue;
		}
		if (!d->vfio) {
			blame(v, d->dev.driver[0] ? IA_VERDICT_HOST_DRIVER : IA_VERDICT_UNBOUND, d);
			continue;
		}
		if (d->holder == IOMMU_ACCOUNT_RESET_HOLDER_NONE) {
			blame(v, IA_VERDICT_NOT_HELD, d);
			continue;
		}
		mine = d->owner.present ? d->owner.uid == uid :
		       d->holder == IOMMU_ACCOUNT_RESET_HOLDER_CALLER && caller_is_uid;
		if (!mine)
			blame(v, IA_VERDICT_FOREIGN, d);
	}
	d = v->culprit;
	/* What the kernel answers a caller presenting the groups listed (those it can open). */
	v->errno_name = v->kind == IA_VERDICT_OK || v->kind == IA_VERDICT_UNKNOWN ||
			v->kind == IA_VERDICT_NOT_HELD ? NULL : "EINVAL";
	switch (v->kind) {
	case IA_VERDICT_OK:
		snprintf(v->reason, sizeof(v->reason), "ok: a %s reset of %u device(s), all in "
			 "one reset set, every group held by uid %u", ia_reset_scope_name(r->scope),
			 r->naffected, uid);
		break;
	case IA_VERDICT_UNKNOWN:
		snprintf(v->reason, sizeof(v->reason), "unknown: the module does not report "
			 "vfio-pci's reset sets (older than this tool), so whether the kernel "
			 "allows the reset cannot be told");
		break;
	case IA_VERDICT_NOT_IN_SET:
		not_in_set_reason(r, d, v);
		break;
	case IA_VERDICT_NO_GROUP:
		snprintf(v->reason, sizeof(v->reason), "%s has no IOMMU group, so it can be in no "
			 "reset set: the kernel refuses the reset (EINVAL; the hot-reset info "
			 "answers EPERM)", d->dev.address);
		break;
	case IA_VERDICT_HOST_DRIVER:
		if (r->has_group && d->group == r->group) {
			/* Its group is the device's own: not viable, the device cannot be opened. */
			v->errno_name = "EPERM";
			snprintf(v->reason, sizeof(v->reason), "%s (group %u) is in use by the host "
				 "driver %s: the group is not viable, so VFIO refuses it a container "
				 "(EPERM) and %s cannot be opened; unbind %s and bind it to vfio-pci",
				 d->dev.address, d->group, d->dev.driver, r->address,
				 d->dev.address);
		} else {
			snprintf(v->reason, sizeof(v->reason), "%s (group %u) is in use by the host "
				 "driver %s, outside vfio-pci's reset set: the reset fails (EINVAL); "
				 "unbind it and bind it to vfio-pci", d->dev.address, d->group,
				 d->dev.driver);
		}
		break;
	case IA_VERDICT_UNBOUND:
		snprintf(v->reason, sizeof(v->reason), "%s (group %u) is bound to no driver, so "
			 "it is not in vfio-pci's reset set: the reset fails (EINVAL); bind it to "
			 "vfio-pci and it joins the set", d->dev.address, d->group);
		break;
	case IA_VERDICT_FOREIGN:
		/* Held by a type1 container, or open through the VFIO cdev (iommufd). */
		if (d->has_container)
			snprintf(via, sizeof(via), "container %u", d->container);
		else
			snprintf(via, sizeof(via), "its VFIO cdev bound to iommufd");
		if (r->has_group && d->group == r->group) {
			/* The device's own group, open elsewhere: the device cannot be opened. */
			v->errno_name = "EBUSY";
			if (d->owner.present)
				snprintf(v->reason, sizeof(v->reason), "%s: its group %u is held by "
					 "uid %u (%s, %s[%u]), not uid %u: uid %u cannot open "
					 "it (EBUSY), let alone reset it", d->dev.address, d->group,
					 d->owner.uid, via, d->owner.comm, d->owner.pid, uid,
					 uid);
			else
				snprintf(v->reason, sizeof(v->reason), "%s: its group %u is held by "
					 "another user: uid %u cannot open it (EBUSY), let alone reset "
					 "it", d->dev.address, d->group, uid);
		} else if (d->owner.present)
			snprintf(v->reason, sizeof(v->reason), "%s: group %u is held by uid %u "
				 "(%s, %s[%u]), not uid %u: the reset fails (EINVAL)",
				 d->dev.address, d->group, d->owner.uid, via,
				 d->owner.comm, d->owner.pid, uid);
		else
			snprintf(v->reason, sizeof(v->reason), "%s: group %u is held by another "
				 "user: the reset fails (EINVAL)", d->dev.address, d->group);
		break;
	case IA_VERDICT_NOT_HELD:
		snprintf(v->reason, sizeof(v->reason), "%s: group %u is not held by anyone: "
			 "uid %u must open /dev/vfio/%u and present it (without it: EINVAL)",
			 d->dev.address, d->group, uid, d->group);
		break;
	default:
		break;
	}
}

/* --- thresholds ------------------------------------------------------- */

static int thresholds_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct ia_thresholds *t = arg;

	(void)nlh;
	t->warn = u32a(tb, IOMMU_ACCOUNT_A_THRESHOLDS_WARN);
	t->crit = u32a(tb, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT);
	t->kind = u32a(tb, IOMMU_ACCOUNT_A_THRESHOLDS_KIND);
	t->margin = u32a(tb, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN);
	return 0;
}

int ia_get_thresholds(struct ia_client *c, struct ia_thresholds *t)
{
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, false);

	/* No kind attribute for VFIO: a module older than uid-pot thresholds accepts it. */
	if (msg && t->kind && nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, t->kind)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_THRESHOLDS_MAX, thresholds_fn, t);
}

/* --- processes ---------------------------------------------------------- */

static int proc_fn(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cb_arg *ca = arg;
	int (*fn)(const struct ia_proc *, void *) = ca->fn;
	struct ia_proc p = { 0 };

	p.pid = u32a(tb, IOMMU_ACCOUNT_A_PROC_PID);
	p.uid = u32a(tb, IOMMU_ACCOUNT_A_PROC_UID);
	stra(tb, IOMMU_ACCOUNT_A_PROC_COMM, p.comm, sizeof(p.comm));
	p.cgroup_id = u64a(tb, IOMMU_ACCOUNT_A_PROC_CGROUP_ID);
	p.memlock_soft = u64a(tb, IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT);
	p.memlock_hard = u64a(tb, IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD);
	consumers(nlh, IOMMU_ACCOUNT_A_PROC_CONSUMER, p.consumer);
	p.locked_vm = u64a(tb, IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES);
	p.pinned_vm = u64a(tb, IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES);
	p.rings = u32a(tb, IOMMU_ACCOUNT_A_PROC_RINGS);
	stra(tb, IOMMU_ACCOUNT_A_PROC_CGROUP, p.cgroup, sizeof(p.cgroup));
	p.cgroup_truncated = tb[IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED] != NULL;
	p.has_uring_fds = tb[IOMMU_ACCOUNT_A_PROC_URING_FDS];
	p.uring_fds = u32a(tb, IOMMU_ACCOUNT_A_PROC_URING_FDS);
	return fn(&p, ca->arg);
}

int ia_get_procs(struct ia_client *c, const uint32_t *pid, const uint32_t *uid,
		 int (*cb)(const struct ia_proc *p, void *arg), void *arg)
{
	struct cb_arg ca = { (void *)cb, arg };
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_GET_PROC, !pid);

	if (msg && ((pid && nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_PID, *pid)) ||
		    (uid && nla_put_u32(msg, IOMMU_ACCOUNT_A_PROC_UID, *uid)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_PROC_MAX, proc_fn, &ca);
}

int ia_set_thresholds(struct ia_client *c, struct ia_thresholds *t)
{
	struct nl_msg *msg = ia_msg(c, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS, false);

	if (msg && (nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, t->warn) ||
		    nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, t->crit) ||
		    (t->kind && nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, t->kind)) ||
		    (t->margin && nla_put_u32(msg, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, t->margin)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ia_request(c, msg, IOMMU_ACCOUNT_A_THRESHOLDS_MAX, thresholds_fn, t);
}

/* --- events ----------------------------------------------------------- */

int ia_parse_event(struct nlmsghdr *nlh, struct nlattr **tb, struct ia_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!tb[IOMMU_ACCOUNT_A_EVENT_SEQ] || !tb[IOMMU_ACCOUNT_A_EVENT_TYPE])
		return -EINVAL;
	ev->seq = u64a(tb, IOMMU_ACCOUNT_A_EVENT_SEQ);
	ev->type = u32a(tb, IOMMU_ACCOUNT_A_EVENT_TYPE);
	ev->kind = u32a(tb, IOMMU_ACCOUNT_A_EVENT_KIND);
	ev->uid = u32a(tb, IOMMU_ACCOUNT_A_EVENT_UID);
	ev->consumer = u32a(tb, IOMMU_ACCOUNT_A_EVENT_CONSUMER);
	ev->cgroup_id = u64a(tb, IOMMU_ACCOUNT_A_EVENT_CGROUP_ID);
	ev->time_ns = u64a(tb, IOMMU_ACCOUNT_A_EVENT_TIME_NS);
	ev->container = u32a(tb, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID);
	if (u32_list(nlh, IOMMU_ACCOUNT_A_EVENT_GROUP, &ev->groups, &ev->ngroups))
		return -ENOMEM;
	ev->group_count = tb[IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT] ?
		u32a(tb, IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT) : ev->ngroups;
	ev->entries = u32a(tb, IOMMU_ACCOUNT_A_EVENT_ENTRIES);
	ev->limit = u32a(tb, IOMMU_ACCOUNT_A_EVENT_LIMIT);
	parse_owner(tb[IOMMU_ACCOUNT_A_EVENT_OWNER], &ev->owner);
	ev->err = u32a(tb, IOMMU_ACCOUNT_A_EVENT_ERRNO);
	ev->iova = u64a(tb, IOMMU_ACCOUNT_A_EVENT_IOVA);
	ev->size = u64a(tb, IOMMU_ACCOUNT_A_EVENT_SIZE);
	ev->locked_bytes = u64a(tb, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES);
	ev->memlock_limit = u64a(tb, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT);
	ev->count = tb[IOMMU_ACCOUNT_A_EVENT_COUNT] ? u32a(tb, IOMMU_ACCOUNT_A_EVENT_COUNT) : 1;
	ev->ioas = u32a(tb, IOMMU_ACCOUNT_A_EVENT_IOAS);
	ev->level = u32a(tb, IOMMU_ACCOUNT_A_EVENT_LEVEL);
	ev->threshold = u32a(tb, IOMMU_ACCOUNT_A_EVENT_THRESHOLD);
	if (tb[IOMMU_ACCOUNT_A_EVENT_QUOTA]) {
		struct nlattr *qt[IOMMU_ACCOUNT_A_QUOTA_MAX + 1];

		if (!nla_parse_nested(qt, IOMMU_ACCOUNT_A_QUOTA_MAX, tb[IOMMU_ACCOUNT_A_EVENT_QUOTA],
				      NULL) && !parse_quota(qt, &ev->quota))
			ev->has_quota = true;
	}
	return 0;
}

void ia_free_event(struct ia_event *ev)
{
	free(ev->groups);
	ev->groups = NULL;
}
