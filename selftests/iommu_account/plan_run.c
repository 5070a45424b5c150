// SPDX-License-Identifier: GPL-2.0
/*
 * plan_run: run a workload as `iommu-accountctl plan` describes it, and
 * report what the kernel did, for plan_test.sh to hold the prediction
 * against. Its own parser (not libia's): the same words, read separately.
 *
 *   plan_run [--uid U] [--memlock BYTES|unlimited] [--cap-ipc-lock] [--hold] ITEM...
 *   ITEM: "uring entries=N buffers=N size=S page=4k|thp|2m|1g offset=B
 *          layout=separate|arena arena=S"
 *         (page=4k plain memory, thp under MADV_HUGEPAGE, 2m/1g hugetlb;
 *          each mapping aligned to the largest folio it holds, as plan
 *          assumes: 2 MiB for a mapping of 2 MiB or more)
 *         "vfio maps=N size=S"        (a new type1 container on an edu group of its own)
 *         "qpair capacity=N depth=N"  (a simulated SPDK qpair, published)
 *
 * Runs as root: opens the VFIO groups, sets RLIMIT_MEMLOCK, becomes uid U
 * (keeping only CAP_IPC_LOCK with --cap-ipc-lock; root drops it without),
 * then the items in order, stopping at the first refusal as an application
 * would. Prints one JSON line: the refusal (item, step, call, errno: the
 * kernel's own return), VmLck (mm->locked_vm), each container's entries in
 * use (dma_entry_limit - VFIO_IOMMU_GET_INFO's DMA_AVAIL), each qpair's
 * descriptors in use, the hugetlb pages mapped, and of the buffers' THP-able
 * mappings the bytes THP could back (2 MiB ranges inside them) and the bytes
 * it did (smaps' AnonHugePages). With --share-memory, a uring item whose
 * mappings are laid out like an earlier item's registers that item's
 * memory (one memory, two rings). With --hold it then waits for stdin to
 * close, holding everything.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/mman.h>
#include <linux/vfio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ia_vfio.h"
#include "qpair_model.h"

#define MAXI 32
#define SZ_2M (2UL << 20)

struct item {
	char kind[16];
	unsigned long entries, count, capacity, depth;
	unsigned long long size, offset, arena;
	bool packed;
	char page[8];
	void **maps;		/* uring: its mappings (one when packed) */
	/* results */
	struct vfio_ctr ctr;
	bool has_ctr;
	unsigned long used;
};

static struct item items[MAXI];
static int nitems;
static unsigned long huge_2m, huge_1g;
static unsigned long long thp_eligible, thp_backed;	/* bytes */
static bool share;

/* The AnonHugePages of the mapping at @addr (/proc/self/smaps), in bytes. */
static unsigned long long thp_bytes(uintptr_t addr)
{
	unsigned long long lo, hi, kb = 0;
	bool in = false;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2)
			in = addr >= lo && addr < hi;
		else if (in && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb * 1024;
}

static unsigned long long size_of(const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	switch (*end) {
	case 'K': return n << 10;
	case 'M': return n << 20;
	case 'G': return n << 30;
	}
	return n;
}

static void parse(const char *arg, struct item *it)
{
	char buf[256], *w, *save, *eq;

	memset(it, 0, sizeof(*it));
	it->entries = 8;
	it->count = 1;
	strcpy(it->page, "4k");
	snprintf(buf, sizeof(buf), "%s", arg);
	w = strtok_r(buf, " ,", &save);
	snprintf(it->kind, sizeof(it->kind), "%s", w ? w : "");
	if (!strcmp(it->kind, "uring"))
		it->count = 0;
	while ((w = strtok_r(NULL, " ,", &save))) {
		eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(w, "entries"))
			it->entries = strtoul(eq, NULL, 10);
		else if (!strcmp(w, "buffers") || !strcmp(w, "maps"))
			it->count = strtoul(eq, NULL, 10);
		else if (!strcmp(w, "size"))
			it->size = size_of(eq);
		else if (!strcmp(w, "page"))
			snprintf(it->page, sizeof(it->page), "%s", eq);
		else if (!strcmp(w, "offset"))
			it->offset = size_of(eq);
		else if (!strcmp(w, "layout"))
			it->packed = !strcmp(eq, "arena");
		else if (!strcmp(w, "arena"))
			it->packed = true, it->arena = size_of(eq);
		else if (!strcmp(w, "capacity"))
			it->capacity = strtoul(eq, NULL, 10);
		else if (!strcmp(w, "depth"))
			it->depth = strtoul(eq, NULL, 10);
	}
}

/* The first refusal: what the application would see. */
static struct { int item; unsigned long step; const char *call; int err; } failed;

