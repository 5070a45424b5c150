// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libiommu-account: the publisher's side of /dev/iommu-account.
 *
 * The counters page is the publisher's (atomic read-modify-writes, relaxed
 * except where the module's read order needs release: completed after
 * submitted, deferred_now after deferred_total); the state page is the
 * module's, mapped read-only. Every update compares the new figure with the
 * state and calls IOMMU_ACCOUNT_QUOTA_NOTIFY only when the module would
 * act on it; the module updates the state in that ioctl, so the next
 * update sees the level raised (or the episode open) and stays quiet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uapi/linux/iommu_account.h>
#include <uapi/linux/iommu_account_dev.h>

/* The library defines the functions; callers get the inline versions. */
#define IAQ_NO_INLINE
#include "iommu-account.h"

#define IAQ_EXPORT __attribute__((visibility("default")))
#define IAQ_COLD __attribute__((noinline, cold))

_Static_assert(IAQ_KIND_QPAIR == IOMMU_ACCOUNT_QUOTA_KIND_QPAIR, "kind numbers");
_Static_assert(IAQ_ABI_VERSION == IOMMU_ACCOUNT_QUOTA_ABI, "ABI versions");
_Static_assert(IAQ_RAISED_WARN == IOMMU_ACCOUNT_QUOTA_RAISED_WARN &&
	       IAQ_RAISED_CRIT == IOMMU_ACCOUNT_QUOTA_RAISED_CRIT, "level bits");
/* The header's view of the pages is the kernel's. */
#define SAME(a, b, f) _Static_assert(__builtin_offsetof(a, f) == __builtin_offsetof(b, f), #f)
#define C_ struct iaq_page_counters
#define KC_ struct iommu_account_quota_counters
#define S_ struct iaq_page_state
#define KS_ struct iommu_account_quota_state
SAME(C_, KC_, submitted);
SAME(C_, KC_, completed);
SAME(C_, KC_, peak);
SAME(C_, KC_, rejected);
SAME(C_, KC_, deferred_now);
SAME(C_, KC_, deferred_total);
_Static_assert(sizeof(C_) == sizeof(KC_), "counters size");
SAME(S_, KS_, capacity);
SAME(S_, KS_, warn_at);
SAME(S_, KS_, crit_at);
SAME(S_, KS_, rearm_warn_at);
SAME(S_, KS_, rearm_crit_at);
SAME(S_, KS_, raised);
SAME(S_, KS_, reject_armed);
SAME(S_, KS_, flags);
SAME(S_, KS_, notifies);
_Static_assert(sizeof(S_) == sizeof(KS_), "state size");

#define LD IAQ__LD

IAQ_EXPORT IAQ_COLD void iaq__notify(struct iaq *q)
{
	/* Best effort: a failed notify costs an event, never the caller. */
	(void)ioctl(q->fd, IOMMU_ACCOUNT_QUOTA_NOTIFY);
}

