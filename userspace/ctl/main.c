// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl: query iommu_account.ko over generic netlink.
 */
#include <string.h>

#include "ctl.h"

static const struct {
	const char *name;
	int (*fn)(struct ia_ctx *ctx, int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "status", cmd_status, "module version, kernel, features and their state" },
	{ "uids", cmd_uids, "[--uid N]  per-uid locked-memory pot (RLIMIT_MEMLOCK)" },
	{ "containers", cmd_containers, "[--id N]  VFIO type1 containers: entries/limit, pinned, failures" },
	{ "groups", cmd_groups, "[--id N]  IOMMU groups: devices, container, owner" },
	{ "events", cmd_events, "[--count N]  follow failure and threshold events" },
	{ "thresholds", cmd_thresholds, "[WARN CRIT]  show or set event thresholds (per mille)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iommu-accountctl [--json] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-11s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nexit status: 0 ok, 1 usage, 2 module not loaded, 3 permission denied,\n"
		   "4 no such object, 5 unsupported by the loaded module, 6 other failure\n");
}

int main(int argc, char **argv)
{
	struct ia_ctx ctx = { 0 };
	size_t i;
	int ret;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "--json") || !strcmp(argv[0], "-j")) {
			ctx.json = true;
		} else if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
			usage(stdout);
			return IA_EXIT_OK;
		} else {
			fprintf(stderr, "iommu-accountctl: unknown option '%s'\n", argv[0]);
			usage(stderr);
			return IA_EXIT_USAGE;
		}
		argc--;
		argv++;
	}
	if (!argc) {
		usage(stderr);
		return IA_EXIT_USAGE;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		ret = ia_open(&ctx);
		if (ret == IA_EXIT_OK)
			ret = cmds[i].fn(&ctx, argc, argv);
		if (ctx.sk)
			ia_close(&ctx);
		return ret;
	}
	fprintf(stderr, "iommu-accountctl: unknown command '%s'\n", argv[0]);
	usage(stderr);
	return IA_EXIT_USAGE;
}
