// SPDX-License-Identifier: GPL-2.0
/*
 * VFIO type1 containers, checked against the kernel's own answers: the
 * ENOSPC at dma_entry_limit, DMA_AVAIL from VFIO_IOMMU_GET_INFO, VmLck
 * (mm->locked_vm) of the mapper, the ENOMEM past RLIMIT_MEMLOCK. Uses the
 * VM's edu devices bound to vfio-pci (scripts/vm/run gives it two; the
 * many-groups tests need `--edu 40`, as scripts/check boots it).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/vfio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_vfio.h"

#define PAGE 4096UL
#define DEFAULT_LIMIT 65535

FIXTURE(vfio) {
	struct ia_nl nl;
	int groups[8];
	int ngroups;
};

FIXTURE_SETUP(vfio)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	self->ngroups = vfio_edu_groups(self->groups, 8);
	ASSERT_LE(1, self->ngroups) TH_LOG("no edu device bound to vfio-pci (%d)", self->ngroups);
	ASSERT_EQ(0, vfio_set_entry_limit(DEFAULT_LIMIT));
}

FIXTURE_TEARDOWN(vfio)
{
	vfio_set_entry_limit(DEFAULT_LIMIT);
	ia_nl_close(&self->nl);
}

/* Our view equals the kernel's: entries == limit - DMA_AVAIL. */
static void expect_exact(struct __test_metadata *_metadata, struct ia_nl *nl,
			 struct vfio_ctr *c, uint32_t want_entries)
{
	ia_container_t ct = {};
	uint32_t avail;

	ASSERT_EQ(0, ia_container_of_pid(nl, getpid(), &ct));
	ASSERT_EQ(0, vfio_dma_avail(c, &avail));
	EXPECT_EQ(want_entries, ct.entries);
	EXPECT_EQ(ct.limit - avail, ct.entries) TH_LOG("limit %u avail %u", ct.limit, avail);
	ia_nl_free(&ct);
}

/* (a) N mappings: entries, bytes, pinned pages (== VmLck growth) exact. */
TEST_F(vfio, map_unmap_exact)
{
	const int N = 37;
	struct vfio_ctr c;
	ia_container_t ct = {};
	long long lck0, lck;
	int i;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	lck0 = vm_locked_bytes();
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * 0x10000, 2 * PAGE));
	lck = vm_locked_bytes();
	expect_exact(_metadata, &self->nl, &c, N);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(DEFAULT_LIMIT, ct.limit);
	EXPECT_EQ(N * 2 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(N, ct.map_ops);
	EXPECT_EQ((uint64_t)(lck - lck0) / PAGE, ct.pinned_pages)
		TH_LOG("VmLck grew by %lld bytes", lck - lck0);
	EXPECT_EQ(2 * N, ct.pinned_pages);
	EXPECT_EQ(getuid(), ct.pinned_uid);
	ASSERT_EQ(1, ct.n_group);
	EXPECT_EQ(self->groups[0], ct.group[0]);
	EXPECT_EQ(getuid(), ct.owner.uid);
	ia_nl_free(&ct);

	for (i = 0; i < N; i++)
		ASSERT_EQ(0, vfio_unmap(&c, 0x100000 + i * 0x10000, 2 * PAGE));
	expect_exact(_metadata, &self->nl, &c, 0);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(0, ct.mapped_bytes);
	EXPECT_EQ(0, ct.pinned_pages);
	EXPECT_EQ(N, ct.unmap_ops);
	EXPECT_EQ(lck0, vm_locked_bytes());
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
}

/* (b) limit 100: ENOSPC at 101; warn (80) and crit (95) events come first. */
TEST_F(vfio, enospc_event_after_thresholds)
{
	struct ia_nl ev_nl;
	ia_event_t ev = {}, warn = {}, crit = {}, fail = {};
	ia_container_t ct = {};
	struct vfio_ctr c;
	int i, ret, got = 0;

	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	ASSERT_EQ(0, ia_nl_open(&ev_nl));
	ASSERT_EQ(0, ia_events_join(&ev_nl));
	ASSERT_EQ(0, vfio_set_entry_limit(100));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 1000; i++) {
		ret = vfio_map(&c, 0x100000 + i * PAGE, PAGE);
		if (ret)
			break;
	}
	EXPECT_EQ(100, i);
	ASSERT_EQ(-ENOSPC, ret);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));

	while (ia_event_read(&ev_nl, &ev, 3000) == 1) {
		ia_event_t *keep = NULL;

		if (ev.container_id == ct.id && ev.type == IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD &&
		    ev.level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN)
			keep = &warn, got |= 1;
		if (ev.container_id == ct.id && ev.type == IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD &&
		    ev.level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT)
			keep = &crit, got |= 2;
		if (ev.container_id == ct.id && ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE)
			keep = &fail, got |= 4;
		if (keep) {
			ia_nl_free(keep);
			*keep = ev;
		} else {
			ia_nl_free(&ev);
		}
		if (got == 7)
			break;
	}
	ASSERT_EQ(7, got) TH_LOG("events seen: mask %d", got);
	EXPECT_EQ(80, warn.entries);
	EXPECT_EQ(95, crit.entries);
	EXPECT_LT(warn.seq, crit.seq);
	EXPECT_LT(crit.seq, fail.seq);
	EXPECT_EQ(ENOSPC, fail.errno_);
	EXPECT_EQ(100, fail.entries);
	EXPECT_EQ(100, fail.limit);
	EXPECT_EQ((uint32_t)getpid(), fail.owner.pid);
	EXPECT_EQ(getuid(), fail.owner.uid);
	EXPECT_EQ(0x100000 + 100 * PAGE, fail.iova);
	ASSERT_EQ(1, fail.n_group);
	EXPECT_EQ(self->groups[0], fail.group[0]);
	/* The container keeps the count and the last failure. */
	EXPECT_EQ(1, ct.fail_enospc);
	EXPECT_EQ(1, !!ct._present.last_failure);
	EXPECT_EQ(ENOSPC, ct.last_failure.errno_);
	expect_exact(_metadata, &self->nl, &c, 100);
	ia_nl_free(&warn);
	ia_nl_free(&crit);
	ia_nl_free(&fail);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	ia_nl_close(&ev_nl);
}

