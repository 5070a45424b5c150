/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu-accountd.conf: INI, read by config.c. Every key, its default and
 * its unit are in Documentation/daemon.md and iommu-accountd.conf(5).
 */
#ifndef IAD_CONFIG_H
#define IAD_CONFIG_H

#include <stdbool.h>

#include "model.h"

#define IAD_CONFIG_PATH "/etc/iommu-account/iommu-accountd.conf"
#define IAD_DEFAULT_LISTEN "127.0.0.1:9847"
/* [exporter] group: over a Unix socket, its members see every uid. */
#define IAD_DEFAULT_GROUP "iommu-account"
/* sizeof(sockaddr_un.sun_path) */
#define IAD_SUN_PATH 108
#define IAD_HISTORY_PATH "/var/lib/iommu-accountd/history"
#define IAD_MAX_KIND_CFG 16
/* The longest line (a comment, a path of PATH_MAX); the largest file. */
#define IAD_CONFIG_LINE_MAX 8192
#define IAD_CONFIG_MAX_SIZE 1048576
/* Room for the errors said at once (then "and N more error(s)"). */
#define IAD_CONFIG_ERR_LEN 16384
#define IAD_STR_(x) #x
#define IAD_STR(x) IAD_STR_(x)

enum iad_log { IAD_LOG_AUTO, IAD_LOG_JOURNAL, IAD_LOG_SYSLOG, IAD_LOG_STDERR };

/* [thresholds.KIND]: what it sets of the [thresholds] defaults. */
struct iad_kind_cfg {
	char name[32];
	double warn, crit, hysteresis, horizon_s, sustain_s;
	bool has_warn, has_crit, has_hysteresis, has_horizon, has_sustain;
};

#define IAD_MAX_EXPECTED 64		/* [refusals] expected_uids: ranges */

struct iad_config {
	double interval_s;		/* [daemon] interval */
	double idle_interval_s;		/* [daemon] idle_interval */
	double window_s;		/* [daemon] window */
	double trend_window_s;		/* [daemon] trend_window */
	double persist_s;		/* [daemon] persist */
	enum iad_log log;		/* [daemon] log */
	bool events;			/* [daemon] events */
	struct iad_thr thr;		/* [thresholds] */
	struct iad_kind_cfg kinds[IAD_MAX_KIND_CFG];
	unsigned int nkinds;
	char exec_program[4096];	/* [exec] program (PATH_MAX); "" = no exec sink */
	double exec_timeout_s;		/* [exec] timeout */
	unsigned int exec_max;		/* [exec] max_running */
	unsigned int exec_queue;	/* [exec] queue */
	char listen[128];		/* [exporter] listen; "" = off */
	double holders;			/* [exporter] holders: top N per uid; 0 = none */
	double series_budget;		/* [exporter] series_budget: 0 = none */
	bool objects_only;		/* [exporter] detail = objects: no process or cgroup */
	char group[64];			/* [exporter] group: its members see every uid */
	bool remote_all;		/* [exporter] remote = all: other hosts see every uid */
	bool legacy_names;		/* [exporter] legacy_names: 0.2.0's names too */
	char history[4096];		/* [history] path (PATH_MAX); "" = off */
	double history_max;		/* [history] max_size, bytes */
	double history_keep_s;		/* [history] keep */
	/* [refusals] expected_uids: uids whose refusals are deliberate (tests) */
	struct iad_uid_range { uint32_t lo, hi; } expected[IAD_MAX_EXPECTED];
	unsigned int nexpected;
};

/* Whether @uid is one of [refusals] expected_uids. */
bool iad_config_expected(const struct iad_config *c, uint32_t uid);

void iad_config_defaults(struct iad_config *c);
/*
 * Read @path over the defaults. 0, or -1 with every error in @err, one
 * "PATH:LINE: reason" per line (and @c as it was: a bad file changes
 * nothing). A missing file is an error unless @missing_ok.
 */
int iad_config_load(struct iad_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen);
/* The thresholds of the kind named @kind (its section over the defaults). */
void iad_config_thr(const struct iad_config *c, const char *kind, struct iad_thr *thr);

#endif
