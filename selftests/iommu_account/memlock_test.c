// SPDX-License-Identifier: GPL-2.0
/*
 * The charge paths of the per-uid pot, checked against the kernel's own
 * answers: the ENOMEM of io_uring_register past RLIMIT_MEMLOCK, the pot
 * (user_struct->locked_vm) as GET_UID reads it, the buffer sizes we asked
 * for. Agents (ia_uring.c) are child processes with their own uid and
 * RLIMIT_MEMLOCK that register io_uring buffers on command; each test uses
 * uids of its own and cgroups with unique names.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sched.h>
#include <sys/resource.h>
#include <linux/if_xdp.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define BUFS IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS
#define XDP IOMMU_ACCOUNT_CONSUMER_XDP_UMEM

#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif

FIXTURE(ml) {
	struct ia_nl nl, ev;
	char cg[4][128];
	int ncg;
};

FIXTURE_SETUP(ml)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, ia_nl_open(&self->ev));
	ASSERT_EQ(0, ia_events_join(&self->ev));
	/* Defaults, whatever an earlier test set. */
	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 800, 950, 50));
}

/* rmdir @name under @dirfd and every cgroup below it, deepest first (openat: no PATH_MAX). */
static void cg_remove_tree(int at, const char *name)
{
	struct dirent *e;
	DIR *d;
	int fd;

	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cg_remove_tree(dirfd(d), e->d_name);
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

FIXTURE_TEARDOWN(ml)
{
	int i;

	ia_set_pot_thresholds(&self->nl, 800, 950, 50);
	for (i = 0; i < self->ncg; i++)
		cg_remove_tree(AT_FDCWD, self->cg[i]);
	ia_nl_close(&self->ev);
	ia_nl_close(&self->nl);
}

/* A fresh cgroup v2 (unique name); its id is its directory's inode number. */
static int cg_new(struct __test_metadata *_metadata, FIXTURE_DATA(ml) *self, uint64_t *id)
{
	struct stat st;
	char *p = self->cg[self->ncg];

	snprintf(p, sizeof(self->cg[0]), "/sys/fs/cgroup/ia-ml-%d-%d", getpid(), self->ncg);
	if (mkdir(p, 0755) || stat(p, &st))
		return -errno;
	*id = st.st_ino;
	return self->ncg++;
}

/* Move @pid into the cgroup whose directory @dirfd is (openat: no PATH_MAX). */
static int cg_enter_at(int dirfd, pid_t pid)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = openat(dirfd, "cgroup.procs", O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", pid);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

static int cg_enter(FIXTURE_DATA(ml) *self, int cg, pid_t pid)
{
	int fd = open(self->cg[cg], O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0)
		return -errno;
	ret = cg_enter_at(fd, pid);
	close(fd);
	return ret;
}

/* The parts of @uid's pot add up to the kernel's counter (@u, zeroed or a reply, freed first). */
static void expect_adds_up(struct __test_metadata *_metadata, struct ia_nl *nl, uint32_t uid,
			   ia_uid_t *u)
{
	ia_nl_free(u);
	ASSERT_EQ(0, ia_get_uid(nl, uid, u)) TH_LOG("uid %u: %s", uid, nl->extack);
	ASSERT_TRUE(!!u->_present.unattributed_bytes);
	EXPECT_EQ(u->locked_bytes, ia_uid_consumers(u) + u->unattributed_bytes)
		TH_LOG("uid %u: locked %llu, consumers %llu, unattributed %llu", uid,
		       (unsigned long long)u->locked_bytes, (unsigned long long)ia_uid_consumers(u),
		       (unsigned long long)u->unattributed_bytes);
	EXPECT_EQ(0, u->inexact);
}

/* Next uid-pot event of @uid (others skipped), within 5 s; 1 or 0 (@ev freed first). */
static int next_pot_event(struct ia_nl *s, uint32_t uid, ia_event_t *ev)
{
	ia_nl_free(ev);
	while (ia_event_read(s, ev, 5000) == 1) {
		if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT && ev->uid == uid)
			return 1;
		ia_nl_free(ev);
	}
	return 0;
}

/*
 * (a) The shared pot: two processes of uid 42001 in two cgroups with an
 * 8 MiB limit, one of uid 42002. The first holds 3 MiB, the second
 * registers 1 MiB buffers until the kernel refuses: held + registered ==
 * the limit to the page. The refusal event names the refused process, its
 * cgroup, the consumer, the request, the pot and the limit; warn and crit
 * come before it; uid 42002 is untouched.
 */
TEST_F(ml, shared_pot_refusal_event)
{
	const uint32_t uid = 42001, other = 42002;
	struct agent a, b, c;
	ia_uid_t u = {}, uo = {};
	ia_proc_t p = {};
	ia_event_t ev = {}, warn = {}, crit = {};
	ia_status_t st = {};
	uint64_t base, cga, cgb, cgc, kref0;
	int ia, ib, ic, i, ret, n = 0;

	ia = cg_new(_metadata, self, &cga);
	ib = cg_new(_metadata, self, &cgb);
	ic = cg_new(_metadata, self, &cgc);
	ASSERT_LE(0, ia);
	ASSERT_LE(0, ib);
	ASSERT_LE(0, ic);
	ASSERT_EQ(0, agent_start(&a, uid, 8 * MiB));
	ASSERT_EQ(0, agent_start(&b, uid, 8 * MiB));
	ASSERT_EQ(0, agent_start(&c, other, 8 * MiB));
	ASSERT_EQ(0, cg_enter(self, ia, a.pid));
	ASSERT_EQ(0, cg_enter(self, ib, b.pid));
	ASSERT_EQ(0, cg_enter(self, ic, c.pid));
	/* Rings are charged on some kernels: count from the pot as it is now. */
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	base = u.locked_bytes;
	EXPECT_EQ(2, u.cgroups);
	ASSERT_EQ(0, ia_get_uid(&self->nl, other, &uo));

	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	ASSERT_TRUE(ia_nl_kind_refusals(&st, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) >= 0);
	kref0 = ia_nl_kind_refusals(&st, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT);
	ASSERT_EQ(0, agent_register(&a, 3 * MiB));
	for (;;) {
		ret = agent_register(&b, 1 * MiB);
		if (ret)
			break;
		n++;
		ASSERT_GT(16, n);
	}
	EXPECT_EQ(-ENOMEM, ret);
	ia_nl_free(&st);
	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	/* The kind's count took this refusal (one; nothing else refuses here meanwhile). */
	EXPECT_EQ(kref0 + 1, ia_nl_kind_refusals(&st, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT));
	EXPECT_EQ(8 * MiB - base, 3 * MiB + n * MiB) TH_LOG("base %llu, %d MiB registered",
							     (unsigned long long)base, n);
	ASSERT_EQ(0, agent_register(&c, 1 * MiB));

	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + (3 + n) * MiB, u.locked_bytes);
	EXPECT_EQ((3 + n) * MiB, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(1, u.refusals);
	EXPECT_EQ(0, u.pending_bytes);
	expect_adds_up(_metadata, &self->nl, other, &uo);
	EXPECT_EQ(1 * MiB, IA_CONSUMER(&uo, BUFS));
	EXPECT_EQ(0, uo.refusals);

	/* Events of uid 42001: warn, crit, then the refusal, in sequence. */
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &warn));
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &crit));
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD, warn.type);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, warn.level);
	EXPECT_EQ(800, warn.threshold);
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD, crit.type);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT, crit.level);
	EXPECT_LT(warn.seq, crit.seq);
	EXPECT_LT(crit.seq, ev.seq);
	EXPECT_LE(8 * MiB * 8 / 10, warn.locked_bytes);
	EXPECT_LE(8 * MiB * 95 / 100, crit.locked_bytes);
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_FAILURE, ev.type);
	EXPECT_EQ(ENOMEM, ev.errno_);
	EXPECT_EQ((uint32_t)b.pid, ev.owner.pid);
	EXPECT_EQ(uid, ev.owner.uid);
	EXPECT_EQ(cgb, ev.cgroup_id);
	EXPECT_EQ(BUFS, ev.consumer);
	EXPECT_EQ(1 * MiB, ev.size);
	EXPECT_EQ(8 * MiB, ev.locked_bytes);
	EXPECT_EQ(8 * MiB, ev.memlock_limit);
	EXPECT_EQ(1, ev.count);
	/* GET_PROC: the refused process, its cgroup by id and by path. */
	ASSERT_EQ(0, ia_get_proc(&self->nl, b.pid, &p));
	EXPECT_EQ(cgb, p.cgroup_id);
	EXPECT_STREQ(self->cg[ib] + strlen("/sys/fs/cgroup"), p.cgroup);
	EXPECT_EQ(n * MiB, IA_CONSUMER(&p, BUFS));
	EXPECT_EQ(8 * MiB, p.memlock_soft);
	EXPECT_EQ(1, p.rings);
	EXPECT_EQ(1, p.uring_fds);	/* the agent's one ring */

	/* Nothing for uid 42002 came before a marker event of ours. */
	for (i = 0; i < 3; i++)
		agent_unregister(&b);
	ASSERT_EQ(-ENOMEM, agent_register(&a, 16 * MiB));
	ia_nl_free(&ev);
	while (ia_event_read(&self->ev, &ev, 5000) == 1) {
		EXPECT_FALSE(ev.kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT && ev.uid == other);
		if (ev.kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT && ev.uid == uid &&
		    ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE)
			break;
		ia_nl_free(&ev);
	}
	EXPECT_EQ((uint32_t)a.pid, ev.owner.pid);
	EXPECT_EQ(16 * MiB, ev.size);
	ia_nl_free(&u);
	ia_nl_free(&uo);
	ia_nl_free(&p);
	ia_nl_free(&st);
	ia_nl_free(&ev);
	ia_nl_free(&warn);
	ia_nl_free(&crit);
	agent_stop(&a);
	agent_stop(&b);
	agent_stop(&c);
}

