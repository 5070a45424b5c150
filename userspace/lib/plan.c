// SPDX-License-Identifier: GPL-2.0
/*
 * plan: the kernel's own charging rules, applied to a described workload
 * before it starts. Pure functions (the facts of the running kernel and the
 * uid's figures are gathered by the caller, ctl/plan.c), so the rule tables
 * are unit-tested on the host (tests/plan_test.c) and checked against the
 * kernel itself in the VM (selftests' plan_test.sh).
 *
 * The rules, and the kernel code they come from:
 *  - io_uring registered buffers (io_sqe_buffer_register ->
 *    io_buffer_account_pin): the pages each buffer spans; a huge page (THP
 *    or hugetlb) charged whole, once per ring; a buffer over 1 GiB is
 *    EFAULT, more than IORING_MAX_REG_BUFFERS (16384) EINVAL. Each buffer
 *    is charged in turn to the ring creator's uid pot and refused (ENOMEM)
 *    when pot + pages > RLIMIT_MEMLOCK >> PAGE_SHIFT of the registering
 *    process (__io_account_mem); a refused registration undoes all of its
 *    buffers. A ring created with CAP_IPC_LOCK is charged nothing.
 *  - io_uring ring memory: whether the kernel charges it, and how much, is
 *    measured by the caller with a probe ring of the same entries (no
 *    version number decides it).
 *  - VFIO type1 (vfio_dma_do_map, vfio_pin_pages_remote): each MAP_DMA
 *    takes one of the container's dma_entry_limit entries, checked first
 *    (ENOSPC); its pages are charged to the mapper's mm->locked_vm, even
 *    where another mapping pinned the same memory, and refused (ENOMEM)
 *    past its RLIMIT_MEMLOCK; nothing with CAP_IPC_LOCK. A refused map is
 *    undone; the earlier ones stay.
 *  - iommufd (iopt_alloc_pages, do_update_pinned): the pages of each
 *    IOAS_MAP to the uid's pot (user mode) or the process's mm->locked_vm
 *    (mm mode), against the process's RLIMIT_MEMLOCK; none with
 *    CAP_IPC_LOCK; no entry limit.
 *  - a qpair: the application's own request pool; a request past its
 *    capacity is -ENOMEM from the pool, not from memory.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"

#define SZ_2M (2ULL << 20)
#define SZ_1G (1ULL << 30)
#define URING_MAX_BUFFERS 16384		/* IORING_MAX_REG_BUFFERS */
#define URING_MAX_ENTRIES 32768		/* IORING_MAX_ENTRIES */

const char *ia_plan_err_name(int err)
{
	return err == IA_PLAN_KILLED ? "SIGKILL" : ia_errno_name(err);
}

const char *ia_plan_kind_name(enum ia_plan_kind k)
{
	switch (k) {
	case IA_PLAN_URING: return "uring";
	case IA_PLAN_VFIO: return "vfio";
	case IA_PLAN_IOMMUFD: return "iommufd";
	case IA_PLAN_VM: return "vm";
	case IA_PLAN_QPAIR: return "qpair";
	}
	return "?";
}

int ia_parse_size(const char *s, uint64_t *v)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	if (!strcmp(s, "unlimited") || !strcmp(s, "infinity")) {
		*v = UINT64_MAX;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	case 0: break;
	default: return -1;
	}
	if (shift) {
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (!strcmp(end, "B")) {
		end++;
	}
	if (*end || (shift && n > (UINT64_MAX >> shift)))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

static int errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_bool(const char *v, bool *b)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
		*b = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
		*b = false;
	else
		return -1;
	return 0;
}

/* The keys each kind takes, for the error that lists them. */
static const char *const keys_of[] = {
	[0] = "memlock, cap_ipc_lock, cgroup",
	[IA_PLAN_URING] = "entries, buffers, size, page, offset, layout, arena",
	[IA_PLAN_VFIO] = "maps, size",
	[IA_PLAN_IOMMUFD] = "maps, size, mode",
	[IA_PLAN_VM] = "ram, devices, viommu, backend",
	[IA_PLAN_QPAIR] = "capacity, depth",
};

/* One key=value of @it (kind 0: the process line). */
static int set_key(struct ia_plan_spec *s, struct ia_plan_item *it, int kind, const char *kname,
		   const char *key, const char *val, unsigned int *seen, char *err, size_t len)
{
	static const char *const names[] = { "memlock", "cap_ipc_lock", "entries", "buffers",
		"size", "page", "maps", "mode", "ram", "devices", "viommu", "backend", "capacity",
		"depth", "cgroup", "offset", "layout", "arena" };
	const char *bad = NULL;
	unsigned int i, k = ~0u;
	uint32_t u = 0;
	uint64_t sz = 0;
	bool b = false;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i]))
			k = i;
	if (k != ~0u && (*seen & (1u << k)))
		return errf(err, len, "%s: %s= given twice", kname, key);
	if (k != ~0u)
		*seen |= 1u << k;