/*
 * The kind's refusals (STATUS) are the kernel's ENOSPC answers, every
 * container's, and outlive the container: a VM refused at birth and gone
 * before anyone read its container is still counted (the shipped
 * Prometheus alert is on this count).
 */
TEST_F(vfio, kind_refusals_count_every_enospc_and_outlive_the_container)
{
	const uint32_t k = IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER;
	ia_status_t st0 = {}, st1 = {}, st2 = {};
	ia_container_t ct = {};
	struct vfio_ctr c;
	int i, ret, enospc = 0, other = 0;

	ASSERT_EQ(0, ia_get_status(&self->nl, &st0));
	ASSERT_TRUE(ia_nl_kind_refusals(&st0, k) >= 0);
	ASSERT_EQ(0, vfio_set_entry_limit(10));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	/* 10 fit; 15 more asked, each refused by the kernel itself. */
	for (i = 0; i < 25; i++) {
		ret = vfio_map(&c, 0x100000 + i * PAGE, PAGE);
		if (ret == -ENOSPC)
			enospc++;
		else if (ret)
			other++;
	}
	EXPECT_EQ(15, enospc);
	EXPECT_EQ(0, other);
	/* A refusal for another reason (EINVAL: an unaligned size) is not the quota's. */
	EXPECT_EQ(-EINVAL, vfio_map(&c, 0x900000, PAGE + 1));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ((uint64_t)enospc, ct.fail_enospc);
	ia_nl_free(&ct);
	ASSERT_EQ(0, ia_get_status(&self->nl, &st1));
	EXPECT_EQ(ia_nl_kind_refusals(&st0, k) + enospc, ia_nl_kind_refusals(&st1, k));
	ia_nl_free(&st1);
	vfio_ctr_close(&c);
	/* Gone: no container of ours, and its refusals are still in the kind's. */
	EXPECT_EQ(-ENOENT, ia_container_of_pid(&self->nl, getpid(), &ct));
	ASSERT_EQ(0, ia_get_status(&self->nl, &st2));
	EXPECT_EQ(ia_nl_kind_refusals(&st0, k) + enospc, ia_nl_kind_refusals(&st2, k));
	ia_nl_free(&st0);
	ia_nl_free(&st2);
}

/*
 * A child holding a container on @group with @n live 4 KiB mappings; it
 * writes one byte to @ready_fd once they are in, then waits to be killed.
 */
static pid_t spawn_mapper(int group, int n, int ready_fd)
{
	struct vfio_ctr c;
	pid_t pid = fork();
	int i;

	if (pid)
		return pid;
	if (vfio_ctr_open(&c, group))
		_exit(1);
	for (i = 0; i < n; i++)
		if (vfio_map(&c, 0x100000 + i * PAGE, PAGE))
			_exit(2);
	if (write(ready_fd, "k", 1) != 1)
		_exit(3);
	pause();
	_exit(0);
}

/* (c) the owner dies with live mappings: the container goes. */
TEST_F(vfio, owner_killed_container_gone)
{
	ia_container_t ct = {};
	int fds[2], i, ret = 0;
	uint32_t id;
	char ok;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = spawn_mapper(self->groups[0], 10, fds[1]);
	ASSERT_LE(0, pid);
	ASSERT_EQ(1, read(fds[0], &ok, 1));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, pid, &ct));
	EXPECT_EQ(10, ct.entries);
	id = ct.id;
	ia_nl_free(&ct);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 50 * ia_timeout_scale(); i++) {
		ret = ia_get_container(&self->nl, id, &ct);
		if (ret == -ENOENT)
			break;
		ia_nl_free(&ct);
		usleep(100 * 1000);
	}
	EXPECT_EQ(-ENOENT, ret);
}

/* (d) two containers in two processes are counted apart. */
TEST_F(vfio, two_containers_two_processes)
{
	const int n[2] = { 5, 7 };
	ia_container_t ct[2] = {};
	int fds[2], k;
	pid_t pid[2];
	char ok;

	ASSERT_LE(2, self->ngroups) TH_LOG("needs two edu devices");
	ASSERT_EQ(0, pipe(fds));
	for (k = 0; k < 2; k++) {
		pid[k] = spawn_mapper(self->groups[k], n[k], fds[1]);
		ASSERT_LE(0, pid[k]);
	}
	for (k = 0; k < 2; k++)
		ASSERT_EQ(1, read(fds[0], &ok, 1));
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, ia_container_of_pid(&self->nl, pid[k], &ct[k]));
		EXPECT_EQ(n[k], ct[k].entries);
		EXPECT_EQ(n[k] * PAGE, ct[k].mapped_bytes);
		ASSERT_EQ(1, ct[k].n_group);
		EXPECT_EQ(self->groups[k], ct[k].group[0]);
	}
	EXPECT_NE(ct[0].id, ct[1].id);
	ia_nl_free_n(ct, 2);
	for (k = 0; k < 2; k++) {
		kill(pid[k], SIGKILL);
		waitpid(pid[k], NULL, 0);
	}
}

static int feature_active(struct ia_nl *nl, const char *name)
{
	const struct iommu_account_feature *f;
	ia_status_t st = {};
	int active;

	if (ia_get_status(nl, &st))
		return -1;
	f = ia_nl_feature(&st, name);
	active = f ? f->state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE : -1;
	ia_nl_free(&st);
	return active;
}

