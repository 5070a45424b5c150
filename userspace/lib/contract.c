// SPDX-License-Identifier: GPL-2.0
/*
 * The hook contract (kmod/hooks.contract, built into libia as
 * contract-gen.c) against the running kernel's BTF: what scripts/hook-check
 * does for each kernel package before a VM boots, done by `status` on the
 * host it runs on. For each hooked function, its prototype in the BTF of
 * its module (/sys/kernel/btf/MODULE while that module is loaded; vmlinux
 * when it is built in) against the contract's line for this kernel's series
 * (7.3 for 7.3.4+deb13-amd64); on a series no line names, against every
 * prototype the contract recorded for it. A module that is not loaded
 * cannot be read: its functions are said unchecked, never passed; unless
 * @all_modules says @btf_dir holds every module the kernel has (its
 * packages, scripts/hook-check): then one without BTF there is not built,
 * and its functions are absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"

/* "6.12" of "6.12.118+deb12-amd64". */
static void series_of(const char *release, char *out, size_t len)
{
	const char *dot = strchr(release, '.');
	size_t n = dot ? strspn(dot + 1, "0123456789") : 0;

	n = dot ? (size_t)(dot - release) + 1 + n : strlen(release);
	snprintf(out, len, "%.*s", (int)n, release);
}

bool ia_contract_names(const char *kernels, const char *series)
{
	size_t n = strlen(series);
	const char *p;

	for (p = kernels; (p = strstr(p, series)); p += n)
		if ((p == kernels || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static void add_diff(struct ia_contract_result *r, const struct ia_contract_row *row,
		     const char *got, const char *want, bool named)
{
	struct ia_contract_diff *d;

	if (r->ndiff >= IA_CONTRACT_DIFFS) {
		r->diffs_cut = true;
		return;
	}
	d = &r->diff[r->ndiff++];
	snprintf(d->function, sizeof(d->function), "%s", row->sym);
	snprintf(d->feature, sizeof(d->feature), "%s", row->feature);
	snprintf(d->kernel, sizeof(d->kernel), "%s", got);
	snprintf(d->contract, sizeof(d->contract), "%s", want);
	d->line = named ? row->line : 0;
}

static void add_unchecked(struct ia_contract_result *r, const char *mod)
{
	unsigned int i;

	for (i = 0; i < r->nunchecked; i++)
		if (!strcmp(r->unchecked[i], mod))
			return;
	if (r->nunchecked < IA_CONTRACT_MODULES)
		snprintf(r->unchecked[r->nunchecked++], sizeof(r->unchecked[0]), "%s", mod);
}

/* Module @mod's BTF on @vm, opened once per check (NULL: not there); @m has a slot per row. */
struct mod_btf {
	const char *mod;
	struct ia_btf *btf;
};

static struct ia_btf *mod_btf(struct mod_btf *m, unsigned int *n, const char *btf_dir,
			      const char *mod, struct ia_btf *vm)
{
	char path[4096];
	unsigned int i;
	int err;

	for (i = 0; i < *n; i++)
		if (!strcmp(m[i].mod, mod))
			return m[i].btf;
	snprintf(path, sizeof(path), "%s/%s", btf_dir, mod);
	m[i].mod = mod;
	m[i].btf = ia_btf_open(path, vm, &err);
	(*n)++;
	return m[i].btf;
}

int ia_contract_check(const char *release, const char *btf_dir, bool all_modules,
		      struct ia_contract_result *r)
{
	struct mod_btf *mods;
	char path[4096], got[IA_CONTRACT_PROTO];
	struct ia_btf *vm, *mb;
	unsigned int i, k, nmods = 0;
	int err, ret = 0;

	memset(r, 0, sizeof(*r));
	series_of(release, r->series, sizeof(r->series));
	snprintf(path, sizeof(path), "%s/vmlinux", btf_dir);
	vm = ia_btf_open(path, NULL, &err);
	if (!vm)
		return err == -ENOENT ? 0 : err;
	mods = calloc(ia_contract_n, sizeof(*mods));
	if (!mods) {
		ia_btf_close(vm);
		return -ENOMEM;
	}
	r->has_btf = true;
	for (i = 0; i < ia_contract_n; i++) {
		const struct ia_contract_row *row = &ia_contract[i], *named = NULL;
		bool any = false;
		int found;

		/* Each function once: at its first line. */
		for (k = 0; k < i && strcmp(ia_contract[k].sym, row->sym); k++)
			;
		if (k < i)
			continue;
		r->nhooks++;
		mb = strcmp(row->mod, "vmlinux") ? mod_btf(mods, &nmods, btf_dir, row->mod, vm) : NULL;
		found = ia_btf_proto(mb ? mb : vm, row->sym, got, sizeof(got));
		/* No module BTF and not in vmlinux: the module is not loaded (or not built). */
		if (!found && !mb && strcmp(row->mod, "vmlinux") && !all_modules) {
			add_unchecked(r, row->mod);
			continue;
		}
		if (found < 0) {
			ret = found;
			break;
		}
		if (!found)
			snprintf(got, sizeof(got), "absent");
		r->nchecked++;
		for (k = i; k < ia_contract_n; k++) {
			if (strcmp(ia_contract[k].sym, row->sym))
				continue;
			if (!named && ia_contract_names(ia_contract[k].kernels, r->series))
				named = &ia_contract[k];
			any |= !strcmp(ia_contract[k].proto, got);
		}
		if (named && strcmp(named->proto, got))
			add_diff(r, named, got, named->proto, true);
		else if (!named && !any)
			add_diff(r, row, got, "none of the prototypes verified on other series", false);
		r->named |= named != NULL;
	}
	for (i = 0; i < nmods; i++)
		ia_btf_close(mods[i].btf);
	free(mods);
	ia_btf_close(vm);
	return ret;
}
