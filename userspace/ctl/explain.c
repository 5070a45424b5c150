// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl explain uid N: why uid N's locked-memory pot refuses (or
 * is about to), in plain words: who shares the pot (processes, cgroups), the
 * top holders, what waits for deferred release, the kernel's record of its
 * last refusal (who, in which cgroup: the path it took then), the limit each
 * process has and which ancestor set it (walking /proc up the parent chain to
 * the first process whose RLIMIT_MEMLOCK differs), and only the fixes that
 * apply.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

#define MAXP 4096

struct procs {
	unsigned int n;
	struct ia_proc p[MAXP];
};

static int collect(const struct ia_proc *p, void *arg)
{
	struct procs *ps = arg;

	if (ps->n < MAXP)
		ps->p[ps->n++] = *p;
	return 0;
}

static int got_uid(const struct ia_uid *u, void *arg)
{
	*(struct ia_uid *)arg = *u;
	return 0;
}

static int got_pot(const struct ia_quota *q, void *arg)
{
	*(struct ia_failure *)arg = q->last_failure;
	return 0;
}

/* The refused process's cgroup: the kernel's path at the refusal, else the id's now. */
static const char *refused_cgroup(const struct ia_failure *f, char *buf, size_t len)
{
	if (f->cgroup[0])
		return f->cgroup;
	if (!f->cgroup_id)
		return "an unknown cgroup";
	if (!ia_cgroup_path(f->cgroup_id, buf, len))
		snprintf(buf, len, "cgroup %" PRIu64 " (gone)", f->cgroup_id);
	return buf;
}

/*
 * The cgroup's memory limit and the kernel's memory.events: pinning past
 * memory.max is not an ENOMEM of any locked-memory limit but an OOM kill.
 */
static void memcg_json(struct ia_json *j, const char *path)
{
	struct ia_memcg m;

	if (path[0] != '/' || ia_memcg_read(path, &m) || (!m.limited && !m.has_events)) {
		ia_json_null(j, "memcg");
		return;
	}
	ia_json_obj_open(j, "memcg");
	if (m.limited) {
		ia_json_str(j, "limited_by", m.path);
		ia_json_u64(j, "max", m.max);
		ia_json_u64(j, "current", m.current);
	}
	ia_json_u64(j, "events_max", m.ev_max);
	ia_json_u64(j, "oom_kill", m.ev_oom_kill);
	ia_json_obj_close(j);
}

static void memcg_text(const char *path)
{
	char b1[32], b2[32];
	struct ia_memcg m;

	if (path[0] != '/' || ia_memcg_read(path, &m))
		return;
	if (m.limited)
		printf("    memcg: %s of memory.max %s (%s)", ia_human_bytes(m.current, b1, sizeof(b1)),
		       ia_human_bytes(m.max, b2, sizeof(b2)), m.path);
	if (m.ev_max || m.ev_oom_kill)
		printf("%s reached memory.max %" PRIu64 " times, %" PRIu64 " OOM kill%s "
		       "(memory.events): a process pinning there is killed, not refused",
		       m.limited ? ";" : "    memcg:", m.ev_max, m.ev_oom_kill,
		       m.ev_oom_kill == 1 ? "" : "s");
	if (m.limited || m.ev_max || m.ev_oom_kill)
		printf("\n");
}

static uint64_t held(const struct ia_proc *p)
{
	return ia_consumers_total(p->consumer);
}

int ia_ctl_read_pinfo(int pid, struct pinfo *pi)
{
	char path[64], line[512], *p;
	FILE *f;

	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* pid (comm) state ppid ...: comm may hold spaces and parentheses. */
	p = strrchr(line, ')');
	if (!p || sscanf(p + 2, "%*c %d", &pi->ppid) != 1)
		return -EIO;
	*p = 0;
	snprintf(pi->comm, sizeof(pi->comm), "%s", strchr(line, '(') + 1);
	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	pi->memlock = 0;
	while (fgets(line, sizeof(line), f)) {
		char soft[32];

		if (strncmp(line, "Max locked memory", 17))
			continue;
		if (sscanf(line + 17, "%31s", soft) == 1)
			pi->memlock = strcmp(soft, "unlimited") ? strtoull(soft, NULL, 10) :
								    UINT64_MAX;
	}
	fclose(f);
	return 0;
}

