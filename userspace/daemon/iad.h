/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu-accountd: one thread, one poll loop. The model (model.c) is only
 * touched from the loop, so the sinks need no locks:
 *
 *   source.c    netlink (libia): STATUS and GET_QUOTA every interval, the
 *               events group, nlctrl notifications (module gone/back)
 *   alert.c     iad_raise(): an alert to every sink registered (a leaf)
 *   kinds.c     the kinds' names, units and thresholds (a leaf)
 *   log.c       journald (structured fields) / syslog / stderr
 *   exec.c      the exec hook: JSON on stdin, timeout, at most N at once
 *   sd.c        sd_notify and the journal's native protocol (a leaf)
 *   exporter.c  Prometheus text format and /alerts, served by
 *   http.c      a small HTTP/1.1 server (GET, HEAD), driven from the loop
 *               through its epoll fd (a leaf)
 *   history.c   the on-disk ring of samples ([history]; libia writes it)
 *   main.c      options, configuration, signals, the loop, sd_notify;
 *               registers the sinks
 *
 * Calls go down only: main.c -> source.c -> model.c, alert.c, kinds.c,
 * log.c, history.c; alert.c reaches log.c and exec.c through the sinks
 * registered.
 */
#ifndef IAD_H
#define IAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "ia.h"
#include "model.h"

struct ynl_sock;

/* The holder series are taken again at least this often when no pot moves. */
#define IAD_HOLDERS_REFRESH_S 60.0

/* Slots for running hooks: [exec] max_running is at most this (a reload may change it). */
#define IAD_EXEC_SLOTS 64

struct iad_exec_job {
	pid_t pid;
	double started;
	char what[64];		/* "WARNING uid-pot 1000", for the log */
};

struct iad_exec {
	struct iad_exec_job *run;	/* IAD_EXEC_SLOTS, pid 0 = free */
	unsigned int nrun;
	struct iad_exec_wait {
		char *doc;		/* the JSON document */
		char what[64];
		uint32_t uid;		/* the object's: whose share of the queue it is */
		bool failure;
	} *queue;			/* alerts waiting for a slot (ring) */
	unsigned int qhead, qlen, qcap;
	uint64_t started, timeouts, failed, dropped;
	bool warned_missing;
};

struct iad;
/* Where an alert goes (log.c, exec.c): registered by main.c. */
typedef void (*iad_sink_fn)(struct iad *d, const struct iad_alert *a);
#define IAD_SINKS 4

struct iad {
	struct iad_config cfg;
	const char *cfg_path;
	bool foreground, debug;
	double now;			/* monotonic seconds, set each loop turn */

	/* source */
	struct ia_client req;		/* requests */
	struct ia_client ev;		/* the events group */
	struct ynl_sock *ctrl;		/* nlctrl notifications */
	bool up;			/* the module answers */
	char down_why[1100];		/* why not, while !up (GET /readyz says it) */
	bool events;			/* subscribed to its events */
	bool said_waiting, said_noevents;
	bool resync;			/* poll at once */
	struct ia_events_cb evcb;
	const struct ia_event *cur_event;	/* being handled: alerts carry its seq and time */
	bool overrun_noted;
	uint64_t last_seq;
	struct ia_status st;
	double next_poll;
	double cur_interval;		/* interval, doubled while idle up to idle_interval */
	double down_retry;		/* down: the wait before the next try, doubled */
	bool poll_changed;		/* the last poll saw a change */

	struct iad_objs objs;
	/*
	 * The refusals the daemon attributed (an event, or a poll's count
	 * with the module's last-failure record), by kind, the limit that
	 * refused, the consumer and whether the uid is an expected one: their
	 * count and the kernel's time of the last, since the daemon started.
	 */
	struct iad_refusal {
		uint32_t kind;
		char cause[24];		/* rlimit_memlock, dma_entry_limit, qpair_pool, unknown */
		char consumer[24];	/* a pot's or iommufd's consumer; "" */
		bool expected;
		uint64_t n;
		double last_t;		/* CLOCK_REALTIME of the last, s */
	} *refusals;
	size_t nrefusals;

