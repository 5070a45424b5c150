// SPDX-License-Identifier: GPL-2.0
/*
 * iommufd's compat container: a kernel built with CONFIG_VFIO_CONTAINER
 * unset and CONFIG_IOMMUFD_VFIO_CONTAINER set has no vfio_iommu_type1;
 * /dev/vfio/vfio is served by iommufd, and a VFIO application (QEMU,
 * DPDK) runs unchanged on it. Checked against the kernel's own answers:
 *   - the container is iommufd's: VFIO_IOMMU_GET_INFO's DMA_AVAIL is
 *     U32_MAX (iommufd has no entry limit; type1 says dma_entry_limit
 *     minus its mappings), and no type1 container exists;
 *   - the module lists it as an iommufd context marked VFIO_COMPAT, in
 *     per-process mode (iommufd opens the compat container so): its pins
 *     are in VmLck of the mapping process (mm->locked_vm), not in the
 *     uid's pot; MAP_DMA's ENOMEM past RLIMIT_MEMLOCK is its refusal;
 *   - the module states that the kernel has no type1 container, and
 *     iommu-accountctl containers shows the compat container with no
 *     entry limit.
 * The mapper is an agent process: it sets up as root (container, group,
 * VFIO_SET_IOMMU, the device's fd), then becomes a uid of its own with an RLIMIT_MEMLOCK
 * and no capabilities, and obeys commands.
 *
 * Needs such a kernel (scripts/check's compat boot: 6.12-compat-debug,
 * scripts/vm/build-compat-kernel); the harness says so in IA_KCONFIG.
 * Elsewhere it skips, naming why.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_agent.h"
#include "ia_vfio.h"

#define MiB (1024ULL * 1024)
#define CTX IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX
#define UID_A 42201

enum { OP_MAP = 1, OP_UNMAP, OP_AVAIL };

/* An agent (ia_agent.h): what it is, then what it holds. */
struct compat_agent {
	int group;
	uid_t uid;
	uint64_t limit;
	struct vfio_ctr c;
};

/*
 * As root: the container on @group and its device's fd, as QEMU opens it
 * (iommufd attaches the device to the compat IOAS then: until a device is
 * attached, iommufd pins nothing); then uid @uid, RLIMIT_MEMLOCK @limit.
 */
static int64_t agent_setup(void *priv)
{
	struct compat_agent *x = priv;
	struct vfio_ctr *c = &x->c;
	int ret = vfio_ctr_open_buf(c, x->group, 4 * MiB);
	char path[96], bdf[256] = "";
	struct dirent *de;
	DIR *d;

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%d/devices", x->group);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(bdf, sizeof(bdf), "%s", de->d_name);
			break;
		}
	closedir(d);
	if (!bdf[0] || ioctl(c->group, VFIO_GROUP_GET_DEVICE_FD, bdf) < 0)
		return bdf[0] ? -errno : -ENODEV;
	return become_user(x->uid, x->limit);
}