#define IS(name, kd) (!strcmp(key, name) && kind == (kd))
	if (IS("memlock", 0)) {
		if (ia_parse_size(val, &sz))
			bad = "a size (64M, 8G, 65536, unlimited)";
		s->has_memlock = true;
		s->memlock = sz;
	} else if (IS("cgroup", 0)) {
		if (val[0] != '/' || strlen(val) >= sizeof(s->cgroup) || strstr(val, "/../") ||
		    !strcmp(val + strlen(val) - (strlen(val) > 2 ? 3 : 0), "/.."))
			bad = "a cgroup v2 path from its root (/system.slice/x.service)";
		else
			snprintf(s->cgroup, sizeof(s->cgroup), "%s", val);
	} else if (IS("cap_ipc_lock", 0)) {
		if (parse_bool(val, &b))
			bad = "yes or no";
		s->cap_ipc_lock = b;
	} else if (IS("entries", IA_PLAN_URING)) {
		if (ia_parse_u32(val, &u) || !u || u > URING_MAX_ENTRIES)
			bad = "a number of entries from 1 to 32768 (io_uring_setup's IORING_MAX_ENTRIES)";
		it->entries = u;
	} else if (IS("buffers", IA_PLAN_URING) || (!strcmp(key, "maps") &&
		   (kind == IA_PLAN_VFIO || kind == IA_PLAN_IOMMUFD))) {
		if (ia_parse_u32(val, &u))
			bad = "a number";
		it->count = u;
	} else if (!strcmp(key, "size") && kind >= IA_PLAN_URING && kind <= IA_PLAN_IOMMUFD) {
		if (ia_parse_size(val, &sz) || !sz || sz == UINT64_MAX)
			bad = "a size above 0 (4096, 64K, 1M, 2G)";
		it->size = sz;
	} else if (IS("ram", IA_PLAN_VM)) {
		if (ia_parse_size(val, &sz) || !sz || sz == UINT64_MAX)
			bad = "a size above 0 (512M, 16G)";
		it->size = sz;
	} else if (IS("page", IA_PLAN_URING)) {
		if (!strcasecmp(val, "4k"))
			it->page = IA_PAGE_4K;
		else if (!strcasecmp(val, "thp"))
			it->page = IA_PAGE_THP;
		else if (!strcasecmp(val, "2m") || !strcasecmp(val, "hugetlb-2m"))
			it->page = IA_PAGE_2M;
		else if (!strcasecmp(val, "1g") || !strcasecmp(val, "hugetlb-1g"))
			it->page = IA_PAGE_1G;
		else
			bad = "4k, thp, 2m (hugetlb) or 1g (hugetlb)";
	} else if (IS("offset", IA_PLAN_URING)) {
		if (ia_parse_size(val, &sz) || sz == UINT64_MAX)
			bad = "a number of bytes (100, 2K): where a buffer starts within its page";
		it->offset = sz;
	} else if (IS("layout", IA_PLAN_URING)) {
		if (!strcmp(val, "separate"))
			it->arena = false;
		else if (!strcmp(val, "arena"))
			it->arena = true;
		else
			bad = "separate (each buffer its own mapping) or arena (packed in one)";
	} else if (IS("arena", IA_PLAN_URING)) {
		if (ia_parse_size(val, &sz) || !sz || sz == UINT64_MAX)
			bad = "a size above 0: the length of the mapping the buffers are packed in";
		it->arena_size = sz;
	} else if (IS("mode", IA_PLAN_IOMMUFD)) {
		if (!strcmp(val, "user"))
			it->mm_mode = false;
		else if (!strcmp(val, "mm"))
			it->mm_mode = true;
		else
			bad = "user (the uid's pot, iommufd's default) or mm (IOMMU_OPTION_RLIMIT_MODE)";
	} else if (IS("devices", IA_PLAN_VM)) {
		if (ia_parse_u32(val, &u) || u > 64)
			bad = "a number of passthrough devices, 0 to 64";
		it->devices = u;
	} else if (IS("viommu", IA_PLAN_VM)) {
		if (parse_bool(val, &b))
			bad = "yes or no";
		it->viommu = b;
	} else if (IS("backend", IA_PLAN_VM)) {
		if (!strcmp(val, "type1") || !strcmp(val, "vfio"))
			it->iommufd = false;
		else if (!strcmp(val, "iommufd"))
			it->iommufd = true;
		else
			bad = "type1 or iommufd";
	} else if (IS("capacity", IA_PLAN_QPAIR) || IS("depth", IA_PLAN_QPAIR)) {
		if (ia_parse_u32(val, &u) || (!u && key[0] == 'c'))
			bad = key[0] == 'c' ? "a number of request descriptors above 0" : "a number";
		if (key[0] == 'c')
			it->capacity = u;
		else
			it->depth = u;
	} else {
		return errf(err, len, "%s: unknown key '%s' (it takes %s)", kname, key,
			    keys_of[kind]);
	}
#undef IS
	if (bad)
		return errf(err, len, "%s: %s='%s' is not %s", kname, key, val, bad);
	return 0;
}

/* The size of the page (folio) each kind of memory comes in, at its largest. */
static uint64_t page_bytes(enum ia_plan_page p)
{
	return p == IA_PAGE_4K ? 4096 : p == IA_PAGE_1G ? SZ_1G : SZ_2M;
}

static const char *page_name(enum ia_plan_page p)
{
	static const char *const n[] = { "4k", "thp", "2m", "1g" };

	return n[p];
}

/* offset=, layout= and arena= of a uring item: one placement, not two. */
static int uring_layout_check(struct ia_plan_item *it, unsigned int seen, char *err,
			      size_t len)
{
	uint64_t need;

	/* arena= implies layout=arena, and contradicts layout=separate. */
	if (it->arena_size && (seen & (1u << 16)) && !it->arena)
		return errf(err, len, "uring: arena= is the length of layout=arena's mapping; "
			    "layout=separate has none");
	if (it->arena_size)
		it->arena = true;

	if (it->offset >= page_bytes(it->page))
		return errf(err, len, "uring: offset=%" PRIu64 " is beyond its page (%" PRIu64
			    " bytes for page=%s): it says where a buffer starts within a page",
			    it->offset, page_bytes(it->page), page_name(it->page));
	if (!it->count && (it->offset || it->arena))
		return errf(err, len, "uring: offset=, layout= and arena= place buffers: give "
			    "buffers= and size=");
	if (it->arena_size && it->count && it->size <= UINT64_MAX / it->count) {
		need = it->offset + it->size * it->count;
		if (it->arena_size < need)
			return errf(err, len, "uring: arena=%" PRIu64 " is smaller than its buffers "
				    "(offset %" PRIu64 " + %u x %" PRIu64 " = %" PRIu64 " bytes)",
				    it->arena_size, it->offset, it->count, it->size, need);
	}
	return 0;
}

