// SPDX-License-Identifier: GPL-2.0
/*
 * Published quotas (qpair): /dev/iommu-account, libiommu-account and the
 * module's GET_QUOTA and events, checked against what the publisher did
 * (the model's own counts) and what the kernel answered (errnos, its
 * NOTIFY count, the events it raised, rmmod's refusal).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include <uapi/linux/iommu_account_dev.h>
#include "ia_nl.h"
#include "iommu-account.h"
#include "qpair_model.h"

#define QPAIR IOMMU_ACCOUNT_QUOTA_KIND_QPAIR
#define T_FAIL IOMMU_ACCOUNT_EVENT_TYPE_FAILURE
#define T_THR IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD
#define T_GONE IOMMU_ACCOUNT_EVENT_TYPE_GONE
#define MAXQ 64

/* Create through the device directly: the errno of the kernel itself. */
static int create_raw(struct iommu_account_quota_create *req)
{
	int dev = open(IOMMU_ACCOUNT_DEV_PATH, O_RDWR | O_CLOEXEC);
	int fd, err;

	if (dev < 0)
		return -errno;
	fd = ioctl(dev, IOMMU_ACCOUNT_QUOTA_CREATE, req);
	err = errno;
	close(dev);
	return fd < 0 ? -err : fd;
}

static void req_init(struct iommu_account_quota_create *req, const char *name, uint64_t cap)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->kind = QPAIR;
	req->capacity = cap;
	snprintf(req->name, sizeof(req->name), "%s", name);
}

/* How many quotas a GET_QUOTA dump with these filters lists, or -errno. */
static int count_quotas(struct ia_nl *nl, int64_t kind, int64_t uid, int64_t pid)
{
	ia_quota_t *q = calloc(MAXQ, sizeof(*q));
	int n = q ? ia_dump_quotas(nl, kind, uid, pid, q, MAXQ) : -ENOMEM;

	if (q)
		ia_nl_free_n(q, n);
	free(q);
	return n;
}

static int count_qpairs(struct ia_nl *nl)
{
	return count_quotas(nl, QPAIR, -1, -1);
}

FIXTURE(qp) {
	struct ia_nl nl, ev;
};

FIXTURE_SETUP(qp)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, ia_nl_open(&self->ev));
	ASSERT_EQ(0, ia_events_join(&self->ev));
	ASSERT_EQ(0, ia_set_qpair_thresholds(&self->nl, 800, 950, 50));
	/* Objects of earlier tests are gone with their processes. */
	ASSERT_EQ(0, count_qpairs(&self->nl));
}

FIXTURE_TEARDOWN(qp)
{
	ia_set_qpair_thresholds(&self->nl, 800, 950, 50);
	ia_nl_close(&self->ev);
	ia_nl_close(&self->nl);
}

/* The module lists the kind and the feature, so clients discover it. */
TEST_F(qp, status_lists_qpair_kind)
{
	const struct iommu_account_feature *f;
	ia_status_t st = {};
	struct stat sb;

	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	f = ia_nl_feature(&st, "published-quotas");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE, f->state);
	ia_nl_free(&st);
	EXPECT_EQ(0, access(IOMMU_ACCOUNT_DEV_PATH, R_OK | W_OK));
	ASSERT_EQ(0, stat(IOMMU_ACCOUNT_DEV_PATH, &sb));
	EXPECT_EQ(0666, sb.st_mode & 0777);
}

