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

/**
 * enum iommu_account_group_backend - What an IOMMU group is attached to.
 * @IOMMU_ACCOUNT_GROUP_BACKEND_NONE: Not attached to anything this module
 *   sees.
 * @IOMMU_ACCOUNT_GROUP_BACKEND_VFIO_CONTAINER: A VFIO type1 container (legacy
 *   /dev/vfio/vfio).
 * @IOMMU_ACCOUNT_GROUP_BACKEND_IOMMUFD: An iommufd context.
 */
enum iommu_account_group_backend {
	IOMMU_ACCOUNT_GROUP_BACKEND_NONE,
	IOMMU_ACCOUNT_GROUP_BACKEND_VFIO_CONTAINER,
	IOMMU_ACCOUNT_GROUP_BACKEND_IOMMUFD,
};

/**
 * enum iommu_account_event_type
 * @IOMMU_ACCOUNT_EVENT_TYPE_FAILURE: A DMA mapping was refused
 *   (VFIO_IOMMU_MAP_DMA failed). errno says why: ENOSPC for dma_entry_limit,
 *   ENOMEM for RLIMIT_MEMLOCK (then locked-bytes and memlock-limit are the
 *   mapper's figures). For a uid pot: a charge was refused (ENOMEM from
 *   io_uring, ENOBUFS from AF_XDP umem registration).
 * @IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD: A container's live entries reached a
 *   configured fraction of its limit (on the way up), in the mapping path
 *   itself.
 * @IOMMU_ACCOUNT_EVENT_TYPE_GONE: A published quota object (qpair) went away:
 *   its last file descriptor was closed (the owner closed it or exited).
 *   Reported once, with its last values in the quota nest; used is what was
 *   still outstanding. The object is removed after it.
 */
enum iommu_account_event_type {
	IOMMU_ACCOUNT_EVENT_TYPE_FAILURE,
	IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD,
	IOMMU_ACCOUNT_EVENT_TYPE_GONE,
};

enum iommu_account_threshold_level {
	IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN,
	IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT,
};

/**
 * enum iommu_account_inexact - Why a container's figures may be inexact.
 * @IOMMU_ACCOUNT_INEXACT_PROBE_MISSED: The MAP_DMA return probe ran out of
 *   instances while this container lived: some refusals may not be counted.
 * @IOMMU_ACCOUNT_INEXACT_NO_MEMORY: A mapping or group record could not be
 *   allocated.
 * @IOMMU_ACCOUNT_INEXACT_PINNED: An unpin was larger than the pages this
 *   module saw pinned.
 * @IOMMU_ACCOUNT_INEXACT_UNPINNED: A mapping was made while no IOMMU-backed
 *   group was attached (mediated devices only): the kernel linked it without
 *   pinning it, which this module does not see, so entries and bytes leave it
 *   out.
 */
enum iommu_account_inexact {
	IOMMU_ACCOUNT_INEXACT_PROBE_MISSED = 1,
	IOMMU_ACCOUNT_INEXACT_NO_MEMORY = 2,
	IOMMU_ACCOUNT_INEXACT_PINNED = 4,
	IOMMU_ACCOUNT_INEXACT_UNPINNED = 8,
};

/**
 * enum iommu_account_quota_kind - Which quota an event or a thresholds request
 *   is about.
 * @IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER: A VFIO type1 container's DMA
 *   mapping entries (dma_entry_limit).
 * @IOMMU_ACCOUNT_QUOTA_KIND_UID_POT: A uid's locked-memory pot
 *   (user_struct->locked_vm) against the charging process's RLIMIT_MEMLOCK.
 * @IOMMU_ACCOUNT_QUOTA_KIND_QPAIR: A user-space queue pair's request
 *   descriptors (an SPDK NVMe qpair's io_queue_requests), published by the
 *   application through /dev/iommu-account and libiommu-account: the kernel
 *   cannot see these pools, so their figures are the publisher's.
 * @IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX: An iommufd context (an open
 *   /dev/iommu, or the /dev/vfio/vfio container iommufd provides): the bytes
 *   its IOAS mappings pinned. It has no limit of its own in user mode (the
 *   uid-pot refuses) or when exempt; in mm mode the mapping process's
 *   RLIMIT_MEMLOCK refuses, checked against its whole mm->locked_vm.
 */