/* (e) vfio_iommu_type1 unloaded and reloaded under us; we reloaded under it. */
TEST_F(vfio, load_order)
{
	struct vfio_ctr c;
	int i;

	EXPECT_EQ(1, feature_active(&self->nl, "vfio-type1"));
	/* vfio-pci keeps vfio loaded, not vfio_iommu_type1. (busybox
	 * modprobe -r would also try vfio and fail: rmmod just this one.) */
	ASSERT_EQ(0, system("rmmod vfio_iommu_type1"));
	EXPECT_EQ(0, feature_active(&self->nl, "vfio-type1"));
	ASSERT_EQ(0, system("modprobe vfio_iommu_type1"));
	EXPECT_EQ(1, feature_active(&self->nl, "vfio-type1"));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	expect_exact(_metadata, &self->nl, &c, 3);
	vfio_ctr_close(&c);

	/* Now we load after vfio_iommu_type1. */
	ia_nl_close(&self->nl);
	ASSERT_EQ(0, system("modprobe -r iommu_account && modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	EXPECT_EQ(1, feature_active(&self->nl, "vfio-type1"));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	expect_exact(_metadata, &self->nl, &c, 4);
	vfio_ctr_close(&c);
}

/* (f) 8 threads mapping and unmapping on one container. */
struct worker {
	struct vfio_ctr *c;
	int idx;
	int live;
	int errors;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint64_t base = 0x10000000ULL + (uint64_t)w->idx * 0x1000000ULL;
	char mapped[64] = { 0 };
	unsigned int seed = w->idx + 1;
	int r, slot;

	for (r = 0; r < 400; r++) {
		slot = rand_r(&seed) % 64;
		if (!mapped[slot]) {
			if (vfio_map(w->c, base + slot * PAGE, PAGE))
				w->errors++;
			else
				mapped[slot] = 1;
		} else {
			if (vfio_unmap(w->c, base + slot * PAGE, PAGE))
				w->errors++;
			else
				mapped[slot] = 0;
		}
	}
	for (slot = 0; slot < 64; slot++)
		w->live += mapped[slot];
	return NULL;
}

TEST_F(vfio, concurrent_threads_exact)
{
	struct worker w[8];
	pthread_t t[8];
	struct vfio_ctr c;
	ia_container_t ct = {};
	int i, live = 0;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 8; i++) {
		w[i] = (struct worker){ .c = &c, .idx = i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].errors);
		live += w[i].live;
	}
	TH_LOG("%d live mappings after 3200 operations", live);
	expect_exact(_metadata, &self->nl, &c, live);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(live * PAGE, ct.mapped_bytes);
	EXPECT_EQ(live, ct.pinned_pages);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
}

/* (g) dma_entry_limit changed at runtime: new containers follow. */
TEST_F(vfio, entry_limit_follows_parameter)
{
	const unsigned int limits[2] = { 123, 77 };
	ia_container_t ct = {};
	struct vfio_ctr c;
	uint32_t avail;
	int k;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, vfio_set_entry_limit(limits[k]));
		ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
		ASSERT_EQ(0, vfio_map(&c, 0x100000, PAGE));
		ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
		ASSERT_EQ(0, vfio_dma_avail(&c, &avail));
		EXPECT_EQ(limits[k], ct.limit);
		EXPECT_EQ(limits[k] - 1, avail);
		ia_nl_free(&ct);
		vfio_ctr_close(&c);
	}
}

/* (h) a mapper with a small RLIMIT_MEMLOCK is refused: ENOMEM event. */
TEST_F(vfio, memlock_refusal_event)
{
	struct ia_nl ev_nl;
	ia_event_t ev = {};
	int status, found = 0;
	pid_t pid;

	ASSERT_EQ(0, ia_nl_open(&ev_nl));
	ASSERT_EQ(0, ia_events_join(&ev_nl));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct vfio_ctr c;

		if (vfio_ctr_open(&c, self->groups[0]))
			_exit(1);
		/* No CAP_IPC_LOCK from here on: the limit applies. */
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresuid(2000, 2000, 2000))
			_exit(2);
		if (vfio_map(&c, 0x100000, 8 * PAGE))
			_exit(3);
		_exit(vfio_map(&c, 0x200000, 32 * PAGE) == -ENOMEM ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("1 open 2 drop 3 small map 4 no ENOMEM");
	while (ia_event_read(&ev_nl, &ev, 3000) == 1) {
		if (ev.type != IOMMU_ACCOUNT_EVENT_TYPE_FAILURE || ev.owner.pid != (uint32_t)pid) {
			ia_nl_free(&ev);
			continue;
		}
		found = 1;
		break;
	}
	ASSERT_TRUE(found);
	EXPECT_EQ(ENOMEM, ev.errno_);
	EXPECT_EQ(2000, ev.owner.uid);
	EXPECT_EQ(64 * 1024, ev.memlock_limit);
	EXPECT_EQ(8 * PAGE, ev.locked_bytes);
	EXPECT_EQ(32 * PAGE, ev.size);
	ia_nl_free(&ev);
	ia_nl_close(&ev_nl);
}

/* Bad thresholds are refused and change nothing; unknown container: ENOENT. */
TEST_F(vfio, bad_requests)
{
	ia_container_t ct = {};
	uint32_t warn, crit;

	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 700, 900));
	EXPECT_EQ(-EINVAL, ia_set_thresholds(&self->nl, 900, 900));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
	EXPECT_EQ(-EINVAL, ia_set_thresholds(&self->nl, 0, 900));
	EXPECT_NE(0, self->nl.extack[0]);
	EXPECT_EQ(-EINVAL, ia_set_thresholds(&self->nl, 500, 1001));
	EXPECT_EQ(-EINVAL, ia_set_thresholds(&self->nl, 950, 900));
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &warn, &crit));
	EXPECT_EQ(700, warn);
	EXPECT_EQ(900, crit);
	EXPECT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	EXPECT_EQ(-ENOENT, ia_get_container(&self->nl, 999999, &ct));
	EXPECT_NE(0, self->nl.extack[0]);
}

/* Read STATUS; fail the test when it cannot be read. */
static void get_status(struct __test_metadata *_metadata, struct ia_nl *nl,
		       ia_status_t *st)
{
	memset(st, 0, sizeof(*st));
	ASSERT_EQ(0, ia_get_status(nl, st));
}

/*
 * Defect 1: the kernel links a mapping, fails to pin it (EFAULT: the vaddr
 * is not mapped; ENOMEM: RLIMIT_MEMLOCK) and removes it again. That
 * removal must not count as an entry leaving.
 */
