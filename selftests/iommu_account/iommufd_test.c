// SPDX-License-Identifier: GPL-2.0
/*
 * iommufd's pins in the per-uid pot, checked against the kernel's own
 * answers: IOMMU_IOAS_MAP's ENOMEM past RLIMIT_MEMLOCK, the pot as GET_UID
 * reads it (user_struct->locked_vm), VmLck of the mapping process in
 * per-process mode, and the sizes we mapped. The client speaks the iommufd
 * uAPI itself: /dev/iommu, IOMMU_IOAS_ALLOC/MAP/UNMAP/COPY, IOMMU_OPTION,
 * and an edu device through its VFIO cdev (/dev/vfio/devices/vfioN,
 * VFIO_DEVICE_BIND_IOMMUFD, VFIO_DEVICE_ATTACH_IOMMUFD_PT), so every map
 * pins at once. Agents are child processes that set up as root, then become
 * a uid of their own with an RLIMIT_MEMLOCK and obey commands; io_uring
 * agents (ia_uring.c) of the same uid share the pot.
 *
 * Needs a kernel with CONFIG_IOMMUFD and CONFIG_VFIO_DEVICE_CDEV (the debug
 * lane's: scripts/check runs it there); elsewhere it skips. That the module
 * says iommufd is unavailable where /dev/iommu is absent, and active where
 * it exists, netlink_test checks on every kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"
#include "ia_vfio.h"

#include "ia_iommufd.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define FD IOMMU_ACCOUNT_CONSUMER_IOMMUFD
#define BUFS IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS
#define CTX IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX

/* --- the VFIO cdevs of the edu devices ------------------------------------ */

/* /dev/vfio/devices/vfioN of up to @max edu devices bound to vfio-pci. */
static int edu_cdevs(char (*out)[300], int max)
{
	const char *base = "/sys/bus/pci/devices";
	int groups[64], n = 0;
	struct dirent *de, *ve;
	char path[600];
	DIR *d, *v;

	if (vfio_edu_groups(groups, 64) <= 0)
		return 0;
	d = opendir(base);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/vfio-dev", base, de->d_name);
		v = opendir(path);
		if (!v)
			continue;
		while ((ve = readdir(v)))
			if (!strncmp(ve->d_name, "vfio", 4) && n < max) {
				snprintf(out[n++], sizeof(out[0]), "/dev/vfio/devices/%s", ve->d_name);
				break;
			}
		closedir(v);
	}
	closedir(d);
	return n;
}

/* --- agents: an iommufd context of their own, then a uid of their own ------ */

enum fd_mode { FD_USER, FD_MM, FD_EXEMPT };

enum fd_op {
	OP_MAP = 1, OP_UNMAP, OP_COPY, OP_UNMAP2, OP_DESTROY, OP_DETACH, OP_BADMAP, OP_THREADS,
	OP_MAP2, OP_IDS
};

struct fd_ctx {
	/* What the agent is: */
	enum fd_mode mode;
	uid_t uid;
	uint64_t limit;
	char (*cdev)[300];
	int ndev;
	/* What it holds: */
	int ifd, dfd;		/* /dev/iommu; the device attached to the first IOAS */
	uint32_t ioas, ioas2;
};

static int64_t fd_map(struct fd_ctx *x, uint32_t ioas, size_t len)
{
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iommu_ioas_map m = {
		.size = sizeof(m),
		.flags = IOMMU_IOAS_MAP_WRITEABLE | IOMMU_IOAS_MAP_READABLE,
		.ioas_id = ioas,
		.length = len,
	};

	if (buf == MAP_FAILED)
		return -errno;
	m.user_va = (uintptr_t)buf;
	if (ioctl(x->ifd, IOMMU_IOAS_MAP, &m)) {
		int e = errno;

		munmap(buf, len);
		return -e;
	}
	return (int64_t)m.iova;
}

static int64_t fd_unmap(struct fd_ctx *x, uint32_t ioas, uint64_t iova, uint64_t len)
{
	struct iommu_ioas_unmap u = { .size = sizeof(u), .ioas_id = ioas, .iova = iova,
				      .length = len };

	return ioctl(x->ifd, IOMMU_IOAS_UNMAP, &u) ? -errno : (int64_t)u.length;
}

struct fd_thread {
	struct fd_ctx *x;
	int iters;
	size_t len;
	int64_t ret;
};

/* Map and unmap @len bytes @iters times, then leave one mapping. */
static void *fd_thread_fn(void *arg)
{
	struct fd_thread *t = arg;
	int64_t iova;
	int i;

	for (i = 0; i < t->iters; i++) {
		iova = fd_map(t->x, t->x->ioas, t->len);
		if (iova < 0 || fd_unmap(t->x, t->x->ioas, iova, t->len) != (int64_t)t->len) {
			t->ret = iova < 0 ? iova : -EIO;
			return NULL;
		}
	}
	iova = fd_map(t->x, t->x->ioas, t->len);
	t->ret = iova < 0 ? iova : 0;
	return NULL;
}

static int64_t fd_threads(struct fd_ctx *x, int n, int iters, size_t len)
{
	struct fd_thread t[16];
	pthread_t th[16];
	int i;

	for (i = 0; i < n; i++) {
		t[i] = (struct fd_thread){ .x = x, .iters = iters, .len = len };
		if (pthread_create(&th[i], NULL, fd_thread_fn, &t[i]))
			return -EAGAIN;
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++)
		if (t[i].ret)
			return t[i].ret;
	return 0;
}

