// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's source: the module over generic netlink (libia).
 *
 *  - every interval: STATUS (the kinds the module announces, its dropped
 *    events) and one GET_QUOTA dump of every kind; objects not in the dump
 *    are gone;
 *  - the events group: failures are relayed at once; a threshold event
 *    re-reads that object and evaluates it now (the event path);
 *  - a gap in the sequence numbers or a socket overrun (ENOBUFS): logged
 *    once, counted, then a full dump at once (resync); a sequence that
 *    starts again is a reload, not a loss;
 *  - nlctrl's notify group: the family's removal and return (rmmod,
 *    modprobe) are seen at once; a failed request also marks the source down.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/socket.h>
#include <uapi/linux/iommu_account.h>

#include "gen/ynl.h"
#include "iad.h"

/* The longest wait between tries while the module is absent (each try loads it). */
#define DOWN_RETRY_MAX_S 300.0

/* --- nlctrl notifications --------------------------------------------- */

/*
 * nlctrl has no generated client here: libynl resolves it and joins its
 * notify group (a family of just a name), and its messages are read raw.
 */
static const struct ynl_family nlctrl = { .name = "nlctrl" };

static void ctrl_msg(struct iad *d, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = ynl_nlmsg_data(nlh);
	const struct nlattr *a;
	bool ours = false;

	if (nlh->nlmsg_type != GENL_ID_CTRL || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*g))
		return;
	ynl_attr_for_each(a, nlh, sizeof(*g))
		if (ynl_attr_type(a) == CTRL_ATTR_FAMILY_NAME && ynl_attr_data_len(a) &&
		    !ynl_attr_get_str(a)[ynl_attr_data_len(a) - 1])
			ours = !strcmp(ynl_attr_get_str(a), IOMMU_ACCOUNT_FAMILY_NAME);
	if (!ours)
		return;
	if (g->cmd == CTRL_CMD_DELFAMILY && d->up) {
		iad_log(d, LOG_WARNING, "iommu_account was unloaded: source down, waiting for it");
		snprintf(d->down_why, sizeof(d->down_why), "iommu_account was unloaded");
		d->up = false;
		d->said_waiting = true;
	} else if (g->cmd == CTRL_CMD_NEWFAMILY) {
		d->next_poll = 0;	/* connect and resync now */
		d->down_retry = 0;
	}
}

int iad_source_ctrl_fd(struct iad *d)
{
	return d->ctrl ? ynl_socket_get_fd(d->ctrl) : -1;
}