/* mkdir @name under @dirfd; its fd (O_PATH is not enough for openat of cgroup.procs). */
static int cg_mkdirat(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return -errno;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
}


/*
 * The longest path that still has room for its NUL in PATH_MAX (4095
 * bytes), made of directories under one of ours: the pot's last refusal
 * (GET_QUOTA) and GET_PROC carry it whole, unflagged. A sibling whose path
 * is longer and has a three-byte character (U+20AC) starting at byte 4094 is
 * cut before that character, not inside it, and flagged. Both expectations
 * are the paths we made, cut by the rule, not the module's output.
 */
TEST_F(ml, cgroup_paths_whole_to_path_max)
{
	const uint32_t uid = 42061;
	char full_a[4400], full_b[4400], name[256], *at;
	int top, dir, leaf_a, leaf_b, k, ret, cut;
	ia_quota_t q = {};
	struct agent a, b;
	ia_proc_t p = {};
	uint64_t id;
	size_t len;

	k = cg_new(_metadata, self, &id);
	ASSERT_LE(0, k);
	top = open(self->cg[k], O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, top);
	/* Directories of 200 bytes down to 3995 bytes from the hierarchy's root. */
	len = snprintf(full_a, sizeof(full_a), "%s", self->cg[k] + strlen("/sys/fs/cgroup"));
	dir = dup(top);
	while (len < 3995) {
		size_t n = 3995 - len - 1 > 200 ? 200 : 3995 - len - 1;
		int next;

		memset(name, 'd', n);
		name[n] = 0;
		next = cg_mkdirat(dir, name);
		ASSERT_LE(0, next) TH_LOG("mkdir at %zu bytes: %s", len, strerror(-next));
		close(dir);
		dir = next;
		len += snprintf(full_a + len, sizeof(full_a) - len, "/%s", name);
	}
	ASSERT_EQ(3995, len);
	memcpy(full_b, full_a, len + 1);
	/* a: to exactly 4095 bytes. */
	memset(name, 'a', 4095 - len - 1);
	name[4095 - len - 1] = 0;
	leaf_a = cg_mkdirat(dir, name);
	ASSERT_LE(0, leaf_a);
	snprintf(full_a + len, sizeof(full_a) - len, "/%s", name);
	ASSERT_EQ(4095, strlen(full_a));
	/* b: 'b's to byte 4094, then euro signs. */
	memset(name, 'b', 4094 - len - 1);
	at = name + 4094 - len - 1;
	for (k = 0; k < 20; k++, at += 3)
		memcpy(at, "\xe2\x82\xac", 3);
	*at = 0;
	leaf_b = cg_mkdirat(dir, name);
	ASSERT_LE(0, leaf_b);
	snprintf(full_b + len, sizeof(full_b) - len, "/%s", name);
	ASSERT_EQ((char)0xe2, full_b[4094]);
	/* The rule: at most 4095 bytes, back to where a character starts. */
	for (cut = 4095; cut > 0 && (full_b[cut] & 0xc0) == 0x80; cut--)
		;
	ASSERT_EQ(4094, cut);
	close(dir);

	ASSERT_EQ(0, agent_start(&a, uid, 1 * MiB));
	ASSERT_EQ(0, agent_start(&b, uid, 1 * MiB));
	ASSERT_EQ(0, cg_enter_at(leaf_a, a.pid));
	ASSERT_EQ(0, cg_enter_at(leaf_b, b.pid));

	/* Refused in a: the refusal's path is a's, whole. */
	ret = agent_register(&a, 2 * MiB);
	EXPECT_EQ(-ENOMEM, ret);
	ASSERT_EQ(0, ia_get_quota(&self->nl, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT, uid, &q))
		TH_LOG("%s", self->nl.extack);
	ASSERT_TRUE(!!q._present.last_failure);
	EXPECT_EQ(4095, strlen(q.last_failure.cgroup));
	EXPECT_STREQ(full_a, q.last_failure.cgroup);
	EXPECT_FALSE(!!q.last_failure._present.cgroup_truncated);
	ASSERT_EQ(0, ia_get_proc(&self->nl, a.pid, &p));
	EXPECT_STREQ(full_a, p.cgroup);
	EXPECT_FALSE(!!p._present.cgroup_truncated);

	/* Refused in b: cut before the character, and said so. */
	ret = agent_register(&b, 2 * MiB);
	EXPECT_EQ(-ENOMEM, ret);
	ia_nl_free(&q);
	ASSERT_EQ(0, ia_get_quota(&self->nl, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT, uid, &q));
	EXPECT_EQ(2, q.refusals);
	EXPECT_EQ(cut, strlen(q.last_failure.cgroup));
	EXPECT_EQ(0, strncmp(full_b, q.last_failure.cgroup, cut));
	EXPECT_TRUE(!!q.last_failure._present.cgroup_truncated);
	ia_nl_free(&p);
	ASSERT_EQ(0, ia_get_proc(&self->nl, b.pid, &p));
	EXPECT_EQ(cut, strlen(p.cgroup));
	EXPECT_EQ(0, strncmp(full_b, p.cgroup, cut));
	EXPECT_TRUE(!!p._present.cgroup_truncated);
	ia_nl_free(&q);
	ia_nl_free(&p);
	agent_stop(&a);
	agent_stop(&b);
	close(leaf_a);
	close(leaf_b);
	close(top);
}

