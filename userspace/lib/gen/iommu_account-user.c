// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/iommu_account.yaml */
/* YNL-GEN user source */

#include <stdlib.h>
#include <string.h>
#include "iommu_account-user.h"
#include "ynl.h"
#include <linux/iommu_account.h>

#include <linux/genetlink.h>

/* Enums */
static const char * const iommu_account_op_strmap[] = {
	[IOMMU_ACCOUNT_CMD_GET_STATUS] = "get-status",
	[IOMMU_ACCOUNT_CMD_GET_UID] = "get-uid",
	[IOMMU_ACCOUNT_CMD_GET_GROUP] = "get-group",
	[IOMMU_ACCOUNT_CMD_GET_CONTAINER] = "get-container",
	[IOMMU_ACCOUNT_CMD_GET_THRESHOLDS] = "get-thresholds",
	[IOMMU_ACCOUNT_CMD_SET_THRESHOLDS] = "set-thresholds",
	[IOMMU_ACCOUNT_CMD_EVENT] = "event",
	[IOMMU_ACCOUNT_CMD_GET_PROC] = "get-proc",
	[IOMMU_ACCOUNT_CMD_GET_QUOTA] = "get-quota",
	[IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE] = "get-reset-scope",
	[IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS] = "subscribe-events",
};

const char *iommu_account_op_str(int op)
{
	if (op < 0 || op >= (int)YNL_ARRAY_SIZE(iommu_account_op_strmap))
		return NULL;
	return iommu_account_op_strmap[op];
}

static const char * const iommu_account_feature_state_strmap[] = {
	[0] = "unavailable",
	[1] = "active",
};

const char *
iommu_account_feature_state_str(enum iommu_account_feature_state value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_feature_state_strmap))
		return NULL;
	return iommu_account_feature_state_strmap[value];
}

static const char * const iommu_account_group_backend_strmap[] = {
	[0] = "none",
	[1] = "vfio-container",
	[2] = "iommufd",
};

const char *
iommu_account_group_backend_str(enum iommu_account_group_backend value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_group_backend_strmap))
		return NULL;
	return iommu_account_group_backend_strmap[value];
}

static const char * const iommu_account_event_type_strmap[] = {
	[0] = "failure",
	[1] = "threshold",
	[2] = "gone",
};

const char *iommu_account_event_type_str(enum iommu_account_event_type value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_event_type_strmap))
		return NULL;
	return iommu_account_event_type_strmap[value];
}

static const char * const iommu_account_threshold_level_strmap[] = {
	[0] = "warn",
	[1] = "crit",
};

const char *
iommu_account_threshold_level_str(enum iommu_account_threshold_level value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_threshold_level_strmap))
		return NULL;
	return iommu_account_threshold_level_strmap[value];
}

static const char * const iommu_account_inexact_strmap[] = {
	[0] = "probe-missed",
	[1] = "no-memory",
	[2] = "pinned",
	[3] = "unpinned",
};

const char *iommu_account_inexact_str(enum iommu_account_inexact value)
{
	value = ffs(value) - 1;
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_inexact_strmap))
		return NULL;
	return iommu_account_inexact_strmap[value];
}

static const char * const iommu_account_quota_kind_strmap[] = {
	[0] = "vfio-container",
	[1] = "uid-pot",
	[2] = "qpair",
	[3] = "iommufd-ctx",
};

const char *iommu_account_quota_kind_str(enum iommu_account_quota_kind value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_quota_kind_strmap))
		return NULL;
	return iommu_account_quota_kind_strmap[value];
}

static const char * const iommu_account_reset_scope_strmap[] = {
	[0] = "none",
	[1] = "slot",
	[2] = "bus",
};

const char *iommu_account_reset_scope_str(enum iommu_account_reset_scope value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_reset_scope_strmap))
		return NULL;
	return iommu_account_reset_scope_strmap[value];
}

static const char * const iommu_account_reset_holder_strmap[] = {
	[0] = "none",
	[1] = "caller",
	[2] = "other",
};

const char *
iommu_account_reset_holder_str(enum iommu_account_reset_holder value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_reset_holder_strmap))
		return NULL;
	return iommu_account_reset_holder_strmap[value];
}

static const char * const iommu_account_reset_set_strmap[] = {
	[0] = "same",
	[1] = "other",
	[2] = "never",
};

const char *iommu_account_reset_set_str(enum iommu_account_reset_set value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_reset_set_strmap))
		return NULL;
	return iommu_account_reset_set_strmap[value];
}

static const char * const iommu_account_reset_set_kind_strmap[] = {
	[0] = "device",
	[1] = "slot",
	[2] = "bus",
};

const char *
iommu_account_reset_set_kind_str(enum iommu_account_reset_set_kind value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_reset_set_kind_strmap))
		return NULL;
	return iommu_account_reset_set_kind_strmap[value];
}

static const char * const iommu_account_quota_flags_strmap[] = {
	[0] = "inconsistent",
	[1] = "vfio-compat",
	[2] = "limit-smallest",
};

const char *iommu_account_quota_flags_str(enum iommu_account_quota_flags value)
{
	value = ffs(value) - 1;
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_quota_flags_strmap))
		return NULL;
	return iommu_account_quota_flags_strmap[value];
}

static const char * const iommu_account_iommufd_mode_strmap[] = {
	[0] = "unknown",
	[1] = "user",
	[2] = "mm",
	[3] = "none",
};

const char *
iommu_account_iommufd_mode_str(enum iommu_account_iommufd_mode value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_iommufd_mode_strmap))
		return NULL;
	return iommu_account_iommufd_mode_strmap[value];
}

static const char * const iommu_account_consumer_strmap[] = {
	[0] = "io-uring-buffers",
	[1] = "io-uring-rings",
	[2] = "io-uring-zerocopy",
	[3] = "io-uring-other",
	[4] = "xdp-umem",
	[5] = "iommufd",
};

const char *iommu_account_consumer_str(enum iommu_account_consumer value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_consumer_strmap))
		return NULL;
	return iommu_account_consumer_strmap[value];
}

static const char * const iommu_account_uid_inexact_strmap[] = {
	[0] = "probe-missed",
	[1] = "no-memory",
	[2] = "shared-buffers",
};

const char *iommu_account_uid_inexact_str(enum iommu_account_uid_inexact value)
{
	value = ffs(value) - 1;
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(iommu_account_uid_inexact_strmap))
		return NULL;
	return iommu_account_uid_inexact_strmap[value];
}

/* Policies */
const struct ynl_policy_attr iommu_account_feature_policy[IOMMU_ACCOUNT_A_FEATURE_MAX + 1] = {
	[IOMMU_ACCOUNT_A_FEATURE_NAME] = { .name = "name", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_FEATURE_STATE] = { .name = "state", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_FEATURE_DETAIL] = { .name = "detail", .type = YNL_PT_NUL_STR, },
};

const struct ynl_policy_nest iommu_account_feature_nest = {
	.max_attr = IOMMU_ACCOUNT_A_FEATURE_MAX,
	.table = iommu_account_feature_policy,
};

