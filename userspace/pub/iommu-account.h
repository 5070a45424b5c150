/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libiommu-account: publish the occupancy of a bounded pool the kernel cannot
 * see (a user-space NVMe queue pair's request descriptors) to iommu_account,
 * which exports it over netlink (iommu-accountctl quotas, iommu-accountd)
 * and raises threshold, rejection and "gone" events for it.
 *
 * ABI: this header is version IAQ_ABI_VERSION of the library
 * (libiommu-account.so.1); a change that breaks it bumps both the version
 * and the soname. The kernel's side is uapi/linux/iommu_account_dev.h.
 *
 * Cost: iaq_acquire(), iaq_release(), iaq_rejected() and iaq_deferred() are
 * a few atomic operations on a page shared with the kernel, lock-free and
 * safe from any number of threads; they never allocate and make no system
 * call, except one ioctl when the module must see the figures (a threshold
 * crossed on the way up, a raised level that can re-arm, the first
 * rejection of an episode). Only iaq_open() and iaq_close() may sleep.
 *
 * Wiring an SPDK application, per qpair (see Documentation/qpair.md):
 *   q = iaq_open("nvme0n1-qp3", opts.io_queue_requests);   after
 *                                    spdk_nvme_ctrlr_alloc_io_qpair()
 *   rc = spdk_nvme_ns_cmd_read(...);
 *   if (rc == 0)       iaq_acquire(q, 1);
 *   if (rc == -ENOMEM) iaq_rejected(q, 1);      failed to the caller, or
 *                      iaq_deferred(q, +1);     kept in a retry queue
 *   on resubmitting a deferred one:  iaq_deferred(q, -1), then as above
 *   in the completion callback:      iaq_release(q, 1);
 *   iaq_close(q);                    before spdk_nvme_ctrlr_free_io_qpair()
 */
#ifndef IOMMU_ACCOUNT_PUB_H
#define IOMMU_ACCOUNT_PUB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IAQ_ABI_VERSION 1

/* Kinds of pool (the netlink quota-kind enum). */
#define IAQ_KIND_QPAIR 2

/*
 * The two pages as the module lays them out (uapi/linux/iommu_account_dev.h,
 * ABI 1), for the inline operations below. Do not write to them directly.
 */
struct iaq_page_counters {
	uint64_t submitted, __pad0[7];
	uint64_t completed, __pad1[7];
	uint64_t peak, rejected, deferred_now, deferred_total;
};

struct iaq_page_state {
	uint32_t magic, abi, id, kind;
	uint64_t capacity, warn_at, crit_at, rearm_warn_at, rearm_crit_at;
	uint32_t raised, reject_armed, flags, __pad;
	uint64_t notifies;
};

#define IAQ_RAISED_WARN (1U << 0)
#define IAQ_RAISED_CRIT (1U << 1)

/* An open object. Its first two members are ABI (the inline operations use them). */
struct iaq {
	struct iaq_page_counters *c;
	const struct iaq_page_state *s;
	/* private */
	int fd;
	uint32_t id;
	size_t page;
};

struct iaq_opts {
	uint32_t size;		/* sizeof(struct iaq_opts) */
	uint32_t kind;		/* IAQ_KIND_QPAIR */
	const char *name;	/* UTF-8, 1..63 bytes, no control characters */
	uint64_t capacity;	/* 1 .. 2^32-1 */
	uint32_t warn, crit;	/* per mille of capacity; 0, 0: the module's */
};

/*
 * Create the object; NULL and errno on failure (iaq_strerror() explains):
 * ENOENT the module is not loaded, EINVAL bad capacity, name or thresholds,
 * ENAMETOOLONG, EILSEQ name not UTF-8, EOPNOTSUPP unknown kind, EDQUOT too
 * many objects for this uid, EPROTO the module speaks another ABI.
 * Allocates once; nothing after.
 */
struct iaq *iaq_open(const char *name, uint64_t capacity);
struct iaq *iaq_open_opts(const struct iaq_opts *opts);

/*
 * The operations. Each is a function of the library (for callers through a
 * foreign-function interface) and, unless IAQ_NO_INLINE is defined, an
 * inline version of the same code (no call on the submission path):
 *
 *   iaq_acquire(q, n)    n descriptors taken by a successful submission;
 *                        returns those in use now
 *   iaq_release(q, n)    n descriptors given back by completions
 *   iaq_rejected(q, n)   n submissions refused for lack of descriptors
 *                        (-ENOMEM) and failed to the caller
 *   iaq_deferred(q, d)   +d submissions put in the application's retry
 *                        queue, -d taken out of it
 */
uint64_t iaq_acquire(struct iaq *q, uint64_t n);
void iaq_release(struct iaq *q, uint64_t n);
void iaq_rejected(struct iaq *q, uint64_t n);
void iaq_deferred(struct iaq *q, int64_t delta);

/* The rare paths, out of line (ABI: the inline operations call them). */
void iaq__notify(struct iaq *q);
void iaq__peak(struct iaq *q, uint64_t used);
void iaq__up(struct iaq *q, uint64_t used);
void iaq__down(struct iaq *q, uint64_t completed, uint32_t raised);

#define IAQ__LD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static inline uint64_t iaq_acquire_inline(struct iaq *q, uint64_t n)
{
	uint64_t sub = __atomic_add_fetch(&q->c->submitted, n, __ATOMIC_RELAXED);
	uint64_t used = sub - IAQ__LD(&q->c->completed);

	/* A completion of a later submission read first: in use is at least 0. */
	if (used > sub)
		used = 0;
	if (__builtin_expect(used > IAQ__LD(&q->c->peak), 0))
		iaq__peak(q, used);
	if (__builtin_expect(used >= IAQ__LD(&q->s->warn_at), 0))
		iaq__up(q, used);
	return used;
}

static inline void iaq_release_inline(struct iaq *q, uint64_t n)
{
	/* Release order: the module reads completed before submitted. */
	uint64_t comp = __atomic_add_fetch(&q->c->completed, n, __ATOMIC_RELEASE);
	uint32_t raised = IAQ__LD(&q->s->raised);

	if (__builtin_expect(raised != 0, 0))
		iaq__down(q, comp, raised);
}

static inline void iaq_rejected_inline(struct iaq *q, uint64_t n)
{
	__atomic_add_fetch(&q->c->rejected, n, __ATOMIC_RELEASE);
	if (__builtin_expect(IAQ__LD(&q->s->reject_armed) != 0, 0))
		iaq__notify(q);
}

static inline void iaq_deferred_inline(struct iaq *q, int64_t delta)
{
	if (delta > 0)
		__atomic_add_fetch(&q->c->deferred_total, (uint64_t)delta, __ATOMIC_RELAXED);
	__atomic_add_fetch(&q->c->deferred_now, (uint64_t)delta, __ATOMIC_RELEASE);
}

#ifndef IAQ_NO_INLINE
#define iaq_acquire(q, n) iaq_acquire_inline((q), (n))
#define iaq_release(q, n) iaq_release_inline((q), (n))
#define iaq_rejected(q, n) iaq_rejected_inline((q), (n))
#define iaq_deferred(q, d) iaq_deferred_inline((q), (d))
#endif

/* The object's id (netlink get-quota id, iommu-accountctl quotas). */
uint32_t iaq_id(const struct iaq *q);

struct iaq_counters {
	uint64_t capacity, in_use, peak, submitted, completed, rejected;
	uint64_t deferred_now, deferred_total;
	uint64_t notifies;	/* ioctls this object made */
};

/* The figures as published (from the shared page; no system call). */
void iaq_read(const struct iaq *q, struct iaq_counters *c);

/*
 * Release the object (the module reports it gone, with what was still
 * outstanding). Returns 0 or -errno of close().
 */
int iaq_close(struct iaq *q);

/* A message for an errno of iaq_open(). */
const char *iaq_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* IOMMU_ACCOUNT_PUB_H */
