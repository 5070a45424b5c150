// SPDX-License-Identifier: GPL-2.0
/*
 * The log sink: journald with structured fields (sd.c) when running
 * under systemd or when asked to; syslog when detached without it; stderr in
 * the foreground. Alerts and the daemon's own messages go the same way.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "iad.h"

static enum iad_log resolved = IAD_LOG_STDERR;


void iad_log_open(struct iad *d)
{
	resolved = d->cfg.log;
	if (resolved == IAD_LOG_AUTO) {
		/* systemd sets JOURNAL_STREAM for a service whose stderr is the journal. */
		if (getenv("JOURNAL_STREAM"))
			resolved = IAD_LOG_JOURNAL;
		else
			resolved = d->foreground ? IAD_LOG_STDERR : IAD_LOG_SYSLOG;
	}
	if (resolved == IAD_LOG_SYSLOG)
		openlog("iommu-accountd", LOG_PID, LOG_DAEMON);
}

static const char *prio_name(int prio)
{
	static const char *const n[] = { "emerg", "alert", "crit", "err",
					 "warning", "notice", "info", "debug" };

	return prio >= 0 && prio < 8 ? n[prio] : "?";
}

/* A journal entry's fields, "NAME=value" each (malloc'ed). */
struct jfields {
	char *f[32];
	size_t n;
};

static __attribute__((format(printf, 2, 3))) void jadd(struct jfields *j, const char *fmt, ...)
{
	va_list ap;
	char *raw, *out;
	size_t need;
	int n;

	if (j->n == sizeof(j->f) / sizeof(j->f[0]))
		return;
	va_start(ap, fmt);
	n = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/*
	 * Every field one line of valid UTF-8, whatever a name or a reason
	 * brought in (the sentence form: names already in the text form stay
	 * as they are): a field can neither break nor smuggle a line.
	 */
	need = ia_esc_sentence(raw, NULL, 0) + 1;
	out = malloc(need);
	if (out) {
		ia_esc_sentence(raw, out, need);
		j->f[j->n++] = out;
	}
	free(raw);
}

static void jsend(struct jfields *j)
{
	size_t i;

	iad_journal_send(j->f, j->n);
	for (i = 0; i < j->n; i++)
		free(j->f[i]);
}

static void emit(int prio, const char *raw)
{
	struct jfields j = { .n = 0 };
	/* Room for every byte as \xHH: whole. */
	size_t len = 4 * strlen(raw) + 1;
	char *msg = resolved == IAD_LOG_JOURNAL ? NULL : malloc(len);

	/*
	 * Names reach a message in their text form (lib/esc.c); whatever else
	 * carries a control or invalid byte (a reason holding a comm, a path
	 * from the configuration, an error text) still makes one line of valid
	 * UTF-8, one record: those bytes are shown as \xHH, by jadd() for the
	 * journal's fields, here for syslog and stderr.
	 */
	switch (resolved) {
	case IAD_LOG_JOURNAL:
		jadd(&j, "MESSAGE=%s", raw);
		jadd(&j, "PRIORITY=%d", prio);
		jadd(&j, "SYSLOG_IDENTIFIER=iommu-accountd");
		jsend(&j);
		break;
	case IAD_LOG_SYSLOG:
		if (msg)
			ia_esc_sentence(raw, msg, len);
		syslog(prio, "%s", msg ? msg : "(out of memory for a message)");
		break;
	default:
		if (msg)
			ia_esc_sentence(raw, msg, len);
		fprintf(stderr, "iommu-accountd: %s: %s\n", prio_name(prio),
			msg ? msg : "(out of memory for a message)");
		fflush(stderr);
		break;
	}
	free(msg);
}