	/* counters, exported */
	uint64_t events_seen, events_lost, overruns, resyncs, reconnects, restarts;
	uint64_t polls, poll_errors;
	uint64_t alerts[IAD_NSTATES];	/* by new state; [IAD_OK] = CLEARED */
	double last_poll_s;		/* duration of the last poll */

	iad_sink_fn sinks[IAD_SINKS];
	unsigned int nsinks;

	struct iad_exec exec;
	struct ia_hist hist;		/* [history]: open while hist.hdr is set */
	char hist_path[4096];		/* the one open, with its size and keep */
	double hist_max, hist_keep;
	bool hist_said;			/* its failure was logged */
	double hist_retry_at;		/* d->now to open it again after a failure (0: no) */
	uint64_t hist_damaged;		/* damaged samples found at its last open */
	uint64_t hist_write_errors;	/* appends that failed */
	bool hist_kind_said;		/* a kind the file cannot hold was logged */
	/* [exporter] holders: the top cgroups of each uid's pot, as of the last poll */
	struct iad_hseries {
		uint32_t uid;
		uint64_t cgroup_id, bytes;
		char *path;		/* the kernel's path of the cgroup */
		bool cut;		/* ... which it cut (longer than PATH_MAX - 1) */
	} *hs;
	size_t nhs;
	/* ... and per uid with more cgroups than that, the rest summed */
	struct iad_hother {
		uint32_t uid;
		uint32_t cgroups;	/* how many cgroups the rest is */
		uint64_t bytes;
	} *ho;
	size_t nho;
	double hs_at;			/* when they were taken; 0: never since connecting */
	bool hs_moved;			/* the last dump followed a change */
	bool hs_stale;			/* an event came since the last dump */
	struct iad_http *http;		/* the exporter's server, or NULL */
	/*
	 * The document being written is for one uid (a Unix socket's peer
	 * that may not see every uid, as the module would show it): only
	 * its objects, holders and flight records.
	 */
	bool view_one_uid;
	uint32_t view_uid;
	/*
	 * The exporter serves the socket systemd passed (socket activation:
	 * iommu-accountd.socket holds the address from boot); [exporter]
	 * listen is then not bound, and a reload keeps the socket. @act_name:
	 * its address, as listen would say it.
	 */
	bool activated;
	bool activation_looked;
	char act_name[128];
};

/* Whether the document being written shows what belongs to @uid. */
static inline bool iad_view_sees(const struct iad *d, uint32_t uid)
{
	return !d->view_one_uid || uid == d->view_uid;
}

/* --- source.c --- */
/* Free the holder series (d->hs, d->ho). */
void iad_hseries_free(struct iad *d);
/*
 * The holder series from @n per-process entries @v (uid, cgroup, bytes,
 * path; several of one cgroup are summed): per uid its top [exporter]
 * holders cgroups in d->hs, the rest of its cgroups summed in d->ho, so the
 * two add up to what the uid's processes hold. Takes @v; 0 or -ENOMEM
 * (d->hs and d->ho then as they were).
 */
int iad_hseries_set(struct iad *d, struct iad_hseries *v, size_t n);
int iad_source_init(struct iad *d);
void iad_source_fini(struct iad *d);
/* Connect when down; poll when due. Returns the seconds until next due. */
double iad_source_tick(struct iad *d);
/* The fds to poll: requests never block long; events and nlctrl do. */
int iad_source_event_fd(struct iad *d);
int iad_source_ctrl_fd(struct iad *d);
void iad_source_events(struct iad *d);
void iad_source_ctrl(struct iad *d);

/* --- history.c --- */
/* Open [history] path (again after a reload that changed it); a failure is logged once. */
void iad_history_open(struct iad *d);
/* After a poll: a sample of every object that changed, and of each every 5 min. */
void iad_history_poll(struct iad *d);
/*
 * A FAILURE raised from an event: @ob's sample at @t (the kernel's time of
 * the refusal) and its flight record's holders (or @who, a container's
 * mapper, when it has none) at once, so that an object refused and gone
 * before the next poll is in the history too.
 */
void iad_history_failure(struct iad *d, struct iad_obj *ob, const struct iad_who *who, double t);
void iad_history_close(struct iad *d);
/* --- kinds.c --- */
/* The kind's name ("kind-N" when the module does not say). */
const char *iad_kind_name(const struct iad *d, uint32_t kind, char *buf, size_t len);
const char *iad_kind_unit(const struct iad *d, uint32_t kind);
/* Thresholds for @kind from the configuration. */
void iad_thr_of(const struct iad *d, uint32_t kind, struct iad_thr *thr);

