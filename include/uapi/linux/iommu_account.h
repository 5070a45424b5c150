/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/iommu_account.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_IOMMU_ACCOUNT_H
#define _UAPI_LINUX_IOMMU_ACCOUNT_H

#define IOMMU_ACCOUNT_FAMILY_NAME	"iommu_account"
#define IOMMU_ACCOUNT_FAMILY_VERSION	1

/**
 * enum iommu_account_feature_state - Whether a data source of the module works
 *   on the running kernel.
 * @IOMMU_ACCOUNT_FEATURE_STATE_UNAVAILABLE: The symbol, hook or field this
 *   feature needs is missing on this kernel; the rest of the module works. The
 *   feature's detail string says what is missing.
 * @IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE: The feature is in use.
 */
enum iommu_account_feature_state {
	IOMMU_ACCOUNT_FEATURE_STATE_UNAVAILABLE,
	IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE,
};

enum {
	IOMMU_ACCOUNT_A_FEATURE_NAME = 1,
	IOMMU_ACCOUNT_A_FEATURE_STATE,
	IOMMU_ACCOUNT_A_FEATURE_DETAIL,

	__IOMMU_ACCOUNT_A_FEATURE_MAX,
	IOMMU_ACCOUNT_A_FEATURE_MAX = (__IOMMU_ACCOUNT_A_FEATURE_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_STATUS_MODULE_VERSION = 1,
	IOMMU_ACCOUNT_A_STATUS_KERNEL_RELEASE,
	IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE,
	IOMMU_ACCOUNT_A_STATUS_FEATURE,

	__IOMMU_ACCOUNT_A_STATUS_MAX,
	IOMMU_ACCOUNT_A_STATUS_MAX = (__IOMMU_ACCOUNT_A_STATUS_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_UID_PAD = 1,
	IOMMU_ACCOUNT_A_UID_UID,
	IOMMU_ACCOUNT_A_UID_LOCKED_BYTES,
	IOMMU_ACCOUNT_A_UID_TASKS,
	IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN,
	IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX,
	IOMMU_ACCOUNT_A_UID_HEADROOM,

	__IOMMU_ACCOUNT_A_UID_MAX,
	IOMMU_ACCOUNT_A_UID_MAX = (__IOMMU_ACCOUNT_A_UID_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_CMD_GET_STATUS = 1,
	IOMMU_ACCOUNT_CMD_GET_UID,

	__IOMMU_ACCOUNT_CMD_MAX,
	IOMMU_ACCOUNT_CMD_MAX = (__IOMMU_ACCOUNT_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_IOMMU_ACCOUNT_H */