void iad_source_ctrl(struct iad *d)
{
	static char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *nlh;
	ssize_t len;

	while ((len = recv(ynl_socket_get_fd(d->ctrl), buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		for (nlh = (void *)buf; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len))
			ctrl_msg(d, nlh);
}

int iad_source_init(struct iad *d)
{
	struct ynl_error yerr;

	d->ctrl = ynl_sock_create(&nlctrl, &yerr);
	/* Not inherited by the exec hooks (libynl's socket is not close-on-exec). */
	if (d->ctrl)
		fcntl(ynl_socket_get_fd(d->ctrl), F_SETFD, FD_CLOEXEC);
	if (!d->ctrl || ynl_subscribe(d->ctrl, "notify")) {
		/* Not fatal: failed requests still tell that the module left. */
		iad_log(d, LOG_WARNING, "no nlctrl notifications: module unloads are seen "
			"at the next poll only");
		if (d->ctrl)
			ynl_sock_destroy(d->ctrl);
		d->ctrl = NULL;
	}
	return 0;
}

static void disconnect(struct iad *d)
{
	ia_client_close(&d->req);
	ia_client_close(&d->ev);
	d->up = false;
	d->events = false;
	iad_hseries_free(d);	/* no module: nobody is known to hold anything */
}

void iad_source_fini(struct iad *d)
{
	disconnect(d);
	free(d->refusals);
	d->refusals = NULL;
	d->nrefusals = 0;
	if (d->ctrl)
		ynl_sock_destroy(d->ctrl);
	d->ctrl = NULL;
}

int iad_source_event_fd(struct iad *d)
{
	return d->events ? ia_client_fd(&d->ev) : -1;
}

/* --- polling ------------------------------------------------------------ */

static const char *refused_by_err(uint32_t kind, uint32_t err);
static const char *refusal_consumer(uint32_t kind, const uint32_t *consumer);
static void tally_refusal(struct iad *d, uint32_t kind, const char *by, const char *consumer,
			  uint32_t uid, uint64_t count, double t);

struct poll_arg {
	struct iad *d;
	bool first;	/* first dump after (re)connecting: refusal baselines */
};

static void who_of_owner(struct iad_who *w, const struct ia_owner *o)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	if (!o->present)
		return;
	w->present = true;
	w->pid = o->pid;
	w->uid = o->uid;
	w->cgroup_id = o->cgroup_id;
	/*
	 * A process names itself (prctl PR_SET_NAME) with any bytes: they are
	 * kept whole, and every output writes them by libia's one rule
	 * (lib/esc.c), so none can forge a line of the log or an entry of /alerts.
	 */
	for (i = 0; o->comm[i] && i < sizeof(w->comm) - 1; i++)
		w->comm[i] = o->comm[i];
	w->comm[i] = 0;
}

/*
 * The owner's container and pod, resolved once per cgroup id it acted in
 * (a path from its /proc entry checked by inode, else a walk of
 * /sys/fs/cgroup): its series' identity labels. A cgroup gone before it
 * was resolved names nothing, and is not tried again.
 */
static void owner_ident(struct iad_obj *ob)
{
	struct ia_identity *id;
	uint64_t cg = ob->owner.cgroup_id;
	char path[IA_CGROUP_MAX];

	if (!cg || (ob->ident && ob->ident->cgroup_id == cg))
		return;
	if (!ob->ident && !(ob->ident = calloc(1, sizeof(*ob->ident))))
		return;
	memset(ob->ident, 0, sizeof(*ob->ident));
	ob->ident->cgroup_id = cg;
	id = malloc(sizeof(*id));
	if (!id)
		return;
	if (ia_cgroup_path_hint(cg, ob->owner.pid, path, sizeof(path))) {
		ia_identity_of(path, id);
		memcpy(ob->ident->container_id, id->container_id, sizeof(id->container_id));
		memcpy(ob->ident->pod_uid, id->pod_uid, sizeof(id->pod_uid));
	}
	free(id);
}

static void evaluate(struct iad *d, struct iad_obj *ob, const struct iad_thr *thr)
{
	struct iad_alert a;
	char reason[IAD_REASON_MAX];

	if (iad_obj_evaluate(ob, d->now, thr, iad_kind_unit(d, ob->kind), reason, sizeof(reason),
			     &a))
		iad_raise(d, &a);
}

/* The figures of a GET_QUOTA reply; whether any changed. */
static bool quota_figures(struct iad_obj *ob, const struct ia_quota *q)
{
	bool changed = ob->used != q->used || ob->has_limit != q->has_limit ||
		       ob->limit != q->limit;

	ob->used = q->used;
	ob->has_limit = q->has_limit;
	ob->limit = q->limit;
	ob->has_limit_min = q->has_limit_min;
	ob->limit_min = q->limit_min;
	ob->uid = q->uid;
	return changed;
}

static int quota_cb(const struct ia_quota *q, void *arg)
{
	struct poll_arg *p = arg;
	struct iad *d = p->d;
	struct iad_obj *ob = iad_obj_get(&d->objs, q->kind, q->id);
	struct iad_thr thr;
	struct iad_alert a;
	char reason[IAD_REASON_MAX];

	if (!ob)
		return -ENOMEM;
	ob->seen = true;
	if (!ob->nhist && !ob->flat_n)
		d->poll_changed = true;		/* new */
	if (quota_figures(ob, q))
		d->poll_changed = true;
	who_of_owner(&ob->owner, &q->owner);
	if (!ob->owner.present)
		ob->owner.uid = q->uid;
	owner_ident(ob);
	/*
	 * Refusals the events did not bring (lost, or not subscribed): a
	 * FAILURE from the kernel's own count. Not at the first sight of an
	 * object or after a reconnect (the count restarts with the module).
	 */
	if (ob->refusals_known && !p->first && q->refusals > ob->refusals) {
		/*
		 * The kernel counts a refusal before its event reaches us: with
		 * events followed, wait one poll for the event (who, what,
		 * where); it resets the baseline. Still nothing: raise it here.
		 */
		if (d->events && !ob->refusal_deferred) {
			ob->refusal_deferred = true;
			goto sample;
		}
		const struct ia_failure *lf = &q->last_failure;
		struct iad_who who = { 0 };
		char sz[32];

		if (lf->present) {
			/* Who and what, from the module's record of the last refusal. */
			who.present = true;
			who.pid = lf->owner.pid;
			who.uid = lf->owner.uid;
			who.cgroup_id = lf->cgroup_id;
			snprintf(who.comm, sizeof(who.comm), "%s", lf->owner.comm);
			snprintf(reason, sizeof(reason),
				 "the kernel refused %llu time(s) since the last poll (no event "
				 "came); the last: %s of %s by %s[%u] uid %u",
				 (unsigned long long)(q->refusals - ob->refusals),
				 ia_errno_name((int)lf->err),
				 ia_human_bytes(lf->size, sz, sizeof(sz)), who.comm, who.pid,
				 who.uid);
		} else {
			snprintf(reason, sizeof(reason),
				 "the kernel refused %llu time(s) since the last poll (no event came)",
				 (unsigned long long)(q->refusals - ob->refusals));
		}
		tally_refusal(d, ob->kind, lf->present ? refused_by_err(ob->kind, lf->err) : NULL,
			      refusal_consumer(ob->kind, NULL),
			      lf->present ? who.uid : ob->uid, q->refusals - ob->refusals,
			      lf->present ? (double)lf->time_ns / 1e9 : ia_realtime());
		if (iad_obj_fail(ob, d->now, lf->present ? &who : NULL, lf->err, lf->size, 0,
				 reason, sizeof(reason), &a))
			iad_raise(d, &a);
	}
	ob->refusal_deferred = false;
	ob->refusals = q->refusals;
	ob->refusals_known = true;
sample:
	iad_thr_of(d, ob->kind, &thr);
	iad_obj_sample(ob, d->now, &thr);
	evaluate(d, ob, &thr);
	return 0;
}

/* Objects not in the last dump are gone: CLEARED when alerting, dropped. */
static void sweep(struct iad *d)
{
	struct iad_alert a;
	size_t i, k = 0;

	for (i = 0; i < d->objs.n; i++) {
		struct iad_obj *ob = d->objs.v[i];

		if (!ob->seen) {
			d->poll_changed = true;
			if (iad_obj_gone(ob, d->now, &a))
				iad_raise(d, &a);
			iad_obj_free(ob);
			continue;
		}
		ob->seen = false;
		d->objs.v[k++] = ob;
	}
	d->objs.n = k;
}

/*
 * Every event the module sent up to STATUS' events-seq (read just before)
 * is in our socket or lost: the module hands an event to the socket before
 * it counts it as sent. So drain the socket, then what is still missing is
 * lost - exactly, and without waiting for a later event to show the gap (a
 * congested socket drops without a second ENOBUFS). At the first poll after
 * connecting, the events before our subscription are not ours: no loss.
 */
static void account_sent(struct iad *d, bool first)
{
	struct pollfd p = { .fd = iad_source_event_fd(d), .events = POLLIN };
	uint64_t sent = d->st.events_seq, lost;

	while (p.fd >= 0 && poll(&p, 1, 0) > 0 && p.revents) {
		iad_source_events(d);
		p.fd = iad_source_event_fd(d);
	}
	if (!d->events || !d->st.has_events_seq || sent <= d->last_seq)
		return;
	lost = sent - d->last_seq;
	if (!first) {
		d->events_lost += lost;
		iad_log(d, LOG_WARNING, "%llu event(s) lost%s; figures resynchronised",
			(unsigned long long)lost,
			d->overrun_noted ? " in the socket overrun" : " (module queue or socket full)");
	}
	d->last_seq = sent;
	d->evcb.last_seq = sent;
	d->evcb.overrun = false;
	d->overrun_noted = false;
}

void iad_hseries_free(struct iad *d)
{
	size_t i;

	for (i = 0; i < d->nhs; i++)
		free(d->hs[i].path);
	free(d->hs);
	free(d->ho);
	d->hs = NULL;
	d->ho = NULL;
	d->nhs = d->nho = 0;
	d->hs_at = 0;
}

struct hs_poll {
	struct iad_hseries *v;
	size_t n, cap;
};

/* One entry per process holding pot bytes: summed per cgroup afterwards. */
static int hs_cb(const struct ia_proc *p, void *arg)
{
	struct hs_poll *hp = arg;
	uint64_t held = ia_consumers_total(p->consumer);
	struct iad_hseries *nv;

	if (!held)
		return 0;
	if (hp->n == hp->cap) {
		nv = realloc(hp->v, (hp->cap = hp->cap ? hp->cap * 2 : 64) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		hp->v = nv;
	}
	hp->v[hp->n] = (struct iad_hseries){ p->uid, p->cgroup_id, held,
					     strdup(p->cgroup[0] ? p->cgroup : "?"),
					     p->cgroup[0] && p->cgroup_truncated };
	if (!hp->v[hp->n].path)
		return -ENOMEM;
	hp->n++;
	return 0;
}

static int by_uid_cgroup(const void *a, const void *b)
{
	const struct iad_hseries *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->cgroup_id < y->cgroup_id ? -1 : x->cgroup_id > y->cgroup_id;
}

static int by_uid_bytes(const void *a, const void *b)
{
	const struct iad_hseries *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->path, y->path);
}

int iad_hseries_set(struct iad *d, struct iad_hseries *v, size_t n)
{
	struct iad_hother *ho = NULL;
	size_t i, k = 0, m = 0, nho = 0, rank = 0;

	/* One per (uid, cgroup): sorted, then each run summed (n log n, not n²). */
	qsort(v, n, sizeof(*v), by_uid_cgroup);
	for (i = 0; i < n; i++) {
		if (m && v[m - 1].uid == v[i].uid && v[m - 1].cgroup_id == v[i].cgroup_id) {
			v[m - 1].bytes += v[i].bytes;
			free(v[i].path);
			continue;
		}
		v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), by_uid_bytes);
	for (i = 0; i < m; i++) {
		rank = i && v[i].uid == v[i - 1].uid ? rank + 1 : 0;
		if (rank < (size_t)d->cfg.holders) {
			v[k++] = v[i];
			continue;
		}
		/* Beyond the top: into the uid's rest (the entry before is its own, if any). */
		if (!nho || ho[nho - 1].uid != v[i].uid) {
			struct iad_hother *nv = realloc(ho, (nho + 1) * sizeof(*ho));

			if (!nv) {
				free(ho);
				for (; i < m; i++)
					free(v[i].path);
				for (i = 0; i < k; i++)
					free(v[i].path);
				free(v);
				return -ENOMEM;
			}
			ho = nv;
			ho[nho++] = (struct iad_hother){ v[i].uid, 0, 0 };
		}
		ho[nho - 1].cgroups++;
		ho[nho - 1].bytes += v[i].bytes;
		free(v[i].path);
	}
	iad_hseries_free(d);
	d->hs = v;
	d->nhs = k;
	d->ho = ho;
	d->nho = nho;
	d->hs_at = d->now > 0 ? d->now : 1;
	return 0;
}