int ia_plan_parse_line(struct ia_plan_spec *s, const char *text, unsigned int line,
		       char *err, size_t len)
{
	static const char *const kinds[] = { "process", "uring", "vfio", "iommufd", "vm",
		"qpair" };
	struct ia_plan_item it = { .line = line, .entries = 8, .count = 1, .devices = 1 };
	char buf[IA_CGROUP_MAX + 512], *save = NULL, *w, *eq, *words[64];
	unsigned int seen = 0, k, nw = 0, j;
	int kind = -1;

	if (strlen(text) >= sizeof(buf))
		return errf(err, len, "the line is too long");
	strcpy(buf, text);
	for (w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (nw == sizeof(words) / sizeof(words[0]))
			return errf(err, len, "too many words");
		words[nw++] = w;
	}
	if (!nw)
		return errf(err, len, "empty item");
	/* "uring:entries=8,buffers=2": the first pair follows the colon. */
	eq = strchr(words[0], ':');
	if (eq)
		*eq++ = 0;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(words[0], kinds[k]))
			kind = (int)k;
	if (kind < 0)
		return errf(err, len, "unknown item '%s' (process, uring, vfio, iommufd, vm, qpair)",
			    words[0]);
	if (kind == IA_PLAN_URING)
		it.count = 0;
	if (eq && *eq)
		words[0] = eq;
	for (j = eq && *eq ? 0 : 1; j < nw; j++) {
		w = words[j];
		eq = strchr(w, '=');
		if (!eq || eq == w || !eq[1])
			return errf(err, len, "%s: '%s' is not key=value", kinds[kind], w);
		*eq = 0;
		if (set_key(s, &it, kind, kinds[kind], w, eq + 1, &seen, err, len))
			return -1;
	}
	if (kind == 0)
		return 0;
	it.kind = (enum ia_plan_kind)kind;
	if ((kind == IA_PLAN_VFIO || kind == IA_PLAN_IOMMUFD || (kind == IA_PLAN_URING &&
	     it.count)) && !it.size)
		return errf(err, len, "%s: size= is required", kinds[kind]);
	if (kind == IA_PLAN_VM && !it.size)
		return errf(err, len, "vm: ram= is required");
	if (kind == IA_PLAN_QPAIR && !(seen & (1u << 12)))
		return errf(err, len, "qpair: capacity= is required");
	if (kind == IA_PLAN_QPAIR && !(seen & (1u << 13)))
		return errf(err, len, "qpair: depth= is required");
	if ((kind == IA_PLAN_VFIO || kind == IA_PLAN_IOMMUFD || kind == IA_PLAN_VM) &&
	    it.size % 4096)
		return errf(err, len, "%s: %s= must be a multiple of the page size (4096): "
			    "the kernel refuses others with EINVAL", kinds[kind],
			    kind == IA_PLAN_VM ? "ram" : "size");
	if (kind == IA_PLAN_URING && uring_layout_check(&it, seen, err, len))
		return -1;
	if (s->n >= IA_PLAN_MAX_ITEMS)
		return errf(err, len, "more than %d items", IA_PLAN_MAX_ITEMS);
	s->items[s->n++] = it;
	return 0;
}

int ia_plan_parse_file(struct ia_plan_spec *s, FILE *f, const char *name, char *err,
		       size_t len)
{
	char line[IA_CGROUP_MAX + 1024], why[256], *p, *e;
	unsigned int n = 0;

	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && !feof(f))
			return errf(err, len, "%s:%u: the line is too long", name, n);
		p = strchr(line, '#');
		if (p)
			*p = 0;
		for (p = line; isspace((unsigned char)*p); p++)
			;
		for (e = p + strlen(p); e > p && isspace((unsigned char)e[-1]); e--)
			;
		*e = 0;
		if (!*p)
			continue;
		if (ia_plan_parse_line(s, p, n, why, sizeof(why)))
			return errf(err, len, "%s:%u: %s", name, n, why);
	}
	if (ferror(f))
		return errf(err, len, "%s: read error", name);
	return 0;
}

/* --- the rules -------------------------------------------------------- */

/* Add a line, once, to @lines (@n of at most @max). */
static void add_line(char (*lines)[256], unsigned int *n, unsigned int max, const char *fmt,
		     va_list ap)
{
	unsigned int i;
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (i = 0; i < *n; i++)
		if (!strcmp(lines[i], buf))
			return;
	if (*n < max)
		strcpy(lines[(*n)++], buf);
}

/* A rule applied, in words. */
static void note(struct ia_plan_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(r->notes, &r->nnotes, IA_PLAN_MAX_NOTES, fmt, ap);
	va_end(ap);
}

/* What a figure rests on, read or taken. */
static void assume(struct ia_plan_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(r->assume, &r->nassume, IA_PLAN_MAX_ASSUME, fmt, ap);
	va_end(ap);
}

static unsigned int row(struct ia_plan_result *r, enum ia_plan_counter c, unsigned int item,
			const char *unit, uint64_t now, uint64_t limit, const char *fmt, ...)
{
	struct ia_plan_row *w;
	unsigned int i;
	va_list ap;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].counter == c && r->rows[i].item == item)
			return i;
	if (r->nrows >= IA_PLAN_MAX_ROWS)
		return IA_PLAN_MAX_ROWS - 1;
	w = &r->rows[r->nrows];
	memset(w, 0, sizeof(*w));
	w->counter = c;
	w->item = item;
	w->unit = unit;
	w->now = now;
	w->limit = limit;
	va_start(ap, fmt);
	vsnprintf(w->name, sizeof(w->name), fmt, ap);
	va_end(ap);
	return r->nrows++;
}

