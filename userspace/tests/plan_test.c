// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests (cmocka, TAP) of plan's rule tables (lib/plan.c): each
 * case a workload, the kernel's facts and the uid's state, and what the
 * kernel's code says happens (the function each rule comes from is named
 * in plan.c). The same rules are held against the kernel itself in the VM
 * by selftests' plan_test.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/io_uring.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ia.h"

#define MiB (1ULL << 20)
#define NOLIM UINT64_MAX

struct want_row {
	const char *name;
	uint64_t after, held;		/* held: at the refusal (when refused) */
	uint64_t after_min;		/* 0: after (no bounds) */
};

struct pcase {
	const char *title;
	const char *items[6];
	uint64_t memlock, pot, mm;
	bool cap;
	/* facts changed from the lab kernel's */
	int ring_charged;		/* 0 unless 1 / -1 */
	uint64_t ring_pages;
	const char *thp;		/* NULL: "madvise" */
	bool mthp, no_iommufd, no_type1;	/* mthp: 64 KiB folios for plain memory */
	uint32_t dma_entry_limit;	/* 0: 65535 */
	int64_t huge2m;
	uint64_t memcg_max, memcg_cur;	/* memcg_max 0: no memory limit */
	/* expected */
	int ret;			/* ia_plan_eval's */
	bool refused;
	unsigned int item, step;
	const char *call;
	int err;
	bool exact, unknown, may_fit;
	uint64_t need_memlock, need_entries, need_requests, need_huge2m, need_memcg;
	struct want_row rows[6];
};

