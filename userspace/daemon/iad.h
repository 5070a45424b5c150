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
 *   exporter.c  Prometheus text format and /alerts (libmicrohttpd, driven
 *               from the loop through its epoll fd)
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

struct nl_sock;
struct MHD_Daemon;

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
	struct nl_sock *ctrl;		/* nlctrl notifications */
	bool up;			/* the module answers */
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

	/* counters, exported */
	uint64_t events_seen, events_lost, overruns, resyncs, reconnects, restarts;
	uint64_t polls, poll_errors;
	uint64_t alerts[IAD_NSTATES];	/* by new state; [IAD_OK] = CLEARED */
	double last_poll_s;		/* duration of the last poll */

	iad_sink_fn sinks[IAD_SINKS];
	unsigned int nsinks;

	struct iad_exec exec;
	struct ia_hist hist;		/* [history]: open while hist.hdr is set */
	char hist_path[256];		/* the one open, with its size and keep */
	double hist_max, hist_keep;
	bool hist_said;			/* its failure was logged */
	/* [exporter] holders: the top cgroups of each uid's pot, as of the last poll */
	struct iad_hseries {
		uint32_t uid;
		uint64_t cgroup_id, bytes;
		char *path;		/* the kernel's path of the cgroup */
	} *hs;
	size_t nhs;
	struct MHD_Daemon *mhd;
	int mhd_fd;
	struct iad_http *http;		/* the exporter's open connections */
};

/* --- source.c --- */
/* Free the holder series (d->hs). */
void iad_hseries_free(struct iad *d);
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
/* CLOCK_MONOTONIC in seconds. */
double iad_mono(void);
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

/* --- exporter.c --- */
int iad_exporter_start(struct iad *d);
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
