// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl: query iommu_account.ko over generic netlink.
 *
 * Options may stand anywhere (getopt_long, as ip(8) and ethtool(8) accept
 * them); the whole command line is checked before the module is contacted,
 * so a usage error exits 1 whether or not the module is loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

enum { OPT_UID = 0x100, OPT_ID, OPT_COUNT, OPT_PID, OPT_KIND, OPT_MARGIN, OPT_DAEMON,
       OPT_SINCE, OPT_UNTIL, OPT_LIST, OPT_FILE, OPT_OPENMETRICS, OPT_OFFLINE, OPT_POT, OPT_DEL, OPT_KERNEL, OPT_THP,
       OPT_LIMIT_FOR };

/* Which of --uid / --id / --count a command takes. */
enum { TAKES_UID = 1, TAKES_ID = 2, TAKES_COUNT = 4, TAKES_PID = 8, TAKES_KIND = 16,
       TAKES_MARGIN = 32, TAKES_DAEMON = 64,
       NO_NETLINK = 128 /* talks to iommu-accountd (or its files) only */,
       TAKES_HIST = 256 /* --since, --until, --list, --openmetrics */, TAKES_FILE = 512,
       VARARGS = 1024 /* any number of arguments up to max_args */,
       TAKES_PLAN = 2048 /* --offline, --pot, --dma-entry-limit, --kernel, --thp, --limit-for */ };

