/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small generic netlink client for the selftests only: libmnl carries the
 * messages, ynl-gen-c's generated parsers read them (ia_nl.c).
 */
#ifndef IA_NL_H
#define IA_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

struct ynl_sock;

struct ia_nl {
	struct mnl_socket *nl;
	struct ynl_sock *ys;	/* libynl's: the family and its groups, the parsers' context */
	uint16_t family;
	uint32_t events_group;	/* multicast group id of "events" */
	uint32_t seq;
	char extack[256];	/* extack message of the last error, if any */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE of the last error, or -1 */
	int batches;		/* recv() calls that carried data in the last request */
};

#define IA_NCONS 6	/* consumers the selftests know */

struct ia_nl_uid {
	uint32_t uid;
	uint64_t locked;
	uint32_t tasks;
	bool has_min, has_max, has_headroom;
	uint64_t min, max;
	int64_t headroom;
	/* the breakdown */
	bool has_breakdown;
	uint64_t consumer[IA_NCONS];	/* bytes by IOMMU_ACCOUNT_CONSUMER_* */
	uint64_t unattributed, pending, charges, refusals;
	uint32_t cgroups, inexact;
	/* iommufd's pins outside the pot (present where iommufd is followed) */
	bool has_iommufd;
	uint64_t iommufd_mm, iommufd_exempt;
};

struct ia_nl_proc {
	uint32_t pid, uid, rings;
	int64_t uring_fds;	/* -1: absent */
	char comm[32];
	char cgroup[4096];	/* PATH_MAX: the module's bound */
	bool cgroup_truncated;
	uint64_t cgroup_id, soft, hard, locked_vm, pinned_vm;
	uint64_t consumer[IA_NCONS];
};

struct ia_nl_feature {
	char name[32];
	uint32_t state;
	char detail[384];
};

struct ia_nl_status {
	char version[64];
	char release[128];
	uint32_t page_size;
	uint64_t events_dropped, probes_missed;
	uint32_t vfio_untracked;
	int nfeat;
	struct ia_nl_feature feat[16];
	/* Per quota kind (by its number): the kernel's refusals since load. */
	bool has_kind_refusals[8];
	uint64_t kind_refusals[8];
};

struct ia_nl_owner {
	uint32_t pid, uid;
	char comm[32];
};

struct ia_nl_container {
	uint32_t id, entries, limit, pinned_uid;
	uint64_t mapped_bytes, pinned_pages, map_ops, unmap_ops;
	uint64_t fail_enospc, fail_enomem, fail_einval, fail_other;
	uint32_t inexact;
	int ngroups;		/* every group attribute, even beyond groups[] */
	uint32_t groups[64];
	struct ia_nl_owner owner;
	int has_last;
	uint32_t last_errno;
	uint64_t last_iova, last_size;
	struct ia_nl_owner last_who;
};

/* A GET_QUOTA object (or an event's quota nest). */
struct ia_nl_quota {
	uint32_t kind, id, uid, warn, crit, flags;
	bool has_limit, has_name;
	uint64_t used, limit, refusals, cgroup_id;
	uint64_t peak, submitted, completed, deferred_now, deferred_total;
	char name[64];
	struct ia_nl_owner owner;
	/* iommufd-ctx */
	bool has_mode;
	uint32_t mode, mappings, devices;
	unsigned int nioas;		/* all of them; the first 8 below */
	struct {
		bool has_id;
		uint32_t id, areas;
		uint64_t bytes, pinned;
	} ioas[8];
	bool has_last;
	uint32_t last_err;
	uint64_t last_size;
	uint32_t last_ioas;
	char last_cgroup[4096];	/* pot: the refused process's cgroup path */
	bool last_cgroup_truncated;
};