/*
 * The exporter's holder series: GET_PROC's dump of the processes holding
 * charges, summed per uid and cgroup, the top [exporter] holders of each
 * uid kept and the rest summed (bounded cardinality, the parts still add
 * up). A failed dump keeps the last series.
 */
static void holders_poll(struct iad *d)
{
	bool moved = d->poll_changed || d->hs_stale || d->hs_moved;
	struct hs_poll hp = { 0 };
	double t0;
	size_t i;

	if (!d->cfg.listen[0] || d->cfg.holders < 1 || d->cfg.objects_only)
		return;
	/*
	 * The dump walks every process: taken when this poll saw a figure
	 * change or an event came since the last dump (events move figures
	 * between polls), and once more at the poll after (the kernel records
	 * a process's charge just after the pot takes it: a dump right at the
	 * last change can miss it); else at most every IAD_HOLDERS_REFRESH_S
	 * (a charge that moves between processes, or a process between
	 * cgroups, without changing a pot shows then).
	 */
	if (d->hs_at > 0 && !moved && d->now - d->hs_at < IAD_HOLDERS_REFRESH_S)
		return;
	d->hs_moved = d->poll_changed || d->hs_stale;
	d->hs_stale = false;
	t0 = ia_mono();
	if (ia_get_procs(&d->req, NULL, NULL, hs_cb, &hp)) {
		for (i = 0; i < hp.n; i++)
			free(hp.v[i].path);
		free(hp.v);
		return;
	}
	iad_hseries_set(d, hp.v, hp.n);
	iad_log(d, LOG_DEBUG, "holder series: %zu processes dumped and summed in %.6f s", hp.n,
		ia_mono() - t0);
}