IAQ_EXPORT IAQ_COLD void iaq__peak(struct iaq *q, uint64_t used)
{
	uint64_t peak = LD(&q->c->peak);

	while (used > peak &&
	       !__atomic_compare_exchange_n(&q->c->peak, &peak, used, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/* At or above warn: notify when a level the module has not raised is reached. */
IAQ_EXPORT IAQ_COLD void iaq__up(struct iaq *q, uint64_t used)
{
	uint32_t raised = LD(&q->s->raised);

	if (!(raised & IAQ_RAISED_WARN) ||
	    (used >= LD(&q->s->crit_at) && !(raised & IAQ_RAISED_CRIT)))
		iaq__notify(q);
}

/* A raised level: notify when in use falls below where it re-arms. */
IAQ_EXPORT IAQ_COLD void iaq__down(struct iaq *q, uint64_t completed, uint32_t raised)
{
	uint64_t used = LD(&q->c->submitted) - completed;

	if (used > LD(&q->s->capacity))		/* read across a concurrent submit */
		return;
	if (((raised & IAQ_RAISED_WARN) && used < LD(&q->s->rearm_warn_at)) ||
	    ((raised & IAQ_RAISED_CRIT) && used < LD(&q->s->rearm_crit_at)))
		iaq__notify(q);
}

/* The same operations as functions, for callers that cannot inline. */
IAQ_EXPORT uint64_t iaq_acquire(struct iaq *q, uint64_t n)
{
	return iaq_acquire_inline(q, n);
}

IAQ_EXPORT void iaq_release(struct iaq *q, uint64_t n)
{
	iaq_release_inline(q, n);
}

IAQ_EXPORT void iaq_rejected(struct iaq *q, uint64_t n)
{
	iaq_rejected_inline(q, n);
}

IAQ_EXPORT void iaq_deferred(struct iaq *q, int64_t delta)
{
	iaq_deferred_inline(q, delta);
}

IAQ_EXPORT uint32_t iaq_id(const struct iaq *q)
{
	return q->id;
}

IAQ_EXPORT void iaq_read(const struct iaq *q, struct iaq_counters *out)
{
	const struct iaq_page_counters *c = q->c;
	uint64_t comp = __atomic_load_n(&c->completed, __ATOMIC_ACQUIRE);
	uint64_t sub = LD(&c->submitted);

	out->capacity = LD(&q->s->capacity);
	out->submitted = sub;
	out->completed = comp;
	out->in_use = sub >= comp ? sub - comp : 0;
	out->peak = LD(&c->peak);
	out->rejected = LD(&c->rejected);
	out->deferred_now = LD(&c->deferred_now);
	out->deferred_total = LD(&c->deferred_total);
	out->notifies = LD(&q->s->notifies);
}

IAQ_EXPORT struct iaq *iaq_open_opts(const struct iaq_opts *o)
{
	struct iommu_account_quota_create req;
	struct iaq *q;
	void *c, *s;
	int dev, fd, err;

	if (!o || o->size < sizeof(*o) || !o->name) {
		errno = EINVAL;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.kind = o->kind;
	req.capacity = o->capacity;
	req.warn = o->warn;
	req.crit = o->crit;
	if (strlen(o->name) >= sizeof(req.name)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(req.name, o->name);
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->page = (size_t)sysconf(_SC_PAGESIZE);
	dev = open(IOMMU_ACCOUNT_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		goto err;
	fd = ioctl(dev, IOMMU_ACCOUNT_QUOTA_CREATE, &req);
	err = errno;
	close(dev);
	errno = err;
	if (fd < 0)
		goto err;
	q->fd = fd;
	q->id = req.id;
	c = mmap(NULL, q->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 IOMMU_ACCOUNT_QUOTA_PGOFF_COUNTERS * q->page);
	if (c == MAP_FAILED)
		goto err_fd;
	s = mmap(NULL, q->page, PROT_READ, MAP_SHARED, fd,
		 IOMMU_ACCOUNT_QUOTA_PGOFF_STATE * q->page);
	if (s == MAP_FAILED) {
		err = errno;
		munmap(c, q->page);
		errno = err;
		goto err_fd;
	}
	q->c = c;
	q->s = s;
	if (q->s->magic != IOMMU_ACCOUNT_QUOTA_MAGIC || q->s->abi != IOMMU_ACCOUNT_QUOTA_ABI) {
		iaq_close(q);
		errno = EPROTO;
		return NULL;
	}
	return q;

err_fd:
	err = errno;
	close(fd);
	errno = err;
err:
	err = errno;
	free(q);
	errno = err;
	return NULL;
}

IAQ_EXPORT struct iaq *iaq_open(const char *name, uint64_t capacity)
{
	struct iaq_opts o = {
		.size = sizeof(o),
		.kind = IAQ_KIND_QPAIR,
		.name = name,
		.capacity = capacity,
	};

	return iaq_open_opts(&o);
}

IAQ_EXPORT int iaq_close(struct iaq *q)
{
	int ret;

	if (!q)
		return 0;
	munmap(q->c, q->page);
	munmap((void *)q->s, q->page);
	ret = close(q->fd) ? -errno : 0;
	free(q);
	return ret;
}

IAQ_EXPORT const char *iaq_strerror(int err)
{
	switch (err) {
	case ENOENT:
		return "/dev/iommu-account does not exist: load the module (modprobe iommu_account)";
	case EACCES:
		return "/dev/iommu-account is not open to this user (its mode is 0666 by default)";
	case EINVAL:
		return "invalid request: capacity must be 1..4294967295, thresholds 0 < warn < crit <= 1000, the name printable";
	case ENAMETOOLONG:
		return "the name is longer than 63 bytes";
	case EILSEQ:
		return "the name is not valid UTF-8";
	case EOPNOTSUPP:
		return "the loaded module does not know this kind of quota";
	case EDQUOT:
		return "this uid has as many quota objects as the module allows (parameter quota_max_per_uid)";
	case EPROTO:
		return "the loaded module speaks another ABI of /dev/iommu-account than this library";
	case ENOTTY:
		return "the file is not /dev/iommu-account of a module that publishes quotas";
	default:
		return strerror(err);
	}
}
