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
	[IA_PLAN_URING] = "entries, buffers, size, page",
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
		"depth", "cgroup" };
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

static void note(struct ia_plan_result *r, const char *fmt, ...)
{
	va_list ap;
	unsigned int i;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < r->nnotes; i++)
		if (!strcmp(r->notes[i], buf))
			return;
	if (r->nnotes < IA_PLAN_MAX_NOTES)
		strcpy(r->notes[r->nnotes++], buf);
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
	m->cur[w] += n;
}

/* The pages io_uring charges for one buffer of @it (io_buffer_account_pin). */
static uint64_t uring_buffer_pages(const struct ia_plan_item *it, const struct ia_plan_facts *f,
				   struct ia_plan_result *r)
{
	uint64_t ps = f->page_size, huge;

	switch (it->page) {
	case IA_PAGE_THP:
		if (!strcmp(f->thp, "never") || !f->thp[0]) {
			note(r, "THP is %s here: page=thp buffers are charged in %" PRIu64
			     "-byte pages", f->thp[0] ? "off (enabled=never)" : "unknown", ps);
			return div_up(it->size, ps);
		}
		note(r, "THP (enabled=%s): buffers in 2 MiB-aligned THP memory: each huge page a "
		     "buffer touches is charged whole (where THP allocation succeeds)", f->thp);
		r->exact = false;
		return div_up(it->size, SZ_2M) * (SZ_2M / ps);
	case IA_PAGE_2M:
	case IA_PAGE_1G:
		huge = it->page == IA_PAGE_2M ? SZ_2M : SZ_1G;
		note(r, "hugetlb: each %s page a buffer touches is charged whole", it->page ==
		     IA_PAGE_2M ? "2 MiB" : "1 GiB");
		return div_up(it->size, huge) * (huge / ps);
	case IA_PAGE_4K:
		break;
	}
	if (f->mthp) {
		note(r, "multi-size THP is enabled: 4k buffers may be backed by larger folios, "
		     "each charged whole (the figure is a floor)");
		r->exact = false;
	}
	return div_up(it->size, ps);
}

static void run_uring(struct sim *m, const struct ia_plan_item *it, unsigned int i,
		      const struct ia_plan_facts *f, const struct ia_plan_state *st,
		      unsigned int pot)
{
	struct ia_plan_result *r = m->r;
	uint64_t ps = f->page_size, pages, k, ring = 0;
	unsigned int pool;

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
	if (it->page == IA_PAGE_2M || it->page == IA_PAGE_1G) {
		unsigned int h = it->page == IA_PAGE_1G;
		uint64_t hp = div_up(it->size, h ? SZ_1G : SZ_2M);

		pool = row(r, h ? IA_PC_HUGE_1G : IA_PC_HUGE_2M, 0, "pages",
			   0, f->huge_free[h] < 0 ? 0 : (uint64_t)f->huge_free[h],
			   "hugetlb %s pool", h ? "1 GiB" : "2 MiB");
		k = first_over(m, pool, hp, it->count);
		if (k) {
			refuse(m, pool, k, "mmap(MAP_HUGETLB)", ENOMEM);
			if (r->item == m->item)
				r->held[pool] = m->cur[pool] + (k - 1) * hp;
		}
		add(m, pool, hp * it->count);
	}
	pages = uring_buffer_pages(it, f, r);
	note(r, "io_uring buffers: each charged in turn to the uid's pot, refused (ENOMEM) once "
	     "pot + pages > the registering process's RLIMIT_MEMLOCK; a refused registration "
	     "undoes all its buffers");
	if (st->cap_ipc_lock)
		return;
	/* A refused registration leaves nothing of itself: held = before it. */
	k = first_over(m, pot, pages * ps, it->count);
	if (k)
		refuse(m, pot, k, "io_uring_register", ENOMEM);
	add(m, pot, pages * ps * it->count);
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
static void memcg_bytes(const struct ia_plan_item *it, uint64_t ps, uint64_t *per,
			uint64_t *steps)
{
	*per = 0;
	*steps = 1;
	switch (it->kind) {
	case IA_PLAN_URING:
		*steps = it->count;
		if (it->page == IA_PAGE_4K)
			*per = div_up(it->size, ps) * ps;
		else if (it->page == IA_PAGE_THP)
			*per = div_up(it->size, SZ_2M) * SZ_2M;
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
			 "memcg %s", st->memcg.path);
		r->rows[cg].estimate = true;
		m.cur[cg] = st->memcg.current;
		note(r, "memcg %s: what the workload faults in and pins is charged to it; past "
		     "memory.max the kernel OOM-kills (no ENOMEM); the process's own memory "
		     "besides", st->memcg.path);
	}
	if (st->cap_ipc_lock)
		note(r, "CAP_IPC_LOCK: io_uring and iommufd charge nothing; VFIO type1 still adds "
		     "its pages to mm->locked_vm, but checks no limit");
	for (i = 0; i < s->n; i++) {
		const struct ia_plan_item *it = &s->items[i];
		uint64_t times, entries;

		m.item = i + 1;
		/* The memory is faulted in (and charged) before it is pinned. */
		if (cg < IA_PLAN_MAX_ROWS) {
			memcg_bytes(it, ps, &per, &steps);
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
	if (r->unknown[0])
		r->exact = false;
	return 0;
}