static int poll_once(struct iad *d, bool first)
{
	struct poll_arg p = { d, first };
	size_t i;
	int err;

	err = ia_get_status(&d->req, &d->st);
	if (!err && d->st.has_events_seq && d->st.events_seq < d->last_seq) {
		/* Fewer events sent than we read: a new module instance. */
		d->restarts++;
		iad_log(d, LOG_NOTICE, "the module's event sequence restarted (reloaded)");
		d->last_seq = 0;
		d->evcb.last_seq = 0;
	}
	if (!err && d->events)
		account_sent(d, first);
	if (!err)
		err = ia_get_quotas(&d->req, NULL, NULL, quota_cb, &p);
	if (err) {
		/* Marks of a partial dump must not make objects look alive. */
		for (i = 0; i < d->objs.n; i++)
			d->objs.v[i]->seen = true;
		sweep(d);
		return err;
	}
	sweep(d);
	holders_poll(d);
	d->polls++;
	if (first)
		iad_history_open(d);	/* the kinds' names are known now */
	iad_history_poll(d);
	return 0;
}

static void events_subscribe(struct iad *d)
{
	int err;

	memset(&d->evcb, 0, sizeof(d->evcb));
	if (!d->cfg.events)
		return;		/* [daemon] events = no: polling only */
	err = ia_client_open(&d->ev);
	if (!err)
		err = ia_events_subscribe(&d->ev);
	if (err) {
		if (!d->said_noevents)
			iad_log(d, LOG_WARNING, "no events (%s): alerts come from polling "
				"every %g s only", d->ev.errmsg, d->cfg.interval_s);
		d->said_noevents = true;
		ia_client_close(&d->ev);
		return;
	}
	ia_client_nonblocking(&d->ev);
	d->events = true;
}

static int connect_source(struct iad *d)
{
	int err = ia_client_open(&d->req);

	if (err) {
		snprintf(d->down_why, sizeof(d->down_why), "%s", d->req.errmsg);
		ia_client_close(&d->req);
		if (!d->said_waiting)
			iad_log(d, LOG_WARNING, "%s; waiting for it", d->req.errmsg);
		d->said_waiting = true;
		return err;
	}
	/* Subscribe first: nothing between the dump and the first event is lost. */
	events_subscribe(d);
	d->last_seq = 0;
	err = poll_once(d, true);
	if (err) {
		snprintf(d->down_why, sizeof(d->down_why), "the first poll of iommu_account failed: %s",
			 strerror(err < 0 ? -err : err));
		disconnect(d);
		return err;
	}
	d->up = true;
	d->down_why[0] = 0;
	d->said_waiting = false;
	d->reconnects++;
	iad_log(d, LOG_NOTICE, "source up: iommu_account %s on %s, %u quota kind(s), "
		"%zu object(s)%s", d->st.module_version, d->st.kernel_release, d->st.nkinds,
		d->objs.n, d->events ? ", events followed" : "");
	return 0;
}

double iad_source_tick(struct iad *d)
{
	double t0;
	int err;

	if (d->resync && d->up) {
		d->resync = false;
		d->resyncs++;
		d->next_poll = 0;
	}
	if (d->now < d->next_poll)
		return d->next_poll - d->now;
	d->next_poll = d->now + d->cfg.interval_s;
	t0 = ia_mono();
	if (!d->up) {
		disconnect(d);
		if (!connect_source(d)) {
			d->down_retry = 0;
			d->cur_interval = d->cfg.interval_s;
			return d->cfg.interval_s;
		}
		/*
		 * Each try asks the kernel to load the module (genl autoload),
		 * which a refusing kernel logs: back off, doubling up to
		 * DOWN_RETRY_MAX_S. The module's arrival (nlctrl NEWFAMILY)
		 * brings the next try forward at once.
		 */
		d->down_retry = d->down_retry ? d->down_retry * 2 : d->cfg.interval_s;
		if (d->down_retry > DOWN_RETRY_MAX_S)
			d->down_retry = DOWN_RETRY_MAX_S;
		if (d->down_retry < d->cfg.interval_s)
			d->down_retry = d->cfg.interval_s;
		if (!d->ctrl && d->down_retry > d->cfg.interval_s * 8)
			d->down_retry = d->cfg.interval_s * 8;	/* no notifications to wait for */
		d->next_poll = d->now + d->down_retry;
		return d->down_retry;
	}
	d->poll_changed = false;
	err = poll_once(d, false);
	/*
	 * Nothing moved and the kernel reports crossings and refusals itself
	 * (events followed): poll less, up to idle_interval. Any change or
	 * event brings it back to interval.
	 */
	if (!err && d->events && !d->poll_changed) {
		d->cur_interval *= 2;
		if (d->cur_interval > d->cfg.idle_interval_s)
			d->cur_interval = d->cfg.idle_interval_s;
	} else {
		d->cur_interval = d->cfg.interval_s;
	}
	if (d->cur_interval < d->cfg.interval_s)
		d->cur_interval = d->cfg.interval_s;
	d->next_poll = d->now + d->cur_interval;
	if (err) {
		d->poll_errors++;
		iad_log(d, LOG_WARNING, "poll failed (%s): source down, reconnecting",
			d->req.errmsg[0] ? d->req.errmsg : strerror(-err));
		disconnect(d);
		d->said_waiting = true;
	}
	d->last_poll_s = ia_mono() - t0;
	return d->next_poll - d->now;
}