const struct ynl_policy_attr iommu_account_quota_kind_info_policy[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX + 1] = {
	[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND] = { .name = "kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME] = { .name = "name", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT] = { .name = "unit", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS] = { .name = "refusals", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_quota_kind_info_nest = {
	.max_attr = IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX,
	.table = iommu_account_quota_kind_info_policy,
};

const struct ynl_policy_attr iommu_account_event_budget_policy[IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX + 1] = {
	[IOMMU_ACCOUNT_A_EVENT_BUDGET_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_BUDGET_SUPPRESSED] = { .name = "suppressed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_BUDGET_FAILURES_SUPPRESSED] = { .name = "failures-suppressed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_BUDGET_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
};

const struct ynl_policy_nest iommu_account_event_budget_nest = {
	.max_attr = IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX,
	.table = iommu_account_event_budget_policy,
};

const struct ynl_policy_attr iommu_account_consumer_bytes_policy[IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX + 1] = {
	[IOMMU_ACCOUNT_A_CONSUMER_BYTES_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER] = { .name = "consumer", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES] = { .name = "bytes", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_consumer_bytes_nest = {
	.max_attr = IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX,
	.table = iommu_account_consumer_bytes_policy,
};

const struct ynl_policy_attr iommu_account_device_policy[IOMMU_ACCOUNT_A_DEVICE_MAX + 1] = {
	[IOMMU_ACCOUNT_A_DEVICE_ADDRESS] = { .name = "address", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_DEVICE_VENDOR] = { .name = "vendor", .type = YNL_PT_U16, },
	[IOMMU_ACCOUNT_A_DEVICE_DEVICE] = { .name = "device", .type = YNL_PT_U16, },
	[IOMMU_ACCOUNT_A_DEVICE_DRIVER] = { .name = "driver", .type = YNL_PT_NUL_STR, },
};

const struct ynl_policy_nest iommu_account_device_nest = {
	.max_attr = IOMMU_ACCOUNT_A_DEVICE_MAX,
	.table = iommu_account_device_policy,
};

const struct ynl_policy_attr iommu_account_owner_policy[IOMMU_ACCOUNT_A_OWNER_MAX + 1] = {
	[IOMMU_ACCOUNT_A_OWNER_PID] = { .name = "pid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_OWNER_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_OWNER_COMM] = { .name = "comm", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_OWNER_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_OWNER_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
};

const struct ynl_policy_nest iommu_account_owner_nest = {
	.max_attr = IOMMU_ACCOUNT_A_OWNER_MAX,
	.table = iommu_account_owner_policy,
};

const struct ynl_policy_attr iommu_account_failure_policy[IOMMU_ACCOUNT_A_FAILURE_MAX + 1] = {
	[IOMMU_ACCOUNT_A_FAILURE_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_FAILURE_TIME_NS] = { .name = "time-ns", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_FAILURE_ERRNO] = { .name = "errno", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_FAILURE_IOVA] = { .name = "iova", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_FAILURE_SIZE] = { .name = "size", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_FAILURE_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_FAILURE_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_FAILURE_CGROUP] = { .name = "cgroup", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_FAILURE_IOAS] = { .name = "ioas", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED] = { .name = "cgroup-truncated", .type = YNL_PT_FLAG, },
};

const struct ynl_policy_nest iommu_account_failure_nest = {
	.max_attr = IOMMU_ACCOUNT_A_FAILURE_MAX,
	.table = iommu_account_failure_policy,
};

const struct ynl_policy_attr iommu_account_quota_info_policy[IOMMU_ACCOUNT_A_QUOTA_MAX + 1] = {
	[IOMMU_ACCOUNT_A_QUOTA_KIND] = { .name = "kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_ID] = { .name = "id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_USED] = { .name = "used", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_LIMIT] = { .name = "limit", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_QUOTA_REFUSALS] = { .name = "refusals", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_NAME] = { .name = "name", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_PEAK] = { .name = "peak", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_SUBMITTED] = { .name = "submitted", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_COMPLETED] = { .name = "completed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW] = { .name = "deferred-now", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL] = { .name = "deferred-total", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_WARN] = { .name = "warn", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_CRIT] = { .name = "crit", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_FLAGS] = { .name = "flags", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE] = { .name = "iommufd-mode", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_MAPPINGS] = { .name = "mappings", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_DEVICES] = { .name = "devices", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE] = { .name = "last-failure", .type = YNL_PT_NEST, .nest = &iommu_account_failure_nest, },
	[IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN] = { .name = "limit-min", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_quota_info_nest = {
	.max_attr = IOMMU_ACCOUNT_A_QUOTA_MAX,
	.table = iommu_account_quota_info_policy,
};

const struct ynl_policy_attr iommu_account_ioas_policy[IOMMU_ACCOUNT_A_IOAS_MAX + 1] = {
	[IOMMU_ACCOUNT_A_IOAS_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_IOAS_ID] = { .name = "id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_IOAS_AREAS] = { .name = "areas", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_IOAS_BYTES] = { .name = "bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_IOAS_PINNED] = { .name = "pinned", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_ioas_nest = {
	.max_attr = IOMMU_ACCOUNT_A_IOAS_MAX,
	.table = iommu_account_ioas_policy,
};

const struct ynl_policy_attr iommu_account_reset_device_policy[IOMMU_ACCOUNT_A_RESET_DEVICE_MAX + 1] = {
	[IOMMU_ACCOUNT_A_RESET_DEVICE_ADDRESS] = { .name = "address", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR] = { .name = "vendor", .type = YNL_PT_U16, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE] = { .name = "device", .type = YNL_PT_U16, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_DRIVER] = { .name = "driver", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP] = { .name = "group", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_HOLDER] = { .name = "holder", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID] = { .name = "container-id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET] = { .name = "reset-set", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_VFIO_DEVICE] = { .name = "vfio-device", .type = YNL_PT_FLAG, },
	[IOMMU_ACCOUNT_A_RESET_DEVICE_VIRTFN] = { .name = "virtfn", .type = YNL_PT_FLAG, },
};

const struct ynl_policy_nest iommu_account_reset_device_nest = {
	.max_attr = IOMMU_ACCOUNT_A_RESET_DEVICE_MAX,
	.table = iommu_account_reset_device_policy,
};

const struct ynl_policy_attr iommu_account_status_policy[IOMMU_ACCOUNT_A_STATUS_MAX + 1] = {
	[IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION] = { .name = "module-version", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE] = { .name = "kernel-release", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE] = { .name = "page-size", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_STATUS_FEATURE] = { .name = "feature", .type = YNL_PT_NEST, .nest = &iommu_account_feature_nest, },
	[IOMMU_ACCOUNT_A_STATUS_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED] = { .name = "events-dropped", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED] = { .name = "probes-missed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED] = { .name = "vfio-untracked", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND] = { .name = "quota-kind", .type = YNL_PT_NEST, .nest = &iommu_account_quota_kind_info_nest, },
	[IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ] = { .name = "events-seq", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_EVENTS_COALESCED] = { .name = "events-coalesced", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED] = { .name = "events-suppressed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_FAILURES_SUPPRESSED] = { .name = "failures-suppressed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_FAILURES_DROPPED] = { .name = "failures-dropped", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_STATUS_BUDGET] = { .name = "budget", .type = YNL_PT_NEST, .nest = &iommu_account_event_budget_nest, },
};

const struct ynl_policy_nest iommu_account_status_nest = {
	.max_attr = IOMMU_ACCOUNT_A_STATUS_MAX,
	.table = iommu_account_status_policy,
};

const struct ynl_policy_attr iommu_account_uid_policy[IOMMU_ACCOUNT_A_UID_MAX + 1] = {
	[IOMMU_ACCOUNT_A_UID_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_UID_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_UID_LOCKED_BYTES] = { .name = "locked-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_TASKS] = { .name = "tasks", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN] = { .name = "memlock-min", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX] = { .name = "memlock-max", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_HEADROOM] = { .name = "headroom", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_CONSUMER] = { .name = "consumer", .type = YNL_PT_NEST, .nest = &iommu_account_consumer_bytes_nest, },
	[IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES] = { .name = "unattributed-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_PENDING_BYTES] = { .name = "pending-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_CGROUPS] = { .name = "cgroups", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_UID_CHARGES] = { .name = "charges", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_REFUSALS] = { .name = "refusals", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_INEXACT] = { .name = "inexact", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES] = { .name = "iommufd-mm-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES] = { .name = "iommufd-exempt-bytes", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_uid_nest = {
	.max_attr = IOMMU_ACCOUNT_A_UID_MAX,
	.table = iommu_account_uid_policy,
};

const struct ynl_policy_attr iommu_account_group_policy[IOMMU_ACCOUNT_A_GROUP_MAX + 1] = {
	[IOMMU_ACCOUNT_A_GROUP_ID] = { .name = "id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_GROUP_DEVICE] = { .name = "device", .type = YNL_PT_NEST, .nest = &iommu_account_device_nest, },
	[IOMMU_ACCOUNT_A_GROUP_BACKEND] = { .name = "backend", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID] = { .name = "container-id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_GROUP_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
};

const struct ynl_policy_nest iommu_account_group_nest = {
	.max_attr = IOMMU_ACCOUNT_A_GROUP_MAX,
	.table = iommu_account_group_policy,
};

const struct ynl_policy_attr iommu_account_container_policy[IOMMU_ACCOUNT_A_CONTAINER_MAX + 1] = {
	[IOMMU_ACCOUNT_A_CONTAINER_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_CONTAINER_ID] = { .name = "id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONTAINER_GROUP] = { .name = "group", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONTAINER_ENTRIES] = { .name = "entries", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONTAINER_LIMIT] = { .name = "limit", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES] = { .name = "mapped-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES] = { .name = "pinned-pages", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID] = { .name = "pinned-uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_CONTAINER_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS] = { .name = "map-ops", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS] = { .name = "unmap-ops", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC] = { .name = "fail-enospc", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM] = { .name = "fail-enomem", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL] = { .name = "fail-einval", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER] = { .name = "fail-other", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE] = { .name = "last-failure", .type = YNL_PT_NEST, .nest = &iommu_account_failure_nest, },
	[IOMMU_ACCOUNT_A_CONTAINER_INEXACT] = { .name = "inexact", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest iommu_account_container_nest = {
	.max_attr = IOMMU_ACCOUNT_A_CONTAINER_MAX,
	.table = iommu_account_container_policy,
};

const struct ynl_policy_attr iommu_account_thresholds_policy[IOMMU_ACCOUNT_A_THRESHOLDS_MAX + 1] = {
	[IOMMU_ACCOUNT_A_THRESHOLDS_WARN] = { .name = "warn", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_THRESHOLDS_CRIT] = { .name = "crit", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_THRESHOLDS_KIND] = { .name = "kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN] = { .name = "margin", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest iommu_account_thresholds_nest = {
	.max_attr = IOMMU_ACCOUNT_A_THRESHOLDS_MAX,
	.table = iommu_account_thresholds_policy,
};

const struct ynl_policy_attr iommu_account_event_policy[IOMMU_ACCOUNT_A_EVENT_MAX + 1] = {
	[IOMMU_ACCOUNT_A_EVENT_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_EVENT_SEQ] = { .name = "seq", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_TYPE] = { .name = "type", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_TIME_NS] = { .name = "time-ns", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID] = { .name = "container-id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_GROUP] = { .name = "group", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_ENTRIES] = { .name = "entries", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_LIMIT] = { .name = "limit", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_EVENT_ERRNO] = { .name = "errno", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_IOVA] = { .name = "iova", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_SIZE] = { .name = "size", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES] = { .name = "locked-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT] = { .name = "memlock-limit", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_LEVEL] = { .name = "level", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_THRESHOLD] = { .name = "threshold", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_COUNT] = { .name = "count", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT] = { .name = "group-count", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_KIND] = { .name = "kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_CONSUMER] = { .name = "consumer", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_EVENT_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_EVENT_QUOTA] = { .name = "quota", .type = YNL_PT_NEST, .nest = &iommu_account_quota_info_nest, },
	[IOMMU_ACCOUNT_A_EVENT_IOAS] = { .name = "ioas", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest iommu_account_event_nest = {
	.max_attr = IOMMU_ACCOUNT_A_EVENT_MAX,
	.table = iommu_account_event_policy,
};

const struct ynl_policy_attr iommu_account_proc_policy[IOMMU_ACCOUNT_A_PROC_MAX + 1] = {
	[IOMMU_ACCOUNT_A_PROC_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_PROC_PID] = { .name = "pid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_PROC_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_PROC_COMM] = { .name = "comm", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_PROC_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT] = { .name = "memlock-soft", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD] = { .name = "memlock-hard", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_PROC_CONSUMER] = { .name = "consumer", .type = YNL_PT_NEST, .nest = &iommu_account_consumer_bytes_nest, },
	[IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES] = { .name = "locked-vm-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES] = { .name = "pinned-vm-bytes", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_PROC_RINGS] = { .name = "rings", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_PROC_CGROUP] = { .name = "cgroup", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_PROC_URING_FDS] = { .name = "uring-fds", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED] = { .name = "cgroup-truncated", .type = YNL_PT_FLAG, },
};

const struct ynl_policy_nest iommu_account_proc_nest = {
	.max_attr = IOMMU_ACCOUNT_A_PROC_MAX,
	.table = iommu_account_proc_policy,
};

const struct ynl_policy_attr iommu_account_quota_policy[IOMMU_ACCOUNT_A_QUOTA_MAX + 1] = {
	[IOMMU_ACCOUNT_A_QUOTA_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[IOMMU_ACCOUNT_A_QUOTA_KIND] = { .name = "kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_ID] = { .name = "id", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_USED] = { .name = "used", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_LIMIT] = { .name = "limit", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_OWNER] = { .name = "owner", .type = YNL_PT_NEST, .nest = &iommu_account_owner_nest, },
	[IOMMU_ACCOUNT_A_QUOTA_REFUSALS] = { .name = "refusals", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_PID] = { .name = "pid", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_NAME] = { .name = "name", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID] = { .name = "cgroup-id", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_PEAK] = { .name = "peak", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_SUBMITTED] = { .name = "submitted", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_COMPLETED] = { .name = "completed", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW] = { .name = "deferred-now", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL] = { .name = "deferred-total", .type = YNL_PT_U64, },
	[IOMMU_ACCOUNT_A_QUOTA_WARN] = { .name = "warn", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_CRIT] = { .name = "crit", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_FLAGS] = { .name = "flags", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE] = { .name = "last-failure", .type = YNL_PT_NEST, .nest = &iommu_account_failure_nest, },
	[IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE] = { .name = "iommufd-mode", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_MAPPINGS] = { .name = "mappings", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_DEVICES] = { .name = "devices", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_QUOTA_IOAS] = { .name = "ioas", .type = YNL_PT_NEST, .nest = &iommu_account_ioas_nest, },
	[IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN] = { .name = "limit-min", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest iommu_account_quota_nest = {
	.max_attr = IOMMU_ACCOUNT_A_QUOTA_MAX,
	.table = iommu_account_quota_policy,
};

const struct ynl_policy_attr iommu_account_reset_policy[IOMMU_ACCOUNT_A_RESET_MAX + 1] = {
	[IOMMU_ACCOUNT_A_RESET_ADDRESS] = { .name = "address", .type = YNL_PT_NUL_STR, },
	[IOMMU_ACCOUNT_A_RESET_SCOPE] = { .name = "scope", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_GROUP] = { .name = "group", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_AFFECTED] = { .name = "affected", .type = YNL_PT_NEST, .nest = &iommu_account_reset_device_nest, },
	[IOMMU_ACCOUNT_A_RESET_SET_KIND] = { .name = "set-kind", .type = YNL_PT_U32, },
	[IOMMU_ACCOUNT_A_RESET_VFIO_DEVICE] = { .name = "vfio-device", .type = YNL_PT_FLAG, },
};

const struct ynl_policy_nest iommu_account_reset_nest = {
	.max_attr = IOMMU_ACCOUNT_A_RESET_MAX,
	.table = iommu_account_reset_policy,
};

/* Common nested types */
void iommu_account_feature_free(struct iommu_account_feature *obj)
{
	free(obj->name);
	free(obj->detail);
}

int iommu_account_feature_parse(struct ynl_parse_arg *yarg,
				const struct nlattr *nested)
{
	struct iommu_account_feature *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_FEATURE_NAME) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.name_len = len;
			dst->name = malloc(len + 1);
			memcpy(dst->name, ynl_attr_get_str(attr), len);
			dst->name[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_FEATURE_STATE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.state = 1;
			dst->state = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_FEATURE_DETAIL) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.detail_len = len;
			dst->detail = malloc(len + 1);
			memcpy(dst->detail, ynl_attr_get_str(attr), len);
			dst->detail[len] = 0;
		}
	}

	return 0;
}

void
iommu_account_quota_kind_info_free(struct iommu_account_quota_kind_info *obj)
{
	free(obj->name);
	free(obj->unit);
}

int iommu_account_quota_kind_info_parse(struct ynl_parse_arg *yarg,
					const struct nlattr *nested)
{
	struct iommu_account_quota_kind_info *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.name_len = len;
			dst->name = malloc(len + 1);
			memcpy(dst->name, ynl_attr_get_str(attr), len);
			dst->name[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.unit_len = len;
			dst->unit = malloc(len + 1);
			memcpy(dst->unit, ynl_attr_get_str(attr), len);
			dst->unit[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.refusals = 1;
			dst->refusals = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void iommu_account_event_budget_free(struct iommu_account_event_budget *obj)
{
}

int iommu_account_event_budget_parse(struct ynl_parse_arg *yarg,
				     const struct nlattr *nested)
{
	struct iommu_account_event_budget *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_EVENT_BUDGET_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_BUDGET_SUPPRESSED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.suppressed = 1;
			dst->suppressed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_BUDGET_FAILURES_SUPPRESSED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.failures_suppressed = 1;
			dst->failures_suppressed = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void
iommu_account_consumer_bytes_free(struct iommu_account_consumer_bytes *obj)
{
}

int iommu_account_consumer_bytes_parse(struct ynl_parse_arg *yarg,
				       const struct nlattr *nested)
{
	struct iommu_account_consumer_bytes *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.consumer = 1;
			dst->consumer = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.bytes = 1;
			dst->bytes = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void iommu_account_device_free(struct iommu_account_device *obj)
{
	free(obj->address);
	free(obj->driver);
}

int iommu_account_device_parse(struct ynl_parse_arg *yarg,
			       const struct nlattr *nested)
{
	struct iommu_account_device *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_DEVICE_ADDRESS) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.address_len = len;
			dst->address = malloc(len + 1);
			memcpy(dst->address, ynl_attr_get_str(attr), len);
			dst->address[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_DEVICE_VENDOR) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.vendor = 1;
			dst->vendor = ynl_attr_get_u16(attr);
		} else if (type == IOMMU_ACCOUNT_A_DEVICE_DEVICE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.device = 1;
			dst->device = ynl_attr_get_u16(attr);
		} else if (type == IOMMU_ACCOUNT_A_DEVICE_DRIVER) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.driver_len = len;
			dst->driver = malloc(len + 1);
			memcpy(dst->driver, ynl_attr_get_str(attr), len);
			dst->driver[len] = 0;
		}
	}

	return 0;
}

void iommu_account_owner_free(struct iommu_account_owner *obj)
{
	free(obj->comm);
}

int iommu_account_owner_parse(struct ynl_parse_arg *yarg,
			      const struct nlattr *nested)
{
	struct iommu_account_owner *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_OWNER_PID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pid = 1;
			dst->pid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_OWNER_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_OWNER_COMM) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.comm_len = len;
			dst->comm = malloc(len + 1);
			memcpy(dst->comm, ynl_attr_get_str(attr), len);
			dst->comm[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_OWNER_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void iommu_account_failure_free(struct iommu_account_failure *obj)
{
	iommu_account_owner_free(&obj->owner);
	free(obj->cgroup);
}

int iommu_account_failure_parse(struct ynl_parse_arg *yarg,
				const struct nlattr *nested)
{
	struct iommu_account_failure *dst = yarg->data;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	parg.ys = yarg->ys;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_FAILURE_TIME_NS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.time_ns = 1;
			dst->time_ns = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_ERRNO) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.errno_ = 1;
			dst->errno_ = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_IOVA) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iova = 1;
			dst->iova = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_SIZE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.size = 1;
			dst->size = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_CGROUP) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.cgroup_len = len;
			dst->cgroup = malloc(len + 1);
			memcpy(dst->cgroup, ynl_attr_get_str(attr), len);
			dst->cgroup[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_IOAS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ioas = 1;
			dst->ioas = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_truncated = 1;
		}
	}

	return 0;
}

void iommu_account_quota_info_free(struct iommu_account_quota_info *obj)
{
	iommu_account_owner_free(&obj->owner);
	free(obj->name);
	iommu_account_failure_free(&obj->last_failure);
}

int iommu_account_quota_info_parse(struct ynl_parse_arg *yarg,
				   const struct nlattr *nested)
{
	struct iommu_account_quota_info *dst = yarg->data;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	parg.ys = yarg->ys;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_QUOTA_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_USED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.used = 1;
			dst->used = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit = 1;
			dst->limit = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_REFUSALS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.refusals = 1;
			dst->refusals = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_NAME) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.name_len = len;
			dst->name = malloc(len + 1);
			memcpy(dst->name, ynl_attr_get_str(attr), len);
			dst->name[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_PEAK) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.peak = 1;
			dst->peak = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_SUBMITTED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.submitted = 1;
			dst->submitted = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_COMPLETED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.completed = 1;
			dst->completed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.deferred_now = 1;
			dst->deferred_now = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.deferred_total = 1;
			dst->deferred_total = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_WARN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.warn = 1;
			dst->warn = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_CRIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.crit = 1;
			dst->crit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_FLAGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.flags = 1;
			dst->flags = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iommufd_mode = 1;
			dst->iommufd_mode = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_MAPPINGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.mappings = 1;
			dst->mappings = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEVICES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.devices = 1;
			dst->devices = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.last_failure = 1;

			parg.rsp_policy = &iommu_account_failure_nest;
			parg.data = &dst->last_failure;
			if (iommu_account_failure_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit_min = 1;
			dst->limit_min = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void iommu_account_ioas_free(struct iommu_account_ioas *obj)
{
}

int iommu_account_ioas_parse(struct ynl_parse_arg *yarg,
			     const struct nlattr *nested)
{
	struct iommu_account_ioas *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_IOAS_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_IOAS_AREAS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.areas = 1;
			dst->areas = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_IOAS_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.bytes = 1;
			dst->bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_IOAS_PINNED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pinned = 1;
			dst->pinned = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void iommu_account_reset_device_free(struct iommu_account_reset_device *obj)
{
	free(obj->address);
	free(obj->driver);
	iommu_account_owner_free(&obj->owner);
}

int iommu_account_reset_device_parse(struct ynl_parse_arg *yarg,
				     const struct nlattr *nested)
{
	struct iommu_account_reset_device *dst = yarg->data;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	parg.ys = yarg->ys;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_ADDRESS) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.address_len = len;
			dst->address = malloc(len + 1);
			memcpy(dst->address, ynl_attr_get_str(attr), len);
			dst->address[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.vendor = 1;
			dst->vendor = ynl_attr_get_u16(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.device = 1;
			dst->device = ynl_attr_get_u16(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_DRIVER) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.driver_len = len;
			dst->driver = malloc(len + 1);
			memcpy(dst->driver, ynl_attr_get_str(attr), len);
			dst->driver[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.group = 1;
			dst->group = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_HOLDER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.holder = 1;
			dst->holder = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.container_id = 1;
			dst->container_id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.reset_set = 1;
			dst->reset_set = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_VFIO_DEVICE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.vfio_device = 1;
		} else if (type == IOMMU_ACCOUNT_A_RESET_DEVICE_VIRTFN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.virtfn = 1;
		}
	}

	return 0;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_STATUS ============== */
/* IOMMU_ACCOUNT_CMD_GET_STATUS - do */
void
iommu_account_get_status_rsp_free(struct iommu_account_get_status_rsp *rsp)
{
	unsigned int i;

	free(rsp->module_version);
	free(rsp->kernel_release);
	for (i = 0; i < rsp->n_feature; i++)
		iommu_account_feature_free(&rsp->feature[i]);
	free(rsp->feature);
	for (i = 0; i < rsp->n_quota_kind; i++)
		iommu_account_quota_kind_info_free(&rsp->quota_kind[i]);
	free(rsp->quota_kind);
	for (i = 0; i < rsp->n_budget; i++)
		iommu_account_event_budget_free(&rsp->budget[i]);
	free(rsp->budget);
	free(rsp);
}

int iommu_account_get_status_rsp_parse(const struct nlmsghdr *nlh,
				       struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_status_rsp *dst;
	unsigned int n_quota_kind = 0;
	unsigned int n_feature = 0;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_budget = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->budget)
		return ynl_error_parse(yarg, "attribute already present (status.budget)");
	if (dst->feature)
		return ynl_error_parse(yarg, "attribute already present (status.feature)");
	if (dst->quota_kind)
		return ynl_error_parse(yarg, "attribute already present (status.quota-kind)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.module_version_len = len;
			dst->module_version = malloc(len + 1);
			memcpy(dst->module_version, ynl_attr_get_str(attr), len);
			dst->module_version[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.kernel_release_len = len;
			dst->kernel_release = malloc(len + 1);
			memcpy(dst->kernel_release, ynl_attr_get_str(attr), len);
			dst->kernel_release[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.page_size = 1;
			dst->page_size = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_FEATURE) {
			n_feature++;
		} else if (type == IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.events_dropped = 1;
			dst->events_dropped = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.probes_missed = 1;
			dst->probes_missed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.vfio_untracked = 1;
			dst->vfio_untracked = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND) {
			n_quota_kind++;
		} else if (type == IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.events_seq = 1;
			dst->events_seq = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_EVENTS_COALESCED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.events_coalesced = 1;
			dst->events_coalesced = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.events_suppressed = 1;
			dst->events_suppressed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_FAILURES_SUPPRESSED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.failures_suppressed = 1;
			dst->failures_suppressed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_FAILURES_DROPPED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.failures_dropped = 1;
			dst->failures_dropped = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_STATUS_BUDGET) {
			n_budget++;
		}
	}

	if (n_budget) {
		dst->budget = calloc(n_budget, sizeof(*dst->budget));
		dst->n_budget = n_budget;
		i = 0;
		parg.rsp_policy = &iommu_account_event_budget_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_STATUS_BUDGET) {
				parg.data = &dst->budget[i];
				if (iommu_account_event_budget_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}
	if (n_feature) {
		dst->feature = calloc(n_feature, sizeof(*dst->feature));
		dst->n_feature = n_feature;
		i = 0;
		parg.rsp_policy = &iommu_account_feature_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_STATUS_FEATURE) {
				parg.data = &dst->feature[i];
				if (iommu_account_feature_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}
	if (n_quota_kind) {
		dst->quota_kind = calloc(n_quota_kind, sizeof(*dst->quota_kind));
		dst->n_quota_kind = n_quota_kind;
		i = 0;
		parg.rsp_policy = &iommu_account_quota_kind_info_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND) {
				parg.data = &dst->quota_kind[i];
				if (iommu_account_quota_kind_info_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_status_rsp *
iommu_account_get_status(struct ynl_sock *ys)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_status_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_STATUS, 1);
	ys->req_policy = &iommu_account_status_nest;
	yrs.yarg.rsp_policy = &iommu_account_status_nest;

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_status_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_STATUS;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_status_rsp_free(rsp);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_UID ============== */
/* IOMMU_ACCOUNT_CMD_GET_UID - do */
void iommu_account_get_uid_req_free(struct iommu_account_get_uid_req *req)
{
	free(req);
}

void iommu_account_get_uid_rsp_free(struct iommu_account_get_uid_rsp *rsp)
{
	unsigned int i;

	for (i = 0; i < rsp->n_consumer; i++)
		iommu_account_consumer_bytes_free(&rsp->consumer[i]);
	free(rsp->consumer);
	free(rsp);
}

int iommu_account_get_uid_rsp_parse(const struct nlmsghdr *nlh,
				    struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_uid_rsp *dst;
	unsigned int n_consumer = 0;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->consumer)
		return ynl_error_parse(yarg, "attribute already present (uid.consumer)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_UID_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_LOCKED_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.locked_bytes = 1;
			dst->locked_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_TASKS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tasks = 1;
			dst->tasks = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.memlock_min = 1;
			dst->memlock_min = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.memlock_max = 1;
			dst->memlock_max = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_HEADROOM) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.headroom = 1;
			dst->headroom = ynl_attr_get_s64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_CONSUMER) {
			n_consumer++;
		} else if (type == IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.unattributed_bytes = 1;
			dst->unattributed_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_PENDING_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pending_bytes = 1;
			dst->pending_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_CGROUPS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroups = 1;
			dst->cgroups = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_CHARGES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.charges = 1;
			dst->charges = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_REFUSALS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.refusals = 1;
			dst->refusals = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_INEXACT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.inexact = 1;
			dst->inexact = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iommufd_mm_bytes = 1;
			dst->iommufd_mm_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iommufd_exempt_bytes = 1;
			dst->iommufd_exempt_bytes = ynl_attr_get_u64(attr);
		}
	}

	if (n_consumer) {
		dst->consumer = calloc(n_consumer, sizeof(*dst->consumer));
		dst->n_consumer = n_consumer;
		i = 0;
		parg.rsp_policy = &iommu_account_consumer_bytes_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_UID_CONSUMER) {
				parg.data = &dst->consumer[i];
				if (iommu_account_consumer_bytes_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_uid_rsp *
iommu_account_get_uid(struct ynl_sock *ys,
		      struct iommu_account_get_uid_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_uid_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_UID, 1);
	ys->req_policy = &iommu_account_uid_nest;
	yrs.yarg.rsp_policy = &iommu_account_uid_nest;

	if (req->_present.uid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_UID, req->uid);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_uid_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_UID;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_uid_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_UID - dump */
void
iommu_account_get_uid_req_dump_free(struct iommu_account_get_uid_req_dump *req)
{
	free(req);
}

void iommu_account_get_uid_list_free(struct iommu_account_get_uid_list *rsp)
{
	struct iommu_account_get_uid_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		unsigned int i;

		rsp = next;
		next = rsp->next;

		for (i = 0; i < rsp->obj.n_consumer; i++)
			iommu_account_consumer_bytes_free(&rsp->obj.consumer[i]);
		free(rsp->obj.consumer);
		free(rsp);
	}
}

struct iommu_account_get_uid_list *
iommu_account_get_uid_dump(struct ynl_sock *ys,
			   struct iommu_account_get_uid_req_dump *req)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_uid_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_uid_list);
	yds.cb = iommu_account_get_uid_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_UID;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_UID, 1);
	ys->req_policy = &iommu_account_uid_nest;

	if (req->_present.uid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_UID, req->uid);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_uid_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_GROUP ============== */
/* IOMMU_ACCOUNT_CMD_GET_GROUP - do */
void iommu_account_get_group_req_free(struct iommu_account_get_group_req *req)
{
	free(req);
}

void iommu_account_get_group_rsp_free(struct iommu_account_get_group_rsp *rsp)
{
	unsigned int i;

	for (i = 0; i < rsp->n_device; i++)
		iommu_account_device_free(&rsp->device[i]);
	free(rsp->device);
	iommu_account_owner_free(&rsp->owner);
	free(rsp);
}

int iommu_account_get_group_rsp_parse(const struct nlmsghdr *nlh,
				      struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_group_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_device = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->device)
		return ynl_error_parse(yarg, "attribute already present (group.device)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_GROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_GROUP_DEVICE) {
			n_device++;
		} else if (type == IOMMU_ACCOUNT_A_GROUP_BACKEND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.backend = 1;
			dst->backend = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.container_id = 1;
			dst->container_id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_GROUP_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		}
	}

	if (n_device) {
		dst->device = calloc(n_device, sizeof(*dst->device));
		dst->n_device = n_device;
		i = 0;
		parg.rsp_policy = &iommu_account_device_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_GROUP_DEVICE) {
				parg.data = &dst->device[i];
				if (iommu_account_device_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_group_rsp *
iommu_account_get_group(struct ynl_sock *ys,
			struct iommu_account_get_group_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_group_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_GROUP, 1);
	ys->req_policy = &iommu_account_group_nest;
	yrs.yarg.rsp_policy = &iommu_account_group_nest;

	if (req->_present.id)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_GROUP_ID, req->id);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_group_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_GROUP;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_group_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_GROUP - dump */
void
iommu_account_get_group_list_free(struct iommu_account_get_group_list *rsp)
{
	struct iommu_account_get_group_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		unsigned int i;

		rsp = next;
		next = rsp->next;

		for (i = 0; i < rsp->obj.n_device; i++)
			iommu_account_device_free(&rsp->obj.device[i]);
		free(rsp->obj.device);
		iommu_account_owner_free(&rsp->obj.owner);
		free(rsp);
	}
}

struct iommu_account_get_group_list *
iommu_account_get_group_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_group_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_group_list);
	yds.cb = iommu_account_get_group_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_GROUP;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_GROUP, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_group_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_CONTAINER ============== */
/* IOMMU_ACCOUNT_CMD_GET_CONTAINER - do */
void
iommu_account_get_container_req_free(struct iommu_account_get_container_req *req)
{
	free(req);
}

void
iommu_account_get_container_rsp_free(struct iommu_account_get_container_rsp *rsp)
{
	free(rsp->group);
	iommu_account_owner_free(&rsp->owner);
	iommu_account_failure_free(&rsp->last_failure);
	free(rsp);
}

int iommu_account_get_container_rsp_parse(const struct nlmsghdr *nlh,
					  struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_container_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_group = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->group)
		return ynl_error_parse(yarg, "attribute already present (container.group)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_CONTAINER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_GROUP) {
			n_group++;
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_ENTRIES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.entries = 1;
			dst->entries = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit = 1;
			dst->limit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.mapped_bytes = 1;
			dst->mapped_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pinned_pages = 1;
			dst->pinned_pages = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pinned_uid = 1;
			dst->pinned_uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.map_ops = 1;
			dst->map_ops = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.unmap_ops = 1;
			dst->unmap_ops = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.fail_enospc = 1;
			dst->fail_enospc = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.fail_enomem = 1;
			dst->fail_enomem = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.fail_einval = 1;
			dst->fail_einval = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.fail_other = 1;
			dst->fail_other = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.last_failure = 1;

			parg.rsp_policy = &iommu_account_failure_nest;
			parg.data = &dst->last_failure;
			if (iommu_account_failure_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_CONTAINER_INEXACT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.inexact = 1;
			dst->inexact = ynl_attr_get_u32(attr);
		}
	}

	if (n_group) {
		dst->group = calloc(n_group, sizeof(*dst->group));
		dst->n_group = n_group;
		i = 0;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_CONTAINER_GROUP) {
				dst->group[i] = ynl_attr_get_u32(attr);
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_container_rsp *
iommu_account_get_container(struct ynl_sock *ys,
			    struct iommu_account_get_container_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_container_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_CONTAINER, 1);
	ys->req_policy = &iommu_account_container_nest;
	yrs.yarg.rsp_policy = &iommu_account_container_nest;

	if (req->_present.id)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_CONTAINER_ID, req->id);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_container_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_CONTAINER;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_container_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_CONTAINER - dump */
void
iommu_account_get_container_list_free(struct iommu_account_get_container_list *rsp)
{
	struct iommu_account_get_container_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		rsp = next;
		next = rsp->next;

		free(rsp->obj.group);
		iommu_account_owner_free(&rsp->obj.owner);
		iommu_account_failure_free(&rsp->obj.last_failure);
		free(rsp);
	}
}

struct iommu_account_get_container_list *
iommu_account_get_container_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_container_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_container_list);
	yds.cb = iommu_account_get_container_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_CONTAINER;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_CONTAINER, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_container_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_THRESHOLDS ============== */
/* IOMMU_ACCOUNT_CMD_GET_THRESHOLDS - do */
void
iommu_account_get_thresholds_req_free(struct iommu_account_get_thresholds_req *req)
{
	free(req);
}

void
iommu_account_get_thresholds_rsp_free(struct iommu_account_get_thresholds_rsp *rsp)
{
	free(rsp);
}

int iommu_account_get_thresholds_rsp_parse(const struct nlmsghdr *nlh,
					   struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_thresholds_rsp *dst;
	const struct nlattr *attr;

	dst = yarg->data;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_THRESHOLDS_WARN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.warn = 1;
			dst->warn = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_CRIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.crit = 1;
			dst->crit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.margin = 1;
			dst->margin = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_thresholds_rsp *
iommu_account_get_thresholds(struct ynl_sock *ys,
			     struct iommu_account_get_thresholds_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_thresholds_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS, 1);
	ys->req_policy = &iommu_account_thresholds_nest;
	yrs.yarg.rsp_policy = &iommu_account_thresholds_nest;

	if (req->_present.kind)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, req->kind);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_thresholds_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_THRESHOLDS;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_thresholds_rsp_free(rsp);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_SET_THRESHOLDS ============== */
/* IOMMU_ACCOUNT_CMD_SET_THRESHOLDS - do */
void
iommu_account_set_thresholds_req_free(struct iommu_account_set_thresholds_req *req)
{
	free(req);
}

void
iommu_account_set_thresholds_rsp_free(struct iommu_account_set_thresholds_rsp *rsp)
{
	free(rsp);
}

int iommu_account_set_thresholds_rsp_parse(const struct nlmsghdr *nlh,
					   struct ynl_parse_arg *yarg)
{
	struct iommu_account_set_thresholds_rsp *dst;
	const struct nlattr *attr;

	dst = yarg->data;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_THRESHOLDS_WARN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.warn = 1;
			dst->warn = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_CRIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.crit = 1;
			dst->crit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.margin = 1;
			dst->margin = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_set_thresholds_rsp *
iommu_account_set_thresholds(struct ynl_sock *ys,
			     struct iommu_account_set_thresholds_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_set_thresholds_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS, 1);
	ys->req_policy = &iommu_account_thresholds_nest;
	yrs.yarg.rsp_policy = &iommu_account_thresholds_nest;

	if (req->_present.warn)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, req->warn);
	if (req->_present.crit)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, req->crit);
	if (req->_present.kind)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND, req->kind);
	if (req->_present.margin)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN, req->margin);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_set_thresholds_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_SET_THRESHOLDS;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_set_thresholds_rsp_free(rsp);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_PROC ============== */
/* IOMMU_ACCOUNT_CMD_GET_PROC - do */
void iommu_account_get_proc_req_free(struct iommu_account_get_proc_req *req)
{
	free(req);
}

void iommu_account_get_proc_rsp_free(struct iommu_account_get_proc_rsp *rsp)
{
	unsigned int i;

	free(rsp->comm);
	for (i = 0; i < rsp->n_consumer; i++)
		iommu_account_consumer_bytes_free(&rsp->consumer[i]);
	free(rsp->consumer);
	free(rsp->cgroup);
	free(rsp);
}

int iommu_account_get_proc_rsp_parse(const struct nlmsghdr *nlh,
				     struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_proc_rsp *dst;
	unsigned int n_consumer = 0;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->consumer)
		return ynl_error_parse(yarg, "attribute already present (proc.consumer)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_PROC_PID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pid = 1;
			dst->pid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_COMM) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.comm_len = len;
			dst->comm = malloc(len + 1);
			memcpy(dst->comm, ynl_attr_get_str(attr), len);
			dst->comm[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_PROC_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.memlock_soft = 1;
			dst->memlock_soft = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.memlock_hard = 1;
			dst->memlock_hard = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_CONSUMER) {
			n_consumer++;
		} else if (type == IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.locked_vm_bytes = 1;
			dst->locked_vm_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pinned_vm_bytes = 1;
			dst->pinned_vm_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_RINGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rings = 1;
			dst->rings = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_PROC_CGROUP) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.cgroup_len = len;
			dst->cgroup = malloc(len + 1);
			memcpy(dst->cgroup, ynl_attr_get_str(attr), len);
			dst->cgroup[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_truncated = 1;
		} else if (type == IOMMU_ACCOUNT_A_PROC_URING_FDS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uring_fds = 1;
			dst->uring_fds = ynl_attr_get_u32(attr);
		}
	}

	if (n_consumer) {
		dst->consumer = calloc(n_consumer, sizeof(*dst->consumer));
		dst->n_consumer = n_consumer;
		i = 0;
		parg.rsp_policy = &iommu_account_consumer_bytes_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_PROC_CONSUMER) {
				parg.data = &dst->consumer[i];
				if (iommu_account_consumer_bytes_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_proc_rsp *
iommu_account_get_proc(struct ynl_sock *ys,
		       struct iommu_account_get_proc_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_proc_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_PROC, 1);
	ys->req_policy = &iommu_account_proc_nest;
	yrs.yarg.rsp_policy = &iommu_account_proc_nest;

	if (req->_present.pid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_PROC_PID, req->pid);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_proc_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_PROC;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_proc_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_PROC - dump */
void
iommu_account_get_proc_req_dump_free(struct iommu_account_get_proc_req_dump *req)
{
	free(req);
}

void iommu_account_get_proc_list_free(struct iommu_account_get_proc_list *rsp)
{
	struct iommu_account_get_proc_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		unsigned int i;

		rsp = next;
		next = rsp->next;

		free(rsp->obj.comm);
		for (i = 0; i < rsp->obj.n_consumer; i++)
			iommu_account_consumer_bytes_free(&rsp->obj.consumer[i]);
		free(rsp->obj.consumer);
		free(rsp->obj.cgroup);
		free(rsp);
	}
}

struct iommu_account_get_proc_list *
iommu_account_get_proc_dump(struct ynl_sock *ys,
			    struct iommu_account_get_proc_req_dump *req)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_proc_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_proc_list);
	yds.cb = iommu_account_get_proc_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_PROC;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_PROC, 1);
	ys->req_policy = &iommu_account_proc_nest;

	if (req->_present.uid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_PROC_UID, req->uid);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_proc_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_QUOTA ============== */
/* IOMMU_ACCOUNT_CMD_GET_QUOTA - do */
void iommu_account_get_quota_req_free(struct iommu_account_get_quota_req *req)
{
	free(req);
}

void iommu_account_get_quota_rsp_free(struct iommu_account_get_quota_rsp *rsp)
{
	unsigned int i;

	iommu_account_owner_free(&rsp->owner);
	free(rsp->name);
	iommu_account_failure_free(&rsp->last_failure);
	for (i = 0; i < rsp->n_ioas; i++)
		iommu_account_ioas_free(&rsp->ioas[i]);
	free(rsp->ioas);
	free(rsp);
}

int iommu_account_get_quota_rsp_parse(const struct nlmsghdr *nlh,
				      struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_quota_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_ioas = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->ioas)
		return ynl_error_parse(yarg, "attribute already present (quota.ioas)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_QUOTA_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_USED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.used = 1;
			dst->used = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit = 1;
			dst->limit = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_REFUSALS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.refusals = 1;
			dst->refusals = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_NAME) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.name_len = len;
			dst->name = malloc(len + 1);
			memcpy(dst->name, ynl_attr_get_str(attr), len);
			dst->name[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_PEAK) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.peak = 1;
			dst->peak = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_SUBMITTED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.submitted = 1;
			dst->submitted = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_COMPLETED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.completed = 1;
			dst->completed = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.deferred_now = 1;
			dst->deferred_now = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.deferred_total = 1;
			dst->deferred_total = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_WARN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.warn = 1;
			dst->warn = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_CRIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.crit = 1;
			dst->crit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_FLAGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.flags = 1;
			dst->flags = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.last_failure = 1;

			parg.rsp_policy = &iommu_account_failure_nest;
			parg.data = &dst->last_failure;
			if (iommu_account_failure_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iommufd_mode = 1;
			dst->iommufd_mode = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_MAPPINGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.mappings = 1;
			dst->mappings = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_DEVICES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.devices = 1;
			dst->devices = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_IOAS) {
			n_ioas++;
		} else if (type == IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit_min = 1;
			dst->limit_min = ynl_attr_get_u64(attr);
		}
	}

	if (n_ioas) {
		dst->ioas = calloc(n_ioas, sizeof(*dst->ioas));
		dst->n_ioas = n_ioas;
		i = 0;
		parg.rsp_policy = &iommu_account_ioas_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_QUOTA_IOAS) {
				parg.data = &dst->ioas[i];
				if (iommu_account_ioas_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_quota_rsp *
iommu_account_get_quota(struct ynl_sock *ys,
			struct iommu_account_get_quota_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_quota_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_QUOTA, 1);
	ys->req_policy = &iommu_account_quota_nest;
	yrs.yarg.rsp_policy = &iommu_account_quota_nest;

	if (req->_present.kind)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, req->kind);
	if (req->_present.id)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, req->id);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_quota_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_QUOTA;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_quota_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_QUOTA - dump */
void
iommu_account_get_quota_req_dump_free(struct iommu_account_get_quota_req_dump *req)
{
	free(req);
}

void
iommu_account_get_quota_list_free(struct iommu_account_get_quota_list *rsp)
{
	struct iommu_account_get_quota_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		unsigned int i;

		rsp = next;
		next = rsp->next;

		iommu_account_owner_free(&rsp->obj.owner);
		free(rsp->obj.name);
		iommu_account_failure_free(&rsp->obj.last_failure);
		for (i = 0; i < rsp->obj.n_ioas; i++)
			iommu_account_ioas_free(&rsp->obj.ioas[i]);
		free(rsp->obj.ioas);
		free(rsp);
	}
}

struct iommu_account_get_quota_list *
iommu_account_get_quota_dump(struct ynl_sock *ys,
			     struct iommu_account_get_quota_req_dump *req)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_quota_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_quota_list);
	yds.cb = iommu_account_get_quota_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_QUOTA;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_QUOTA, 1);
	ys->req_policy = &iommu_account_quota_nest;

	if (req->_present.kind)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, req->kind);
	if (req->_present.uid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_UID, req->uid);
	if (req->_present.pid)
		ynl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_PID, req->pid);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_quota_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE ============== */
/* IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE - do */
void
iommu_account_get_reset_scope_req_free(struct iommu_account_get_reset_scope_req *req)
{
	free(req->address);
	free(req);
}

void
iommu_account_get_reset_scope_rsp_free(struct iommu_account_get_reset_scope_rsp *rsp)
{
	unsigned int i;

	free(rsp->address);
	for (i = 0; i < rsp->n_affected; i++)
		iommu_account_reset_device_free(&rsp->affected[i]);
	free(rsp->affected);
	free(rsp);
}

int iommu_account_get_reset_scope_rsp_parse(const struct nlmsghdr *nlh,
					    struct ynl_parse_arg *yarg)
{
	struct iommu_account_get_reset_scope_rsp *dst;
	unsigned int n_affected = 0;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->affected)
		return ynl_error_parse(yarg, "attribute already present (reset.affected)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_RESET_ADDRESS) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.address_len = len;
			dst->address = malloc(len + 1);
			memcpy(dst->address, ynl_attr_get_str(attr), len);
			dst->address[len] = 0;
		} else if (type == IOMMU_ACCOUNT_A_RESET_SCOPE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.scope = 1;
			dst->scope = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_GROUP) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.group = 1;
			dst->group = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_AFFECTED) {
			n_affected++;
		} else if (type == IOMMU_ACCOUNT_A_RESET_SET_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.set_kind = 1;
			dst->set_kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_RESET_VFIO_DEVICE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.vfio_device = 1;
		}
	}

	if (n_affected) {
		dst->affected = calloc(n_affected, sizeof(*dst->affected));
		dst->n_affected = n_affected;
		i = 0;
		parg.rsp_policy = &iommu_account_reset_device_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_RESET_AFFECTED) {
				parg.data = &dst->affected[i];
				if (iommu_account_reset_device_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct iommu_account_get_reset_scope_rsp *
iommu_account_get_reset_scope(struct ynl_sock *ys,
			      struct iommu_account_get_reset_scope_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct iommu_account_get_reset_scope_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE, 1);
	ys->req_policy = &iommu_account_reset_nest;
	yrs.yarg.rsp_policy = &iommu_account_reset_nest;

	if (req->_present.address_len)
		ynl_attr_put_str(nlh, IOMMU_ACCOUNT_A_RESET_ADDRESS, req->address);

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = iommu_account_get_reset_scope_rsp_parse;
	yrs.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	iommu_account_get_reset_scope_rsp_free(rsp);
	return NULL;
}

/* IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE - dump */
void
iommu_account_get_reset_scope_list_free(struct iommu_account_get_reset_scope_list *rsp)
{
	struct iommu_account_get_reset_scope_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		unsigned int i;

		rsp = next;
		next = rsp->next;

		free(rsp->obj.address);
		for (i = 0; i < rsp->obj.n_affected; i++)
			iommu_account_reset_device_free(&rsp->obj.affected[i]);
		free(rsp->obj.affected);
		free(rsp);
	}
}

struct iommu_account_get_reset_scope_list *
iommu_account_get_reset_scope_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &iommu_account_reset_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct iommu_account_get_reset_scope_list);
	yds.cb = iommu_account_get_reset_scope_rsp_parse;
	yds.rsp_cmd = IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	iommu_account_get_reset_scope_list_free(yds.first);
	return NULL;
}

/* ============== IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS ============== */
/* IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS - do */
int iommu_account_subscribe_events(struct ynl_sock *ys)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS, 1);
	ys->req_policy = &iommu_account_status_nest;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		return -1;

	return 0;
}

/* IOMMU_ACCOUNT_CMD_EVENT - event */
int iommu_account_event_rsp_parse(const struct nlmsghdr *nlh,
				  struct ynl_parse_arg *yarg)
{
	struct iommu_account_event_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_group = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->group)
		return ynl_error_parse(yarg, "attribute already present (event.group)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == IOMMU_ACCOUNT_A_EVENT_SEQ) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.seq = 1;
			dst->seq = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_TYPE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.type = 1;
			dst->type = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_TIME_NS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.time_ns = 1;
			dst->time_ns = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.container_id = 1;
			dst->container_id = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_GROUP) {
			n_group++;
		} else if (type == IOMMU_ACCOUNT_A_EVENT_ENTRIES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.entries = 1;
			dst->entries = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.limit = 1;
			dst->limit = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_OWNER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.owner = 1;

			parg.rsp_policy = &iommu_account_owner_nest;
			parg.data = &dst->owner;
			if (iommu_account_owner_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_EVENT_ERRNO) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.errno_ = 1;
			dst->errno_ = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_IOVA) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.iova = 1;
			dst->iova = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_SIZE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.size = 1;
			dst->size = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.locked_bytes = 1;
			dst->locked_bytes = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.memlock_limit = 1;
			dst->memlock_limit = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_LEVEL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.level = 1;
			dst->level = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_THRESHOLD) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.threshold = 1;
			dst->threshold = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_COUNT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.count = 1;
			dst->count = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.group_count = 1;
			dst->group_count = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_KIND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.kind = 1;
			dst->kind = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_CONSUMER) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.consumer = 1;
			dst->consumer = ynl_attr_get_u32(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_CGROUP_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cgroup_id = 1;
			dst->cgroup_id = ynl_attr_get_u64(attr);
		} else if (type == IOMMU_ACCOUNT_A_EVENT_QUOTA) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.quota = 1;

			parg.rsp_policy = &iommu_account_quota_info_nest;
			parg.data = &dst->quota;
			if (iommu_account_quota_info_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == IOMMU_ACCOUNT_A_EVENT_IOAS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ioas = 1;
			dst->ioas = ynl_attr_get_u32(attr);
		}
	}

	if (n_group) {
		dst->group = calloc(n_group, sizeof(*dst->group));
		dst->n_group = n_group;
		i = 0;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == IOMMU_ACCOUNT_A_EVENT_GROUP) {
				dst->group[i] = ynl_attr_get_u32(attr);
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

void iommu_account_event_free(struct iommu_account_event *rsp)
{
	free(rsp->obj.group);
	iommu_account_owner_free(&rsp->obj.owner);
	iommu_account_quota_info_free(&rsp->obj.quota);
	free(rsp);
}

static const struct ynl_ntf_info iommu_account_ntf_info[] =  {
	[IOMMU_ACCOUNT_CMD_EVENT] =  {
		.alloc_sz	= sizeof(struct iommu_account_event),
		.cb		= iommu_account_event_rsp_parse,
		.policy		= &iommu_account_event_nest,
		.free		= (void *)iommu_account_event_free,
	},
};

const struct ynl_family ynl_iommu_account_family =  {
	.name		= "iommu_account",
	.hdr_len	= sizeof(struct genlmsghdr),
	.ntf_info	= iommu_account_ntf_info,
	.ntf_info_size	= YNL_ARRAY_SIZE(iommu_account_ntf_info),
};