static int64_t fd_do(void *priv, const struct agent_cmd *c)
{
	struct fd_ctx *x = priv;
	struct iommu_ioas_copy cp = { .size = sizeof(cp) };
	struct iommu_destroy de = { .size = sizeof(de) };
	struct vfio_device_detach_iommufd_pt dt = { .argsz = sizeof(dt) };
	struct iommu_ioas_map m = { .size = sizeof(m) };

	switch (c->op) {
	case OP_DETACH:
		return ioctl(x->dfd, VFIO_DEVICE_DETACH_IOMMUFD_PT, &dt) ? -errno : 0;
	case OP_MAP:
		return fd_map(x, x->ioas, c->a);
	case OP_MAP2:
		return fd_map(x, x->ioas2, c->a);
	case OP_IDS:
		return (int64_t)((uint64_t)x->ioas2 << 32 | x->ioas);
	case OP_UNMAP:
		return fd_unmap(x, x->ioas, c->a, c->b);
	case OP_UNMAP2:
		return fd_unmap(x, x->ioas2, c->a, c->b);
	case OP_COPY:
		cp.dst_ioas_id = x->ioas2;
		cp.src_ioas_id = x->ioas;
		cp.length = c->b;
		cp.src_iova = c->a;
		cp.flags = IOMMU_IOAS_MAP_WRITEABLE | IOMMU_IOAS_MAP_READABLE;
		return ioctl(x->ifd, IOMMU_IOAS_COPY, &cp) ? -errno : (int64_t)cp.dst_iova;
	case OP_DESTROY:
		de.id = x->ioas;
		return ioctl(x->ifd, IOMMU_DESTROY, &de) ? -errno : 0;
	case OP_BADMAP:
		/* Memory that is not mapped: the pin fails (EFAULT), nothing stays. */
		m.flags = IOMMU_IOAS_MAP_WRITEABLE | IOMMU_IOAS_MAP_READABLE;
		m.ioas_id = x->ioas;
		m.length = c->a;
		m.user_va = (uintptr_t)mmap(NULL, c->a, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
					    -1, 0);
		munmap((void *)(uintptr_t)m.user_va, c->a);
		return ioctl(x->ifd, IOMMU_IOAS_MAP, &m) ? -errno : 0;
	case OP_THREADS:
		return fd_threads(x, (int)c->a, (int)c->b, c->c);
	}
	return -EINVAL;
}

/*
 * The agent's set-up as root: /dev/iommu (its accounting mode set first:
 * IOMMU_OPTION needs CAP_SYS_RESOURCE and a context without objects), one
 * IOAS with @cdev[0] attached, and a second with @cdev[1] when given; then
 * uid @uid with RLIMIT_MEMLOCK @limit and no capabilities, unless exempt.
 */
static int64_t fd_setup(void *priv)
{
	struct fd_ctx *x = priv;
	struct iommu_option opt = { .size = sizeof(opt), .option_id = IOMMU_OPTION_RLIMIT_MODE,
				    .op = IOMMU_OPTION_OP_SET, .val64 = 1 };
	struct iommu_ioas_alloc al = { .size = sizeof(al) };

	x->ifd = open("/dev/iommu", O_RDWR);
	if (x->ifd < 0)
		return -errno;
	if (x->mode == FD_MM && ioctl(x->ifd, IOMMU_OPTION, &opt))
		return -errno;
	if (ioctl(x->ifd, IOMMU_IOAS_ALLOC, &al))
		return -errno;
	x->ioas = al.out_ioas_id;
	x->dfd = iommufd_bind_cdev(x->ifd, x->cdev[0], x->ioas);
	if (x->dfd < 0)
		return x->dfd;
	if (x->ndev > 1) {
		if (ioctl(x->ifd, IOMMU_IOAS_ALLOC, &al))
			return -errno;
		x->ioas2 = al.out_ioas_id;
		if (iommufd_bind_cdev(x->ifd, x->cdev[1], x->ioas2) < 0)
			return -errno;
	}
	if (x->mode == FD_EXEMPT)
		return 0;
	return become_user(x->uid, x->limit);
}

/* An agent (ia_agent.h) of @mode: it exits with everything still mapped and attached. */
static int fd_agent_start(struct agent *a, enum fd_mode mode, uid_t uid, uint64_t limit,
			  char (*cdev)[300], int ndev)
{
	struct fd_ctx x = { .mode = mode, .uid = uid, .limit = limit, .cdev = cdev, .ndev = ndev };

	return agent_fork(a, fd_setup, fd_do, &x);
}

/* --- the tests --------------------------------------------------------------- */

static bool have_iommufd(void)
{
	return access("/dev/iommu", F_OK) == 0;
}

FIXTURE(iofd) {
	struct ia_nl nl, ev;
	char cdev[2][300];
	int ndev;
};

FIXTURE_SETUP(iofd)
{
	if (!have_iommufd())
		SKIP(return, "no /dev/iommu: this kernel has no CONFIG_IOMMUFD");
	self->ndev = edu_cdevs(self->cdev, 2);
	if (self->ndev < 2)
		SKIP(return, "fewer than two edu devices with a VFIO cdev (CONFIG_VFIO_DEVICE_CDEV)");
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, ia_nl_open(&self->ev));
	ASSERT_EQ(0, ia_events_join(&self->ev));
	ASSERT_EQ(0, ia_set_pot_thresholds(&self->nl, 800, 950, 50));
}

FIXTURE_TEARDOWN(iofd)
{
	if (self->ndev < 2)
		return;
	ia_nl_close(&self->ev);
	ia_nl_close(&self->nl);
}

/*
 * @uid's pot: its parts add up to the kernel's counter, nothing inexact.
 * @u (zeroed or a reply) is freed first, as by every helper below that
 * fills a reply: a test frees only the last one.
 */
