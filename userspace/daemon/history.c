// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk history ([history]): after each poll, a sample of every object
 * whose figures or state changed, and of every object at least each
 * IAD_HIST_KEYFRAME_S, so a reader finds each object's value at any time
 * within the ring. The ring is libia's (lib/history.c): bounded by
 * max_size, the oldest samples go first; readers skip those older than keep.
 * A history that cannot be opened or written is logged once, with the
 * kernel's own reason (a full filesystem says ENOSPC), and the daemon goes
 * on without it, trying again every IAD_HIST_RETRY_S until it can write; a
 * second daemon on the same file is told by the file's lock and goes on
 * without one. Samples found damaged when the file is opened (their
 * checksums) are logged and counted (iommu_account_history_damaged_samples).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "iad.h"

#define IAD_HIST_KEYFRAME_S 300
#define IAD_HIST_RETRY_S 30

void iad_history_close(struct iad *d)
{
	/* Open means a header is held: a zeroed struct iad has none. */
	if (d->hist.hdr)
		ia_hist_close(&d->hist);
	d->hist_path[0] = 0;
}

void iad_history_open(struct iad *d)
{
	char err[4608], dir[4096], *slash;
	size_t i;
	int ret;

	/* The same file, size and keep: nothing to do (a SIGHUP that changed none). */
	if (d->hist.hdr && !strcmp(d->hist_path, d->cfg.history) &&
	    d->hist_max == d->cfg.history_max && d->hist_keep == d->cfg.history_keep_s)
		return;
	iad_history_close(d);
	d->hist_retry_at = 0;
	if (!d->cfg.history[0])
		return;
	/* Its directory, one level (systemd's StateDirectory= makes it under the unit). */
	snprintf(dir, sizeof(dir), "%s", d->cfg.history);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0750);
	}
	ret = ia_hist_open(&d->hist, d->cfg.history, (uint64_t)d->cfg.history_max,
			   d->cfg.history_keep_s, err, sizeof(err));
	if (ret) {
		if (!d->hist_said)
			iad_log(d, LOG_WARNING, "history: %s; going on without it%s", err,
				ret == -ENOSPC || ret == -EBUSY || ret == -EDQUOT ?
				" (trying again every 30 s)" : "");
		d->hist_said = true;
		/* A full disk or the other daemon may go away; a refusal stays until a reload. */
		if (ret == -ENOSPC || ret == -EBUSY || ret == -EDQUOT)
			d->hist_retry_at = d->now + IAD_HIST_RETRY_S;
		return;
	}
	if (d->hist_said)
		iad_log(d, LOG_NOTICE, "history: writing %s again", d->cfg.history);
	d->hist_said = false;
	snprintf(d->hist_path, sizeof(d->hist_path), "%s", d->cfg.history);
	d->hist_max = d->cfg.history_max;
	d->hist_keep = d->cfg.history_keep_s;
	d->hist_damaged = d->hist.damaged;
	if (d->hist.restarted)
		iad_log(d, LOG_WARNING, "history: %s started anew: %s", d->hist_path,
			d->hist.why);
	if (d->hist.rebuilt)
		iad_log(d, LOG_WARNING, "history: %s: %s", d->hist_path, d->hist.why);
	if (d->hist.damaged)
		iad_log(d, LOG_WARNING, "history: %s holds %llu damaged samples (checksum); "
			"readers skip them and they go as the ring turns", d->hist_path,
			(unsigned long long)d->hist.damaged);
	for (i = 0; i < d->st.nkinds; i++)
		ia_hist_set_kind(&d->hist, d->st.kinds[i].kind, d->st.kinds[i].name,
				 d->st.kinds[i].unit);
}

/*
 * The one rule for what the file keeps, for polls and failures alike: the
 * kinds its header can name (a record's kind is a byte, so kind 258 would
 * read as kind 2). A kind beyond them, from a newer module, is said once.
 */
static bool hist_keeps(struct iad *d, const struct iad_obj *ob)
{
	if (ob->kind < IA_HIST_KINDS)
		return true;
	if (!d->hist_kind_said)
		iad_log(d, LOG_NOTICE, "history: quota kind %u is not kept in %s (it holds kinds "
			"0-%d; a newer iommu_account than this daemon?)", (unsigned int)ob->kind,
			d->hist_path, IA_HIST_KINDS - 1);
	d->hist_kind_said = true;
	return false;
}