/* The running state of each row while the items run in order. */
struct sim {
	struct ia_plan_result *r;
	uint64_t cur[IA_PLAN_MAX_ROWS];
	unsigned int item;		/* 1-based, the one running */
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + !!(a % b);
}

/* Of @n steps of @per each on row @w, the first that goes past its limit; 0: none. */
static uint64_t first_over(const struct sim *m, unsigned int w, uint64_t per, uint64_t n)
{
	uint64_t cur = m->cur[w], lim = m->r->rows[w].limit;

	if (lim == UINT64_MAX || !per || !n)
		return 0;
	if (cur > lim)
		return 1;
	if ((lim - cur) / per >= n)
		return 0;
	return (lim - cur) / per + 1;
}

/* The workload's first refusal: the state before this item, then what of it stays. */
static void refuse(struct sim *m, unsigned int w, uint64_t step, const char *call, int err)
{
	struct ia_plan_result *r = m->r;

	if (r->refused)
		return;
	r->refused = true;
	r->item = m->item;
	r->row = w;
	r->step = step > UINT_MAX ? UINT_MAX : (unsigned int)step;
	r->call = call;
	r->err = err;
	memcpy(r->held, m->cur, sizeof(r->held));
}

/* Row @w takes @n more (the whole workload, refused or not: to say by how much). */
static void add(struct sim *m, unsigned int w, uint64_t n)
{
	m->r->rows[w].add += n;
	m->r->rows[w].add_min += n;
	m->cur[w] += n;
}

/* Row @w takes at least @lo and at most @hi; the worse case runs on. */
static void add_range(struct sim *m, unsigned int w, uint64_t lo, uint64_t hi)
{
	m->r->rows[w].add += hi;
	m->r->rows[w].add_min += lo;
	m->cur[w] += hi;
}

/*
 * The pages io_uring pins and charges for the buffers of one ring
 * (io_sqe_buffer_register -> io_buffer_account_pin): a page that is not
 * part of a larger folio is charged to every buffer that spans it, so two
 * buffers sharing a page pay for it twice; a folio (THP, multi-size THP,
 * hugetlb) is charged whole, once per ring, by the first buffer that
 * reaches it (headpage_already_acct; io_coalesce_buffer folds its pages
 * first where the kernel has it, to the same charge). Another ring pays
 * again for the same memory.
 *
 * The buffers lie in mappings: layout=separate gives each its own, offset
 * bytes in; layout=arena packs them back to back from offset in one. A
 * mapping starts aligned to the largest folio it can hold, as the kernel
 * places anonymous mappings of 2 MiB or more since 6.7 and hugetlb always.
 * Where a folio may or may not back a range (THP: the allocator may not
 * find one), both are counted: the least and the most the ring is charged,
 * and each buffer's share in the worse case, for the step that goes over.
 */
struct geom {
	uint64_t ps;		/* base page */
	uint64_t off, size, n;	/* buffer j: [off + j * size, off + (j + 1) * size) */
	uint64_t len;		/* the mapping */
	uint32_t optional;	/* folio orders that may back it (bit o: ps << o) */
	unsigned int forced;	/* hugetlb: the order that always backs it (0: none) */
};

/* The buffers meeting [a, b): j0..j1; false when none does. */
static bool buf_range(const struct geom *g, uint64_t a, uint64_t b, uint64_t *j0,
		      uint64_t *j1)
{
	if (b <= g->off || a >= g->off + g->size * g->n)
		return false;
	*j0 = a > g->off ? (a - g->off) / g->size : 0;
	*j1 = (b - 1 - g->off) / g->size;
	if (*j1 >= g->n)
		*j1 = g->n - 1;
	return true;
}

/* Base pages in [a, b): each buffer pays for each page it spans. */
static uint64_t base_pages(const struct geom *g, uint64_t a, uint64_t b, uint64_t *per)
{
	uint64_t j, j0, j1, lo, hi, n, t = 0;

	if (!buf_range(g, a, b, &j0, &j1))
		return 0;
	for (j = j0; j <= j1; j++) {
		lo = g->off + j * g->size;
		hi = lo + g->size;
		lo = lo > a ? lo : a;
		hi = hi < b ? hi : b;
		n = (hi - 1) / g->ps - lo / g->ps + 1;
		if (per)
			per[j] += n;
		t += n;
	}
	return t;
}

/*
 * The charge of the folio-aligned node [a, a + (ps << o)), the most
 * (@most) or the least of what may back it; with @per, each buffer's
 * share of that case added.
 */
static uint64_t node_pages(const struct geom *g, uint64_t a, unsigned int o, bool most,
			   uint64_t *per)
{
	uint64_t b = a + (g->ps << o), whole = 1ULL << o, split, j0, j1;
	uint32_t below = (2u << o) - 1;
	bool may;

	if (!buf_range(g, a, b, &j0, &j1))
		return 0;
	if (j0 == j1 && g->off + j0 * g->size <= a && g->off + (j0 + 1) * g->size >= b) {
		/* Inside one buffer: its pages, however they are backed. */
		if (per)
			per[j0] += whole;
		return whole;
	}
	if (g->forced == o && b <= g->len) {
		if (per)
			per[j0] += whole;
		return whole;
	}
	if (!o || (!(g->optional & below) && (!g->forced || g->forced > o)))
		return base_pages(g, a, b, per);
	may = (g->optional & (1u << o)) && b <= g->len;
	split = node_pages(g, a, o - 1, most, NULL) +
		node_pages(g, a + (g->ps << (o - 1)), o - 1, most, NULL);
	if (may && (most ? whole >= split : whole < split)) {
		if (per)
			per[j0] += whole;	/* the first buffer to reach it */
		return whole;
	}
	if (per) {
		node_pages(g, a, o - 1, most, per);
		node_pages(g, a + (g->ps << (o - 1)), o - 1, most, per);
	}
	return split;
}

