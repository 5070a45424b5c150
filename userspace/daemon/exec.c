// SPDX-License-Identifier: GPL-2.0
/*
 * The exec sink: [exec] program runs once per alert with the alert as one
 * JSON document on stdin. It never blocks the loop: the document is smaller
 * than a pipe's buffer and written at once; at most max_running hooks run,
 * later alerts wait in a bounded queue (then are dropped, counted); a hook
 * still running after the timeout is killed with its process group.
 *
 * The queue is shared fairly between uids: when it is full, an alert of a
 * uid with fewer alerts waiting takes the place of the newest waiting
 * alert (a FAILURE last) of the uid with the most, so one uid's flood (a
 * publisher's qpair FAILURE/CLEARED, say: /dev/iommu-account is open to
 * all) drops its own alerts, never another's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "iad.h"

char *iad_alert_json(struct iad *d, const struct iad_alert *a)
{
	const struct iad_obj *ob = a->obj;
	struct ia_json j;
	struct ia_identity id;
	char kb[24], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double u = iad_obj_util(ob);

	if (!f)
		return NULL;
	ia_json_init(&j, f);
	ia_json_obj_open(&j, NULL);
	ia_json_str(&j, "alert", iad_alert_name(a));
	ia_json_str(&j, "previous", iad_state_name(a->prev));
	ia_json_str(&j, "kind", iad_kind_name(d, ob->kind, kb, sizeof(kb)));
	ia_json_u64(&j, "object", ob->id);
	ia_json_str(&j, "unit", iad_kind_unit(d, ob->kind));
	ia_json_u64(&j, "used", ob->used);
	ia_json_u64_if(&j, "limit", ob->has_limit, ob->limit);
	if (u >= 0)
		ia_json_double(&j, "utilization", "%.6f", u);
	ia_json_double(&j, "rate", "%.6g", ob->rate);
	ia_json_double(&j, "eta_s", "%.1f", ob->has_eta ? ob->eta_s : NAN);	/* NaN: null */
	ia_json_str(&j, "reason", a->reason);
	ia_json_u64(&j, "uid", a->who.present ? a->who.uid : ob->uid);
	if (a->who.present) {
		ia_json_u64(&j, "pid", a->who.pid);
		ia_json_str(&j, "comm", a->who.comm);
	}
	if (a->who.cgroup_id)
		ia_json_u64(&j, "cgroup_id", a->who.cgroup_id);
	if (ia_identity_of_cgroup(a->who.cgroup_id, &id))
		ia_json_identity(&j, "identity", &id);
	if (a->state == IAD_FAILURE && a->err) {
		ia_json_str(&j, "errno", ia_errno_name(a->err));
		ia_json_u64(&j, "size", a->size);
		if (a->refused_by)
			ia_json_str(&j, "refused_by", a->refused_by);
		if (a->memlock_limit != UINT64_MAX) {
			ia_json_u64(&j, "memlock_limit", a->memlock_limit);
			ia_json_u64(&j, "locked_bytes", a->locked_bytes);
		}
	}
	if (a->state == IAD_FAILURE && a->nholders) {
		unsigned int i;

		/* The flight record: who held the quota at the refusal, most first. */
		ia_json_arr_open(&j, "holders");
		for (i = 0; i < a->nholders; i++) {
			ia_json_obj_open(&j, NULL);
			ia_json_u64(&j, "pid", a->holders[i].who.pid);
			ia_json_u64(&j, "uid", a->holders[i].who.uid);
			ia_json_str(&j, "comm", a->holders[i].who.comm);
			ia_json_u64(&j, "cgroup_id", a->holders[i].who.cgroup_id);
			if (ia_identity_of_cgroup(a->holders[i].who.cgroup_id, &id))
				ia_json_identity(&j, "identity", &id);
			ia_json_u64(&j, "held", a->holders[i].held);
			ia_json_obj_close(&j);
		}
		ia_json_arr_close(&j);
	}
	if (a->state == IAD_FAILURE && a->fixes) {
		unsigned int k;

		/* A pot's: what explain uid would advise (libia's diagnosis). */
		ia_json_arr_open(&j, "fixes");
		for (k = 0; k < IA_FIX_COUNT; k++)
			if (a->fixes & 1u << k)
				ia_json_str(&j, NULL, ia_pot_fix_text(k));
		ia_json_arr_close(&j);
	}
	ia_json_u64(&j, "seq", a->seq);
	if (a->kernel_time_ns)
		ia_json_u64(&j, "kernel_time_ns", a->kernel_time_ns);
	ia_json_obj_close(&j);
	fputc('\n', f);
	fclose(f);
	return buf;
}