void iad_log(struct iad *d, int prio, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	int n;

	if (prio == LOG_DEBUG && !d->debug)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Longer than a journal line should be: cut where it shows. */
	if (n >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	emit(prio, msg);
}

/*
 * An alert's MESSAGE_ID (journalctl MESSAGE_ID=ID; journalctl -x explains it
 * from daemon/iommu-accountd.catalog, installed in /usr/lib/systemd/catalog,
 * which scripts/check keeps equal to these): one per state, and a FAILURE's
 * by the kind refused, as what refused differs; a kind the catalog does not
 * know has the generic FAILURE's.
 */
static const char *alert_message_id(const struct iad_alert *a, const char *kind)
{
	static const struct {
		const char *kind, *id;
	} failure[] = {
		{ "uid-pot", "2f39fb8a4b6140d3acefdb38e3b86146" },
		{ "vfio-container", "b02ab295d8be45cb943835e4ce9c099e" },
		{ "qpair", "10cfa9996e834946b784afdc7345add8" },
		{ "iommufd-ctx", "8de3bbd4687f4bad8a6a16af546510a0" },
	};
	size_t i;

	switch (a->state) {
	case IAD_WARNING:
		return "391ab2ef4c644c23b8fb366c21f7b998";
	case IAD_CRITICAL:
		return "a26087489eb747839e9ce37b856190ee";
	case IAD_FAILURE:
		for (i = 0; i < sizeof(failure) / sizeof(failure[0]); i++)
			if (!strcmp(kind, failure[i].kind))
				return failure[i].id;
		return "c957a2209604415e9cebb13eb709cd4b";
	default:	/* CLEARED */
		return "040fe02e99dd4927adfb0e8451333d6f";
	}
}

static int alert_prio(const struct iad_alert *a)
{
	switch (a->state) {
	case IAD_FAILURE:
		return LOG_ERR;
	case IAD_CRITICAL:
		return LOG_CRIT;
	case IAD_WARNING:
		return LOG_WARNING;
	default:
		return LOG_NOTICE;
	}
}

/*
 * A FAILURE's flight record for journald: HOLDERS, "comm[pid] uid U in
 * CGROUP: AMOUNT" per holder, most first, joined by "; "; HOLDER_PIDS, the
 * pids alone. Both empty for other alerts; whole (paths can be PATH_MAX
 * long); NULL without memory. free() them.
 */
static void holders_text(struct iad *d, const struct iad_alert *a, char **buf, char **pids)
{
	const char *unit = iad_kind_unit(d, a->obj->kind);
	char amount[32], cg[IA_CGROUP_MAX], idbuf[IA_IDENTITY_TEXT];
	char idtext[IA_IDENTITY_TEXT + 8];
	struct ia_identity id;
	size_t blen, plen;
	FILE *f, *p;
	unsigned int i;

	*buf = *pids = NULL;
	f = open_memstream(buf, &blen);
	p = open_memstream(pids, &plen);
	if (!f || !p) {
		if (f)
			fclose(f);
		if (p)
			fclose(p);
		free(*buf);
		free(*pids);
		*buf = *pids = NULL;
		return;
	}
	for (i = 0; a->state == IAD_FAILURE && i < a->nholders; i++) {
		const struct iad_holder *h = &a->holders[i];

		idtext[0] = 0;
		if (h->who.cgroup_id && ia_cgroup_path(h->who.cgroup_id, cg, sizeof(cg))) {
			/* Its container, pod or unit, from the path just found. */
			ia_identity_of(cg, &id);
			if (id.kind[0])
				snprintf(idtext, sizeof(idtext), " [%s]",
					 ia_identity_str(&id, idbuf, sizeof(idbuf)));
		} else {
			snprintf(cg, sizeof(cg), "cgroup %llu", (unsigned long long)h->who.cgroup_id);
		}
		ia_amount(unit, (double)h->held, amount, sizeof(amount));
		fprintf(f, "%s%s[%u] uid %u in %s%s: %s", i ? "; " : "", ia_tx(h->who.comm),
			h->who.pid, h->who.uid, h->who.cgroup_id && cg[0] == '/' ? ia_tx(cg) : cg,
			idtext, amount);
		fprintf(p, "%s%u", i ? " " : "", h->who.pid);
	}
	fclose(f);
	fclose(p);
}

void iad_log_alert(struct iad *d, const struct iad_alert *a)
{
	const struct iad_obj *ob = a->obj;
	char kb[24], used[32], limit[32], rate[32], eta[96], *msg, who[96], rawlimit[24];
	char memlock[24], locked[24], *holders, *hpids, idtext[IA_IDENTITY_TEXT] = "";
	char in[IA_IDENTITY_TEXT + 16] = "";
	char cg[IA_CGROUP_MAX] = "", fixes[1024];
	unsigned int k;
	size_t n;
	/* The cgroup's path once, for CGROUP and for its container, pod or unit. */
	const char *cgpath = a->who.cgroup_id ? ia_cgroup_path(a->who.cgroup_id, cg, sizeof(cg)) :
			     NULL;
	struct ia_identity id = { 0 };
	struct jfields j = { .n = 0 };
	bool has_id;
	const char *kind = iad_kind_name(d, ob->kind, kb, sizeof(kb));
	const char *unit = iad_kind_unit(d, ob->kind);

	if (cgpath)
		ia_identity_of(cgpath, &id);
	has_id = id.kind[0] != 0;
	ia_amount(unit, (double)ob->used, used, sizeof(used));
	if (ob->has_limit)
		ia_amount(unit, (double)ob->limit, limit, sizeof(limit));
	else
		snprintf(limit, sizeof(limit), "no limit");
	/*
	 * ", floor rising 2.8 MiB/s, full in 3 min" (a forecast the daemon
	 * stands by), ", floor rising 33 entries/s, too early to tell" (not yet
	 * told from a cycle's rise), ", too early to tell" (under four windows
	 * of history), ", not filling"; none at a FAILURE.
	 */
	ia_rate_str(unit, ob->rate, rate, sizeof(rate));
	if (a->state == IAD_FAILURE)
		eta[0] = 0;
	else if (ob->trend == IAD_TREND_FILLING)
		snprintf(eta, sizeof(eta), ", floor rising %s, ", rate);
	else if (ob->trend == IAD_TREND_RISING)
		snprintf(eta, sizeof(eta), ", floor rising %s, too early to tell", rate);
	else
		snprintf(eta, sizeof(eta), ", %s", ob->trend == IAD_TREND_EARLY ?
			 "too early to tell" : "not filling");
	if (ob->trend == IAD_TREND_FILLING && a->state != IAD_FAILURE)
		ia_fill_str(ob->eta_s, eta + strlen(eta), sizeof(eta) - strlen(eta));
	if (a->who.present)
		snprintf(who, sizeof(who), "%s[%u] uid %u", ia_tx(a->who.comm), a->who.pid,
			 a->who.uid);
	else
		snprintf(who, sizeof(who), "uid %u", ob->uid);
	if (has_id) {
		ia_identity_str(&id, idtext, sizeof(idtext));
		snprintf(in, sizeof(in), " in %s", idtext);
	}
	/* Whole: an identity's names can be long (a machine's, escaped). */
	if (asprintf(&msg, "%s %s %u: %s; used %s of %s%s; %s%s",
		     iad_alert_name(a), kind, ob->id, a->reason, used, limit, eta, who, in) < 0)
		return;
	if (resolved != IAD_LOG_JOURNAL) {
		emit(alert_prio(a), msg);
		free(msg);
		return;
	}
	if (a->who.cgroup_id && !cgpath)
		snprintf(cg, sizeof(cg), "%" PRIu64, a->who.cgroup_id);
	if (ob->has_limit)
		snprintf(rawlimit, sizeof(rawlimit), "%" PRIu64, ob->limit);
	else
		rawlimit[0] = 0;
	memlock[0] = locked[0] = 0;
	/* Set only on a FAILURE refused by RLIMIT_MEMLOCK (source.c), as in exec.c. */
	if (a->memlock_limit != UINT64_MAX) {
		snprintf(memlock, sizeof(memlock), "%" PRIu64, a->memlock_limit);
		snprintf(locked, sizeof(locked), "%" PRIu64, a->locked_bytes);
	}
	holders_text(d, a, &holders, &hpids);
	jadd(&j, "MESSAGE=%s", msg);
	free(msg);
	jadd(&j, "MESSAGE_ID=%s", alert_message_id(a, kind));
	jadd(&j, "PRIORITY=%d", alert_prio(a));
	jadd(&j, "SYSLOG_IDENTIFIER=iommu-accountd");
	jadd(&j, "IOMMU_ACCOUNT_ALERT=%s", iad_alert_name(a));
	jadd(&j, "QUOTA_KIND=%s", kind);
	jadd(&j, "OBJECT=%u", ob->id);
	jadd(&j, "UID=%u", a->who.present ? a->who.uid : ob->uid);
	jadd(&j, "CGROUP=%s", ia_tx(cg));
	jadd(&j, "IDENTITY=%s", idtext);
	jadd(&j, "CONTAINER_ID=%s", has_id ? ia_tx(id.container_id) : "");
	jadd(&j, "POD_UID=%s", has_id ? ia_tx(id.pod_uid) : "");
	jadd(&j, "RUNTIME=%s", has_id ? ia_tx(id.runtime) : "");
	jadd(&j, "CGROUP_UNIT=%s", has_id ? ia_tx(id.unit) : "");
	jadd(&j, "PID=%u", a->who.present ? a->who.pid : 0);
	jadd(&j, "COMM=%s", a->who.present ? ia_tx(a->who.comm) : "");
	jadd(&j, "USED=%" PRIu64, ob->used);
	jadd(&j, "LIMIT=%s", rawlimit);
	jadd(&j, "RATE=%.6g", ob->rate);
	jadd(&j, "ETA_S=%.0f", ob->has_eta ? ob->eta_s : -1.0);
	jadd(&j, "REFUSED_BY=%s", a->state == IAD_FAILURE && a->refused_by ? a->refused_by : "");
	jadd(&j, "MEMLOCK_LIMIT=%s", memlock);
	jadd(&j, "LOCKED_BYTES=%s", locked);
	jadd(&j, "HOLDERS=%s", holders ? holders : "");
	jadd(&j, "HOLDER_PIDS=%s", hpids ? hpids : "");
	fixes[0] = 0;
	for (k = 0, n = 0; k < IA_FIX_COUNT && n < sizeof(fixes); k++)
		if (a->state == IAD_FAILURE && a->fixes & 1u << k)
			n += snprintf(fixes + n, sizeof(fixes) - n, "%s%s", n ? "; " : "",
				      ia_pot_fix_text(k));
	jadd(&j, "FIXES=%s", fixes);
	free(holders);
	free(hpids);
	jadd(&j, "SEQ=%" PRIu64, a->seq);
	jadd(&j, "KERNEL_TIME_NS=%" PRIu64, a->kernel_time_ns);
	jsend(&j);
}