/* The mapping's charge, the most or the least, each buffer's share in @per. */
static uint64_t region_pages(const struct geom *g, bool most, uint64_t *per)
{
	uint32_t all = g->optional | (g->forced ? 1u << g->forced : 0);
	unsigned int top = 0;
	uint64_t a, t = 0;

	while (all >> (top + 1))
		top++;
	if (!all)
		return base_pages(g, 0, g->len, per);
	for (a = 0; a < g->len; a += g->ps << top)
		t += node_pages(g, a, top, most, per);
	return t;
}

static unsigned int order_of(uint64_t bytes, uint64_t ps)
{
	unsigned int o = 0;

	while ((ps << (o + 1)) <= bytes)
		o++;
	return o;
}

/* "64 KiB, 2 MiB": the folio sizes of @orders. */
static const char *folio_sizes(uint32_t orders, uint64_t ps, char *buf, size_t len)
{
	unsigned int o;
	size_t n = 0;
	char b[32];

	buf[0] = 0;
	for (o = 1; o < 32; o++)
		if (orders & (1u << o))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
					      ia_human_bytes(ps << o, b, sizeof(b)));
	return buf;
}

/*
 * The mapping(s) of a uring item: @g for one (separate: the first buffer's,
 * the others alike), its length rounded to the memory's page.
 */
static void uring_geom(const struct ia_plan_item *it, const struct ia_plan_facts *f,
		       struct geom *g)
{
	uint64_t unit, need;

	memset(g, 0, sizeof(*g));
	g->ps = f->page_size;
	g->off = it->offset;
	g->size = it->size;
	g->n = it->arena ? it->count : 1;
	unit = it->page == IA_PAGE_4K ? g->ps : page_bytes(it->page);
	need = it->offset + it->size * g->n;
	if (it->arena && it->arena_size > need)
		need = it->arena_size;
	g->len = div_up(need, unit) * unit;
	if (it->page == IA_PAGE_2M || it->page == IA_PAGE_1G)
		g->forced = order_of(page_bytes(it->page), g->ps);
	else
		g->optional = (it->page == IA_PAGE_THP ? f->thp_advised : f->thp_plain) & ~1u;
}

/* What the spec and the host say of a uring item's memory, in words. */
static void uring_words(struct ia_plan_result *r, const struct ia_plan_item *it,
			const struct ia_plan_facts *f, const struct geom *g, bool bounds)
{
	char b1[32], b2[32], b3[96];

	if (it->arena)
		assume(r, "line %u: %u buffers of %" PRIu64 " bytes packed in one mapping of %s, "
		       "the first %" PRIu64 " bytes in (layout=arena)", it->line, it->count,
		       it->size, ia_human_bytes(g->len, b1, sizeof(b1)), it->offset);
	else
		assume(r, "line %u: each buffer in a mapping of its own, starting %" PRIu64
		       " bytes into its first page (layout=separate, offset=%" PRIu64 "%s)",
		       it->line, it->offset, it->offset, it->offset ? "" : ": page-aligned, the "
		       "default; fio's and most allocators' buffers are not");
	switch (it->page) {
	case IA_PAGE_2M:
	case IA_PAGE_1G:
		note(r, "hugetlb: each %s page a ring's buffers reach is charged whole, once per "
		     "ring", it->page == IA_PAGE_2M ? "2 MiB" : "1 GiB");
		return;
	case IA_PAGE_THP:
	case IA_PAGE_4K:
		break;
	}
	note(r, "io_uring: a 4 KiB page is charged to every buffer that spans it; a huge page "
	     "(a folio) whole, once per ring, by the first buffer that reaches it");
	if (!f->thp[0])
		assume(r, "THP: no /sys/kernel/mm/transparent_hugepage here: no huge pages back "
		       "anonymous memory");
	else
		assume(r, "THP: enabled=%s, defrag=%s (read now); %s memory may be backed by %s",
		       f->thp, f->thp_defrag[0] ? f->thp_defrag : "?", it->page == IA_PAGE_THP ?
		       "MADV_HUGEPAGE" : "plain", g->optional ? folio_sizes(g->optional, g->ps, b3,
		       sizeof(b3)) : "4 KiB pages only");
	if (bounds)
		note(r, "line %u: huge pages may back its %s (%s of %s): whether the allocator "
		     "finds them is not known before, so the figure has bounds, the verdict "
		     "the worse; a mapping is assumed aligned to the largest folio it holds, as "
		     "the kernel places one of 2 MiB or more (since 6.7)", it->line,
		     it->arena ? "arena" : "buffers' mappings", ia_human_bytes(g->len, b1,
		     sizeof(b1)), it->arena ? "the arena" : ia_human_bytes(it->size, b2,
		     sizeof(b2)));
}