/* Bad requests: the kernel's errno, and nothing created. */
TEST_F(qp, create_bad_input_creates_nothing)
{
	struct iommu_account_quota_create req;
	struct {
		struct iommu_account_quota_create r;
		uint64_t tail;
	} big;
	char name64[65];
	struct iaq *h;
	int fd;

	req_init(&req, "x", 0);
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* capacity 0 */
	req_init(&req, "x", IOMMU_ACCOUNT_QUOTA_CAPACITY_MAX + 1);
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* absurd capacity */
	req_init(&req, "", 512);
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* empty name */
	req_init(&req, "x", 512);
	memset(req.name, 'a', sizeof(req.name));	/* no NUL */
	EXPECT_EQ(-ENAMETOOLONG, create_raw(&req));
	req_init(&req, "bad\xff", 512);
	EXPECT_EQ(-EILSEQ, create_raw(&req));		/* not UTF-8 */
	req_init(&req, "over\xc0\x80long", 512);
	EXPECT_EQ(-EILSEQ, create_raw(&req));		/* overlong NUL */
	req_init(&req, "cut\xe2\x82", 512);
	EXPECT_EQ(-EILSEQ, create_raw(&req));		/* truncated sequence */
	req_init(&req, "line\nfeed", 512);
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* control character */
	req_init(&req, "x", 512);
	req.kind = 99;
	EXPECT_EQ(-EOPNOTSUPP, create_raw(&req));	/* unknown kind */
	req.kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
	EXPECT_EQ(-EOPNOTSUPP, create_raw(&req));	/* a kernel kind */
	req_init(&req, "x", 512);
	req.flags = 1;
	EXPECT_EQ(-EINVAL, create_raw(&req));
	req_init(&req, "x", 512);
	req.warn = 900;
	req.crit = 900;
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* warn >= crit */
	req.crit = 1001;
	EXPECT_EQ(-EINVAL, create_raw(&req));
	req.warn = 0;
	req.crit = 950;
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* crit without warn */
	req_init(&req, "x", 512);
	req.size = 8;
	EXPECT_EQ(-EINVAL, create_raw(&req));		/* older than any ABI */
	memset(&big, 0, sizeof(big));
	req_init(&big.r, "x", 512);
	big.r.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, create_raw(&big.r));		/* newer, with a field we lack */
	/* The library checks what it can before the kernel: 64 bytes. */
	memset(name64, 'n', sizeof(name64) - 1);
	name64[64] = 0;
	errno = 0;
	EXPECT_EQ(NULL, iaq_open(name64, 512));
	EXPECT_EQ(ENAMETOOLONG, errno);
	errno = 0;
	EXPECT_EQ(NULL, iaq_open("x", 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, count_qpairs(&self->nl));

	/* 63 bytes is the longest name. */
	name64[63] = 0;
	h = iaq_open(name64, 512);
	ASSERT_NE(NULL, h);
	iaq_close(h);

	/* A larger request with a zero tail is fine (a newer library). */
	big.tail = 0;
	fd = create_raw(&big.r);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(1, count_qpairs(&self->nl));
	close(fd);
}

/* Each file accepts its own ioctls and mappings only. */
TEST_F(qp, wrong_fd_and_mmap_refused)
{
	struct iommu_account_quota_create req;
	long page = sysconf(_SC_PAGESIZE);
	int dev, fd;
	void *p;

	req_init(&req, "mmap", 64);
	fd = create_raw(&req);
	ASSERT_GE(fd, 0);
	dev = open(IOMMU_ACCOUNT_DEV_PATH, O_RDWR);
	ASSERT_GE(dev, 0);
	EXPECT_EQ(-1, ioctl(dev, IOMMU_ACCOUNT_QUOTA_NOTIFY));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, IOMMU_ACCOUNT_QUOTA_CREATE, &req));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ, MAP_SHARED, dev, 0));
	EXPECT_EQ(ENODEV, errno);
	/* Two pages at once, an offset past the state, a private copy. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 2 * page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	/* The module's page is read-only, and stays so. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, page);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(IOMMU_ACCOUNT_QUOTA_MAGIC, ((struct iommu_account_quota_state *)p)->magic);
	EXPECT_EQ(64, ((struct iommu_account_quota_state *)p)->capacity);
	EXPECT_EQ(-1, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, page);
	close(dev);
	close(fd);
}

/* The next event about object @id within @ms, 1, or 0 on time-out. */
/* The next event of qpair @id within @ms: 1, or 0 (@e, zeroed or an event, freed first). */
static int next_event_of(struct ia_nl *ev, uint32_t id, ia_event_t *e, int ms)
{
	int r;

	ia_nl_free(e);
	while ((r = ia_event_read(ev, e, ms)) == 1) {
		if (e->kind == QPAIR && e->_present.quota && e->quota.id == id)
			return 1;
		ia_nl_free(e);
	}
	return r;
}

struct ev_tally {
	int warn, crit, fail, gone;
	uint64_t fail_count;
	uint64_t warn_seq, crit_seq, fail_seq;	/* the first of each */
	uint64_t warn_used, crit_used;		/* in the first of each */
};

static void tally(struct ev_tally *t, const ia_event_t *e)
{
	/* Crossings: a threshold event's count (held ones come as one event). */
	if (e->type == T_THR && e->level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN) {
		if (!t->warn) {
			t->warn_seq = e->seq;
			t->warn_used = e->quota.used;
		}
		t->warn += e->count ? e->count : 1;
	} else if (e->type == T_THR) {
		if (!t->crit) {
			t->crit_seq = e->seq;
			t->crit_used = e->quota.used;
		}
		t->crit += e->count ? e->count : 1;
	} else if (e->type == T_FAIL) {
		if (!t->fail++)
			t->fail_seq = e->seq;
		t->fail_count += e->count;
	} else if (e->type == T_GONE) {
		t->gone++;
	}
}

