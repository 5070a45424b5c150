// SPDX-License-Identifier: GPL-2.0
/*
 * The options of iommu-accountctl, each once, as data in the manner of
 * ethtool's param_parser: its name, the type of its value and where in the
 * context it goes (and which flag says it was given), the message for a bad
 * value, and a check of its own where the type is not enough. A command
 * lists the ones it takes (struct ia_ctl_cmd, in its own file); main.c
 * offers getopt every option of every command and refuses one its command
 * does not list.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

/* --kernel REL: a release, as uname -r gives it, or its series. */
static const char *check_kernel(struct ia_ctx *ctx, const char *arg)
{
	(void)ctx;
	if (!*arg || strlen(arg) >= 64 || strspn(arg, "0123456789.") < 3 || !strchr(arg, '.'))
		return "--kernel takes a release (6.12, 7.3.4+deb13-amd64), not '%s'";
	return NULL;
}

static const char *check_thp(struct ia_ctx *ctx, const char *arg)
{
	(void)ctx;
	if (strcmp(arg, "always") && strcmp(arg, "madvise") && strcmp(arg, "never"))
		return "--thp takes always, madvise or never, not '%s'";
	return NULL;
}

#define AT(f) offsetof(struct ia_ctx, f)

const struct ia_ctl_opt ia_opt_uid = { .name = "uid", .type = IA_OPT_U32, .dest = AT(key),
	.given = AT(have_key), .bad = "bad number '%s'",
	.arg = "N",
	.help = "only uid N's (another uid's needs CAP_SYS_ADMIN)" };
const struct ia_ctl_opt ia_opt_id = { .name = "id", .type = IA_OPT_U32, .dest = AT(key),
	.given = AT(have_key), .bad = "bad number '%s'",
	.arg = "N",
	.help = "only the object with this id" };
const struct ia_ctl_opt ia_opt_pid = { .name = "pid", .type = IA_OPT_U32_POSITIVE,
	.dest = AT(pid), .given = AT(have_pid), .bad = "--pid takes a process id, not '%s'",
	.arg = "N",
	.help = "only process N's (quotas: the objects it owns)" };
const struct ia_ctl_opt ia_opt_count = { .name = "count", .type = IA_OPT_U32_POSITIVE,
	.dest = AT(count), .bad = "--count takes a number above 0, not '%s'",
	.arg = "N",
	.help = "stop after N (events, frames)" };
const struct ia_ctl_opt ia_opt_margin = { .name = "margin", .type = IA_OPT_U32_POSITIVE,
	.dest = AT(margin), .bad = "--margin takes a number above 0, not '%s'",
	.arg = "N",
	.help = "per mille between a threshold and its clear" };
const struct ia_ctl_opt ia_opt_dma_entry_limit = { .name = "dma-entry-limit",
	.type = IA_OPT_U32_POSITIVE, .dest = AT(dma_entry_limit), .given = AT(have_del),
	.bad = "--dma-entry-limit takes a number above 0, not '%s'",
	.arg = "N",
	.help = "offline: the type1 dma_entry_limit to plan against" };
const struct ia_ctl_opt ia_opt_pot = { .name = "pot", .type = IA_OPT_SIZE, .dest = AT(pot),
	.given = AT(have_pot), .bad = "--pot takes a size in bytes (0, 6M), not '%s'",
	.arg = "B",
	.help = "offline: what the uid's pot already holds, in bytes (6M)" };
const struct ia_ctl_opt ia_opt_kind = { .name = "kind", .type = IA_OPT_STR, .dest = AT(kind_name),
	.arg = "NAME",
	.help = "only this quota kind (names: iommu-accountctl status)" };
const struct ia_ctl_opt ia_opt_daemon = { .name = "daemon", .type = IA_OPT_STR, .dest = AT(daemon),
	.arg = "ADDR:PORT",
	.help = "the daemon's exporter: HOST:PORT (default 127.0.0.1:9847) or unix:PATH" };
const struct ia_ctl_opt ia_opt_since = { .name = "since", .type = IA_OPT_STR,
	.dest = AT(hist_since),
	.arg = "T",
	.help = "from T ago (90s, 30m, 2h, 1d) or @EPOCH" };
const struct ia_ctl_opt ia_opt_until = { .name = "until", .type = IA_OPT_STR,
	.dest = AT(hist_until),
	.arg = "T",
	.help = "up to T ago, or @EPOCH (default now)" };
