// SPDX-License-Identifier: GPL-2.0
/*
 * iommufd_tool: iommufd from the outside, for scripts/bench and the system
 * lane (a kernel with CONFIG_IOMMUFD).
 *
 *   iommufd_tool bench N UID   as root, open /dev/iommu, bind the first edu's
 *                              VFIO cdev and attach it to a new IOAS; then as
 *                              UID (RLIMIT_MEMLOCK 64 MiB, no capabilities:
 *                              its pins are charged to UID's pot, as a VMM's
 *                              are) N x (IOMMU_IOAS_MAP of 4 KiB +
 *                              IOMMU_IOAS_UNMAP), at most 5 s; print
 *                              "iommufd ns_per_op X" (a benchmark)
 *   iommufd_tool unmap-all PID IOAS  the kernel's own answer about another
 *                              process's IOAS (QEMU's): its /dev/iommu fd
 *                              taken with pidfd_getfd(), IOMMU_IOAS_UNMAP of
 *                              IOAS over the whole IOVA space; print
 *                              "unmapped BYTES" (the kernel's count of what
 *                              was mapped; stop the owner first)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ia_agent.h"
#include "ia_iommufd.h"
#include "ia_vfio.h"

#define BUDGET_NS 5e9

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The first device bound to vfio-pci that has a VFIO cdev, into @bdf. */
static int first_cdev_bdf(char *bdf, size_t len)
{
	const char *base = "/sys/bus/pci/drivers/vfio-pci";
	struct dirent *de;
	char path[600];
	DIR *d = opendir(base);

	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s/vfio-dev", base, de->d_name);
		if (!access(path, F_OK)) {
			snprintf(bdf, len, "%s", de->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -ENOENT;
}

/* IOMMU_IOAS_UNMAP of all of @ioas through @pid's /dev/iommu. */
static int unmap_all(int pid, __u32 ioas)
{
	struct iommu_ioas_unmap u = { .size = sizeof(u), .ioas_id = ioas, .length = UINT64_MAX };
	char path[320], target[64];
	struct dirent *de;
	int pidfd, fd = -1;
	ssize_t len;
	DIR *d;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (pidfd < 0 || !d) {
		fprintf(stderr, "iommufd_tool: process %d: %s\n", pid, strerror(errno));
		return 1;
	}
	while (fd < 0 && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strcmp(target, "/dev/iommu"))
			fd = syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
	}
	closedir(d);
	close(pidfd);
	if (fd < 0) {
		fprintf(stderr, "iommufd_tool: process %d holds no /dev/iommu\n", pid);
		return 1;
	}
	if (ioctl(fd, IOMMU_IOAS_UNMAP, &u)) {
		fprintf(stderr, "iommufd_tool: IOMMU_IOAS_UNMAP of IOAS %u: %s\n", ioas,
			strerror(errno));
		return 1;
	}
	printf("unmapped %llu\n", (unsigned long long)u.length);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int groups[64], ifd, dfd, err;
	double t0, t1;
	char bdf[256];
	void *buf;
	uid_t uid;
	__u32 ioas;
	long n, i;

	if (argc == 4 && !strcmp(argv[1], "unmap-all"))
		return unmap_all(atoi(argv[2]), (__u32)atol(argv[3]));
	if (argc != 4 || strcmp(argv[1], "bench")) {
		fprintf(stderr, "usage: iommufd_tool bench N UID | unmap-all PID IOAS\n");
		return 2;
	}
	n = atol(argv[2]);
	uid = (uid_t)atol(argv[3]);
	if (vfio_edu_groups(groups, 64) <= 0 || first_cdev_bdf(bdf, sizeof(bdf))) {
		fprintf(stderr, "iommufd_tool: no edu device with a VFIO cdev\n");
		return 1;
	}
	dfd = iommufd_bind_bdf(bdf, &ifd, &ioas);
	if (dfd < 0) {
		fprintf(stderr, "iommufd_tool: %s: %s\n", bdf, strerror(-dfd));
		return 1;
	}
	err = become_user(uid, 64 << 20);
	if (err) {
		fprintf(stderr, "iommufd_tool: becoming uid %u: %s\n", uid, strerror(-err));
		return 1;
	}
	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	memset(buf, 1, 4096);
	t0 = now_ns();
	for (i = 0; i < n && now_ns() - t0 < BUDGET_NS; i++) {
		struct iommu_ioas_map m = {
			.size = sizeof(m), .ioas_id = ioas, .user_va = (uintptr_t)buf,
			.length = 4096,
			.flags = IOMMU_IOAS_MAP_WRITEABLE | IOMMU_IOAS_MAP_READABLE,
		};
		struct iommu_ioas_unmap u = { .size = sizeof(u), .ioas_id = ioas, .length = 4096 };

		if (ioctl(ifd, IOMMU_IOAS_MAP, &m)) {
			err = errno;
			fprintf(stderr, "iommufd_tool: IOMMU_IOAS_MAP: %s\n", strerror(err));
			return 1;
		}
		u.iova = m.iova;
		if (ioctl(ifd, IOMMU_IOAS_UNMAP, &u)) {
			err = errno;
			fprintf(stderr, "iommufd_tool: IOMMU_IOAS_UNMAP: %s\n", strerror(err));
			return 1;
		}
	}
	t1 = now_ns();
	printf("iommufd ns_per_op %.0f\n", i ? (t1 - t0) / i : 0);
	close(dfd);
	close(ifd);
	return 0;
}