TEST_F(vfio, refused_map_keeps_entries)
{
	ia_container_t ct = {};
	struct vfio_ctr c;
	void *hole;
	int i;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	/* Inaccessible memory: the kernel links each map, then cannot pin it. */
	hole = mmap(NULL, 20 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(-EFAULT, vfio_map_raw(&c, 0x800000 + i * 4 * PAGE, 4 * PAGE,
						(uintptr_t)hole + i * 4 * PAGE,
						VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE));
	expect_exact(_metadata, &self->nl, &c, 8);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(8 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(8, ct.pinned_pages);
	EXPECT_EQ(8, ct.map_ops);
	EXPECT_EQ(5, ct.fail_other);
	EXPECT_EQ(0, ct.inexact);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	munmap(hole, 20 * PAGE);
}

TEST_F(vfio, memlock_refused_maps_keep_entries)
{
	ia_container_t ct = {};
	struct { uint32_t avail; int err; long long lck; } r;
	int fds[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct vfio_ctr c;
		int i;

		r.err = 0;
		if (vfio_ctr_open(&c, self->groups[0]))
			r.err = 1;
		else if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresuid(2000, 2000, 2000))
			r.err = 2;
		for (i = 0; !r.err && i < 8; i++)
			if (vfio_map(&c, 0x100000 + i * PAGE, PAGE))
				r.err = 3;
		/* 8 pages held, 16 allowed: each 12-page map pins some, then is refused. */
		for (i = 0; !r.err && i < 5; i++)
			if (vfio_map(&c, 0x400000 + i * 0x10000, 12 * PAGE) != -ENOMEM)
				r.err = 4;
		if (!r.err && vfio_dma_avail(&c, &r.avail))
			r.err = 5;
		r.lck = vm_locked_bytes();
		if (write(fds[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(r), read(fds[0], &r, sizeof(r)));
	EXPECT_EQ(0, r.err) TH_LOG("1 open 2 drop 3 map 4 no ENOMEM 5 DMA_AVAIL");
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, pid, &ct));
	EXPECT_EQ(8, ct.entries);
	EXPECT_EQ(ct.limit - r.avail, ct.entries);
	EXPECT_EQ(8 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(8, ct.pinned_pages);
	EXPECT_EQ(8 * (long long)PAGE, r.lck);
	EXPECT_EQ(5, ct.fail_enomem);
	EXPECT_EQ(8, ct.map_ops);
	EXPECT_EQ(0, ct.inexact);
	ia_nl_free(&ct);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Defect 2: a vaddr update (live update) removes and adds nothing. */
TEST_F(vfio, vaddr_update_keeps_bytes)
{
	ia_container_t ct = {};
	struct vfio_ctr c;
	long long n;
	void *other;
	int i;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	if (ioctl(c.container, VFIO_CHECK_EXTENSION, VFIO_UPDATE_VADDR) <= 0) {
		vfio_ctr_close(&c);
		SKIP(return, "this kernel's type1 has no VFIO_UPDATE_VADDR (5.12 on)");
	}
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	n = vfio_unmap_flags(&c, 0x100000, 10 * PAGE, VFIO_DMA_UNMAP_FLAG_VADDR);
	ASSERT_EQ(10 * PAGE, n);
	other = mmap(NULL, 10 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, other);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, vfio_map_raw(&c, 0x100000 + i * PAGE, PAGE,
					  (uintptr_t)other + i * PAGE, VFIO_DMA_MAP_FLAG_VADDR));
	expect_exact(_metadata, &self->nl, &c, 10);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(10 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(10, ct.pinned_pages);
	EXPECT_EQ(10, ct.map_ops);
	/* A vaddr update pins nothing and is no mapping of a group without a domain. */
	EXPECT_EQ(0, ct.inexact);
	/* The kernel's own total: everything it unmaps now. */
	EXPECT_EQ((long long)ct.mapped_bytes,
		  vfio_unmap_flags(&c, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL));
	ia_nl_free(&ct);
	expect_exact(_metadata, &self->nl, &c, 0);
	vfio_ctr_close(&c);
	munmap(other, 10 * PAGE);
}

/*
 * Defect 3: another thread rewrites the request (size, flags) while the
 * kernel works on it. The figures must be what the kernel did: the bytes
 * it unmaps at the end, entries == limit - DMA_AVAIL.
 */
struct flipper {
	volatile struct vfio_iommu_type1_dma_map *m;
	volatile int stop;
};

static void *flip_fn(void *arg)
{
	struct flipper *f = arg;
	unsigned long k = 0;

	while (!f->stop) {
		f->m->size = (k & 1) ? 16 * PAGE : PAGE;
		f->m->flags = (k & 2) ? VFIO_DMA_MAP_FLAG_VADDR :
			      VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
		/* Let the mapper run if it shares our CPU; 61 is odd, so the
		 * request left behind cycles through all four states.
		 */
		if (!(++k % 61))
			sched_yield();
	}
	return NULL;
}

TEST_F(vfio, request_rewritten_during_map)
{
	struct vfio_iommu_type1_dma_map *m;
	struct flipper f = {};
	ia_container_t ct = {};
	struct vfio_ctr c;
	int errs[64] = { 0 };
	pthread_t t;
	int i, k, ok = 0;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	f.m = m;
	ASSERT_EQ(0, pthread_create(&t, NULL, flip_fn, &f));
	for (i = 0; i < 20000 && ok < 300; i++) {
		m->argsz = sizeof(*m);
		m->vaddr = (uintptr_t)c.buf;
		m->iova = 0x1000000ULL + (uint64_t)i * 0x100000;
		if (!ioctl(c.container, VFIO_IOMMU_MAP_DMA, m))
			ok++;
		else if (errno < 64)
			errs[errno]++;
	}
	for (k = 0; k < 64; k++)
		if (errs[k])
			TH_LOG("errno %d: %d times", k, errs[k]);
	f.stop = 1;
	pthread_join(t, NULL);
	TH_LOG("%d of %d maps accepted while the request was rewritten", ok, i);
	ASSERT_LT(0, ok);
	expect_exact(_metadata, &self->nl, &c, ok);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	EXPECT_EQ(ok, ct.map_ops);
	/* Everything at once: UNMAP_ALL (5.12 on), else the whole range tried. */
	if (ioctl(c.container, VFIO_CHECK_EXTENSION, VFIO_UNMAP_ALL) > 0) {
		EXPECT_EQ((long long)ct.mapped_bytes,
			  vfio_unmap_flags(&c, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL));
	} else {
		EXPECT_EQ((long long)ct.mapped_bytes,
			  vfio_unmap_flags(&c, 0x1000000ULL, (size_t)i * 0x100000, 0));
	}
	EXPECT_EQ(0, ct.inexact);
	ia_nl_free(&ct);
	expect_exact(_metadata, &self->nl, &c, 0);
	vfio_ctr_close(&c);
	munmap(m, PAGE);
}

/* Defect 4: 400 threads mapping at once on one container. */
struct many {
	struct vfio_ctr *c;
	int idx;
	int errors;
	pthread_barrier_t *go;
};

static void *many_fn(void *arg)
{
	struct many *w = arg;
	int i;

	pthread_barrier_wait(w->go);
	for (i = 0; i < 10; i++)
		if (vfio_map(w->c, 0x10000000ULL + ((uint64_t)w->idx * 10 + i) * PAGE, PAGE))
			w->errors++;
	return NULL;
}

TEST_F(vfio, four_hundred_threads_exact)
{
	enum { T = 400 };
	static struct many w[T];
	static pthread_t t[T];
	pthread_barrier_t go;
	ia_container_t ct = {};
	ia_status_t st = {};
	struct vfio_ctr c;
	int i, errors = 0;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	ASSERT_EQ(0, pthread_barrier_init(&go, NULL, T));
	for (i = 0; i < T; i++) {
		w[i] = (struct many){ .c = &c, .idx = i, .go = &go };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, many_fn, &w[i]));
	}
	for (i = 0; i < T; i++) {
		pthread_join(t[i], NULL);
		errors += w[i].errors;
	}
	EXPECT_EQ(0, errors);
	get_status(_metadata, &self->nl, &st);
	TH_LOG("probes missed: %llu", (unsigned long long)st.probes_missed);
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	expect_exact(_metadata, &self->nl, &c, T * 10);
	EXPECT_EQ(T * 10 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(T * 10, ct.pinned_pages);
	/* Exact, or flagged: never silently wrong. */
	if (st.probes_missed) {
		EXPECT_NE(0, ct.inexact & IOMMU_ACCOUNT_INEXACT_PROBE_MISSED);
	} else {
		EXPECT_EQ(0, ct.inexact);
	}
	ia_nl_free(&st);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
}

/*
 * Defect 5: containers closed and opened at once, many times (the kernel
 * reuses the freed struct vfio_iommu): no record is lost or left stale.
 */
static void *churn_fn(void *arg)
{
	int group = *(int *)arg, i;
	struct vfio_ctr c;

	for (i = 0; i < 40; i++) {
		if (vfio_ctr_open(&c, group)) {
			vfio_ctr_close(&c);
			continue;
		}
		vfio_map(&c, 0x100000, PAGE);
		vfio_ctr_close(&c);
	}
	return NULL;
}

TEST_F(vfio, close_open_churn_no_stale_record)
{
	ia_container_t all[64] = {};
	ia_status_t st = {};
	struct vfio_ctr c;
	pthread_t t[2];
	int i, n, k;

	ASSERT_LE(2, self->ngroups) TH_LOG("needs two edu devices");
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_create(&t[k], NULL, churn_fn, &self->groups[k]));
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	n = ia_dump_containers(&self->nl, all, 64);
	ASSERT_LE(0, n);
	for (i = 0; i < n; i++)
		EXPECT_NE((uint32_t)getpid(), all[i].owner.pid) TH_LOG("stale container %u", all[i].id);
	ia_nl_free_n(all, n);
	get_status(_metadata, &self->nl, &st);
	EXPECT_EQ(0, st.vfio_untracked);
	ia_nl_free(&st);
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	expect_exact(_metadata, &self->nl, &c, 3);
	vfio_ctr_close(&c);
}

/*
 * Defect 6 and 13: two groups in one container, both listed; detaching one
 * keeps the mappings; detaching the last removes them with their pinned
 * pages (VmLck back where it was).
 */
TEST_F(vfio, detach_groups_exact)
{
	ia_container_t ct = {};
	struct vfio_ctr c;
	long long lck0;
	char path[64];
	int g2, i, id;

	ASSERT_LE(2, self->ngroups) TH_LOG("needs two edu devices");
	lck0 = vm_locked_bytes();
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	snprintf(path, sizeof(path), "/dev/vfio/%d", self->groups[1]);
	g2 = open(path, O_RDWR);
	ASSERT_LE(0, g2);
	ASSERT_EQ(0, ioctl(g2, VFIO_GROUP_SET_CONTAINER, &c.container));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	id = ct.id;
	ASSERT_EQ(2, ct.n_group);
	EXPECT_EQ(5, ct.pinned_pages);
	ia_nl_free(&ct);
	ASSERT_EQ(0, ioctl(g2, VFIO_GROUP_UNSET_CONTAINER));
	close(g2);
	expect_exact(_metadata, &self->nl, &c, 5);
	ASSERT_EQ(0, ia_get_container(&self->nl, id, &ct));
	EXPECT_EQ(1, ct.n_group);
	EXPECT_EQ(5 * PAGE, ct.mapped_bytes);
	EXPECT_EQ(5, ct.pinned_pages);
	ia_nl_free(&ct);
	EXPECT_EQ(lck0 + 5 * (long long)PAGE, vm_locked_bytes());
	/* The last group leaves: type1 unmaps everything, the container goes. */
	ASSERT_EQ(0, ioctl(c.group, VFIO_GROUP_UNSET_CONTAINER));
	EXPECT_EQ(-ENOENT, ia_get_container(&self->nl, id, &ct));
	EXPECT_EQ(lck0, vm_locked_bytes());
	vfio_ctr_close(&c);
}

/* Defect 7: CAP_NET_ADMIN without CAP_SYS_ADMIN cannot change thresholds. */
TEST_F(vfio, set_thresholds_needs_sys_admin)
{
	uint32_t warn, crit;
	int status;
	pid_t pid;

	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2] = {};
		struct ia_nl nl;
		int ret;

		d[CAP_NET_ADMIN / 32].effective = d[CAP_NET_ADMIN / 32].permitted =
			1u << (CAP_NET_ADMIN % 32);
		if (syscall(SYS_capset, &h, d))
			_exit(1);
		if (ia_nl_open(&nl))
			_exit(2);
		ret = ia_set_thresholds(&nl, 999, 1000);
		_exit(ret == -EPERM && nl.extack[0] ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("1 capset 2 socket 3 not EPERM with extack");
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &warn, &crit));
	EXPECT_EQ(800, warn);
	EXPECT_EQ(950, crit);
}

