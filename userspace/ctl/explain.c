// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl explain uid N: why uid N's locked-memory pot refuses (or
 * is about to), in plain words or JSON: libia's diagnosis (lib/explain.c:
 * who shares the pot, the top holders, what waits, the kernel's last
 * refusal, each limit and which ancestor set it, the fixes that apply)
 * rendered; container|qpair|iommufd-ctx N: libia's cause (lib/cause.c:
 * which limit refuses the object, its figures, the fixes) rendered.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

/*
 * The cgroup's memory limit and the kernel's memory.events: pinning past
 * memory.max is not an ENOMEM of any locked-memory limit but an OOM kill.
 */
static void memcg_json(struct ia_json *j, const struct ia_pot_cgroup *cg)
{
	const struct ia_memcg *m = &cg->memcg;

	if (!cg->has_memcg || (!m->limited && !m->has_events)) {
		ia_json_null(j, "memcg");
		return;
	}
	ia_json_obj_open(j, "memcg");
	if (m->limited) {
		ia_json_str(j, "limited_by", m->path);
		ia_json_u64(j, "max", m->max);
		ia_json_u64(j, "current", m->current);
	}
	ia_json_u64(j, "events_max", m->ev_max);
	ia_json_u64(j, "oom_kill", m->ev_oom_kill);
	ia_json_obj_close(j);
}

static void memcg_text(const struct ia_pot_cgroup *cg)
{
	const struct ia_memcg *m = &cg->memcg;
	char b1[32], b2[32];

	if (!cg->has_memcg)
		return;
	if (m->limited)
		printf("    memcg: %s of memory.max %s (%s)",
		       ia_human_bytes(m->current, b1, sizeof(b1)),
		       ia_human_bytes(m->max, b2, sizeof(b2)), ia_tx(m->path));
	if (m->ev_max || m->ev_oom_kill)
		printf("%s reached memory.max %" PRIu64 " times, %" PRIu64 " OOM kill%s "
		       "(memory.events): a process pinning there is killed, not refused",
		       m->limited ? ";" : "    memcg:", m->ev_max, m->ev_oom_kill,
		       m->ev_oom_kill == 1 ? "" : "s");
	if (m->limited || m->ev_max || m->ev_oom_kill)
		printf("\n");
}

static void explain_json(struct ia_json *j, const struct ia_pot_diag *d)
{
	const struct ia_uid *u = &d->u;
	unsigned int i, k;

	ia_json_obj_open(j, NULL);
	ia_json_u64(j, "uid", d->uid);
	ia_json_u64(j, "locked_bytes", u->locked_bytes);
	if (u->has_memlock)
		ia_json_u64_or_null(j, "memlock_min", u->memlock_min);
	ia_json_u64(j, "processes", d->nprocs);
	/* Past IA_POT_PROCS_MAX the rest is not read: said, never silent. */
	if (d->procs_cut)
		ia_json_bool(j, "processes_cut", true);
	ia_json_arr_open(j, "cgroups");
	for (k = 0; k < d->ncg; k++) {
		const struct ia_pot_cgroup *cg = &d->cg[k];

		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "cgroup_id", cg->id);
		ia_json_str(j, "cgroup", cg->path);
		if (cg->cut)
			ia_json_bool(j, "cgroup_truncated", true);
		ia_json_identity(j, "identity", &cg->ident);
		ia_json_u64(j, "processes", cg->procs);
		ia_json_u64(j, "held_bytes", cg->bytes);
		memcg_json(j, cg);
		ia_json_arr_open(j, "pids");
		for (i = 0; i < d->nprocs; i++)
			if (d->procs[i].cgroup_id == cg->id)
				ia_json_u64(j, NULL, d->procs[i].pid);
		ia_json_arr_close(j);
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	ia_json_arr_open(j, "top");
	for (i = 0; i < d->nprocs && i < 5 && ia_proc_held(&d->procs[i]); i++) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "pid", d->procs[i].pid);
		ia_json_str(j, "comm", d->procs[i].comm);
		ia_json_u64(j, "held_bytes", ia_proc_held(&d->procs[i]));
		ia_json_u64(j, "rings", d->procs[i].rings);
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	ia_json_u64(j, "pending_bytes", u->b.pending);
	ia_json_u64(j, "unattributed_bytes", u->b.unattributed);
	ia_json_u64(j, "refusals", u->b.refusals);
	if (u->b.has_iommufd) {
		ia_json_u64(j, "iommufd_mm_bytes", u->b.iommufd_mm);
		ia_json_u64(j, "iommufd_exempt_bytes", u->b.iommufd_exempt);
	}
	ia_json_failure(j, "last_failure", &d->last);
	ia_json_arr_open(j, "limits");
	for (k = 0; k < d->nlim; k++) {
		const struct ia_pot_limit *l = &d->lim[k];

		if (!l->has_origin)
			continue;
		ia_json_obj_open(j, NULL);
		ia_json_u64_or_null(j, "memlock", l->memlock);
		ia_json_u64(j, "processes", l->procs);
		ia_json_obj_open(j, "origin");
		ia_json_u64(j, "pid", l->origin.pid);
		ia_json_str(j, "comm", l->origin.comm);
		ia_json_obj_close(j);
		if (l->parent.pid) {
			ia_json_obj_open(j, "origin_parent");
			ia_json_u64(j, "pid", l->parent.pid);
			ia_json_str(j, "comm", l->parent.comm);
			ia_json_u64_or_null(j, "memlock", l->parent.memlock);
			ia_json_obj_close(j);
		}
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	ia_json_arr_open(j, "fixes");
	for (k = 0; k < IA_FIX_COUNT; k++)
		if (d->fixes & 1u << k)
			ia_json_str(j, NULL, ia_pot_fix_text(k));
	ia_json_arr_close(j);
	ia_json_obj_close(j);
	printf("\n");
}