static void job_what(struct iad *d, const struct iad_alert *a, char *buf, size_t len)
{
	char kb[24];

	snprintf(buf, len, "%s %s %u", iad_alert_name(a), iad_kind_name(d, a->obj->kind, kb,
		 sizeof(kb)), a->obj->id);
}

/* Start the hook on @doc (consumed). */
static void spawn(struct iad *d, char *doc, const char *what)
{
	struct iad_exec *x = &d->exec;
	struct iad_exec_job *job = NULL;
	unsigned int i;
	sigset_t none;
	int p[2];
	pid_t pid;

	for (i = 0; i < IAD_EXEC_SLOTS; i++)
		if (!x->run[i].pid) {
			job = &x->run[i];
			break;
		}
	if (!job || pipe2(p, O_CLOEXEC)) {
		free(doc);
		x->failed++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* A process group of its own, so the timeout kills what it started. */
		setpgid(0, 0);
		/* Not the daemon's capability (systemd's ambient CAP_SYS_ADMIN). */
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		/* Nor its signal mask and ignored SIGPIPE (both survive exec). */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(p[0], STDIN_FILENO);
		execl(d->cfg.exec_program, d->cfg.exec_program, (char *)NULL);
		fprintf(stderr, "iommu-accountd: exec %s: %s\n", d->cfg.exec_program,
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		iad_log(d, LOG_ERR, "exec hook: fork: %s", strerror(errno));
		close(p[1]);
		free(doc);
		x->failed++;
		return;
	}
	setpgid(pid, pid);	/* also here: no race with the kill below */
	/* Fits the pipe (64 KiB): written at once even if the hook never reads. */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	if (write(p[1], doc, strlen(doc)) < 0 && errno != EPIPE)
		iad_log(d, LOG_WARNING, "exec hook: writing the alert: %s", strerror(errno));
	close(p[1]);
	free(doc);
	job->pid = pid;
	job->started = d->now;
	snprintf(job->what, sizeof(job->what), "%s", what);
	x->nrun++;
	x->started++;
}

/* The waiting alerts of @uid. */
static unsigned int waiting_of(const struct iad_exec *x, uint32_t uid)
{
	unsigned int i, n = 0;

	for (i = 0; i < x->qlen; i++)
		n += x->queue[(x->qhead + i) % x->qcap].uid == uid;
	return n;
}

/*
 * The queue is full: the place (0 = oldest) of the alert an alert of @uid
 * takes, the newest of the uid with the most waiting (its newest that is
 * not a FAILURE, if any), when that uid has more than @uid; or -1.
 */
static int fair_victim(const struct iad_exec *x, uint32_t uid)
{
	unsigned int i, n, most = 0, mine = waiting_of(x, uid);
	uint32_t top = uid;
	int v = -1;

	for (i = 0; i < x->qlen; i++) {
		n = waiting_of(x, x->queue[(x->qhead + i) % x->qcap].uid);
		if (n > most) {
			most = n;
			top = x->queue[(x->qhead + i) % x->qcap].uid;
		}
	}
	if (most <= mine || top == uid)
		return -1;
	for (i = x->qlen; i-- > 0;) {
		const struct iad_exec_wait *w = &x->queue[(x->qhead + i) % x->qcap];

		if (w->uid != top)
			continue;
		if (!w->failure)
			return (int)i;
		if (v < 0)
			v = (int)i;
	}
	return v;
}

/* The waiting alert at place @at goes (dropped: counted and said). */
static void drop_waiting(struct iad *d, unsigned int at, const char *for_what)
{
	struct iad_exec *x = &d->exec;
	struct iad_exec_wait *w = &x->queue[(x->qhead + at) % x->qcap];
	unsigned int i;

	if (!(x->dropped++ % 100))
		iad_log(d, LOG_WARNING, "exec hook: queue full: alert %s (uid %u, the most "
			"waiting) dropped for %s (%llu so far)", w->what, w->uid, for_what,
			(unsigned long long)x->dropped);
	free(w->doc);
	for (i = at; i + 1 < x->qlen; i++)
		x->queue[(x->qhead + i) % x->qcap] = x->queue[(x->qhead + i + 1) % x->qcap];
	x->qlen--;
}

void iad_exec_alert(struct iad *d, const struct iad_alert *a)
{
	struct iad_exec *x = &d->exec;
	char what[64], *doc;

	if (!d->cfg.exec_program[0])
		return;
	if (access(d->cfg.exec_program, X_OK)) {
		/* Said once per configuration; the other sinks go on. */
		if (!x->warned_missing)
			iad_log(d, LOG_ERR, "exec hook %s: %s; alerts are not run through it",
				d->cfg.exec_program, strerror(errno));
		x->warned_missing = true;
		x->failed++;
		return;
	}
	x->warned_missing = false;
	if (!x->run) {
		x->run = calloc(IAD_EXEC_SLOTS, sizeof(*x->run));
		if (!x->run)
			return;
	}
	doc = iad_alert_json(d, a);
	if (!doc)
		return;
	job_what(d, a, what, sizeof(what));
	if (x->nrun < d->cfg.exec_max) {
		spawn(d, doc, what);
		return;
	}
	if (x->qlen >= d->cfg.exec_queue) {
		int v = x->qlen ? fair_victim(x, a->obj->uid) : -1;

		if (v < 0) {
			if (!(x->dropped++ % 100))
				iad_log(d, LOG_WARNING, "exec hook: %u running, %u queued: alert %s "
					"dropped (%llu so far)", x->nrun, x->qlen, what,
					(unsigned long long)x->dropped);
			free(doc);
			return;
		}
		drop_waiting(d, (unsigned int)v, what);
	}
	if (x->qlen == x->qcap) {
		unsigned int ncap = x->qcap ? x->qcap * 2 : 8, i;
		struct iad_exec_wait *q = calloc(ncap, sizeof(*q));

		if (!q) {
			free(doc);
			x->dropped++;
			return;
		}
		for (i = 0; i < x->qlen; i++)
			q[i] = x->queue[(x->qhead + i) % x->qcap];
		free(x->queue);
		x->queue = q;
		x->qcap = ncap;
		x->qhead = 0;
	}
	x->queue[(x->qhead + x->qlen) % x->qcap].doc = doc;
	snprintf(x->queue[(x->qhead + x->qlen) % x->qcap].what, sizeof(x->queue[0].what), "%s",
		 what);
	x->queue[(x->qhead + x->qlen) % x->qcap].uid = a->obj->uid;
	x->queue[(x->qhead + x->qlen) % x->qcap].failure = a->state == IAD_FAILURE;
	x->qlen++;
}

void iad_exec_tick(struct iad *d)
{
	struct iad_exec *x = &d->exec;
	unsigned int i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; x->run && i < IAD_EXEC_SLOTS; i++) {
			if (x->run[i].pid != pid)
				continue;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				x->failed++;
				if (WIFEXITED(st))
					iad_log(d, LOG_WARNING, "exec hook for %s exited with status %d",
						x->run[i].what, WEXITSTATUS(st));
				else if (WTERMSIG(st) != SIGKILL)
					iad_log(d, LOG_WARNING, "exec hook for %s killed by signal %d",
						x->run[i].what, WTERMSIG(st));
			}
			x->run[i].pid = 0;
			x->nrun--;
		}
	}
	for (i = 0; x->run && i < IAD_EXEC_SLOTS; i++) {
		if (!x->run[i].pid || d->now - x->run[i].started < d->cfg.exec_timeout_s)
			continue;
		iad_log(d, LOG_WARNING, "exec hook for %s still running after %g s: killed",
			x->run[i].what, d->cfg.exec_timeout_s);
		kill(-x->run[i].pid, SIGKILL);
		x->timeouts++;
		/* Reaped by a later tick (SIGCHLD); the slot stays busy till then. */
		x->run[i].started = 1e300;
	}
	while (x->qlen && x->nrun < d->cfg.exec_max) {
		struct iad_exec_wait *w = &x->queue[x->qhead];

		x->qhead = (x->qhead + 1) % x->qcap;
		x->qlen--;
		spawn(d, w->doc, w->what);
	}
}

void iad_exec_fini(struct iad *d)
{
	struct iad_exec *x = &d->exec;

	while (x->qlen) {
		free(x->queue[x->qhead].doc);
		x->qhead = (x->qhead + 1) % x->qcap;
		x->qlen--;
	}
	free(x->queue);
	free(x->run);
	memset(x, 0, sizeof(*x));
}
