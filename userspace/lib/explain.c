// SPDX-License-Identifier: GPL-2.0
/*
 * Why a uid's locked-memory pot refuses (or is about to), as data: who
 * shares the pot (processes, cgroups with their identity and memcg), the
 * top holders, what waits for deferred release, the kernel's record of its
 * last refusal, the limit each process has and which ancestor set it
 * (walking /proc up the parent chain to the first process whose
 * RLIMIT_MEMLOCK differs), and the fixes that apply. explain renders it;
 * anything else holding a client (the daemon) can ask the same question.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ia.h"

#define IA_POT_PROCS_MAX 4096

static const char *const fix_text[] = {
	[IA_FIX_RAISE_LIMIT] = "raise RLIMIT_MEMLOCK where it is set (the origin above): "
		"LimitMEMLOCK= in its systemd unit, --ulimit memlock= for a container runtime, "
		"or prlimit --memlock",
	[IA_FIX_SPLIT_UIDS] = "run unrelated jobs under distinct uids or in user namespaces: "
		"each uid has a pot of its own",
	[IA_FIX_CAP_IPC_LOCK] = "give the processes that create io_uring rings CAP_IPC_LOCK: "
		"io_uring then does not charge the pot",
	[IA_FIX_WAIT_DEFERRED] = "failures right after jobs exit come from deferred release: "
		"retry after a moment, or wait for the pending bytes to drain",
	[IA_FIX_NOTHING] = "nothing to fix: no charge was refused and the pot is below 80 % of "
		"the smallest limit",
};

const char *ia_pot_fix_text(enum ia_pot_fix f)
{
	return (unsigned int)f < IA_FIX_COUNT ? fix_text[f] : "";
}

uint64_t ia_proc_held(const struct ia_proc *p)
{
	return ia_consumers_total(p->consumer);
}

static int collect(const struct ia_proc *p, void *arg)
{
	struct ia_pot_diag *d = arg;
	struct ia_proc *n;

	if (d->nprocs == IA_POT_PROCS_MAX) {
		d->procs_cut = true;
		return 0;
	}
	n = realloc(d->procs, (d->nprocs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	d->procs = n;
	d->procs[d->nprocs++] = *p;
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

static int by_held(const void *a, const void *b)
{
	uint64_t x = ia_proc_held(a), y = ia_proc_held(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The cgroup's path: the kernel's, from one of its processes, else the id's now. */
static void cgroup_named(struct ia_pot_cgroup *cg, const struct ia_proc *p)
{
	if (p->cgroup[0]) {
		snprintf(cg->path, sizeof(cg->path), "%s", p->cgroup);
		cg->cut = p->cgroup_truncated;
	} else if (!ia_cgroup_path(cg->id, cg->path, sizeof(cg->path))) {
		snprintf(cg->path, sizeof(cg->path), "cgroup %" PRIu64, cg->id);
	}
	ia_identity_of(cg->path, &cg->ident);
	/* A cut path may name an ancestor: its memcg is not this one's. */
	cg->has_memcg = !cg->cut && cg->path[0] == '/' && !ia_memcg_read(cg->path, &cg->memcg);
}

static void add_proc(struct ia_pot_diag *d, const struct ia_proc *p)
{
	unsigned int k;

	for (k = 0; k < d->ncg && d->cg[k].id != p->cgroup_id; k++)
		;
	if (k == d->ncg && d->ncg < IA_POT_CGROUPS) {
		d->cg[k].id = p->cgroup_id;
		cgroup_named(&d->cg[k], p);
		d->ncg++;
	}
	if (k < d->ncg) {
		d->cg[k].procs++;
		d->cg[k].bytes += ia_proc_held(p);
	}
	for (k = 0; k < d->nlim && d->lim[k].memlock != p->memlock_soft; k++)
		;
	if (k == d->nlim && d->nlim < IA_POT_LIMITS) {
		d->lim[k].memlock = p->memlock_soft;
		d->lim[k].rep = (int)p->pid;
		d->nlim++;
	}
	if (k < d->nlim)
		d->lim[k].procs++;
}

int ia_pot_diagnose(struct ia_client *cl, uint32_t uid, struct ia_pot_diag *d)
{
	uint32_t kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
	unsigned int i, k;
	int err;

	memset(d, 0, sizeof(*d));
	d->uid = uid;
	err = ia_get_uids(cl, &uid, got_uid, &d->u);
	if (err == -ENOENT)
		return 0;	/* no process, no pot */
	if (err)
		return err;
	d->exists = true;
	err = ia_get_procs(cl, NULL, &uid, collect, d);
	if (err)
		return err;
	qsort(d->procs, d->nprocs, sizeof(d->procs[0]), by_held);
	/* The kernel's record of its last refusal: who, and in which cgroup. */
	d->last_err = ia_get_quotas(cl, &kind, &uid, got_pot, &d->last);
	for (i = 0; i < d->nprocs; i++)
		add_proc(d, &d->procs[i]);
	/* Where each limit comes from, by one of the processes that have it. */
	for (k = 0; k < d->nlim; k++)
		d->lim[k].has_origin = !ia_pinfo_limit_origin(d->lim[k].rep, &d->lim[k].origin,
							       &d->lim[k].parent);
	if (d->last.present) {
		if (d->last.cgroup[0])
			snprintf(d->last_cgroup, sizeof(d->last_cgroup), "%s", d->last.cgroup);
		else if (!d->last.cgroup_id)
			snprintf(d->last_cgroup, sizeof(d->last_cgroup), "an unknown cgroup");
		else if (!ia_cgroup_path(d->last.cgroup_id, d->last_cgroup,
					 sizeof(d->last_cgroup)))
			snprintf(d->last_cgroup, sizeof(d->last_cgroup), "cgroup %" PRIu64 " (gone)",
				 d->last.cgroup_id);
		/* A refused process in a cgroup that holds nothing shares the pot too. */
		if (d->last.cgroup_id) {
			for (k = 0; k < d->ncg && d->cg[k].id != d->last.cgroup_id; k++)
				;
			d->last_elsewhere = k == d->ncg;
		}
	}
	d->buffers = d->u.b.consumer[IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS] != 0;
	d->shared = d->nprocs > 1 || d->ncg > 1 || (d->ncg && d->last_elsewhere);
	/* Refused already, or at 80 % of the smallest limit: the fixes apply. */
	d->tight = d->u.b.refusals ||
		   (d->u.has_memlock && d->u.memlock_min != UINT64_MAX &&
		    d->u.locked_bytes >= d->u.memlock_min / 10 * 8);
	if (d->tight)
		d->fixes |= 1u << IA_FIX_RAISE_LIMIT;
	if (d->tight && d->shared)
		d->fixes |= 1u << IA_FIX_SPLIT_UIDS;
	if (d->tight && (d->buffers || d->u.b.refusals))
		d->fixes |= 1u << IA_FIX_CAP_IPC_LOCK;
	if (d->u.b.pending)
		d->fixes |= 1u << IA_FIX_WAIT_DEFERRED;
	if (!d->tight && !d->u.b.pending)
		d->fixes |= 1u << IA_FIX_NOTHING;
	return 0;
}

void ia_pot_diag_free(struct ia_pot_diag *d)
{
	free(d->procs);
	d->procs = NULL;
	d->nprocs = 0;
}
