// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl plan [--uid N|--pid N] [--file SPEC] [ITEM ...]: will a
 * workload fit, before it starts? The rules are libia's (lib/plan.c); this
 * file gathers what they are applied to:
 *  - the running kernel's facts, by feature and behaviour: whether ring
 *    memory is charged (libia's probe ring of each item's entries, made by
 *    a child without CAP_IPC_LOCK under RLIMIT_MEMLOCK 0), THP and mTHP
 *    settings, the hugetlb pools, vfio_iommu_type1's dma_entry_limit,
 *    /dev/iommu;
 *  - the uid's pot (the module's GET_UID: user_struct->locked_vm), and the
 *    launching process: the spec's `process` line, else --pid's (GET_PROC:
 *    its RLIMIT_MEMLOCK, mm->locked_vm; /proc: CapEff), else this process.
 * Then one printer for text and JSON.
 */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ctl.h"

/* A file's first line, trimmed; NULL when unreadable. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *p;

	if (!f)
		return NULL;
	p = fgets(buf, (int)len, f);
	fclose(f);
	if (!p)
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* The [bracketed] choice of a sysfs setting ("always [madvise] never"). */
static const char *bracketed(const char *path, char *buf, size_t len)
{
	char line[256], *a, *b;

	if (!read_line(path, line, sizeof(line)) || !(a = strchr(line, '[')) ||
	    !(b = strchr(a, ']')))
		return NULL;
	*b = 0;
	snprintf(buf, len, "%s", a + 1);
	return buf;
}

static int64_t hugetlb_free(const char *size)
{
	char path[128], buf[32];
	long long fr, resv;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/free_hugepages", size);
	if (!read_line(path, buf, sizeof(buf)))
		return -1;
	fr = atoll(buf);
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/resv_hugepages", size);
	resv = read_line(path, buf, sizeof(buf)) ? atoll(buf) : 0;
	return fr > resv ? fr - resv : 0;
}

/* Folios of @kb KiB under @setting: for plain memory, for MADV_HUGEPAGE's. */
static void thp_orders(struct ia_plan_facts *f, unsigned long kb, const char *setting)
{
	unsigned int o = 0;
	uint32_t bit;

	while (((uint64_t)f->page_size << (o + 1)) <= (uint64_t)kb * 1024)
		o++;
	if (!o || o > 30)
		return;
	bit = 1u << o;
	f->thp_plain &= ~bit;
	f->thp_advised &= ~bit;
	if (!strcmp(setting, "always"))
		f->thp_plain |= bit;
	if (!strcmp(setting, "always") || !strcmp(setting, "madvise"))
		f->thp_advised |= bit;
}

/* What an offline plan could not read, and took instead. */
struct unread {
	unsigned int n;
	bool pot;			/* the pot is one of them */
	char why[6][224];
};

