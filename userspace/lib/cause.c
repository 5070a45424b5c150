// SPDX-License-Identifier: GPL-2.0
/*
 * Which limit refuses (or will) one quota object, with that limit's
 * figures, and only the fixes that apply to it, as data (struct ia_cause):
 *  - a VFIO type1 container: dma_entry_limit (ENOSPC), or its mapper's
 *    RLIMIT_MEMLOCK against the mapper's mm->locked_vm (ENOMEM), from the
 *    kernel's errno of its last refusal; without one, the nearer of the two;
 *  - a qpair: its application's own descriptor pool (io_queue_requests),
 *    not memory, with the figures the application published;
 *  - an iommufd context: the uid's pot (user mode: see explain uid), the
 *    process's RLIMIT_MEMLOCK (mm mode), or nothing (CAP_IPC_LOCK).
 * The mapper's locked_vm and limit are read from /proc while it lives (the
 * kernel's own per-process figures); a figure that cannot be had is said so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ia.h"


/* @pid's VmLck (mm->locked_vm) and RLIMIT_MEMLOCK soft limit from /proc; -1 when gone. */
static int proc_memlock(uint32_t pid, uint64_t *locked, uint64_t *limit)
{
	char path[64], line[256];
	unsigned long long kb;
	struct ia_pinfo pi;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %llu kB", &kb) == 1) {
			*locked = kb * 1024;
			found = 1;
		}
	fclose(f);
	/* The limit as explain uid reads it. */
	if (!found || ia_pinfo_read((int)pid, &pi))
		return -1;
	*limit = pi.memlock;
	return 0;
}

static void fix(struct ia_cause *v, const char *text)
{
	if (v->nfixes < sizeof(v->fixes) / sizeof(v->fixes[0]))
		v->fixes[v->nfixes++] = text;
}

/* ", the mapper comm[pid] has X locked of its RLIMIT_MEMLOCK Y" or why not known. */
static void mapper_memlock(char *buf, size_t len, const struct ia_owner *o)
{
	uint64_t locked = 0, limit = 0;
	char b1[32], b2[32];

	if (!o->present || proc_memlock(o->pid, &locked, &limit))
		snprintf(buf, len, "; the mapper is gone, so its locked_vm cannot be read now");
	else
		snprintf(buf, len, "; %s[%u] has %s locked (VmLck) of its RLIMIT_MEMLOCK %s",
			 o->comm, o->pid, ia_human_bytes(locked, b1, sizeof(b1)),
			 ia_human_bytes(limit, b2, sizeof(b2)));
}

struct got_container {
	bool found;
	struct ia_container c;		/* groups not kept */
};

static int container_cb(const struct ia_container *ct, void *arg)
{
	struct got_container *g = arg;

	g->found = true;
	g->c = *ct;
	g->c.groups = NULL;
	g->c.ngroups = 0;
	return 0;
}

