// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "iommu_account". The YNL spec in
 * Documentation/netlink/specs/iommu_account.yaml is the reference; the
 * attribute and command numbers come from the uapi header generated from it.
 *
 * Permissions: the pots are machine-wide (user_structs are not per network
 * namespace), so seeing other users requires CAP_SYS_ADMIN in the initial user
 * namespace, checked with netlink_capable() (the opener of the socket and the
 * sender must both have it). CAP_NET_ADMIN is not enough: a container's root
 * has it over its own network namespace, and must not learn what other
 * tenants of the machine hold. Anyone may see their own real uid.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/iommu_account.h>

#include "compat.h"
#include "ia.h"

static struct genl_family ia_family;

static const struct nla_policy ia_uid_policy[IOMMU_ACCOUNT_A_UID_MAX + 1] = {
	[IOMMU_ACCOUNT_A_UID_UID] = { .type = NLA_U32 },
};

static bool ia_is_admin(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/* GET_STATUS */

static int ia_put_feature(struct sk_buff *msg, const struct ia_feature_info *f)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, IOMMU_ACCOUNT_A_STATUS_FEATURE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_FEATURE_NAME, f->name) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_FEATURE_STATE,
			f->active ? IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE :
				    IOMMU_ACCOUNT_FEATURE_STATE_UNAVAILABLE) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_FEATURE_DETAIL, f->detail)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ia_get_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ia_family, 0,
				IOMMU_ACCOUNT_CMD_GET_STATUS);
	if (!hdr)
		goto err;
	if (nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION, IA_VERSION) ||
	    nla_put_string(msg, IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE,
			   init_utsname()->release) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE, PAGE_SIZE))
		goto err;
	for (i = 0; i < IA_FEAT_COUNT; i++)
		if (ia_put_feature(msg, &ia_features[i]))
			goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* GET_UID */

static int ia_put_uid(struct sk_buff *msg, const struct ia_uid_rec *r,
		      struct user_namespace *ns)
{
	u64 locked = r->locked_pages << PAGE_SHIFT;

	if (nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_UID, from_kuid_munged(ns, r->uid)) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_LOCKED_BYTES, locked,
			      IOMMU_ACCOUNT_A_UID_PAD) ||
	    nla_put_u32(msg, IOMMU_ACCOUNT_A_UID_TASKS, r->tasks))
		return -EMSGSIZE;
	if (!r->tasks)
		return 0;
	if (nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN, r->rlim_min,
			      IOMMU_ACCOUNT_A_UID_PAD) ||
	    nla_put_u64_64bit(msg, IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX, r->rlim_max,
			      IOMMU_ACCOUNT_A_UID_PAD))
		return -EMSGSIZE;
	if (r->rlim_min == U64_MAX)
		return 0;
	if (nla_put_s64(msg, IOMMU_ACCOUNT_A_UID_HEADROOM,
			(s64)(r->rlim_min & PAGE_MASK) - (s64)locked,
			IOMMU_ACCOUNT_A_UID_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * Which uid a request may see: sets filter and only; an unprivileged caller is
 * confined to its own real uid.
 */
static int ia_uid_scope(const struct sk_buff *skb, struct nlattr **attrs,
			struct netlink_ext_ack *extack, bool *filter, kuid_t *only)
{
	struct nlattr *a = attrs ? attrs[IOMMU_ACCOUNT_A_UID_UID] : NULL;
	bool admin = ia_is_admin(skb);

	*filter = false;
	if (a) {
		*only = make_kuid(current_user_ns(), nla_get_u32(a));
		if (!uid_valid(*only)) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "uid has no mapping in the caller's user namespace");
			return -EINVAL;
		}
		*filter = true;
		if (!admin && !uid_eq(*only, current_uid())) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "seeing another uid needs CAP_SYS_ADMIN");
			return -EPERM;
		}
	} else if (!admin) {
		*only = current_uid();
		*filter = true;
	}
	return 0;
}

static int ia_get_uid_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ia_uid_snap *snap;
	struct sk_buff *msg;
	bool filter;
	kuid_t only;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IOMMU_ACCOUNT_A_UID_UID))
		return -EINVAL;
	ret = ia_uid_scope(skb, info->attrs, info->extack, &filter, &only);
	if (ret)
		return ret;
	snap = ia_uid_snapshot(filter, only);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	if (!snap->nr) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOMMU_ACCOUNT_A_UID_UID],
				    "no such user: no process and no pot of that uid is alive");
		ret = -ENOENT;
		goto out;
	}
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	ret = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &ia_family, 0, IOMMU_ACCOUNT_CMD_GET_UID);
	if (!hdr || ia_put_uid(msg, &snap->rec[0], current_user_ns())) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	ia_uid_snap_free(snap);
	return ret;
}

/*
 * The dump is one point-in-time snapshot taken in .start, so the messages of
 * one dump are consistent with each other by construction; the cursor is an
 * index into the snapshot.
 */
struct ia_uid_dump {
	struct ia_uid_snap *snap;
	struct user_namespace *ns;
	unsigned int next;
};

static struct ia_uid_dump *ia_uid_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ia_uid_dump) > sizeof(cb->ctx));
	return (struct ia_uid_dump *)cb->ctx;
}

static int ia_get_uid_start(struct netlink_callback *cb)
{
	struct ia_uid_dump *ctx = ia_uid_dump_ctx(cb);
	struct ia_uid_snap *snap;
	bool filter;
	kuid_t only;
	int ret;

	ret = ia_uid_scope(cb->skb, ia_dump_attrs(cb), cb->extack, &filter, &only);
	if (ret)
		return ret;
	snap = ia_uid_snapshot(filter, only);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	ctx->snap = snap;
	ctx->ns = get_user_ns(current_user_ns());
	ctx->next = 0;
	return 0;
}

static int ia_get_uid_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ia_uid_dump *ctx = ia_uid_dump_ctx(cb);
	void *hdr;

	while (ctx->next < ctx->snap->nr) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ia_family, NLM_F_MULTI,
				  IOMMU_ACCOUNT_CMD_GET_UID);
		if (!hdr)
			break;
		if (ia_put_uid(skb, &ctx->snap->rec[ctx->next], ctx->ns)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->next++;
	}
	return skb->len;
}

static int ia_get_uid_done(struct netlink_callback *cb)
{
	struct ia_uid_dump *ctx = ia_uid_dump_ctx(cb);

	ia_uid_snap_free(ctx->snap);
	if (ctx->ns)
		put_user_ns(ctx->ns);
	return 0;
}

static const struct genl_ops ia_ops[] = {
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_STATUS,
		.doit = ia_get_status_doit,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_UID,
		.doit = ia_get_uid_doit,
		.start = ia_get_uid_start,
		.dumpit = ia_get_uid_dumpit,
		.done = ia_get_uid_done,
		.policy = ia_uid_policy,
		.maxattr = IOMMU_ACCOUNT_A_UID_MAX,
	},
};

static struct genl_family ia_family __ro_after_init = {
	.name = IOMMU_ACCOUNT_FAMILY_NAME,
	.version = IOMMU_ACCOUNT_FAMILY_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = ia_ops,
	.n_ops = ARRAY_SIZE(ia_ops),
	.resv_start_op = IOMMU_ACCOUNT_CMD_GET_STATUS,
};

int __init ia_netlink_init(void)
{
	return genl_register_family(&ia_family);
}

void ia_netlink_exit(void)
{
	genl_unregister_family(&ia_family);
}