static void explain_holder(const struct ia_proc *p)
{
	unsigned int kinds = 0, last = 0, c, k;
	char b1[32], b2[32];

	printf("  %s[%u]: %s", ia_tx(p->comm), p->pid,
	       ia_human_bytes(ia_proc_held(p), b1, sizeof(b1)));
	for (c = 0; c < IA_NCONSUMERS; c++)
		if (p->consumer[c])
			kinds++, last = c;
	/* By consumer when several; by name when one that is not a ring's. */
	for (c = 0, k = 0; kinds > 1 && c < IA_NCONSUMERS; c++)
		if (p->consumer[c])
			printf("%s%s %s%s", k++ ? ", " : " (", ia_consumer_name(c),
			       ia_human_bytes(p->consumer[c], b2, sizeof(b2)),
			       c == last ? ")" : "");
	if (kinds == 1 && !p->rings && last != IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS)
		printf(" of %s", ia_consumer_name(last));
	if (p->rings)
		printf(" on %u ring%s", p->rings, p->rings == 1 ? "" : "s");
	printf("\n");
}

static void explain_text(const struct ia_pot_diag *d)
{
	const struct ia_uid *u = &d->u;
	char b1[32], b2[32], idtext[IA_IDENTITY_TEXT];
	unsigned int i, k, c;

	printf("uid %u: locked-memory pot %s", d->uid,
	       ia_human_bytes(u->locked_bytes, b1, sizeof(b1)));
	if (u->has_memlock && u->memlock_min != UINT64_MAX)
		printf(" of %s (%.0f%% of the smallest RLIMIT_MEMLOCK among its processes)",
		       ia_human_bytes(u->memlock_min, b2, sizeof(b2)),
		       100.0 * u->locked_bytes / (u->memlock_min ? u->memlock_min : 1));
	printf(".\n");
	printf("The pot is one counter for the whole uid: it is shared by %u process%s "
	       "in %u cgroup%s%s\n", d->nprocs, d->nprocs == 1 ? "" : "es", d->ncg,
	       d->ncg == 1 ? "" : "s", d->ncg ? ":" : ".");
	if (d->procs_cut)
		printf("(only the first %u processes were read)\n", d->nprocs);
	for (k = 0; k < d->ncg; k++) {
		const struct ia_pot_cgroup *cg = &d->cg[k];

		if (cg->ident.kind[0])
			printf("  %s%s [%s]", ia_tx(cg->path), ia_cut_mark(cg->cut),
			       ia_identity_str(&cg->ident, idtext, sizeof(idtext)));
		else
			printf("  %s%s", ia_tx(cg->path), ia_cut_mark(cg->cut));
		printf(": %u process%s holding %s (pids", cg->procs, cg->procs == 1 ? "" : "es",
		       ia_human_bytes(cg->bytes, b1, sizeof(b1)));
		for (i = 0, c = 0; i < d->nprocs && c < 8; i++)
			if (d->procs[i].cgroup_id == cg->id)
				printf(" %u", d->procs[i].pid), c++;
		printf("%s)\n", cg->procs > 8 ? " ..." : "");
		memcg_text(cg);
	}
	if (d->nprocs && ia_proc_held(&d->procs[0])) {
		printf("Top holders:\n");
		for (i = 0; i < d->nprocs && i < 5 && ia_proc_held(&d->procs[i]); i++)
			explain_holder(&d->procs[i]);
	}
	if (u->b.pending)
		printf("%s waits for deferred release (its process exited or its io_uring "
		       "ring was closed; the kernel frees it from a workqueue).\n",
		       ia_human_bytes(u->b.pending, b1, sizeof(b1)));
	if (u->b.unattributed)
		printf("%s is not attributed: charged before iommu_account loaded, or "
		       "through a path it does not hook on this kernel (see status).\n",
		       ia_human_bytes(u->b.unattributed, b1, sizeof(b1)));
	if (u->b.consumer[IOMMU_ACCOUNT_CONSUMER_IOMMUFD])
		printf("iommufd charged %s of it to this pot (IOAS mappings in the default "
		       "per-user mode, pinned).\n",
		       ia_human_bytes(u->b.consumer[IOMMU_ACCOUNT_CONSUMER_IOMMUFD], b1,
				      sizeof(b1)));
	if (u->b.iommufd_mm)
		printf("iommufd pinned %s more for this uid in per-process mode "
		       "(IOMMU_OPTION_RLIMIT_MODE, or its /dev/vfio/vfio container): charged to "
		       "each mapping process's mm->locked_vm (VmLck), not to this pot.\n",
		       ia_human_bytes(u->b.iommufd_mm, b1, sizeof(b1)));
	if (u->b.iommufd_exempt)
		printf("iommufd pinned %s more for this uid with CAP_IPC_LOCK: charged to no "
		       "counter.\n", ia_human_bytes(u->b.iommufd_exempt, b1, sizeof(b1)));
	if (u->b.refusals)
		printf("The kernel refused %" PRIu64 " charge%s since iommu_account loaded "
		       "(io_uring_register/setup, IOMMU_IOAS_MAP: ENOMEM; XDP_UMEM_REG: "
		       "ENOBUFS).\n", u->b.refusals, u->b.refusals == 1 ? "" : "s");
	if (d->last.present) {
		const struct ia_failure *lf = &d->last;
		struct timespec now;
		double ago;

		clock_gettime(CLOCK_REALTIME, &now);
		ago = (double)now.tv_sec - (double)lf->time_ns / 1e9 + now.tv_nsec / 1e9;
		printf("The last refusal: %s[%u] (uid %u) in %s%s, a charge of %s (%s), "
		       "%.0f s ago%s.\n", ia_tx(lf->owner.comm), lf->owner.pid, lf->owner.uid,
		       ia_tx(d->last_cgroup), ia_cut_mark(lf->cgroup[0] && lf->cgroup_truncated),
		       ia_human_bytes(lf->size, b1, sizeof(b1)), ia_errno_name((int)lf->err),
		       ago > 0 ? ago : 0,
		       d->last_elsewhere ? ": that cgroup holds none of the pot now" : "");
	} else if (u->b.refusals && d->last_err) {
		printf("(The kernel's record of the last refusal could not be read: %s.)\n",
		       strerror(-d->last_err));
	}
	printf("Limits (each process is checked against its own RLIMIT_MEMLOCK, the pot "
	       "against all of them):\n");
	for (k = 0; k < d->nlim; k++) {
		const struct ia_pot_limit *l = &d->lim[k];

		if (!l->has_origin)
			continue;
		printf("  %u process%s with %s", l->procs, l->procs == 1 ? "" : "es",
		       ia_human_bytes(l->memlock, b1, sizeof(b1)));
		if (l->parent.pid)
			printf(": inherited from %s (pid %d), which has %s; its parent %s (pid %d) "
			       "has %s\n", ia_tx(l->origin.comm), l->origin.pid, b1,
			       ia_tx(l->parent.comm), l->parent.pid,
			       ia_human_bytes(l->parent.memlock, b2, sizeof(b2)));
		else
			printf(": set by %s (pid %d), the top of the process tree\n",
			       ia_tx(l->origin.comm), l->origin.pid);
	}
	printf("What would help:\n");
	for (k = 0; k < IA_FIX_COUNT; k++)
		if (d->fixes & 1u << k)
			printf("  - %s\n", ia_pot_fix_text(k));
}