static const struct pcase cases[] = {
	{ "4 KiB pages spanned, rounded up per buffer: 64 x 12289 B = exactly 1 MiB",
	  { "uring entries=8 buffers=64 size=12289" }, 1 * MiB, 0, 0, false,
	  .exact = true, .rows = { { "uid 1000 pot", 1 * MiB, 0 } } },
	{ "one buffer more goes over: buffer 65, the registration undone",
	  { "uring entries=8 buffers=65 size=12289" }, 1 * MiB, 0, 0, false,
	  .refused = true, .item = 1, .step = 65, .call = "io_uring_register", .err = ENOMEM,
	  .exact = true, .need_memlock = 1 * MiB + 16384,
	  .rows = { { "uid 1000 pot", 1 * MiB + 16384, 0 } } },
	{ "the pot is shared: 6 MiB held by others, 3 MiB more under 8 MiB: buffer 3",
	  { "uring buffers=3 size=1M" }, 8 * MiB, 6 * MiB, 0, false,
	  .refused = true, .item = 1, .step = 3, .call = "io_uring_register", .err = ENOMEM,
	  .exact = true, .need_memlock = 9 * MiB, .rows = { { "uid 1000 pot", 9 * MiB, 6 * MiB } } },
	{ "hugetlb 2 MiB: a 4 KiB buffer charged 2 MiB",
	  { "uring buffers=2 size=4096 page=2m" }, 3 * MiB, 0, 0, false, .huge2m = 8,
	  .refused = true, .item = 1, .step = 2, .call = "io_uring_register", .err = ENOMEM,
	  .exact = true, .need_memlock = 4 * MiB,
	  .rows = { { "uid 1000 pot", 4 * MiB, 0 }, { "mm->locked_vm", 0, 0 },
		    { "hugetlb 2 MiB pool", 2, 2 } } },
	{ "hugetlb pool short: mmap of buffer 3 fails first",
	  { "uring buffers=4 size=2M page=2m" }, NOLIM, 0, 0, false, .huge2m = 2,
	  .refused = true, .item = 1, .step = 3, .call = "mmap(MAP_HUGETLB)", .err = ENOMEM,
	  .exact = true, .need_huge2m = 2,
	  .rows = { { "uid 1000 pot", 8 * MiB, 0 }, { "mm->locked_vm", 0, 0 },
		    { "hugetlb 2 MiB pool", 4, 2 } } },
	{ "THP (madvise), page=thp: 1 MiB buffers 1 to 2 MiB each: may be refused at buffer 3",
	  { "uring buffers=3 size=1M page=thp" }, 5 * MiB, 0, 0, false,
	  .refused = true, .item = 1, .step = 3, .call = "io_uring_register", .err = ENOMEM,
	  .may_fit = true, .need_memlock = 6 * MiB,
	  .rows = { { "uid 1000 pot", 6 * MiB, 0, 3 * MiB } } },
	{ "THP off (never): page=thp is 4 KiB pages, exact",
	  { "uring buffers=3 size=1M page=thp" }, 5 * MiB, 0, 0, false, .thp = "never",
	  .exact = true, .rows = { { "uid 1000 pot", 3 * MiB, 0 } } },
	{ "multi-size THP on: a buffer filling its own mapping is charged its size, exact",
	  { "uring buffers=1 size=1M" }, 5 * MiB, 0, 0, false, .mthp = true,
	  .exact = true, .rows = { { "uid 1000 pot", 1 * MiB, 0 } } },
	{ "multi-size THP on, 8 KiB buffers at offset 100, each its own 12 KiB: 3 pages, exact",
	  { "uring buffers=4 size=8K offset=100" }, 5 * MiB, 0, 0, false, .mthp = true,
	  .exact = true, .rows = { { "uid 1000 pot", 48 * 1024, 0 } } },
	{ "multi-size THP on, the same in a 64 KiB arena: 12 pages, or one 64 KiB folio",
	  { "uring buffers=4 size=8K offset=100 arena=64K" }, 5 * MiB, 0, 0, false, .mthp = true,
	  .rows = { { "uid 1000 pot", 64 * 1024, 0, 48 * 1024 } } },
	{ "unaligned: 8 x 64 KiB starting 100 bytes in span 17 pages each: buffer 8 over 512 KiB",
	  { "uring buffers=8 size=64K offset=100" }, 512 * 1024, 0, 0, false,
	  .refused = true, .item = 1, .step = 8, .call = "io_uring_register", .err = ENOMEM,
	  .exact = true, .need_memlock = 8 * 17 * 4096,
	  .rows = { { "uid 1000 pot", 8 * 17 * 4096, 0 } } },
	{ "packed in one arena: straddling buffers pay for the page they share, each",
	  { "uring buffers=8 size=64K offset=100 layout=arena" }, 512 * 1024, 0, 0, false,
	  .refused = true, .item = 1, .step = 8, .call = "io_uring_register", .err = ENOMEM,
	  .exact = true, .need_memlock = 8 * 17 * 4096,
	  .rows = { { "uid 1000 pot", 8 * 17 * 4096, 0 } } },
	{ "packed small buffers: 4 x 1 KiB in one page, charged 4 pages",
	  { "uring buffers=4 size=1K layout=arena" }, 1 * MiB, 0, 0, false,
	  .exact = true, .rows = { { "uid 1000 pot", 16384, 0 } } },
	{ "THP always, a 4 MiB arena of 3 x 1 MiB: 2 MiB, 0, 2 MiB at worst; refused at 3",
	  { "uring buffers=3 size=1M arena=4M" }, 3 * MiB + 512 * 1024, 0, 0, false,
	  .thp = "always", .refused = true, .item = 1, .step = 3, .call = "io_uring_register",
	  .err = ENOMEM, .may_fit = true, .need_memlock = 4 * MiB,
	  .rows = { { "uid 1000 pot", 4 * MiB, 0, 3 * MiB } } },
	{ "THP always, separate 1 MiB buffers: a 1 MiB mapping holds no huge page, exact",
	  { "uring buffers=3 size=1M" }, 3 * MiB, 0, 0, false, .thp = "always",
	  .exact = true, .rows = { { "uid 1000 pot", 3 * MiB, 0 } } },
	{ "THP madvise, plain memory in a 4 MiB arena: 4 KiB pages, exact",
	  { "uring buffers=3 size=1M arena=4M" }, 3 * MiB, 0, 0, false,
	  .exact = true, .rows = { { "uid 1000 pot", 3 * MiB, 0 } } },
	{ "THP always: a 3 MiB buffer 100 bytes into its own mapping spans every page: exact",
	  { "uring buffers=1 size=3M offset=100" }, 64 * MiB, 0, 0, false, .thp = "always",
	  .exact = true, .rows = { { "uid 1000 pot", 3 * MiB + 4096, 0 } } },
	{ "THP always: the same in a 4 MiB arena: 3 MiB + 1 page to 4 MiB",
	  { "uring buffers=1 size=3M offset=100 arena=4M" }, 64 * MiB, 0, 0, false,
	  .thp = "always", .rows = { { "uid 1000 pot", 4 * MiB, 0, 3 * MiB + 4096 } } },
	{ "hugetlb at an offset: a 2 MiB buffer 4 KiB in spans two huge pages",
	  { "uring buffers=2 size=2M offset=4K page=2m" }, NOLIM, 0, 0, false, .huge2m = 8,
	  .exact = true, .rows = { { "uid 1000 pot", 8 * MiB, 0 }, { "mm->locked_vm", 0, 0 },
				   { "hugetlb 2 MiB pool", 4, 0 } } },
	{ "hugetlb arena: 4 x 512 KiB in one huge page, charged once",
	  { "uring buffers=4 size=512K page=2m layout=arena" }, NOLIM, 0, 0, false, .huge2m = 8,
	  .exact = true, .rows = { { "uid 1000 pot", 2 * MiB, 0 }, { "mm->locked_vm", 0, 0 },
				   { "hugetlb 2 MiB pool", 1, 0 } } },
	{ "two rings over the same memory: each ring pays",
	  { "uring buffers=1 size=1M arena=2M page=thp", "uring buffers=1 size=1M arena=2M page=thp" },
	  NOLIM, 0, 0, false, .thp = "always",
	  .rows = { { "uid 1000 pot", 4 * MiB, 0, 2 * MiB } } },
	{ "CAP_IPC_LOCK: io_uring charges nothing, checks nothing",
	  { "uring buffers=4 size=1M" }, 0, 0, 0, true,
	  .exact = true, .rows = { { "uid 1000 pot", 0, 0 } } },
	{ "ring memory charged (probe: 3 pages): refused at io_uring_setup under 8 KiB",
	  { "uring entries=8" }, 8192, 0, 0, false, .ring_charged = 1, .ring_pages = 3,
	  .refused = true, .item = 1, .step = 0, .call = "io_uring_setup", .err = ENOMEM,
	  .exact = true, .need_memlock = 12288, .rows = { { "uid 1000 pot", 12288, 0 } } },
	{ "ring memory unknown (probe failed): no verdict",
	  { "uring entries=8" }, 8192, 0, 0, false, .ring_charged = -1, .unknown = true,
	  .rows = { { "uid 1000 pot", 0, 0 } } },
	{ "a buffer over 1 GiB: EFAULT from io_uring, not memory",
	  { "uring buffers=1 size=2G" }, NOLIM, 0, 0, false,
	  .refused = true, .item = 1, .step = 0, .call = "io_uring_register", .err = EFAULT,
	  .exact = true, .rows = { { "uid 1000 pot", 0, 0 } } },
	{ "more than 16384 buffers: EINVAL",
	  { "uring buffers=16385 size=4096" }, NOLIM, 0, 0, false,
	  .refused = true, .item = 1, .step = 0, .call = "io_uring_register", .err = EINVAL,
	  .exact = true },
	{ "VFIO: 4 maps of 1 MiB under 3 MiB: map 4, three stay",
	  { "vfio maps=4 size=1M" }, 3 * MiB, 0, 0, false,
	  .refused = true, .item = 1, .step = 4, .call = "VFIO_IOMMU_MAP_DMA", .err = ENOMEM,
	  .exact = true, .need_memlock = 4 * MiB,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 4 * MiB, 3 * MiB },
		    { "entries, container of line 1", 4, 3 } } },
	{ "VFIO with CAP_IPC_LOCK: mm->locked_vm still charged, no limit",
	  { "vfio maps=4 size=1M" }, 0, 0, 0, true, .exact = true,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 4 * MiB, 0 } } },
	{ "VFIO: the entry is checked before the pages: ENOSPC at a tie",
	  { "vfio maps=11 size=4096" }, 40960, 0, 0, false, .dma_entry_limit = 10,
	  .refused = true, .item = 1, .step = 11, .call = "VFIO_IOMMU_MAP_DMA", .err = ENOSPC,
	  .exact = true, .need_memlock = 45056, .need_entries = 11,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 45056, 40960 },
		    { "entries, container of line 1", 11, 10 } } },
	{ "VFIO: a process already holding 2 MiB (--pid) maps 2 MiB under 3 MiB",
	  { "vfio maps=2 size=1M" }, 3 * MiB, 0, 2 * MiB, false,
	  .refused = true, .item = 1, .step = 2, .call = "VFIO_IOMMU_MAP_DMA", .err = ENOMEM,
	  .exact = true, .need_memlock = 4 * MiB,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 4 * MiB, 3 * MiB } } },
	{ "io_uring and VFIO: two counters under one limit, each within it",
	  { "uring buffers=4 size=1M", "vfio maps=3 size=1M" }, 6 * MiB, 0, 0, false,
	  .exact = true,
	  .rows = { { "uid 1000 pot", 4 * MiB, 0 }, { "mm->locked_vm", 3 * MiB, 0 } } },
	{ "iommufd user mode: the pot; mm mode: the process",
	  { "iommufd maps=2 size=1M", "iommufd maps=3 size=1M mode=mm" }, 2 * MiB, 0, 0, false,
	  .refused = true, .item = 2, .step = 3, .call = "IOMMU_IOAS_MAP", .err = ENOMEM,
	  .exact = true, .need_memlock = 3 * MiB,
	  .rows = { { "uid 1000 pot", 2 * MiB, 2 * MiB }, { "mm->locked_vm", 3 * MiB, 2 * MiB } } },
	{ "iommufd with CAP_IPC_LOCK: nothing charged",
	  { "iommufd maps=2 size=1M" }, 0, 0, 0, true, .exact = true,
	  .rows = { { "uid 1000 pot", 0, 0 } } },
	{ "iommufd where the kernel has none: not on this kernel",
	  { "iommufd maps=1 size=1M" }, NOLIM, 0, 0, false, .no_iommufd = true,
	  .ret = -EOPNOTSUPP },
	{ "VFIO where vfio_iommu_type1 is not loaded: not now",
	  { "vfio maps=1 size=4096" }, NOLIM, 0, 0, false, .no_type1 = true,
	  .ret = -EOPNOTSUPP },
	{ "hugetlb 1 GiB where the kernel has no such pool: not on this kernel",
	  { "uring buffers=1 size=1G page=1g" }, NOLIM, 0, 0, false, .ret = -EOPNOTSUPP },
	{ "VM, type1, 2 devices, no vIOMMU: guest RAM once, an estimate",
	  { "vm ram=4G devices=2" }, 4 * 1024 * MiB, 0, 0, false,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 4096 * MiB, 0 },
		    { "entries, VM container 1 of line 1", 6, 0 } } },
	{ "VM, type1, 2 devices, vIOMMU: twice the RAM, 4 KiB entries past 65535",
	  { "vm ram=1G devices=2 viommu=yes" }, 1024 * MiB, 0, 0, false,
	  .refused = true, .item = 1, .step = 1, .call = "VFIO_IOMMU_MAP_DMA", .err = ENOSPC,
	  .need_memlock = 2048 * MiB, .need_entries = 262144,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 2048 * MiB, 0 },
		    { "entries, VM container 1 of line 1", 262144, 0 } } },
	{ "VM on iommufd, no vIOMMU: guest RAM once, to the uid's pot",
	  { "vm ram=2G devices=3 backend=iommufd" }, 1024 * MiB, 512 * MiB, 0, false,
	  .refused = true, .item = 1, .step = 1, .call = "IOMMU_IOAS_MAP", .err = ENOMEM,
	  .need_memlock = 2560 * MiB, .rows = { { "uid 1000 pot", 2560 * MiB, 512 * MiB } } },
	{ "memcg: a 64 MiB map in a cgroup of 16 MiB (8 in use): an OOM kill, not ENOMEM",
	  { "vfio maps=1 size=64M" }, NOLIM, 0, 0, false, .memcg_max = 16 * MiB,
	  .memcg_cur = 8 * MiB, .refused = true, .item = 1, .step = 1,
	  .call = "a page fault (memcg OOM kill)", .err = IA_PLAN_KILLED, .need_memcg = 72 * MiB,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 64 * MiB, 0 },
		    { "memcg /ia", 72 * MiB, 8 * MiB } } },
	{ "memcg: hugetlb pages are not the memcg's; 4 KiB buffers are",
	  { "uring buffers=2 size=2M page=2m", "uring buffers=1 size=1M" }, NOLIM, 0, 0, false,
	  .huge2m = 8, .memcg_max = 2 * MiB, .memcg_cur = 512 * 1024,
	  .rows = { { "uid 1000 pot", 5 * MiB, 0 }, { "memcg /ia", 1536 * 1024, 0 } } },
	{ "qpair deeper than its pool: request 65, 64 in use; io_queue_requests 100",
	  { "qpair capacity=64 depth=100" }, NOLIM, 0, 0, false,
	  .refused = true, .item = 1, .step = 65, .call = "the qpair's request pool",
	  .err = ENOMEM, .exact = true, .need_requests = 100,
	  .rows = { { "uid 1000 pot", 0, 0 }, { "mm->locked_vm", 0, 0 },
		    { "qpair of line 1", 100, 64 } } },
};