static void get_uid(struct __test_metadata *_metadata, struct ia_nl *nl, uint32_t uid,
		    ia_uid_t *u)
{
	ia_nl_free(u);
	ASSERT_EQ(0, ia_get_uid(nl, uid, u)) TH_LOG("uid %u: %s", uid, nl->extack);
	ASSERT_TRUE(!!u->_present.unattributed_bytes);
	ASSERT_TRUE(!!u->_present.iommufd_mm_bytes);
	EXPECT_EQ(u->locked_bytes, ia_uid_consumers(u) + u->unattributed_bytes)
		TH_LOG("uid %u: locked %llu, consumers %llu, unattributed %llu", uid,
		       (unsigned long long)u->locked_bytes, (unsigned long long)ia_uid_consumers(u),
		       (unsigned long long)u->unattributed_bytes);
	EXPECT_EQ(0, u->inexact);
}

/*
 * iommu-accountctl names the consumer and the holder of a pot where
 * @pid's iommufd mappings hold @n MiB.
 */
static void check_tools(struct __test_metadata *_metadata, uint32_t uid, pid_t pid, int n)
{
	char out[8192], cmd[128], want[64];

	snprintf(cmd, sizeof(cmd), "iommu-accountctl explain uid %u", uid);
	run_output(cmd, out, sizeof(out));
	TH_LOG("%s", out);
	snprintf(want, sizeof(want), "iommufd charged %d.0 MiB", n);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "[%d]: %d.0 MiB of iommufd", pid, n);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(cmd, sizeof(cmd), "iommu-accountctl --json uids --uid %u", uid);
	run_output(cmd, out, sizeof(out));
	snprintf(want, sizeof(want), "\"iommufd\":%llu", (unsigned long long)(n * MiB));
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
}

/* The next event of @uid's pot within 5 s (others skipped): 1, or 0. */
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

/* The next failure event of @uid's pot within 5 s: 1, or 0. */
static int next_failure(struct ia_nl *s, uint32_t uid, ia_event_t *ev)
{
	while (next_pot_event(s, uid, ev) == 1)
		if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE)
			return 1;
	return 0;
}

/* The iommufd context whose owner is @pid into @q: how many there are, or -errno. */
static int ctx_of(struct ia_nl *nl, pid_t pid, ia_quota_t *q)
{
	ia_quota_t qs[4] = {};
	int n = ia_dump_quotas(nl, CTX, -1, pid, qs, 4);

	ia_nl_free(q);
	if (n == 1)
		*q = qs[0];	/* its members are @q's now */
	else
		ia_nl_free_n(qs, n);
	return n;
}

/* The next event of an iommufd context within 5 s (others skipped): 1, or 0. */
static int next_ctx_event(struct ia_nl *s, ia_event_t *ev)
{
	ia_nl_free(ev);
	while (ia_event_read(s, ev, 5000) == 1) {
		if (ev->kind == CTX)
			return 1;
		ia_nl_free(ev);
	}
	return 0;
}

/*
 * One pot, two consumers: an io_uring agent of uid 42101 registers 2 MiB,
 * an iommufd agent of the same uid (8 MiB limit each) maps 1 MiB areas
 * until the kernel refuses. The pot is then the limit to the page, split
 * exactly between the two; the refusal names iommufd, the agent and the
 * request. io_uring's next buffer is refused naming io_uring; an unmap
 * makes room for it. When the iommufd agent exits with its areas mapped
 * and its device attached, its part of the pot goes with it.
 */
