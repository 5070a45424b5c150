// SPDX-License-Identifier: GPL-2.0
/*
 * GET_CONTAINER, GET_GROUP, the attributes of events and the quota kind
 * vfio-container (source: vfio.c); GET_RESET_SCOPE (source: reset.c, with
 * the containers of vfio.c).
 */
#include <linux/cred.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "nl.h"
#include "source.h"

static int ia_put_groups(struct sk_buff *msg, int attr, const u32 *groups,
			 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nla_put_u32(msg, attr, groups[i]))
			return -EMSGSIZE;
	return 0;
}

/* --- GET_CONTAINER ---------------------------------------------------------- */

static int ia_put_container(struct sk_buff *msg, const struct ia_container_info *c,
			    struct user_namespace *ns)
{
	static const int fail_attr[IA_FAIL_COUNT] = {
		[IA_FAIL_ENOSPC] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC,
		[IA_FAIL_ENOMEM] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM,
		[IA_FAIL_EINVAL] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL,
		[IA_FAIL_OTHER] = IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER,
	};
	const int pad = IOMMU_ACCOUNT_A_CONTAINER_PAD;
	int i;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_ID, c->id) ||
	    ia_put_groups(msg, IOMMU_ACCOUNT_A_CONTAINER_GROUP, c->groups, c->ngroups) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_ENTRIES, c->entries) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_LIMIT, c->limit) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES, c->mapped_bytes, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES, c->pinned_pages, pad) ||
	    (c->has_pinned_uid &&
	     nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID,
			 from_kuid_munged(ns, c->pinned_uid))) ||
	    ia_put_owner(msg, IOMMU_ACCOUNT_A_CONTAINER_OWNER, &c->owner, ns) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS, c->map_ops, pad) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS, c->unmap_ops, pad) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_CONTAINER_INEXACT, c->inexact))
		return -EMSGSIZE;
	for (i = 0; i < IA_FAIL_COUNT; i++)
		if (nla_put_u64_64bit(msg, fail_attr[i], c->fail[i], pad))
			return -EMSGSIZE;
	if (c->has_last &&
	    ia_put_failure(msg, IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE, &c->last, NULL, ns))
		return -EMSGSIZE;
	return 0;
}

static int ia_put_container_elem(struct sk_buff *skb, const void *snap, unsigned int i,
				 struct user_namespace *ns)
{
	return ia_put_container(skb, &((const struct ia_container_snap *)snap)->c[i], ns);
}

static void ia_container_snap_release(void *snap)
{
	ia_container_snap_free(snap);
}

/* Containers the caller may see (all for an admin, its own otherwise): @id's, or all. */
static struct ia_container_snap *
ia_container_scope(const struct sk_buff *skb, const u32 *id)
{
	struct ia_filter f = { .by_uid = !ia_nl_admin(skb), .uid = current_uid() };

	if (id) {
		f.by_id = true;
		f.id = *id;
	}
	return ia_container_snapshot(&f);
}

int ia_nl_get_container_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_container_snap *snap;
	int ret;
	u32 id;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_CONTAINER_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[IOMMU_ACCOUNT_A_CONTAINER_ID]);
	snap = ia_container_scope(skb, &id);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (snap->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_CONTAINER,
				    ia_put_container_elem, snap, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_CONTAINER_ID],
				    "no such container (or not yours)");
		ret = -ENOENT;
	}
	ia_container_snap_free(snap);
	return ret;
}

int ia_nl_get_container_start(struct netlink_callback *cb)
{
	struct ia_container_snap *snap;

	snap = ia_container_scope(cb->skb, NULL);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ia_snap_dump_init(cb, snap, snap->nr, ia_container_snap_release);
	return 0;
}

int ia_nl_get_container_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_CONTAINER, ia_put_container_elem);
}

/* --- GET_GROUP ------------------------------------------------------------------ */

/*
 * The groups one caller may see, decided once (at the start of a dump, or
 * for a do): @first[i] is the index in g->dev of the i-th visible group.
 */
struct ia_group_view {
	struct ia_group_snap *g;
	unsigned int nr;
	unsigned int first[];
};

/* The container of @cs holding @group, and the group's index in it. */
static const struct ia_container_info *
ia_group_container(const struct ia_container_snap *cs, u32 group, unsigned int *idx)
{
	unsigned int i, j;

	for (i = 0; cs && i < cs->nr; i++) {
		const struct ia_container_info *c = &cs->c[i];

		for (j = 0; j < c->ngroups; j++)
			if (c->groups[j] == group) {
				*idx = j;
				return c;
			}
	}
	return NULL;
}