/* Command @m->a (iova), @m->b (size). */
static int64_t agent_do(void *priv, const struct agent_cmd *m)
{
	struct vfio_ctr *c = &((struct compat_agent *)priv)->c;
	uint32_t avail = 0;
	int ret;

	switch (m->op) {
	case OP_MAP:
		return vfio_map_raw(c, m->a, m->b, (uintptr_t)c->buf + m->a,
				    VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
	case OP_UNMAP:
		return vfio_unmap(c, m->a, m->b);
	case OP_AVAIL:
		ret = vfio_dma_avail(c, &avail);
		return ret ? ret : (int64_t)avail;
	}
	return -EINVAL;
}

/* It exits with everything still mapped: the kernel tears it down. */
static int agent_start(struct agent *a, int group, uid_t uid, uint64_t limit)
{
	struct compat_agent x = { .group = group, .uid = uid, .limit = limit };

	return agent_fork(a, agent_setup, agent_do, &x);
}

/* WANT ("NAME=VALUE") is in the kernel's configuration as the harness read it. */
static bool kconfig_is(const char *want)
{
	const char *k = getenv("IA_KCONFIG");
	char buf[1024], pat[96];

	if (!k)
		return false;
	snprintf(buf, sizeof(buf), " %s ", k);
	snprintf(pat, sizeof(pat), " %s ", want);
	return strstr(buf, pat) != NULL;
}

FIXTURE(compat) {
	struct ia_nl nl;
	int group;
};

FIXTURE_SETUP(compat)
{
	int groups[8];

	self->group = -1;
	if (!kconfig_is("VFIO_CONTAINER=") || !kconfig_is("IOMMUFD_VFIO_CONTAINER=y"))
		SKIP(return, "not a kernel whose /dev/vfio/vfio is iommufd's (IA_KCONFIG: %s)",
		     getenv("IA_KCONFIG") ?: "unset");
	ASSERT_LT(0, vfio_edu_groups(groups, 8)) TH_LOG("no edu device bound to vfio-pci");
	self->group = groups[0];
	ASSERT_EQ(0, ia_nl_open(&self->nl));
}

FIXTURE_TEARDOWN(compat)
{
	if (self->group >= 0)
		ia_nl_close(&self->nl);
}

/* The module says why type1 is not followed, and that iommufd is. */
TEST_F(compat, status_says_the_kernel_has_no_type1)
{
	const struct iommu_account_feature *type1, *iofd;
	ia_status_t st = {};

	ASSERT_NE(0, access("/sys/module/vfio_iommu_type1", F_OK))
		TH_LOG("vfio_iommu_type1 is loaded on a compat-container kernel");
	ASSERT_EQ(0, ia_get_status(&self->nl, &st));
	type1 = ia_nl_feature(&st, "vfio-type1");
	iofd = ia_nl_feature(&st, "iommufd");
	ASSERT_NE(NULL, type1);
	ASSERT_NE(NULL, iofd);
	EXPECT_NE(IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE, type1->state);
	EXPECT_NE(NULL, strstr(type1->detail, "iommufd's compat container"))
		TH_LOG("vfio-type1: %s", type1->detail);
	EXPECT_EQ(IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE, iofd->state)
		TH_LOG("iommufd: %s", iofd->detail);
	ia_nl_free(&st);
}

/*
 * uid 42201 with RLIMIT_MEMLOCK 2 MiB maps 1 MiB twice through
 * /dev/vfio/vfio; the third map is refused by the kernel (ENOMEM). The
 * module's context: VFIO_COMPAT, mode mm, 2 MiB used of a 2 MiB limit,
 * two mappings, one refusal with the kernel's errno; VmLck of the agent
 * grew by exactly 2 MiB; the uid's pot holds none of it. No entry limit:
 * DMA_AVAIL is U32_MAX before and after, and no type1 container exists.
 * When the agent exits with its maps, the context and its pins go.
 */
TEST_F(compat, container_charged_per_process_without_entry_limit)
{
	ia_container_t ctrs[4] = {};
	struct agent a = { 0 };
	ia_quota_t q[4] = {};
	ia_uid_t u = {};
	char out[8192], want[96];
	long long lck0;
	int n;

	ASSERT_EQ(0, agent_start(&a, self->group, UID_A, 2 * MiB))
		TH_LOG("the compat container could not be set up on group %d", self->group);
	EXPECT_EQ((long long)UINT32_MAX, agent_call(&a, OP_AVAIL, 0, 0, 0))
		TH_LOG("DMA_AVAIL of iommufd's compat container");
	lck0 = vm_locked_bytes_of(a.pid);
	ASSERT_LE(0, lck0);
	EXPECT_EQ(0, agent_call(&a, OP_MAP, 0, 1 * MiB, 0));
	EXPECT_EQ(0, agent_call(&a, OP_MAP, 1 * MiB, 1 * MiB, 0));
	EXPECT_EQ(-ENOMEM, agent_call(&a, OP_MAP, 2 * MiB, 1 * MiB, 0));
	EXPECT_EQ(lck0 + (long long)(2 * MiB), vm_locked_bytes_of(a.pid));
	EXPECT_EQ((long long)UINT32_MAX, agent_call(&a, OP_AVAIL, 0, 0, 0));

	n = ia_dump_quotas(&self->nl, CTX, -1, a.pid, q, 4);
	ASSERT_EQ(1, n) TH_LOG("iommufd contexts of the agent: %d", n);
	EXPECT_EQ(IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT,
		  q[0].flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT);
	EXPECT_TRUE(!!q[0]._present.iommufd_mode);
	EXPECT_EQ(IOMMU_ACCOUNT_IOMMUFD_MODE_MM, q[0].iommufd_mode);
	EXPECT_EQ(2 * MiB, q[0].used);
	EXPECT_TRUE(!!q[0]._present.limit);
	EXPECT_EQ(2 * MiB, q[0].limit);
	EXPECT_EQ(2, q[0].mappings);
	EXPECT_EQ(1, q[0].devices);
	EXPECT_EQ(1, q[0].refusals);
	EXPECT_TRUE(!!q[0]._present.last_failure);
	EXPECT_EQ(ENOMEM, q[0].last_failure.errno_);
	EXPECT_EQ(UID_A, q[0].uid);
	ASSERT_EQ(1, q[0].n_ioas);
	/* The compat container's IOAS: made by VFIO_SET_IOMMU, its id never seen. */
	EXPECT_EQ(2 * MiB, q[0].ioas[0].bytes);
	EXPECT_EQ(2 * MiB, q[0].ioas[0].pinned);

	ASSERT_EQ(0, ia_get_uid(&self->nl, UID_A, &u));
	EXPECT_EQ(0, u.locked_bytes);
	EXPECT_TRUE(!!u._present.iommufd_mm_bytes);
	EXPECT_EQ(2 * MiB, u.iommufd_mm_bytes);
	ia_nl_free(&u);
	n = ia_dump_containers(&self->nl, ctrs, 4);
	EXPECT_EQ(0, n) TH_LOG("a type1 container listed");
	ia_nl_free_n(ctrs, n);

	/* The containers view: the compat container, no entry limit. */
	run_output("iommu-accountctl --json containers", out, sizeof(out));
	TH_LOG("containers: %s", out);
	snprintf(want, sizeof(want), "\"id\":%u,\"backend\":\"iommufd-compat\",\"entries\":2,"
		 "\"limit\":null", q[0].id);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "\"pid\":%d", a.pid);
	EXPECT_NE(NULL, strstr(out, want));
	run_output("iommu-accountctl containers", out, sizeof(out));
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "iommufd compat containers"));
	EXPECT_NE(NULL, strstr(out, "2.0 MiB/2.0 MiB"));
	ia_nl_free(&q[0]);

	/* An unmap gives back its pins; the agent's exit the rest. */
	EXPECT_EQ(0, agent_call(&a, OP_UNMAP, 0, 1 * MiB, 0));
	EXPECT_EQ(lck0 + (long long)MiB, vm_locked_bytes_of(a.pid));
	ASSERT_EQ(1, ia_dump_quotas(&self->nl, CTX, -1, a.pid, q, 4));
	EXPECT_EQ(1 * MiB, q[0].used);
	EXPECT_EQ(1, q[0].mappings);
	ia_nl_free(&q[0]);
	agent_stop(&a);
	EXPECT_EQ(0, ia_dump_quotas(&self->nl, CTX, UID_A, -1, q, 4));
	/* The uid may be gone with its last task (ENOENT): nothing held either way. */
	n = ia_get_uid(&self->nl, UID_A, &u);
	EXPECT_TRUE(n == -ENOENT || (n == 0 && u.iommufd_mm_bytes == 0))
		TH_LOG("uid %u after the exit: %d, iommufd_mm %llu", UID_A, n,
		       n ? 0ULL : (unsigned long long)u.iommufd_mm_bytes);
	ia_nl_free(&u);
}

IA_HARNESS_MAIN