/* --- events --------------------------------------------------------------- */

/* The object an event is about, for the kinds whose events say it. */
static bool event_object(const struct ia_event *ev, uint32_t *id)
{
	/* Kinds that carry the object (published ones): no kind-specific code. */
	if (ev->has_quota && ev->quota.kind == ev->kind) {
		*id = ev->quota.id;
		return true;
	}
	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		*id = ev->uid;
		return true;
	}
	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER) {
		*id = ev->container;
		return true;
	}
	return false;
}

static int quota_now_cb(const struct ia_quota *q, void *arg)
{
	struct iad *d = arg;
	struct iad_obj *ob = iad_obj_get(&d->objs, q->kind, q->id);
	struct iad_thr thr;

	if (!ob)
		return -ENOMEM;
	quota_figures(ob, q);
	iad_thr_of(d, ob->kind, &thr);
	evaluate(d, ob, &thr);
	return 0;
}

/* The figures an event carries, in the kind's unit. */
static void event_figures(struct iad_obj *ob, const struct ia_event *ev)
{
	if (ev->has_quota) {
		ob->used = ev->quota.used;
		ob->has_limit = ev->quota.has_limit;
		ob->limit = ev->quota.limit;
		ob->uid = ev->quota.uid;
	} else if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		ob->used = ev->locked_bytes;
		ob->uid = ev->uid;
		/*
		 * A threshold's limit is the charger's, the pot's own; a
		 * failure's is the refused process's, which the pot's is not
		 * (GET_QUOTA's "limit"): a process with a smaller limit refused
		 * must not make the pot look over full.
		 */
		if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE && (ob->nhist || ob->flat_n))
			return;
		ob->has_limit = ev->memlock_limit != UINT64_MAX;
		ob->limit = ev->memlock_limit;
	} else {
		ob->used = ev->entries;
		ob->has_limit = true;
		ob->limit = ev->limit;
		ob->uid = ev->owner.uid;
	}
}

static void handle_event(struct iad *d, const struct ia_event *ev);

static const char *kind_name(const struct iad *d, uint32_t kind)
{
	const struct ia_quota_kind *k = ia_quota_kind_find(&d->st, kind);

	return k ? k->name : "quota";
}

/*
 * A published object went away (its owner closed it or exited). Said once,
 * louder when operations were still outstanding; the next poll's sweep
 * clears its alerts, as for any object that is gone.
 */
static void event_gone(struct iad *d, const struct ia_event *ev)
{
	const struct ia_quota *q = &ev->quota;
	struct iad_obj *ob = iad_obj_find(&d->objs, ev->kind, q->id);
	struct iad_who who;

	/* Its last figures, for the CLEARED the sweep will say. */
	if (ob)
		event_figures(ob, ev);
	who_of_owner(&who, &q->owner);
	iad_log(d, q->used || q->deferred_now ? LOG_WARNING : LOG_NOTICE,
		"%s %u '%s' of %s[%u] (uid %u) is gone with %llu in use and %llu deferred "
		"(%llu submitted, %llu rejected, peak %llu of %llu)%s", kind_name(d, ev->kind), q->id,
		q->name, who.comm, who.pid, q->uid, (unsigned long long)q->used,
		(unsigned long long)q->deferred_now, (unsigned long long)q->submitted,
		(unsigned long long)q->refusals, (unsigned long long)q->peak,
		(unsigned long long)q->limit,
		q->flags & IOMMU_ACCOUNT_QUOTA_FLAGS_INCONSISTENT ? "; its figures were inconsistent" : "");
}

static int event_cb(const struct ia_event *ev, uint64_t lost, bool overrun, void *arg)
{
	struct iad *d = arg;

	d->events_seen++;
	if (d->last_seq && ev->seq <= d->last_seq) {
		/* The module's sequence started again: it was reloaded. */
		d->restarts++;
		iad_log(d, LOG_NOTICE, "event sequence restarted at %llu (module reloaded): "
			"resynchronising", (unsigned long long)ev->seq);
		d->resync = true;
	} else if (lost && overrun) {
		/* The overrun was logged and resynchronised when it happened. */
		d->events_lost += lost;
		if (d->debug)
			iad_log(d, LOG_DEBUG, "the overrun lost %llu event(s)",
				(unsigned long long)lost);
	} else if (lost) {
		d->events_lost += lost;
		iad_log(d, LOG_WARNING, "%llu event(s) lost (the module's queue was full): "
			"resynchronising with a full dump", (unsigned long long)lost);
		d->resync = true;
	}
	d->last_seq = ev->seq;
	/* Something happens: back to the full polling rate. */
	if (d->cur_interval > d->cfg.interval_s) {
		d->cur_interval = d->cfg.interval_s;
		if (d->next_poll > d->now + d->cur_interval)
			d->next_poll = d->now + d->cur_interval;
	}
	d->cur_event = ev;
	handle_event(d, ev);
	d->cur_event = NULL;
	return 0;
}

