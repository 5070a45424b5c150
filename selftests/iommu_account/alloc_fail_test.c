// SPDX-License-Identifier: GPL-2.0
/*
 * Allocations that fail, one at a time, inside the calls the module follows
 * (issue 67: "memory allocation failing at 1M records keeps every count
 * exact or flagged and frees what it took"). On the debug kernel
 * (CONFIG_FAILSLAB: /proc/PID/fail-nth fails the Nth slab allocation of
 * one task, whichever code makes it, the kernel's or the module's), each
 * test runs one call with its 1st, 2nd, ... allocation failing until the
 * call makes no more, and after each checks the module against the kernel:
 *
 *   - the pot's io_uring breakdown equals the pot itself
 *     (user_struct->locked_vm, the kernel's own figure, which GET_UID
 *     reads) unless the uid says its figures are inexact (no-memory): a
 *     charge the module could not record is flagged, never lost silently;
 *   - whatever the kernel answered (a registration it refused for want of
 *     memory charges nothing), everything released leaves nothing counted;
 *   - a dump that fails says so with an errno and the next one is whole.
 *
 * Every allocation of the task counts, GFP_KERNEL ones too
 * (failslab/ignore-gfp-wait is set to N for the test and put back), so the
 * kernel's own failures after a charge (its unaccount on the error path)
 * are among them. Meanwhile another uid holds IA_ALLOC_FAIL_RECORDS
 * (default 8,192) one-page buffers: the tables the failing calls look
 * into are grown ones. kmemleak (scanned by the harness after the boot's
 * command) finds what a failed path did not free. Each failing call is
 * made by an agent of a uid of its own (the inexact flag stays with its uid).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/io_uring.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"
#include "ia_vfio.h"

#define BUFS IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS
#define NO_MEMORY IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY
#define NBUF 8			/* one-page buffers a registration */
#define MAX_N 400		/* a call with more allocations than this fails the test */
#define BG_UID 42190
#define REG_UID 42200		/* REG_UID + n: the registration of test 1's round n */
#define UNREG_UID 42700		/* UNREG_UID + n: test 2's */
#define FAILSLAB "/sys/kernel/debug/failslab/"

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Arm fail-nth (opened on this thread, before it changed uid) for @n; 0: disarm. */
static int fail_nth_set(int fd, unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	return pwrite(fd, s, len, 0) == len ? 0 : -errno;
}

/* What is left of an armed count: 0 when the failure was injected. */
static long fail_nth_left(int fd)
{
	char s[16];
	ssize_t n = pread(fd, s, sizeof(s) - 1, 0);

	if (n <= 0)
		return -1;
	s[n] = 0;
	return strtol(s, NULL, 10);
}

/* --- an agent that makes its calls with one allocation failing ------------------- */

enum { A_REG = 1, A_UNREG, A_LEFT };

struct fail_agent {
	uid_t uid;
	int nth;	/* /proc/thread-self/fail-nth, opened as root */
	int ring;
	long left;	/* fail-nth after the last call */
	char *mem;
};

static int64_t fail_setup(void *priv)
{
	struct fail_agent *f = priv;
	int ret;

	f->nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (f->nth < 0)
		return -errno;
	ret = become_user(f->uid, 64 * 4096);
	if (ret)
		return ret;
	f->mem = mmap(NULL, NBUF * 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->mem == MAP_FAILED)
		return -errno;
	madvise(f->mem, NBUF * 4096, MADV_NOHUGEPAGE);
	memset(f->mem, 1, NBUF * 4096);
	f->ring = ring_setup(8);
	return f->ring < 0 ? f->ring : 0;
}