static void run_case(void **state)
{
	const struct pcase *c = *state;
	struct ia_plan_spec s = { .cap_ipc_lock = -1 };
	struct ia_plan_facts f = { .page_size = 4096, .uring = 1, .thp = "madvise",
				   .huge_free = { 0, -1 }, .type1 = true,
				   .dma_entry_limit = 65535, .iommufd = true };
	struct ia_plan_state st = { .uid = 1000 };
	struct ia_plan_result r;
	char err[256], why[256];
	unsigned int i, k;

	for (i = 0; i < 6 && c->items[i]; i++)
		assert_int_equal(ia_plan_parse_line(&s, c->items[i], i + 1, err, sizeof(err)), 0);
	st.memlock = c->memlock;
	st.pot = c->pot;
	st.mm_locked = c->mm;
	st.cap_ipc_lock = c->cap;
	f.ring_charged = c->ring_charged;
	for (i = 0; i < s.n; i++)
		f.ring_pages[i] = c->ring_pages;
	if (c->ring_charged < 0)
		strcpy(f.uring_why, "io_uring_setup of 8 entries: EIO");
	if (c->thp)
		strcpy(f.thp, c->thp);
	/* The PMD size (order 9) as the top setting says; 64 KiB (order 4) always. */
	if (!strcmp(f.thp, "always"))
		f.thp_plain = f.thp_advised = 1u << 9;
	else if (!strcmp(f.thp, "madvise"))
		f.thp_advised = 1u << 9;
	if (c->mthp) {
		f.thp_plain |= 1u << 4;
		f.thp_advised |= 1u << 4;
	}
	f.iommufd = !c->no_iommufd;
	f.type1 = !c->no_type1;
	if (c->dma_entry_limit)
		f.dma_entry_limit = c->dma_entry_limit;
	f.huge_free[0] = c->huge2m;
	if (c->memcg_max) {
		st.memcg.limited = true;
		strcpy(st.memcg.path, "/ia");
		st.memcg.max = c->memcg_max;
		st.memcg.current = c->memcg_cur;
	}
	assert_int_equal(ia_plan_eval(&s, &f, &st, &r, why, sizeof(why)), c->ret);
	if (c->ret) {
		assert_non_null(strstr(why, "not on this kernel") ? why : strstr(why, "not loaded"));
		return;
	}
	assert_int_equal(r.refused, c->refused);
	assert_int_equal(r.exact, c->exact);
	assert_int_equal(!!r.unknown[0], c->unknown);
	assert_int_equal(r.may_fit, c->may_fit);
	if (c->refused) {
		assert_int_equal(r.item, c->item);
		assert_int_equal(r.step, c->step);
		assert_string_equal(r.call, c->call);
		assert_int_equal(r.err, c->err);
	}
	assert_int_equal(r.need_memlock, c->need_memlock);
	assert_int_equal(r.need_entries, c->need_entries);
	assert_int_equal(r.need_requests, c->need_requests);
	assert_int_equal(r.need_huge[0], c->need_huge2m);
	assert_int_equal(r.need_memcg, c->need_memcg);
	for (k = 0; k < 6 && c->rows[k].name; k++) {
		const struct ia_plan_row *w = NULL;

		for (i = 0; i < r.nrows; i++)
			if (!strcmp(r.rows[i].name, c->rows[k].name))
				w = &r.rows[i];
		if (!w)
			fail_msg("%s: no row '%s'", c->title, c->rows[k].name);
		assert_int_equal(w->now + w->add, c->rows[k].after);
		assert_int_equal(w->now + w->add_min, c->rows[k].after_min ? c->rows[k].after_min :
				 c->rows[k].after);
		if (c->refused)
			assert_int_equal(r.held[w - r.rows], c->rows[k].held);
	}
}

