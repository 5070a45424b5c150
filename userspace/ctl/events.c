// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl events [--count N]: follow the events group, like
 * `ip monitor`. One line (or one JSON object per line) per event; a gap in
 * the sequence numbers is reported as lost events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct follow {
	struct ia_ctx *ctx;
	uint32_t left;		/* 0: forever */
	bool counted;
};

/* A threshold event's level, the per-mille value crossed, and how many crossings it stands for. */
static void json_threshold(struct ia_json *j, const struct ia_event *ev)
{
	ia_json_str(j, "level", ev->level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? "crit" : "warn");
	ia_json_u64(j, "threshold", ev->threshold);
	ia_json_u64(j, "count", ev->count);
}

/* ", crossed 240 times" for a coalesced threshold event, "" for one crossing. */
static const char *crossings(const struct ia_event *ev, char *buf, size_t len)
{
	buf[0] = 0;
	if (ev->count > 1)
		snprintf(buf, len, ", crossed %u times", ev->count);
	return buf;
}

/* An event of a uid's pot. */
static void print_pot_json(struct ia_json *j, const struct ia_event *ev)
{
	bool failure = ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE;
	struct ia_identity id;
	char cg[IA_CGROUP_MAX];

	ia_json_u64(j, "uid", ev->uid);
	ia_json_str(j, "consumer", ia_consumer_name(ev->consumer));
	ia_json_owner(j, "owner", &ev->owner);
	ia_json_u64(j, "cgroup_id", ev->cgroup_id);
	if (ia_cgroup_path(ev->cgroup_id, cg, sizeof(cg))) {
		ia_json_str(j, "cgroup", cg);
		ia_identity_of(cg, &id);
		ia_json_identity(j, "identity", &id);	/* only when the path names one */
	}
	ia_json_u64(j, "request_bytes", ev->size);
	ia_json_u64(j, "pot_bytes", ev->locked_bytes);
	ia_json_u64_or_null(j, "memlock_limit", ev->memlock_limit);
	if (failure) {
		ia_json_u64(j, "errno", ev->err);
		ia_json_u64(j, "count", ev->count);
		if (ev->ioas)
			ia_json_u64(j, "ioas", ev->ioas);
	} else {
		json_threshold(j, ev);
	}
}

static void print_pot_text(const struct ia_event *ev)
{
	char b[96], b1[32], b2[32], b3[32], cg[IA_CGROUP_MAX], times[48] = "", idtext[IA_IDENTITY_TEXT];
	const char *path = ia_cgroup_path(ev->cgroup_id, cg, sizeof(cg));
	char ioas[24] = "", *where = NULL;
	struct ia_identity id = { 0 };
	int n;

	/* "/system.slice/docker-4f1c….scope [container 4f1c2b3a4d5e… (docker)]", whole. */
	if (path)
		ia_identity_of(path, &id);
	if (id.kind[0])
		n = asprintf(&where, "%s [%s]", ia_tx(path),
			     ia_identity_str(&id, idtext, sizeof(idtext)));
	else
		n = asprintf(&where, "%s", path ? ia_tx(path) : "?");
	if (n < 0)
		where = NULL;

	if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
		if (ev->count > 1)
			snprintf(times, sizeof(times), " %u times", ev->count);
		if (ev->ioas)
			snprintf(ioas, sizeof(ioas), " (IOAS %u)", ev->ioas);
		printf("#%" PRIu64 " FAILURE uid %u pot: %s%s charge of %s refused%s (ENOMEM), "
		       "pot %s of RLIMIT_MEMLOCK %s, by %s in %s\n", ev->seq, ev->uid,
		       ia_consumer_name(ev->consumer), ioas, ia_human_bytes(ev->size, b1, sizeof(b1)),
		       times, ia_human_bytes(ev->locked_bytes, b2, sizeof(b2)),
		       ia_human_bytes(ev->memlock_limit, b3, sizeof(b3)),
		       ia_owner_str(&ev->owner, b, sizeof(b)), where ? where : "?");
		free(where);
		return;
	}
	printf("#%" PRIu64 " %s uid %u pot: %s of RLIMIT_MEMLOCK %s (threshold %.1f%%%s), "
	       "%s charge by %s in %s\n", ev->seq,
	       ev->level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? "CRIT" : "WARN", ev->uid,
	       ia_human_bytes(ev->locked_bytes, b2, sizeof(b2)),
	       ia_human_bytes(ev->memlock_limit, b3, sizeof(b3)), ev->threshold / 10.0,
	       crossings(ev, times, sizeof(times)), ia_consumer_name(ev->consumer),
	       ia_owner_str(&ev->owner, b, sizeof(b)), where ? where : "?");
	free(where);
}

