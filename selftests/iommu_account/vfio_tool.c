// SPDX-License-Identifier: GPL-2.0
/*
 * vfio_tool: a VFIO type1 mapper for the demo, the ctl test and the benchmark.
 *
 *   vfio_tool leak DELAY_MS [MAX]   map 4 KiB entries one by one on the first
 *                                   edu group, never unmapping, until the
 *                                   kernel refuses (or MAX); print the errno;
 *                                   then stay until stdin closes
 *   vfio_tool bench PAIRS [BYTES [huge]]
 *                                   PAIRS x (MAP_DMA + UNMAP_DMA) of BYTES
 *                                   (default 4 KiB; a multiple of 4 KiB) from
 *                                   a populated buffer of 4 KiB pages, or with
 *                                   "huge" of 2 MiB hugetlb pages (reserved in
 *                                   /proc/sys/vm/nr_hugepages): one physically
 *                                   contiguous run per 2 MiB, so the kernel
 *                                   pins it in one go whatever the memory
 *                                   layout; print "ns_per_pair N"
 *   vfio_tool scale C E PAIRS       C containers, one per edu group, each with
 *                                   E live 4 KiB entries (the same E pages in
 *                                   each), then PAIRS x (MAP_DMA + UNMAP_DMA)
 *                                   of 4 KiB in the first; then each filled
 *                                   until the kernel refuses: print
 *                                   "scale C E ns_per_pair N refused_at R..."
 *                                   (R: each container's live entries when
 *                                   it refused, and the errno: 65535:ENOSPC
 *                                   at type1's default) and stay until
 *                                   stdin closes
 *   vfio_tool churn N               N x (open a container, map 4 KiB
 *                                   entries until the kernel refuses, close);
 *                                   print "refused N"
 *   vfio_tool refuse N              fill a container until the kernel refuses,
 *                                   then N more maps (refused in a loop);
 *                                   print "refused N"; stay until stdin closes
 *   vfio_tool peek PID [unmap-all]  the kernel's own answers about another
 *                                   process's type1 containers (QEMU's,
 *                                   DPDK's), each fd of /dev/vfio/vfio taken
 *                                   with pidfd_getfd(): print "fd N avail A"
 *                                   (VFIO_IOMMU_GET_INFO's DMA_AVAIL), and
 *                                   with unmap-all "unmapped BYTES" (UNMAP_DMA
 *                                   with VFIO_DMA_UNMAP_FLAG_ALL: what the
 *                                   kernel had mapped; stop the owner first)
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ia_vfio.h"

static int open_first(struct vfio_ctr *c)
{
	int groups[8], n, ret;

	n = vfio_edu_groups(groups, 8);
	if (n < 1) {
		fprintf(stderr, "vfio_tool: no edu device for vfio-pci\n");
		return -1;
	}
	ret = vfio_ctr_open(c, groups[0]);
	if (ret) {
		fprintf(stderr, "vfio_tool: container on group %d: %s\n", groups[0], strerror(-ret));
		return -1;
	}
	return 0;
}

static int leak(int delay_ms, int max)
{
	struct timespec ts;
	struct vfio_ctr c;
	int i, ret = 0;
	char ch;

	if (open_first(&c))
		return 1;
	for (i = 0; !max || i < max; i++) {
		ret = vfio_map(&c, 0x100000 + (uint64_t)i * 4096, 4096);
		if (ret)
			break;
		if (delay_ms)
			usleep(delay_ms * 1000);
	}
	clock_gettime(CLOCK_BOOTTIME, &ts);
	/* When the kernel answered, comparable with /proc/uptime. */
	if (ret)
		printf("vfio_tool: VFIO_IOMMU_MAP_DMA #%d failed: %s at boottime %ld.%03ld\n",
		       i + 1, strerror(-ret), (long)ts.tv_sec, ts.tv_nsec / 1000000);
	else
		printf("vfio_tool: %d mappings held\n", i);
	fflush(stdout);
	while (read(0, &ch, 1) > 0)
		;
	vfio_ctr_close(&c);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int bench(long pairs, size_t bytes, bool huge)
{
	const uint32_t rw = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	struct vfio_ctr c;
	double t0, t1;
	void *buf;
	long i;

	if (!bytes || bytes % 4096) {
		fprintf(stderr, "vfio_tool: BYTES must be a multiple of 4096\n");
		return 2;
	}
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | (huge ? MAP_HUGETLB : 0), -1, 0);
	if (buf == MAP_FAILED || (!huge && madvise(buf, bytes, MADV_NOHUGEPAGE))) {
		perror("vfio_tool: buffer");
		return 1;
	}
	if (open_first(&c))
		return 1;
	t0 = now_ns();
	for (i = 0; i < pairs; i++) {
		if (vfio_map_raw(&c, 0x100000, bytes, (uintptr_t)buf, rw) ||
		    vfio_unmap_flags(&c, 0x100000, bytes, 0) != (long long)bytes) {
			fprintf(stderr, "vfio_tool: pair %ld failed\n", i);
			return 1;
		}
	}
	t1 = now_ns();
	printf("ns_per_pair %.0f\n", (t1 - t0) / pairs);
	vfio_ctr_close(&c);
	munmap(buf, bytes);
	return 0;
}