static void print_cause(struct ia_ctx *ctx, const struct ia_cause *v)
{
	struct ia_json *j = &ctx->j;
	char b1[32], b2[32], who[96];
	unsigned int i;

	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_str(j, "kind", v->kind);
		ia_json_u64(j, "id", v->id);
		ia_json_str(j, "unit", v->unit);
		ia_json_u64(j, "used", v->used);
		ia_json_u64_if(j, "limit", v->has_limit, v->limit);
		ia_json_owner(j, "owner", &v->owner);
		ia_json_u64(j, "refusals", v->refusals);
		ia_json_str_or_null(j, "refused_by", v->refused_by);
		ia_json_bool(j, "refused", v->refused);
		ia_json_str(j, "cause", v->cause);
		ia_json_failure(j, "last_failure", &v->last);
		ia_json_arr_open(j, "fixes");
		for (i = 0; i < v->nfixes; i++)
			ia_json_str(j, NULL, v->fixes[i]);
		ia_json_arr_close(j);
		ia_json_obj_close(j);
		printf("\n");
		return;
	}
	printf("%s %u: %s of %s used", v->kind, v->id, ia_amount(v->unit, (double)v->used, b1,
	       sizeof(b1)), v->has_limit ? ia_amount(v->unit, (double)v->limit, b2, sizeof(b2)) :
	       "no limit of its own");
	if (!strcmp(v->unit, "entries") || !strcmp(v->unit, "descriptors"))
		printf(" (%s)", v->unit);
	printf(", held by %s.\n", ia_owner_str(&v->owner, who, sizeof(who)));
	printf("%s %s: %s.\n", v->refused ? "Refused by" : "The limit that applies is",
	       v->refused_by ? v->refused_by : "none", v->cause);
	if (v->last.present)
		printf("The last refusal: %s[%u] (uid %u), %s, %s.\n", ia_tx(v->last.owner.comm),
		       v->last.owner.pid, v->last.owner.uid, ia_errno_name((int)v->last.err),
		       ia_human_bytes(v->last.size, b1, sizeof(b1)));
	printf("What would help:\n");
	for (i = 0; i < v->nfixes; i++)
		printf("  - %s\n", v->fixes[i]);
}

