/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu-accountctl: one file per command; each only prints what libia
 * (../lib) fetched and parsed.
 */
#ifndef IA_CTL_H
#define IA_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ia.h"

struct ia_ctx {
	struct ia_client cl;
	bool json;
	struct ia_json j;	/* stdout, when json */
	/* The parsed command line (main.c checks it before connecting). */
	const char *cmd;
	char **args;
	int nargs;
	bool have_key;		/* --uid N or --id N */
	uint32_t key;
	bool have_pid;		/* --pid N */
	uint32_t pid;
	uint32_t count;		/* --count N, 0: none */
	uint32_t warn, crit;	/* thresholds WARN CRIT */
	uint32_t kind, margin;	/* thresholds --kind, --margin */
	const char *kind_name;	/* --kind as given */
	const char *daemon;	/* --daemon ADDR:PORT */
	const char *file;	/* --file: history's PATH, plan's SPEC ("-": stdin) */
	const char *hist_since;	/* history --since T */
	const char *hist_until;	/* history --until T */
	bool hist_list;		/* history --list */
	bool hist_openmetrics;	/* history --openmetrics */
	struct ia_plan_spec *plan;	/* plan's workload, parsed before connecting */
	bool offline;		/* plan --offline, or no module: nothing read through it */
	bool limit_for;		/* plan --limit-for: the least RLIMIT_MEMLOCK, a number */
	bool have_pot, have_del;
	uint64_t pot;		/* plan --pot */
	uint32_t dma_entry_limit;	/* plan --dma-entry-limit */
	const char *kernel;	/* plan --kernel REL */
	const char *thp;	/* plan --thp MODE */
};

/* The key given with --uid/--id, or NULL for a dump. */
static inline const uint32_t *ia_ctx_key(const struct ia_ctx *ctx)
{
	return ctx->have_key ? &ctx->key : NULL;
}

/* An option (opts.c): --name, its value's type, and where in the context it goes. */
enum ia_opt_type {
	IA_OPT_FLAG,			/* no value: a bool set */
	IA_OPT_STR,			/* the value itself (a const char *) */
	IA_OPT_U32,
	IA_OPT_U32_POSITIVE,		/* above 0 */
	IA_OPT_SIZE,			/* bytes, with K/M/G suffixes (a uint64_t) */
};

struct ia_ctl_opt {
	const char *name;
	enum ia_opt_type type;
	size_t dest;			/* offsetof(struct ia_ctx, ...) */
	size_t given;			/* a bool set when it is given (0: none; ctx.cl is there) */
	const char *bad;		/* a bad value's message (one %s: the value) */
	/* Its own rule, before the type's: NULL, or a message as @bad. */
	const char *(*check)(struct ia_ctx *ctx, const char *arg);
	const char *arg;		/* its value's name in a command's --help (NULL: a flag) */
	const char *help;		/* what it does, one line */
};

/* Read @arg into @ctx as @o says: NULL, or a usage message's format (one %s: @arg). */
const char *ia_ctl_opt_parse(const struct ia_ctl_opt *o, struct ia_ctx *ctx, const char *arg);

extern const struct ia_ctl_opt ia_opt_uid, ia_opt_id, ia_opt_pid, ia_opt_count, ia_opt_kind,
	ia_opt_margin, ia_opt_daemon, ia_opt_since, ia_opt_until, ia_opt_list, ia_opt_file,
	ia_opt_openmetrics, ia_opt_offline, ia_opt_limit_for, ia_opt_pot,
	ia_opt_dma_entry_limit, ia_opt_kernel, ia_opt_thp;

/*
 * A command, declared in its own file: the options it takes (NULL-ended),
 * its positional arguments, and its own rules for them (@check, after the
 * options are read and before anything is contacted: 0 or an exit status).
 */
struct ia_ctl_cmd {
	const char *name;
	int (*fn)(struct ia_ctx *ctx);
	const struct ia_ctl_opt *const *opts;
	int min_args, max_args;		/* positional arguments after the name */
	bool varargs;			/* any number up to max_args (else min or max) */
	bool no_netlink;		/* talks to iommu-accountd (or its files) only */
	int (*check)(struct ia_ctx *ctx);
	void (*done)(struct ia_ctx *ctx);	/* frees what @check made (NULL: nothing) */
	bool no_json;			/* text only: --json is refused */
	/* Runs without the module too (ctx->offline set), then exits as for its absence. */
	bool without_module;
	const char *synopsis;		/* its arguments and options, as the manual page heads it */
	const char *help;		/* what it shows or does, one line */
	const char *example;		/* command lines, one a line */
};

/* A command's options, NULL-ended: .opts = IA_CTL_OPTS(&ia_opt_uid, &ia_opt_pid). */
#define IA_CTL_OPTS(...) ((const struct ia_ctl_opt *const[]){ __VA_ARGS__, NULL })

