// SPDX-License-Identifier: GPL-2.0
/*
 * libia objects: the requests of iommu_account's family, through the
 * parsers and builders ynl-gen-c generates from the YNL spec (gen/), and
 * the mapping of their replies onto libia's structs. No attribute is read
 * here: a missing one is absent in the generated reply (its _present bit),
 * and reads as 0 / absent; attributes the spec does not know are skipped
 * by the generated parsers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "internal.h"

/* A generated string (NULL when absent) into a libia buffer. */
#define STR(dst, src) snprintf((dst), sizeof(dst), "%s", (src) ? (src) : "")

static int oom(struct ia_client *c)
{
	return ia_fail(c, -ENOMEM, "%s", "out of memory");
}

static void begin(struct ia_client *c)
{
	c->err = 0;
	c->extack[0] = 0;
	c->errmsg[0] = 0;
}

/*
 * The generated names differ only by the operation's: one macro per shape.
 * IA_OP: the do @op (get_uid, set_thresholds), its request's attributes
 * put by @set (req is in scope), then @fn on the reply; IA_DO: the same
 * for get_@obj. IA_EACH: @fn on every reply of the dump @list (NULL: it
 * failed), until one returns non-zero. IA_DUMP_REQ: a dump whose request
 * carries attributes (@set). On a failure each returns from the function
 * it is in, with -errno (c->err, c->extack and c->errmsg set).
 */
#define IA_OP(c, op, set, fn, ...)						\
({										\
	struct iommu_account_##op##_req *req = iommu_account_##op##_req_alloc();	\
	struct iommu_account_##op##_rsp *rsp;					\
	int __ret;								\
										\
	begin(c);								\
	if (!req)								\
		return oom(c);							\
	set;									\
	rsp = iommu_account_##op(c->ys, req);					\
	iommu_account_##op##_req_free(req);					\
	if (!rsp)								\
		return ia_ynl_fail(c);						\
	__ret = fn(rsp, __VA_ARGS__);						\
	iommu_account_##op##_rsp_free(rsp);					\
	__ret;									\
})

#define IA_DO(c, obj, set, fn, ...) IA_OP(c, get_##obj, set, fn, __VA_ARGS__)

#define IA_EACH(c, obj, list, fn, ...)						\
({										\
	struct iommu_account_get_##obj##_list *__l = (list);			\
	int __ret = 0;								\
										\
	if (!__l)								\
		return ia_ynl_fail(c);						\
	ynl_dump_foreach(__l, rsp) {						\
		__ret = fn(rsp, __VA_ARGS__);					\
		if (__ret)							\
			break;							\
	}									\
	iommu_account_get_##obj##_list_free(__l);				\
	__ret;									\
})