enum iommu_account_quota_kind {
	IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER,
	IOMMU_ACCOUNT_QUOTA_KIND_UID_POT,
	IOMMU_ACCOUNT_QUOTA_KIND_QPAIR,
	IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX,
};

/**
 * enum iommu_account_reset_scope - What VFIO_DEVICE_PCI_HOT_RESET of a device
 *   would reset, decided as vfio-pci decides it: a slot reset when
 *   pci_probe_reset_slot() accepts the device's slot, else a bus reset when
 *   pci_probe_reset_bus() accepts its bus, else none.
 * @IOMMU_ACCOUNT_RESET_SCOPE_NONE: Neither; the kernel answers the hot-reset
 *   ioctls with ENODEV.
 * @IOMMU_ACCOUNT_RESET_SCOPE_SLOT: The devices below the device's hotplug
 *   slot.
 * @IOMMU_ACCOUNT_RESET_SCOPE_BUS: Every device on the device's bus and the
 *   buses below it.
 */
enum iommu_account_reset_scope {
	IOMMU_ACCOUNT_RESET_SCOPE_NONE,
	IOMMU_ACCOUNT_RESET_SCOPE_SLOT,
	IOMMU_ACCOUNT_RESET_SCOPE_BUS,
};

/**
 * enum iommu_account_reset_holder - Who holds an affected device's IOMMU
 *   group, as the caller sees it.
 * @IOMMU_ACCOUNT_RESET_HOLDER_NONE: No container or iommufd of this module's
 *   knowledge holds it.
 * @IOMMU_ACCOUNT_RESET_HOLDER_CALLER: A container whose owner has the caller's
 *   real uid.
 * @IOMMU_ACCOUNT_RESET_HOLDER_OTHER: Someone else's container (its owner is
 *   shown only to callers with CAP_SYS_ADMIN).
 */
enum iommu_account_reset_holder {
	IOMMU_ACCOUNT_RESET_HOLDER_NONE,
	IOMMU_ACCOUNT_RESET_HOLDER_CALLER,
	IOMMU_ACCOUNT_RESET_HOLDER_OTHER,
};

/**
 * enum iommu_account_reset_set - Where an affected device stands in vfio-pci's
 *   reset set ("dev_set") of the surveyed device. vfio-pci refuses
 *   VFIO_DEVICE_PCI_HOT_RESET with EINVAL unless every device the reset
 *   reaches is a VFIO device of the caller's reset set, whatever group fds the
 *   caller presents. Each bound device joins a set as
 *   vfio_pci_core_register_device() decides: one of its own on the root bus
 *   and for an SR-IOV VF, else its slot's when the slot can be reset, else its
 *   bus's.
 * @IOMMU_ACCOUNT_RESET_SET_SAME: In the surveyed device's set (a VFIO device),
 *   or, not bound to a VFIO PCI driver, would join it if bound to vfio-pci
 *   now.
 * @IOMMU_ACCOUNT_RESET_SET_OTHER: In another set, or would join another: an
 *   SR-IOV VF (a set of its own), a device on a bus below a bridge. The kernel
 *   refuses a reset that reaches it, whatever anybody holds.
 * @IOMMU_ACCOUNT_RESET_SET_NEVER: In no set ever: a bridge, or another device
 *   vfio-pci cannot drive (header type not 0). The kernel refuses a reset that
 *   reaches it, whatever anybody holds.
 */
enum iommu_account_reset_set {
	IOMMU_ACCOUNT_RESET_SET_SAME,
	IOMMU_ACCOUNT_RESET_SET_OTHER,
	IOMMU_ACCOUNT_RESET_SET_NEVER,
};

/**
 * enum iommu_account_reset_set_kind - What the surveyed device's reset set is
 *   keyed on.
 * @IOMMU_ACCOUNT_RESET_SET_KIND_DEVICE: The device alone (on the root bus, or
 *   an SR-IOV VF).
 * @IOMMU_ACCOUNT_RESET_SET_KIND_SLOT: Its hotplug slot (the slot can be
 *   reset).
 * @IOMMU_ACCOUNT_RESET_SET_KIND_BUS: Its bus.
 */