/*
 * Where @pid's limit comes from: the highest ancestor in its chain that has
 * the same limit (the one whose parent's differs, or the top). @parent gets
 * that ancestor's parent (pid 0 when there is none).
 */
static int limit_origin(int pid, struct pinfo *origin, struct pinfo *parent)
{
	struct pinfo cur, up;
	int hops;

	if (ia_ctl_read_pinfo(pid, &cur))
		return -1;
	memset(parent, 0, sizeof(*parent));
	for (hops = 0; hops < 256; hops++) {
		if (cur.ppid <= 0 || ia_ctl_read_pinfo(cur.ppid, &up))
			break;
		if (up.memlock != cur.memlock) {
			*parent = up;
			break;
		}
		cur = up;
	}
	*origin = cur;
	return 0;
}

static int by_held(const void *a, const void *b)
{
	uint64_t x = held(a), y = held(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

struct cgroup_sum {
	uint64_t id;
	const char *path;	/* the kernel's, from one of its processes */
	bool cut;		/* ... which it cut (longer than PATH_MAX - 1) */
	unsigned int procs;
	uint64_t bytes;
};

static const char *cgpath(const struct cgroup_sum *cg, char *buf, size_t len)
{
	if (cg->path && *cg->path)
		return cg->path;
	if (!ia_cgroup_path(cg->id, buf, len))
		snprintf(buf, len, "cgroup %" PRIu64, cg->id);
	return buf;
}

/* cgpath() copied into @buf, for the identity resolver. */
static const char *path_of(const struct cgroup_sum *cg, char *buf, size_t len)
{
	const char *p = cgpath(cg, buf, len);

	if (p != buf)
		snprintf(buf, len, "%s", p);
	return buf;
}

int cmd_explain(struct ia_ctx *ctx)
{
	static struct procs ps;
	struct ia_json *j = &ctx->j;
	struct cgroup_sum cg[64];
	uint64_t limits[16], total_held = 0;
	unsigned int ncg = 0, nlim = 0, i, k, c;
	uint32_t kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
	struct ia_failure lf = { 0 };
	struct ia_uid u = { 0 };
	char b1[32], b2[32], path[IA_CGROUP_MAX], idtext[IA_IDENTITY_TEXT];
	struct ia_identity ident;
	bool buffers = false, shared, tight, lf_elsewhere = false;
	uint32_t uid = ctx->key;
	int err, lf_err;

	if (strcmp(ctx->args[0], "uid"))
		return ia_ctl_explain_object(ctx, ctx->args[0], ctx->key);
	err = ia_get_uids(&ctx->cl, &uid, got_uid, &u);
	if (err == -ENOENT) {
		if (ctx->json)
			printf("{\"uid\":%u,\"locked_bytes\":0,\"processes\":0}\n", uid);
		else
			printf("uid %u has no process and no locked-memory pot: nothing to explain\n",
			       uid);
		return IA_EXIT_OK;
	}
	if (err)
		return ia_ctl_error(ctx, "explain", err);
	ps.n = 0;
	err = ia_get_procs(&ctx->cl, NULL, &uid, collect, &ps);
	if (err)
		return ia_ctl_error(ctx, "explain", err);
	qsort(ps.p, ps.n, sizeof(ps.p[0]), by_held);
	/* The kernel's record of its last refusal: who, and in which cgroup. */
	lf_err = ia_get_quotas(&ctx->cl, &kind, &uid, got_pot, &lf);
	for (i = 0; i < ps.n; i++) {
		const struct ia_proc *p = &ps.p[i];

		total_held += held(p);
		for (k = 0; k < ncg && cg[k].id != p->cgroup_id; k++)
			;
		if (k == ncg && ncg < 64)
			cg[ncg++] = (struct cgroup_sum){ p->cgroup_id, p->cgroup,
							 p->cgroup[0] && p->cgroup_truncated, 0, 0 };
		if (k < ncg) {
			cg[k].procs++;
			cg[k].bytes += held(p);
		}
		for (k = 0; k < nlim && limits[k] != p->memlock_soft; k++)
			;
		if (k == nlim && nlim < 16)
			limits[nlim++] = p->memlock_soft;
	}
	for (c = 0; c < IA_NCONSUMERS; c++)
		buffers |= c == IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS && u.b.consumer[c];
	/* A refused process in a cgroup that holds nothing shares the pot too. */
	if (lf.present && lf.cgroup_id) {
		for (k = 0; k < ncg && cg[k].id != lf.cgroup_id; k++)
			;
		lf_elsewhere = k == ncg;
	}
	shared = ps.n > 1 || ncg > 1 || (ncg && lf_elsewhere);
	/* Refused already, or at 80 % of the smallest limit: the fixes apply. */
	tight = u.b.refusals ||
		(u.has_memlock && u.memlock_min != UINT64_MAX &&
		 u.locked_bytes >= u.memlock_min / 10 * 8);

	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "uid", uid);
		ia_json_u64(j, "locked_bytes", u.locked_bytes);
		if (u.has_memlock)
			ia_json_u64_or_null(j, "memlock_min", u.memlock_min);
		ia_json_u64(j, "processes", ps.n);
		ia_json_arr_open(j, "cgroups");
		for (k = 0; k < ncg; k++) {
			ia_json_obj_open(j, NULL);
			ia_json_u64(j, "cgroup_id", cg[k].id);
			ia_json_str(j, "cgroup", cgpath(&cg[k], path, sizeof(path)));
			if (cg[k].cut)
				ia_json_bool(j, "cgroup_truncated", true);
			ia_identity_of(path_of(&cg[k], path, sizeof(path)), &ident);
			ia_json_identity(j, "identity", &ident);
			ia_json_u64(j, "processes", cg[k].procs);
			ia_json_u64(j, "held_bytes", cg[k].bytes);
			/* A cut path may name an ancestor: its memcg is not this one's. */
			if (cg[k].cut)
				ia_json_null(j, "memcg");
			else
				memcg_json(j, cgpath(&cg[k], path, sizeof(path)));
			ia_json_arr_open(j, "pids");
			for (i = 0; i < ps.n; i++)
				if (ps.p[i].cgroup_id == cg[k].id)
					ia_json_u64(j, NULL, ps.p[i].pid);
			ia_json_arr_close(j);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		ia_json_arr_open(j, "top");
		for (i = 0; i < ps.n && i < 5 && held(&ps.p[i]); i++) {
			ia_json_obj_open(j, NULL);
			ia_json_u64(j, "pid", ps.p[i].pid);
			ia_json_str(j, "comm", ps.p[i].comm);
			ia_json_u64(j, "held_bytes", held(&ps.p[i]));
			ia_json_u64(j, "rings", ps.p[i].rings);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		ia_json_u64(j, "pending_bytes", u.b.pending);
		ia_json_u64(j, "unattributed_bytes", u.b.unattributed);
		ia_json_u64(j, "refusals", u.b.refusals);
		if (u.b.has_iommufd) {
			ia_json_u64(j, "iommufd_mm_bytes", u.b.iommufd_mm);
			ia_json_u64(j, "iommufd_exempt_bytes", u.b.iommufd_exempt);
		}
		ia_json_failure(j, "last_failure", &lf);
		ia_json_arr_open(j, "limits");
	} else {
		printf("uid %u: locked-memory pot %s", uid,
		       ia_human_bytes(u.locked_bytes, b1, sizeof(b1)));
		if (u.has_memlock && u.memlock_min != UINT64_MAX)
			printf(" of %s (%.0f%% of the smallest RLIMIT_MEMLOCK among its processes)",
			       ia_human_bytes(u.memlock_min, b2, sizeof(b2)),
			       100.0 * u.locked_bytes / (u.memlock_min ? u.memlock_min : 1));
		printf(".\n");
		printf("The pot is one counter for the whole uid: it is shared by %u process%s "
		       "in %u cgroup%s%s\n", ps.n, ps.n == 1 ? "" : "es", ncg, ncg == 1 ? "" : "s",
		       ncg ? ":" : ".");
		for (k = 0; k < ncg; k++) {
			ia_identity_of(path_of(&cg[k], path, sizeof(path)), &ident);
			if (ident.kind[0])
				printf("  %s%s [%s]", ia_tx(path), ia_cut_mark(cg[k].cut),
				       ia_identity_str(&ident, idtext, sizeof(idtext)));
			else
				printf("  %s%s", ia_tx(path), ia_cut_mark(cg[k].cut));
			printf(": %u process%s holding %s (pids",
			       cg[k].procs, cg[k].procs == 1 ? "" : "es",
			       ia_human_bytes(cg[k].bytes, b1, sizeof(b1)));
			for (i = 0, c = 0; i < ps.n && c < 8; i++)
				if (ps.p[i].cgroup_id == cg[k].id)
					printf(" %u", ps.p[i].pid), c++;
			printf("%s)\n", cg[k].procs > 8 ? " ..." : "");
			if (!cg[k].cut)
				memcg_text(cgpath(&cg[k], path, sizeof(path)));
		}
		if (ps.n && held(&ps.p[0])) {
			printf("Top holders:\n");
			for (i = 0; i < ps.n && i < 5 && held(&ps.p[i]); i++) {
				const struct ia_proc *p = &ps.p[i];
				unsigned int kinds = 0, last = 0;

				printf("  %s[%u]: %s", ia_tx(p->comm), p->pid,
				       ia_human_bytes(held(p), b1, sizeof(b1)));
				for (c = 0; c < IA_NCONSUMERS; c++)
					if (p->consumer[c])
						kinds++, last = c;
				/* By consumer when several; by name when one that is not a ring's. */
				for (c = 0, k = 0; kinds > 1 && c < IA_NCONSUMERS; c++)
					if (p->consumer[c])
						printf("%s%s %s%s", k++ ? ", " : " (", ia_consumer_name(c),
						       ia_human_bytes(p->consumer[c], b2, sizeof(b2)),
						       c == last ? ")" : "");
				if (kinds == 1 && !p->rings &&
				    last != IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS)
					printf(" of %s", ia_consumer_name(last));
				if (p->rings)
					printf(" on %u ring%s", p->rings, p->rings == 1 ? "" : "s");
				printf("\n");
			}
		}
		if (u.b.pending)
			printf("%s waits for deferred release (its process exited or its io_uring "
			       "ring was closed; the kernel frees it from a workqueue).\n",
			       ia_human_bytes(u.b.pending, b1, sizeof(b1)));
		if (u.b.unattributed)
			printf("%s is not attributed: charged before iommu_account loaded, or "
			       "through a path it does not hook on this kernel (see status).\n",
			       ia_human_bytes(u.b.unattributed, b1, sizeof(b1)));
		if (u.b.consumer[IOMMU_ACCOUNT_CONSUMER_IOMMUFD])
			printf("iommufd charged %s of it to this pot (IOAS mappings in the default "
			       "per-user mode, pinned).\n",
			       ia_human_bytes(u.b.consumer[IOMMU_ACCOUNT_CONSUMER_IOMMUFD], b1,
					      sizeof(b1)));
		if (u.b.iommufd_mm)
			printf("iommufd pinned %s more for this uid in per-process mode "
			       "(IOMMU_OPTION_RLIMIT_MODE, or its /dev/vfio/vfio container): charged to "
			       "each mapping process's mm->locked_vm (VmLck), not to this pot.\n",
			       ia_human_bytes(u.b.iommufd_mm, b1, sizeof(b1)));
		if (u.b.iommufd_exempt)
			printf("iommufd pinned %s more for this uid with CAP_IPC_LOCK: charged to no "
			       "counter.\n", ia_human_bytes(u.b.iommufd_exempt, b1, sizeof(b1)));
		if (u.b.refusals)
			printf("The kernel refused %" PRIu64 " charge%s since iommu_account loaded "
			       "(io_uring_register/setup, IOMMU_IOAS_MAP: ENOMEM; XDP_UMEM_REG: "
			       "ENOBUFS).\n", u.b.refusals, u.b.refusals == 1 ? "" : "s");
		if (lf.present) {
			struct timespec now;
			double ago;

			clock_gettime(CLOCK_REALTIME, &now);
			ago = (double)now.tv_sec - (double)lf.time_ns / 1e9 + now.tv_nsec / 1e9;
			printf("The last refusal: %s[%u] (uid %u) in %s%s, a charge of %s (%s), "
			       "%.0f s ago%s.\n", ia_tx(lf.owner.comm), lf.owner.pid, lf.owner.uid,
			       ia_tx(refused_cgroup(&lf, path, sizeof(path))),
			       ia_cut_mark(lf.cgroup[0] && lf.cgroup_truncated),
			       ia_human_bytes(lf.size, b1, sizeof(b1)), ia_errno_name((int)lf.err),
			       ago > 0 ? ago : 0,
			       lf_elsewhere ? ": that cgroup holds none of the pot now" : "");
		} else if (u.b.refusals && lf_err) {
			printf("(The kernel's record of the last refusal could not be read: %s.)\n",
			       strerror(-lf_err));
		}
		printf("Limits (each process is checked against its own RLIMIT_MEMLOCK, the pot "
		       "against all of them):\n");
	}

	for (k = 0; k < nlim; k++) {
		struct pinfo origin, parent;
		unsigned int n = 0;
		int rep = -1;

		for (i = 0; i < ps.n; i++)
			if (ps.p[i].memlock_soft == limits[k]) {
				n++;
				if (rep < 0)
					rep = (int)ps.p[i].pid;
			}
		if (rep < 0 || limit_origin(rep, &origin, &parent))
			continue;
		if (ctx->json) {
			ia_json_obj_open(j, NULL);
			ia_json_u64_or_null(j, "memlock", limits[k]);
			ia_json_u64(j, "processes", n);
			ia_json_obj_open(j, "origin");
			ia_json_u64(j, "pid", origin.pid);
			ia_json_str(j, "comm", origin.comm);
			ia_json_obj_close(j);
			if (parent.pid) {
				ia_json_obj_open(j, "origin_parent");
				ia_json_u64(j, "pid", parent.pid);
				ia_json_str(j, "comm", parent.comm);
				ia_json_u64_or_null(j, "memlock", parent.memlock);
				ia_json_obj_close(j);
			}
			ia_json_obj_close(j);
			continue;
		}
		printf("  %u process%s with %s", n, n == 1 ? "" : "es",
		       ia_human_bytes(limits[k], b1, sizeof(b1)));
		if (parent.pid)
			printf(": inherited from %s (pid %d), which has %s; its parent %s (pid %d) "
			       "has %s\n", ia_tx(origin.comm), origin.pid, b1, ia_tx(parent.comm), parent.pid,
			       ia_human_bytes(parent.memlock, b2, sizeof(b2)));
		else
			printf(": set by %s (pid %d), the top of the process tree\n",
			       ia_tx(origin.comm), origin.pid);
	}

	if (ctx->json) {
		ia_json_arr_close(j);
		ia_json_arr_open(j, "fixes");
	} else {
		printf("What would help:\n");
	}
#define FIX(cond, text) do { \
		if (!(cond)) \
			break; \
		if (ctx->json) \
			ia_json_str(j, NULL, text); \
		else \
			printf("  - %s\n", text); \
	} while (0)
	FIX(tight, "raise RLIMIT_MEMLOCK where it is set (the origin above): LimitMEMLOCK= in "
	    "its systemd unit, --ulimit memlock= for a container runtime, or prlimit --memlock");
	FIX(tight && shared, "run unrelated jobs under distinct uids or in user namespaces: "
	    "each uid has a pot of its own");
	FIX(tight && (buffers || u.b.refusals), "give the processes that create io_uring rings "
	    "CAP_IPC_LOCK: io_uring then does not charge the pot");
	FIX(u.b.pending, "failures right after jobs exit come from deferred release: retry "
	    "after a moment, or wait for the pending bytes to drain");
	FIX(!tight && !u.b.pending, "nothing to fix: no charge was refused and the pot is "
	    "below 80 % of the smallest limit");
#undef FIX
	if (ctx->json) {
		ia_json_arr_close(j);
		ia_json_obj_close(j);
		printf("\n");
	}
	(void)total_held;
	return IA_EXIT_OK;
}