#define IA_DUMP(c, obj, fn, ...)						\
	({ begin(c); IA_EACH(c, obj, iommu_account_get_##obj##_dump((c)->ys), fn, __VA_ARGS__); })

#define IA_DUMP_REQ(c, obj, set, fn, ...)					\
({										\
	struct iommu_account_get_##obj##_req_dump *req =			\
		iommu_account_get_##obj##_req_dump_alloc();			\
	struct iommu_account_get_##obj##_list *__list;				\
										\
	begin(c);								\
	if (!req)								\
		return oom(c);							\
	set;									\
	__list = iommu_account_get_##obj##_dump(c->ys, req);			\
	iommu_account_get_##obj##_req_dump_free(req);				\
	IA_EACH(c, obj, __list, fn, __VA_ARGS__);				\
})

/*
 * A dump read as it comes, for the dumps that grow with the host (a
 * process or a uid each): the generated dumps collect every reply in a
 * list before the caller sees one (100,000 processes: ~50 MB, which the
 * allocator then keeps). Here ynl's dump state keeps one node: each reply
 * is parsed into it, handed to @each (with @ctx) and freed before the next
 * message is read. After @each returns non-zero the rest of the dump is
 * read (the socket stays in step) and not handed on; that value is
 * returned. ynl_exec_dump() is given @nlh, its attributes put.
 */
struct ia_stream {
	struct ynl_dump_state yds;
	ynl_parse_cb_t parse;			/* the generated rsp_parse */
	void (*free_node)(void *node);		/* the generated list_free */
	int (*each)(const void *rsp, void *ctx);
	void *ctx;
	int ret;
};

static __thread struct ia_stream *ia_stream_cur;

/* What the generated source defines and its header does not declare. */
extern const struct ynl_policy_nest iommu_account_quota_nest, iommu_account_proc_nest;
int iommu_account_get_quota_rsp_parse(const struct nlmsghdr *nlh, struct ynl_parse_arg *yarg);
int iommu_account_get_proc_rsp_parse(const struct nlmsghdr *nlh, struct ynl_parse_arg *yarg);

static int stream_cb(const struct nlmsghdr *nlh, struct ynl_parse_arg *yarg)
{
	struct ia_stream *s = ia_stream_cur;
	struct ynl_dump_list_type *node = s->yds.last;
	int ret = s->parse(nlh, yarg);

	if (ret == YNL_PARSE_CB_OK && !s->ret)
		s->ret = s->each(yarg->data, s->ctx);
	node->next = YNL_LIST_END;
	s->free_node(node);
	s->yds.first = NULL;
	s->yds.last = NULL;
	return ret;
}

static int stream_run(struct ia_client *c, struct ia_stream *s, struct nlmsghdr *nlh,
		      const struct ynl_policy_nest *policy, size_t alloc_sz, __u32 cmd)
{
	struct ia_stream *outer = ia_stream_cur;
	int err;

	s->yds.yarg.ys = c->ys;
	s->yds.yarg.rsp_policy = policy;
	s->yds.alloc_sz = alloc_sz;
	s->yds.cb = stream_cb;
	s->yds.rsp_cmd = cmd;
	c->ys->req_policy = policy;
	ia_stream_cur = s;
	err = ynl_exec_dump(c->ys, nlh, &s->yds);
	ia_stream_cur = outer;
	return err < 0 ? ia_ynl_fail(c) : s->ret;
}

/* A streamed dump of get_@obj (command @CMD), its request's attributes put by @put (nlh in scope). */
#define IA_STREAM(c, obj, CMD, put, fn, arg)					\
({										\
	struct ia_stream __s = {						\
		.parse = iommu_account_get_##obj##_rsp_parse,			\
		.free_node = (void (*)(void *))iommu_account_get_##obj##_list_free, \
		.each = (fn), .ctx = (arg),					\
	};									\
	struct nlmsghdr *nlh;							\
										\
	begin(c);								\
	nlh = ynl_gemsg_start_dump((c)->ys, (c)->ys->family_id, (CMD), 1);	\
	put;									\
	stream_run((c), &__s, nlh, &iommu_account_##obj##_nest,		\
		   sizeof(struct iommu_account_get_##obj##_list), (CMD));	\
})

static void owner_of(const struct iommu_account_owner *w, bool present, struct ia_owner *o)
{
	memset(o, 0, sizeof(*o));
	if (!present)
		return;
	o->present = true;
	o->pid = w->pid;
	o->uid = w->uid;
	STR(o->comm, w->comm);
	o->cgroup_id = w->cgroup_id;
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

/* The consumer-bytes nests, summed into bytes[consumer]; consumers this library does not know are left out. */
static void consumers_of(const struct iommu_account_consumer_bytes *w, unsigned int n,
			 uint64_t *bytes)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (w[i].consumer < IA_NCONSUMERS)
			bytes[w[i].consumer] += w[i].bytes;
}

/* --- status ----------------------------------------------------------- */

int ia_get_status(struct ia_client *c, struct ia_status *st)
{
	struct iommu_account_get_status_rsp *w;
	unsigned int i;

	begin(c);
	w = iommu_account_get_status(c->ys);
	if (!w)
		return ia_ynl_fail(c);
	memset(st, 0, sizeof(*st));
	STR(st->module_version, w->module_version);
	STR(st->kernel_release, w->kernel_release);
	st->page_size = w->page_size;
	st->events_dropped = w->events_dropped;
	st->probes_missed = w->probes_missed;
	st->vfio_untracked = w->vfio_untracked;
	st->has_events_seq = w->_present.events_seq;
	st->events_seq = w->events_seq;
	st->has_budget = w->_present.events_suppressed;
	st->events_coalesced = w->events_coalesced;
	st->events_suppressed = w->events_suppressed;
	st->failures_suppressed = w->failures_suppressed;
	st->failures_dropped = w->failures_dropped;
	for (i = 0; i < w->n_feature && st->nfeatures < IA_MAX_FEATURES; i++) {
		struct ia_feature *f = &st->features[st->nfeatures++];

		STR(f->name, w->feature[i].name);
		STR(f->detail, w->feature[i].detail);
		f->active = w->feature[i].state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE;
	}
	for (i = 0; i < w->n_budget && st->nbudget < IA_MAX_BUDGETS; i++) {
		struct ia_event_budget *b = &st->budget[st->nbudget++];

		b->uid = w->budget[i].uid;
		b->suppressed = w->budget[i].suppressed;
		b->failures_suppressed = w->budget[i].failures_suppressed;
	}
	for (i = 0; i < w->n_quota_kind && st->nkinds < IA_MAX_QUOTA_KINDS; i++) {
		struct ia_quota_kind *k = &st->kinds[st->nkinds++];

		k->kind = w->quota_kind[i].kind;
		STR(k->name, w->quota_kind[i].name);
		STR(k->unit, w->quota_kind[i].unit);
		k->has_refusals = w->quota_kind[i]._present.refusals;
		k->refusals = w->quota_kind[i].refusals;
	}
	iommu_account_get_status_rsp_free(w);
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

/* --- uids ------------------------------------------------------------- */

typedef int (*uid_fn)(const struct ia_uid *u, void *arg);

static int uid_of(const struct iommu_account_get_uid_rsp *w, uid_fn fn, void *arg)
{
	struct ia_uid u = { 0 };

	if (!w->_present.uid || !w->_present.locked_bytes)
		return 0;
	u.uid = w->uid;
	u.locked_bytes = w->locked_bytes;
	u.tasks = w->tasks;
	u.has_memlock = w->_present.memlock_min && w->_present.memlock_max;
	u.memlock_min = w->memlock_min;
	u.memlock_max = w->memlock_max;
	u.has_headroom = w->_present.headroom;
	u.headroom = w->headroom;
	u.b.present = w->_present.unattributed_bytes;
	consumers_of(w->consumer, w->n_consumer, u.b.consumer);
	u.b.unattributed = w->unattributed_bytes;
	u.b.pending = w->pending_bytes;
	u.b.cgroups = w->cgroups;
	u.b.charges = w->charges;
	u.b.refusals = w->refusals;
	u.b.inexact = w->inexact;
	u.b.has_iommufd = w->_present.iommufd_mm_bytes && w->_present.iommufd_exempt_bytes;
	u.b.iommufd_mm = w->iommufd_mm_bytes;
	u.b.iommufd_exempt = w->iommufd_exempt_bytes;
	return fn(&u, arg);
}

int ia_get_uids(struct ia_client *c, const uint32_t *key, uid_fn cb, void *arg)
{
	if (key)
		return IA_DO(c, uid, iommu_account_get_uid_req_set_uid(req, *key), uid_of, cb, arg);
	return IA_DUMP_REQ(c, uid, (void)req, uid_of, cb, arg);
}

/* --- containers ------------------------------------------------------- */

static void failure_of(const struct iommu_account_failure *w, bool present, struct ia_failure *f)
{
	memset(f, 0, sizeof(*f));
	if (!present)
		return;
	f->present = true;
	f->time_ns = w->time_ns;
	f->err = w->errno_;
	f->iova = w->iova;
	f->size = w->size;
	owner_of(&w->owner, w->_present.owner, &f->owner);
	f->cgroup_id = w->cgroup_id;
	STR(f->cgroup, w->cgroup);
	f->cgroup_truncated = w->_present.cgroup_truncated;
	f->ioas = w->ioas;
}

typedef int (*container_fn)(const struct ia_container *ct, void *arg);

static int container_of_rsp(const struct iommu_account_get_container_rsp *w, container_fn fn,
			    void *arg)
{
	struct ia_container ct = { 0 };

	ct.id = w->id;
	ct.ngroups = w->n_group;
	ct.groups = w->group;
	ct.entries = w->entries;
	ct.limit = w->limit;
	ct.mapped_bytes = w->mapped_bytes;
	ct.pinned_pages = w->pinned_pages;
	ct.has_pinned_uid = w->_present.pinned_uid;
	ct.pinned_uid = w->pinned_uid;
	owner_of(&w->owner, w->_present.owner, &ct.owner);
	ct.map_ops = w->map_ops;
	ct.unmap_ops = w->unmap_ops;
	ct.fail_enospc = w->fail_enospc;
	ct.fail_enomem = w->fail_enomem;
	ct.fail_einval = w->fail_einval;
	ct.fail_other = w->fail_other;
	ct.inexact = w->inexact;
	failure_of(&w->last_failure, w->_present.last_failure, &ct.last_failure);
	return fn(&ct, arg);
}

int ia_get_containers(struct ia_client *c, const uint32_t *key, container_fn cb, void *arg)
{
	if (key)
		return IA_DO(c, container, iommu_account_get_container_req_set_id(req, *key),
			     container_of_rsp, cb, arg);
	return IA_DUMP(c, container, container_of_rsp, cb, arg);
}

/* --- quotas ---------------------------------------------------------- */

/*
 * The quota attributes a GET_QUOTA reply and an event's quota nest share
 * (two generated types, one attribute set): -EINVAL without kind and id.
 */
#define QUOTA_OF(w, q)								\
({										\
	memset((q), 0, sizeof(*(q)));						\
	(q)->kind = (w)->kind;							\
	(q)->id = (w)->id;							\
	(q)->used = (w)->used;							\
	(q)->has_limit = (w)->_present.limit;					\
	(q)->limit = (w)->limit;						\
	(q)->uid = (w)->uid;							\
	owner_of(&(w)->owner, (w)->_present.owner, &(q)->owner);		\
	(q)->refusals = (w)->refusals;						\
	(q)->has_pub = (w)->_present.name_len;					\
	STR((q)->name, (w)->name);						\
	(q)->cgroup_id = (w)->cgroup_id;					\
	(q)->peak = (w)->peak;							\
	(q)->submitted = (w)->submitted;					\
	(q)->completed = (w)->completed;					\
	(q)->deferred_now = (w)->deferred_now;					\
	(q)->deferred_total = (w)->deferred_total;				\
	(q)->warn = (w)->warn;							\
	(q)->crit = (w)->crit;							\
	(q)->flags = (w)->flags;						\
	(q)->has_iommufd = (w)->_present.iommufd_mode;				\
	(q)->iommufd_mode = (w)->iommufd_mode;					\
	(q)->mappings = (w)->mappings;						\
	(q)->devices = (w)->devices;						\
	(q)->has_limit_min = (w)->_present.limit_min;				\
	(q)->limit_min = (w)->limit_min;					\
	(w)->_present.kind && (w)->_present.id ? 0 : -EINVAL;			\
})

typedef int (*quota_fn)(const struct ia_quota *q, void *arg);

static int quota_of(const struct iommu_account_get_quota_rsp *w, quota_fn fn, void *arg)
{
	struct ia_quota q;
	struct ia_ioas *x = NULL;
	unsigned int i;
	int ret;

	if (QUOTA_OF(w, &q))
		return 0;
	failure_of(&w->last_failure, w->_present.last_failure, &q.last_failure);
	if (w->n_ioas) {
		x = calloc(w->n_ioas, sizeof(*x));
		if (!x)
			return -ENOMEM;
	}
	for (i = 0; i < w->n_ioas; i++) {
		x[i].has_id = w->ioas[i]._present.id;
		x[i].id = w->ioas[i].id;
		x[i].areas = w->ioas[i].areas;
		x[i].bytes = w->ioas[i].bytes;
		x[i].pinned = w->ioas[i].pinned;
	}
	q.ioas = x;
	q.nioas = w->n_ioas;
	q.ioas_listed = q.has_iommufd;
	ret = fn(&q, arg);
	free(x);
	return ret;
}

int ia_get_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *id,
		  quota_fn cb, void *arg)
{
	if (id)
		return IA_DO(c, quota, ({ if (kind)
						  iommu_account_get_quota_req_set_kind(req, *kind);
					  iommu_account_get_quota_req_set_id(req, *id); }),
			     quota_of, cb, arg);
	return ia_dump_quotas(c, kind, NULL, NULL, cb, arg);
}

struct quota_each {
	quota_fn cb;
	void *arg;
};

static int quota_each(const void *rsp, void *ctx)
{
	const struct quota_each *e = ctx;

	return quota_of(rsp, e->cb, e->arg);
}

int ia_dump_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *uid,
		   const uint32_t *pid, quota_fn cb, void *arg)
{
	struct quota_each e = { cb, arg };

	return IA_STREAM(c, quota, IOMMU_ACCOUNT_CMD_GET_QUOTA,
			 ({ if (kind)
					ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, *kind);
				if (uid)
					ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_UID, *uid);
				if (pid)
					ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_PID, *pid); }),
			 quota_each, &e);
}

/* --- groups ----------------------------------------------------------- */

static void device_of(const char *address, const char *driver, uint16_t vendor,
		      uint16_t device, struct ia_device *d)
{
	memset(d, 0, sizeof(*d));
	STR(d->address, address);
	STR(d->driver, driver);
	d->vendor = vendor;
	d->device = device;
}

typedef int (*group_fn)(const struct ia_group *g, void *arg);

static int group_of(const struct iommu_account_get_group_rsp *w, group_fn fn, void *arg)
{
	struct ia_group g = { 0 };
	unsigned int i;
	int ret;

	g.id = w->id;
	g.backend = w->backend;
	g.has_container = w->_present.container_id;
	g.container = w->container_id;
	owner_of(&w->owner, w->_present.owner, &g.owner);
	if (w->n_device) {
		g.devices = calloc(w->n_device, sizeof(*g.devices));
		if (!g.devices)
			return -ENOMEM;
	}
	for (i = 0; i < w->n_device; i++)
		device_of(w->device[i].address, w->device[i].driver, w->device[i].vendor,
			  w->device[i].device, &g.devices[g.ndevices++]);
	ret = fn(&g, arg);
	free(g.devices);
	return ret;
}

int ia_get_groups(struct ia_client *c, const uint32_t *key, group_fn cb, void *arg)
{
	if (key)
		return IA_DO(c, group, iommu_account_get_group_req_set_id(req, *key), group_of,
			     cb, arg);
	return IA_DUMP(c, group, group_of, cb, arg);
}

/* --- hot-reset scopes ------------------------------------------------- */

typedef int (*reset_fn)(const struct ia_reset *r, void *arg);

static int reset_of(const struct iommu_account_get_reset_scope_rsp *w, reset_fn fn, void *arg)
{
	struct ia_reset r = { 0 };
	unsigned int i;
	int ret;

	if (!w->_present.address_len)
		return 0;
	STR(r.address, w->address);
	r.scope = w->scope;
	r.has_group = w->_present.group;
	r.group = w->group;
	r.has_set_kind = w->_present.set_kind;
	r.set_kind = w->set_kind;
	r.vfio = w->_present.vfio_device;
	if (w->n_affected) {
		r.affected = calloc(w->n_affected, sizeof(*r.affected));
		if (!r.affected)
			return -ENOMEM;
	}
	for (i = 0; i < w->n_affected; i++) {
		const struct iommu_account_reset_device *a = &w->affected[i];
		struct ia_reset_dev *d = &r.affected[r.naffected++];

		device_of(a->address, a->driver, a->vendor, a->device, &d->dev);
		d->has_group = a->_present.group;
		d->group = a->group;
		d->holder = a->holder;
		d->has_container = a->_present.container_id;
		d->container = a->container_id;
		owner_of(&a->owner, a->_present.owner, &d->owner);
		d->has_set = a->_present.reset_set;
		d->set = a->reset_set;
		d->vfio = a->_present.vfio_device;
		d->virtfn = a->_present.virtfn;
	}
	ret = fn(&r, arg);
	free(r.affected);
	return ret;
}

int ia_get_resets(struct ia_client *c, const char *address, reset_fn cb, void *arg)
{
	if (address)
		return IA_DO(c, reset_scope,
			     iommu_account_get_reset_scope_req_set_address(req, address),
			     reset_of, cb, arg);
	return IA_DUMP(c, reset_scope, reset_of, cb, arg);
}

/* --- thresholds ------------------------------------------------------- */

/* A thresholds reply (GET and SET answer the same attributes) into @t: 0. */
#define THRESHOLDS_OF(w, t)							\
({										\
	(t)->warn = (w)->warn;							\
	(t)->crit = (w)->crit;							\
	(t)->kind = (w)->kind;							\
	(t)->margin = (w)->margin;						\
	0;									\
})

int ia_get_thresholds(struct ia_client *c, struct ia_thresholds *t)
{
	/* No kind attribute for VFIO: a module older than uid-pot thresholds accepts it. */
	return IA_OP(c, get_thresholds,
		     ({ if (t->kind)
				iommu_account_get_thresholds_req_set_kind(req, t->kind); }),
		     THRESHOLDS_OF, t);
}

int ia_set_thresholds(struct ia_client *c, struct ia_thresholds *t)
{
	return IA_OP(c, set_thresholds,
		     ({ iommu_account_set_thresholds_req_set_warn(req, t->warn);
			iommu_account_set_thresholds_req_set_crit(req, t->crit);
			if (t->kind)
				iommu_account_set_thresholds_req_set_kind(req, t->kind);
			if (t->margin)
				iommu_account_set_thresholds_req_set_margin(req, t->margin); }),
		     THRESHOLDS_OF, t);
}

/* --- processes ---------------------------------------------------------- */

typedef int (*proc_fn)(const struct ia_proc *p, void *arg);

static int proc_of(const struct iommu_account_get_proc_rsp *w, proc_fn fn, void *arg)
{
	struct ia_proc p = { 0 };

	p.pid = w->pid;
	p.uid = w->uid;
	STR(p.comm, w->comm);
	p.cgroup_id = w->cgroup_id;
	p.memlock_soft = w->memlock_soft;
	p.memlock_hard = w->memlock_hard;
	consumers_of(w->consumer, w->n_consumer, p.consumer);
	p.locked_vm = w->locked_vm_bytes;
	p.pinned_vm = w->pinned_vm_bytes;
	p.rings = w->rings;
	STR(p.cgroup, w->cgroup);
	p.cgroup_truncated = w->_present.cgroup_truncated;
	p.has_uring_fds = w->_present.uring_fds;
	p.uring_fds = w->uring_fds;
	return fn(&p, arg);
}

struct proc_each {
	proc_fn cb;
	void *arg;
};

static int proc_each(const void *rsp, void *ctx)
{
	const struct proc_each *e = ctx;

	return proc_of(rsp, e->cb, e->arg);
}

int ia_get_procs(struct ia_client *c, const uint32_t *pid, const uint32_t *uid,
		 proc_fn cb, void *arg)
{
	struct proc_each e = { cb, arg };

	if (pid)
		return IA_DO(c, proc, iommu_account_get_proc_req_set_pid(req, *pid), proc_of,
			     cb, arg);
	return IA_STREAM(c, proc, IOMMU_ACCOUNT_CMD_GET_PROC,
			 ({ if (uid)
					ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_PROC_UID, *uid); }),
			 proc_each, &e);
}