/*
 * (b) Parts add up under a mixed load on several rings (registrations,
 * unregistrations, refusals) at every step; nothing hooked lands in
 * unattributed. A pot charged before the module loaded is unattributed
 * and drains to zero when released.
 */
TEST_F(ml, parts_add_up)
{
	const uint32_t uid = 42011;
	static const size_t sizes[] = { 4 * KiB, 64 * KiB, 1 * MiB, 12 * KiB, 300 * KiB, 2 * MiB };
	struct agent ag[3];
	ia_uid_t u = {};
	uint64_t base, charges, want = 0;
	int i, k;

	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, agent_start(&ag[k], uid, 64 * MiB));
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	base = u.locked_bytes;
	charges = u.charges;
	EXPECT_EQ(base, u.unattributed_bytes);
	for (i = 0; i < 12; i++) {
		k = i % 3;
		ASSERT_EQ(0, agent_register(&ag[k], sizes[i % 6]));
		want += (sizes[i % 6] + 4095) / 4096 * 4096;
		expect_adds_up(_metadata, &self->nl, uid, &u);
		EXPECT_EQ(base + want, u.locked_bytes);
		EXPECT_EQ(want, IA_CONSUMER(&u, BUFS));
		EXPECT_EQ(base, u.unattributed_bytes);
		if (i == 7) {
			ASSERT_EQ(0, agent_unregister(&ag[1]));
			want = 0;
			for (k = 0; k <= i; k++)
				if (k % 3 != 1)
					want += (sizes[k % 6] + 4095) / 4096 * 4096;
			expect_adds_up(_metadata, &self->nl, uid, &u);
			EXPECT_EQ(want, IA_CONSUMER(&u, BUFS));
		}
	}
	EXPECT_EQ(charges + 12, u.charges);
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, agent_unregister(&ag[k]));
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(base, u.locked_bytes);

	/* Charged before the module loads: unattributed, then drained. */
	ASSERT_EQ(0, agent_register(&ag[0], 2 * MiB));
	ia_nl_close(&self->ev);
	ia_nl_close(&self->nl);
	ASSERT_EQ(0, system("modprobe -r iommu_account && modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, ia_nl_open(&self->ev));
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + 2 * MiB, u.locked_bytes);
	EXPECT_EQ(base + 2 * MiB, u.unattributed_bytes);
	EXPECT_EQ(0, IA_CONSUMER(&u, BUFS));
	ASSERT_EQ(0, agent_register(&ag[1], 1 * MiB));
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(1 * MiB, IA_CONSUMER(&u, BUFS));
	ASSERT_EQ(0, agent_unregister(&ag[0]));
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base, u.unattributed_bytes);
	EXPECT_EQ(1 * MiB, IA_CONSUMER(&u, BUFS));
	ia_nl_free(&u);
	for (k = 0; k < 3; k++)
		agent_stop(&ag[k]);
}