/*
 * The kernel limit behind a refusal, from its errno: a type1 container
 * refuses with ENOSPC at dma_entry_limit and with ENOMEM when the mapper's
 * locked_vm would pass its RLIMIT_MEMLOCK; the pot, ENOMEM (io_uring) or
 * ENOBUFS (AF_XDP), at the charging process's RLIMIT_MEMLOCK.
 */
static const char *refused_by_err(uint32_t kind, uint32_t err)
{
	if (kind == IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER)
		return err == ENOSPC ? "dma_entry_limit" : err == ENOMEM ? "RLIMIT_MEMLOCK" : NULL;
	if (kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT)
		return err == ENOMEM || err == ENOBUFS ? "RLIMIT_MEMLOCK" : NULL;
	/* An iommufd context's refusal is the process's own locked_vm (mm mode). */
	if (kind == IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX)
		return err == ENOMEM ? "RLIMIT_MEMLOCK" : NULL;
	/* A qpair's: the application's own descriptor pool, not memory. */
	if (kind == IOMMU_ACCOUNT_QUOTA_KIND_QPAIR)
		return "qpair pool";
	return NULL;
}

static const char *refused_by(const struct ia_event *ev)
{
	return refused_by_err(ev->kind, ev->err);
}

/*
 * @count refusals of @kind by @by (refused_by_err()'s word, NULL: not
 * known) of @consumer, the refused process's @uid, the last at @t
 * (CLOCK_REALTIME, s): counted under their labels (the exporter's
 * iommu_account_refusals_total and _refusal_last_timestamp_seconds).
 */
static void tally_refusal(struct iad *d, uint32_t kind, const char *by, const char *consumer,
			  uint32_t uid, uint64_t count, double t)
{
	bool expected = iad_config_expected(&d->cfg, uid);
	char cause[24];
	struct iad_refusal *r, *v;
	size_t i, k;

	/* The label: "RLIMIT_MEMLOCK" -> rlimit_memlock, "qpair pool" -> qpair_pool. */
	snprintf(cause, sizeof(cause), "%s", by ? by : "unknown");
	for (k = 0; cause[k]; k++)
		cause[k] = cause[k] == ' ' ? '_' : (char)tolower((unsigned char)cause[k]);
	for (i = 0; i < d->nrefusals; i++) {
		r = &d->refusals[i];
		if (r->kind == kind && r->expected == expected && !strcmp(r->cause, cause) &&
		    !strcmp(r->consumer, consumer))
			goto found;
	}
	v = realloc(d->refusals, (d->nrefusals + 1) * sizeof(*v));
	if (!v)
		return;
	d->refusals = v;
	r = &v[d->nrefusals++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->expected = expected;
	memcpy(r->cause, cause, sizeof(r->cause));
	snprintf(r->consumer, sizeof(r->consumer), "%s", consumer);
found:
	r->n += count;
	if (t > r->last_t)
		r->last_t = t;
}

/*
 * The consumer a refusal of @kind is of: a pot's own (@consumer, an
 * event's; NULL: not known, as from a poll), iommufd's, else none.
 */
static const char *refusal_consumer(uint32_t kind, const uint32_t *consumer)
{
	if (kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT)
		return consumer ? ia_consumer_name(*consumer) : "";
	return kind == IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX ? "iommufd" : "";
}

/* Under a pot's FAILURE: its uid's processes, by what GET_PROC attributes to them. */
struct holders {
	struct iad_holder *h;
	unsigned int n;
};

static int holder_cb(const struct ia_proc *p, void *arg)
{
	struct holders *hs = arg;
	uint64_t held = ia_consumers_total(p->consumer);
	struct ia_owner o = { .present = true, .pid = p->pid, .uid = p->uid };
	unsigned int i;

	if (!held)
		return 0;
	/* Insertion into the top IAD_HOLDERS, most first. */
	for (i = hs->n; i > 0 && hs->h[i - 1].held < held; i--)
		if (i < IAD_HOLDERS)
			hs->h[i] = hs->h[i - 1];
	if (i >= IAD_HOLDERS)
		return 0;
	memcpy(o.comm, p->comm, sizeof(o.comm));
	o.comm[sizeof(o.comm) - 1] = 0;
	who_of_owner(&hs->h[i].who, &o);
	hs->h[i].who.cgroup_id = p->cgroup_id;
	hs->h[i].held = held;
	if (hs->n < IAD_HOLDERS)
		hs->n++;
	return 0;
}

/*
 * The flight record of @ob's FAILURE, taken now (the event is being
 * handled): a pot's holders from GET_PROC of its uid; another kind's owner
 * with what the object uses. Kept in @ob until its next FAILURE.
 */
static void flight_record(struct iad *d, struct iad_obj *ob, const struct ia_event *ev)
{
	struct holders hs = { ob->holders, 0 };

	ob->nholders = 0;
	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		/* A failed dump leaves what was read: the record says what it knows. */
		ia_get_procs(&d->req, NULL, &ob->id, holder_cb, &hs);
		ob->nholders = hs.n;
		return;
	}
	if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER || !ob->owner.present)
		return;		/* a container's mapper is the refused process: in who */
	ob->holders[0].who = ob->owner;
	ob->holders[0].held = ob->used;
	ob->nholders = 1;
}