static int cause_container(struct ia_client *cl, uint32_t id, struct ia_cause *v)
{
	struct got_container g = { 0 };
	const struct ia_container *c = &g.c;
	char mem[160];
	int err;

	err = ia_get_containers(cl, &id, container_cb, &g);
	if (err)
		return err;
	if (!g.found)
		return -ENOENT;
	v->kind = "vfio-container";
	v->unit = "entries";
	v->used = c->entries;
	v->limit = c->limit;
	v->has_limit = true;
	v->owner = c->owner;
	v->refusals = c->fail_enospc + c->fail_enomem;
	v->last = c->last_failure;
	if (c->last_failure.present && c->last_failure.err == ENOMEM) {
		/* The refused mapper's figures, read only for the limit that refused. */
		mapper_memlock(mem, sizeof(mem), &c->last_failure.owner);
		v->refused_by = "RLIMIT_MEMLOCK";
		v->refused = true;
		snprintf(v->cause, sizeof(v->cause),
			 "the mapper's RLIMIT_MEMLOCK: type1 charges the pages a mapping pins to "
			 "the mapping process's mm->locked_vm, and refused a mapping (ENOMEM) "
			 "%" PRIu64 " time(s)%s", c->fail_enomem, mem);
		fix(v, "raise the mapper's RLIMIT_MEMLOCK to at least the guest memory it maps "
		       "(LimitMEMLOCK= in its unit, --ulimit memlock= for a container runtime, "
		       "prlimit --memlock)");
	} else {
		v->refused_by = "dma_entry_limit";
		v->refused = c->fail_enospc > 0;
		snprintf(v->cause, sizeof(v->cause),
			 "dma_entry_limit: %u of %u mapping entries live (%.1f%%); the kernel "
			 "refuses MAP_DMA with ENOSPC at the limit, and did %" PRIu64 " time(s); "
			 "%" PRIu64 " maps and %" PRIu64 " unmaps since it was followed",
			 c->entries, c->limit, c->limit ? 100.0 * c->entries / c->limit : 0.0,
			 c->fail_enospc, c->map_ops, c->unmap_ops);
		if (v->refused || c->entries >= c->limit / 10 * 8) {
			fix(v, "raise vfio_iommu_type1's dma_entry_limit (modprobe option, or "
			       "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit): it applies "
			       "to containers opened after the change");
			fix(v, "map fewer, larger ranges (hugepage-backed memory): each entry is one "
			       "contiguous MAP_DMA");
		}
		if (c->map_ops > c->unmap_ops && c->entries == c->map_ops - c->unmap_ops &&
		    c->entries >= c->limit / 2)
			fix(v, "every mapping made is still live: if the runtime should have unmapped "
			       "some, it leaks them");
	}
	if (!v->nfixes)
		fix(v, "nothing to fix: no mapping was refused and the container is below 80 % "
		       "of its limit");
	return 0;
}

struct got_quota {
	bool found;
	struct ia_quota q;
	struct ia_ioas ioas[8];		/* the first of its IOAS, for the cause */
};

static int quota_cb(const struct ia_quota *q, void *arg)
{
	struct got_quota *g = arg;
	unsigned int i;

	g->found = true;
	g->q = *q;
	for (i = 0; i < q->nioas && i < 8; i++)
		g->ioas[i] = q->ioas[i];
	g->q.ioas = g->ioas;	/* nioas stays the whole count */
	return 0;
}

/* Quota object @id of @kind (GET_QUOTA) into @g, and the cause's figures from it. */
static int get_quota(struct ia_client *cl, uint32_t kind, uint32_t id, struct got_quota *g,
		     struct ia_cause *v, const char *name, const char *unit)
{
	int err = ia_get_quotas(cl, &kind, &id, quota_cb, g);

	if (err)
		return err;
	if (!g->found)
		return -ENOENT;
	v->kind = name;
	v->unit = unit;
	v->used = g->q.used;
	v->limit = g->q.limit;
	v->has_limit = g->q.has_limit;
	v->owner = g->q.owner;
	v->refusals = g->q.refusals;
	v->last = g->q.last_failure;
	v->refused = g->q.refusals > 0;
	return 0;
}

static int cause_qpair(struct ia_client *cl, uint32_t id, struct ia_cause *v)
{
	struct got_quota g = { 0 };
	const struct ia_quota *q = &g.q;
	int err;

	err = get_quota(cl, IOMMU_ACCOUNT_QUOTA_KIND_QPAIR, id, &g, v, "qpair", "descriptors");
	if (err)
		return err;
	v->refused_by = "qpair pool";
	snprintf(v->cause, sizeof(v->cause),
		 "the application's own request descriptors, not memory: qpair '%s' has %" PRIu64
		 " of %" PRIu64 " in use (peak %" PRIu64 "), %" PRIu64 " submissions rejected "
		 "(ENOMEM from the pool), %" PRIu64 " in its retry queue now, %" PRIu64 " ever; "
		 "figures as %s published them%s", q->name, q->used, q->limit, q->peak,
		 q->refusals, q->deferred_now, q->deferred_total,
		 q->owner.present ? q->owner.comm : "its application",
		 q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT ?
		 ", and they contradicted themselves at least once: they may be wrong" : "");
	if (v->refused || (q->has_limit && q->peak >= q->limit)) {
		fix(v, "raise the qpair's request pool above its peak depth (SPDK: "
		       "io_queue_requests in spdk_nvme_io_qpair_opts)");
		fix(v, "or bound the submissions in flight to the pool (queue depth at most "
		       "io_queue_requests), so rejections do not happen");
	}
	if (q->deferred_total)
		fix(v, "rejected submissions were queued for retry by the application: they "
		       "were delayed, not failed");
	if (!v->nfixes)
		fix(v, "nothing to fix: no submission was rejected and the pool never filled");
	return 0;
}