/*
 * Read events of the two objects until @until returns true or nothing
 * comes for 3 s (the module reports rejections of an open episode once per
 * event_interval_ms, 1 s by default).
 */
static void collect(struct ia_nl *ev, const uint32_t *id, struct ev_tally *t,
		    bool (*until)(const struct ev_tally *t))
{
	ia_event_t e = {};
	int i;

	while (!until(t) && ia_event_read(ev, &e, 3000) == 1) {
		for (i = 0; i < 2; i++)
			if (e.kind == QPAIR && e._present.quota && e.quota.id == id[i])
				tally(&t[i], &e);
		ia_nl_free(&e);
	}
}

/* Every rejection, and the 4 rounds' crossings of both levels (held ones come later). */
static bool all_rejections(const struct ev_tally *t)
{
	return t[0].fail_count == 2048 && t[1].fail_count == 2048 &&
	       t[0].warn >= 4 && t[1].warn >= 4 && t[0].crit >= 4 && t[1].crit >= 4;
}

/* Events of an object end with its gone event (they are in sequence order). */
static bool both_gone(const struct ev_tally *t)
{
	return t[0].gone && t[1].gone;
}

static bool first_gone(const struct ev_tally *t)
{
	return t[0].gone;
}

static const ia_quota_t *find_q(const ia_quota_t *q, int n, uint32_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (q[i].id == id)
			return &q[i];
	return NULL;
}

/* Two qpairs of 512 descriptors, PREFIX-qp0 and PREFIX-qp1, modelled for 4,096 operations. */
static void open_pair(struct __test_metadata *_metadata, struct qp_model *m, const char *prefix,
		      bool defer, uint32_t *id)
{
	char name[32];
	int i;

	for (i = 0; i < 2; i++) {
		struct iaq *h;

		snprintf(name, sizeof(name), "%s-qp%d", prefix, i);
		h = iaq_open(name, 512);
		ASSERT_NE(NULL, h) TH_LOG("iaq_open: %s", iaq_strerror(errno));
		ASSERT_EQ(0, qp_init(&m[i], h, 512, defer, 4096));
		id[i] = iaq_id(h);
	}
}

/*
 * The report: two qpairs of 512 descriptors, 1,024 submissions to each per
 * round without polling, four rounds, refused operations failed to the
 * caller. Half are rejected every round; warn and crit come before the
 * first rejection; the module's figures are the model's.
 */