enum iommu_account_reset_set_kind {
	IOMMU_ACCOUNT_RESET_SET_KIND_DEVICE,
	IOMMU_ACCOUNT_RESET_SET_KIND_SLOT,
	IOMMU_ACCOUNT_RESET_SET_KIND_BUS,
};

/**
 * enum iommu_account_quota_flags - Flags of a quota object (the state of a
 *   published one's figures; an iommufd context's origin).
 * @IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT: The publisher's figures
 *   contradicted themselves at least once (in use above the capacity,
 *   completions above submissions, a count that went backwards): they were
 *   clamped, and may be wrong. Only the publisher's own object is affected.
 * @IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT: iommufd-ctx - the context is the
 *   /dev/vfio/vfio container that iommufd provides
 *   (CONFIG_IOMMUFD_VFIO_CONTAINER): a VFIO type1 client's mappings, with no
 *   dma_entry_limit, charged in mm mode from the start.
 * @IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST: uid-pot - no charge to the pot
 *   was seen since the module loaded, so limit is the smallest RLIMIT_MEMLOCK
 *   among the uid's live processes (limit-min), not the limit of a process
 *   that charges it: which one charges next is not known.
 */
enum iommu_account_quota_flags {
	IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT = 1,
	IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT = 2,
	IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST = 4,
};

/**
 * enum iommu_account_iommufd_mode - Where an iommufd context's pins are
 *   charged.
 * @IOMMU_ACCOUNT_IOMMUFD_MODE_UNKNOWN: Nothing pinned since the module loaded,
 *   so not known yet.
 * @IOMMU_ACCOUNT_IOMMUFD_MODE_USER: The mapping user's pot
 *   (user_struct->locked_vm), against the mapper's RLIMIT_MEMLOCK:
 *   IOPT_PAGES_ACCOUNT_USER, the default.
 * @IOMMU_ACCOUNT_IOMMUFD_MODE_MM: The mapping process's mm->locked_vm, against
 *   its RLIMIT_MEMLOCK: IOMMU_OPTION_RLIMIT_MODE 1, and the /dev/vfio/vfio
 *   container.
 * @IOMMU_ACCOUNT_IOMMUFD_MODE_NONE: No counter, because the mapper had
 *   CAP_IPC_LOCK.
 */
enum iommu_account_iommufd_mode {
	IOMMU_ACCOUNT_IOMMUFD_MODE_UNKNOWN,
	IOMMU_ACCOUNT_IOMMUFD_MODE_USER,
	IOMMU_ACCOUNT_IOMMUFD_MODE_MM,
	IOMMU_ACCOUNT_IOMMUFD_MODE_NONE,
};

/**
 * enum iommu_account_consumer - What charged the per-uid pot, decided by the
 *   kernel function that made the charge (its call site), not by kernel
 *   version.
 * @IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS: io_uring registered buffers
 *   (IORING_REGISTER_BUFFERS and updates).
 * @IOMMU_ACCOUNT_CONSUMER_IO_URING_RINGS: io_uring ring and region memory
 *   (charged on some kernels only).
 * @IOMMU_ACCOUNT_CONSUMER_IO_URING_ZEROCOPY: io_uring zero-copy send
 *   notifications.
 * @IOMMU_ACCOUNT_CONSUMER_IO_URING_OTHER: Another io_uring call site of
 *   __io_account_mem.
 * @IOMMU_ACCOUNT_CONSUMER_XDP_UMEM: AF_XDP umems (XDP_UMEM_REG), charged to
 *   the registering user; refused with ENOBUFS past RLIMIT_MEMLOCK.
 * @IOMMU_ACCOUNT_CONSUMER_IOMMUFD: iommufd IOAS mappings (IOMMU_IOAS_MAP, and
 *   COPY of them), charged to the mapping user when their pages are pinned (a
 *   domain or an access attached); refused with ENOMEM past the pinning
 *   process's RLIMIT_MEMLOCK. Pins of a context in per-process mode
 *   (IOMMU_OPTION_RLIMIT_MODE) and of a mapper with CAP_IPC_LOCK are not in
 *   the pot: iommufd-mm-bytes and iommufd-exempt-bytes.
 */