TEST_F(iofd, shared_pot_refusals_name_the_consumer)
{
	const uint32_t uid = 42101;
	struct agent f = { 0 };
	ia_event_t ev = {};
	struct agent a;
	ia_uid_t u = {};
	int64_t iova[16], r = 0;
	uint64_t base, warn_at, crit_at;
	int n = 0, k;

	ASSERT_EQ(0, agent_start(&a, uid, 8 * MiB));
	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 8 * MiB, self->cdev, 1));
	get_uid(_metadata, &self->nl, uid, &u);
	base = u.locked_bytes;	/* ring memory, on kernels that charge it */
	ASSERT_EQ(0, agent_register(&a, 2 * MiB));
	for (;;) {
		r = agent_call(&f, OP_MAP, 1 * MiB, 0, 0);
		if (r < 0)
			break;
		iova[n++] = r;
		ASSERT_GT(16, n);
	}
	EXPECT_EQ(-ENOMEM, r);
	/* Refused exactly where the limit is. */
	EXPECT_EQ(8 * MiB, base + 2 * MiB + n * MiB) TH_LOG("base %llu, %d MiB mapped",
							     (unsigned long long)base, n);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + 2 * MiB + n * MiB, u.locked_bytes);
	EXPECT_EQ(n * MiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&u, BUFS));
	EXPECT_EQ(0, u.iommufd_mm_bytes);
	EXPECT_EQ(0, u.iommufd_exempt_bytes);
	EXPECT_EQ(1, u.refusals);

	/*
	 * In order: warn (the first map that took the pot to 80 % of the limit:
	 * 7 MiB where rings are not charged), crit (95 %: 8 MiB), both raised
	 * by iommufd's charges, then the refusal.
	 */
	for (k = 1; (base + 2 * MiB + k * MiB) * 1000 / (8 * MiB) < 800; k++)
		;
	warn_at = base + 2 * MiB + k * MiB;
	for (; (base + 2 * MiB + k * MiB) * 1000 / (8 * MiB) < 950; k++)
		;
	crit_at = base + 2 * MiB + k * MiB;
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD, ev.type);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_WARN, ev.level);
	EXPECT_EQ(FD, ev.consumer);
	EXPECT_EQ(warn_at, ev.locked_bytes);
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD, ev.type);
	EXPECT_EQ(IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT, ev.level);
	EXPECT_EQ(FD, ev.consumer);
	EXPECT_EQ(crit_at, ev.locked_bytes);
	ASSERT_EQ(1, next_pot_event(&self->ev, uid, &ev));
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_FAILURE, ev.type);
	EXPECT_EQ(FD, ev.consumer);
	EXPECT_EQ(ENOMEM, ev.errno_);
	EXPECT_EQ(1 * MiB, ev.size);
	EXPECT_EQ((uint32_t)f.pid, ev.owner.pid);
	EXPECT_EQ(8 * MiB, ev.memlock_limit);
	EXPECT_EQ(u.locked_bytes, ev.locked_bytes);

	check_tools(_metadata, uid, f.pid, n);

	/* The other side refused: io_uring is named. */
	EXPECT_EQ(-ENOMEM, agent_register(&a, 1 * MiB));
	ASSERT_EQ(1, next_failure(&self->ev, uid, &ev));
	EXPECT_EQ(BUFS, ev.consumer);
	EXPECT_EQ((uint32_t)a.pid, ev.owner.pid);

	/* An unmap gives its pages back; io_uring takes them. */
	ASSERT_LT(0, n);
	EXPECT_EQ((int64_t)MiB, agent_call(&f, OP_UNMAP, iova[0], 1 * MiB, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ((n - 1) * MiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(0, agent_register(&a, 1 * MiB));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(8 * MiB, u.locked_bytes);
	EXPECT_EQ(3 * MiB, IA_CONSUMER(&u, BUFS));

	/* Gone with its areas mapped and its device attached: the kernel unpins all. */
	agent_stop(&f);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 3 * MiB, u.locked_bytes);
	agent_stop(&a);
	ia_nl_free(&ev);
	ia_nl_free(&u);
}

/*
 * Areas: four of 256 KiB, one unmapped, then a range unmap over all of
 * them; a COPY into a second IOAS (with its own device) pins nothing more,
 * because the pages object is shared, and its pages stay charged until the
 * last area using them goes; a map of unmapped memory fails with EFAULT and
 * leaves nothing; destroying an IOAS with a device attached is refused and
 * changes nothing.
 */
TEST_F(iofd, unmap_copy_and_refused_maps)
{
	const uint32_t uid = 42102;
	struct agent f = { 0 };
	int64_t iova[4], dst;
	ia_uid_t u = {};
	uint64_t base;
	int i;

	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 64 * MiB, self->cdev, 2));
	get_uid(_metadata, &self->nl, uid, &u);
	base = u.locked_bytes;
	for (i = 0; i < 4; i++) {
		iova[i] = agent_call(&f, OP_MAP, 256 * KiB, 0, 0);
		ASSERT_LE(0, iova[i]);
	}
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(1 * MiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 1 * MiB, u.locked_bytes);

	EXPECT_EQ((int64_t)(256 * KiB), agent_call(&f, OP_UNMAP, iova[1], 256 * KiB, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(768 * KiB, IA_CONSUMER(&u, FD));

	/* COPY area 0 into the second IOAS: the same pages, pinned once. */
	dst = agent_call(&f, OP_COPY, iova[0], 256 * KiB, 0);
	ASSERT_LE(0, dst) TH_LOG("IOMMU_IOAS_COPY: %s", strerror((int)-dst));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(768 * KiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 768 * KiB, u.locked_bytes);

	/* Everything of the first IOAS: area 0 stays pinned through its copy. */
	EXPECT_EQ((int64_t)(768 * KiB), agent_call(&f, OP_UNMAP, 0, UINT64_MAX, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(256 * KiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 256 * KiB, u.locked_bytes);
	EXPECT_EQ((int64_t)(256 * KiB), agent_call(&f, OP_UNMAP2, dst, 256 * KiB, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);

	/* Refused maps and a refused destroy leave nothing behind. */
	EXPECT_EQ(-EFAULT, agent_call(&f, OP_BADMAP, 1 * MiB, 0, 0));
	ASSERT_LE(0, agent_call(&f, OP_MAP, 512 * KiB, 0, 0));
	EXPECT_EQ(-EBUSY, agent_call(&f, OP_DESTROY, 0, 0, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(512 * KiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 512 * KiB, u.locked_bytes);
	EXPECT_EQ(0, u.refusals);

	/* Detached, the area stays mapped but nothing pins it; then the IOAS goes with it. */
	EXPECT_EQ(0, agent_call(&f, OP_DETACH, 0, 0, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);
	EXPECT_EQ(0, agent_call(&f, OP_DESTROY, 0, 0, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);
	agent_stop(&f);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);
	ia_nl_free(&u);
}

/*
 * Eight threads of one agent map and unmap 64 KiB areas 100 times each, then
 * each leaves one: the pot, the breakdown and the IOAS are exactly the
 * eight left.
 */
TEST_F(iofd, concurrent_threads_exact)
{
	const uint32_t uid = 42103;
	struct agent f = { 0 };
	ia_quota_t q = {};
	ia_uid_t u = {};
	uint64_t base;

	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 64 * MiB, self->cdev, 1));
	get_uid(_metadata, &self->nl, uid, &u);
	base = u.locked_bytes;
	EXPECT_EQ(0, agent_call(&f, OP_THREADS, 8, 100, 64 * KiB));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(8 * 64 * KiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 8 * 64 * KiB, u.locked_bytes);
	EXPECT_EQ(0, u.refusals);
	/* The IOAS: the eight areas left, as mapped and as pinned. */
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	ASSERT_EQ(1, q.n_ioas);
	EXPECT_EQ(8, q.ioas[0].areas);
	EXPECT_EQ(8 * 64 * KiB, q.ioas[0].bytes);
	EXPECT_EQ(8 * 64 * KiB, q.ioas[0].pinned);
	agent_stop(&f);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);
	ia_nl_free(&q);
	ia_nl_free(&u);
}

/* The IOMMU group of the device behind VFIO cdev @cdev, or -1. */
static int cdev_group(const char *cdev)
{
	char path[512], link[512];
	const char *name = strrchr(cdev, '/') + 1;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/vfio-dev/%s/device/iommu_group", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	return atoi(strrchr(link, '/') + 1);
}

/*
 * A device open through its VFIO cdev and bound to an agent's iommufd
 * context: its group is listed as held through iommufd by the agent (as it
 * was when it bound the device: root; reset_test binds as uid 1000), and
 * the kernel agrees that it is held (opening /dev/vfio/GROUP: EBUSY, even
 * for root). When the agent is gone, the group is free again on both sides.
 */
TEST_F(iofd, bound_device_group_held_through_iommufd)
{
	const uint32_t uid = 42106;
	struct agent f = { 0 };
	char cmd[128], out[4096], want[96], path[64];
	int grp, fd;

	grp = cdev_group(self->cdev[0]);
	ASSERT_LE(0, grp);
	snprintf(path, sizeof(path), "/dev/vfio/%d", grp);
	snprintf(cmd, sizeof(cmd), "iommu-accountctl --json groups --id %d", grp);
	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 64 * MiB, self->cdev, 1));
	run_output(cmd, out, sizeof(out));
	EXPECT_NE(NULL, strstr(out, "\"backend\":\"iommufd\"")) TH_LOG("%s", out);
	/* The agent bound it as root, before it became uid 42106: the owner then. */
	snprintf(want, sizeof(want), "\"pid\":%d,\"uid\":0", f.pid);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	fd = open(path, O_RDWR);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
	agent_stop(&f);
	run_output(cmd, out, sizeof(out));
	EXPECT_NE(NULL, strstr(out, "\"backend\":\"none\"")) TH_LOG("%s", out);
	fd = open(path, O_RDWR);
	EXPECT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Mapped before the module loads: the 1 MiB pinned then is unattributed
 * (the module never saw its object made), a map after the reload is
 * iommufd's, and unmapping the old one drains unattributed without
 * touching iommufd's part or flagging anything inexact.
 */
TEST_F(iofd, mapped_before_load_unattributed)
{
	const uint32_t uid = 42105;
	struct agent f = { 0 };
	int64_t old, young;
	ia_uid_t u = {};
	uint64_t base;

	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 64 * MiB, self->cdev, 1));
	get_uid(_metadata, &self->nl, uid, &u);
	base = u.locked_bytes;
	old = agent_call(&f, OP_MAP, 1 * MiB, 0, 0);
	ASSERT_LE(0, old);
	ia_nl_close(&self->ev);
	ia_nl_close(&self->nl);
	ASSERT_EQ(0, system("modprobe -r iommu_account && modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	ASSERT_EQ(0, ia_nl_open(&self->ev));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base + 1 * MiB, u.locked_bytes);
	EXPECT_EQ(base + 1 * MiB, u.unattributed_bytes);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	young = agent_call(&f, OP_MAP, 2 * MiB, 0, 0);
	ASSERT_LE(0, young);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base + 3 * MiB, u.locked_bytes);
	EXPECT_EQ((int64_t)MiB, agent_call(&f, OP_UNMAP, old, 1 * MiB, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(base, u.unattributed_bytes);
	EXPECT_EQ(2 * MiB, IA_CONSUMER(&u, FD));
	agent_stop(&f);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(base, u.locked_bytes);
	ia_nl_free(&u);
}

/*
 * Per-process mode (IOMMU_OPTION_RLIMIT_MODE 1): the pins go to the agent's
 * mm->locked_vm (VmLck), the pot is untouched, and the module shows them
 * as iommufd-mm-bytes. The kernel refuses at the process's own limit
 * (2 MiB: the third 1 MiB map), which is no refusal of the pot but one of
 * the context: its object says mm mode, 2 MiB of a 2 MiB limit and one
 * refusal, and its failure event gives the agent's VmLck and limit.
 */
TEST_F(iofd, rlimit_mode_charges_the_process)
{
	const uint32_t uid = 42104, ctxk = IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX;
	struct agent f = { 0 };
	ia_status_t st0 = {}, st = {};
	ia_event_t ev = {};
	ia_quota_t q = {};
	ia_uid_t u = {};
	int64_t lck0, ids;

	ASSERT_EQ(0, ia_get_status(&self->nl, &st0));
	ASSERT_EQ(0, fd_agent_start(&f, FD_MM, uid, 2 * MiB, self->cdev, 1));
	ids = agent_call(&f, OP_IDS, 0, 0, 0);
	ASSERT_LT(0, ids);
	lck0 = vm_locked_bytes_of(f.pid);
	ASSERT_LE(0, lck0);
	EXPECT_LE(0, agent_call(&f, OP_MAP, 1 * MiB, 0, 0));
	EXPECT_LE(0, agent_call(&f, OP_MAP, 1 * MiB, 0, 0));
	EXPECT_EQ(-ENOMEM, agent_call(&f, OP_MAP, 1 * MiB, 0, 0));
	EXPECT_EQ(lck0 + 2 * (int64_t)MiB, vm_locked_bytes_of(f.pid));
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, u.locked_bytes);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	EXPECT_EQ(2 * MiB, u.iommufd_mm_bytes);
	EXPECT_EQ(0, u.refusals);

	/* The context: mm mode, its 2 MiB, the process's limit, the refusal. */
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_TRUE(!!q._present.iommufd_mode);
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_MM, q.iommufd_mode);
	EXPECT_EQ(2 * MiB, q.used);
	EXPECT_TRUE(!!q._present.limit);
	EXPECT_EQ(2 * MiB, q.limit);
	EXPECT_EQ(2, q.mappings);
	EXPECT_EQ(1, q.devices);
	EXPECT_EQ(1, q.refusals);
	/* The kind's count took it; the pot's (this mode does not charge it) did not. */
	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	EXPECT_TRUE(ia_nl_kind_refusals(&st, ctxk) >= 0);
	EXPECT_EQ(ia_nl_kind_refusals(&st0, ctxk) + 1, ia_nl_kind_refusals(&st, ctxk));
	EXPECT_EQ(ia_nl_kind_refusals(&st0, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT),
		  ia_nl_kind_refusals(&st, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT));
	EXPECT_TRUE(!!q._present.last_failure);
	EXPECT_EQ(ENOMEM, q.last_failure.errno_);
	EXPECT_EQ((uint32_t)ids, q.last_failure.ioas);
	EXPECT_EQ(uid, q.uid);

	/* Its failure event names the context, the IOAS, the process's counter and limit. */
	ASSERT_EQ(1, next_ctx_event(&self->ev, &ev)) TH_LOG("no iommufd-ctx event");
	EXPECT_EQ(IOMMU_ACCOUNT_EVENT_TYPE_FAILURE, ev.type);
	EXPECT_EQ(ENOMEM, ev.errno_);
	EXPECT_EQ(1, ev.count);
	EXPECT_TRUE(!!ev._present.quota);
	EXPECT_EQ(q.id, ev.quota.id);
	EXPECT_EQ((uint32_t)f.pid, ev.owner.pid);
	EXPECT_EQ(2 * MiB, ev.memlock_limit);
	EXPECT_EQ((uint64_t)lck0 + 2 * MiB, ev.locked_bytes);
	EXPECT_LT(0, ev.size);
	EXPECT_GE(1 * MiB, ev.size);
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_MM, ev.quota.iommufd_mode);
	EXPECT_EQ((uint32_t)ids, ev.ioas);
	/* The context it carries holds that refusal as its last (the spec's quota-info lists it). */
	EXPECT_TRUE(!!ev.quota._present.last_failure);
	EXPECT_EQ(ENOMEM, ev.quota.last_failure.errno_);
	EXPECT_EQ(ev.size, ev.quota.last_failure.size);
	EXPECT_EQ((uint32_t)ids, ev.quota.last_failure.ioas);
	agent_stop(&f);
	get_uid(_metadata, &self->nl, uid, &u);
	EXPECT_EQ(0, u.iommufd_mm_bytes);
	ia_nl_free(&st0);
	ia_nl_free(&st);
	ia_nl_free(&ev);
	ia_nl_free(&q);
	ia_nl_free(&u);
}

/*
 * CAP_IPC_LOCK: an agent that stays root maps 3 MiB; root's pot does not
 * move, and the module shows the pins as iommufd-exempt-bytes, and its
 * context in mode none.
 */
TEST_F(iofd, cap_ipc_lock_not_charged)
{
	struct agent f = { 0 };
	ia_quota_t q = {};
	ia_uid_t u = {};
	uint64_t base, exempt0;

	get_uid(_metadata, &self->nl, 0, &u);
	base = u.locked_bytes;
	exempt0 = u.iommufd_exempt_bytes;
	ASSERT_EQ(0, fd_agent_start(&f, FD_EXEMPT, 0, 0, self->cdev, 1));
	EXPECT_LE(0, agent_call(&f, OP_MAP, 2 * MiB, 0, 0));
	EXPECT_LE(0, agent_call(&f, OP_MAP, 1 * MiB, 0, 0));
	get_uid(_metadata, &self->nl, 0, &u);
	EXPECT_EQ(base, u.locked_bytes);
	EXPECT_EQ(exempt0 + 3 * MiB, u.iommufd_exempt_bytes);
	EXPECT_EQ(0, IA_CONSUMER(&u, FD));
	/* The context: pinned 3 MiB, charged nowhere, no limit. */
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_NONE, q.iommufd_mode);
	EXPECT_EQ(3 * MiB, q.used);
	EXPECT_FALSE(!!q._present.limit);
	EXPECT_EQ(2, q.mappings);
	agent_stop(&f);
	get_uid(_metadata, &self->nl, 0, &u);
	EXPECT_EQ(exempt0, u.iommufd_exempt_bytes);
	EXPECT_EQ(base, u.locked_bytes);
	ia_nl_free(&q);
	ia_nl_free(&u);
}