TEST_F(qp, two_qpairs_reject_half_each_round)
{
	struct qp_model m[2];
	ia_quota_t q[MAXQ] = {};
	struct ev_tally t[2] = { 0 };
	const ia_quota_t *a;
	ia_status_t st0 = {}, st = {};
	uint32_t id[2];
	struct iaq_counters c;
	int r, i, n;

	ASSERT_EQ(0, ia_get_status(&self->nl, &st0));
	ASSERT_TRUE(ia_nl_kind_refusals(&st0, QPAIR) >= 0);
	open_pair(_metadata, m, "nvme0", false, id);
	for (r = 1; r <= 4; r++) {
		for (i = 0; i < 2; i++)
			qp_burst(&m[i], 1024);
		/* Before polling: 512 in use on each, 512 more rejected this round. */
		n = ia_dump_quotas(&self->nl, QPAIR, -1, -1, q, MAXQ);
		ASSERT_EQ(2, n);
		for (i = 0; i < 2; i++) {
			a = find_q(q, n, id[i]);
			ASSERT_NE(NULL, a);
			EXPECT_EQ(512, a->used);
			EXPECT_EQ(512, a->limit);
			EXPECT_EQ(512ULL * r, a->refusals);
			EXPECT_EQ(m[i].rejected, a->refusals);
		}
		EXPECT_EQ(1024, q[0].refusals + q[1].refusals - 1024ULL * (r - 1));
		ia_nl_free_n(q, n);
		for (i = 0; i < 2; i++)
			qp_drain(&m[i]);
	}
	n = ia_dump_quotas(&self->nl, QPAIR, -1, -1, q, MAXQ);
	ASSERT_EQ(2, n);
	for (i = 0; i < 2; i++) {
		a = find_q(q, n, id[i]);
		ASSERT_NE(NULL, a);
		EXPECT_EQ(0, a->used);
		EXPECT_EQ(512, a->peak);
		EXPECT_EQ(2048, a->refusals);
		EXPECT_EQ(2048, a->submitted);
		EXPECT_EQ(2048, a->completed);
		EXPECT_EQ(0, a->deferred_total);
		EXPECT_EQ(0, a->flags);
		EXPECT_STREQ(i ? "nvme0-qp1" : "nvme0-qp0", a->name);
		EXPECT_EQ(getpid(), a->owner.pid);
		EXPECT_EQ(0, m[i].twice);
		EXPECT_EQ(2048, m[i].completed);
		/* No system call per operation: the module's own count of NOTIFYs. */
		iaq_read(m[i].q, &c);
		EXPECT_LE(c.notifies, 5 * 4) TH_LOG("%llu notifies for 4096 operations",
						    (unsigned long long)c.notifies);
	}
	EXPECT_EQ(4096, q[0].refusals + q[1].refusals);
	ia_nl_free_n(q, n);

	collect(&self->ev, id, t, all_rejections);
	for (i = 0; i < 2; i++) {
		/* Every round re-armed both levels (in use went back to 0). */
		EXPECT_EQ(4, t[i].warn);
		EXPECT_EQ(4, t[i].crit);
		EXPECT_EQ(410, t[i].warn_used);		/* ceil(512 * 0.8) */
		EXPECT_EQ(487, t[i].crit_used);		/* ceil(512 * 0.95) */
		EXPECT_LT(t[i].warn_seq, t[i].crit_seq);
		EXPECT_LT(t[i].crit_seq, t[i].fail_seq);	/* before the first rejection */
		/* Every rejection is in exactly one failure event. */
		EXPECT_EQ(2048, t[i].fail_count);
		EXPECT_LE(t[i].fail, 8);
	}
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, iaq_close(m[i].q));
		qp_fini(&m[i]);
	}
	/* Gone, once each, with nothing outstanding. */
	collect(&self->ev, id, t, both_gone);
	EXPECT_EQ(1, t[0].gone);
	EXPECT_EQ(1, t[1].gone);
	EXPECT_EQ(0, count_qpairs(&self->nl));
	/* The kind's refusals kept the 4,096 rejections the two qpairs reported. */
	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	EXPECT_EQ(ia_nl_kind_refusals(&st0, QPAIR) + 4096, ia_nl_kind_refusals(&st, QPAIR));
	ia_nl_free(&st0);
	ia_nl_free(&st);
}

/* The same load with deferral: nothing rejected, every operation completed once. */
TEST_F(qp, two_qpairs_deferred_none_rejected)
{
	struct qp_model m[2];
	ia_quota_t q[MAXQ] = {};
	struct ev_tally t[2] = { 0 };
	const ia_quota_t *a;
	uint32_t id[2];
	int r, i, n;

	open_pair(_metadata, m, "nvme1", true, id);
	for (r = 1; r <= 4; r++) {
		for (i = 0; i < 2; i++)
			qp_burst(&m[i], 1024);
		n = ia_dump_quotas(&self->nl, QPAIR, -1, -1, q, MAXQ);
		ASSERT_EQ(2, n);
		for (i = 0; i < 2; i++) {
			a = find_q(q, n, id[i]);
			ASSERT_NE(NULL, a);
			EXPECT_EQ(512, a->used);
			EXPECT_EQ(512, a->deferred_now);	/* 1,024 deferred this round */
			EXPECT_EQ(512ULL * r, a->deferred_total);
			EXPECT_EQ(0, a->refusals);
		}
		ia_nl_free_n(q, n);
		for (i = 0; i < 2; i++)
			qp_drain(&m[i]);
	}
	n = ia_dump_quotas(&self->nl, QPAIR, -1, -1, q, MAXQ);
	ASSERT_EQ(2, n);
	for (i = 0; i < 2; i++) {
		a = find_q(q, n, id[i]);
		ASSERT_NE(NULL, a);
		EXPECT_EQ(0, a->used);
		EXPECT_EQ(0, a->refusals);
		EXPECT_EQ(0, a->deferred_now);
		EXPECT_EQ(2048, a->deferred_total);
		EXPECT_EQ(4096, a->submitted);
		EXPECT_EQ(4096, a->completed);
		EXPECT_EQ(0, a->flags);
		EXPECT_EQ(0, qp_not_exactly_once(&m[i]));
		EXPECT_EQ(4096, m[i].nops);
		EXPECT_EQ(0, iaq_close(m[i].q));
		qp_fini(&m[i]);
	}
	ia_nl_free_n(q, n);
	collect(&self->ev, id, t, both_gone);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, t[i].fail);
		EXPECT_EQ(1, t[i].gone);
		EXPECT_GE(t[i].warn, 1);	/* the pool was full: that is still worth a warn */
	}
}