enum iommu_account_consumer {
	IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS,
	IOMMU_ACCOUNT_CONSUMER_IO_URING_RINGS,
	IOMMU_ACCOUNT_CONSUMER_IO_URING_ZEROCOPY,
	IOMMU_ACCOUNT_CONSUMER_IO_URING_OTHER,
	IOMMU_ACCOUNT_CONSUMER_XDP_UMEM,
	IOMMU_ACCOUNT_CONSUMER_IOMMUFD,
};

/**
 * enum iommu_account_uid_inexact - Why a uid's breakdown may be inexact
 *   (locked-bytes is always exact).
 * @IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED: A charge or release probe ran out
 *   of instances.
 * @IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY: A charge record, or the uid's own
 *   entry, could not be allocated.
 * @IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS: Registered buffers were cloned
 *   between rings; a release of a shared buffer may be attributed before the
 *   kernel releases it.
 */
enum iommu_account_uid_inexact {
	IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED = 1,
	IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY = 2,
	IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS = 4,
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
	IOMMU_ACCOUNT_A_STATUS_PAD,
	IOMMU_ACCOUNT_A_STATUS_EVENTS_DROPPED,
	IOMMU_ACCOUNT_A_STATUS_PROBES_MISSED,
	IOMMU_ACCOUNT_A_STATUS_VFIO_UNTRACKED,
	IOMMU_ACCOUNT_A_STATUS_QUOTA_KIND,
	IOMMU_ACCOUNT_A_STATUS_EVENTS_SEQ,
	IOMMU_ACCOUNT_A_STATUS_EVENTS_COALESCED,
	IOMMU_ACCOUNT_A_STATUS_EVENTS_SUPPRESSED,
	IOMMU_ACCOUNT_A_STATUS_FAILURES_SUPPRESSED,
	IOMMU_ACCOUNT_A_STATUS_FAILURES_DROPPED,
	IOMMU_ACCOUNT_A_STATUS_BUDGET,

