// SPDX-License-Identifier: GPL-2.0
/*
 * The per-uid locked-memory pot, checked against the kernel's own answers:
 * io_uring registered buffers are charged to user_struct->locked_vm and
 * refused with ENOMEM past RLIMIT_MEMLOCK. Each test uses throwaway uids.
 *
 * Ring memory itself is charged on some kernels (6.16, 6.18) and not on
 * others: every expectation is relative to the pot measured right after the
 * ring exists, never to an assumed zero.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

FIXTURE(pot) {
	struct ia_nl nl;
	long page;
};

FIXTURE_SETUP(pot)
{
	int ret = ia_nl_open(&self->nl);

	ASSERT_EQ(0, ret) TH_LOG("iommu_account family: %s", strerror(-ret));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(pot)
{
	ia_nl_close(&self->nl);
}

/* (b) registered buffers of known sizes are charged page for page. */
TEST_F(pot, registered_buffers_exact)
{
	const uid_t uid = 41001;
	const size_t sizes[] = { 4 * KiB, 64 * KiB, 1 * MiB, 12 * KiB, 300 * KiB };
	struct agent a;
	ia_uid_t u = {};
	int64_t base, want;
	size_t i;

	ASSERT_EQ(0, agent_start(&a, uid, 64 * MiB));
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u)) TH_LOG("%s", self->nl.extack);
	base = (int64_t)u.locked_bytes;
	EXPECT_EQ(1, u.tasks);
	EXPECT_EQ(64 * MiB, u.memlock_min);
	EXPECT_EQ(64 * MiB, u.memlock_max);
	want = base;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ASSERT_EQ(0, agent_register(&a, sizes[i]));
		want += (int64_t)((sizes[i] + self->page - 1) / self->page * self->page);
		ia_nl_free(&u);
		ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
		EXPECT_EQ(want, (int64_t)u.locked_bytes) TH_LOG("after buffer %zu", i);
	}
	ASSERT_TRUE(!!u._present.headroom);
	EXPECT_EQ((int64_t)(64 * MiB) - want, u.headroom);
	ia_nl_free(&u);
	ASSERT_EQ(0, agent_unregister(&a));
	EXPECT_EQ(base, ia_locked(&self->nl, uid));
	agent_stop(&a);
}

/* (c) two processes of one uid share one pot; another uid is untouched. */
TEST_F(pot, shared_pot_two_processes)
{
	const uid_t uid = 41002, other = 41003;
	struct agent p1, p2, q;
	ia_uid_t u = {};
	int64_t base, other_before;

	ASSERT_EQ(0, agent_start(&p1, uid, 4 * MiB));
	ASSERT_EQ(0, agent_start(&p2, uid, 8 * MiB));
	ASSERT_EQ(0, agent_start(&q, other, 4 * MiB));
	base = ia_locked(&self->nl, uid);
	other_before = ia_locked(&self->nl, other);
	ASSERT_LE(0, base);

	/* "Container" 2 takes 3 MiB. */
	ASSERT_EQ(0, agent_register(&p2, 3 * MiB));
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	EXPECT_EQ(2, u.tasks);
	EXPECT_EQ(4 * MiB, u.memlock_min);
	EXPECT_EQ(8 * MiB, u.memlock_max);
	EXPECT_EQ(base + (int64_t)(3 * MiB), (int64_t)u.locked_bytes);
	ASSERT_TRUE(!!u._present.headroom);
	EXPECT_EQ((int64_t)(4 * MiB) - (int64_t)u.locked_bytes, u.headroom);

	/* The kernel agrees with the headroom: one page more is refused for
	 * container 1, which holds nothing itself; exactly the headroom fits. */
	ASSERT_LT(0, u.headroom);
	EXPECT_EQ(-ENOMEM, agent_register(&p1, (size_t)u.headroom + self->page));
	EXPECT_EQ(0, agent_register(&p1, (size_t)u.headroom));
	ia_nl_free(&u);
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	EXPECT_EQ(0, u.headroom);
	ia_nl_free(&u);
	EXPECT_EQ(-ENOMEM, agent_register(&p1, self->page));
	/* Another uid's pot did not move. */
	EXPECT_EQ(other_before, ia_locked(&self->nl, other));

	agent_stop(&p1);
	agent_stop(&p2);
	agent_stop(&q);
}

