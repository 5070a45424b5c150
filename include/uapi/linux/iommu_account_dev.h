/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * /dev/iommu-account: quota objects published by applications (user-space
 * queue pairs and other bounded pools the kernel cannot see). Written by
 * hand (the netlink header beside it is generated from the YNL spec); the
 * ABI is versioned by IOMMU_ACCOUNT_QUOTA_ABI and by the size fields.
 *
 * The device is open to every user (mode 0666). On it, one ioctl:
 *
 *   IOMMU_ACCOUNT_QUOTA_CREATE  create an object; returns a new file
 *                               descriptor (O_CLOEXEC) that is the object.
 *
 * The object lives while that descriptor (or a mapping of it) does; when the
 * last one goes (close, or the owner's exit) the module reports it once as
 * gone with its last values, and removes it. The module records the
 * creator's pid, uid, comm and cgroup itself.
 *
 * On the object's descriptor:
 *
 *   mmap(NULL, page, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0)
 *       the counters (struct iommu_account_quota_counters), written by the
 *       publisher with atomic operations and read by the module;
 *   mmap(NULL, page, PROT_READ, MAP_SHARED, fd, page)
 *       the state (struct iommu_account_quota_state), written by the module
 *       only: a writable mapping of it is refused (EPERM);
 *   ioctl(fd, IOMMU_ACCOUNT_QUOTA_NOTIFY)
 *       ask the module to look at the counters now: it raises the threshold
 *       and rejection events they call for and updates the state. A
 *       publisher calls it only when the state says an event is due (see
 *       libiommu-account), never per operation.
 *
 * "page" is the system page size (sysconf(_SC_PAGESIZE)).
 */
#ifndef _UAPI_LINUX_IOMMU_ACCOUNT_DEV_H
#define _UAPI_LINUX_IOMMU_ACCOUNT_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define IOMMU_ACCOUNT_DEV_PATH "/dev/iommu-account"

/* The layout of the two pages; a new layout gets a new number. */
#define IOMMU_ACCOUNT_QUOTA_ABI 1
#define IOMMU_ACCOUNT_QUOTA_MAGIC 0x69617170	/* "iaqp" */

#define IOMMU_ACCOUNT_QUOTA_NAME_LEN 64		/* with the NUL */
#define IOMMU_ACCOUNT_QUOTA_CAPACITY_MAX 0xffffffffULL

struct iommu_account_quota_create {
	__u32 size;		/* in: sizeof(struct iommu_account_quota_create) */
	__u32 kind;		/* in: IOMMU_ACCOUNT_QUOTA_KIND_QPAIR */
	__u64 capacity;		/* in: 1 .. IOMMU_ACCOUNT_QUOTA_CAPACITY_MAX */
	__u32 warn;		/* in: per mille of capacity, 0: the kind's thresholds */
	__u32 crit;		/* in: likewise; 0 < warn < crit <= 1000 when given */
	__u32 flags;		/* in: 0 */
	__u32 id;		/* out: the object's id (netlink get-quota id) */
	char name[IOMMU_ACCOUNT_QUOTA_NAME_LEN];	/* in: UTF-8, NUL-terminated */
};

#define IOMMU_ACCOUNT_IOC_MAGIC 0xA7
#define IOMMU_ACCOUNT_QUOTA_CREATE \
	_IOWR(IOMMU_ACCOUNT_IOC_MAGIC, 0x01, struct iommu_account_quota_create)
#define IOMMU_ACCOUNT_QUOTA_NOTIFY _IO(IOMMU_ACCOUNT_IOC_MAGIC, 0x02)

/* mmap offsets, in pages. */
#define IOMMU_ACCOUNT_QUOTA_PGOFF_COUNTERS 0
#define IOMMU_ACCOUNT_QUOTA_PGOFF_STATE 1

/*
 * The publisher's page. in use = submitted - completed. Every field only
 * grows except peak (the most in use at once) and deferred_now (operations
 * in the application's retry queue now). submitted and completed sit on
 * their own cache lines: submission and completion often run on different
 * threads.
 */
struct iommu_account_quota_counters {
	__u64 submitted;
	__u64 __pad0[7];
	__u64 completed;
	__u64 __pad1[7];
	__u64 peak;
	__u64 rejected;
	__u64 deferred_now;
	__u64 deferred_total;
};

/* Levels in iommu_account_quota_state.raised. */
#define IOMMU_ACCOUNT_QUOTA_RAISED_WARN (1U << 0)
#define IOMMU_ACCOUNT_QUOTA_RAISED_CRIT (1U << 1)

/*
 * The module's page. The thresholds are in the object's unit: in use >=
 * warn_at is the warn level; a raised level re-arms when in use falls below
 * its rearm_*_at (the hysteresis). reject_armed: the next rejection starts
 * an episode (the module reports it at once, then at most once per
 * event_interval_ms while rejections go on, and re-arms after a quiet
 * interval). flags: IOMMU_ACCOUNT_QUOTA_FLAGS_* (netlink header).
 */
struct iommu_account_quota_state {
	__u32 magic;		/* IOMMU_ACCOUNT_QUOTA_MAGIC */
	__u32 abi;		/* IOMMU_ACCOUNT_QUOTA_ABI */
	__u32 id;
	__u32 kind;
	__u64 capacity;
	__u64 warn_at, crit_at;
	__u64 rearm_warn_at, rearm_crit_at;
	__u32 raised;		/* IOMMU_ACCOUNT_QUOTA_RAISED_* */
	__u32 reject_armed;
	__u32 flags;
	__u32 __pad;
	__u64 notifies;		/* NOTIFY calls the module took */
};

#endif /* _UAPI_LINUX_IOMMU_ACCOUNT_DEV_H */
