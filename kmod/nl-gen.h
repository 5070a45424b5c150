/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit: generated from Documentation/netlink/specs/iommu_account.yaml */
/* by scripts/ynl-gen-kernel.py header (scripts/ynl-check compares). */

#ifndef _IA_NL_GEN_H
#define _IA_NL_GEN_H

#include <net/genetlink.h>

/* The handlers the operations name (nl.c, nl_<source>.c, nl_util.c). */
int ia_nl_get_status_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_uid_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_uid_start(struct netlink_callback *cb);
int ia_nl_get_uid_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_snap_dump_done(struct netlink_callback *cb);
int ia_nl_get_group_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_group_start(struct netlink_callback *cb);
int ia_nl_get_group_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_nl_get_container_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_container_start(struct netlink_callback *cb);
int ia_nl_get_container_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_nl_get_thresholds_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_set_thresholds_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_proc_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_proc_start(struct netlink_callback *cb);
int ia_nl_get_proc_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_nl_get_quota_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_quota_start(struct netlink_callback *cb);
int ia_nl_get_quota_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_nl_get_reset_scope_doit(struct sk_buff *skb, struct genl_info *info);
int ia_nl_get_reset_scope_start(struct netlink_callback *cb);
int ia_nl_get_reset_scope_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ia_nl_subscribe_events_doit(struct sk_buff *skb, struct genl_info *info);

#define IA_NL_N_OPS 10
extern const struct genl_ops ia_nl_ops[IA_NL_N_OPS];

#endif