static const struct {
	const char *name;
	int (*fn)(struct ia_ctx *ctx);
	unsigned int takes;
	int min_args, max_args;		/* positional arguments after the name */
	const char *help;
} cmds[] = {
	{ "status", cmd_status, 0, 0, 0,
	  "module version, kernel, features and their state" },
	{ "uids", cmd_uids, TAKES_UID, 0, 0,
	  "[--uid N]  per-uid locked-memory pot (RLIMIT_MEMLOCK): who charged it, what waits" },
	{ "procs", cmd_procs, TAKES_UID | TAKES_PID, 0, 0,
	  "[--uid N|--pid N]  processes: what they hold of the pot, limits, cgroups" },
	{ "holders", cmd_holders, TAKES_UID, 0, 0,
	  "[--uid N]  who holds quota, by cgroup: container, pod or unit; pot bytes per uid, "
	  "objects owned" },
	{ "containers", cmd_containers, TAKES_ID, 0, 0,
	  "[--id N]  VFIO containers (type1, iommufd compat): entries/limit, pinned" },
	{ "groups", cmd_groups, TAKES_ID, 0, 0,
	  "[--id N]  IOMMU groups: devices, container, owner" },
	{ "quotas", cmd_quotas, TAKES_KIND | TAKES_UID | TAKES_PID, 0, 0,
	  "[--kind NAME] [--uid N|--pid N]  every quota object of every kind: used, limit, owner" },
	{ "alerts", cmd_alerts, TAKES_DAEMON | NO_NETLINK, 0, 0,
	  "[--daemon ADDR:PORT]  iommu-accountd's alert states: trend, time to exhaustion" },
	{ "probe", cmd_probe, TAKES_DAEMON | NO_NETLINK, 1, 1,
	  "live|ready [--daemon ADDR:PORT]  is iommu-accountd alive, does the module answer it "
	  "(exit 0 or 1): a container's probes" },
	{ "top", cmd_top, TAKES_DAEMON | TAKES_COUNT | NO_NETLINK, 0, 0,
	  "[--daemon ADDR:PORT] [--count N]  live view: utilisation, rate, time to exhaustion, state" },
	{ "history", cmd_history, TAKES_HIST | TAKES_FILE | NO_NETLINK, 0, 1,
	  "KIND:ID [--since T] [--until T] [--file PATH] [--openmetrics] | --list [--since T] [--until T] "
	  "[--file PATH]  "
	  "what iommu-accountd kept of it; the objects it kept" },
	{ "plan", cmd_plan, TAKES_UID | TAKES_PID | TAKES_FILE | VARARGS | TAKES_PLAN, 0,
	  IA_PLAN_MAX_ITEMS,
	  "[--uid N|--pid N] [--file SPEC] [ITEM ...] [--offline [--pot B] [--dma-entry-limit N] "
	  "[--kernel REL] [--thp MODE]] [--limit-for]  will a workload fit: each counter after "
	  "it, the first refusal, the settings that fit" },
	{ "events", cmd_events, TAKES_COUNT, 0, 0,
	  "[--count N]  follow failure and threshold events" },
	{ "reset-scope", cmd_reset_scope, TAKES_UID, 0, 1,
	  "[BDF] [--uid N]  what a VFIO hot reset would reach, who holds it, could uid N do it" },
	{ "explain", cmd_explain, 0, 2, 2,
	  "uid N | container N | qpair N | iommufd-ctx N  why it refuses: the limit, its figures, "
	  "who, fixes" },
	{ "thresholds", cmd_thresholds, TAKES_KIND | TAKES_MARGIN, 0, 2,
	  "[--kind vfio|uid-pot|qpair] [--margin N] [WARN CRIT]  event thresholds (per mille)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iommu-accountctl [-j|--json] COMMAND [OPTIONS] [ARGS]\n"
		   "       iommu-accountctl -h|--help | -V|--version\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-11s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nexit status: 0 ok, 1 usage, 2 module not loaded, 3 permission denied,\n"
		   "4 no such object, 5 unsupported by the loaded module or kernel, 6 other failure,\n"
		   "7 the kernel refuses the module's signature, 8 plan: the workload would be refused,\n"
		   "9 plan: the verdict rests on figures it could not read (offline)\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "iommu-accountctl: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see iommu-accountctl --help)\n");
	return IA_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "uid", required_argument, NULL, OPT_UID },
		{ "id", required_argument, NULL, OPT_ID },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "margin", required_argument, NULL, OPT_MARGIN },
		{ "daemon", required_argument, NULL, OPT_DAEMON },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "pot", required_argument, NULL, OPT_POT },
		{ "dma-entry-limit", required_argument, NULL, OPT_DEL },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "thp", required_argument, NULL, OPT_THP },
		{ "limit-for", no_argument, NULL, OPT_LIMIT_FOR },
		{ NULL, 0, NULL, 0 },
	};
	struct ia_ctx ctx = { 0 };
	unsigned int given = 0;
	const char *optname = "";
	size_t i;
	int c, nargs, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 'h':
			usage(stdout);
			return IA_EXIT_OK;
		case 'V':
			printf("iommu-accountctl %s (netlink family %s version %d)\n",
			       IA_VERSION, IOMMU_ACCOUNT_FAMILY_NAME,
			       IOMMU_ACCOUNT_FAMILY_VERSION);
			return IA_EXIT_OK;
		case OPT_UID:
		case OPT_ID:
			optname = c == OPT_UID ? "--uid" : "--id";
			given |= c == OPT_UID ? TAKES_UID : TAKES_ID;
			if (ia_parse_u32(optarg, &ctx.key))
				return usage_error("bad number '%s'", optarg);
			ctx.have_key = true;
			break;
		case OPT_PID:
			given |= TAKES_PID;
			optname = "--pid";
			if (ia_parse_u32(optarg, &ctx.pid) || !ctx.pid)
				return usage_error("--pid takes a process id, not '%s'", optarg);
			ctx.have_pid = true;
			break;
		case OPT_KIND:
			given |= TAKES_KIND;
			optname = "--kind";
			ctx.kind_name = optarg;
			break;
		case OPT_MARGIN:
			given |= TAKES_MARGIN;
			optname = "--margin";
			if (ia_parse_u32(optarg, &ctx.margin) || !ctx.margin)
				return usage_error("--margin takes a number above 0, not '%s'", optarg);
			break;
		case OPT_DAEMON:
			given |= TAKES_DAEMON;
			optname = "--daemon";
			ctx.daemon = optarg;
			break;
		case OPT_SINCE:
		case OPT_UNTIL:
		case OPT_LIST:
		case OPT_FILE:
		case OPT_OPENMETRICS:
			given |= c == OPT_FILE ? TAKES_FILE : TAKES_HIST;
			optname = c == OPT_SINCE ? "--since" : c == OPT_UNTIL ? "--until" :
				  c == OPT_LIST ? "--list" : c == OPT_FILE ? "--file" :
				  "--openmetrics";
			if (c == OPT_SINCE)
				ctx.hist_since = optarg;
			else if (c == OPT_UNTIL)
				ctx.hist_until = optarg;
			else if (c == OPT_LIST)
				ctx.hist_list = true;
			else if (c == OPT_FILE)
				ctx.hist_file = optarg;
			else
				ctx.hist_openmetrics = true;
			break;
		case OPT_OFFLINE:
		case OPT_LIMIT_FOR:
			given |= TAKES_PLAN;
			optname = c == OPT_OFFLINE ? "--offline" : "--limit-for";
			if (c == OPT_OFFLINE)
				ctx.offline = true;
			else
				ctx.limit_for = true;
			break;
		case OPT_POT:
			given |= TAKES_PLAN;
			optname = "--pot";
			if (ia_parse_size(optarg, &ctx.pot) || ctx.pot == UINT64_MAX)
				return usage_error("--pot takes a size in bytes (0, 6M), not '%s'",
						   optarg);
			ctx.have_pot = true;
			break;
		case OPT_DEL:
			given |= TAKES_PLAN;
			optname = "--dma-entry-limit";
			if (ia_parse_u32(optarg, &ctx.dma_entry_limit) || !ctx.dma_entry_limit)
				return usage_error("--dma-entry-limit takes a number above 0, not '%s'",
						   optarg);
			ctx.have_del = true;
			break;
		case OPT_KERNEL:
			given |= TAKES_PLAN;
			optname = "--kernel";
			if (!*optarg || strlen(optarg) >= 64 || strspn(optarg, "0123456789.") < 3 ||
			    !strchr(optarg, '.'))
				return usage_error("--kernel takes a release (6.12, 7.3.4+deb13-amd64), "
						   "not '%s'", optarg);
			ctx.kernel = optarg;
			break;
		case OPT_THP:
			given |= TAKES_PLAN;
			optname = "--thp";
			if (strcmp(optarg, "always") && strcmp(optarg, "madvise") &&
			    strcmp(optarg, "never"))
				return usage_error("--thp takes always, madvise or never, not '%s'",
						   optarg);
			ctx.thp = optarg;
			break;
		case OPT_COUNT:
			given |= TAKES_COUNT;
			if (ia_parse_u32(optarg, &ctx.count) || !ctx.count)
				return usage_error("--count takes a number above 0, not '%s'", optarg);
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no command given");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[optind], cmds[i].name))
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0]))
		return usage_error("unknown command '%s'", argv[optind]);
	ctx.cmd = cmds[i].name;
	if (given & ~cmds[i].takes & ~NO_NETLINK)
		return usage_error("this command does not take %s",
				   given & TAKES_COUNT ? "--count" : optname);
	if ((given & TAKES_PID) && (given & TAKES_UID))
		return usage_error("%s", "--uid and --pid exclude each other");
	if ((ctx.have_pot || ctx.have_del || ctx.kernel || ctx.thp) && !ctx.offline)
		return usage_error("%s", "--pot, --dma-entry-limit, --kernel and --thp state what "
				   "plan --offline cannot read: give --offline");
	if (ctx.offline && (given & TAKES_PID))
		return usage_error("%s", "--pid is read through the module; offline, say the "
				   "process with a spec line (process memlock=... cap_ipc_lock=...)");
	nargs = argc - optind - 1;
	if (nargs < cmds[i].min_args || nargs > cmds[i].max_args ||
	    (nargs && nargs != cmds[i].max_args && !(cmds[i].takes & VARARGS)))
		return usage_error("bad arguments for '%s'", cmds[i].name);
	ctx.args = argv + optind + 1;
	ctx.nargs = nargs;
	if (!strcmp(ctx.cmd, "plan")) {
		ctx.spec_file = ctx.hist_file;
		ret = ia_ctl_plan_parse(&ctx);
		if (ret) {
			free(ctx.plan);
			return ret;
		}
	}
	/* thresholds knows its kinds; quotas resolves any the module lists. */
	if (!strcmp(ctx.cmd, "thresholds") && ctx.kind_name) {
		if (!strcmp(ctx.kind_name, "uid-pot"))
			ctx.kind = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT;
		else if (!strcmp(ctx.kind_name, "qpair"))
			ctx.kind = IOMMU_ACCOUNT_QUOTA_KIND_QPAIR;
		else if (strcmp(ctx.kind_name, "vfio") && strcmp(ctx.kind_name, "vfio-container"))
			return usage_error("--kind takes vfio, uid-pot or qpair, not '%s'",
					   ctx.kind_name);
	}
	if (!strcmp(ctx.cmd, "explain") &&
	    ((strcmp(ctx.args[0], "uid") && strcmp(ctx.args[0], "container") &&
	      strcmp(ctx.args[0], "vfio-container") && strcmp(ctx.args[0], "qpair") &&
	      strcmp(ctx.args[0], "iommufd-ctx")) || ia_parse_u32(ctx.args[1], &ctx.key)))
		return usage_error("%s", "explain takes: uid N, container N, qpair N or "
				   "iommufd-ctx N");
	if (!strcmp(ctx.cmd, "thresholds") && nargs &&
	    (ia_parse_u32(ctx.args[0], &ctx.warn) || ia_parse_u32(ctx.args[1], &ctx.crit)))
		return usage_error("%s", "thresholds WARN CRIT take numbers (per mille, e.g. 800 950)");

	ia_json_init(&ctx.j, stdout);
	if (cmds[i].takes & NO_NETLINK)
		return cmds[i].fn(&ctx);
	if (ctx.offline) {
		ret = cmds[i].fn(&ctx);
		free(ctx.plan);
		return ret;
	}
	ret = ia_client_open(&ctx.cl);
	if (ret == -ENOENT && !strcmp(ctx.cmd, "plan") && !ctx.have_pid) {
		/* No module: plan the rest, and say what could not be read. */
		fprintf(stderr, "iommu-accountctl: plan: %s; planning offline: the uid's pot is "
			"not known (--offline --pot BYTES states it)\n", ctx.cl.errmsg);
		ctx.offline = true;
		ret = cmds[i].fn(&ctx);
		free(ctx.plan);
		return ret;
	}
	if (ret == -ENOENT)
		ret = ctx.cl.nomodule_exit;
	if (ret)
		fprintf(stderr, "iommu-accountctl: %s\n", ctx.cl.errmsg);
	else
		ret = cmds[i].fn(&ctx);
	ia_client_close(&ctx.cl);
	free(ctx.plan);
	return ret < 0 ? IA_EXIT_FAIL : ret;
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
