// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl procs [--uid N | --pid N]: processes and what they hold
 * of their uid's locked-memory pot, with their limits and cgroups.
 */
#include <inttypes.h>

#include "ctl.h"

struct state {
	struct ia_ctx *ctx;
	unsigned int n;
};

static uint64_t held(const struct ia_proc *p)
{
	return ia_consumers_total(p->consumer);
}

static int proc_cb(const struct ia_proc *p, void *arg)
{
	struct state *st = arg;
	struct ia_json *j = &st->ctx->j;
	char b1[32], b2[32], b3[32], b4[32], cg[IA_CGROUP_MAX];
	/* The kernel's path; else found by the id under /sys/fs/cgroup. */
	const char *path = p->cgroup[0] ? p->cgroup : ia_cgroup_path(p->cgroup_id, cg, sizeof(cg));
	bool cut = p->cgroup[0] && p->cgroup_truncated;
	struct ia_identity id;
	char who[IA_IDENTITY_TEXT];
	int c;

	/* Who the cgroup belongs to: a unit, a container, a pod (else its path). */
	ia_identity_of(path ? path : "", &id);

	if (st->ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "pid", p->pid);
		ia_json_u64(j, "uid", p->uid);
		ia_json_str(j, "comm", p->comm);
		ia_json_u64(j, "cgroup_id", p->cgroup_id);
		ia_json_str_or_null(j, "cgroup", path);
		if (cut)
			ia_json_bool(j, "cgroup_truncated", true);
		ia_json_u64_or_null(j, "memlock_soft", p->memlock_soft);
		ia_json_u64_or_null(j, "memlock_hard", p->memlock_hard);
		ia_json_obj_open(j, "charged");
		for (c = 0; c < IA_NCONSUMERS; c++)
			if (p->consumer[c])
				ia_json_u64(j, ia_consumer_name(c), p->consumer[c]);
		ia_json_obj_close(j);
		ia_json_u64(j, "locked_vm_bytes", p->locked_vm);
		ia_json_u64(j, "pinned_vm_bytes", p->pinned_vm);
		ia_json_u64(j, "rings", p->rings);
		if (p->has_uring_fds)
			ia_json_u64(j, "uring_fds", p->uring_fds);
		ia_json_identity(j, "identity", &id);
		ia_json_obj_close(j);
		st->n++;
		return 0;
	}
	if (!st->n++)
		printf("%-8s %-16s %-7s %12s %12s %6s %10s %10s  %s\n", "PID", "COMM", "UID",
		       "CHARGED", "MEMLOCK", "RINGS", "VMLCK", "VMPIN", "CGROUP");
	printf("%-8u %-16s %-7u %12s %12s %6u %10s %10s  %s%s\n", p->pid, ia_tx(p->comm), p->uid,
	       ia_human_bytes(held(p), b1, sizeof(b1)),
	       ia_human_bytes(p->memlock_soft, b2, sizeof(b2)), p->rings,
	       ia_human_bytes(p->locked_vm, b3, sizeof(b3)),
	       ia_human_bytes(p->pinned_vm, b4, sizeof(b4)),
	       id.kind[0] ? ia_identity_str(&id, who, sizeof(who)) : path ? ia_tx(path) : "?",
	       id.kind[0] ? "" : ia_cut_mark(cut));
	return 0;
}

static int cmd_procs(struct ia_ctx *ctx)
{
	struct state st = { ctx, 0 };
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_procs(&ctx->cl, ctx->have_pid ? &ctx->pid : NULL,
			   ctx->have_key ? &ctx->key : NULL, proc_cb, &st);
	ia_ctl_list_close(ctx);
	if (err)
		return ia_ctl_error(ctx, "procs", err);
	if (!ctx->json && !st.n)
		printf("no process holds charges%s\n",
		       ctx->have_key ? " and none runs as that uid" : " this module follows");
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_procs = {
	.name = "procs",
	.fn = cmd_procs,
	.opts = IA_CTL_OPTS(&ia_opt_uid, &ia_opt_pid),
	.synopsis = "[--uid N|--pid N]",
	.help = "processes: what they hold of the pot, limits, cgroups",
	.example = "iommu-accountctl procs --uid 1000",
};