struct ia_nl_event {
	uint64_t seq;
	uint32_t type, container, entries, limit, err, level, threshold;
	uint32_t count, group_count;
	uint32_t kind, uid, consumer;
	uint32_t ioas;			/* iommufd failures: the IOAS mapped into */
	uint64_t cgroup_id;
	uint64_t iova, size, locked, memlock;
	int ngroups;		/* every group attribute, even beyond groups[] */
	uint32_t groups[64];
	struct ia_nl_owner who;
	bool has_quota;
	struct ia_nl_quota quota;
};

/* 0, or -ENOENT when the family is not registered, or -errno. */
int ia_nl_open(struct ia_nl *s);
void ia_nl_close(struct ia_nl *s);
int ia_get_status(struct ia_nl *s, struct ia_nl_status *st);
int ia_get_uid(struct ia_nl *s, uint32_t uid, struct ia_nl_uid *out);
/* Dump into @out (room for @max); returns the count or -errno. */
int ia_dump_uids(struct ia_nl *s, struct ia_nl_uid *out, int max);
/* Send the first @len bytes of a hand-made message as one message of that
 * length (type, seq and flags are filled in); 0 or -errno. */
int ia_raw(struct ia_nl *s, char *buf, size_t len);
int ia_get_container(struct ia_nl *s, uint32_t id, struct ia_nl_container *out);
int ia_dump_containers(struct ia_nl *s, struct ia_nl_container *out, int max);
/* The container whose owner has tgid @pid, or -ENOENT. */
int ia_container_of_pid(struct ia_nl *s, uint32_t pid, struct ia_nl_container *out);
int ia_set_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit);
/* uid-pot thresholds with a hysteresis margin (per mille); 0 or -errno. */
int ia_set_pot_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin);
int ia_get_pot_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit, uint32_t *margin);
int ia_get_proc(struct ia_nl *s, uint32_t pid, struct ia_nl_proc *out);
/* Dump processes (of @uid when @by_uid); the count or -errno. */
int ia_dump_procs(struct ia_nl *s, bool by_uid, uint32_t uid, struct ia_nl_proc *out, int max);
int ia_get_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit);
/* Join the events group (on a socket of its own: events arrive unasked). */
int ia_events_join(struct ia_nl *s);
/*
 * $IA_TIMEOUT_SCALE (1 to 20, else 1): every wait of the tests for something
 * expected is multiplied by it (debug kernels run three to five times
 * slower). ia_event_read() applies it itself.
 */
int ia_timeout_scale(void);
/* Next event within @timeout_ms (times ia_timeout_scale()): 1, 0 on time-out, or -errno. */
int ia_event_read(struct ia_nl *s, struct ia_nl_event *ev, int timeout_ms);

/*
 * A GET_GROUP dump read one recv() of 4 KiB at a time; @between (if set)
 * runs after the first recv(), e.g. to drop privileges mid-dump. Group ids
 * and container ids (0: none) go to @ids/@ctrs (room for @max). Returns
 * the number of groups or -errno; *nrecv is the number of recv() calls.
 */
int ia_dump_groups_split(struct ia_nl *s, void (*between)(void *), void *arg,
			 uint32_t *ids, uint32_t *ctrs, int max, int *nrecv);

/* GET_QUOTA do of (@kind, @id); 0 or -errno (extack in s->extack). */
int ia_get_quota(struct ia_nl *s, uint32_t kind, uint32_t id, struct ia_nl_quota *out);
/* GET_QUOTA dump; filters kind, uid, pid when >= 0; the count or -errno. */
int ia_dump_quotas(struct ia_nl *s, int64_t kind, int64_t uid, int64_t pid,
		   struct ia_nl_quota *out, int max);
/* qpair thresholds (kind qpair) with margin; 0 or -errno. */
int ia_set_qpair_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin);

/* The bytes of every consumer of @u's breakdown together. */
uint64_t ia_uid_consumers(const struct ia_nl_uid *u);
/* Convenience: the pot of @uid, or -1 if it has no user_struct. */
int64_t ia_locked(struct ia_nl *s, uint32_t uid);

#endif
