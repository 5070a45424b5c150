/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu_account: internal interfaces shared by the module's files.
 */
#ifndef _IA_H
#define _IA_H

#include <linux/types.h>
#include <linux/sched.h>
#include <linux/uidgid.h>

#define IA_VERSION "0.1.0"

/* Data sources whose availability depends on the running kernel. */
enum ia_feature {
	IA_FEAT_UID_TASKS,
	IA_FEAT_UID_ORPHANS,
	IA_FEAT_VFIO_TYPE1,
	IA_FEAT_VFIO_GROUPS,
	IA_FEAT_IOMMUFD,
	IA_FEAT_COUNT,
};

struct ia_feature_info {
	const char *name;
	bool active;
	char detail[96];
};

extern struct ia_feature_info ia_features[IA_FEAT_COUNT];

__printf(3, 4)
void ia_feature_set(enum ia_feature f, bool active, const char *fmt, ...);

/* One user and its pot, as found by a snapshot. */
struct ia_uid_rec {
	kuid_t uid;
	u32 tasks;
	u64 locked_pages;
	u64 rlim_min;	/* bytes; U64_MAX: unlimited; meaningless when !tasks */
	u64 rlim_max;
};

struct ia_uid_snap {
	unsigned int nr;
	struct ia_uid_rec rec[];
};

int ia_uid_init(void);
void ia_uid_exit(void);
/* Snapshot of every user (or of @only when @filter), sorted by uid; kvfree() it. */
struct ia_uid_snap *ia_uid_snapshot(bool filter, kuid_t only);

/* A process as seen when it acted. */
struct ia_owner {
	pid_t pid;		/* tgid in the initial pid namespace */
	kuid_t uid;		/* real uid */
	char comm[TASK_COMM_LEN];
};

void ia_owner_current(struct ia_owner *o);

#define IA_MAX_GROUPS 16

enum ia_fail {
	IA_FAIL_ENOSPC,
	IA_FAIL_ENOMEM,
	IA_FAIL_EINVAL,
	IA_FAIL_OTHER,
	IA_FAIL_COUNT,
};

struct ia_failure {
	u64 time_ns;
	int err;		/* positive errno */
	u64 iova, size;
	struct ia_owner who;
};

/* A copy of one VFIO type1 container's state, for replies. */
struct ia_container_info {
	u32 id;
	u32 entries, limit;
	u64 mapped_bytes;
	s64 pinned_pages;
	kuid_t pinned_uid;
	bool has_pinned_uid;
	struct ia_owner owner;
	u64 map_ops, unmap_ops;
	u64 fail[IA_FAIL_COUNT];
	bool has_last;
	struct ia_failure last;
	unsigned int ngroups;
	u32 groups[IA_MAX_GROUPS];
	struct ia_owner group_owner[IA_MAX_GROUPS];
};

struct ia_container_snap {
	unsigned int nr;
	struct ia_container_info c[];
};

/* One PCI device in an IOMMU group. */
struct ia_group_dev {
	u32 group;
	char address[32];
	u16 vendor, device;
	char driver[32];
};

struct ia_group_snap {
	unsigned int ndev;
	struct ia_group_dev *dev;	/* sorted by group, then address */
	struct ia_container_snap *containers;
};

enum ia_event_type {
	IA_EV_FAILURE,
	IA_EV_THRESHOLD,
};

struct ia_event {
	u64 seq;
	u64 time_ns;
	enum ia_event_type type;
	u32 container;
	unsigned int ngroups;
	u32 groups[IA_MAX_GROUPS];
	u32 entries, limit;
	struct ia_owner who;
	/* failure */
	int err;
	u64 iova, size;
	u64 locked_bytes, memlock;
	/* threshold */
	u32 level;		/* IOMMU_ACCOUNT_THRESHOLD_LEVEL_* */
	u32 threshold;		/* per mille */
};

int ia_vfio_init(void);
void ia_vfio_exit(void);
/*
 * @filter: only the container with that id; @uid_filter: only that owner.
 * Sorted by id; kvfree() it.
 */
struct ia_container_snap *ia_container_snapshot(bool filter, u32 id,
						bool uid_filter, kuid_t uid);
struct ia_group_snap *ia_group_snapshot(void);
void ia_group_snap_free(struct ia_group_snap *g);
void ia_thresholds_get(u32 *warn, u32 *crit);
void ia_thresholds_set(u32 warn, u32 crit);
u64 ia_events_dropped(void);
u64 ia_probes_missed(void);

int ia_netlink_init(void);
void ia_netlink_exit(void);
/* Multicast one event on the events group (process context). */
void ia_netlink_event(const struct ia_event *ev);

#endif /* _IA_H */