/* --- alert.c --- */
void iad_sink_add(struct iad *d, iad_sink_fn sink);
/* Stamp, count and hand @a to every sink. */
void iad_raise(struct iad *d, const struct iad_alert *a);

/* --- log.c --- */
void iad_log_open(struct iad *d);
__attribute__((format(printf, 3, 4)))
void iad_log(struct iad *d, int prio, const char *fmt, ...);
void iad_log_alert(struct iad *d, const struct iad_alert *a);

/* --- exec.c --- */
void iad_exec_alert(struct iad *d, const struct iad_alert *a);
/* Reap exited hooks, kill those past their timeout, start queued ones. */
void iad_exec_tick(struct iad *d);
void iad_exec_fini(struct iad *d);
/* The alert as one JSON document (malloc'ed). */
char *iad_alert_json(struct iad *d, const struct iad_alert *a);

/* --- sd.c: systemd's notification and journal protocols (a leaf) --- */
/* One notification ("READY=1", "WATCHDOG=1\nSTATUS=..."): 1 sent, 0 no $NOTIFY_SOCKET, -errno. */
__attribute__((format(printf, 1, 2))) int iad_notify(const char *fmt, ...);
/* The service's watchdog interval ($WATCHDOG_USEC, for this pid): true when set. */
bool iad_watchdog_usec(uint64_t *usec);
/* One journal entry of @n "NAME=value" fields: 0, or -errno. */
int iad_journal_send(char *const *fields, size_t n);
/* journald's socket (tests point it elsewhere before the first entry). */
extern const char *iad_journal_socket;

/* --- http.c --- */
/*
 * A path's document (malloc'ed; NULL: out of memory): *code stays 200 or
 * is set, *type is its Content-Type, *len its length.
 */
/*
 * Who asked, as the kernel names it: over a Unix socket its credentials
 * (SO_PEERCRED) and groups (SO_PEERGROUPS: up to IAD_PEER_GROUPS of them);
 * over TCP the owner of the client's socket when it is on this host
 * (sock_diag), its groups then those the group database gives its user.
 * @named: the uid is known; @remote: a TCP client from another host (or
 * network namespace), whom nothing names; neither: a peer the kernel
 * would not name (nobody's uid; @err: why, when it was an error).
 */
#define IAD_PEER_GROUPS 64
struct iad_peer {
	bool named, remote, groups_known;
	int err;
	uint32_t uid, gid;
	unsigned int ngroups;
	uint32_t groups[IAD_PEER_GROUPS];
};

typedef char *(*iad_http_route)(void *cls, const struct iad_peer *peer, const char *path,
				unsigned int *code, const char **type, size_t *len);
/* A server on listening socket @lfd (its own from then on); NULL, errno set. */
struct iad_http *iad_http_new(int lfd, iad_http_route route, void *cls);
/* The fd to poll for input (an epoll fd), -1 for NULL. */
int iad_http_fd(const struct iad_http *h);
/* Accept, read, answer, write what is ready; close the slow. */
void iad_http_run(struct iad_http *h, double now);
double iad_http_wait(const struct iad_http *h, double wait_s);
uint64_t iad_http_shut(const struct iad_http *h);
void iad_http_free(struct iad_http *h);

/* --- exporter.c --- */
/* Serve [exporter] listen (none: 0); -errno, logged, when it cannot be bound. */
int iad_exporter_start(struct iad *d);
/* The fd the loop polls for the exporter, -1 when it is off. */
int iad_exporter_fd(const struct iad *d);
void iad_exporter_stop(struct iad *d);
void iad_exporter_run(struct iad *d);
/* @wait_s, or less while connections are open (their deadline). */
double iad_exporter_wait(const struct iad *d, double wait_s);
/* Connections shut down for sending no whole request in time. */
uint64_t iad_exporter_shut(const struct iad *d);
/* The documents it serves (malloc'ed, for tests too). */
char *iad_metrics_text(struct iad *d, size_t *len);
char *iad_alerts_text(struct iad *d, size_t *len);

#endif