/*
 * The next threshold event of container @id within @ms, or 0. @ev is freed
 * first (a zeroed or earlier event), so a test calls this again and again.
 */
static int next_threshold(struct ia_nl *ev_nl, uint32_t id, ia_event_t *ev, int ms)
{
	ia_nl_free(ev);
	while (ia_event_read(ev_nl, ev, ms) == 1) {
		if (ev->container_id == id && ev->type == IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD)
			return 1;
		ia_nl_free(ev);
	}
	return 0;
}

/* Defect 8: thresholds moved up after warn fired: warn fires again at the new line. */
TEST_F(vfio, thresholds_rearm_when_changed)
{
	ia_container_t ct = {};
	ia_event_t ev = {};
	struct ia_nl ev_nl;
	struct vfio_ctr c;
	int i;

	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	ASSERT_EQ(0, vfio_set_entry_limit(100));
	ASSERT_EQ(0, ia_nl_open(&ev_nl));
	ASSERT_EQ(0, ia_events_join(&ev_nl));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	for (i = 0; i < 85; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(80, ev.entries);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, ev.level);
	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 900, 990));
	for (; i < 90; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(90, ev.entries);
	EXPECT_EQ(900, ev.threshold);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, ev.level);
	/* Lowered below the present count: raised at once, for the owner. */
	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 500, 880));
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT, ev.level);
	EXPECT_EQ(880, ev.threshold);
	EXPECT_EQ(90, ev.entries);
	EXPECT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	ia_nl_free(&ev);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	ia_nl_close(&ev_nl);
}