/*
 * The context as a quota object (kind iommufd-ctx), against the pot and
 * the sizes mapped: an agent of uid 42106 (8 MiB limit) opens /dev/iommu as
 * root, binds two devices (one per IOAS), then maps as its uid. Listed at
 * once with its two devices and mode unknown; after 1 + 2 MiB its used is
 * the pot's iommufd part, two mappings, mode user, owned by the uid that
 * mapped; a COPY shares pages (nothing more); a map the pot refuses is the
 * context's refusal; an unmap takes its mapping off; and the context
 * leaves the listing with the agent. iommu-accountctl shows the same.
 */
TEST_F(iofd, context_listing_matches_the_pot)
{
	const uint32_t uid = 42106;
	struct agent f = { 0 };
	char out[8192], cmd[160];
	int64_t a, b, dst;
	ia_quota_t q = {};
	ia_uid_t u = {};
	pid_t pid;

	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 8 * MiB, self->cdev, 2));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(0, q.used);
	EXPECT_EQ(0, q.mappings);
	EXPECT_EQ(2, q.devices);
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_UNKNOWN, q.iommufd_mode);
	EXPECT_EQ(0, q.uid);		/* opened as root */
	EXPECT_EQ((uint32_t)f.pid, q.owner.pid);
	EXPECT_EQ(0, q.flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT);

	a = agent_call(&f, OP_MAP, 1 * MiB, 0, 0);
	b = agent_call(&f, OP_MAP, 2 * MiB, 0, 0);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	get_uid(_metadata, &self->nl, uid, &u);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(3 * MiB, q.used);
	EXPECT_EQ(IA_CONSUMER(&u, FD), q.used);
	EXPECT_EQ(2, q.mappings);
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_USER, q.iommufd_mode);
	EXPECT_EQ(uid, q.uid);
	EXPECT_FALSE(!!q._present.limit);
	EXPECT_EQ(0, q.refusals);

	dst = agent_call(&f, OP_COPY, a, 1 * MiB, 0);
	ASSERT_LE(0, dst) TH_LOG("IOMMU_IOAS_COPY: %s", strerror((int)-dst));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(3 * MiB, q.used);
	EXPECT_EQ(2, q.mappings);

	/* 3 of 8 MiB charged: 6 MiB more is refused at the pot. */
	EXPECT_EQ(-ENOMEM, agent_call(&f, OP_MAP, 6 * MiB, 0, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(u.refusals, q.refusals);
	EXPECT_EQ(1, q.refusals);
	EXPECT_TRUE(!!q._present.last_failure);
	EXPECT_EQ(ENOMEM, q.last_failure.errno_);
	EXPECT_EQ(3 * MiB, q.used);
	EXPECT_EQ(2, q.mappings);

	snprintf(cmd, sizeof(cmd), "iommu-accountctl --json quotas --kind iommufd-ctx --pid %d",
		 f.pid);
	run_output(cmd, out, sizeof(out));
	EXPECT_NE(NULL, strstr(out, "\"iommufd_mode\":\"user\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"mappings\":2")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"devices\":2")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "\"used\":%llu", 3 * MiB);
	EXPECT_NE(NULL, strstr(out, cmd)) TH_LOG("%s", out);

	EXPECT_EQ((int64_t)(2 * MiB), agent_call(&f, OP_UNMAP, b, 2 * MiB, 0));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(1 * MiB, q.used);
	EXPECT_EQ(1, q.mappings);
	pid = f.pid;
	agent_stop(&f);
	EXPECT_EQ(0, ctx_of(&self->nl, pid, &q));
	EXPECT_EQ(0, ia_dump_quotas(&self->nl, CTX, uid, -1, &q, 1));
	ia_nl_free(&q);
	ia_nl_free(&u);
}