static const char *type_name(const struct ia_event *ev)
{
	switch (ev->type) {
	case IOMMU_ACCOUNT_EVENT_TYPE_FAILURE:
		return "failure";
	case IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD:
		return "threshold";
	case IOMMU_ACCOUNT_EVENT_TYPE_GONE:
		return "gone";
	}
	return "unknown";
}

/* A refused pin of an iommufd context in mm mode: the process's own limit refused it. */
static void print_iommufd_text(const struct ia_event *ev)
{
	const struct ia_quota *q = &ev->quota;
	char b[96], b1[32], b2[32], b3[32], b4[32], times[48] = "", ioas[24] = "";

	if (ev->count > 1)
		snprintf(times, sizeof(times), " %u times", ev->count);
	if (ev->ioas)
		snprintf(ioas, sizeof(ioas), " into IOAS %u", ev->ioas);
	if (ev->locked_bytes)
		snprintf(b3, sizeof(b3), "%s", ia_human_bytes(ev->locked_bytes, b4, sizeof(b4)));
	else
		snprintf(b3, sizeof(b3), "?");
	printf("#%" PRIu64 " FAILURE iommufd context %u (%s mode): pin of %s%s refused%s (%s), "
	       "process locked %s of RLIMIT_MEMLOCK %s; its %u mappings pin %s; by %s\n",
	       ev->seq, q->id, ia_iommufd_mode_name(q->iommufd_mode),
	       ia_human_bytes(ev->size, b1, sizeof(b1)), ioas, times, ia_errno_name((int)ev->err), b3,
	       ia_human_bytes(ev->memlock_limit, b2, sizeof(b2)), q->mappings,
	       ia_human_bytes(q->used, b4, sizeof(b4)), ia_owner_str(&ev->owner, b, sizeof(b)));
}

/* An event of a published object (qpair): the object as the module read it. */
static void print_quota_text(const struct ia_event *ev)
{
	const struct ia_quota *q = &ev->quota;
	char b[96], times[48] = "";

	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX &&
	    ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
		print_iommufd_text(ev);
		return;
	}
	ia_owner_str(&q->owner, b, sizeof(b));
	switch (ev->type) {
	case IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD:
		printf("#%" PRIu64 " %s qpair %u '%s': %" PRIu64 " of %" PRIu64 " descriptors in "
		       "use (threshold %.1f%%%s), %" PRIu64 " rejected, of %s\n", ev->seq,
		       ev->level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? "CRIT" : "WARN", q->id,
		       ia_tx(q->name), q->used, q->limit, ev->threshold / 10.0,
		       crossings(ev, times, sizeof(times)), q->refusals, b);
		break;
	case IOMMU_ACCOUNT_EVENT_TYPE_FAILURE:
		if (ev->count > 1)
			snprintf(times, sizeof(times), " %u times", ev->count);
		printf("#%" PRIu64 " FAILURE qpair %u '%s': submissions rejected%s (%s), %" PRIu64
		       " of %" PRIu64 " descriptors in use, %" PRIu64 " deferred, of %s\n",
		       ev->seq, q->id, ia_tx(q->name), times, ia_errno_name((int)ev->err), q->used,
		       q->limit, q->deferred_now, b);
		break;
	default:
		printf("#%" PRIu64 " GONE qpair %u '%s' of %s: %" PRIu64 " descriptors still "
		       "outstanding, %" PRIu64 " deferred; %" PRIu64 " submitted, %" PRIu64
		       " rejected, peak %" PRIu64 " of %" PRIu64 "%s\n", ev->seq, q->id, ia_tx(q->name), b,
		       q->used, q->deferred_now, q->submitted, q->refusals, q->peak, q->limit,
		       q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT ?
		       " (figures inconsistent)" : "");
	}
}