/* A device of the group starting at g->dev[@first] bound to iommufd, or NULL. */
static const struct ia_group_dev *ia_group_fd_dev(const struct ia_group_snap *g,
						  unsigned int first)
{
	unsigned int i;

	for (i = first; i < g->ndev && g->dev[i].group == g->dev[first].group; i++)
		if (g->dev[i].fd_bound)
			return &g->dev[i];
	return NULL;
}

/* The group starting at g->dev[@first]: held by @uid's container or iommufd binding. */
static bool ia_group_visible(const struct ia_group_snap *g, unsigned int first, bool admin,
			     kuid_t uid)
{
	const struct ia_container_info *c;
	const struct ia_group_dev *fd;
	unsigned int j;

	if (admin)
		return true;
	c = ia_group_container(g->containers, g->dev[first].group, &j);
	if (c)
		return uid_eq(c->group_owner[j].uid, uid);
	fd = ia_group_fd_dev(g, first);
	return fd && uid_eq(fd->fd_owner.uid, uid);
}

static void ia_group_view_free(void *p)
{
	struct ia_group_view *v = p;

	ia_group_snap_free(v->g);
	kvfree(v);
}

/* Every group @skb's sender may see (or only @id when @filter). */
static struct ia_group_view *ia_group_view(const struct sk_buff *skb, bool filter, u32 id)
{
	bool admin = ia_nl_admin(skb);
	kuid_t uid = current_uid();
	struct ia_group_view *v;
	struct ia_group_snap *g;
	unsigned int i;

	g = ia_group_snapshot();
	if (IS_ERR(g))
		return ERR_CAST(g);
	v = kvmalloc(struct_size(v, first, g->ndev), GFP_KERNEL);
	if (!v) {
		ia_group_snap_free(g);
		return ERR_PTR(-ENOMEM);
	}
	v->g = g;
	v->nr = 0;
	for (i = 0; i < g->ndev; i++) {
		u32 grp = g->dev[i].group;

		if (i && g->dev[i - 1].group == grp)
			continue;	/* not the first device of its group */
		if ((filter && grp != id) || !ia_group_visible(g, i, admin, uid))
			continue;
		v->first[v->nr++] = i;
	}
	return v;
}

static int ia_put_device(struct sk_buff *msg, const struct ia_group_dev *d)
{
	struct nlattr *nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_GROUP_DEVICE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_DEVICE_ADDRESS, d->address) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_DEVICE_VENDOR, d->vendor) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_DEVICE_DEVICE, d->device) ||
	    (d->driver[0] && nla_put_string(msg, IOMMU_ACCOUNT_A_DEVICE_DRIVER, d->driver))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ia_put_group_elem(struct sk_buff *msg, const void *view, unsigned int k,
			     struct user_namespace *ns)
{
	const struct ia_group_view *v = view;
	const struct ia_group_snap *g = v->g;
	unsigned int first = v->first[k], i, j;
	u32 id = g->dev[first].group;
	const struct ia_container_info *c;
	const struct ia_group_dev *fd;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_ID, id))
		return -EMSGSIZE;
	for (i = first; i < g->ndev && g->dev[i].group == id; i++)
		if (ia_put_device(msg, &g->dev[i]))
			return -EMSGSIZE;
	c = ia_group_container(g->containers, id, &j);
	fd = c ? NULL : ia_group_fd_dev(g, first);
	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_BACKEND,
			c ? IOMMU_ACCOUNT_GROUP_BACKEND_VFIO_CONTAINER :
			fd ? IOMMU_ACCOUNT_GROUP_BACKEND_IOMMUFD :
			IOMMU_ACCOUNT_GROUP_BACKEND_NONE))
		return -EMSGSIZE;
	if (c && (nla_put_u32(msg, IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID, c->id) ||
		  ia_put_owner(msg, IOMMU_ACCOUNT_A_GROUP_OWNER, &c->group_owner[j], ns)))
		return -EMSGSIZE;
	if (fd && ia_put_owner(msg, IOMMU_ACCOUNT_A_GROUP_OWNER, &fd->fd_owner, ns))
		return -EMSGSIZE;
	return 0;
}

int ia_nl_get_group_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_GROUP_ID];
	struct ia_group_view *v;
	int ret;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_GROUP_ID))
		return -EINVAL;
	v = ia_group_view(skb, true, nla_get_u32(a));
	if (IS_ERR(v))
		return PTR_ERR(v);
	if (v->nr) {
		ret = ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_GROUP, ia_put_group_elem, v, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such IOMMU group (or not yours)");
		ret = -ENOENT;
	}
	ia_group_view_free(v);
	return ret;
}

