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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

/* The commands, in the order --help lists them; each declares itself in its file. */
static const struct ia_ctl_cmd *const cmds[] = {
	&ia_cmd_status, &ia_cmd_uids, &ia_cmd_procs, &ia_cmd_holders, &ia_cmd_containers,
	&ia_cmd_groups, &ia_cmd_quotas, &ia_cmd_alerts, &ia_cmd_probe, &ia_cmd_top,
	&ia_cmd_history, &ia_cmd_plan, &ia_cmd_events, &ia_cmd_reset_scope, &ia_cmd_explain,
	&ia_cmd_thresholds,
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))
/* Options of all commands, each once (getopt's val: OPT_BASE + index). */
#define OPT_BASE 0x100
#define OPT_MAX 64

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iommu-accountctl [-j|--json] COMMAND [OPTIONS] [ARGS]\n"
		   "       iommu-accountctl -h|--help | -V|--version\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-11s %s%s%s\n", cmds[i]->name, cmds[i]->synopsis ? : "",
			cmds[i]->synopsis ? "  " : "", cmds[i]->help);
	fprintf(f, "\n`iommu-accountctl COMMAND --help` says more of one.\n");
	fprintf(f, "\nexit status: 0 ok, 1 usage, 2 module not loaded, 3 permission denied,\n"
		   "4 no such object, 5 unsupported by the loaded module or kernel, 6 other failure,\n"
		   "7 the kernel refuses the module's signature, 8 plan: the workload would be refused,\n"
		   "9 plan: the verdict rests on figures it could not read (offline)\n");
}

/*
 * `iommu-accountctl COMMAND --help`: its synopsis, what it does, its
 * options (as opts.c describes each), examples, and where the rest is.
 */
static void cmd_usage(const struct ia_ctl_cmd *c)
{
	const struct ia_ctl_opt *const *p;
	const char *e, *nl;
	char flag[48];

	printf("usage: iommu-accountctl %s%s%s%s\n\n%s\n", c->no_json ? "" : "[-j] ", c->name,
	       c->synopsis ? " " : "", c->synopsis ? : "", c->help);
	printf("\noptions:\n");
	if (!c->no_json)
		printf("  %-22s %s\n", "-j, --json", "JSON instead of text (a listing: one array)");
	for (p = c->opts; p && *p; p++) {
		snprintf(flag, sizeof(flag), "--%s%s%s", (*p)->name, (*p)->arg ? " " : "",
			 (*p)->arg ? : "");
		printf("  %-22s %s\n", flag, (*p)->help);
	}
	printf("  %-22s %s\n", "-h, --help", "this help");
	if (c->example) {
		printf("\nexamples:\n");
		for (e = c->example; *e; e = *nl ? nl + 1 : nl) {
			nl = strchrnul(e, '\n');
			printf("  %.*s\n", (int)(nl - e), e);
		}
	}
	printf("\n%s\nsee iommu-accountctl(8), %s; exit status: iommu-accountctl --help\n",
	       c->no_netlink ? "Reads iommu-accountd, not the module." :
	       "Asks the module (iommu_account: modprobe iommu_account).", c->name);
}

static bool cmd_takes(const struct ia_ctl_cmd *c, const struct ia_ctl_opt *o)
{
	const struct ia_ctl_opt *const *p;

	for (p = c->opts; p && *p; p++)
		if (*p == o)
			return true;
	return false;
}