/*
 * A pot's FAILURE carries the cause explain uid gives (libia's diagnosis,
 * lib/explain.c): appended to @reason, that the pot is one counter shared by
 * the uid's processes and cgroups, and where the refused process's
 * RLIMIT_MEMLOCK (@limit, the kernel's figure at the refusal) comes from;
 * the fixes that apply, as 1 << IA_FIX_* (0: no diagnosis). The diagnosis
 * read the uid's processes from GET_PROC: @ob's flight record is taken from
 * them (*recorded), not from a second dump, unless they were cut.
 */
static unsigned int pot_cause(struct iad *d, struct iad_obj *ob, const struct iad_who *who,
			      uint64_t limit, char *reason, size_t rlen, bool *recorded)
{
	struct ia_pot_diag *dg = calloc(1, sizeof(*dg));
	struct holders hs = { ob->holders, 0 };
	struct ia_pinfo origin, parent;
	size_t n = strlen(reason);
	char b1[32], b2[32];
	unsigned int fixes = 0, i;

	if (!dg || ia_pot_diagnose(&d->req, ob->id, dg) || !dg->exists)
		goto out;
	fixes = dg->fixes;
	if (!dg->procs_cut) {
		for (i = 0; i < dg->nprocs; i++)
			holder_cb(&dg->procs[i], &hs);
		ob->nholders = hs.n;
		*recorded = true;
	}
	/* Past the diagnosis's bound the rest was not read: "more than", and no holders recorded. */
	n += snprintf(reason + n, rlen - n, "; the pot is one counter for uid %u, shared by %s%u "
		      "process%s in %s%u cgroup%s%s", ob->id, dg->procs_cut ? "more than " : "",
		      dg->nprocs, dg->nprocs == 1 ? "" : "es", dg->procs_cut ? "at least " : "",
		      dg->ncg, dg->ncg == 1 ? "" : "s",
		      dg->last_elsewhere ? ", none of it in the refused process's cgroup" : "");
	/* Where its limit comes from, when /proc still shows the limit it had. */
	if (n >= rlen || !who->present || limit == UINT64_MAX ||
	    ia_pinfo_limit_origin((int)who->pid, &origin, &parent) || origin.memlock != limit)
		goto out;
	ia_human_bytes(limit, b1, sizeof(b1));
	if (origin.pid == (int)who->pid)
		n += snprintf(reason + n, rlen - n, "; its RLIMIT_MEMLOCK %s is its own", b1);
	else
		n += snprintf(reason + n, rlen - n, "; its RLIMIT_MEMLOCK %s comes from %s[%d]",
			      b1, origin.comm, origin.pid);
	if (n < rlen && parent.pid)
		snprintf(reason + n, rlen - n, ", whose parent %s[%d] has %s", parent.comm,
			 parent.pid, parent.memlock == UINT64_MAX ? "unlimited" :
			 ia_human_bytes(parent.memlock, b2, sizeof(b2)));
out:
	if (dg)
		ia_pot_diag_free(dg);
	free(dg);
	return fixes;
}

/* ": dma_entry_limit (65535 entries) reached", ": over the mapper's RLIMIT_MEMLOCK (...)" */
static const char *refused_by_text(const struct ia_event *ev, const char *by, char *buf,
				   size_t len)
{
	char lim[32], locked[32];

	buf[0] = 0;
	if (!by)
		return buf;
	if (!strcmp(by, "dma_entry_limit")) {
		snprintf(buf, len, ": dma_entry_limit (%u entries) reached", ev->limit);
		return buf;
	}
	if (ev->memlock_limit == UINT64_MAX) {
		snprintf(buf, len, ": the mapper's RLIMIT_MEMLOCK");
		return buf;
	}
	ia_amount("B", (double)ev->memlock_limit, lim, sizeof(lim));
	ia_amount("B", (double)ev->locked_bytes, locked, sizeof(locked));
	snprintf(buf, len, ": over the mapper's RLIMIT_MEMLOCK (%s, with %s locked)", lim, locked);
	return buf;
}