/* An owner killed with operations outstanding is reported gone with them. */
TEST_F(qp, owner_killed_reported_gone_with_outstanding)
{
	ia_quota_t q = {};
	ia_event_t e = {};
	int pfd[2];
	uint32_t id;
	pid_t pid;
	int st;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct iaq *h = iaq_open("doomed", 32);

		if (!h)
			_exit(1);
		iaq_acquire(h, 5);
		iaq_deferred(h, +2);
		id = iaq_id(h);
		if (write(pfd[1], &id, sizeof(id)) != sizeof(id))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ASSERT_EQ(sizeof(id), read(pfd[0], &id, sizeof(id)));
	close(pfd[0]);
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, id, &q));
	EXPECT_EQ(5, q.used);
	EXPECT_EQ(pid, q.owner.pid);
	ia_nl_free(&q);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(1, next_event_of(&self->ev, id, &e, 5000));
	EXPECT_EQ(T_GONE, e.type);
	EXPECT_EQ(5, e.quota.used);
	EXPECT_EQ(2, e.quota.deferred_now);
	EXPECT_EQ(5, e.quota.submitted);
	EXPECT_EQ(pid, e.quota.owner.pid);
	EXPECT_EQ(pid, e.owner.pid);
	EXPECT_STREQ("doomed", e.quota.name);
	/* Reported once, then removed. */
	EXPECT_EQ(0, next_event_of(&self->ev, id, &e, 500));
	EXPECT_EQ(-ENOENT, ia_get_quota(&self->nl, QPAIR, id, &q));
	ia_nl_free(&e);
}

struct thr_arg {
	struct iaq *q;
	unsigned int seed;
	uint64_t ops, rejected, deferred;
};

#define THR_OPS 50000

static void *worker(void *p)
{
	struct thr_arg *a = p;
	uint64_t i;

	for (i = 0; i < THR_OPS; i++) {
		unsigned int n = 1 + rand_r(&a->seed) % 4;

		iaq_acquire(a->q, n);
		if (!(i % 97)) {
			iaq_rejected(a->q, 1);
			a->rejected++;
		}
		if (!(i % 89)) {
			iaq_deferred(a->q, +3);
			iaq_deferred(a->q, -3);
			a->deferred += 3;
		}
		iaq_release(a->q, n);
		a->ops += n;
	}
	return NULL;
}

static void *dumper(void *p)
{
	volatile int *stop = p;
	struct ia_nl nl;
	static ia_quota_t q[MAXQ];

	if (ia_nl_open(&nl))
		return NULL;
	while (!*stop) {
		int n = ia_dump_quotas(&nl, QPAIR, -1, -1, q, MAXQ);

		ia_nl_free_n(q, n);
	}
	ia_nl_close(&nl);
	return NULL;
}

/* 8 threads on one object while dumps run: exact counts, never inconsistent. */
TEST_F(qp, eight_threads_counters_exact)
{
	struct thr_arg a[8];
	pthread_t th[8], d;
	volatile int stop = 0;
	uint64_t ops = 0, rej = 0, dfr = 0;
	struct iaq *h = iaq_open("shared", 64);
	ia_quota_t q = {};
	int i;

	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, pthread_create(&d, NULL, dumper, (void *)&stop));
	for (i = 0; i < 8; i++) {
		a[i] = (struct thr_arg){ .q = h, .seed = 1234u + i };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker, &a[i]));
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ops += a[i].ops;
		rej += a[i].rejected;
		dfr += a[i].deferred;
	}
	stop = 1;
	pthread_join(d, NULL);
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, iaq_id(h), &q));
	EXPECT_EQ(ops, q.submitted);
	EXPECT_EQ(ops, q.completed);
	EXPECT_EQ(0, q.used);
	EXPECT_EQ(rej, q.refusals);
	EXPECT_EQ(dfr, q.deferred_total);
	EXPECT_EQ(0, q.deferred_now);
	EXPECT_LE(q.peak, 32);		/* 8 threads hold at most 4 each */
	EXPECT_GE(q.peak, 1);
	EXPECT_EQ(0, q.flags);
	ia_nl_free(&q);
	iaq_close(h);
}

