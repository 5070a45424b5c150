// SPDX-License-Identifier: GPL-2.0
/*
 * contract_test [--packages] RELEASE DIR: libia's hook contract check
 * (lib/contract.c, the one `status` runs on the running kernel) against the
 * raw BTF files in DIR (vmlinux, and one per module, as /sys/kernel/btf has
 * them), for a kernel of release RELEASE. --packages: DIR has every module
 * of the kernel (a module without a file is not built). scripts/hook-check
 * runs it on the BTF it takes out of each kernel's packages, and on a
 * doctored copy. Prints
 *   ok SERIES: N hooks as the contract says (M checked)
 * or
 *   not ok SERIES: D of N differ
 *   # FUNCTION (FEATURE, line L): KERNEL; the contract says CONTRACT
 * and "# unchecked MODULE" per module without BTF. Exit 1 on a difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"

int main(int argc, char **argv)
{
	struct ia_contract_result *r = calloc(1, sizeof(*r));
	bool packages = argc > 1 && !strcmp(argv[1], "--packages");
	unsigned int i;
	int err;

	argc -= packages;
	argv += packages;
	if (argc != 3 || !r) {
		fprintf(stderr, "usage: contract_test [--packages] RELEASE DIR\n");
		return 2;
	}
	err = ia_contract_check(argv[1], argv[2], packages, r);
	if (err) {
		printf("not ok %s: %d\n", argv[1], err);
		return 1;
	}
	if (!r->has_btf) {
		printf("not ok %s: no vmlinux BTF in %s\n", r->series, argv[2]);
		return 1;
	}
	if (r->ndiff)
		printf("not ok %s: %u of %u differ\n", r->series, r->ndiff, r->nhooks);
	else
		printf("ok %s: %u hooks as the contract says (%u checked)\n", r->series, r->nhooks,
		       r->nchecked);
	for (i = 0; i < r->ndiff; i++)
		printf("# %s (%s, line %u): %s; the contract says %s\n", r->diff[i].function,
		       r->diff[i].feature, r->diff[i].line, r->diff[i].kernel, r->diff[i].contract);
	if (r->diffs_cut)
		printf("# (more differ than the %d said)\n", IA_CONTRACT_DIFFS);
	for (i = 0; i < r->nunchecked; i++)
		printf("# unchecked %s\n", r->unchecked[i]);
	err = r->ndiff ? 1 : 0;
	free(r);
	return err;
}