/*
 * A level re-arms when the count falls below its line and is raised again on
 * the way back up, at the line's exact count: limit 100, lines 80 % and
 * 95 %. Each event is the next one the container raised, so one raised out
 * of turn (WARN while only CRIT was re-armed) fails the check after it.
 */
TEST_F(vfio, levels_rearm_below_the_line)
{
	ia_container_t ct = {};
	ia_event_t ev = {};
	struct ia_nl ev_nl;
	struct vfio_ctr c;
	int n = 0;

	ASSERT_EQ(0, ia_set_thresholds(&self->nl, 800, 950));
	ASSERT_EQ(0, vfio_set_entry_limit(100));
	ASSERT_EQ(0, ia_nl_open(&ev_nl));
	ASSERT_EQ(0, ia_events_join(&ev_nl));
	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	while (n < 96)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + n++ * PAGE, PAGE));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, ev.level);
	EXPECT_EQ(80, ev.entries);
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT, ev.level);
	EXPECT_EQ(95, ev.entries);
	/* 96 -> 94: CRIT re-armed, WARN still raised; back to 95: CRIT only. */
	while (n > 94)
		ASSERT_EQ(0, vfio_unmap(&c, 0x100000 + --n * PAGE, PAGE));
	ASSERT_EQ(0, vfio_map(&c, 0x100000 + n++ * PAGE, PAGE));
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT, ev.level);
	EXPECT_EQ(95, ev.entries);
	/* 95 -> 80: nothing re-armed at the WARN line itself; -> 79: WARN too. */
	while (n > 80)
		ASSERT_EQ(0, vfio_unmap(&c, 0x100000 + --n * PAGE, PAGE));
	ASSERT_EQ(0, vfio_map(&c, 0x100000 + n++ * PAGE, PAGE));	/* 81 */
	ASSERT_EQ(0, vfio_unmap(&c, 0x100000 + --n * PAGE, PAGE));	/* 80 */
	ASSERT_EQ(0, vfio_unmap(&c, 0x100000 + --n * PAGE, PAGE));	/* 79 */
	ASSERT_EQ(0, vfio_map(&c, 0x100000 + n++ * PAGE, PAGE));	/* 80 */
	ASSERT_EQ(1, next_threshold(&ev_nl, ct.id, &ev, 3000));
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, ev.level);
	EXPECT_EQ(80, ev.entries);
	EXPECT_EQ(800, ev.threshold);
	ia_nl_free(&ev);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	ia_nl_close(&ev_nl);
}

/*
 * Defect 9: one container refused 20,000 times in a loop; another container
 * refused once. Nothing is dropped, the other's refusal arrives, and the
 * flooder's events add up to its 20,000 refusals.
 */
TEST_F(vfio, failure_flood_coalesced)
{
	const int N = 20000;
	struct vfio_ctr a, b;
	ia_container_t ca = {};
	ia_status_t st0 = {}, st = {};
	struct ia_nl ev_nl;
	ia_event_t ev = {};
	uint64_t sum = 0;
	int i, b_seen = 0, a_events = 0;

	get_status(_metadata, &self->nl, &st0);
	ASSERT_LE(2, self->ngroups) TH_LOG("needs two edu devices");
	ASSERT_EQ(0, vfio_set_entry_limit(1));
	ASSERT_EQ(0, ia_nl_open(&ev_nl));
	ASSERT_EQ(0, ia_events_join(&ev_nl));
	ASSERT_EQ(0, vfio_ctr_open(&a, self->groups[0]));
	ASSERT_EQ(0, vfio_ctr_open(&b, self->groups[1]));
	ASSERT_EQ(0, vfio_map(&a, 0x100000, PAGE));
	ASSERT_EQ(0, vfio_map(&b, 0x100000, PAGE));
	for (i = 0; i < N; i++)
		ASSERT_EQ(-ENOSPC, vfio_map(&a, 0x200000, PAGE));
	ASSERT_EQ(-ENOSPC, vfio_map(&b, 0x200000, PAGE));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ca));
	EXPECT_EQ(N, ca.fail_enospc);
	/* The flush comes at the end of the interval (event_interval_ms). */
	while (ia_event_read(&ev_nl, &ev, 3000) == 1) {
		if (ev.type != IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
			ia_nl_free(&ev);
			continue;
		}
		if (ev.container_id == ca.id) {
			sum += ev.count;
			a_events++;
		} else {
			b_seen++;
			EXPECT_EQ(1, ev.count);
		}
		ia_nl_free(&ev);
		if (sum == (uint64_t)N && b_seen)
			break;
	}
	TH_LOG("%d events for %d refusals", a_events, N);
	EXPECT_EQ(N, sum);
	EXPECT_EQ(1, b_seen);
	EXPECT_GE(20, a_events);
	get_status(_metadata, &self->nl, &st);
	EXPECT_EQ(st0.events_dropped, st.events_dropped);
	ia_nl_free(&st0);
	ia_nl_free(&st);
	ia_nl_free(&ca);
	vfio_ctr_close(&a);
	vfio_ctr_close(&b);
	ia_nl_close(&ev_nl);
}