/*
 * Wait (bounded: 20 s, on the kernel's counter) until @uid's pot is @want,
 * or the user is gone; the last pot seen goes to *@last.
 */
static int wait_pot(struct ia_nl *nl, uint32_t uid, uint64_t want, int64_t *last)
{
	ia_uid_t u = {};
	int i, ret;

	for (i = 0; i < 800 * ia_timeout_scale(); i++) {
		ret = ia_get_uid(nl, uid, &u);
		*last = ret ? ret : (int64_t)u.locked_bytes;
		ia_nl_free(&u);
		if (ret == -ENOENT && !want)
			return 0;
		if (!ret && *last == (int64_t)want)
			return 0;
		usleep(25000);
	}
	return -ETIMEDOUT;
}

/*
 * Pending release summed over many holders: 140 processes of one uid (more
 * than two of the module's batches of 64 holders, between which the uids
 * snapshot lets its lock go) each register 64 KiB and exit while we hold
 * their rings: the uid's pending bytes are all of them, 140 x 64 KiB, as
 * its breakdown; closing the rings drains the pot to its base.
 */
TEST_F(ml, pending_summed_over_many_holders)
{
	enum { N = 140 };
	const uint32_t uid = 42025;
	static struct agent a[N];
	static int ring[N];
	ia_uid_t u = {};
	uint64_t base = 0;
	int64_t last;
	int i;

	if (!ia_get_uid(&self->nl, uid, &u)) {
		base = u.locked_bytes;
		ia_nl_free(&u);
	}
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, agent_start(&a[i], uid, 64 * MiB)) TH_LOG("agent %d", i);
		ASSERT_EQ(0, agent_register(&a[i], 64 * KiB)) TH_LOG("agent %d", i);
		ring[i] = agent_take_ring(&a[i]);
		ASSERT_LE(0, ring[i]) TH_LOG("pidfd_getfd: %s", strerror(-ring[i]));
	}
	for (i = 0; i < N; i++)
		agent_stop(&a[i]);
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	EXPECT_EQ(base + N * 64 * KiB, u.locked_bytes);
	EXPECT_EQ(N * 64 * KiB, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(N * 64 * KiB, u.pending_bytes);
	ia_nl_free(&u);
	for (i = 0; i < N; i++)
		close(ring[i]);
	ASSERT_EQ(0, wait_pot(&self->nl, uid, base, &last)) TH_LOG("pot %lld, base %llu",
								(long long)last,
								(unsigned long long)base);
}

