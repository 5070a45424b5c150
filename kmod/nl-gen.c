// SPDX-License-Identifier: GPL-2.0
/* Do not edit: generated from Documentation/netlink/specs/iommu_account.yaml */
/* by scripts/ynl-gen-kernel.py source (scripts/ynl-check compares). */

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/iommu_account.h>

#include "nl-gen.h"

/* IOMMU_ACCOUNT_CMD_GET_UID: what its do and dump request accepts */
static const struct nla_policy ia_get_uid_policy[IOMMU_ACCOUNT_A_UID_UID + 1] = {
	[IOMMU_ACCOUNT_A_UID_UID] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_GROUP: what its do request accepts */
static const struct nla_policy ia_get_group_policy[IOMMU_ACCOUNT_A_GROUP_ID + 1] = {
	[IOMMU_ACCOUNT_A_GROUP_ID] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_CONTAINER: what its do request accepts */
static const struct nla_policy ia_get_container_policy[IOMMU_ACCOUNT_A_CONTAINER_ID + 1] = {
	[IOMMU_ACCOUNT_A_CONTAINER_ID] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_THRESHOLDS: what its do request accepts */
static const struct nla_policy ia_get_thresholds_policy[IOMMU_ACCOUNT_A_THRESHOLDS_KIND + 1] = {
	[IOMMU_ACCOUNT_A_THRESHOLDS_KIND] =
		NLA_POLICY_MAX(NLA_U32, IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX),
};

/* IOMMU_ACCOUNT_CMD_SET_THRESHOLDS: what its do request accepts */
static const struct nla_policy ia_set_thresholds_policy[IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN + 1] = {
	[IOMMU_ACCOUNT_A_THRESHOLDS_WARN] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_THRESHOLDS_KIND] =
		NLA_POLICY_MAX(NLA_U32, IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX),
	[IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_PROC: what its do and dump request accepts */
static const struct nla_policy ia_get_proc_policy[IOMMU_ACCOUNT_A_PROC_UID + 1] = {
	[IOMMU_ACCOUNT_A_PROC_PID] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_PROC_UID] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_QUOTA: what its do and dump request accepts */
static const struct nla_policy ia_get_quota_policy[IOMMU_ACCOUNT_A_QUOTA_PID + 1] = {
	[IOMMU_ACCOUNT_A_QUOTA_KIND] =
		NLA_POLICY_MAX(NLA_U32, IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX),
	[IOMMU_ACCOUNT_A_QUOTA_ID] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_QUOTA_UID] = { .type = NLA_U32 },
	[IOMMU_ACCOUNT_A_QUOTA_PID] = { .type = NLA_U32 },
};

/* IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE: what its do request accepts */
static const struct nla_policy ia_get_reset_scope_policy[IOMMU_ACCOUNT_A_RESET_ADDRESS + 1] = {
	[IOMMU_ACCOUNT_A_RESET_ADDRESS] = { .type = NLA_NUL_STRING, .len = 31 },
};

const struct genl_ops ia_nl_ops[IA_NL_N_OPS] = {
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_STATUS,
		.doit = ia_nl_get_status_doit,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_UID,
		.doit = ia_nl_get_uid_doit,
		.start = ia_nl_get_uid_start,
		.dumpit = ia_nl_get_uid_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_uid_policy,
		.maxattr = IOMMU_ACCOUNT_A_UID_UID,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_GROUP,
		.doit = ia_nl_get_group_doit,
		.start = ia_nl_get_group_start,
		.dumpit = ia_nl_get_group_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_group_policy,
		.maxattr = IOMMU_ACCOUNT_A_GROUP_ID,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_CONTAINER,
		.doit = ia_nl_get_container_doit,
		.start = ia_nl_get_container_start,
		.dumpit = ia_nl_get_container_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_container_policy,
		.maxattr = IOMMU_ACCOUNT_A_CONTAINER_ID,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_THRESHOLDS,
		.doit = ia_nl_get_thresholds_doit,
		.policy = ia_get_thresholds_policy,
		.maxattr = IOMMU_ACCOUNT_A_THRESHOLDS_KIND,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_SET_THRESHOLDS,
		.doit = ia_nl_set_thresholds_doit,
		.policy = ia_set_thresholds_policy,
		.maxattr = IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_PROC,
		.doit = ia_nl_get_proc_doit,
		.start = ia_nl_get_proc_start,
		.dumpit = ia_nl_get_proc_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_proc_policy,
		.maxattr = IOMMU_ACCOUNT_A_PROC_UID,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_QUOTA,
		.doit = ia_nl_get_quota_doit,
		.start = ia_nl_get_quota_start,
		.dumpit = ia_nl_get_quota_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_quota_policy,
		.maxattr = IOMMU_ACCOUNT_A_QUOTA_PID,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE,
		.doit = ia_nl_get_reset_scope_doit,
		.start = ia_nl_get_reset_scope_start,
		.dumpit = ia_nl_get_reset_scope_dumpit,
		.done = ia_snap_dump_done,
		.policy = ia_get_reset_scope_policy,
		.maxattr = IOMMU_ACCOUNT_A_RESET_ADDRESS,
	},
	{
		.cmd = IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS,
		.doit = ia_nl_subscribe_events_doit,
	},
};