/* Defect 11: a container set up before the module loaded is counted as untracked. */
TEST_F(vfio, untracked_container_reported)
{
	ia_container_t ct = {};
	ia_status_t st = {};
	struct vfio_ctr c;

	ASSERT_EQ(0, vfio_ctr_open(&c, self->groups[0]));
	ASSERT_EQ(0, vfio_map(&c, 0x100000, PAGE));
	ia_nl_close(&self->nl);
	ASSERT_EQ(0, system("modprobe -r iommu_account && modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	get_status(_metadata, &self->nl, &st);
	EXPECT_EQ(1, st.vfio_untracked);
	ia_nl_free(&st);
	EXPECT_EQ(-ENOENT, ia_container_of_pid(&self->nl, getpid(), &ct));
	vfio_ctr_close(&c);
	get_status(_metadata, &self->nl, &st);
	EXPECT_EQ(0, st.vfio_untracked);
	ia_nl_free(&st);
}

/* Enough groups for a dump of several messages and more than 16 per container. */
#define MANY_GROUPS 30

/* Attach groups[1..n-1] to @c's container; their fds in @fds. */
static int attach_groups(struct vfio_ctr *c, const int *groups, int n, int *fds)
{
	char path[64];
	int i;

	for (i = 1; i < n; i++) {
		snprintf(path, sizeof(path), "/dev/vfio/%d", groups[i]);
		fds[i] = open(path, O_RDWR);
		if (fds[i] < 0 || ioctl(fds[i], VFIO_GROUP_SET_CONTAINER, &c->container))
			return -errno;
	}
	return 0;
}

static int find_u32(const uint32_t *v, int n, uint32_t x)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return -1;
}

/*
 * Defect 13: more than 16 groups in one container. The container lists
 * every one (do and dump), every group names the container, and a refusal
 * event counts them all.
 */
TEST_F(vfio, many_groups_one_container_all_listed)
{
	uint32_t ids[256], ctrs[256];
	int all[64], fds[64], n, i, k, ng, nrecv;
	ia_container_t ct = {}, dump[64] = {};
	ia_event_t ev = {};
	struct ia_nl evs;
	struct vfio_ctr c;

	n = vfio_edu_groups(all, 64);
	if (n < MANY_GROUPS)
		SKIP(return, "%d edu groups; boot with scripts/vm/run --edu 40", n);
	ASSERT_EQ(0, vfio_set_entry_limit(1));
	ASSERT_EQ(0, ia_nl_open(&evs));
	ASSERT_EQ(0, ia_events_join(&evs));
	ASSERT_EQ(0, vfio_ctr_open(&c, all[0]));
	ASSERT_EQ(0, attach_groups(&c, all, n, fds));
	ASSERT_EQ(0, vfio_map(&c, 0x100000, PAGE));
	ASSERT_EQ(-ENOSPC, vfio_map(&c, 0x200000, PAGE));

	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	ASSERT_EQ(n, ct.n_group);
	for (i = 0; i < n; i++)
		EXPECT_LE(0, find_u32(ct.group, n, all[i])) TH_LOG("group %d missing", all[i]);
	ASSERT_EQ(0, ia_get_container(&self->nl, ct.id, &dump[0]));
	EXPECT_EQ(n, dump[0].n_group);
	ia_nl_free(&dump[0]);
	k = ia_dump_containers(&self->nl, dump, 64);
	ASSERT_LE(1, k);
	for (i = 0; i < k && dump[i].id != ct.id; i++)
		;
	ASSERT_LT(i, k);
	EXPECT_EQ(n, dump[i].n_group);
	ia_nl_free_n(dump, k);

	ng = ia_dump_groups_split(&self->nl, NULL, NULL, ids, ctrs, 256, &nrecv);
	ASSERT_LE(n, ng);
	for (i = 0; i < n; i++) {
		k = find_u32(ids, ng, all[i]);
		ASSERT_LE(0, k) TH_LOG("group %d not in the group dump", all[i]);
		EXPECT_EQ(ct.id, ctrs[k]);
	}

	/* The ENOSPC event: first 64 groups listed, group-count says all. */
	for (;;) {
		ASSERT_EQ(1, ia_event_read(&evs, &ev, 5000));
		if (ev.type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE && ev.container_id == ct.id)
			break;
		ia_nl_free(&ev);
	}
	EXPECT_EQ(ENOSPC, ev.errno_);
	EXPECT_EQ(n, ev.group_count);
	ia_nl_free(&ev);
	ia_nl_free(&ct);
	for (i = 1; i < n; i++)
		close(fds[i]);
	vfio_ctr_close(&c);
	ia_nl_close(&evs);
}

/* Drop to uid 1000 with no capabilities. */
static void drop_to_user(void *arg)
{
	(void)arg;
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		_exit(99);
}

/*
 * Defect 12: what a group dump shows is decided when it starts. A dump
 * started by root and read on after the reader dropped to an unprivileged
 * uid still lists root's groups (no half-filtered view); a dump started by
 * that uid lists none of them.
 */
TEST_F(vfio, group_dump_view_taken_at_start)
{
	int all[64], fds[64], n, i, fd[2], res[4];
	ia_container_t ct = {};
	struct vfio_ctr c;
	pid_t pid;

	n = vfio_edu_groups(all, 64);
	if (n < MANY_GROUPS)
		SKIP(return, "%d edu groups; boot with scripts/vm/run --edu 40", n);
	ASSERT_EQ(0, vfio_ctr_open(&c, all[0]));
	ASSERT_EQ(0, attach_groups(&c, all, n, fds));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	ASSERT_EQ(0, pipe(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint32_t ids[256], ctrs[256];
		struct ia_nl nl;
		int nrecv, ng, ng2, mine = 0, later = 0;

		if (ia_nl_open(&nl))
			_exit(98);
		ng = ia_dump_groups_split(&nl, drop_to_user, NULL, ids, ctrs, 256, &nrecv);
		for (i = 0; i < ng && i < 256; i++)
			mine += ctrs[i] == ct.id;
		/* Now unprivileged from the start. */
		ng2 = ia_dump_groups_split(&nl, NULL, NULL, ids, ctrs, 256, &i);
		for (i = 0; i < ng2 && i < 256; i++)
			later += ctrs[i] == ct.id;
		res[0] = ng;
		res[1] = nrecv;
		res[2] = mine;
		res[3] = later;
		if (write(fd[1], res, sizeof(res)) != sizeof(res))
			_exit(97);
		_exit(0);
	}
	close(fd[1]);
	ASSERT_EQ(sizeof(res), read(fd[0], res, sizeof(res)));
	ASSERT_EQ(pid, waitpid(pid, &i, 0));
	EXPECT_EQ(0, i);
	EXPECT_LE(2, res[1]) TH_LOG("the dump fit in one recv(): not a test of its continuation");
	EXPECT_EQ(n, res[2]) TH_LOG("started as root, read as uid 1000: %d of %d groups", res[2], n);
	EXPECT_EQ(0, res[3]);
	ia_nl_free(&ct);
	for (i = 1; i < n; i++)
		close(fds[i]);
	vfio_ctr_close(&c);
}

/* STATUS readers: count reads whose vfio-type1 state and detail disagree. */
struct status_reader {
	volatile int stop;
	int reads, torn, errors;
	char last_bad[160];
};

static void *status_reader_fn(void *arg)
{
	struct status_reader *r = arg;
	ia_status_t st = {};
	struct ia_nl nl;
	int i;

	if (ia_nl_open(&nl)) {
		r->errors++;
		return NULL;
	}
	while (!r->stop) {
		if (ia_get_status(&nl, &st)) {
			r->errors++;
			continue;
		}
		r->reads++;
		for (i = 0; i < st.n_feature; i++) {
			const struct iommu_account_feature *f = &st.feature[i];
			bool ok;

			if (strcmp(f->name, "vfio-type1"))
				continue;
			if (f->state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE)
				ok = !strncmp(f->detail, "kprobes on vfio_iommu_type1", 27) ||
				     !strcmp(f->detail, "ftrace hooks (MAP_DMA wrapped) on "
							"vfio_iommu_type1");
			else
				ok = !strcmp(f->detail,
					     "vfio_iommu_type1 not loaded: hooks attach when it loads");
			if (!ok) {
				r->torn++;
				snprintf(r->last_bad, sizeof(r->last_bad), "%u %s", f->state, f->detail);
			}
		}
		ia_nl_free(&st);
	}
	ia_nl_close(&nl);
	return NULL;
}

/*
 * Defect 15: the feature table is rewritten by the module notifier while
 * STATUS copies it. Two readers hammer STATUS while vfio_iommu_type1 is
 * unloaded and loaded 15 times: every copy has a state and a detail that
 * belong together. (A race test: it can only catch a torn copy, not prove
 * there is none.) Its limit is the harness's 30 s times 6: with kprobes
 * hooks each load arms them again, and on a loaded TCG host (a CI run
 * building a root beside two VMs) 15 reloads took more than 30 s, the
 * test was killed between rmmod and modprobe, and the next test found no
 * type1. The limit bounds a hung test; it does not measure speed.
 */
TEST_F_TIMEOUT(vfio, status_consistent_while_type1_reloads, 180)
{
	struct status_reader r = { 0 };
	pthread_t th[2];
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, status_reader_fn, &r));
	for (i = 0; i < 15; i++) {
		ASSERT_EQ(0, system("rmmod vfio_iommu_type1"));
		ASSERT_EQ(0, system("modprobe vfio_iommu_type1"));
	}
	r.stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, r.errors);
	EXPECT_LT(30, r.reads);
	EXPECT_EQ(0, r.torn) TH_LOG("last torn copy: %s", r.last_bad);
	EXPECT_EQ(1, feature_active(&self->nl, "vfio-type1"));
}