/* (d) at the kernel's refusal, the reported pot lies in (L - B, L]. */
TEST_F(pot, refusal_matches_limit)
{
	const uid_t uid = 41004;
	const uint64_t L = 1 * MiB, B = 40 * KiB;
	struct agent a;
	int64_t base, locked;
	int ret, k = 0;

	ASSERT_EQ(0, agent_start(&a, uid, L));
	base = ia_locked(&self->nl, uid);
	ASSERT_LE(0, base);
	while ((ret = agent_register(&a, B)) == 0)
		k++;
	ASSERT_EQ(-ENOMEM, ret) TH_LOG("registration %d failed with %d", k + 1, ret);
	locked = ia_locked(&self->nl, uid);
	TH_LOG("refused after %d buffers: pot %lld of limit %llu", k, (long long)locked,
	       (unsigned long long)L);
	EXPECT_EQ(base + (int64_t)(k * B), locked);
	EXPECT_GT(locked, (int64_t)(L - B));
	EXPECT_LE(locked, (int64_t)L);
	agent_stop(&a);
}

/* (e) a pot held by a ring whose owner died is still reported, then drains. */
TEST_F(pot, orphan_pot_reported_until_ring_closed)
{
	const uid_t uid = 41005;
	const struct iommu_account_feature *f;
	ia_status_t st = {};
	struct agent a;
	ia_uid_t u = {};
	int64_t base, v = -2;
	int ring, i;
	bool active;

	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	f = ia_nl_feature(&st, "uid-orphans");
	active = f && f->state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE;
	ia_nl_free(&st);
	if (!active)
		SKIP(return, "uid-orphans unavailable on this kernel");

	ASSERT_EQ(0, agent_start(&a, uid, 16 * MiB));
	base = ia_locked(&self->nl, uid);
	ASSERT_EQ(0, agent_register(&a, 256 * KiB));
	ring = agent_take_ring(&a);
	ASSERT_LE(0, ring);
	agent_stop(&a);		/* the holder exits; we (root) hold its ring */

	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(0, u.tasks);
	EXPECT_EQ(base + (int64_t)(256 * KiB), (int64_t)u.locked_bytes);
	EXPECT_FALSE(!!u._present.memlock_min);
	EXPECT_FALSE(!!u._present.headroom);
	ia_nl_free(&u);

	/* Teardown is deferred to a workqueue: wait up to 20 s (times the scale) for the drain. */
	close(ring);
	for (i = 0; i < 200 * ia_timeout_scale(); i++) {
		v = ia_locked(&self->nl, uid);
		if (v <= 0)
			break;
		usleep(100 * 1000);
	}
	EXPECT_GE(0, v) TH_LOG("pot still %lld after the ring was closed", (long long)v);
}

/* (f) an unprivileged caller sees its own uid only. */
TEST_F(pot, unprivileged_sees_own_uid_only)
{
	const uid_t uid = 41006, other = 41007;
	ia_uid_t all[64] = {};
	struct agent a;
	int i, n, status, others = 0;
	pid_t pid;

	/* Another user is alive: root sees it, uid 41006 must not. */
	ASSERT_EQ(0, agent_start(&a, other, 1 * MiB));
	n = ia_dump_uids(&self->nl, all, 64);
	for (i = 0; i < n; i++)
		others += all[i].uid == other;
	ia_nl_free_n(all, n);
	ASSERT_EQ(1, others) TH_LOG("root's dump lacks uid %u (%d users)", other, n);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ia_nl nl;
		ia_uid_t u[64] = {};
		int m, err;

		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(10);
		if (ia_nl_open(&nl))
			_exit(11);
		m = ia_dump_uids(&nl, u, 64);
		if (m != 1 || u[0].uid != uid || u[0].tasks != 1)
			_exit(12);
		err = ia_get_uid(&nl, 0, u);
		if (err != -EPERM || !nl.extack[0])
			_exit(13);
		if (ia_get_uid(&nl, uid, u) || u[0].uid != uid)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	agent_stop(&a);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("10 setuid, 11 open, 12 dump not confined, 13 no EPERM+extack, 14 own get");
}