/* Bad input: the word and why; a file's line. */
static void parse_errors(void **state)
{
	static const struct { const char *line, *why; } bad[] = {
		{ "uring entries=0", "entries='0' is not a number of entries from 1 to 32768" },
		{ "uring buffers=2", "uring: size= is required" },
		{ "uring buffers=2 size=1M page=3m", "page='3m' is not 4k, thp" },
		{ "uring buffers=2 size=1M offset=4096", "offset=4096 is beyond its page (4096 "
		  "bytes for page=4k)" },
		{ "uring buffers=3 size=1M offset=100 arena=3M", "arena=3145728 is smaller than "
		  "its buffers (offset 100 + 3 x 1048576 = 3145828 bytes)" },
		{ "uring buffers=3 size=1M layout=separate arena=4M", "layout=separate has none" },
		{ "uring buffers=3 size=1M layout=packed", "layout='packed' is not separate" },
		{ "uring entries=8 offset=100", "give buffers= and size=" },
		{ "vfio size=5000", "must be a multiple of the page size" },
		{ "vfio maps=2 maps=3 size=4096", "maps= given twice" },
		{ "qpair capacity=4", "qpair: depth= is required" },
		{ "qpair capacity=0 depth=1", "capacity='0' is not a number of request descriptors" },
		{ "vm devices=2", "vm: ram= is required" },
		{ "gpu size=1G", "unknown item 'gpu'" },
		{ "uring size", "'size' is not key=value" },
		{ "vfio maps=1 size=4096 iova=0", "unknown key 'iova' (it takes maps, size)" },
		{ "process memlock=12Q", "memlock='12Q' is not a size" },
		{ "process cgroup=docker/x", "cgroup='docker/x' is not a cgroup v2 path" },
		{ "process cgroup=/a/../b", "is not a cgroup v2 path" },
	};
	struct ia_plan_spec s;
	char err[256];
	unsigned int i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(ia_plan_parse_line(&s, bad[i].line, 1, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].line, err, bad[i].why);
		assert_int_equal(s.n, 0);
	}
	memset(&s, 0, sizeof(s));
	assert_int_equal(ia_plan_parse_line(&s, "uring:entries=16,buffers=2,size=64K", 1, err,
					    sizeof(err)), 0);
	assert_int_equal(s.items[0].entries, 16);
	assert_int_equal(s.items[0].count, 2);
	assert_int_equal(s.items[0].size, 65536);
	f = tmpfile();
	fputs("# a workload\nprocess memlock=64M cap_ipc_lock=no\n\nvfio maps=2 size=1M  # two\n"
	      "qpair capacity=8 dpth=9\n", f);
	rewind(f);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ia_plan_parse_file(&s, f, "w.spec", err, sizeof(err)), -1);
	assert_string_equal(err, "w.spec:5: qpair: unknown key 'dpth' (it takes capacity, depth)");
	assert_int_equal(s.n, 1);
	assert_true(s.has_memlock);
	assert_int_equal(s.memlock, 64 * MiB);
	assert_int_equal(s.cap_ipc_lock, 0);
	fclose(f);
}