static void run_uring(struct sim *m, const struct ia_plan_item *it, unsigned int i,
		      const struct ia_plan_facts *f, const struct ia_plan_state *st,
		      unsigned int pot)
{
	struct ia_plan_result *r = m->r;
	uint64_t ps = f->page_size, k, ring = 0, lo, hi, sum, lim;
	uint64_t one = 0, *per = &one;
	unsigned int pool;
	struct geom g;

	if (st->cap_ipc_lock)
		note(r, "io_uring: the ring's creator has CAP_IPC_LOCK: nothing is charged");
	else if (f->ring_charged == 1)
		note(r, "io_uring ring memory is charged here: the probe ring of %u entries took "
		     "%" PRIu64 " pages", it->entries, f->ring_pages[i]);
	else if (f->ring_charged == 0)
		note(r, "io_uring ring memory is not charged here (a probe ring of %u entries took "
		     "nothing)", it->entries);
	if (!st->cap_ipc_lock && f->ring_charged == 1) {
		ring = f->ring_pages[i] * ps;
		if (first_over(m, pot, ring, 1))
			refuse(m, pot, 0, "io_uring_setup", ENOMEM);
		add(m, pot, ring);
	}
	if (!it->count)
		return;
	if (it->count > URING_MAX_BUFFERS || it->size > SZ_1G) {
		/* io_uring's own bounds, not a counter's limit: no row refuses. */
		refuse(m, IA_PLAN_MAX_ROWS, 0, "io_uring_register",
		       it->size > SZ_1G ? EFAULT : EINVAL);
		note(r, "io_uring refuses a buffer over 1 GiB (EFAULT) and more than 16384 "
		     "buffers (EINVAL)");
		return;
	}
	uring_geom(it, f, &g);
	if (g.forced) {
		unsigned int h = it->page == IA_PAGE_1G;
		uint64_t hp = g.len / page_bytes(it->page), maps = it->arena ? 1 : it->count;

		pool = row(r, h ? IA_PC_HUGE_1G : IA_PC_HUGE_2M, 0, "pages",
			   0, f->huge_free[h] < 0 ? 0 : (uint64_t)f->huge_free[h],
			   "hugetlb %s pool", h ? "1 GiB" : "2 MiB");
		k = first_over(m, pool, hp, maps);
		if (k) {
			refuse(m, pool, k, "mmap(MAP_HUGETLB)", ENOMEM);
			if (r->item == m->item)
				r->held[pool] = m->cur[pool] + (k - 1) * hp;
		}
		add(m, pool, hp * maps);
	}
	if (it->arena) {
		per = calloc(it->count, sizeof(*per));
		if (!per) {
			snprintf(r->unknown, sizeof(r->unknown), "line %u: out of memory", it->line);
			return;
		}
	}
	lo = region_pages(&g, false, NULL);
	hi = region_pages(&g, true, per);
	if (!it->arena) {
		lo *= it->count;
		hi *= it->count;
	}
	uring_words(r, it, f, &g, lo != hi);
	if (lo != hi)
		r->exact = false;
	note(r, "io_uring buffers: each charged in turn to the uid's pot, refused (ENOMEM) once "
	     "pot + pages > the registering process's RLIMIT_MEMLOCK; a refused registration "
	     "undoes all its buffers");
	if (!st->cap_ipc_lock) {
		/* A refused registration leaves nothing of itself: held = before it. */
		if (!it->arena) {
			k = first_over(m, pot, *per * ps, it->count);
		} else {
			lim = r->rows[pot].limit;
			for (k = 0, sum = m->cur[pot]; k < it->count && lim != UINT64_MAX; k++) {
				sum += per[k] * ps;
				if (sum > lim)
					break;
			}
			k = lim != UINT64_MAX && k < it->count ? k + 1 : 0;
		}
		if (k)
			refuse(m, pot, k, "io_uring_register", ENOMEM);
		add_range(m, pot, lo * ps, hi * ps);
	}
	if (per != &one)
		free(per);
}

/*
 * @maps maps of @size bytes each into one new type1 container (row @ent).
 * With CAP_IPC_LOCK the pages still go to mm->locked_vm (vfio_lock_acct ->
 * __account_locked_vm with the limit bypassed): the row has no limit then.
 */
static void run_type1(struct sim *m, unsigned int ent, unsigned int mm, uint64_t maps,
		      uint64_t size)
{
	uint64_t ke = first_over(m, ent, 1, maps), km = first_over(m, mm, size, maps), k = 0;

	/* The entry is taken before any page is pinned: ENOSPC first. */
	if (ke && (!km || ke <= km)) {
		k = ke;
		refuse(m, ent, k, "VFIO_IOMMU_MAP_DMA", ENOSPC);
	} else if (km) {
		k = km;
		refuse(m, mm, k, "VFIO_IOMMU_MAP_DMA", ENOMEM);
	}
	if (k && m->r->item == m->item) {
		/* The maps before the refused one stay. */
		m->r->held[ent] = m->cur[ent] + k - 1;
		m->r->held[mm] = m->cur[mm] + (k - 1) * size;
	}
	add(m, ent, maps);
	add(m, mm, maps * size);
}

/*
 * The memory an item faults in and pins, which its memcg is charged for
 * (@per per step, @steps steps): buffers as touched (THP in whole huge
 * pages), each map's memory (at most: maps of the same memory are charged
 * once), guest RAM; hugetlb pages are the hugetlb controller's, not memcg's.
 */
static void memcg_bytes(const struct ia_plan_item *it, const struct ia_plan_facts *f,
			uint64_t *per, uint64_t *steps)
{
	struct geom g;

	*per = 0;
	*steps = 1;
	switch (it->kind) {
	case IA_PLAN_URING:
		if (!it->count || it->page == IA_PAGE_2M || it->page == IA_PAGE_1G)
			break;
		uring_geom(it, f, &g);
		*steps = it->arena ? 1 : it->count;
		*per = g.len;
		break;
	case IA_PLAN_VFIO:
	case IA_PLAN_IOMMUFD:
		*steps = it->count;
		*per = it->size;
		break;
	case IA_PLAN_VM:
		*per = it->size;
		break;
	case IA_PLAN_QPAIR:
		break;
	}
}