static int fail(int item, unsigned long step, const char *call, int err)
{
	failed.item = item;
	failed.step = step;
	failed.call = call;
	failed.err = err;
	return -1;
}

static const char *ename(int e)
{
	switch (e) {
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	}
	return "other";
}

/* The length of one of @it's mappings: what its buffers need, in its pages. */
static size_t map_len(const struct item *it)
{
	unsigned long long unit = !strcmp(it->page, "1g") ? 1ULL << 30 :
				  strcmp(it->page, "4k") ? SZ_2M : 4096;
	unsigned long long need = it->offset + it->size * (it->packed ? it->count : 1);

	if (it->packed && it->arena > need)
		need = it->arena;
	return (need + unit - 1) / unit * unit;
}

/* One mapping of @it's page kind, touched; NULL with errno. */
static void *mapping(const struct item *it)
{
	size_t len = map_len(it), skip;
	char *p, *raw;
	uintptr_t a;

	if (!strcmp(it->page, "2m") || !strcmp(it->page, "1g")) {
		size_t h = !strcmp(it->page, "2m") ? SZ_2M : 1UL << 30;

		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_HUGETLB | (h == SZ_2M ? MAP_HUGE_2MB : MAP_HUGE_1GB), -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		if (h == SZ_2M)
			huge_2m += len / h;
		else
			huge_1g += len / h;
		memset(p, 1, len);
		return p;
	}
	/* Aligned to 2 MiB when it is that long, as the kernel places it since
	 * 6.7 (done here for every kernel, so that the test's layout is
	 * plan's), and exactly @len long: the VMA THP may fill. */
	skip = len >= SZ_2M ? SZ_2M : 0;
	raw = mmap(NULL, len + skip, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	a = skip ? ((uintptr_t)raw + SZ_2M - 1) & ~(SZ_2M - 1) : (uintptr_t)raw;
	if (a > (uintptr_t)raw)
		munmap(raw, a - (uintptr_t)raw);
	if (skip && (uintptr_t)raw + len + skip > a + len)
		munmap((char *)a + len, (uintptr_t)raw + len + skip - a - len);
	p = (char *)a;
	if (!strcmp(it->page, "thp"))
		madvise(p, len, MADV_HUGEPAGE);
	memset(p, 1, len);
	thp_eligible += len / SZ_2M * SZ_2M;
	thp_backed += thp_bytes(a);
	return p;
}

/* An earlier uring item laid out as @it: its memory, for --share-memory. */
static const struct item *same_layout(const struct item *it)
{
	const struct item *o;

	for (o = items; o < it; o++)
		if (!strcmp(o->kind, "uring") && o->maps && o->count == it->count &&
		    o->size == it->size && o->offset == it->offset && o->packed == it->packed &&
		    o->arena == it->arena && !strcmp(o->page, it->page))
			return o;
	return NULL;
}

static int run_uring(int i, struct item *it)
{
	struct io_uring_params p = { 0 };
	const struct item *o;
	unsigned long k, n;
	struct iovec *iov;
	int fd;

	fd = (int)syscall(__NR_io_uring_setup, it->entries, &p);
	if (fd < 0)
		return fail(i, 0, "io_uring_setup", errno);
	if (!it->count)
		return 0;
	n = it->packed ? 1 : it->count;
	iov = calloc(it->count, sizeof(*iov));
	it->maps = calloc(n, sizeof(*it->maps));
	if (!iov || !it->maps)
		return fail(i, 0, "calloc", ENOMEM);
	o = share ? same_layout(it) : NULL;
	for (k = 0; k < n; k++) {
		it->maps[k] = o ? o->maps[k] : mapping(it);
		if (!it->maps[k])
			return fail(i, k + 1, strcmp(it->page, "2m") && strcmp(it->page, "1g") ?
				    "mmap" : "mmap(MAP_HUGETLB)", errno);
	}
	for (k = 0; k < it->count; k++) {
		iov[k].iov_base = it->packed ? (char *)it->maps[0] + it->offset + k * it->size :
					       (char *)it->maps[k] + it->offset;
		iov[k].iov_len = it->size;
	}
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS, iov, it->count)) {
		/* Which buffer: the kernel does not say; plan_test compares the pot. */
		return fail(i, 0, "io_uring_register", errno);
	}
	return 0;
}