static void sizes(void **state)
{
	static const struct { const char *s; uint64_t v; int ret; } t[] = {
		{ "4096", 4096, 0 }, { "64K", 65536, 0 }, { "1M", MiB, 0 }, { "2MiB", 2 * MiB, 0 },
		{ "1G", 1ULL << 30, 0 }, { "3GB", 3ULL << 30, 0 }, { "unlimited", UINT64_MAX, 0 },
		{ "", 0, -1 }, { "-1", 0, -1 }, { "1X", 0, -1 }, { "20000000T", 0, -1 },
		{ "1Mi", 0, -1 },
	};
	unsigned int i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 0;
		assert_int_equal(ia_parse_size(t[i].s, &v), t[i].ret);
		if (!t[i].ret)
			assert_int_equal(v, t[i].v);
	}
}

/*
 * In a child: RLIMIT_MEMLOCK @limit, become @uid (a uid no process has: its
 * pot is empty), make a ring of @entries. 0 made, 1 ENOMEM, 2 otherwise.
 */
static int ring_under(uint64_t limit, unsigned int entries, uid_t uid)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		struct rlimit rl = { limit, limit };
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(2);
		if (syscall(__NR_io_uring_setup, entries, &p) >= 0)
			_exit(0);
		_exit(errno == ENOMEM ? 1 : 2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

/*
 * The probe against the kernel that runs this test: where it says a ring
 * of N entries is charged P pages, the kernel makes it under exactly P
 * pages of RLIMIT_MEMLOCK and refuses it under P - 1 (for a uid with an
 * empty pot); where it says not charged, under 0. Needs root (setuid);
 * io_uring absent or disabled: skipped.
 */
static void ring_probe_is_the_kernels_refusal_point(void **state)
{
	static const unsigned int entries[] = { 1, 8, 256, 4096 };
	uint64_t pages, ps = (uint64_t)sysconf(_SC_PAGESIZE);
	uid_t uid = 3900000000u + (uid_t)(getpid() % 10000) * 10;
	unsigned int i;
	int ret;

	(void)state;
	if (geteuid())
		skip();
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		ret = ia_plan_probe_ring(entries[i], &pages);
		if (ret == -ENOSYS || ret == -EPERM)
			skip();
		assert_true(ret == 0 || ret == 1);
		print_message("# ring of %u entries: %s %llu pages\n", entries[i],
			      ret ? "charged" : "not charged", (unsigned long long)pages);
		if (!ret) {
			assert_int_equal(ring_under(0, entries[i], uid + 2 * i), 0);
			continue;
		}
		assert_true(pages > 0);
		assert_int_equal(ring_under(pages * ps, entries[i], uid + 2 * i), 0);
		assert_int_equal(ring_under((pages - 1) * ps, entries[i], uid + 2 * i + 1), 1);
	}
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 3];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tests[i] = (struct CMUnitTest){ cases[i].title, run_case, NULL, NULL,
						(void *)&cases[i] };
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(parse_errors);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(sizes);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(ring_probe_is_the_kernels_refusal_point);
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return _cmocka_run_group_tests("plan", tests, i, NULL, NULL);
}