/* A dump spanning several messages returns every user exactly once, sorted. */
TEST_F(pot, dump_spans_messages)
{
	enum { N = 300, BASE = 42000 };
	static ia_uid_t u[4096];
	pid_t kids[N];
	int i, n, seen = 0, fds[2];
	char c;

	ASSERT_EQ(0, pipe(fds));
	for (i = 0; i < N; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i]) {
			if (setresuid(BASE + i, BASE + i, BASE + i))
				_exit(1);
			if (write(fds[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
	}
	for (i = 0; i < N; i++)
		ASSERT_EQ(1, read(fds[0], &c, 1));
	n = ia_dump_uids(&self->nl, u, 4096);
	ASSERT_LT(N, n);
	TH_LOG("%d users in %d recv batches", n, self->nl.batches);
	EXPECT_LT(2, self->nl.batches);
	for (i = 0; i < n; i++) {
		if (i)
			EXPECT_LT(u[i - 1].uid, u[i].uid);
		if (u[i].uid >= BASE && u[i].uid < BASE + N) {
			seen++;
			EXPECT_EQ(1, u[i].tasks);
		}
	}
	EXPECT_EQ(N, seen);
	ia_nl_free_n(u, n);
	for (i = 0; i < N; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < N; i++)
		waitpid(kids[i], NULL, 0);
}

/* A limit at or above 2^63 that is not RLIM_INFINITY: headroom saturates, never wraps. */
TEST_F(pot, huge_limit_headroom_saturates)
{
	const uid_t uid = 41009;
	const uint64_t L = (1ULL << 63) + 4096;
	struct agent a;
	ia_uid_t u = {};

	ASSERT_EQ(0, agent_start(&a, uid, L));
	ASSERT_EQ(0, agent_register(&a, 64 * KiB));
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(L, u.memlock_min);
	ASSERT_TRUE(!!u._present.headroom);
	/* L - pot is below 2^63 here: representable, and positive. */
	EXPECT_EQ((int64_t)(L - u.locked_bytes), u.headroom);
	EXPECT_LT(0, u.headroom);
	ia_nl_free(&u);
	agent_stop(&a);
}

/*
 * The pot's quota limit is the one the kernel compares with: that of the
 * process that charges it, not the smallest of the uid's processes. An idle
 * process of the uid with 1 MiB beside a job with 4 MiB: the job fills the
 * pot page by page and the kernel refuses it exactly when used reaches the
 * quota's limit (utilisation 100 %); the smallest stays its own figure.
 */
TEST_F(pot, quota_limit_is_the_chargers)
{
	const uid_t uid = 41010;
	const uint64_t small = 1 * MiB, L = 4 * MiB;
	const uint32_t kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
	struct agent idle, job;
	ia_quota_t q = {};
	uint64_t used;

	ASSERT_EQ(0, agent_start(&idle, uid, small));
	ASSERT_EQ(0, agent_start(&job, uid, L));
	ASSERT_EQ(0, ia_get_quota(&self->nl, kind, uid, &q)) TH_LOG("%s", self->nl.extack);
	ASSERT_TRUE(!!q._present.limit_min);
	EXPECT_EQ(small, q.limit_min);
	ASSERT_TRUE(!!q._present.limit);
	/*
	 * No charge seen yet: the smallest, said so. On a kernel that charges
	 * rings, the job's ring was the last charge.
	 */
	EXPECT_EQ(q.flags & IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST ? small : L, q.limit);
	ia_nl_free(&q);

	/* The job takes all but one page of its limit in one buffer. */
	ASSERT_EQ(0, ia_get_quota(&self->nl, kind, uid, &q));
	used = q.used;
	ia_nl_free(&q);
	ASSERT_GT(L - self->page, used);
	ASSERT_EQ(0, agent_register(&job, L - self->page - used));
	ASSERT_EQ(0, ia_get_quota(&self->nl, kind, uid, &q));
	EXPECT_FALSE(q.flags & IOMMU_ACCOUNT_QUOTA_FLAGS_LIMIT_SMALLEST);
	ASSERT_TRUE(!!q._present.limit);
	EXPECT_EQ(L, q.limit) TH_LOG("the charger's limit, not the idle process's %llu",
				     (unsigned long long)small);
	EXPECT_EQ(small, q.limit_min);
	EXPECT_EQ(L - self->page, q.used);
	ia_nl_free(&q);

	/* The last page: the quota says 100 %, and the kernel agrees. */
	ASSERT_EQ(0, agent_register(&job, self->page));
	ASSERT_EQ(0, ia_get_quota(&self->nl, kind, uid, &q));
	EXPECT_EQ(L, q.limit);
	EXPECT_EQ(q.limit, q.used);
	ia_nl_free(&q);
	EXPECT_EQ(-ENOMEM, agent_register(&job, self->page));

	/* A refused process's own limit does not become the pot's. */
	EXPECT_EQ(-ENOMEM, agent_register(&idle, self->page));
	ASSERT_EQ(0, ia_get_quota(&self->nl, kind, uid, &q));
	EXPECT_EQ(L, q.limit);
	EXPECT_EQ(2, q.refusals);
	ia_nl_free(&q);
	agent_stop(&idle);
	agent_stop(&job);
}

IA_HARNESS_MAIN