/* @q's IOAS @id (its index), or -1. */
static int ioas_at(const ia_quota_t *q, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < q->n_ioas && i < 8; i++)
		if (q->ioas[i]._present.id && q->ioas[i].id == id)
			return (int)i;
	return -1;
}

#define EXPECT_IOAS(q, id, areas_, bytes_, pinned_)					\
	do {										\
		int i_ = ioas_at(&(q), (id));						\
											\
		ASSERT_LE(0, i_) TH_LOG("IOAS %u not listed", (id));			\
		EXPECT_EQ((areas_), (q).ioas[i_].areas) TH_LOG("IOAS %u areas", (id));	\
		EXPECT_EQ((bytes_), (q).ioas[i_].bytes) TH_LOG("IOAS %u bytes", (id));	\
		EXPECT_EQ((pinned_), (q).ioas[i_].pinned) TH_LOG("IOAS %u pinned", (id));\
	} while (0)

/*
 * Per IOAS, against what the kernel answered: an agent of uid 42108 (64 MiB)
 * with two IOAS, a device attached to each. Maps of 1 and 2 MiB into the
 * first: 2 areas, 3 MiB mapped and pinned (= the context's used, = the
 * pot's iommufd part). A COPY of the 1 MiB into the second and a map of
 * 512 KiB there: the second has 2 areas, 1.5 MiB mapped and pinned (the
 * copied object counts in both), the context 3.5 MiB. Unmapping all of the
 * first (the kernel says 3 MiB): it has nothing, the second keeps its 1.5
 * MiB pinned (the copy holds the shared object), the context 1.5 MiB. A
 * map of unmapped memory (EFAULT) and one the pot refuses (ENOMEM) leave
 * no area. Detached, the first maps 1 MiB that nothing pins; destroyed
 * with it mapped, it leaves the listing. ctl's JSON says the same; the
 * context goes with the agent.
 */