int ia_nl_get_group_start(struct netlink_callback *cb)
{
	struct ia_group_view *v = ia_group_view(cb->skb, false, 0);

	if (IS_ERR(v))
		return PTR_ERR(v);
	ia_snap_dump_init(cb, v, v->nr, ia_group_view_free);
	return 0;
}

int ia_nl_get_group_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_GROUP, ia_put_group_elem);
}

/* --- events ------------------------------------------------------------------- */

/* The attributes of a VFIO container's event (ia_nl_put_event has the rest). */
int ia_nl_put_vfio_event(struct sk_buff *msg, const struct ia_event *ev)
{
	const int pad = IOMMU_ACCOUNT_A_EVENT_PAD;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID, ev->vfio.id) ||
	    ia_put_groups(msg, IOMMU_ACCOUNT_A_EVENT_GROUP, ev->vfio.groups, ev->vfio.ngroups) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT, ev->vfio.group_count) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_ENTRIES, ev->vfio.entries) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_EVENT_LIMIT, ev->vfio.limit))
		return -EMSGSIZE;
	if (ev->type == IA_EV_FAILURE &&
	    (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_IOVA, ev->iova, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_SIZE, ev->size, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES, ev->locked_bytes, pad) ||
	     nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT, ev->memlock, pad) ||
	     (ev->cgroup_id &&
	      nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_EVENT_CGROUP_ID, ev->cgroup_id, pad))))
		return -EMSGSIZE;
	return 0;
}

/* --- GET_RESET_SCOPE ----------------------------------------------------------- */

/* The scopes, with the containers to tell who holds each affected group. */
struct ia_reset_view {
	struct ia_reset_snap *s;
	struct ia_container_snap *cs;
	bool admin;
	kuid_t uid;		/* of the requester */
};

static void ia_reset_view_free(void *p)
{
	struct ia_reset_view *v = p;

	ia_reset_snap_free(v->s);
	if (!IS_ERR_OR_NULL(v->cs))
		ia_container_snap_free(v->cs);
	kfree(v);
}

static struct ia_reset_view *ia_reset_view(const struct sk_buff *skb, struct pci_dev *only)
{
	struct ia_reset_view *v = kzalloc(sizeof(*v), GFP_KERNEL);

	if (!v)
		return ERR_PTR(-ENOMEM);
	v->admin = ia_nl_admin(skb);
	v->uid = current_uid();
	v->s = ia_reset_snapshot(only);
	if (IS_ERR(v->s)) {
		struct ia_reset_snap *err = v->s;

		v->s = NULL;
		ia_reset_view_free(v);
		return ERR_CAST(err);
	}
	v->cs = ia_container_snapshot(IA_FILTER_ALL);
	if (IS_ERR(v->cs)) {
		ia_reset_view_free(v);
		return ERR_PTR(-ENOMEM);
	}
	return v;
}

static int ia_put_reset_dev(struct sk_buff *msg, const struct ia_reset_view *v,
			    const struct ia_reset_dev *r, struct user_namespace *ns)
{
	const struct ia_container_info *c = NULL;
	u32 holder = IOMMU_ACCOUNT_RESET_HOLDER_NONE;
	const struct ia_owner *o = NULL;
	struct nlattr *nest;
	unsigned int j = 0;

	if (r->has_group)
		c = ia_group_container(v->cs, r->d.group, &j);
	if (c)
		o = &c->group_owner[j];
	else if (r->d.fd_bound)
		o = &r->d.fd_owner;	/* open through its VFIO cdev, bound to iommufd */
	if (o)
		holder = uid_eq(o->uid, v->uid) ? IOMMU_ACCOUNT_RESET_HOLDER_CALLER :
						  IOMMU_ACCOUNT_RESET_HOLDER_OTHER;
	nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_RESET_AFFECTED);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_ADDRESS, r->d.address) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR, r->d.vendor) ||
	    nla_put_u16(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE, r->d.device) ||
	    (r->d.driver[0] &&
	     nla_put_string(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_DRIVER, r->d.driver)) ||
	    (r->has_group && nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP, r->d.group)) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_HOLDER, holder) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET, r->set) ||
	    (r->vfio && nla_put_flag(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_VFIO_DEVICE)) ||
	    (r->virtfn && nla_put_flag(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_VIRTFN)))
		goto cancel;
	/* Another tenant's container and identity: CAP_SYS_ADMIN only. */
	if (o && (v->admin || holder == IOMMU_ACCOUNT_RESET_HOLDER_CALLER) &&
	    ((c && nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID, c->id)) ||
	     ia_put_owner(msg, IOMMU_ACCOUNT_A_RESET_DEVICE_OWNER, o, ns)))
		goto cancel;
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int ia_put_reset_elem(struct sk_buff *msg, const void *view, unsigned int k,
			     struct user_namespace *ns)
{
	const struct ia_reset_view *v = view;
	const struct ia_reset_info *r = &v->s->r[k];
	unsigned int i;