static void unread(struct unread *u, const char *fmt, ...)
{
	va_list ap;

	if (u->n >= sizeof(u->why) / sizeof(u->why[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(u->why[u->n++], sizeof(u->why[0]), fmt, ap);
	va_end(ap);
}

/* Whether release @rel is of @series ("6.12" of "6.12.118+deb12-amd64", not "6.1"). */
static bool of_series(const char *rel, const char *series)
{
	size_t n = strlen(series);

	return !strncmp(rel, series, n) && (!rel[n] || rel[n] == '.' || rel[n] == '-' ||
					     rel[n] == '+');
}

/* Whether --kernel names this host's kernel. */
static bool same_kernel(const struct ia_ctx *ctx, const char *krel)
{
	return !ctx->kernel || of_series(krel, ctx->kernel);
}

/* Series whose ring memory was measured uncharged (Documentation/ctl.md). */
static bool ring_measured_free(const char *rel)
{
	static const char *const series[] = { "6.1", "6.12", "7.2", "7.3" };
	size_t i;

	for (i = 0; i < sizeof(series) / sizeof(series[0]); i++)
		if (of_series(rel, series[i]))
			return true;
	return false;
}

/* --offline --kernel REL other than this host's: what is taken for it. */
static void target_facts(const struct ia_ctx *ctx, const struct ia_plan_spec *s,
			 struct ia_plan_facts *f, struct unread *u)
{
	unsigned int i;
	bool uring = false, huge = false, vfio = false;

	snprintf(f->krel, sizeof(f->krel), "%s", ctx->kernel);
	for (i = 0; i < s->n; i++) {
		uring |= s->items[i].kind == IA_PLAN_URING;
		huge |= s->items[i].kind == IA_PLAN_URING && s->items[i].count &&
			(s->items[i].page == IA_PAGE_2M || s->items[i].page == IA_PAGE_1G);
		vfio |= s->items[i].kind == IA_PLAN_VFIO || s->items[i].kind == IA_PLAN_VM;
	}
	f->uring = 1;
	f->ring_charged = 0;
	if (uring && !ring_measured_free(ctx->kernel))
		unread(u, "whether %s charges io_uring ring memory: taken as not (measured not "
		       "charged on 6.1, 6.12, 7.2 and 7.3)", ctx->kernel);
	if (!ctx->thp && uring)
		unread(u, "THP settings: this host's, not %s's (--thp states them)", ctx->kernel);
	if (huge) {
		f->huge_free[0] = f->huge_free[1] = INT64_MAX;
		unread(u, "hugetlb pools of %s: taken as large enough", ctx->kernel);
	}
	f->iommufd = true;
	if (!ctx->have_del) {
		f->type1 = true;
		f->dma_entry_limit = 65535;
		if (vfio)
			unread(u, "dma_entry_limit of %s: taken as vfio_iommu_type1's default, "
			       "65535 (--dma-entry-limit states it)", ctx->kernel);
	}
}

static void gather_facts(const struct ia_ctx *ctx, const struct ia_plan_spec *s,
			 struct ia_plan_facts *f, struct unread *u)
{
	char buf[64], path[160];
	struct utsname un;
	unsigned int i;
	glob_t g;
	size_t k;
	int ret;

	memset(f, 0, sizeof(*f));
	f->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	if (!uname(&un))
		snprintf(f->krel, sizeof(f->krel), "%s", un.release);
	f->uring = 1;
	f->ring_charged = 0;
	for (i = 0; i < s->n && same_kernel(ctx, f->krel); i++) {
		if (s->items[i].kind != IA_PLAN_URING)
			continue;
		ret = ia_plan_probe_ring(s->items[i].entries, &f->ring_pages[i]);
		if (ret == -ENOSYS || ret == -EPERM || ret == -EACCES) {
			f->uring = 0;
			snprintf(f->uring_why, sizeof(f->uring_why), "io_uring_setup: %s%s",
				 ia_errno_name(-ret), ret == -ENOSYS ? "" :
				 ": see sysctl kernel.io_uring_disabled");
		} else if (ret < 0) {
			f->ring_charged = -1;
			snprintf(f->uring_why, sizeof(f->uring_why), "io_uring_setup of %u entries: "
				 "%s", s->items[i].entries, ret == -EAGAIN ? "ring memory is charged, "
				 "but this process's pot has no room for a probe of its size" :
				 ia_errno_name(-ret));
		} else if (ret == 1 && f->ring_charged >= 0) {
			f->ring_charged = 1;
		}
	}
	/* THP: the top setting, and each folio size's (multi-size THP, 6.8 on:
	 * "inherit" follows the top one; the PMD size has its own file too). */
	if (!bracketed("/sys/kernel/mm/transparent_hugepage/enabled", f->thp, sizeof(f->thp)))
		f->thp[0] = 0;
	if (!bracketed("/sys/kernel/mm/transparent_hugepage/defrag", f->thp_defrag,
		       sizeof(f->thp_defrag)))
		f->thp_defrag[0] = 0;
	if (f->thp[0]) {
		thp_orders(f, 2048, f->thp);
		if (!glob("/sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled", 0, NULL,
			  &g)) {
			for (k = 0; k < g.gl_pathc; k++) {
				unsigned long kb = strtoul(g.gl_pathv[k] + strlen(
					"/sys/kernel/mm/transparent_hugepage/hugepages-"), NULL, 10);

				if (kb > 2048 || !bracketed(g.gl_pathv[k], buf, sizeof(buf)))
					continue;
				thp_orders(f, kb, strcmp(buf, "inherit") ? buf : f->thp);
			}
			globfree(&g);
		}
	}
	if (ctx->thp) {
		snprintf(f->thp, sizeof(f->thp), "%s", ctx->thp);
		f->thp_defrag[0] = 0;
		f->thp_plain = f->thp_advised = 0;
		thp_orders(f, 2048, ctx->thp);
	}
	f->huge_free[0] = hugetlb_free("2048kB");
	f->huge_free[1] = hugetlb_free("1048576kB");
	snprintf(path, sizeof(path), "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit");
	if (read_line(path, buf, sizeof(buf))) {
		f->type1 = true;
		f->dma_entry_limit = (uint32_t)strtoul(buf, NULL, 10);
	}
	f->iommufd = !access("/dev/iommu", F_OK);
	if (!same_kernel(ctx, f->krel))
		target_facts(ctx, s, f, u);
	if (ctx->have_del) {
		f->type1 = true;
		f->dma_entry_limit = ctx->dma_entry_limit;
	}
}

static int got_uid(const struct ia_uid *u, void *arg)
{
	*(uint64_t *)arg = u->locked_bytes;
	return 0;
}

static int got_proc(const struct ia_proc *p, void *arg)
{
	*(struct ia_proc *)arg = *p;
	return 0;
}

/* Whether @pid (0: this process) has CAP_IPC_LOCK in its effective set. */
static bool has_ipc_lock(uint32_t pid)
{
	char path[64], line[256];
	unsigned long long eff = 0;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/status", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << CAP_IPC_LOCK);
}

static int gather_state(struct ia_ctx *ctx, const struct ia_plan_spec *s,
			struct ia_plan_state *st, struct unread *u)
{
	struct ia_proc p = { 0 };
	const char *cgroup;
	char cgbuf[IA_CGROUP_MAX];
	struct rlimit rl;
	int ret;

	memset(st, 0, sizeof(*st));
	st->uid = ctx->have_key ? ctx->key : getuid();
	if (ctx->have_pid) {
		ret = ia_get_procs(&ctx->cl, &ctx->pid, NULL, got_proc, &p);
		if (ret)
			return ia_ctl_error(ctx, "plan: the launching process", ret);
		st->uid = p.uid;
		st->memlock = p.memlock_soft;
		st->mm_locked = p.locked_vm;
		st->cap_ipc_lock = has_ipc_lock(p.pid);
		snprintf(st->memlock_from, sizeof(st->memlock_from), "pid %u's", p.pid);
		snprintf(st->who, sizeof(st->who), "pid %u (%s)", p.pid, ia_tx(p.comm));
	} else {
		if (getrlimit(RLIMIT_MEMLOCK, &rl))
			return ia_ctl_error(ctx, "plan: getrlimit", -errno);
		st->memlock = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
		/* Another uid's process is not this one: no capability assumed. */
		st->cap_ipc_lock = st->uid == getuid() ? has_ipc_lock(0) : st->uid == 0;
		snprintf(st->memlock_from, sizeof(st->memlock_from), "this shell's");
		snprintf(st->who, sizeof(st->who), "a new process of uid %u", st->uid);
	}
	if (s->has_memlock) {
		st->memlock = s->memlock;
		snprintf(st->memlock_from, sizeof(st->memlock_from), "the spec's process memlock=");
	}
	if (s->cap_ipc_lock >= 0)
		st->cap_ipc_lock = s->cap_ipc_lock;
	/* Where it will run: the spec's cgroup, --pid's, else this process's. */
	/* --pid's path as the module gave it; cut, by its id (a cut one may name an ancestor). */
	cgroup = s->cgroup[0] ? s->cgroup :
		 ctx->have_pid && p.cgroup[0] && !p.cgroup_truncated ? p.cgroup :
		 ctx->have_pid && p.cgroup_id ? ia_cgroup_path(p.cgroup_id, cgbuf, sizeof(cgbuf)) :
		 ia_self_cgroup(cgbuf, sizeof(cgbuf));
	if (cgroup && ia_memcg_read(cgroup, &st->memcg) && s->cgroup[0]) {
		fprintf(stderr, "iommu-accountctl: plan: no cgroup %s under /sys/fs/cgroup\n",
			ia_tx(cgroup));
		return IA_EXIT_NOENT;
	}
	snprintf(st->cgroup, sizeof(st->cgroup), "%s", cgroup ? cgroup : "");
	if (ctx->offline) {
		st->pot = ctx->pot;
		snprintf(st->pot_from, sizeof(st->pot_from), ctx->have_pot ? "--pot" :
			 "not read: no module; taken as 0");
		if (!ctx->have_pot) {
			u->pot = true;
			unread(u, "uid %u's pot: without the module, taken as 0 (--pot states it)",
			       st->uid);
		}
		return 0;
	}
	ret = ia_get_uids(&ctx->cl, &st->uid, got_uid, &st->pot);
	snprintf(st->pot_from, sizeof(st->pot_from), "the module's reading of user_struct->"
		 "locked_vm");
	if (ret == -ENOENT) {
		st->pot = 0;	/* no user_struct: nothing charged */
		snprintf(st->pot_from, sizeof(st->pot_from), "the module: the uid has no "
			 "user_struct, nothing charged");
	} else if (ret)
		return ia_ctl_error(ctx, "plan: the uid's pot", ret);
	return 0;
}

static const char *counter_name(enum ia_plan_counter c)
{
	static const char *const n[] = { "uid-pot", "mm-locked-vm", "dma-entries",
		"hugetlb-2m", "hugetlb-1g", "qpair-requests", "memcg" };

	return c < IA_PC_N ? n[c] : "?";
}

static const char *amount(const char *unit, uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		return "none";
	if (!strcmp(unit, "bytes"))
		return ia_human_bytes(v, buf, len);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static void print_json(struct ia_ctx *ctx, const struct ia_plan_spec *s,
		       const struct ia_plan_facts *f, const struct ia_plan_state *st,
		       const struct ia_plan_result *r, const struct unread *u)
{
	struct ia_json *j = &ctx->j;
	unsigned int i;

	ia_json_obj_open(j, NULL);
	ia_json_str(j, "kernel", f->krel);
	ia_json_u64(j, "uid", st->uid);
	ia_json_obj_open(j, "process");
	ia_json_str(j, "who", st->who);
	ia_json_u64_or_null(j, "memlock", st->memlock);
	ia_json_str(j, "memlock_from", st->memlock_from);
	ia_json_bool(j, "cap_ipc_lock", st->cap_ipc_lock);
	ia_json_u64(j, "mm_locked_vm", st->mm_locked);
	ia_json_str(j, "cgroup", st->cgroup);
	ia_json_obj_close(j);
	ia_json_bool(j, "offline", ctx->offline);
	ia_json_arr_open(j, "unread");
	for (i = 0; i < u->n; i++)
		ia_json_str(j, NULL, u->why[i]);
	ia_json_arr_close(j);
	ia_json_bool(j, "fits", !r->refused && !r->unknown[0]);
	ia_json_bool(j, "may_fit", r->may_fit);
	ia_json_bool(j, "exact", r->exact);
	ia_json_str_or_null(j, "unknown", r->unknown);
	ia_json_arr_open(j, "counters");
	for (i = 0; i < r->nrows; i++) {
		const struct ia_plan_row *w = &r->rows[i];
		uint64_t after = w->now + w->add;

		ia_json_obj_open(j, NULL);
		ia_json_str(j, "counter", counter_name(w->counter));
		ia_json_str(j, "name", w->name);
		ia_json_str(j, "unit", w->unit);
		ia_json_u64(j, "now", w->now);
		ia_json_u64(j, "add", w->add);
		ia_json_u64(j, "after", after);
		ia_json_u64(j, "add_min", w->add_min);
		ia_json_u64(j, "after_min", w->now + w->add_min);
		ia_json_u64_or_null(j, "limit", w->limit);
		ia_json_u64(j, "over", w->limit != UINT64_MAX && after > w->limit ?
			    after - w->limit : 0);
		ia_json_u64(j, "line", w->line);
		ia_json_bool(j, "estimate", w->estimate);
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	if (r->refused) {
		const struct ia_plan_item *it = &s->items[r->item - 1];

		ia_json_obj_open(j, "first_refusal");
		ia_json_u64(j, "item", r->item);
		ia_json_u64(j, "line", it->line);
		ia_json_str(j, "kind", ia_plan_kind_name(it->kind));
		ia_json_u64(j, "step", r->step);
		ia_json_str(j, "call", r->call);
		ia_json_str(j, "errno", ia_plan_err_name(r->err));
		if (r->row < r->nrows) {
			ia_json_str(j, "counter", counter_name(r->rows[r->row].counter));
			ia_json_str(j, "name", r->rows[r->row].name);
		} else {
			ia_json_null(j, "counter");	/* io_uring's own bounds */
			ia_json_null(j, "name");
		}
		ia_json_arr_open(j, "held");
		for (i = 0; i < r->nrows; i++)
			ia_json_u64(j, NULL, r->held[i]);
		ia_json_arr_close(j);
		ia_json_obj_close(j);
	} else {
		ia_json_null(j, "first_refusal");
	}
	ia_json_obj_open(j, "fixes");
	ia_json_u64(j, "memlock", r->need_memlock);
	ia_json_u64(j, "min_memlock", r->min_memlock);
	ia_json_u64(j, "dma_entry_limit", r->need_entries);
	ia_json_u64(j, "io_queue_requests", r->need_requests);
	ia_json_u64(j, "hugepages_2m", r->need_huge[0]);
	ia_json_u64(j, "hugepages_1g", r->need_huge[1]);
	ia_json_u64(j, "memcg_max", r->need_memcg);
	ia_json_obj_close(j);
	ia_json_arr_open(j, "rules");
	for (i = 0; i < r->nnotes; i++)
		ia_json_str(j, NULL, r->notes[i]);
	ia_json_arr_close(j);
	ia_json_arr_open(j, "assumptions");
	for (i = 0; i < r->nassume; i++)
		ia_json_str(j, NULL, r->assume[i]);
	ia_json_arr_close(j);
	ia_json_obj_close(j);
	printf("\n");
}

static void print_text(const struct ia_plan_spec *s, const struct ia_plan_facts *f,
		       const struct ia_plan_state *st, const struct ia_plan_result *r,
		       const struct unread *u)
{
	char b1[32], b2[32], b3[32], b4[32], b5[40];
	unsigned int i;

	if (u->n)
		printf("offline: %u figure%s not read (see \"assumed\" below): the verdict rests "
		       "on them\n", u->n, u->n == 1 ? "" : "s");

	printf("plan for uid %u on %s: %s, RLIMIT_MEMLOCK %s (%s)%s\n\n", st->uid, f->krel,
	       st->who, ia_human_bytes(st->memlock, b1, sizeof(b1)), st->memlock_from,
	       st->cap_ipc_lock ? ", with CAP_IPC_LOCK" : "");
	printf("%-36s %12s %12s %12s %12s  %s\n", "COUNTER", "NOW", "WORKLOAD", "AFTER", "LIMIT",
	       "");
	for (i = 0; i < r->nrows; i++) {
		const struct ia_plan_row *w = &r->rows[i];
		uint64_t after = w->now + w->add;

		if (!w->add && !w->now && w->counter == IA_PC_MM)
			continue;
		if (w->limit != UINT64_MAX && after > w->limit)
			snprintf(b5, sizeof(b5), "over by %s",
				 amount(w->unit, after - w->limit, b4, sizeof(b4)));
		else
			snprintf(b5, sizeof(b5), "fits");
		printf("%-36s %12s %12s %12s %12s  %s%s", ia_sx(w->name),
		       amount(w->unit, w->now, b1, sizeof(b1)),
		       amount(w->unit, w->add, b2, sizeof(b2)),
		       amount(w->unit, after, b3, sizeof(b3)),
		       amount(w->unit, w->limit, b4, sizeof(b4)), b5,
		       w->estimate ? " (estimate)" : "");
		if (w->add_min != w->add)
			printf(" (%s at least: without huge pages%s)", amount(w->unit, w->now +
			       w->add_min, b1, sizeof(b1)), w->limit != UINT64_MAX &&
			       w->now + w->add_min <= w->limit && after > w->limit ? ", fits" : "");
		printf("\n");
	}
	printf("\n");
	if (r->unknown[0]) {
		printf("verdict: unknown: %s\n", r->unknown);
	} else if (!r->refused) {
		printf("verdict: fits%s\n", r->exact ? "" : " (see the estimates and rules below)");
	} else {
		const struct ia_plan_item *it = &s->items[r->item - 1];
		const struct ia_plan_row *w = r->row < r->nrows ? &r->rows[r->row] : NULL;

		if (r->may_fit)
			printf("verdict: may be refused: with huge pages, as below; without them it "
			       "fits. First: line %u (%s)", it->line, ia_plan_kind_name(it->kind));
		else
			printf("verdict: refused. First: line %u (%s)", it->line,
			       ia_plan_kind_name(it->kind));
		if (r->step)
			printf(", %s %u of it", it->kind == IA_PLAN_URING ? "buffer" :
			       it->kind == IA_PLAN_QPAIR ? "request" : "map", r->step);
		printf(": %s fails with %s, ", r->call, ia_plan_err_name(r->err));
		if (w)
			printf("by the %s (%s of %s held then)\n", ia_sx(w->name), amount(w->unit,
			       r->held[r->row], b1, sizeof(b1)), amount(w->unit, w->limit, b2,
			       sizeof(b2)));
		else
			printf("by io_uring's own bounds (a buffer of at most 1 GiB, at most "
			       "16384 buffers), not a limit\n");
	}
	if (r->need_memlock || r->need_entries || r->need_requests || r->need_huge[0] ||
	    r->need_huge[1] || r->need_memcg)
		printf("to make it fit:\n");
	if (r->need_memlock) {
		printf("  RLIMIT_MEMLOCK >= %s (%" PRIu64 " bytes): LimitMEMLOCK=%" PRIu64
		       " (systemd), docker run --ulimit memlock=%" PRIu64 ":%" PRIu64
		       ", ulimit -l %" PRIu64 "; or CAP_IPC_LOCK (no limit checked)\n",
		       ia_human_bytes(r->need_memlock, b1, sizeof(b1)), r->need_memlock,
		       r->need_memlock, r->need_memlock, r->need_memlock,
		       (r->need_memlock + 1023) / 1024);
		if (r->rows[0].now)
			printf("  or release what uid %u holds already (%s: iommu-accountctl procs "
			       "--uid %u)\n", st->uid, ia_human_bytes(r->rows[0].now, b1,
			       sizeof(b1)), st->uid);
	}
	if (r->need_entries)
		printf("  dma_entry_limit >= %" PRIu64 ": options vfio_iommu_type1 "
		       "dma_entry_limit=%" PRIu64 " (read when a container is opened), or "
		       "fewer, larger mappings\n", r->need_entries, r->need_entries);
	if (r->need_requests)
		printf("  io_queue_requests >= %" PRIu64 " (spdk_nvme_io_qpair_opts), or queue "
		       "requests refused with -ENOMEM until completions free descriptors\n",
		       r->need_requests);
	for (i = 0; i < 2; i++)
		if (r->need_huge[i])
			printf("  %" PRIu64 " more hugetlb %s pages: %s\n", r->need_huge[i],
			       i ? "1 GiB" : "2 MiB", i ? "hugepagesz=1G hugepages=N on the "
			       "kernel command line" : "sysctl vm.nr_hugepages (add them)");
	if (r->need_memcg)
		printf("  memory.max >= %s for %s (MemoryMax= in systemd, docker run --memory): "
		       "past it the kernel OOM-kills while pinning\n",
		       ia_human_bytes(r->need_memcg, b1, sizeof(b1)), ia_tx(st->memcg.path));
	printf("rules applied:\n");
	for (i = 0; i < r->nnotes; i++)
		printf("  - %s\n", ia_sx(r->notes[i]));
	printf("assumed:\n");
	for (i = 0; i < r->nassume; i++)
		printf("  - %s\n", ia_sx(r->assume[i]));
}

/* The workload from --file and the arguments, before the module is contacted. */
static int plan_parse(struct ia_ctx *ctx)
{
	struct ia_plan_spec *s = calloc(1, sizeof(*s));
	char err[512];
	int i, ret;
	FILE *fp;

	if (!s)
		return IA_EXIT_FAIL;
	ctx->plan = s;
	s->cap_ipc_lock = -1;
	if (ctx->file) {
		fp = strcmp(ctx->file, "-") ? fopen(ctx->file, "r") : stdin;
		if (!fp) {
			fprintf(stderr, "iommu-accountctl: plan: %s: %s\n", ctx->file,
				strerror(errno));
			return IA_EXIT_NOENT;
		}
		ret = ia_plan_parse_file(s, fp, ctx->file, err, sizeof(err));
		if (fp != stdin)
			fclose(fp);
		if (ret) {
			fprintf(stderr, "iommu-accountctl: plan: %s\n", err);
			return IA_EXIT_USAGE;
		}
	}
	for (i = 0; i < ctx->nargs; i++)
		if (ia_plan_parse_line(s, ctx->args[i], (unsigned int)i + 1, err, sizeof(err))) {
			fprintf(stderr, "iommu-accountctl: plan: argument %d: %s\n", i + 1, err);
			return IA_EXIT_USAGE;
		}
	if (!s->n) {
		fprintf(stderr, "iommu-accountctl: plan: no workload: give items (uring ..., "
			"vfio ..., qpair ...) or --file SPEC\n");
		return IA_EXIT_USAGE;
	}
	return 0;
}

/*
 * --limit-for: the least RLIMIT_MEMLOCK the workload fits under, one number
 * on stdout. 0: it fits under that limit, 5: a rule this kernel leaves
 * unknown (the number without it), 8: another limit refuses it
 * whatever RLIMIT_MEMLOCK is (said on stderr), 9: the number rests on
 * what could not be read.
 */
static int print_limit_for(const struct ia_plan_result *r, const struct unread *u)
{
	unsigned int i;

	printf("%" PRIu64 "\n", r->min_memlock);
	if (r->unknown[0]) {
		fprintf(stderr, "iommu-accountctl: plan: unknown: %s\n", r->unknown);
		return IA_EXIT_UNSUPP;
	}
	for (i = 0; i < r->nrows; i++) {
		const struct ia_plan_row *w = &r->rows[i];

		if (w->counter != IA_PC_POT && w->counter != IA_PC_MM && w->limit != UINT64_MAX &&
		    w->now + w->add > w->limit) {
			fprintf(stderr, "iommu-accountctl: plan: refused whatever RLIMIT_MEMLOCK is: "
				"by the %s\n", w->name);
			return IA_EXIT_WONTFIT;
		}
	}
	if (r->refused && r->row >= r->nrows) {
		fprintf(stderr, "iommu-accountctl: plan: refused whatever RLIMIT_MEMLOCK is: by "
			"io_uring's own bounds\n");
		return IA_EXIT_WONTFIT;
	}
	return u->n ? IA_EXIT_UNREAD : IA_EXIT_OK;
}

static int cmd_plan(struct ia_ctx *ctx)
{
	const struct ia_plan_spec *s = ctx->plan;
	struct ia_plan_result *r = calloc(1, sizeof(*r));
	struct unread u = { 0 };
	struct ia_plan_facts f;
	struct ia_plan_state st;
	char why[512];
	unsigned int i;
	int ret;

	if (!r)
		return IA_EXIT_FAIL;
	gather_facts(ctx, s, &f, &u);
	ret = gather_state(ctx, s, &st, &u);
	if (ret)
		goto out;
	if (ia_plan_eval(s, &f, &st, r, why, sizeof(why))) {
		fprintf(stderr, "iommu-accountctl: plan: %s\n", why);
		ret = IA_EXIT_UNSUPP;
		goto out;
	}
	for (i = 0; i < u.n && r->nassume < IA_PLAN_MAX_ASSUME; i++)
		snprintf(r->assume[r->nassume++], sizeof(r->assume[0]), "not read: %s", u.why[i]);
	if (u.n)
		r->exact = false;
	if (ctx->limit_for) {
		ret = print_limit_for(r, &u);
		goto out;
	}
	if (ctx->json)
		print_json(ctx, s, &f, &st, r, &u);
	else
		print_text(s, &f, &st, r, &u);
	ret = r->unknown[0] ? IA_EXIT_UNSUPP : r->refused ? IA_EXIT_WONTFIT : IA_EXIT_OK;
	/* A refusal with the pot taken as 0 stands (more pot refuses too);
	 * anything else read as nothing leaves the verdict in doubt. */
	if (u.n && ret != IA_EXIT_UNSUPP && !(ret == IA_EXIT_WONTFIT && u.n == 1 && u.pot))
		ret = IA_EXIT_UNREAD;
out:
	free(r);
	return ret;
}

/* The settings --offline states, the process --pid names; then the workload. */
static int plan_check(struct ia_ctx *ctx)
{
	if ((ctx->have_pot || ctx->have_del || ctx->kernel || ctx->thp) && !ctx->offline)
		return ia_ctl_usage_error("%s", "--pot, --dma-entry-limit, --kernel and --thp "
					  "state what plan --offline cannot read: give --offline");
	if (ctx->offline && ctx->have_pid)
		return ia_ctl_usage_error("%s", "--pid is read through the module; offline, say "
					  "the process with a spec line (process memlock=... "
					  "cap_ipc_lock=...)");
	return plan_parse(ctx);
}

static void plan_done(struct ia_ctx *ctx)
{
	free(ctx->plan);
	ctx->plan = NULL;
}

const struct ia_ctl_cmd ia_cmd_plan = {
	.name = "plan",
	.fn = cmd_plan,
	.opts = IA_CTL_OPTS(&ia_opt_uid, &ia_opt_pid, &ia_opt_file, &ia_opt_offline, &ia_opt_pot,
			    &ia_opt_dma_entry_limit, &ia_opt_kernel, &ia_opt_thp,
			    &ia_opt_limit_for),
	.max_args = IA_PLAN_MAX_ITEMS,
	.varargs = true,
	.check = plan_check,
	.done = plan_done,
	.synopsis = "[--uid N|--pid N] [--file SPEC] [ITEM ...] [--offline [--pot B] "
		"[--dma-entry-limit N] [--kernel REL] [--thp MODE]] [--limit-for]",
	.help = "will a workload fit: each counter after it, the first refusal, the settings that "
		"fit",
	.example = "iommu-accountctl plan --uid 1000 'uring buffers=64 size=1M' 'process memlock=8M'\n"
		"iommu-accountctl plan --offline --pot 0 'vfio maps=65536 size=2M'\n"
		"iommu-accountctl plan --limit-for --file job.spec",
};