/* getopt's table: --json, --help, --version, then every command's options, once. */
static size_t build_opts(struct option *lo, const struct ia_ctl_opt **known)
{
	const struct ia_ctl_opt *const *p;
	size_t i, j, n = 0;

	lo[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	for (i = 0; i < NCMDS; i++)
		for (p = cmds[i]->opts; p && *p; p++) {
			for (j = 0; j < n - 3 && known[j] != *p; j++)
				;
			if (j < n - 3 || n - 3 >= OPT_MAX)
				continue;
			known[n - 3] = *p;
			lo[n] = (struct option){ (*p)->name,
						 (*p)->type == IA_OPT_FLAG ? no_argument :
						 required_argument, NULL, OPT_BASE + (int)(n - 3) };
			n++;
		}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	return n - 3;
}

static int run(const struct ia_ctl_cmd *cmd, struct ia_ctx *ctx)
{
	int ret;

	ia_json_init(&ctx->j, stdout);
	if (cmd->no_netlink || ctx->offline)
		return cmd->fn(ctx);
	ret = ia_client_open(&ctx->cl);
	if (ret == -ENOENT && cmd == &ia_cmd_plan && !ctx->have_pid) {
		/* No module: plan the rest, and say what could not be read. */
		fprintf(stderr, "iommu-accountctl: plan: %s; planning offline: the uid's pot is "
			"not known (--offline --pot BYTES states it)\n", ctx->cl.errmsg);
		ctx->offline = true;
		return cmd->fn(ctx);
	}
	if (ret == -ENOENT && cmd->without_module) {
		/* status: what this kernel would give the module, then the same exit. */
		fprintf(stderr, "iommu-accountctl: %s\n", ctx->cl.errmsg);
		ctx->offline = true;
		ret = cmd->fn(ctx);
		return ret ? ret : ctx->cl.nomodule_exit;
	}
	if (ret == -ENOENT)
		ret = ctx->cl.nomodule_exit;
	if (ret)
		fprintf(stderr, "iommu-accountctl: %s\n", ctx->cl.errmsg);
	else
		ret = cmd->fn(ctx);
	ia_client_close(&ctx->cl);
	return ret < 0 ? IA_EXIT_FAIL : ret;
}

int main(int argc, char **argv)
{
	struct option lo[3 + OPT_MAX + 1];
	const struct ia_ctl_opt *known[OPT_MAX];
	const struct ia_ctl_opt **given;
	const struct ia_ctl_cmd *cmd = NULL;
	struct ia_ctx ctx = { 0 };
	size_t i, ngiven = 0;
	const char *why;
	bool help = false;
	int c, nargs, ret;

	build_opts(lo, known);
	given = calloc(argc + 1, sizeof(*given));
	if (!given)
		return IA_EXIT_FAIL;
	opterr = 0;
	/* Values are read as they come, whatever the command: a bad one is named first. */
	while ((c = getopt_long(argc, argv, ":jhV", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			printf("iommu-accountctl %s (netlink family %s version %d)\n",
			       IA_VERSION, IOMMU_ACCOUNT_FAMILY_NAME,
			       IOMMU_ACCOUNT_FAMILY_VERSION);
			return IA_EXIT_OK;
		case ':':
			return ia_ctl_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (c < OPT_BASE || c >= OPT_BASE + OPT_MAX)
				return ia_ctl_usage_error("unknown option '%s'", argv[optind - 1]);
			given[ngiven] = known[c - OPT_BASE];
			why = ia_ctl_opt_parse(given[ngiven], &ctx, optarg);
			if (why)
				return ia_ctl_usage_error(why, optarg);
			ngiven++;
		}
	}
	if (optind >= argc && help) {
		usage(stdout);
		return IA_EXIT_OK;
	}
	if (optind >= argc)
		return ia_ctl_usage_error("%s", "no command given");
	for (i = 0; i < NCMDS && !cmd; i++)
		if (!strcmp(argv[optind], cmds[i]->name))
			cmd = cmds[i];
	if (!cmd)
		return ia_ctl_usage_error("unknown command '%s'", argv[optind]);
	if (help) {
		cmd_usage(cmd);
		return IA_EXIT_OK;
	}
	if (ctx.json && cmd->no_json)
		return ia_ctl_usage_error("%s prints text only: no --json", cmd->name);
	ctx.cmd = cmd->name;
	for (i = 0; i < ngiven; i++)
		if (!cmd_takes(cmd, given[i])) {
			char name[64];

			snprintf(name, sizeof(name), "--%s", given[i]->name);
			return ia_ctl_usage_error("this command does not take %s", name);
		}
	free(given);
	if (ctx.have_pid && ctx.have_key && cmd_takes(cmd, &ia_opt_uid))
		return ia_ctl_usage_error("%s", "--uid and --pid exclude each other");
	nargs = argc - optind - 1;
	if (nargs < cmd->min_args || nargs > cmd->max_args ||
	    (nargs && nargs != cmd->max_args && !cmd->varargs))
		return ia_ctl_usage_error("bad arguments for '%s'", cmd->name);
	ctx.args = argv + optind + 1;
	ctx.nargs = nargs;
	ret = cmd->check ? cmd->check(&ctx) : 0;
	if (!ret)
		ret = run(cmd, &ctx);
	if (cmd->done)
		cmd->done(&ctx);
	return ret;
}