int ia_plan_eval(const struct ia_plan_spec *s, const struct ia_plan_facts *f,
		 const struct ia_plan_state *st, struct ia_plan_result *r, char *why, size_t len)
{
	uint64_t ps = f->page_size ? f->page_size : 4096, lim, need;
	struct sim m = { .r = r };
	unsigned int i, pot, mm, w, cg = IA_PLAN_MAX_ROWS;
	uint64_t k, per, steps;

	memset(r, 0, sizeof(*r));
	r->exact = true;
	lim = st->memlock == UINT64_MAX ? UINT64_MAX : st->memlock / ps * ps;
	for (i = 0; i < s->n; i++) {
		const struct ia_plan_item *it = &s->items[i];

		if (it->kind == IA_PLAN_URING && f->uring != 1) {
			snprintf(why, len, "line %u: io_uring is not on this kernel for this process "
				 "(%s)", it->line, f->uring_why);
			return -EOPNOTSUPP;
		}
		if ((it->kind == IA_PLAN_IOMMUFD || (it->kind == IA_PLAN_VM && it->iommufd &&
		     it->devices)) && !f->iommufd) {
			snprintf(why, len, "line %u: iommufd is not on this kernel (no /dev/iommu: "
				 "CONFIG_IOMMUFD is not set or the module is not loaded)", it->line);
			return -EOPNOTSUPP;
		}
		if ((it->kind == IA_PLAN_VFIO || (it->kind == IA_PLAN_VM && !it->iommufd &&
		     it->devices)) && !f->type1) {
			snprintf(why, len, "line %u: VFIO type1 is not on this kernel now "
				 "(vfio_iommu_type1 is not loaded: modprobe vfio_iommu_type1)",
				 it->line);
			return -EOPNOTSUPP;
		}
		if (it->kind == IA_PLAN_URING && f->ring_charged < 0 && !st->cap_ipc_lock) {
			snprintf(r->unknown, sizeof(r->unknown), "whether this kernel charges io_uring "
				 "ring memory is unknown (the probe ring failed: %s)", f->uring_why);
		}
		if (it->kind == IA_PLAN_URING && it->page != IA_PAGE_4K && it->page != IA_PAGE_THP &&
		    f->huge_free[it->page == IA_PAGE_1G] < 0) {
			snprintf(why, len, "line %u: hugetlb %s pages are not on this kernel (no "
				 "such pool)", it->line, it->page == IA_PAGE_1G ? "1 GiB" : "2 MiB");
			return -EOPNOTSUPP;
		}
	}
	pot = row(r, IA_PC_POT, 0, "bytes", st->pot, st->cap_ipc_lock ? UINT64_MAX : lim,
		  "uid %u pot", st->uid);
	mm = row(r, IA_PC_MM, 0, "bytes", st->mm_locked, st->cap_ipc_lock ? UINT64_MAX : lim,
		 "mm->locked_vm");
	m.cur[pot] = st->pot;
	m.cur[mm] = st->mm_locked;
	if (st->memcg.limited) {
		cg = row(r, IA_PC_MEMCG, 0, "bytes", st->memcg.current, st->memcg.max,
			 "memcg %s", ia_tx(st->memcg.path));
		r->rows[cg].estimate = true;
		m.cur[cg] = st->memcg.current;
		note(r, "memcg %s: what the workload faults in and pins is charged to it; past "
		     "memory.max the kernel OOM-kills (no ENOMEM); the process's own memory "
		     "besides", ia_tx(st->memcg.path));
	}
	if (st->cap_ipc_lock)
		note(r, "CAP_IPC_LOCK: io_uring and iommufd charge nothing; VFIO type1 still adds "
		     "its pages to mm->locked_vm, but checks no limit");
	assume(r, "uid %u's pot now: %" PRIu64 " bytes (%s)", st->uid, st->pot,
	       st->pot_from[0] ? st->pot_from : "given");
	if (st->memlock == UINT64_MAX)
		assume(r, "RLIMIT_MEMLOCK: unlimited (%s)", st->memlock_from[0] ?
		       st->memlock_from : "given");
	else
		assume(r, "RLIMIT_MEMLOCK: %" PRIu64 " bytes (%s)", st->memlock,
		       st->memlock_from[0] ? st->memlock_from : "given");
	for (i = 0; i < s->n; i++)
		if (s->items[i].kind == IA_PLAN_VFIO || (s->items[i].kind == IA_PLAN_VM &&
		    !s->items[i].iommufd && s->items[i].devices))
			assume(r, "dma_entry_limit: %u (vfio_iommu_type1's parameter, read now: a "
			       "container takes the value when it is opened)", f->dma_entry_limit);
	for (i = 0; i < s->n; i++) {
		const struct ia_plan_item *it = &s->items[i];
		uint64_t times, entries;

		m.item = i + 1;
		/* The memory is faulted in (and charged) before it is pinned. */
		if (cg < IA_PLAN_MAX_ROWS) {
			memcg_bytes(it, f, &per, &steps);
			k = first_over(&m, cg, per, steps);
			if (k) {
				refuse(&m, cg, k, "a page fault (memcg OOM kill)", IA_PLAN_KILLED);
				r->held[cg] = m.cur[cg] + (k - 1) * per;
			}
			add(&m, cg, per * steps);
		}
		switch (it->kind) {
		case IA_PLAN_URING:
			run_uring(&m, it, i, f, st, pot);
			break;
		case IA_PLAN_VFIO:
			w = row(r, IA_PC_ENTRIES, i + 1, "entries", 0, f->dma_entry_limit,
				"entries, container of line %u", it->line);
			r->rows[w].line = it->line;
			note(r, "VFIO type1: a MAP_DMA takes one of the container's %u entries "
			     "(ENOSPC), then adds its pages to the mapper's mm->locked_vm (ENOMEM "
			     "past RLIMIT_MEMLOCK), again for memory mapped twice", f->dma_entry_limit);
			run_type1(&m, w, mm, it->count, it->size);
			break;
		case IA_PLAN_IOMMUFD:
			note(r, "iommufd: each IOAS_MAP's pages charged once, to the uid's pot (mode "
			     "user) or the process's mm->locked_vm (mode mm), when pinned (a device "
			     "attached); no entry limit");
			if (st->cap_ipc_lock)
				break;
			w = it->mm_mode ? mm : pot;
			k = first_over(&m, w, it->size, it->count);
			if (k) {
				refuse(&m, w, k, "IOMMU_IOAS_MAP", ENOMEM);
				r->held[w] = m.cur[w] + (k - 1) * it->size;
			}
			add(&m, w, (uint64_t)it->count * it->size);
			break;
		case IA_PLAN_VM:
			if (!it->devices) {
				note(r, "a VM without passthrough devices pins nothing");
				break;
			}
			/* Without a vIOMMU one address space (one container or IOAS)
			 * holds all of guest RAM; with one, every device has its own
			 * and the guest decides what it maps: the worst case is all
			 * of it for each device. */
			times = it->viommu ? it->devices : 1;
			r->exact = false;
			if (it->iommufd) {
				note(r, "vm on iommufd: guest RAM charged to the uid's pot %s",
				     it->viommu ? "once per device's IOAS, at worst (vIOMMU)" :
				     "once (one IOAS for all devices)");
				if (st->cap_ipc_lock)
					break;
				k = first_over(&m, pot, it->size, times);
				if (k) {
					refuse(&m, pot, k, "IOMMU_IOAS_MAP", ENOMEM);
					r->held[pot] = m.cur[pot] + (k - 1) * it->size;
				}
				add(&m, pot, times * it->size);
				break;
			}
			note(r, "vm on type1: guest RAM charged to the VMM's mm->locked_vm %s",
			     it->viommu ? "once per device's container, at worst (vIOMMU)" :
			     "once (one container for all devices)");
			/* Entries: RAM below and above 4 GiB and each device's BARs
			 * without a vIOMMU (QEMU's layout); with one, the guest's own
			 * 4 KiB mappings at worst. */
			entries = it->viommu ? it->size / ps : 2 + 2ULL * it->devices;
			for (k = 0; k < times; k++) {
				w = row(r, IA_PC_ENTRIES, i + 1 + 100 * k, "entries", 0,
					f->dma_entry_limit, "entries, VM container %u of line %u",
					k + 1, it->line);
				r->rows[w].estimate = true;
				r->rows[w].line = it->line;
				if (first_over(&m, w, entries, 1))
					refuse(&m, w, 1, "VFIO_IOMMU_MAP_DMA", ENOSPC);
				add(&m, w, entries);
				if (first_over(&m, mm, it->size, 1))
					refuse(&m, mm, 1, "VFIO_IOMMU_MAP_DMA", ENOMEM);
				add(&m, mm, it->size);
			}
			r->rows[mm].estimate = true;
			break;
		case IA_PLAN_QPAIR:
			w = row(r, IA_PC_QPAIR, i + 1, "descriptors", 0, it->capacity,
				"qpair of line %u", it->line);
			r->rows[w].line = it->line;
			note(r, "a qpair refuses a request past its pool's capacity with -ENOMEM: "
			     "its own pool (io_queue_requests), not memory");
			if (it->depth > it->capacity)
				refuse(&m, w, (uint64_t)it->capacity + 1, "the qpair's request pool",
				       ENOMEM);
			if (it->depth > it->capacity && r->item == m.item)
				r->held[w] = m.cur[w] + it->capacity;
			add(&m, w, it->depth);
			break;
		}
	}
	/* The settings that make the whole of it fit. */
	need = 0;
	for (w = 0; w < r->nrows; w++) {
		struct ia_plan_row *rw = &r->rows[w];
		uint64_t after = rw->now + rw->add;

		r->exact &= !rw->estimate;
		if ((rw->counter == IA_PC_POT || rw->counter == IA_PC_MM) && !st->cap_ipc_lock &&
		    after > r->min_memlock)
			r->min_memlock = after;
		if (rw->limit == UINT64_MAX || after <= rw->limit)
			continue;
		switch (rw->counter) {
		case IA_PC_POT:
		case IA_PC_MM:
			need = after > need ? after : need;
			break;
		case IA_PC_ENTRIES:
			r->need_entries = after > r->need_entries ? after : r->need_entries;
			break;
		case IA_PC_QPAIR:
			r->need_requests = after > r->need_requests ? after : r->need_requests;
			break;
		case IA_PC_HUGE_2M:
		case IA_PC_HUGE_1G:
			r->need_huge[rw->counter == IA_PC_HUGE_1G] = after - rw->limit;
			break;
		case IA_PC_MEMCG:
			r->need_memcg = after;
			break;
		case IA_PC_N:
			break;
		}
	}
	r->need_memlock = need ? div_up(need, ps) * ps : 0;
	r->min_memlock = div_up(r->min_memlock, ps) * ps;
	/* Refused in the worse case: would it be in the better one too? */
	if (r->refused && r->row < r->nrows) {
		r->may_fit = true;
		for (w = 0; w < r->nrows; w++) {
			const struct ia_plan_row *rw = &r->rows[w];

			if (rw->limit != UINT64_MAX && rw->now + rw->add_min > rw->limit)
				r->may_fit = false;
		}
	}
	if (r->unknown[0])
		r->exact = false;
	return 0;
}
