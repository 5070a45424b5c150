// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk history ([history]): after each poll, a sample of every object
 * whose figures or state changed, and of every object at least each
 * IAD_HIST_KEYFRAME_S, so a reader finds each object's value at any time
 * within the ring. The ring is libia's (lib/history.c): bounded by
 * max_size, the oldest samples go first; readers skip those older than keep.
 * A history that cannot be written is logged once and the daemon goes on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "iad.h"

#define IAD_HIST_KEYFRAME_S 300

void iad_history_close(struct iad *d)
{
	/* Open means a header is held: a zeroed struct iad has none. */
	if (d->hist.hdr)
		ia_hist_close(&d->hist);
	d->hist_path[0] = 0;
}

void iad_history_open(struct iad *d)
{
	char err[512], dir[256], *slash;
	size_t i;

	/* The same file, size and keep: nothing to do (a SIGHUP that changed none). */
	if (d->hist.hdr && !strcmp(d->hist_path, d->cfg.history) &&
	    d->hist_max == d->cfg.history_max && d->hist_keep == d->cfg.history_keep_s)
		return;
	iad_history_close(d);
	if (!d->cfg.history[0])
		return;
	/* Its directory, one level (systemd's StateDirectory= makes it under the unit). */
	snprintf(dir, sizeof(dir), "%s", d->cfg.history);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0750);
	}
	if (ia_hist_open(&d->hist, d->cfg.history, (uint64_t)d->cfg.history_max,
			 d->cfg.history_keep_s, err, sizeof(err))) {
		if (!d->hist_said)
			iad_log(d, LOG_WARNING, "history: %s; going on without it", err);
		d->hist_said = true;
		return;
	}
	d->hist_said = false;
	snprintf(d->hist_path, sizeof(d->hist_path), "%s", d->cfg.history);
	d->hist_max = d->cfg.history_max;
	d->hist_keep = d->cfg.history_keep_s;
	if (d->hist.restarted)
		iad_log(d, LOG_NOTICE, "history: %s had another size or format: started anew",
			d->hist_path);
	for (i = 0; i < d->st.nkinds; i++)
		ia_hist_set_kind(&d->hist, d->st.kinds[i].kind, d->st.kinds[i].name,
				 d->st.kinds[i].unit);
}

void iad_history_poll(struct iad *d)
{
	struct ia_hist_rec *r;
	struct timespec ts;
	double wall;
	size_t i, n = 0;

	if (!d->hist.hdr || !d->objs.n)
		return;
	r = calloc(d->objs.n, sizeof(*r));
	if (!r)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	for (i = 0; i < d->st.nkinds; i++)
		ia_hist_set_kind(&d->hist, d->st.kinds[i].kind, d->st.kinds[i].name,
				 d->st.kinds[i].unit);
	for (i = 0; i < d->objs.n; i++) {
		struct iad_obj *ob = d->objs.v[i];

		if (ob->hist_written && ob->hist_used == ob->used &&
		    ob->hist_has_limit == ob->has_limit && ob->hist_limit == ob->limit &&
		    ob->hist_state == ob->state && wall - ob->hist_t < IAD_HIST_KEYFRAME_S)
			continue;
		r[n++] = (struct ia_hist_rec){
			.t = wall, .kind = ob->kind, .id = ob->id, .used = ob->used,
			.limit = ob->has_limit ? ob->limit : 0, .has_limit = ob->has_limit,
			.uid = ob->uid, .state = (uint8_t)ob->state,
		};
		ob->hist_written = true;
		ob->hist_used = ob->used;
		ob->hist_limit = ob->limit;
		ob->hist_has_limit = ob->has_limit;
		ob->hist_state = (uint8_t)ob->state;
		ob->hist_t = wall;
	}
	if (n && ia_hist_append(&d->hist, r, n)) {
		iad_log(d, LOG_WARNING, "history: writing %s: %s; going on without it",
			d->hist_path, strerror(errno ? errno : EIO));
		iad_history_close(d);
		d->hist_said = true;
	}
	free(r);
}