/*
 * A container whose only group is a mediated device (emulated IOMMU, the
 * ia_mdev test module): the kernel links its mappings without pinning them
 * (DMA_AVAIL drops), and pins only when a device asks, which the module does
 * not see. Its figures must say so (inexact: unpinned) rather than pass 0
 * entries off as exact. Skipped where the kernel has no mdev or the VM was
 * booted without ia_mdev.ko (scripts/vm/run --add).
 */
TEST_F(vfio, mdev_only_container_says_unpinned)
{
	ia_container_t ct = {};
	struct vfio_ctr c;
	char why[256];
	uint32_t avail;
	int group, i;

	if (vfio_mdev_groups(&group, 1, why, sizeof(why)) != 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, vfio_ctr_open_buf(&c, group, 4 * PAGE));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vfio_map(&c, 0x100000 + i * PAGE, PAGE));
	ASSERT_EQ(0, vfio_dma_avail(&c, &avail));
	ASSERT_EQ(0, ia_container_of_pid(&self->nl, getpid(), &ct));
	/* The kernel linked three mappings. */
	EXPECT_EQ(3, ct.limit - avail);
	/* Exact, or flagged: never silently wrong. */
	if (ct.entries != ct.limit - avail)
		EXPECT_NE(0, ct.inexact & IOMMU_ACCOUNT_INEXACT_UNPINNED)
			TH_LOG("entries %u, the kernel's %u, inexact %#x", ct.entries,
			       ct.limit - avail, ct.inexact);
	EXPECT_EQ(0, ct.inexact & ~IOMMU_ACCOUNT_INEXACT_UNPINNED);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	vfio_mdev_cleanup();
}

IA_HARNESS_MAIN