	__IOMMU_ACCOUNT_A_STATUS_MAX,
	IOMMU_ACCOUNT_A_STATUS_MAX = (__IOMMU_ACCOUNT_A_STATUS_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_EVENT_BUDGET_UID = 1,
	IOMMU_ACCOUNT_A_EVENT_BUDGET_SUPPRESSED,
	IOMMU_ACCOUNT_A_EVENT_BUDGET_FAILURES_SUPPRESSED,
	IOMMU_ACCOUNT_A_EVENT_BUDGET_PAD,

	__IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX,
	IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX = (__IOMMU_ACCOUNT_A_EVENT_BUDGET_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_KIND = 1,
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_NAME,
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_UNIT,
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_PAD,
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_REFUSALS,

	__IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX,
	IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX = (__IOMMU_ACCOUNT_A_QUOTA_KIND_INFO_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_QUOTA_PAD = 1,
	IOMMU_ACCOUNT_A_QUOTA_KIND,
	IOMMU_ACCOUNT_A_QUOTA_ID,
	IOMMU_ACCOUNT_A_QUOTA_USED,
	IOMMU_ACCOUNT_A_QUOTA_LIMIT,
	IOMMU_ACCOUNT_A_QUOTA_UID,
	IOMMU_ACCOUNT_A_QUOTA_OWNER,
	IOMMU_ACCOUNT_A_QUOTA_REFUSALS,
	IOMMU_ACCOUNT_A_QUOTA_PID,
	IOMMU_ACCOUNT_A_QUOTA_NAME,
	IOMMU_ACCOUNT_A_QUOTA_CGROUP_ID,
	IOMMU_ACCOUNT_A_QUOTA_PEAK,
	IOMMU_ACCOUNT_A_QUOTA_SUBMITTED,
	IOMMU_ACCOUNT_A_QUOTA_COMPLETED,
	IOMMU_ACCOUNT_A_QUOTA_DEFERRED_NOW,
	IOMMU_ACCOUNT_A_QUOTA_DEFERRED_TOTAL,
	IOMMU_ACCOUNT_A_QUOTA_WARN,
	IOMMU_ACCOUNT_A_QUOTA_CRIT,
	IOMMU_ACCOUNT_A_QUOTA_FLAGS,
	IOMMU_ACCOUNT_A_QUOTA_LAST_FAILURE,
	IOMMU_ACCOUNT_A_QUOTA_IOMMUFD_MODE,
	IOMMU_ACCOUNT_A_QUOTA_MAPPINGS,
	IOMMU_ACCOUNT_A_QUOTA_DEVICES,
	IOMMU_ACCOUNT_A_QUOTA_IOAS,
	IOMMU_ACCOUNT_A_QUOTA_LIMIT_MIN,

	__IOMMU_ACCOUNT_A_QUOTA_MAX,
	IOMMU_ACCOUNT_A_QUOTA_MAX = (__IOMMU_ACCOUNT_A_QUOTA_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_IOAS_PAD = 1,
	IOMMU_ACCOUNT_A_IOAS_ID,
	IOMMU_ACCOUNT_A_IOAS_AREAS,
	IOMMU_ACCOUNT_A_IOAS_BYTES,
	IOMMU_ACCOUNT_A_IOAS_PINNED,

	__IOMMU_ACCOUNT_A_IOAS_MAX,
	IOMMU_ACCOUNT_A_IOAS_MAX = (__IOMMU_ACCOUNT_A_IOAS_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_UID_PAD = 1,
	IOMMU_ACCOUNT_A_UID_UID,
	IOMMU_ACCOUNT_A_UID_LOCKED_BYTES,
	IOMMU_ACCOUNT_A_UID_TASKS,
	IOMMU_ACCOUNT_A_UID_MEMLOCK_MIN,
	IOMMU_ACCOUNT_A_UID_MEMLOCK_MAX,
	IOMMU_ACCOUNT_A_UID_HEADROOM,
	IOMMU_ACCOUNT_A_UID_CONSUMER,
	IOMMU_ACCOUNT_A_UID_UNATTRIBUTED_BYTES,
	IOMMU_ACCOUNT_A_UID_PENDING_BYTES,
	IOMMU_ACCOUNT_A_UID_CGROUPS,
	IOMMU_ACCOUNT_A_UID_CHARGES,
	IOMMU_ACCOUNT_A_UID_REFUSALS,
	IOMMU_ACCOUNT_A_UID_INEXACT,
	IOMMU_ACCOUNT_A_UID_IOMMUFD_MM_BYTES,
	IOMMU_ACCOUNT_A_UID_IOMMUFD_EXEMPT_BYTES,

	__IOMMU_ACCOUNT_A_UID_MAX,
	IOMMU_ACCOUNT_A_UID_MAX = (__IOMMU_ACCOUNT_A_UID_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_OWNER_PID = 1,
	IOMMU_ACCOUNT_A_OWNER_UID,
	IOMMU_ACCOUNT_A_OWNER_COMM,
	IOMMU_ACCOUNT_A_OWNER_CGROUP_ID,
	IOMMU_ACCOUNT_A_OWNER_PAD,

	__IOMMU_ACCOUNT_A_OWNER_MAX,
	IOMMU_ACCOUNT_A_OWNER_MAX = (__IOMMU_ACCOUNT_A_OWNER_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_DEVICE_ADDRESS = 1,
	IOMMU_ACCOUNT_A_DEVICE_VENDOR,
	IOMMU_ACCOUNT_A_DEVICE_DEVICE,
	IOMMU_ACCOUNT_A_DEVICE_DRIVER,

	__IOMMU_ACCOUNT_A_DEVICE_MAX,
	IOMMU_ACCOUNT_A_DEVICE_MAX = (__IOMMU_ACCOUNT_A_DEVICE_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_GROUP_ID = 1,
	IOMMU_ACCOUNT_A_GROUP_DEVICE,
	IOMMU_ACCOUNT_A_GROUP_BACKEND,
	IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID,
	IOMMU_ACCOUNT_A_GROUP_OWNER,

	__IOMMU_ACCOUNT_A_GROUP_MAX,
	IOMMU_ACCOUNT_A_GROUP_MAX = (__IOMMU_ACCOUNT_A_GROUP_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_FAILURE_PAD = 1,
	IOMMU_ACCOUNT_A_FAILURE_TIME_NS,
	IOMMU_ACCOUNT_A_FAILURE_ERRNO,
	IOMMU_ACCOUNT_A_FAILURE_IOVA,
	IOMMU_ACCOUNT_A_FAILURE_SIZE,
	IOMMU_ACCOUNT_A_FAILURE_OWNER,
	IOMMU_ACCOUNT_A_FAILURE_CGROUP_ID,
	IOMMU_ACCOUNT_A_FAILURE_CGROUP,
	IOMMU_ACCOUNT_A_FAILURE_IOAS,
	IOMMU_ACCOUNT_A_FAILURE_CGROUP_TRUNCATED,

	__IOMMU_ACCOUNT_A_FAILURE_MAX,
	IOMMU_ACCOUNT_A_FAILURE_MAX = (__IOMMU_ACCOUNT_A_FAILURE_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_CONTAINER_PAD = 1,
	IOMMU_ACCOUNT_A_CONTAINER_ID,
	IOMMU_ACCOUNT_A_CONTAINER_GROUP,
	IOMMU_ACCOUNT_A_CONTAINER_ENTRIES,
	IOMMU_ACCOUNT_A_CONTAINER_LIMIT,
	IOMMU_ACCOUNT_A_CONTAINER_MAPPED_BYTES,
	IOMMU_ACCOUNT_A_CONTAINER_PINNED_PAGES,
	IOMMU_ACCOUNT_A_CONTAINER_PINNED_UID,
	IOMMU_ACCOUNT_A_CONTAINER_OWNER,
	IOMMU_ACCOUNT_A_CONTAINER_MAP_OPS,
	IOMMU_ACCOUNT_A_CONTAINER_UNMAP_OPS,
	IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOSPC,
	IOMMU_ACCOUNT_A_CONTAINER_FAIL_ENOMEM,
	IOMMU_ACCOUNT_A_CONTAINER_FAIL_EINVAL,
	IOMMU_ACCOUNT_A_CONTAINER_FAIL_OTHER,
	IOMMU_ACCOUNT_A_CONTAINER_LAST_FAILURE,
	IOMMU_ACCOUNT_A_CONTAINER_INEXACT,

	__IOMMU_ACCOUNT_A_CONTAINER_MAX,
	IOMMU_ACCOUNT_A_CONTAINER_MAX = (__IOMMU_ACCOUNT_A_CONTAINER_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_CONSUMER_BYTES_PAD = 1,
	IOMMU_ACCOUNT_A_CONSUMER_BYTES_CONSUMER,
	IOMMU_ACCOUNT_A_CONSUMER_BYTES_BYTES,

	__IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX,
	IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX = (__IOMMU_ACCOUNT_A_CONSUMER_BYTES_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_PROC_PAD = 1,
	IOMMU_ACCOUNT_A_PROC_PID,
	IOMMU_ACCOUNT_A_PROC_UID,
	IOMMU_ACCOUNT_A_PROC_COMM,
	IOMMU_ACCOUNT_A_PROC_CGROUP_ID,
	IOMMU_ACCOUNT_A_PROC_MEMLOCK_SOFT,
	IOMMU_ACCOUNT_A_PROC_MEMLOCK_HARD,
	IOMMU_ACCOUNT_A_PROC_CONSUMER,
	IOMMU_ACCOUNT_A_PROC_LOCKED_VM_BYTES,
	IOMMU_ACCOUNT_A_PROC_PINNED_VM_BYTES,
	IOMMU_ACCOUNT_A_PROC_RINGS,
	IOMMU_ACCOUNT_A_PROC_CGROUP,
	IOMMU_ACCOUNT_A_PROC_URING_FDS,
	IOMMU_ACCOUNT_A_PROC_CGROUP_TRUNCATED,

	__IOMMU_ACCOUNT_A_PROC_MAX,
	IOMMU_ACCOUNT_A_PROC_MAX = (__IOMMU_ACCOUNT_A_PROC_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_RESET_DEVICE_ADDRESS = 1,
	IOMMU_ACCOUNT_A_RESET_DEVICE_VENDOR,
	IOMMU_ACCOUNT_A_RESET_DEVICE_DEVICE,
	IOMMU_ACCOUNT_A_RESET_DEVICE_DRIVER,
	IOMMU_ACCOUNT_A_RESET_DEVICE_GROUP,
	IOMMU_ACCOUNT_A_RESET_DEVICE_HOLDER,
	IOMMU_ACCOUNT_A_RESET_DEVICE_CONTAINER_ID,
	IOMMU_ACCOUNT_A_RESET_DEVICE_OWNER,
	IOMMU_ACCOUNT_A_RESET_DEVICE_RESET_SET,
	IOMMU_ACCOUNT_A_RESET_DEVICE_VFIO_DEVICE,
	IOMMU_ACCOUNT_A_RESET_DEVICE_VIRTFN,

	__IOMMU_ACCOUNT_A_RESET_DEVICE_MAX,
	IOMMU_ACCOUNT_A_RESET_DEVICE_MAX = (__IOMMU_ACCOUNT_A_RESET_DEVICE_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_RESET_ADDRESS = 1,
	IOMMU_ACCOUNT_A_RESET_SCOPE,
	IOMMU_ACCOUNT_A_RESET_GROUP,
	IOMMU_ACCOUNT_A_RESET_AFFECTED,
	IOMMU_ACCOUNT_A_RESET_SET_KIND,
	IOMMU_ACCOUNT_A_RESET_VFIO_DEVICE,

	__IOMMU_ACCOUNT_A_RESET_MAX,
	IOMMU_ACCOUNT_A_RESET_MAX = (__IOMMU_ACCOUNT_A_RESET_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_THRESHOLDS_WARN = 1,
	IOMMU_ACCOUNT_A_THRESHOLDS_CRIT,
	IOMMU_ACCOUNT_A_THRESHOLDS_KIND,
	IOMMU_ACCOUNT_A_THRESHOLDS_MARGIN,

	__IOMMU_ACCOUNT_A_THRESHOLDS_MAX,
	IOMMU_ACCOUNT_A_THRESHOLDS_MAX = (__IOMMU_ACCOUNT_A_THRESHOLDS_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_A_EVENT_PAD = 1,
	IOMMU_ACCOUNT_A_EVENT_SEQ,
	IOMMU_ACCOUNT_A_EVENT_TYPE,
	IOMMU_ACCOUNT_A_EVENT_TIME_NS,
	IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID,
	IOMMU_ACCOUNT_A_EVENT_GROUP,
	IOMMU_ACCOUNT_A_EVENT_ENTRIES,
	IOMMU_ACCOUNT_A_EVENT_LIMIT,
	IOMMU_ACCOUNT_A_EVENT_OWNER,
	IOMMU_ACCOUNT_A_EVENT_ERRNO,
	IOMMU_ACCOUNT_A_EVENT_IOVA,
	IOMMU_ACCOUNT_A_EVENT_SIZE,
	IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES,
	IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT,
	IOMMU_ACCOUNT_A_EVENT_LEVEL,
	IOMMU_ACCOUNT_A_EVENT_THRESHOLD,
	IOMMU_ACCOUNT_A_EVENT_COUNT,
	IOMMU_ACCOUNT_A_EVENT_GROUP_COUNT,
	IOMMU_ACCOUNT_A_EVENT_KIND,
	IOMMU_ACCOUNT_A_EVENT_UID,
	IOMMU_ACCOUNT_A_EVENT_CONSUMER,
	IOMMU_ACCOUNT_A_EVENT_CGROUP_ID,
	IOMMU_ACCOUNT_A_EVENT_QUOTA,
	IOMMU_ACCOUNT_A_EVENT_IOAS,

	__IOMMU_ACCOUNT_A_EVENT_MAX,
	IOMMU_ACCOUNT_A_EVENT_MAX = (__IOMMU_ACCOUNT_A_EVENT_MAX - 1)
};

enum {
	IOMMU_ACCOUNT_CMD_GET_STATUS = 1,
	IOMMU_ACCOUNT_CMD_GET_UID,
	IOMMU_ACCOUNT_CMD_GET_GROUP,
	IOMMU_ACCOUNT_CMD_GET_CONTAINER,
	IOMMU_ACCOUNT_CMD_GET_THRESHOLDS,
	IOMMU_ACCOUNT_CMD_SET_THRESHOLDS,
	IOMMU_ACCOUNT_CMD_EVENT,
	IOMMU_ACCOUNT_CMD_GET_PROC,
	IOMMU_ACCOUNT_CMD_GET_QUOTA,
	IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE,
	IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS,

	__IOMMU_ACCOUNT_CMD_MAX,
	IOMMU_ACCOUNT_CMD_MAX = (__IOMMU_ACCOUNT_CMD_MAX - 1)
};

#define IOMMU_ACCOUNT_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_IOMMU_ACCOUNT_H */