const struct ia_ctl_opt ia_opt_file = { .name = "file", .type = IA_OPT_STR, .dest = AT(file),
	.arg = "PATH",
	.help = "read this file (history: the ring; plan: the workload, - for stdin)" };
const struct ia_ctl_opt ia_opt_kernel = { .name = "kernel", .type = IA_OPT_STR, .dest = AT(kernel),
	.check = check_kernel,
	.arg = "REL",
	.help = "offline: plan for this kernel release (6.12, 7.3.4+deb13-amd64)" };
const struct ia_ctl_opt ia_opt_thp = { .name = "thp", .type = IA_OPT_STR, .dest = AT(thp),
	.check = check_thp,
	.arg = "MODE",
	.help = "offline: transparent huge pages always, madvise or never" };
const struct ia_ctl_opt ia_opt_list = { .name = "list", .type = IA_OPT_FLAG, .dest = AT(hist_list),
	.help = "the objects the file holds, not one object's samples" };
const struct ia_ctl_opt ia_opt_openmetrics = { .name = "openmetrics", .type = IA_OPT_FLAG,
	.dest = AT(hist_openmetrics),
	.help = "OpenMetrics text (the exporter's series, with timestamps)" };
const struct ia_ctl_opt ia_opt_offline = { .name = "offline", .type = IA_OPT_FLAG,
	.dest = AT(offline),
	.help = "plan without the module: the figures given, or said unknown" };
const struct ia_ctl_opt ia_opt_limit_for = { .name = "limit-for", .type = IA_OPT_FLAG,
	.dest = AT(limit_for),
	.help = "the smallest RLIMIT_MEMLOCK and dma_entry_limit that fit" };

const char *ia_ctl_opt_parse(const struct ia_ctl_opt *o, struct ia_ctx *ctx, const char *arg)
{
	char *dest = (char *)ctx + o->dest;
	const char *why = o->check ? o->check(ctx, arg) : NULL;
	uint64_t size;
	uint32_t n;

	if (why)
		return why;
	switch (o->type) {
	case IA_OPT_FLAG:
		*(bool *)dest = true;
		break;
	case IA_OPT_STR:
		*(const char **)dest = arg;
		break;
	case IA_OPT_U32:
	case IA_OPT_U32_POSITIVE:
		if (ia_parse_u32(arg, &n) || (o->type == IA_OPT_U32_POSITIVE && !n))
			return o->bad;
		memcpy(dest, &n, sizeof(n));
		break;
	case IA_OPT_SIZE:
		if (ia_parse_size(arg, &size) || size == UINT64_MAX)
			return o->bad;
		memcpy(dest, &size, sizeof(size));
		break;
	}
	if (o->given)
		*(bool *)((char *)ctx + o->given) = true;
	return NULL;
}

void ia_ctl_list_open(struct ia_ctx *ctx)
{
	if (ctx->json)
		ia_json_arr_open(&ctx->j, NULL);
}

void ia_ctl_list_close(struct ia_ctx *ctx)
{
	if (!ctx->json)
		return;
	ia_json_arr_close(&ctx->j);
	printf("\n");
}

int ia_ctl_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "iommu-accountctl: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see iommu-accountctl --help)\n");
	return IA_EXIT_USAGE;
}

int ia_ctl_error(struct ia_ctx *ctx, const char *what, int err)
{
	const char *ext = ctx->cl.extack;

	if (err == -EOPNOTSUPP)
		fprintf(stderr, "iommu-accountctl: %s: the loaded iommu_account does not "
			"support this (module too old for this tool?)\n", what);
	else if (err == -EPERM || err == -EACCES)
		fprintf(stderr, "iommu-accountctl: %s: permission denied%s%s\n", what,
			*ext ? ": " : "", ext);
	else if (ctx->cl.err == err && *ext)
		fprintf(stderr, "iommu-accountctl: %s: %s: %s\n", what, strerror(-err), ext);
	else if (ctx->cl.err == err && ctx->cl.errmsg[0])
		fprintf(stderr, "iommu-accountctl: %s: %s\n", what, ctx->cl.errmsg);
	else
		fprintf(stderr, "iommu-accountctl: %s: %s\n", what, strerror(-err));
	return ia_exit_status(err);
}