static int run_vfio(int i, struct item *it)
{
	char *buf = mmap(NULL, it->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	uint32_t avail0 = 0, avail = 0;
	unsigned long k;
	int ret;

	if (buf == MAP_FAILED)
		return fail(i, 0, "mmap", errno);
	vfio_dma_avail(&it->ctr, &avail0);
	for (k = 1; k <= it->count; k++) {
		ret = vfio_map_raw(&it->ctr, (1ULL << 32) + (k - 1) * it->size, it->size,
				   (uintptr_t)buf, VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
		if (ret)
			break;
	}
	if (!vfio_dma_avail(&it->ctr, &avail))
		it->used = avail0 - avail;
	if (k <= it->count)
		return fail(i, k, "VFIO_IOMMU_MAP_DMA", -ret);
	return 0;
}

static int run_qpair(int i, struct item *it)
{
	struct qp_model *m = calloc(1, sizeof(*m));
	char name[32];
	struct iaq *q;
	uint32_t id;

	snprintf(name, sizeof(name), "plan-qp%d", i);
	q = iaq_open(name, it->capacity);
	if (!q || !m || qp_init(m, q, it->capacity, false, it->depth + 1))
		return fail(i, 0, "iaq_open", errno ? errno : ENOMEM);
	for (id = 0; id < it->depth; id++) {
		qp_submit(m, id, false);
		it->used = it->capacity - m->free;
		if (m->rejected)
			return fail(i, id + 1, "the qpair's request pool", ENOMEM);
	}
	return 0;
}

static int become(uid_t uid, bool cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (uid && cap && prctl(PR_SET_KEEPCAPS, 1))
		return -1;
	if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
		return -1;
	if (syscall(SYS_capget, &h, d))
		return -1;
	if (cap) {
		memset(d, 0, sizeof(d));
		d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective = CAP_TO_MASK(CAP_IPC_LOCK);
		d[CAP_TO_INDEX(CAP_IPC_LOCK)].permitted = CAP_TO_MASK(CAP_IPC_LOCK);
	} else {
		d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	}
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long memlock = 0;
	bool cap = false, hold = false, have_memlock = false;
	int groups[MAXI], ngroups = 0, g = 0, i, a, ret = 0;
	uid_t uid = 0;
	char c;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--uid") && a + 1 < argc) {
			uid = (uid_t)strtoul(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--memlock") && a + 1 < argc) {
			a++;
			have_memlock = true;
			memlock = strcmp(argv[a], "unlimited") ? size_of(argv[a]) : RLIM_INFINITY;
		} else if (!strcmp(argv[a], "--cap-ipc-lock")) {
			cap = true;
		} else if (!strcmp(argv[a], "--hold")) {
			hold = true;
		} else if (!strcmp(argv[a], "--share-memory")) {
			share = true;
		} else {
			fprintf(stderr, "usage: plan_run [--uid U] [--memlock B] [--cap-ipc-lock] "
				"[--share-memory] [--hold] ITEM...\n");
			return 2;
		}
	}
	for (; a < argc && nitems < MAXI; a++)
		parse(argv[a], &items[nitems++]);
	for (i = 0; i < nitems; i++) {
		if (strcmp(items[i].kind, "vfio"))
			continue;
		if (!ngroups)
			ngroups = vfio_edu_groups(groups, MAXI);
		if (g >= ngroups || vfio_ctr_open_buf(&items[i].ctr, groups[g++], 4096)) {
			fprintf(stderr, "plan_run: no VFIO group for item %d\n", i + 1);
			return 2;
		}
		items[i].has_ctr = true;
	}
	if (have_memlock) {
		struct rlimit rl = { memlock, memlock };

		if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
			perror("plan_run: setrlimit");
			return 2;
		}
	}
	if (become(uid, cap)) {
		perror("plan_run: uid or capabilities");
		return 2;
	}
	for (i = 0; i < nitems && !ret; i++) {
		if (!strcmp(items[i].kind, "uring"))
			ret = run_uring(i + 1, &items[i]);
		else if (!strcmp(items[i].kind, "vfio"))
			ret = run_vfio(i + 1, &items[i]);
		else if (!strcmp(items[i].kind, "qpair"))
			ret = run_qpair(i + 1, &items[i]);
	}
	printf("{\"failed\": ");
	if (failed.call)
		printf("{\"item\": %d, \"step\": %lu, \"call\": \"%s\", \"errno\": \"%s\"}",
		       failed.item, failed.step, failed.call, ename(failed.err));
	else
		printf("null");
	printf(", \"thp_eligible\": %llu, \"thp_backed\": %llu, \"vmlck\": %lld, "
	       "\"huge_2m\": %lu, \"huge_1g\": %lu, \"items\": [", thp_eligible, thp_backed,
	       vm_locked_bytes(), huge_2m, huge_1g);
	for (i = 0; i < nitems; i++)
		printf("%s{\"line\": %d, \"kind\": \"%s\", \"used\": %lu}", i ? ", " : "", i + 1,
		       items[i].kind, items[i].used);
	printf("]}\n");
	fflush(stdout);
	if (hold)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