/*
 * (c) Pending release: a process exits with 2 MiB registered while its ring
 * lives on (we hold a copy of the fd): its bytes are pending, not with a
 * live process. Closing the ring releases them in the kernel's deferred
 * work; the pot and the breakdown drain to the base together.
 */
TEST_F(ml, pending_release_after_exit)
{
	const uint32_t uid = 42021;
	ia_proc_t procs[64] = {};
	struct agent a;
	ia_uid_t u = {};
	uint64_t base;
	int64_t last;
	int ring, n, i;
	pid_t pid;

	ASSERT_EQ(0, agent_start(&a, uid, 64 * MiB));
	ASSERT_EQ(0, ia_get_uid(&self->nl, uid, &u));
	base = u.locked_bytes;
	ASSERT_EQ(0, agent_register(&a, 2 * MiB));
	ring = agent_take_ring(&a);
	ASSERT_LE(0, ring) TH_LOG("pidfd_getfd: %s", strerror(-ring));
	/* Our copy of its ring is an io_uring fd of ours now. */
	ASSERT_EQ(0, ia_get_proc(&self->nl, getpid(), &procs[0]));
	EXPECT_EQ(1, procs[0].uring_fds);
	EXPECT_EQ(0, procs[0].rings);
	ia_nl_free(&procs[0]);
	pid = a.pid;
	n = ia_dump_procs(&self->nl, true, uid, procs, 64);
	ASSERT_EQ(1, n);
	EXPECT_EQ((uint32_t)pid, procs[0].pid);
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&procs[0], BUFS));
	EXPECT_EQ(1, procs[0].rings);
	EXPECT_EQ(64 * MiB, procs[0].memlock_soft);
	ia_nl_free_n(procs, n);

	agent_stop(&a);
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + 2 * MiB, u.locked_bytes);
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(2 * MiB, u.pending_bytes);
	n = ia_dump_procs(&self->nl, false, 0, procs, 64);
	for (i = 0; i < n && n > 0; i++)
		EXPECT_NE((uint32_t)pid, procs[i].pid);
	ia_nl_free_n(procs, n);

	close(ring);
	ASSERT_EQ(0, wait_pot(&self->nl, uid, base, &last)) TH_LOG("pot %lld, base %llu",
								(long long)last,
								(unsigned long long)base);
	/* The uid may be gone with its last object: then nothing is left. */
	ia_nl_free(&u);
	if (!ia_get_uid(&self->nl, uid, &u)) {
		EXPECT_EQ(0, IA_CONSUMER(&u, BUFS));
		EXPECT_EQ(0, u.pending_bytes);
		EXPECT_EQ(u.locked_bytes, u.unattributed_bytes);
		ia_nl_free(&u);
	}
}

/*
 * Tens of thousands of charges held by one uid, as one uid's CI jobs hold
 * them: 20,000 buffers on two rings (16,384 and 3,616). The pot (the kernel's counter) is the
 * buffers' pages to the byte, the breakdown and the process's figures add
 * up to it, the process holds two rings, and when it goes the pot drains
 * with every part of it.
 */
TEST_F(ml, twenty_thousand_buffers_add_up)
{
	const uint32_t uid = 42071;
	const int nbuf = 20000;
	ia_uid_t u = {};
	ia_proc_t p = {};
	int64_t base, last;
	struct agent h;

	base = ia_locked(&self->nl, uid);
	if (base < 0)
		base = 0;	/* no such user yet */
	ASSERT_EQ(0, agent_hold_pages(&h, uid, nbuf)) TH_LOG("registering %d buffers", nbuf);
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + (int64_t)nbuf * 4096, (int64_t)u.locked_bytes);
	EXPECT_EQ((uint64_t)nbuf * 4096, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(0, u.pending_bytes);
	ASSERT_EQ(0, ia_get_proc(&self->nl, h.pid, &p));
	EXPECT_EQ((uint64_t)nbuf * 4096, IA_CONSUMER(&p, BUFS));
	EXPECT_EQ(2, p.rings);
	ia_nl_free(&p);

	agent_stop(&h);
	/* The rings' teardown is deferred: wait for the pot. */
	ASSERT_EQ(0, wait_pot(&self->nl, uid, base, &last)) TH_LOG("pot %lld", (long long)last);
	ia_nl_free(&u);
	if (!ia_get_uid(&self->nl, uid, &u)) {
		EXPECT_EQ(0, IA_CONSUMER(&u, BUFS));
		EXPECT_EQ(0, u.pending_bytes);
		ia_nl_free(&u);
	}
}