static struct ia_hist_rec hist_sample(struct iad_obj *ob, double t)
{
	struct ia_hist_rec r = {
		.t = t, .kind = (uint8_t)ob->kind, .id = ob->id, .used = ob->used,
		.limit = ob->has_limit ? ob->limit : 0, .has_limit = ob->has_limit,
		.uid = ob->uid, .state = (uint8_t)ob->state,
	};

	ob->hist_written = true;
	ob->hist_used = ob->used;
	ob->hist_limit = ob->limit;
	ob->hist_has_limit = ob->has_limit;
	ob->hist_state = (uint8_t)ob->state;
	ob->hist_t = t;
	return r;
}

static void hist_write(struct iad *d, const struct ia_hist_rec *r, size_t n)
{
	size_t i;
	int ret;

	if (!n)
		return;
	ret = ia_hist_append(&d->hist, r, n);
	if (!ret)
		return;
	iad_log(d, LOG_WARNING, "history: writing %s: %s; going on without it "
		"(trying again every 30 s)", d->hist_path, strerror(-ret));
	iad_history_close(d);
	d->hist_said = true;
	d->hist_retry_at = d->now + IAD_HIST_RETRY_S;
	d->hist_write_errors++;
	/* What was not written is written at the retry: a sample of each. */
	for (i = 0; i < d->objs.n; i++)
		d->objs.v[i]->hist_written = false;
}

void iad_history_failure(struct iad *d, struct iad_obj *ob, const struct iad_who *who, double t)
{
	struct ia_hist_rec r[1 + IAD_HOLDERS];
	const struct iad_holder *h = ob->holders;
	struct iad_holder mapper;
	unsigned int i, nh = ob->nholders;

	if (!d->hist.hdr || !hist_keeps(d, ob))
		return;
	/* An event without the kernel's time: now. */
	if (!(t > 0))
		t = ia_realtime();
	/*
	 * A poll between the refusal and its event may have written a sample
	 * after the kernel's time: an object's samples stay in time order (a
	 * backfill refuses them out of order), a millisecond after that one.
	 */
	if (ob->hist_written && t <= ob->hist_t)
		t = ob->hist_t + 0.001;
	if (!nh && who && who->present) {
		mapper = (struct iad_holder){ .who = *who, .held = ob->used };
		h = &mapper;
		nh = 1;
	}
	r[0] = hist_sample(ob, t);
	for (i = 0; i < nh && i < IAD_HOLDERS; i++)
		r[1 + i] = (struct ia_hist_rec){
			.t = t, .kind = (uint8_t)ob->kind, .id = ob->id, .state = IA_HIST_HOLDER,
			.held = h[i].held, .cgroup_id = h[i].who.cgroup_id, .pid = h[i].who.pid,
		};
	hist_write(d, r, 1 + i);
}

void iad_history_poll(struct iad *d)
{
	struct ia_hist_rec *r;
	double wall;
	size_t i, n = 0;

	/* Not open after a failure that may pass: again once its time has come. */
	if (!d->hist.hdr && d->hist_retry_at && d->now >= d->hist_retry_at) {
		d->hist_retry_at = 0;
		iad_history_open(d);
	}
	if (!d->hist.hdr || !d->objs.n)
		return;
	r = calloc(d->objs.n, sizeof(*r));
	if (!r)
		return;
	wall = ia_realtime();
	for (i = 0; i < d->st.nkinds; i++)
		ia_hist_set_kind(&d->hist, d->st.kinds[i].kind, d->st.kinds[i].name,
				 d->st.kinds[i].unit);
	for (i = 0; i < d->objs.n; i++) {
		struct iad_obj *ob = d->objs.v[i];

		if (!hist_keeps(d, ob))
			continue;
		if (ob->hist_written && ob->hist_used == ob->used &&
		    ob->hist_has_limit == ob->has_limit && ob->hist_limit == ob->limit &&
		    ob->hist_state == ob->state && wall - ob->hist_t < IAD_HIST_KEYFRAME_S)
			continue;
		r[n++] = hist_sample(ob, wall);
	}
	hist_write(d, r, n);
	free(r);
}