/* "; IOAS 1: 2 areas, 3.0 MiB mapped, 3.0 MiB pinned; ..." after @cause. */
static void ioas_words(char *cause, size_t size, const struct ia_quota *q)
{
	char b1[32], b2[32], id[16];
	size_t n = strlen(cause);
	unsigned int i;

	for (i = 0; i < q->nioas && i < 8 && n < size; i++) {
		if (q->ioas[i].has_id)
			snprintf(id, sizeof(id), "%u", q->ioas[i].id);
		else
			snprintf(id, sizeof(id), "(compat)");
		ia_human_bytes(q->ioas[i].bytes, b1, sizeof(b1));
		ia_human_bytes(q->ioas[i].pinned, b2, sizeof(b2));
		n += snprintf(cause + n, size - n, "; IOAS %s: %u area%s, %s mapped, %s pinned", id,
			      q->ioas[i].areas, q->ioas[i].areas == 1 ? "" : "s", b1, b2);
	}
	if (q->nioas > 8 && n < size)
		snprintf(cause + n, size - n, "; %u IOAS more (iommu-accountctl quotas --kind "
			 "iommufd-ctx lists all)", q->nioas - 8);
}

static int cause_iommufd(struct ia_client *cl, uint32_t id, struct ia_cause *v)
{
	struct got_quota g = { 0 };
	const struct ia_quota *q = &g.q;
	char b1[32], mem[160];
	int err;

	err = get_quota(cl, IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX, id, &g, v, "iommufd-ctx",
			"bytes");
	if (err)
		return err;
	ia_human_bytes(q->used, b1, sizeof(b1));
	switch (q->iommufd_mode) {
	case IOMMU_ACCOUNT_IOMMUFD_MODE_MM:
		v->refused_by = "RLIMIT_MEMLOCK";
		mapper_memlock(mem, sizeof(mem), &q->owner);
		snprintf(v->cause, sizeof(v->cause),
			 "the process's RLIMIT_MEMLOCK: this context accounts per process "
			 "(IOMMU_OPTION_RLIMIT_MODE 1%s), its %u mappings pin %s, charged to the "
			 "process's mm->locked_vm%s",
			 q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_VFIO_COMPAT ?
			 ", as the /dev/vfio/vfio container iommufd provides" : "",
			 q->mappings, b1, mem);
		fix(v, "raise the process's RLIMIT_MEMLOCK to at least what it maps "
		       "(LimitMEMLOCK=, --ulimit memlock=, prlimit --memlock)");
		break;
	case IOMMU_ACCOUNT_IOMMUFD_MODE_USER:
		v->refused_by = "RLIMIT_MEMLOCK";
		snprintf(v->cause, sizeof(v->cause),
			 "uid %u's pot: this context's %u mappings pin %s, charged to the uid's "
			 "user_struct->locked_vm with io_uring's and the others' (`explain uid %u` "
			 "shows all of it)", q->uid, q->mappings, b1, q->uid);
		fix(v, "see `iommu-accountctl explain uid N` for the pot this context charges");
		break;
	case IOMMU_ACCOUNT_IOMMUFD_MODE_NONE:
		snprintf(v->cause, sizeof(v->cause),
			 "no limit: the mapper had CAP_IPC_LOCK, so its %u mappings pin %s "
			 "charged to no counter", q->mappings, b1);
		break;
	default:
		snprintf(v->cause, sizeof(v->cause),
			 "not known yet: nothing of this context has been pinned since "
			 "iommu_account loaded");
	}
	ioas_words(v->cause, sizeof(v->cause), q);
	if (!v->nfixes)
		fix(v, "nothing to fix");
	return 0;
}

int ia_object_cause(struct ia_client *cl, const char *kind, uint32_t id, struct ia_cause *v)
{
	memset(v, 0, sizeof(*v));
	v->id = id;
	if (!strcmp(kind, "container") || !strcmp(kind, "vfio-container"))
		return cause_container(cl, id, v);
	if (!strcmp(kind, "qpair"))
		return cause_qpair(cl, id, v);
	if (!strcmp(kind, "iommufd-ctx"))
		return cause_iommufd(cl, id, v);
	return -EINVAL;
}
