/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu_account: internal interfaces shared by the module's files.
 */
#ifndef _IA_H
#define _IA_H

#include <linux/types.h>
#include <linux/uidgid.h>

#define IA_VERSION "0.1.0"

/* Data sources whose availability depends on the running kernel. */
enum ia_feature {
	IA_FEAT_UID_TASKS,
	IA_FEAT_UID_ORPHANS,
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
/* Snapshot of every user (or of @only when @filter), sorted by uid. */
struct ia_uid_snap *ia_uid_snapshot(bool filter, kuid_t only);
void ia_uid_snap_free(struct ia_uid_snap *snap);

int ia_netlink_init(void);
void ia_netlink_exit(void);

#endif /* _IA_H */