	if (nla_put_string(msg, IOMMU_ACCOUNT_A_RESET_ADDRESS, r->address) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_SCOPE, r->scope) ||
	    (r->has_group && nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_GROUP, r->group)) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_RESET_SET_KIND, r->set_kind) ||
	    (r->vfio && nla_put_flag(msg, IOMMU_ACCOUNT_A_RESET_VFIO_DEVICE)))
		return -EMSGSIZE;
	for (i = 0; i < r->ndev; i++)
		if (ia_put_reset_dev(msg, v, &r->dev[i], ns))
			return -EMSGSIZE;
	return 0;
}

int ia_nl_get_reset_scope_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOMMU_ACCOUNT_A_RESET_ADDRESS];
	struct ia_reset_view *v;
	struct pci_dev *pdev;
	int ret;

	if (ia_req_attr_missing(info, IOMMU_ACCOUNT_A_RESET_ADDRESS))
		return -EINVAL;
	pdev = ia_reset_lookup(nla_data(a));
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		if (ret == -ENODEV)
			NL_SET_ERR_MSG_ATTR(info->extack, a, "no such PCI device");
		else if (ret == -EOPNOTSUPP)
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "a bridge: vfio-pci resets header type 0 devices only");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, a, "not a PCI address (DDDD:BB:DD.F)");
		return ret == -ENODEV ? ret : -EINVAL;
	}
	v = ia_reset_view(skb, pdev);
	pci_dev_put(pdev);
	if (IS_ERR(v))
		return PTR_ERR(v);
	ret = v->s->nr ? ia_reply_elem(info, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE,
				       ia_put_reset_elem, v, 0) : -ENODEV;
	ia_reset_view_free(v);
	return ret;
}

int ia_nl_get_reset_scope_start(struct netlink_callback *cb)
{
	struct ia_reset_view *v = ia_reset_view(cb->skb, NULL);

	if (IS_ERR(v))
		return PTR_ERR(v);
	ia_snap_dump_init(cb, v, v->s->nr, ia_reset_view_free);
	return 0;
}

int ia_nl_get_reset_scope_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ia_snap_dumpit(skb, cb, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE, ia_put_reset_elem);
}

/* --- kind vfio-container ------------------------------------------------------- */

static void ia_quota_from_container(struct ia_quota_rec *q, const struct ia_container_info *c)
{
	memset(q, 0, sizeof(*q));
	q->kind = IA_KIND_VFIO_CONTAINER;
	q->id = c->id;
	q->used = c->entries;
	q->limit = c->limit;
	q->has_limit = true;
	q->uid = c->owner.uid;
	q->owner = c->owner;
	q->has_owner = true;
	q->refusals = c->fail[IA_FAIL_ENOSPC];
	q->has_last = c->has_last;
	q->last = c->last;
}

static struct ia_quota_list *ia_vfio_container_snapshot(const struct ia_quota_query *q)
{
	struct ia_container_snap *cs = ia_container_snapshot(&q->seen);
	struct ia_quota_list *l;
	unsigned int i;

	if (IS_ERR(cs))
		return ERR_CAST(cs);
	l = kvmalloc(struct_size(l, rec, cs->nr), GFP_KERNEL);
	if (l) {
		for (i = 0; i < cs->nr; i++)
			ia_quota_from_container(&l->rec[i], &cs->c[i]);
		l->nr = cs->nr;
	}
	ia_container_snap_free(cs);
	return l ?: ERR_PTR(-ENOMEM);
}

static void ia_vfio_thr_get(struct ia_thresholds *t, u32 *margin)
{
	ia_vfio_thresholds_get(t);
	*margin = 0;
}

static void ia_vfio_thr_set(const struct ia_thresholds *t, const u32 *margin)
{
	ia_vfio_thresholds_set(t);
}

const struct ia_quota_kind ia_vfio_container_kind = {
	.id = IA_KIND_VFIO_CONTAINER,
	.name = "vfio-container",
	.unit = "entries",
	.needs = IA_FEAT_VFIO_TYPE1,
	.snapshot = ia_vfio_container_snapshot,
	.thr_get = ia_vfio_thr_get,
	.thr_set = ia_vfio_thr_set,
};