/* Runs @fn as @uid in a child; its exit status. */
static int as_uid(uid_t uid, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

struct unpriv {
	uint32_t root_id;
};

static int unpriv_view(void *p)
{
	struct unpriv *u = p;
	ia_quota_t q[MAXQ] = {};
	struct ia_nl nl;
	struct iaq *h = iaq_open("mine", 16);
	int n;

	if (!h)
		return 1;
	if (ia_nl_open(&nl))
		return 2;
	n = ia_dump_quotas(&nl, QPAIR, -1, -1, q, MAXQ);
	if (n != 1 || q[0].id != iaq_id(h) || q[0].uid != getuid())
		return 3;
	ia_nl_free_n(q, n);
	if (ia_get_quota(&nl, QPAIR, u->root_id, q) != -ENOENT)
		return 4;
	/* Asking for someone else's by uid: nothing, not an error. */
	if (count_quotas(&nl, QPAIR, 0, -1) != 0)
		return 5;
	if (count_quotas(&nl, -1, -1, getpid()) != 1)
		return 6;
	ia_nl_close(&nl);
	iaq_close(h);
	return 0;
}

/* The module's bound on sockets subscribed to the events (kmod/nl.c). */
#define IA_SUBS_MAX 64

static int unpriv_subscribe(void *p)
{
	struct ia_nl nl;
	int r;

	if (ia_nl_open(&nl))
		return 1;
	r = ia_events_subscribe(&nl);
	ia_nl_close(&nl);
	return r == -EPERM ? 0 : 2;
}

/*
 * The unicast subscription (SUBSCRIBE_EVENTS), which is how events reach a
 * client where the kernel cannot restrict the group (5.10), asked for on
 * every kernel: a subscribed socket gets a qpair's events as the fixture's
 * (group or subscription) does, with the same sequence numbers; asking
 * again changes nothing; an unprivileged caller is refused with EPERM; at
 * most 64 sockets, and one closed leaves room for another (the module
 * forgets a socket at its release).
 */
TEST_F(qp, events_by_unicast_subscription)
{
	struct ia_nl sub, more[IA_SUBS_MAX + 1];
	ia_event_t e = {}, f = {};
	struct qp_model m;
	struct iaq *h;
	int i, n, r;

	ASSERT_EQ(0, ia_nl_open(&sub));
	ASSERT_EQ(0, ia_events_subscribe(&sub));
	ASSERT_EQ(0, ia_events_subscribe(&sub));
	h = iaq_open("sub-qp", 512);
	ASSERT_NE(NULL, h) TH_LOG("iaq_open: %s", iaq_strerror(errno));
	ASSERT_EQ(0, qp_init(&m, h, 512, false, 4096));
	qp_burst(&m, 1024);
	/* warn, crit, the first rejection: each on both sockets, once. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, next_event_of(&sub, iaq_id(h), &e, 5000)) TH_LOG("event %d", i);
		ASSERT_EQ(1, next_event_of(&self->ev, iaq_id(h), &f, 5000)) TH_LOG("event %d", i);
		EXPECT_EQ(f.seq, e.seq);
		EXPECT_EQ(f.type, e.type);
	}
	ia_nl_free(&e);
	ia_nl_free(&f);
	qp_drain(&m);
	qp_fini(&m);
	EXPECT_EQ(0, as_uid(65534, unpriv_subscribe, NULL));
	/* Room for 64: this test's socket, the fixture's where it subscribed, others'. */
	for (n = 0; n <= IA_SUBS_MAX; n++) {
		ASSERT_EQ(0, ia_nl_open(&more[n]));
		r = ia_events_subscribe(&more[n]);
		if (r) {
			EXPECT_NE(NULL, strstr(more[n].extack, "64 sockets"))
				TH_LOG("extack: %s", more[n].extack);
			ia_nl_close(&more[n]);
			break;
		}
	}
	EXPECT_EQ(-ENOSPC, r);
	ASSERT_TRUE(n >= 1 && n < IA_SUBS_MAX) TH_LOG("%d subscribed before ENOSPC", n);
	ia_nl_close(&more[0]);
	ASSERT_EQ(0, ia_nl_open(&more[0]));
	EXPECT_EQ(0, ia_events_subscribe(&more[0]));
	for (i = 0; i < n; i++)
		ia_nl_close(&more[i]);
	ia_nl_close(&sub);
}

/* An unprivileged user sees its own quotas only; root sees all, filters work. */
TEST_F(qp, unprivileged_sees_own_only)
{
	struct iaq *h = iaq_open("roots", 16);
	struct unpriv u;

	ASSERT_NE(NULL, h);
	u.root_id = iaq_id(h);
	EXPECT_EQ(0, as_uid(42101, unpriv_view, &u));
	EXPECT_EQ(1, count_quotas(&self->nl, QPAIR, 0, -1));
	EXPECT_EQ(1, count_quotas(&self->nl, QPAIR, -1, getpid()));
	EXPECT_EQ(0, count_quotas(&self->nl, QPAIR, 42101, -1));
	/* A pid filter leaves no uid pot (it has no owning process). */
	EXPECT_EQ(1, count_quotas(&self->nl, -1, -1, getpid()));
	iaq_close(h);
}

static int cap_fill(void *p)
{
	struct iaq *h[4];
	int i;

	(void)p;
	for (i = 0; i < 3; i++)
		if (!(h[i] = iaq_open("capped", 8)))
			return 10 + i;
	if (iaq_open("one-too-many", 8) || errno != EDQUOT)
		return 20;
	iaq_close(h[0]);
	if (!(h[3] = iaq_open("again", 8)))
		return 30;
	return 0;
}

static int set_param(const char *name, const char *val)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/module/iommu_account/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -errno;
	close(fd);
	return ret;
}