/*
 * (e) Hysteresis: warn at 50 % of 8 MiB, margin 10 points. A pot moving
 * between 3.5 and 4.5 MiB five times gives one warn; after it fell to 0
 * (below 40 %) the next crossing gives the second. A refusal is the marker
 * that ends the count.
 */
TEST_F(ml, hysteresis_one_event_per_crossing)
{
	const uint32_t uid = 42031;
	struct agent a, b;
	ia_event_t ev = {};
	int i, warns = 0, crits = 0;
	bool failed = false;

	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 500, 990, 100));
	ASSERT_EQ(0, agent_start(&a, uid, 8 * MiB));
	ASSERT_EQ(0, agent_start(&b, uid, 8 * MiB));
	ASSERT_EQ(0, agent_register(&a, 3 * MiB + 512 * KiB));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, agent_register(&b, 1 * MiB));
		ASSERT_EQ(0, agent_unregister(&b));
	}
	ASSERT_EQ(0, agent_unregister(&a));
	ASSERT_EQ(0, agent_register(&b, 1 * MiB));
	ASSERT_EQ(0, agent_register(&a, 3 * MiB + 512 * KiB));
	ASSERT_EQ(-ENOMEM, agent_register(&a, 8 * MiB));
	/*
	 * Crossings: the events' counts (the second came within the module's
	 * event_interval_ms of the first: held, and sent as one event with its
	 * count when the interval ends, after the refusal's event).
	 */
	while (warns + crits < 2 && next_pot_event(&self->ev, uid, &ev)) {
		if (ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
			failed = true;
			continue;
		}
		warns += ev.level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN ? ev.count : 0;
		crits += ev.level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? ev.count : 0;
		EXPECT_EQ(500, ev.threshold);
		EXPECT_EQ(4 * MiB + 512 * KiB, ev.locked_bytes);
	}
	while (!failed && next_pot_event(&self->ev, uid, &ev))
		failed = ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE;
	EXPECT_TRUE(failed);
	EXPECT_EQ(2, warns);
	EXPECT_EQ(0, crits);
	ia_nl_free(&ev);
	agent_stop(&a);
	agent_stop(&b);
}

/*
 * (e2) The levels are judged against the limit of the process that charges
 * (the kernel's own check), and new thresholds apply from the next charge.
 * Uid 42035: a with 8 MiB, b with 10 MiB. Under warn 90 %: a holds 3 MiB,
 * nothing. Warn 50 %, crit 70 %, margin 10: a adds 1 MiB, 4 of 8 = 50 %:
 * warn. b adds 1.75 MiB, 5.75 of 10 (past 70 % of a's 8 MiB): no crit, nor
 * a re-arm (40 + 10 is not below 50). a adds 256 KiB, 6 of 8 = 75 %: crit
 * (of b's 10 MiB it would be 60 %, under the line). Then a refusal ends the
 * count.
 */
TEST_F(ml, levels_follow_the_charging_process_limit)
{
	const uint32_t uid = 42035;
	int warns = 0, crits = 0;
	struct agent a, b;
	ia_event_t ev = {};
	bool failed = false;

	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 900, 990, 100));
	ASSERT_EQ(0, agent_start(&a, uid, 8 * MiB));
	ASSERT_EQ(0, agent_start(&b, uid, 10 * MiB));
	ASSERT_EQ(0, agent_register(&a, 3 * MiB));
	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 500, 700, 100));
	ASSERT_EQ(0, agent_register(&a, 1 * MiB));
	ASSERT_EQ(0, agent_register(&b, 1 * MiB + 768 * KiB));
	ASSERT_EQ(0, agent_register(&a, 256 * KiB));
	ASSERT_EQ(-ENOMEM, agent_register(&a, 8 * MiB));
	while (!failed && next_pot_event(&self->ev, uid, &ev)) {
		if (ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
			failed = true;
			continue;
		}
		if (ev.level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN) {
			warns += ev.count;
			EXPECT_EQ(500, ev.threshold);
			EXPECT_EQ(4 * MiB, ev.locked_bytes);
		} else {
			crits += ev.count;
			EXPECT_EQ(700, ev.threshold);
			EXPECT_EQ(6 * MiB, ev.locked_bytes);
		}
	}
	EXPECT_TRUE(failed);
	EXPECT_EQ(1, warns);
	EXPECT_EQ(1, crits);
	ia_nl_free(&ev);
	agent_stop(&a);
	agent_stop(&b);
}