extern const struct ia_ctl_cmd ia_cmd_status, ia_cmd_uids, ia_cmd_procs, ia_cmd_holders,
	ia_cmd_containers, ia_cmd_groups, ia_cmd_quotas, ia_cmd_alerts, ia_cmd_probe,
	ia_cmd_top, ia_cmd_history, ia_cmd_plan, ia_cmd_events, ia_cmd_reset_scope,
	ia_cmd_explain, ia_cmd_thresholds;

/* A usage error (exit 1): @fmt with @arg, and where to look. */
int ia_ctl_usage_error(const char *fmt, const char *arg);

/* With --json, a listing is one array on one line: open it, close it. */
void ia_ctl_list_open(struct ia_ctx *ctx);
void ia_ctl_list_close(struct ia_ctx *ctx);

/* Print why @what failed (-errno @err from libia) and return the exit status. */
int ia_ctl_error(struct ia_ctx *ctx, const char *what, int err);

/* Each device's hot-reset scope in brief, for `groups` (reset.c). */
struct ia_reset_brief {
	struct ia_reset_brief *next;
	char address[32];
	uint32_t scope;			/* IOMMU_ACCOUNT_RESET_SCOPE_* */
	bool in_own_group;
	bool refused;			/* the kernel refuses it whatever anybody holds */
	bool unknown;			/* the module does not report reset sets */
};

/* NULL when the module cannot tell (then `groups` shows no reset column). */
struct ia_reset_brief *ia_ctl_reset_briefs(struct ia_ctx *ctx);
const struct ia_reset_brief *ia_ctl_reset_brief(const struct ia_reset_brief *l,
						const char *address);
void ia_ctl_reset_briefs_free(struct ia_reset_brief *l);
/* The members of a quota object in JSON (quotas, events of published kinds). */
void ia_ctl_quota_json(struct ia_json *j, const struct ia_quota *q, const char *kind,
		       const char *unit);

/* A JSON value (ctl/jsonr.c): strings as their bytes, numbers as their text. */
enum ia_jv_type { IA_JV_NULL, IA_JV_BOOL, IA_JV_NUM, IA_JV_STR, IA_JV_ARR, IA_JV_OBJ };
struct ia_jv {
	enum ia_jv_type t;
	bool b;
	char *s;			/* STR, NUM: NUL-terminated */
	size_t n;			/* STR: bytes; ARR, OBJ: members */
	struct ia_jv *a;		/* ARR, OBJ: the members' values */
	char **k;			/* OBJ: their names */
};

int ia_jv_parse(const char *doc, struct ia_jv *v, char *err, size_t errlen);
void ia_jv_free(struct ia_jv *v);
/* @obj's member @key, or NULL. */
const struct ia_jv *ia_jv_get(const struct ia_jv *obj, const char *key);

/* The fields of an entry of iommu-accountd's /alerts, as text ("-": none). */
enum { IA_AL_KIND, IA_AL_OBJECT, IA_AL_STATE, IA_AL_SINCE, IA_AL_USED, IA_AL_LIMIT,
       IA_AL_UNIT, IA_AL_UTIL, IA_AL_RATE, IA_AL_ETA, IA_AL_UID, IA_AL_PID, IA_AL_COMM,
       IA_AL_REASON, IA_AL_TREND, IA_AL_FIELDS };

/*
 * An entry's FULL IN, from its fields: at a FAILURE "refused" (no
 * forecast); the time to exhaustion the daemon stands by; "rising" (a rise
 * not yet told from a cycle's), "too early" (under four windows of
 * history) or "not filling". A daemon without trend: the time, or "not
 * filling".
 */
const char *ia_ctl_full_in(const char *const *f, char *buf, size_t len);

/* A holder of its last FAILURE's flight record; comm: its bytes. */
struct ia_alert_holder {
	unsigned long long pid, uid, held, cgroup_id;
	const char *comm;
};

struct ia_alert_rows {
	struct ia_jv doc;		/* the document; the fields point into it */
	bool up;			/* the daemon's source (the module) is up */
	unsigned int n;
	const char *(*f)[IA_AL_FIELDS];	/* n entries */
	struct ia_alert_holders {
		struct ia_alert_holder *h;
		unsigned int n;
	} *holders;			/* each entry's */
	char **own;			/* strings made here (bytes from KEY_hex) */
	unsigned int nown;
};

/* GET /alerts from the daemon at @addr and read it: 0, or -1 (said why). */
int ia_ctl_alerts_get(const char *addr, struct ia_alert_rows *r);
void ia_ctl_alerts_free(struct ia_alert_rows *r);

#endif