TEST_F(iofd, ioas_figures_follow_map_copy_unmap_destroy)
{
	const uint32_t uid = 42108;
	struct agent f = { 0 };
	char out[8192], want[200], cmd[160];
	int64_t ids, a, b, dst;
	uint32_t id1, id2;
	ia_event_t ev = {};
	ia_quota_t q = {};
	ia_uid_t u = {};
	pid_t pid;

	ASSERT_EQ(0, fd_agent_start(&f, FD_USER, uid, 64 * MiB, self->cdev, 2));
	ids = agent_call(&f, OP_IDS, 0, 0, 0);
	ASSERT_LT(0, ids);
	id1 = (uint32_t)ids;
	id2 = (uint32_t)(ids >> 32);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_EQ(0, q.n_ioas);		/* nothing mapped into either yet */

	a = agent_call(&f, OP_MAP, 1 * MiB, 0, 0);
	b = agent_call(&f, OP_MAP, 2 * MiB, 0, 0);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	get_uid(_metadata, &self->nl, uid, &u);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	ASSERT_EQ(1, q.n_ioas);
	EXPECT_IOAS(q, id1, 2, 3 * MiB, 3 * MiB);
	EXPECT_EQ(3 * MiB, q.used);
	EXPECT_EQ(IA_CONSUMER(&u, FD), q.used);

	dst = agent_call(&f, OP_COPY, a, 1 * MiB, 0);
	ASSERT_LE(0, dst) TH_LOG("IOMMU_IOAS_COPY: %s", strerror((int)-dst));
	ASSERT_LE(0, agent_call(&f, OP_MAP2, 512 * KiB, 0, 0));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	ASSERT_EQ(2, q.n_ioas);
	EXPECT_LT(q.ioas[0].id, q.ioas[1].id);		/* sorted by id */
	EXPECT_IOAS(q, id1, 2, 3 * MiB, 3 * MiB);
	EXPECT_IOAS(q, id2, 2, 1536 * KiB, 1536 * KiB);
	EXPECT_EQ(3584 * KiB, q.used);

	EXPECT_EQ((int64_t)(3 * MiB), agent_call(&f, OP_UNMAP, 0, UINT64_MAX, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_IOAS(q, id1, 0, 0, 0);
	EXPECT_IOAS(q, id2, 2, 1536 * KiB, 1536 * KiB);
	EXPECT_EQ(1536 * KiB, q.used);
	EXPECT_EQ(IA_CONSUMER(&u, FD), q.used);

	/*
	 * Refused maps: the pin fails (EFAULT), the pot refuses (ENOMEM); the
	 * refusal names the IOAS, in the context and in the pot's event.
	 */
	EXPECT_EQ(-EFAULT, agent_call(&f, OP_BADMAP, 1 * MiB, 0, 0));
	EXPECT_EQ(-ENOMEM, agent_call(&f, OP_MAP, 64 * MiB, 0, 0));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_IOAS(q, id1, 0, 0, 0);
	EXPECT_IOAS(q, id2, 2, 1536 * KiB, 1536 * KiB);
	EXPECT_EQ(1, q.refusals);
	EXPECT_EQ(id1, q.last_failure.ioas);
	ASSERT_EQ(1, next_failure(&self->ev, uid, &ev)) TH_LOG("no failure event of the pot");
	EXPECT_EQ(FD, ev.consumer);
	EXPECT_EQ(id1, ev.ioas);

	/* No device: mapped, not pinned; destroyed with it still mapped. */
	EXPECT_EQ(0, agent_call(&f, OP_DETACH, 0, 0, 0));
	ASSERT_LE(0, agent_call(&f, OP_MAP, 1 * MiB, 0, 0));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_IOAS(q, id1, 1, 1 * MiB, 0);
	EXPECT_EQ(1536 * KiB, q.used);
	EXPECT_EQ(0, agent_call(&f, OP_DESTROY, 0, 0, 0));
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	ASSERT_EQ(1, q.n_ioas);
	EXPECT_EQ(-1, ioas_at(&q, id1));
	EXPECT_IOAS(q, id2, 2, 1536 * KiB, 1536 * KiB);

	snprintf(cmd, sizeof(cmd), "iommu-accountctl --json quotas --kind iommufd-ctx --pid %d",
		 f.pid);
	run_output(cmd, out, sizeof(out));
	snprintf(want, sizeof(want), "\"ioas\":[{\"id\":%u,\"areas\":2,\"bytes\":%llu,"
		 "\"pinned\":%llu}]", id2, 1536 * KiB, 1536 * KiB);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s\nwanted %s", out, want);
	snprintf(cmd, sizeof(cmd), "iommu-accountctl explain iommufd-ctx %u", q.id);
	run_output(cmd, out, sizeof(out));
	snprintf(want, sizeof(want), "IOAS %u: 2 areas, 1.5 MiB mapped, 1.5 MiB pinned", id2);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s\nwanted %s", out, want);
	snprintf(cmd, sizeof(cmd), "iommu-accountctl quotas --kind iommufd-ctx --pid %d", f.pid);
	run_output(cmd, out, sizeof(out));
	snprintf(want, sizeof(want), "ioas %u ", id2);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s\nwanted %s", out, want);
	EXPECT_NE(NULL, strstr(out, "2 areas, 1.5 MiB pinned")) TH_LOG("%s", out);

	EXPECT_EQ((int64_t)(1 * MiB), agent_call(&f, OP_UNMAP2, dst, 1 * MiB, 0));
	get_uid(_metadata, &self->nl, uid, &u);
	ASSERT_EQ(1, ctx_of(&self->nl, f.pid, &q));
	EXPECT_IOAS(q, id2, 1, 512 * KiB, 512 * KiB);
	EXPECT_EQ(512 * KiB, q.used);
	EXPECT_EQ(IA_CONSUMER(&u, FD), q.used);
	pid = f.pid;
	agent_stop(&f);
	EXPECT_EQ(0, ctx_of(&self->nl, pid, &q));
	ia_nl_free(&ev);
	ia_nl_free(&q);
	ia_nl_free(&u);
}

IA_HARNESS_MAIN
