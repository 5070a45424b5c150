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
	const char *hist_file;	/* history --file PATH */
	const char *hist_since;	/* history --since T */
	const char *hist_until;	/* history --until T */
	bool hist_list;		/* history --list */
	bool hist_openmetrics;	/* history --openmetrics */
	const char *spec_file;	/* plan --file SPEC ("-": stdin) */
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

/* With --json, a listing is one array on one line: open it, close it. */
void ia_ctl_list_open(struct ia_ctx *ctx);
void ia_ctl_list_close(struct ia_ctx *ctx);

/* Print why @what failed (-errno @err from libia) and return the exit status. */
int ia_ctl_error(struct ia_ctx *ctx, const char *what, int err);

int cmd_status(struct ia_ctx *ctx);
int cmd_uids(struct ia_ctx *ctx);
int cmd_groups(struct ia_ctx *ctx);
int cmd_containers(struct ia_ctx *ctx);
int cmd_events(struct ia_ctx *ctx);
int cmd_thresholds(struct ia_ctx *ctx);
int cmd_procs(struct ia_ctx *ctx);
int cmd_holders(struct ia_ctx *ctx);
/* A process's parent, comm and RLIMIT_MEMLOCK soft limit, from /proc (explain.c). */
struct pinfo {
	int pid, ppid;
	char comm[64];
	uint64_t memlock;	/* UINT64_MAX: unlimited */
};

int ia_ctl_read_pinfo(int pid, struct pinfo *pi);
int cmd_explain(struct ia_ctx *ctx);
int cmd_history(struct ia_ctx *ctx);
/* explain container|qpair|iommufd-ctx N (explain_obj.c): the limit that refuses it. */
int ia_ctl_explain_object(struct ia_ctx *ctx, const char *what, uint32_t id);
int cmd_quotas(struct ia_ctx *ctx);
/* plan (plan.c): parse the workload (exit status, 0 ok), then evaluate it. */
int ia_ctl_plan_parse(struct ia_ctx *ctx);
int cmd_plan(struct ia_ctx *ctx);
int cmd_reset_scope(struct ia_ctx *ctx);

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
int cmd_alerts(struct ia_ctx *ctx);
int cmd_probe(struct ia_ctx *ctx);
int cmd_top(struct ia_ctx *ctx);

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
       IA_AL_REASON, IA_AL_FIELDS };

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
