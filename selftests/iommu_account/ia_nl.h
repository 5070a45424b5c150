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

#include "iommu_account-user.h"

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

/*
 * The objects are the generated replies (iommu_account-user.h), filled in
 * place: a test reads the wire's own names and presence bits. Their
 * strings and lists are allocated by the generated parsers and belong to
 * the caller, who frees each reply with ia_nl_free() (a copy made with =
 * shares them: free one of the two). Filling an object does not free what
 * it held: a loop frees each reply before the next. A function that fails
 * leaves its @out owning nothing. The harness (ia_harness.h) fails a test
 * whose process ends with a reply not freed.
 */
typedef struct iommu_account_get_status_rsp ia_status_t;
typedef struct iommu_account_get_uid_rsp ia_uid_t;
typedef struct iommu_account_get_proc_rsp ia_proc_t;
typedef struct iommu_account_get_container_rsp ia_container_t;
typedef struct iommu_account_get_quota_rsp ia_quota_t;
typedef struct iommu_account_event_rsp ia_event_t;

void ia_nl_free_status(ia_status_t *obj);
void ia_nl_free_uid(ia_uid_t *obj);
void ia_nl_free_proc(ia_proc_t *obj);
void ia_nl_free_container(ia_container_t *obj);
void ia_nl_free_quota(ia_quota_t *obj);
void ia_nl_free_event(ia_event_t *obj);
/* Free what reply @obj holds and zero it (a zeroed reply frees nothing). */
#define ia_nl_free(obj) _Generic((obj), \
	ia_status_t *: ia_nl_free_status, \
	ia_uid_t *: ia_nl_free_uid, \
	ia_proc_t *: ia_nl_free_proc, \
	ia_container_t *: ia_nl_free_container, \
	ia_quota_t *: ia_nl_free_quota, \
	ia_event_t *: ia_nl_free_event)(obj)
/* The first @n replies of array @arr. */
#define ia_nl_free_n(arr, n) \
	do { \
		for (int ia_i_ = 0; ia_i_ < (int)(n); ia_i_++) \
			ia_nl_free(&(arr)[ia_i_]); \
	} while (0)
/* Blocks the generated parsers allocated that are not freed yet (this process). */
long ia_nl_live_blocks(void);
/* Set by the harness in a test's own process: its exit checks the count above. */
extern int ia_nl_exit_checked;

/* 0, or -ENOENT when the family is not registered, or -errno. */
int ia_nl_open(struct ia_nl *s);
void ia_nl_close(struct ia_nl *s);
int ia_get_status(struct ia_nl *s, ia_status_t *st);
int ia_get_uid(struct ia_nl *s, uint32_t uid, ia_uid_t *out);
/* Dump into @out (room for @max); returns the count or -errno. */
int ia_dump_uids(struct ia_nl *s, ia_uid_t *out, int max);
/* Send the first @len bytes of a hand-made message as one message of that
 * length (type, seq and flags are filled in); 0 or -errno. */
int ia_raw(struct ia_nl *s, char *buf, size_t len);
int ia_get_container(struct ia_nl *s, uint32_t id, ia_container_t *out);
int ia_dump_containers(struct ia_nl *s, ia_container_t *out, int max);
/* The container whose owner has tgid @pid, or -ENOENT. */
int ia_container_of_pid(struct ia_nl *s, uint32_t pid, ia_container_t *out);
int ia_set_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit);
/* uid-pot thresholds with a hysteresis margin (per mille); 0 or -errno. */
int ia_set_pot_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin);
int ia_get_pot_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit, uint32_t *margin);
int ia_get_proc(struct ia_nl *s, uint32_t pid, ia_proc_t *out);
/* Dump processes (of @uid when @by_uid); the count or -errno. */
int ia_dump_procs(struct ia_nl *s, bool by_uid, uint32_t uid, ia_proc_t *out, int max);
int ia_get_thresholds(struct ia_nl *s, uint32_t *warn, uint32_t *crit);
/*
 * Join the events (on a socket of its own: events arrive unasked): the
 * group, or where it is not offered the unicast subscription.
 */
int ia_events_join(struct ia_nl *s);
/* SUBSCRIBE_EVENTS on @s (unicast, on any kernel): 0 or -errno. */
int ia_events_subscribe(struct ia_nl *s);
/*
 * $IA_TIMEOUT_SCALE (1 to 20, else 1): every wait of the tests for something
 * expected is multiplied by it (debug kernels run three to five times
 * slower). ia_event_read() applies it itself.
 */
int ia_timeout_scale(void);
/* Next event within @timeout_ms (times ia_timeout_scale()): 1, 0 on time-out, or -errno. */
int ia_event_read(struct ia_nl *s, ia_event_t *ev, int timeout_ms);

/*
 * A GET_GROUP dump read one recv() of 4 KiB at a time; @between (if set)
 * runs after the first recv(), e.g. to drop privileges mid-dump. Group ids
 * and container ids (0: none) go to @ids/@ctrs (room for @max). Returns
 * the number of groups or -errno; *nrecv is the number of recv() calls.
 */
int ia_dump_groups_split(struct ia_nl *s, void (*between)(void *), void *arg,
			 uint32_t *ids, uint32_t *ctrs, int max, int *nrecv);

/* GET_QUOTA do of (@kind, @id); 0 or -errno (extack in s->extack). */
int ia_get_quota(struct ia_nl *s, uint32_t kind, uint32_t id, ia_quota_t *out);
/* GET_QUOTA dump; filters kind, uid, pid when >= 0; the count or -errno. */
int ia_dump_quotas(struct ia_nl *s, int64_t kind, int64_t uid, int64_t pid,
		   ia_quota_t *out, int max);
/* qpair thresholds (kind qpair) with margin; 0 or -errno. */
int ia_set_qpair_thresholds(struct ia_nl *s, uint32_t warn, uint32_t crit, uint32_t margin);

/* The bytes of consumer @c (IOMMU_ACCOUNT_CONSUMER_*) in a reply's consumer list. */
uint64_t ia_nl_consumer(const struct iommu_account_consumer_bytes *v, unsigned int n, unsigned int c);
#define IA_CONSUMER(obj, c) ia_nl_consumer((obj)->consumer, (obj)->n_consumer, (c))
/* The bytes of every consumer of @u's breakdown together. */
uint64_t ia_uid_consumers(const ia_uid_t *u);
/* The feature called @name in @st, or NULL. */
const struct iommu_account_feature *ia_nl_feature(const ia_status_t *st, const char *name);
/* Quota kind @kind's refusals in @st (-1: not reported). */
int64_t ia_nl_kind_refusals(const ia_status_t *st, uint32_t kind);
/* Convenience: the pot of @uid, or -1 if it has no user_struct. */
int64_t ia_locked(struct ia_nl *s, uint32_t uid);

#endif