/* Creation is open to all, so bounded per uid: EDQUOT past the cap. */
TEST_F(qp, per_uid_cap_edquot)
{
	struct iaq *h;

	ASSERT_EQ(0, set_param("quota_max_per_uid", "3"));
	EXPECT_EQ(0, as_uid(42102, cap_fill, NULL));
	/* Another uid is not affected by that one's objects. */
	h = iaq_open("other-uid", 8);
	EXPECT_NE(NULL, h);
	iaq_close(h);
	ASSERT_EQ(0, set_param("quota_max_per_uid", "1024"));
}

/* The objects' memory is charged to the creator's memory cgroup. */
TEST_F(qp, memory_charged_to_creator_cgroup)
{
	char cg[128], path[192], buf[64];
	uint64_t before, after;
	struct iaq *h[200];
	int fd, i;
	FILE *f;

	f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "r+");
	if (!f || fprintf(f, "+memory") < 0 || fflush(f)) {
		if (f)
			fclose(f);
		SKIP(return, "no memory controller in this kernel's cgroup v2");
	}
	fclose(f);
	snprintf(cg, sizeof(cg), "/sys/fs/cgroup/ia-qp-%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	snprintf(buf, sizeof(buf), "%d", getpid());
	ASSERT_GT(write(fd, buf, strlen(buf)), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%lu", &before));
	for (i = 0; i < 200; i++)
		ASSERT_NE(NULL, h[i] = iaq_open("charged", 8))
			TH_LOG("object %d: %s", i, iaq_strerror(errno));
	rewind(f);
	ASSERT_EQ(1, fscanf(f, "%lu", &after));
	fclose(f);
	/* Two pages each, at least. */
	EXPECT_GE(after - before, 200ULL * 2 * sysconf(_SC_PAGESIZE))
		TH_LOG("memory.current grew by %lu bytes", after - before);
	for (i = 0; i < 200; i++)
		iaq_close(h[i]);
	fd = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY);
	snprintf(buf, sizeof(buf), "%d", getpid());
	if (fd >= 0) {
		(void)!write(fd, buf, strlen(buf));
		close(fd);
	}
	rmdir(cg);
}

/*
 * A publisher scribbling on its own page: its object is clamped and
 * flagged inconsistent; another object is untouched; the module lives.
 */