/* Thresholds of the pot are their own: setting them leaves VFIO's alone. */
TEST_F(ml, pot_thresholds_separate)
{
	uint32_t w, c, m, vw, vc;

	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &vw, &vc));
	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 600, 700, 30));
	ASSERT_EQ(0, ia_get_pot_thresholds(&self->nl, &w, &c, &m));
	EXPECT_EQ(600, w);
	EXPECT_EQ(700, c);
	EXPECT_EQ(30, m);
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &w, &c));
	EXPECT_EQ(vw, w);
	EXPECT_EQ(vc, c);
	EXPECT_EQ(-EINVAL, ia_set_pot_thresholds(&self->nl, 600, 700, 600));
	EXPECT_NE(0, strlen(self->nl.extack));
	ASSERT_EQ(0, ia_get_pot_thresholds(&self->nl, &w, &c, &m));
	EXPECT_EQ(30, m);
}

/*
 * (f) An unprivileged process sees its own uid's processes only: a dump
 * lists none of another uid's, asking for another uid is EPERM, and a do
 * on another uid's live process gets what a pid no process has gets
 * (ENOENT, "no such process"): the answer is no oracle of who runs.
 */
TEST_F(ml, unprivileged_sees_own_processes)
{
	const uint32_t uid = 42041, other = 42042;
	char ext[2][sizeof(self->nl.extack)];
	struct agent a;
	int fd[2], res[5] = { -1, -1, -1, -1, -1 };
	pid_t pid;

	ASSERT_EQ(0, agent_start(&a, other, 8 * MiB));
	ASSERT_EQ(0, agent_register(&a, 1 * MiB));
	ASSERT_EQ(0, pipe(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		ia_proc_t procs[64] = {}, p = {};
		struct ia_nl nl;
		int i, n;

		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid) || ia_nl_open(&nl))
			_exit(2);
		n = ia_dump_procs(&nl, false, 0, procs, 64);
		res[0] = n;
		for (i = 0; i < n && i < 64; i++)
			if (procs[i].uid != uid)
				res[0] = -1000;
		res[1] = ia_get_proc(&nl, a.pid, &p);
		memcpy(ext[0], nl.extack, sizeof(ext[0]));
		res[4] = ia_get_proc(&nl, 4000000, &p);
		memcpy(ext[1], nl.extack, sizeof(ext[1]));
		res[2] = ia_dump_procs(&nl, true, other, procs, 64);
		n = ia_dump_procs(&nl, true, uid, procs, 64);
		res[3] = n == 1 && procs[0].pid == (uint32_t)getpid();
		if (write(fd[1], res, sizeof(res)) != sizeof(res) ||
		    write(fd[1], ext, sizeof(ext)) != sizeof(ext))
			_exit(3);
		ia_nl_close(&nl);
		_exit(0);
	}
	close(fd[1]);
	ASSERT_EQ(sizeof(res), read(fd[0], res, sizeof(res)));
	ASSERT_EQ(sizeof(ext), read(fd[0], ext, sizeof(ext)));
	waitpid(pid, NULL, 0);
	close(fd[0]);
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(-ENOENT, res[1]);
	EXPECT_EQ(-ENOENT, res[4]);
	EXPECT_STREQ("no such process", ext[0]);
	EXPECT_STREQ(ext[1], ext[0]);
	EXPECT_EQ(-EPERM, res[2]);
	EXPECT_EQ(1, res[3]);
	agent_stop(&a);
}

/*
 * Pids as the caller's pid namespace numbers them: a process that is pid 1
 * of a namespace of its own asks GET_PROC for pid 1 and gets itself, not
 * the host's init; its dump of uid 0's processes holds itself alone, as
 * pid 1, whatever else root runs on the host.
 */