static void handle_event(struct iad *d, const struct ia_event *ev)
{
	struct iad_obj *ob;
	struct iad_alert a;
	struct iad_who who;
	char reason[IAD_REASON_MAX], bytext[120];
	unsigned int fixes = 0;
	bool recorded = false;
	const char *by;
	uint32_t id;

	d->hs_stale = true;	/* the holders may have moved with it */
	if (!event_object(ev, &id)) {
		d->resync = true;	/* a kind whose events we cannot place: re-read all */
		return;
	}
	if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_GONE) {
		event_gone(d, ev);
		return;
	}
	if (ev->type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
		ob = iad_obj_find(&d->objs, ev->kind, id);
		if (!ob) {
			/* Born and refused between two polls: the event has its figures. */
			ob = iad_obj_get(&d->objs, ev->kind, id);
			if (!ob)
				return;
			/* Kept until a poll: seen, so a resync in between does not drop it. */
			ob->seen = true;
		}
		/* The kernel's figures at the refusal. */
		event_figures(ob, ev);
		who_of_owner(&who, &ev->owner);
		who.cgroup_id = ev->cgroup_id;
		by = refused_by(ev);
		tally_refusal(d, ev->kind, by, refusal_consumer(ev->kind, &ev->consumer),
			      who.present ? who.uid : ob->uid, ev->count ? ev->count : 1,
			      (double)ev->time_ns / 1e9);
		if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX)
			snprintf(reason, sizeof(reason),
				 "the kernel refused to pin %llu bytes (%s) for iommufd context %u "
				 "(%s mode), by %s[%u]%s%s", (unsigned long long)ev->size,
				 ia_errno_name(ev->err), id,
				 ia_iommufd_mode_name(ev->quota.iommufd_mode), who.comm, who.pid,
				 refused_by_text(ev, by, bytext, sizeof(bytext)),
				 ev->count > 1 ? ", and more since (coalesced)" : "");
		else if (ev->has_quota)
			snprintf(reason, sizeof(reason),
				 "'%s' of %s[%u] reported %u rejection(s) (%s) with %llu of %llu in "
				 "use", ev->quota.name, who.comm, who.pid, ev->count,
				 ia_errno_name(ev->err),
				 (unsigned long long)ev->quota.used,
				 (unsigned long long)ev->quota.limit);
		else if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT)
			snprintf(reason, sizeof(reason),
				 "the kernel refused a charge of %llu bytes (%s) to uid %u's pot, "
				 "by %s[%u]%s", (unsigned long long)ev->size, ia_errno_name(ev->err),
				 id, who.comm, who.pid,
				 ev->count > 1 ? ", and more since (coalesced)" : "");
		else
			snprintf(reason, sizeof(reason),
				 "the kernel refused MAP_DMA of %llu bytes at IOVA 0x%llx (%s) in "
				 "container %u, by %s[%u]%s%s", (unsigned long long)ev->size,
				 (unsigned long long)ev->iova, ia_errno_name(ev->err), id, who.comm,
				 who.pid, refused_by_text(ev, by, bytext, sizeof(bytext)),
				 ev->count > 1 ? ", and more since (coalesced)" : "");
		/* A pot's cause, diagnosed only for the FAILURE it raises. */
		if (ev->kind == IOMMU_ACCOUNT_QUOTA_KIND_UID_POT && !ev->has_quota &&
		    iad_obj_refusal_raises(ob))
			fixes = pot_cause(d, ob, &who, ev->memlock_limit, reason, sizeof(reason),
					  &recorded);
		if (iad_obj_fail(ob, d->now, &who, ev->err, ev->size, ev->seq, reason,
				 sizeof(reason), &a)) {
			a.refused_by = by;
			if (by && !strcmp(by, "RLIMIT_MEMLOCK")) {
				a.memlock_limit = ev->memlock_limit;
				a.locked_bytes = ev->locked_bytes;
			}
			if (!recorded)
				flight_record(d, ob, ev);
			a.holders = ob->holders;
			a.nholders = ob->nholders;
			a.fixes = fixes;
			iad_raise(d, &a);
			iad_history_failure(d, ob, &who, (double)ev->time_ns / 1e9);
		}
		/*
		 * Its refusal count moved with this failure: no second FAILURE
		 * from the poll, which takes the kernel's count again. Counted
		 * now, so that the exporter's per-object count moves with the
		 * refusal's time (the shipped alert names the objects whose
		 * count rose), not a poll later.
		 */
		ob->refusals += ev->count ? ev->count : 1;
		ob->refusals_known = false;
		ob->refusal_deferred = false;
		return;
	}
	/*
	 * A threshold the kernel crossed. A container's or a published
	 * object's event carries the kernel's figures at the crossing: they are
	 * evaluated first, so a client that fills its container and dies (QEMU
	 * aborts on ENOSPC) is still warned about though the object is gone
	 * when it is read. Then the object is read now and evaluated again
	 * (ENOENT: gone since; the next poll sweeps it). A pot's event carries
	 * the charging process's own limit, not the pot's: read only.
	 */
	if (ev->kind != IOMMU_ACCOUNT_QUOTA_KIND_UID_POT) {
		struct iad_thr thr;

		ob = iad_obj_get(&d->objs, ev->kind, id);
		if (!ob)
			return;
		ob->seen = true;
		event_figures(ob, ev);
		if (ev->owner.present)
			who_of_owner(&ob->owner, &ev->owner);
		iad_thr_of(d, ob->kind, &thr);
		evaluate(d, ob, &thr);
	}
	ia_get_quotas(&d->req, &ev->kind, &id, quota_now_cb, d);
}

void iad_source_events(struct iad *d)
{
	int err;

	d->evcb.event = event_cb;
	d->evcb.arg = d;
	err = ia_events_recv(&d->ev, &d->evcb);
	/* libia keeps the overrun flag until the gap that tells how many. */
	if (d->evcb.overrun && !d->overrun_noted) {
		/* Lost events of unknown number: resync now, count them at the gap. */
		d->overruns++;
		d->resync = true;
		iad_log(d, LOG_WARNING, "events socket overran (ENOBUFS): events lost, "
			"resynchronising with a full dump");
	}
	d->overrun_noted = d->evcb.overrun;
	if (err && err != -EAGAIN) {
		iad_log(d, LOG_WARNING, "events: %s; resubscribing", d->ev.errmsg);
		ia_client_close(&d->ev);
		d->events = false;
		events_subscribe(d);
		d->resync = true;
	}
}