TEST_F(qp, scribbled_page_flags_only_its_own)
{
	struct iommu_account_quota_create req;
	struct iommu_account_quota_counters *c;
	long page = sysconf(_SC_PAGESIZE);
	struct iaq *good = iaq_open("good", 100);
	ia_quota_t q = {};
	int fd, k;

	ASSERT_NE(NULL, good);
	iaq_acquire(good, 7);
	req_init(&req, "scribbler", 100);
	fd = create_raw(&req);
	ASSERT_GE(fd, 0);
	c = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, c);
	/* Completions above submissions, a peak beyond the capacity. */
	c->submitted = 10;
	c->completed = 50;
	c->peak = ~0ULL;
	c->deferred_now = 5;
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, req.id, &q));
	EXPECT_EQ(IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT, q.flags);
	EXPECT_EQ(0, q.used);
	EXPECT_LE(q.peak, 100);
	EXPECT_LE(q.completed, q.submitted);
	EXPECT_LE(q.deferred_now, q.deferred_total);
	ia_nl_free(&q);
	/* Random garbage, NOTIFY storms: still only its own. */
	for (k = 0; k < 1000; k++) {
		uint64_t *w = (uint64_t *)c;

		w[rand() % (sizeof(*c) / 8)] = ((uint64_t)rand() << 32) ^ rand();
		ioctl(fd, IOMMU_ACCOUNT_QUOTA_NOTIFY);
	}
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, req.id, &q));
	EXPECT_LE(q.used, 100);
	EXPECT_LE(q.peak, 100);
	ia_nl_free(&q);
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, iaq_id(good), &q));
	EXPECT_EQ(0, q.flags);
	EXPECT_EQ(7, q.used);
	ia_nl_free(&q);
	munmap(c, page);
	close(fd);
	iaq_close(good);
}

/* The storm of notify_storm_raises_one_event, run by its own uid. */
struct storm {
	uint32_t id;
};

static int storm_run(void *p)
{
	struct storm *st = p;
	struct iommu_account_quota_create req;
	struct iommu_account_quota_counters *c;
	long page = sysconf(_SC_PAGESIZE);
	int fd, k;

	req_init(&req, "storm", 10);
	fd = create_raw(&req);
	if (fd < 0)
		return 1;
	c = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return 2;
	st->id = req.id;
	c->submitted = 9;	/* 90 %: warn */
	for (k = 0; k < 10000; k++)
		if (ioctl(fd, IOMMU_ACCOUNT_QUOTA_NOTIFY))
			return 3;
	munmap(c, page);
	close(fd);
	return 0;
}

/*
 * NOTIFY in a loop raises nothing more than the state calls for. By a uid
 * of its own: each uid's events have a budget (event_rate, event_burst),
 * and root's may still be spent by an earlier test's gone events (200
 * objects closed at once), which would hold back this one's crossing -
 * counted against root, but not sent.
 */
TEST_F(qp, notify_storm_raises_one_event)
{
	struct storm *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ev_tally t[2] = { 0 };
	uint32_t id[2];

	ASSERT_NE(MAP_FAILED, st);
	ASSERT_EQ(0, as_uid(42107, storm_run, st));
	id[0] = st->id;
	id[1] = 0;
	munmap(st, sizeof(*st));
	collect(&self->ev, id, t, first_gone);
	EXPECT_EQ(1, t[0].warn);
	EXPECT_EQ(0, t[0].crit);
	EXPECT_EQ(1, t[0].gone);
}

/* The kind's thresholds apply at once to objects without their own. */
TEST_F(qp, kind_thresholds_apply_to_objects_without_own)
{
	struct iommu_account_quota_create req;
	struct iaq_opts o = { .size = sizeof(o), .kind = IAQ_KIND_QPAIR, .name = "own",
			      .capacity = 100, .warn = 900, .crit = 990 };
	struct iaq *own = iaq_open_opts(&o), *dflt = iaq_open("default", 100);
	struct ev_tally t[2] = { 0 };
	ia_quota_t q = {};
	uint32_t id[2];

	ASSERT_NE(NULL, own);
	ASSERT_NE(NULL, dflt);
	(void)req;
	iaq_acquire(own, 60);
	iaq_acquire(dflt, 60);
	id[0] = iaq_id(own);
	id[1] = iaq_id(dflt);
	ASSERT_EQ(0, ia_set_qpair_thresholds(&self->nl, 500, 700, 50));
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, id[1], &q));
	EXPECT_EQ(500, q.warn);
	ia_nl_free(&q);
	ASSERT_EQ(0, ia_get_quota(&self->nl, QPAIR, id[0], &q));
	EXPECT_EQ(900, q.warn);
	ia_nl_free(&q);
	iaq_close(own);
	iaq_close(dflt);
	collect(&self->ev, id, t, both_gone);
	/* 60 % is past the new warn (raised at once) for the default one only. */
	EXPECT_EQ(0, t[0].warn);
	EXPECT_EQ(1, t[1].warn);
	EXPECT_EQ(0, t[1].crit);
}

/* The module cannot go while an object exists (each holds a reference). */
TEST_F(qp, rmmod_refused_while_object_open)
{
	struct iaq *h = iaq_open("pin", 8);

	ASSERT_NE(NULL, h);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "iommu_account", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	iaq_close(h);
}

IA_HARNESS_MAIN