/* Op @op with its @n-th allocation failing (0: none); the kernel's answer. */
static int64_t fail_run(void *priv, const struct agent_cmd *c)
{
	struct fail_agent *f = priv;
	struct iovec iov[NBUF];
	long ret;
	int i;

	if (c->op == A_LEFT)
		return f->left;
	for (i = 0; i < NBUF; i++) {
		iov[i].iov_base = f->mem + i * 4096;
		iov[i].iov_len = 4096;
	}
	if (fail_nth_set(f->nth, (unsigned int)c->a))
		return -EIO;
	if (c->op == A_REG)
		ret = syscall(__NR_io_uring_register, f->ring, IORING_REGISTER_BUFFERS, iov, NBUF);
	else if (c->op == A_UNREG)
		ret = syscall(__NR_io_uring_register, f->ring, IORING_UNREGISTER_BUFFERS, NULL, 0);
	else
		return -EINVAL;
	ret = ret < 0 ? -errno : 0;
	f->left = c->a ? fail_nth_left(f->nth) : -1;
	fail_nth_set(f->nth, 0);
	return ret;
}

static int fail_agent_start(struct agent *a, uid_t uid)
{
	struct fail_agent f = { .uid = uid, .nth = -1, .ring = -1 };

	return agent_fork(a, fail_setup, fail_run, &f);
}

/* --- the fixture ---------------------------------------------------------------- */

FIXTURE(af) {
	struct ia_nl nl;
	struct agent bg;
	char gfp_wait[8], verbose[8];
};