TEST_F(ml, procs_in_the_callers_pid_namespace)
{
	int fd[2], res[5] = { -1, -1, -1, -1, -1 }, st;
	pid_t pid;

	ASSERT_EQ(0, pipe(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t inner;

		close(fd[0]);
		if (unshare(CLONE_NEWPID)) {
			/* No pid namespaces in this kernel (CONFIG_PID_NS): said, the test skipped. */
			res[0] = -errno;
			_exit(write(fd[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
		}
		inner = fork();
		if (inner == 0) {
			ia_proc_t procs[8] = {}, p = {};
			struct ia_nl nl;
			int i, n;

			if (ia_nl_open(&nl))
				_exit(2);
			res[0] = getpid();
			res[1] = ia_get_proc(&nl, 1, &p);
			res[2] = !res[1] && p.pid == 1 && p.uid == 0;
			n = ia_dump_procs(&nl, true, 0, procs, 8);
			res[3] = n;
			res[4] = n == 1 && procs[0].pid == 1;
			if (!res[1])
				ia_nl_free(&p);
			for (i = 0; i < n && i < 8; i++)
				ia_nl_free(&procs[i]);
			ia_nl_close(&nl);
			_exit(write(fd[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
		}
		_exit(inner > 0 && waitpid(inner, &st, 0) == inner && WIFEXITED(st) ?
		      WEXITSTATUS(st) : 4);
	}
	close(fd[1]);
	ASSERT_EQ(sizeof(res), read(fd[0], res, sizeof(res)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(fd[0]);
	EXPECT_EQ(0, WEXITSTATUS(st));
	if (res[0] == -EINVAL)
		SKIP(return, "unshare(CLONE_NEWPID): EINVAL: this kernel has no pid namespaces");
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(1, res[2]);
	EXPECT_EQ(1, res[3]);
	EXPECT_EQ(1, res[4]);
}

/*
 * An AF_XDP socket of uid @uid with RLIMIT_MEMLOCK @limit registering a umem of
 * @len bytes: the kernel's answer (0 or -errno) on @res; the child stays
 * until @hold closes. The socket is made as root (CAP_NET_RAW), the umem
 * registered after dropping to @uid, which has no CAP_IPC_LOCK.
 */
static pid_t xdp_umem_child(uid_t uid, uint64_t limit, size_t len, int res, const int *hold)
{
	struct rlimit rl = { limit, limit };
	struct xdp_umem_reg mr;
	pid_t pid = fork();
	int fd, ret = 0;
	void *mem;
	char c;

	if (pid)
		return pid;
	close(hold[1]);		/* so that the parent's close ends our read */
	fd = socket(AF_XDP, SOCK_RAW, 0);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0)
		ret = -errno;
	else if (mem == MAP_FAILED || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		 setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		ret = -1000;
	memset(&mr, 0, sizeof(mr));
	mr.addr = (uintptr_t)mem;
	mr.len = len;
	mr.chunk_size = 4096;
	if (!ret && setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)))
		ret = -errno;
	if (write(res, &ret, sizeof(ret)) != sizeof(ret))
		_exit(1);
	while (read(hold[0], &c, 1) > 0)
		;
	close(fd);
	_exit(0);
}

/*
 * AF_XDP umems are a consumer of the pot: 2 MiB registered by one process
 * is attributed to it; 7 MiB more is refused by the kernel (ENOBUFS) and
 * raises a failure event naming the consumer; closing the socket releases
 * the charge and the breakdown follows.
 */
TEST_F(ml, xdp_umem_attributed_and_refused)
{
	const uint32_t uid = 42051;
	int res[2], hold[2], r1, r2;
	ia_proc_t p = {};
	ia_event_t ev = {};
	ia_uid_t u = {};
	int64_t last;
	pid_t a, b;

	ASSERT_EQ(0, pipe(res));
	ASSERT_EQ(0, pipe(hold));
	a = xdp_umem_child(uid, 8 * MiB, 2 * MiB, res[1], hold);
	ASSERT_LT(0, a);
	ASSERT_EQ(sizeof(r1), read(res[0], &r1, sizeof(r1)));
	if (r1 == -EAFNOSUPPORT) {
		close(hold[1]);
		waitpid(a, NULL, 0);
		SKIP(return, "no AF_XDP in this kernel");
	}
	ASSERT_EQ(0, r1);
	expect_adds_up(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(2 * MiB, u.locked_bytes);
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&u, XDP));
	ASSERT_EQ(0, ia_get_proc(&self->nl, a, &p));
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&p, XDP));
	EXPECT_EQ(0, p.rings);
	ia_nl_free(&p);

	b = xdp_umem_child(uid, 8 * MiB, 7 * MiB, res[1], hold);
	ASSERT_LT(0, b);
	ASSERT_EQ(sizeof(r2), read(res[0], &r2, sizeof(r2)));
	EXPECT_EQ(-ENOBUFS, r2);
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	while (ev.type != IOMMU_ACCOUNT_EVENT_TYPE_FAILURE)
		ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	EXPECT_EQ(ENOBUFS, ev.errno_);
	EXPECT_EQ(XDP, ev.consumer);
	EXPECT_EQ((uint32_t)b, ev.owner.pid);
	EXPECT_EQ(7 * MiB, ev.size);
	EXPECT_EQ(2 * MiB, ev.locked_bytes);
	EXPECT_EQ(8 * MiB, ev.memlock_limit);
	ia_nl_free(&ev);
	ia_nl_free(&u);

	close(hold[1]);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	/* The socket's release may be deferred to a work item: wait for the pot. */
	ASSERT_EQ(0, wait_pot(&self->nl, uid, 0, &last)) TH_LOG("pot %lld", (long long)last);
	if (!ia_get_uid(&self->nl, uid, &u)) {
		EXPECT_EQ(0, IA_CONSUMER(&u, XDP));
		EXPECT_EQ(0, u.unattributed_bytes);
		ia_nl_free(&u);
	}
}

IA_HARNESS_MAIN