/* explain container|qpair|iommufd-ctx N: libia's cause (lib/cause.c) rendered. */
static int explain_object(struct ia_ctx *ctx, const char *what, uint32_t id)
{
	struct ia_cause v;
	int err = ia_object_cause(&ctx->cl, what, id, &v);

	if (err == -ENOENT) {
		fprintf(stderr, "iommu-accountctl: explain: no %s %u (or not yours)\n", what, id);
		return IA_EXIT_NOENT;
	}
	if (err)
		return ia_ctl_error(ctx, "explain", err);
	print_cause(ctx, &v);
	return IA_EXIT_OK;
}

static int cmd_explain(struct ia_ctx *ctx)
{
	struct ia_pot_diag *d;
	int err;

	if (strcmp(ctx->args[0], "uid"))
		return explain_object(ctx, ctx->args[0], ctx->key);
	d = calloc(1, sizeof(*d));
	if (!d)
		return ia_ctl_error(ctx, "explain", -ENOMEM);
	err = ia_pot_diagnose(&ctx->cl, ctx->key, d);
	if (err) {
		ia_pot_diag_free(d);
		free(d);
		return ia_ctl_error(ctx, "explain", err);
	}
	if (!d->exists) {
		if (ctx->json)
			printf("{\"uid\":%u,\"locked_bytes\":0,\"processes\":0}\n", d->uid);
		else
			printf("uid %u has no process and no locked-memory pot: nothing to explain\n",
			       d->uid);
	} else if (ctx->json) {
		explain_json(&ctx->j, d);
	} else {
		explain_text(d);
	}
	ia_pot_diag_free(d);
	free(d);
	return IA_EXIT_OK;
}

/* explain WHAT N: what it names, and a number. */
static int explain_check(struct ia_ctx *ctx)
{
	static const char *const what[] = {
		"uid", "container", "vfio-container", "qpair", "iommufd-ctx",
	};
	size_t i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (!strcmp(ctx->args[0], what[i]))
			break;
	if (i == sizeof(what) / sizeof(what[0]) || ia_parse_u32(ctx->args[1], &ctx->key))
		return ia_ctl_usage_error("%s", "explain takes: uid N, container N, qpair N or "
					  "iommufd-ctx N");
	return 0;
}

const struct ia_ctl_cmd ia_cmd_explain = {
	.name = "explain",
	.fn = cmd_explain,
	.min_args = 2,
	.max_args = 2,
	.check = explain_check,
	.synopsis = "uid N | container N | qpair N | iommufd-ctx N",
	.help = "why it refuses: the limit, its figures, who, fixes",
	.example = "iommu-accountctl explain uid 1000\niommu-accountctl explain container 3",
};