FIXTURE_SETUP(af)
{
	const char *e = getenv("IA_ALLOC_FAIL_RECORDS");
	long records = e ? strtol(e, NULL, 10) : 8192;

	if (access(FAILSLAB, F_OK) && access("/sys/kernel/debug", F_OK) == 0)
		system("mount -t debugfs none /sys/kernel/debug 2>/dev/null");
	if (access(FAILSLAB, F_OK) || access("/proc/self/fail-nth", F_OK))
		SKIP(return, "no CONFIG_FAILSLAB or fail-nth in this kernel (the debug kernel has both)");
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, read_str(FAILSLAB "ignore-gfp-wait", self->gfp_wait, sizeof(self->gfp_wait)));
	ASSERT_EQ(0, read_str(FAILSLAB "verbose", self->verbose, sizeof(self->verbose)));
	/* Every allocation of the armed task, GFP_KERNEL ones too; no stack dump each. */
	ASSERT_EQ(0, write_file(FAILSLAB "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_file(FAILSLAB "verbose", "0"));
	ASSERT_EQ(0, agent_hold_pages(&self->bg, BG_UID, records > 0 ? records : 8192));
}

FIXTURE_TEARDOWN(af)
{
	if (self->gfp_wait[0])
		write_file(FAILSLAB "ignore-gfp-wait", self->gfp_wait);
	if (self->verbose[0])
		write_file(FAILSLAB "verbose", self->verbose);
	if (self->bg.pid > 0)
		agent_stop(&self->bg);
	ia_nl_close(&self->nl);
}

struct pot {
	int64_t locked, bufs, pending;
	uint32_t inexact;
};

static int pot_of(struct ia_nl *nl, uid_t uid, struct pot *p)
{
	ia_uid_t u;
	int ret = ia_get_uid(nl, uid, &u);

	if (ret)
		return ret;
	p->locked = (int64_t)u.locked_bytes;
	p->bufs = (int64_t)IA_CONSUMER(&u, BUFS);
	p->pending = (int64_t)u.pending_bytes;
	p->inexact = u.inexact;
	ia_nl_free(&u);
	return 0;
}

/* The pot of @uid is exact (its breakdown is the kernel's pot) or says it is not. */
#define EXPECT_EXACT_OR_FLAGGED(p, what, n) \
	EXPECT_TRUE((p).bufs == (p).locked || ((p).inexact & NO_MEMORY)) \
		TH_LOG("%s, allocation %d failing: io_uring buffers %lld B, the kernel's pot %lld B, inexact 0x%x", \
		       what, n, (long long)(p).bufs, (long long)(p).locked, (p).inexact)

struct tally {
	int rounds, refused, flagged;
};

/*
 * Registrations of NBUF pages, the n-th allocation failing (n = 1, 2, ...),
 * each by a fresh agent of uid @base + n; @release_failing: the
 * registration whole and its unregistration failing instead. After each:
 * exact or flagged; once the buffers are unregistered (again, whole) and
 * the agent gone, nothing of the uid counted.
 */
static void rounds_of(struct __test_metadata *_metadata, struct ia_nl *nl, uid_t base,
		      bool release_failing, struct tally *t)
{
	const char *what = release_failing ? "unregister" : "register";
	struct agent a;
	struct pot p;
	int n;

	for (n = 1; n <= MAX_N; n++) {
		int64_t ret, left;

		ASSERT_EQ(0, fail_agent_start(&a, base + n));
		if (release_failing)
			ASSERT_EQ(0, agent_call(&a, A_REG, 0, 0, 0));
		ret = agent_call(&a, release_failing ? A_UNREG : A_REG, n, 0, 0);
		left = agent_call(&a, A_LEFT, 0, 0, 0);
		ASSERT_GE(left, 0);
		ASSERT_EQ(0, pot_of(nl, base + n, &p));
		EXPECT_EXACT_OR_FLAGGED(p, what, n);
		t->refused += ret != 0;
		t->flagged += !!(p.inexact & NO_MEMORY);
		/* Whole this time (ENXIO: nothing was left registered): all goes. */
		ret = agent_call(&a, A_UNREG, 0, 0, 0);
		EXPECT_TRUE(ret == 0 || ret == -ENXIO) TH_LOG("unregister -> %lld", (long long)ret);
		ASSERT_EQ(0, pot_of(nl, base + n, &p));
		EXPECT_EQ(0, p.locked);
		EXPECT_EQ(0, p.bufs) TH_LOG("%s, allocation %d failing: %lld B still counted after all went",
					    what, n, (long long)p.bufs);
		EXPECT_EQ(0, p.pending);
		/* Gone: its user_struct may go too (ENOENT), with nothing counted. */
		agent_stop(&a);
		ret = pot_of(nl, base + n, &p);
		EXPECT_TRUE(ret == -ENOENT || (ret == 0 && !p.bufs && !p.pending))
			TH_LOG("after the agent: %lld, %lld B counted, %lld B pending", (long long)ret,
			       (long long)p.bufs, (long long)p.pending);
		if (left > 0)
			break;	/* the call made fewer than n allocations: all were tried */
	}
	t->rounds = n;
	ASSERT_LE(n, MAX_N) TH_LOG("%s made more than %d allocations", what, MAX_N);
	ASSERT_GT(n, 1) TH_LOG("no allocation of %s failed: fail-nth not working?", what);
	TH_LOG("%s: %d allocations failed one at a time; the kernel refused %d calls, the uid was flagged inexact %d times",
	       what, n - 1, t->refused, t->flagged);
}

TEST_F_TIMEOUT(af, register_with_each_allocation_failing, 900)
{
	struct tally t = { 0 };

	rounds_of(_metadata, &self->nl, REG_UID, false, &t);
	/* Some failures were the kernel's (it refused the call), some the module's (flagged). */
	EXPECT_GT(t.refused, 0);
	EXPECT_GT(t.flagged, 0);
}

TEST_F_TIMEOUT(af, unregister_with_each_allocation_failing, 900)
{
	struct tally t = { 0 };

	rounds_of(_metadata, &self->nl, UNREG_UID, true, &t);
}

/* The background uid's figures, as a dump of every uid gives them. */
static int dump_bg(struct ia_nl *nl, struct pot *p)
{
	ia_uid_t *u = calloc(4096, sizeof(*u));
	int i, n, found = -ENOENT;

	if (!u)
		return -ENOMEM;
	n = ia_dump_uids(nl, u, 4096);
	for (i = 0; i < n; i++)
		if (u[i].uid == BG_UID) {
			p->locked = (int64_t)u[i].locked_bytes;
			p->bufs = (int64_t)IA_CONSUMER(&u[i], BUFS);
			p->pending = (int64_t)u[i].pending_bytes;
			p->inexact = u[i].inexact;
			found = 0;
		}
	if (n > 0)
		ia_nl_free_n(u, n);
	free(u);
	return n < 0 ? n : found;
}

static int dump_procs(struct ia_nl *nl, uid_t uid)
{
	ia_proc_t *p = calloc(256, sizeof(*p));
	int n;

	if (!p)
		return -ENOMEM;
	n = ia_dump_procs(nl, true, uid, p, 256);
	if (n > 0)
		ia_nl_free_n(p, n);
	free(p);
	return n;
}

static int dump_quotas(struct ia_nl *nl)
{
	ia_quota_t *q = calloc(4096, sizeof(*q));
	int n;

	if (!q)
		return -ENOMEM;
	n = ia_dump_quotas(nl, -1, -1, -1, q, 4096);
	if (n > 0)
		ia_nl_free_n(q, n);
	free(q);
	return n;
}

/*
 * The uids, procs and quotas dumps with their n-th allocation failing (the
 * test's own thread: its socket, the module's snapshot, the messages): each
 * answers whole or with an errno, and the next, whole, equals the first.
 */
TEST_F_TIMEOUT(af, dumps_with_each_allocation_failing, 900)
{
	int nth = open("/proc/thread-self/fail-nth", O_RDWR);
	struct pot ref, p;
	int d, n, procs, quotas, errors = 0;

	ASSERT_LE(0, nth);
	ASSERT_EQ(0, dump_bg(&self->nl, &ref));
	ASSERT_EQ(ref.locked, ref.bufs);
	ASSERT_EQ(0, ref.inexact);
	procs = dump_procs(&self->nl, BG_UID);
	ASSERT_EQ(1, procs);
	quotas = dump_quotas(&self->nl);
	ASSERT_LT(0, quotas);
	for (d = 0; d < 3; d++) {
		for (n = 1; n <= MAX_N; n++) {
			int ret;
			long left;

			ASSERT_EQ(0, fail_nth_set(nth, n));
			ret = d == 0 ? dump_bg(&self->nl, &p) :
			      d == 1 ? dump_procs(&self->nl, BG_UID) : dump_quotas(&self->nl);
			left = fail_nth_left(nth);
			fail_nth_set(nth, 0);
			if (ret < 0) {
				errors++;
				/* An answer, not a hang: the socket may be left mid-dump. */
				ia_nl_close(&self->nl);
				ASSERT_EQ(0, ia_nl_open(&self->nl));
			} else if (d == 0) {
				EXPECT_EQ(ref.bufs, p.bufs) TH_LOG("uids dump, allocation %d failing", n);
				EXPECT_EQ(ref.locked, p.locked);
			} else {
				EXPECT_EQ(d == 1 ? procs : quotas, ret)
					TH_LOG("dump %d, allocation %d failing: %d objects, not the whole", d, n, ret);
			}
			/* The next, whole, as the first. */
			ASSERT_EQ(0, dump_bg(&self->nl, &p));
			EXPECT_EQ(ref.bufs, p.bufs);
			EXPECT_EQ(ref.locked, p.locked);
			EXPECT_EQ(0, p.inexact);
			EXPECT_EQ(procs, dump_procs(&self->nl, BG_UID));
			EXPECT_EQ(quotas, dump_quotas(&self->nl));
			if (left > 0)
				break;
		}
		ASSERT_LE(n, MAX_N);
		ASSERT_GT(n, 1) TH_LOG("dump %d: no allocation failed", d);
		TH_LOG("dump %d (uids, procs, quotas): %d allocations failed one at a time", d, n - 1);
	}
	TH_LOG("%d dumps answered with an errno", errors);
	close(nth);
}

/* --- VFIO: MAP_DMA and UNMAP_DMA with one allocation failing ------------------- */

struct ctr_view {
	int64_t entries, kernel_entries, pinned, kernel_pinned;
	uint32_t inexact;
};

/* The container of this process as the module and as the kernel count it. */
static int ctr_view(struct ia_nl *nl, struct vfio_ctr *c, long long vmlck0, struct ctr_view *v)
{
	ia_container_t ct = {};
	uint32_t avail;
	int ret;

	ret = vfio_dma_avail(c, &avail);
	if (ret)
		return ret;
	ret = ia_container_of_pid(nl, getpid(), &ct);
	if (ret)
		return ret;
	v->entries = ct.entries;
	v->kernel_entries = (int64_t)ct.limit - avail;
	v->pinned = (int64_t)ct.pinned_pages * 4096;
	v->kernel_pinned = vm_locked_bytes() - vmlck0;
	v->inexact = ct.inexact;
	ia_nl_free(&ct);
	return 0;
}

/*
 * Each round a fresh container with two mappings, then a third mapped (or
 * one of the three unmapped) with its n-th allocation failing: the
 * container's entries are the kernel's (dma_entry_limit less
 * VFIO_IOMMU_GET_INFO's DMA_AVAIL) and its pinned pages the growth of this
 * process's VmLck, or the container says inexact (no-memory); closed, it
 * is gone.
 */
static void vfio_rounds(struct __test_metadata *_metadata, struct ia_nl *nl, bool unmap)
{
	const char *what = unmap ? "UNMAP_DMA" : "MAP_DMA";
	int nth = open("/proc/thread-self/fail-nth", O_RDWR), group, n, refused = 0, flagged = 0;
	long long vmlck0 = vm_locked_bytes();
	ia_container_t ct = {};

	ASSERT_LE(0, nth);
	ASSERT_LE(0, vmlck0);
	ASSERT_EQ(1, vfio_edu_groups(&group, 1)) TH_LOG("no edu device bound to vfio-pci");
	for (n = 1; n <= MAX_N; n++) {
		struct vfio_ctr c;
		struct ctr_view v;
		long left;
		int ret;

		ASSERT_EQ(0, vfio_ctr_open_buf(&c, group, 4 * 4096));
		ASSERT_EQ(0, vfio_map(&c, 0x100000, 4096));
		ASSERT_EQ(0, vfio_map(&c, 0x200000, 4096));
		if (unmap)
			ASSERT_EQ(0, vfio_map(&c, 0x300000, 4096));
		ASSERT_EQ(0, fail_nth_set(nth, n));
		ret = unmap ? vfio_unmap(&c, 0x200000, 4096) : vfio_map(&c, 0x300000, 4096);
		left = fail_nth_left(nth);
		fail_nth_set(nth, 0);
		ASSERT_EQ(0, ctr_view(nl, &c, vmlck0, &v)) TH_LOG("%s, allocation %d failing: no container", what, n);
		EXPECT_TRUE((v.entries == v.kernel_entries && v.pinned == v.kernel_pinned) ||
			    (v.inexact & IOMMU_ACCOUNT_INEXACT_NO_MEMORY))
			TH_LOG("%s, allocation %d failing (-> %d): entries %lld, the kernel's %lld; pinned %lld B, VmLck grew %lld B; inexact 0x%x",
			       what, n, ret, (long long)v.entries, (long long)v.kernel_entries,
			       (long long)v.pinned, (long long)v.kernel_pinned, v.inexact);
		refused += ret != 0;
		flagged += !!(v.inexact & IOMMU_ACCOUNT_INEXACT_NO_MEMORY);
		vfio_ctr_close(&c);
		EXPECT_EQ(-ENOENT, ia_container_of_pid(nl, getpid(), &ct));
		EXPECT_EQ(vmlck0, vm_locked_bytes());
		if (left > 0)
			break;
	}
	close(nth);
	ASSERT_LE(n, MAX_N);
	ASSERT_GT(n, 1) TH_LOG("no allocation of %s failed", what);
	TH_LOG("%s: %d allocations failed one at a time; the kernel refused %d, the container was flagged inexact %d times",
	       what, n - 1, refused, flagged);
	if (!unmap)
		EXPECT_GT(flagged, 0) TH_LOG("no allocation of the module's failed in MAP_DMA");
}

TEST_F_TIMEOUT(af, vfio_map_with_each_allocation_failing, 900)
{
	vfio_rounds(_metadata, &self->nl, false);
}

TEST_F_TIMEOUT(af, vfio_unmap_with_each_allocation_failing, 900)
{
	vfio_rounds(_metadata, &self->nl, true);
}

IA_HARNESS_MAIN