static int scale(int nc, long entries, long pairs)
{
	const uint32_t rw = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	struct vfio_ctr c[8];
	int groups[8], i, err;
	double t0, t1;
	long k, p;
	char *buf, ch;

	if (nc < 1 || nc > 8 || entries < 1 || pairs < 1 ||
	    vfio_edu_groups(groups, 8) < nc) {
		fprintf(stderr, "vfio_tool scale: 1 to 8 containers (one edu group each), E and PAIRS > 0\n");
		return 2;
	}
	buf = mmap(NULL, (size_t)entries * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED || madvise(buf, (size_t)entries * 4096, MADV_NOHUGEPAGE)) {
		perror("vfio_tool: buffer");
		return 1;
	}
	for (i = 0; i < nc; i++) {
		err = vfio_ctr_open(&c[i], groups[i]);
		for (k = 0; !err && k < entries; k++)
			err = vfio_map_raw(&c[i], 0x100000 + (uint64_t)k * 4096, 4096,
					   (uintptr_t)buf + (uint64_t)k * 4096, rw);
		if (err) {
			fprintf(stderr, "vfio_tool scale: container %d, entry %ld: %s\n", i, k,
				strerror(-err));
			return 1;
		}
	}
	p = 0x100000 + entries * 4096;
	t0 = now_ns();
	for (k = 0; k < pairs; k++) {
		if (vfio_map_raw(&c[0], p, 4096, (uintptr_t)buf, rw) ||
		    vfio_unmap_flags(&c[0], p, 4096, 0) != 4096) {
			fprintf(stderr, "vfio_tool scale: pair %ld failed\n", k);
			return 1;
		}
	}
	t1 = now_ns();
	printf("scale %d %ld ns_per_pair %.0f refused_at", nc, entries, (t1 - t0) / pairs);
	for (i = 0; i < nc; i++) {
		for (k = entries, err = 0; !err && k < entries + 1000000; k++)
			err = vfio_map_raw(&c[i], 0x100000 + (uint64_t)k * 4096, 4096,
					   (uintptr_t)buf, rw);
		printf(" %ld:%s", k - 1, err ? strerrorname_np(-err) : "none");
	}
	printf("\n");
	fflush(stdout);
	while (read(0, &ch, 1) > 0)
		;
	for (i = 0; i < nc; i++)
		vfio_ctr_close(&c[i]);
	return 0;
}

static int churn(int n)
{
	struct vfio_ctr c;
	int i, k, refused = 0;

	for (i = 0; i < n; i++) {
		if (open_first(&c))
			return 1;
		for (k = 0; k < 65536; k++)
			if (vfio_map(&c, 0x100000 + (uint64_t)k * 4096, 4096))
				break;
		refused += k < 65536;
		vfio_ctr_close(&c);
	}
	printf("refused %d\n", refused);
	return 0;
}

/* A container refused in a loop: fill it, then N more maps; hold it until stdin closes. */
static int refuse(int n)
{
	struct vfio_ctr c;
	int k, refused = 0;
	char ch;

	if (open_first(&c))
		return 1;
	for (k = 0; k < 65536; k++)
		if (vfio_map(&c, 0x100000 + (uint64_t)k * 4096, 4096))
			break;
	refused = k < 65536;
	for (k = 0; k < n; k++)
		refused += vfio_map(&c, 0x80000000ULL + (uint64_t)k * 4096, 4096) != 0;
	printf("refused %d\n", refused);
	fflush(stdout);
	while (read(0, &ch, 1) > 0)
		;
	vfio_ctr_close(&c);
	return 0;
}

static int peek(int pid, bool unmap_all)
{
	char path[320], target[64];
	struct vfio_ctr c = { .group = -1 };
	struct dirent *de;
	int pidfd, n = 0;
	uint32_t avail;
	long long bytes;
	ssize_t len;
	DIR *d;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (pidfd < 0 || !d) {
		fprintf(stderr, "vfio_tool: process %d: %s\n", pid, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (strcmp(target, "/dev/vfio/vfio"))
			continue;
		c.container = syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
		if (c.container < 0) {
			fprintf(stderr, "vfio_tool: pidfd_getfd: %s\n", strerror(errno));
			return 1;
		}
		n++;
		if (vfio_dma_avail(&c, &avail)) {
			/* Not a type1 container yet (no group set), or no such cap. */
			printf("fd %s no-info\n", de->d_name);
		} else {
			printf("fd %s avail %u\n", de->d_name, avail);
		}
		if (unmap_all) {
			bytes = vfio_unmap_flags(&c, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL);
			if (bytes < 0)
				printf("fd %s unmap-all error %s\n", de->d_name, strerror((int)-bytes));
			else
				printf("fd %s unmapped %lld\n", de->d_name, bytes);
		}
		close(c.container);
	}
	closedir(d);
	close(pidfd);
	if (!n)
		fprintf(stderr, "vfio_tool: process %d holds no /dev/vfio/vfio\n", pid);
	return n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "peek"))
		return peek(atoi(argv[2]), argc == 4 && !strcmp(argv[3], "unmap-all"));
	if (argc == 5 && !strcmp(argv[1], "scale"))
		return scale(atoi(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "refuse"))
		return refuse(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "leak"))
		return leak(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "bench"))
		return bench(atol(argv[2]), argc >= 4 ? strtoul(argv[3], NULL, 0) : 4096,
			     argc == 5 && !strcmp(argv[4], "huge"));
	fprintf(stderr, "usage: vfio_tool leak DELAY_MS [MAX] | bench PAIRS [BYTES [huge]] | "
		"scale C E PAIRS | churn N | refuse N | peek PID [unmap-all]\n");
	return 2;
}