/* --- events ----------------------------------------------------------- */

int ia_event_of(const struct iommu_account_event_rsp *w, struct ia_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!w->_present.seq || !w->_present.type)
		return -EINVAL;
	ev->seq = w->seq;
	ev->type = w->type;
	ev->kind = w->kind;
	ev->uid = w->uid;
	ev->consumer = w->consumer;
	ev->cgroup_id = w->cgroup_id;
	ev->time_ns = w->time_ns;
	ev->container = w->container_id;
	ev->ngroups = w->n_group;
	ev->groups = w->group;
	ev->group_count = w->_present.group_count ? w->group_count : w->n_group;
	ev->entries = w->entries;
	ev->limit = w->limit;
	owner_of(&w->owner, w->_present.owner, &ev->owner);
	ev->err = w->errno_;
	ev->iova = w->iova;
	ev->size = w->size;
	ev->locked_bytes = w->locked_bytes;
	ev->memlock_limit = w->memlock_limit;
	ev->count = w->_present.count ? w->count : 1;
	ev->ioas = w->ioas;
	ev->level = w->level;
	ev->threshold = w->threshold;
	if (w->_present.quota && !QUOTA_OF(&w->quota, &ev->quota)) {
		ev->has_quota = true;
		failure_of(&w->quota.last_failure, w->quota._present.last_failure,
			   &ev->quota.last_failure);
	}
	return 0;
}