static void print_json(struct ia_ctx *ctx, const struct ia_event *ev)
{
	struct ia_json *j = &ctx->j;
	bool failure = ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE;

	ia_json_init(j, stdout);
	ia_json_obj_open(j, NULL);
	ia_json_u64(j, "seq", ev->seq);
	ia_json_str(j, "type", type_name(ev));
	ia_json_u64(j, "time_ns", ev->time_ns);
	if (ev->has_quota) {
		/* The kinds with a quota nest; a newer one shows its number. */
		bool qpair = ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_QPAIR;
		bool fd = ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX;
		const char *kind = qpair ? "qpair" : fd ? "iommufd-ctx" : NULL;
		char kname[16];

		snprintf(kname, sizeof(kname), "kind-%u", ev->kind);
		ia_json_str(j, "kind", kind ? kind : kname);
		if (failure) {
			ia_json_u64(j, "errno", ev->err);
			ia_json_u64(j, "count", ev->count);
		} else if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_THRESHOLD) {
			json_threshold(j, ev);
		}
		if (failure && fd) {
			ia_json_u64(j, "size", ev->size);
			ia_json_u64(j, "locked_bytes", ev->locked_bytes);
			ia_json_u64(j, "memlock_limit", ev->memlock_limit);
			ia_json_owner(j, "owner", &ev->owner);
			if (ev->ioas)
				ia_json_u64(j, "ioas", ev->ioas);
		}
		ia_json_obj_open(j, "quota");
		ia_ctl_quota_json(j, &ev->quota, kind ? kind : kname,
				  qpair ? "descriptors" : fd ? "bytes" : "");
		ia_json_obj_close(j);
		ia_json_obj_close(j);
		printf("\n");
		return;
	}
	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		ia_json_str(j, "kind", "uid-pot");
		print_pot_json(j, ev);
		ia_json_obj_close(j);
		printf("\n");
		return;
	}
	ia_json_u64(j, "container", ev->container);
	ia_json_u32_array(j, "groups", ev->groups, ev->ngroups);
	ia_json_u64(j, "entries", ev->entries);
	ia_json_u64(j, "limit", ev->limit);
	ia_json_owner(j, "owner", &ev->owner);
	if (failure) {
		ia_json_u64(j, "errno", ev->err);
		ia_json_u64(j, "iova", ev->iova);
		ia_json_u64(j, "size", ev->size);
		ia_json_u64(j, "locked_bytes", ev->locked_bytes);
		ia_json_u64(j, "memlock_limit", ev->memlock_limit);
		ia_json_u64(j, "count", ev->count);
	} else {
		json_threshold(j, ev);
	}
	ia_json_obj_close(j);
	printf("\n");
}

static void print_text(const struct ia_event *ev)
{
	char groups[256], b[96], times[48] = "";

	ia_u32_list_str(ev->groups, ev->ngroups, groups, sizeof(groups));
	if (ev->type != IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
		printf("#%" PRIu64 " %s container %u (groups %s): %u of %u entries used "
		       "(threshold %.1f%%%s), by %s\n", ev->seq,
		       ev->level == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? "CRIT" : "WARN",
		       ev->container, groups, ev->entries, ev->limit, ev->threshold / 10.0,
		       crossings(ev, times, sizeof(times)), ia_owner_str(&ev->owner, b, sizeof(b)));
		return;
	}
	/* " 240 times" for a coalesced failure event, "" for a single refusal. */
	if (ev->count > 1)
		snprintf(times, sizeof(times), " %u times", ev->count);
	printf("#%" PRIu64 " FAILURE container %u (groups %s): MAP_DMA refused%s, %s (%s), "
	       "entries %u/%u, iova 0x%" PRIx64 " size %" PRIu64 ", by %s",
	       ev->seq, ev->container, groups, times, ia_errno_name((int)ev->err),
	       strerror((int)ev->err), ev->entries, ev->limit, ev->iova, ev->size,
	       ia_owner_str(&ev->owner, b, sizeof(b)));
	if (ev->err == ENOMEM)
		printf(", locked %" PRIu64 " of RLIMIT_MEMLOCK %" PRIu64,
		       ev->locked_bytes, ev->memlock_limit);
	printf("\n");
}

static int event_cb(const struct ia_event *ev, uint64_t lost, bool overrun, void *arg)
{
	struct follow *f = arg;
	struct ia_ctx *ctx = f->ctx;

	if (lost && ctx->json)
		printf("{\"lost\":%" PRIu64 "}\n", lost);
	else if (lost)
		printf("!! %" PRIu64 " events lost%s\n", lost,
		       overrun ? " (socket overrun: read too slowly)" : "");
	if (ctx->json)
		print_json(ctx, ev);
	else if (ev->has_quota)
		print_quota_text(ev);
	else if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT)
		print_pot_text(ev);
	else
		print_text(ev);
	fflush(stdout);
	if (f->counted && !--f->left)
		return 1;	/* stop */
	return 0;
}

static int cmd_events(struct ia_ctx *ctx)
{
	struct follow f = { .ctx = ctx, .left = ctx->count, .counted = ctx->count > 0 };
	struct ia_events_cb cb = { .event = event_cb, .arg = &f };
	int err;

	if (!ia_in_initial_netns())
		fprintf(stderr, "iommu-accountctl: events: this process is not in the initial "
			"network namespace; iommu_account sends events only there, so none "
			"will arrive\n");
	err = ia_events_subscribe(&ctx->cl);
	if (err)
		return ia_ctl_error(ctx, "events", err);
	for (;;) {
		err = ia_events_recv(&ctx->cl, &cb);
		if (err > 0)
			return IA_EXIT_OK;
		if (err < 0)
			return ia_ctl_error(ctx, "events", err);
	}
}

const struct ia_ctl_cmd ia_cmd_events = {
	.name = "events",
	.fn = cmd_events,
	.opts = IA_CTL_OPTS(&ia_opt_count),
	.synopsis = "[--count N]",
	.help = "follow failure and threshold events",
	.example = "iommu-accountctl events --count 3",
};
