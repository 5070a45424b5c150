// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl status: module version, kernel, state of each feature,
 * and the hook contract against this kernel's BTF (lib/contract.c); with
 * the module absent, the pre-install check: the contract and the module
 * file, and the absent module's exit status.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

#define BTF_DIR "/sys/kernel/btf"

static void contract_json(struct ia_json *j, const struct ia_contract_result *r)
{
	unsigned int i;

	if (!r || !r->has_btf) {
		ia_json_null(j, "hook_contract");
		return;
	}
	ia_json_obj_open(j, "hook_contract");
	ia_json_str(j, "series", r->series);
	ia_json_bool(j, "series_recorded", r->named);
	ia_json_u64(j, "hooks", r->nhooks);
	ia_json_u64(j, "checked", r->nchecked);
	ia_json_arr_open(j, "unchecked_modules");
	for (i = 0; i < r->nunchecked; i++)
		ia_json_str(j, NULL, r->unchecked[i]);
	ia_json_arr_close(j);
	ia_json_arr_open(j, "differ");
	for (i = 0; i < r->ndiff; i++) {
		ia_json_obj_open(j, NULL);
		ia_json_str(j, "function", r->diff[i].function);
		ia_json_str(j, "feature", r->diff[i].feature);
		ia_json_str(j, "kernel", r->diff[i].kernel);
		ia_json_str(j, "contract", r->diff[i].contract);
		ia_json_u64_if(j, "line", r->diff[i].line, r->diff[i].line);
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	ia_json_obj_close(j);
}

static void contract_text(const struct ia_contract_result *r, int err)
{
	unsigned int i;

	printf("hook contract   ");
	if (!r || err) {
		printf("not checked: %s\n", r ? strerror(-err) : "out of memory");
		return;
	}
	if (!r->has_btf) {
		printf("not checked: this kernel has no BTF (" BTF_DIR "/vmlinux: "
		       "CONFIG_DEBUG_INFO_BTF)\n");
		return;
	}
	if (r->ndiff)
		printf("%u of %u hooked functions differ from the contract for %s:\n", r->ndiff,
		       r->nhooks, r->series);
	else if (r->named)
		printf("%u hooked functions as the contract records for %s", r->nhooks, r->series);
	else
		printf("%u hooked functions, each with a prototype the contract records for another "
		       "series (%s is not in it)", r->nhooks, r->series);
	if (!r->ndiff) {
		printf(" (%u read from " BTF_DIR, r->nchecked);
		for (i = 0; i < r->nunchecked; i++)
			printf("%s%s", i ? ", " : "; not loaded, not read: ", r->unchecked[i]);
		printf(")\n");
		return;
	}
	for (i = 0; i < r->ndiff; i++) {
		printf("  %s (%s", r->diff[i].function, r->diff[i].feature);
		if (r->diff[i].line)
			printf(", line %u", r->diff[i].line);
		printf("): %s; the contract says %s\n", r->diff[i].kernel, r->diff[i].contract);
	}
	for (i = 0; i < r->nunchecked; i++)
		printf("%s%s", i ? ", " : "  not loaded, not read: ", r->unchecked[i]);
	if (r->nunchecked)
		printf("\n");
}

/* Each feature the contract names, once, in its order: the number of them. */
static unsigned int contract_features(const char **names, unsigned int max)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < ia_contract_n; i++) {
		for (k = 0; k < n && strcmp(names[k], ia_contract[i].feature); k++)
			;
		if (k == n && n < max)
			names[n++] = ia_contract[i].feature;
	}
	return n;
}

/* How many of @r's differences are in @feature's functions. */
static unsigned int feature_diffs(const struct ia_contract_result *r, const char *feature)
{
	unsigned int i, n = 0;

	for (i = 0; r && i < r->ndiff; i++)
		n += !strcmp(r->diff[i].feature, feature);
	return n;
}

/* A module of @feature's functions that @r did not read (not loaded), or NULL. */
static const char *feature_unread(const struct ia_contract_result *r, const char *feature)
{
	unsigned int i, k;

	for (i = 0; r && i < ia_contract_n; i++)
		for (k = 0; k < r->nunchecked; k++)
			if (!strcmp(ia_contract[i].feature, feature) &&
			    !strcmp(ia_contract[i].mod, r->unchecked[k]))
				return r->unchecked[k];
	return NULL;
}

/*
 * Whether the contract records every function of @feature as absent from
 * @series (not built, inlined): the feature is not on such a kernel.
 */
static bool feature_absent(const char *feature, const char *series)
{
	unsigned int i, k;
	bool any = false;

	for (i = 0; i < ia_contract_n; i++) {
		if (strcmp(ia_contract[i].feature, feature))
			continue;
		for (k = 0; k < ia_contract_n; k++)
			if (!strcmp(ia_contract[k].sym, ia_contract[i].sym) &&
			    ia_contract_names(ia_contract[k].kernels, series) &&
			    !strcmp(ia_contract[k].proto, "absent"))
				break;
		if (k == ia_contract_n)
			return false;
		any = true;
	}
	return any;
}

/*
 * Without the module: what loading it would meet on this kernel (the
 * release, the module file and its signature as the kernel would judge
 * it, each feature's hooks against the contract), and the absent module's
 * exit status afterwards (main.c), so a pre-install check reads the same
 * verdict.
 */
static int status_without_module(struct ia_ctx *ctx)
{
	struct ia_contract_result *cr = calloc(1, sizeof(*cr));
	struct ia_module_diag d;
	const char *feat[32];
	unsigned int i, nf, nd;
	int cerr;

	ia_module_diagnose(&d);
	cerr = cr ? ia_contract_check(d.krel, BTF_DIR, false, cr) : -ENOMEM;
	nf = contract_features(feat, 32);
	if (ctx->json) {
		struct ia_json *j = &ctx->j;

		ia_json_obj_open(j, NULL);
		ia_json_bool(j, "module_loaded", false);
		ia_json_str(j, "module", d.text);
		ia_json_str(j, "module_file", d.path);
		ia_json_str(j, "kernel_release", d.krel);
		contract_json(j, cerr ? NULL : cr);
		ia_json_arr_open(j, "features");
		for (i = 0; i < nf; i++) {
			nd = feature_diffs(cerr ? NULL : cr, feat[i]);
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "name", feat[i]);
			ia_json_str(j, "state", cerr || !cr->has_btf ? "unknown" : nd ? "differs" :
				    feature_absent(feat[i], cr->series) ? "absent" :
				    feature_unread(cr, feat[i]) ? "not_read" : "as_recorded");
			ia_json_u64(j, "functions_differ", nd);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		ia_json_obj_close(j);
		printf("\n");
		free(cr);
		return 0;
	}
	printf("module          not loaded\nkernel release  %s\nmodule file     %s\n", d.krel,
	       d.path[0] ? ia_sx(d.path) : "none installed for this kernel");
	contract_text(cr, cerr);
	printf("features, if it were loaded (the hooks of each against the contract):\n");
	for (i = 0; i < nf; i++) {
		const char *unread = cerr ? NULL : feature_unread(cr, feat[i]);

		nd = feature_diffs(cerr ? NULL : cr, feat[i]);
		printf("  %-18s ", feat[i]);
		if (cerr || !cr->has_btf)
			printf("not known (no BTF read)");
		else if (nd)
			printf("%u function(s) differ (above): the module says what it does "
			       "without them", nd);
		else if (feature_absent(feat[i], cr->series))
			printf("not on this kernel: the contract records its functions absent "
			       "from %s", cr->series);
		else if (unread)
			printf("not read: %s is not loaded (its functions are in its BTF)", unread);
		else
			printf("its functions as recorded");
		printf("\n");
	}
	free(cr);
	return 0;
}

static int cmd_status(struct ia_ctx *ctx)
{
	struct ia_contract_result *cr;
	struct ia_status st;
	struct ia_json *j = &ctx->j;
	unsigned int i;
	int err, cerr;

	if (ctx->offline)
		return status_without_module(ctx);
	err = ia_get_status(&ctx->cl, &st);
	if (err)
		return ia_ctl_error(ctx, "status", err);
	/* The running kernel's, as the module reports its release. */
	cr = calloc(1, sizeof(*cr));
	cerr = cr ? ia_contract_check(st.kernel_release, BTF_DIR, false, cr) : -ENOMEM;
	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_str(j, "module_version", st.module_version);
		ia_json_str(j, "kernel_release", st.kernel_release);
		ia_json_u64(j, "page_size", st.page_size);
		ia_json_arr_open(j, "features");
		for (i = 0; i < st.nfeatures; i++) {
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "name", st.features[i].name);
			ia_json_str(j, "state", st.features[i].active ? "active" : "unavailable");
			ia_json_str(j, "detail", st.features[i].detail);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		ia_json_u64(j, "events_dropped", st.events_dropped);
		ia_json_u64(j, "probes_missed", st.probes_missed);
		ia_json_u64(j, "vfio_untracked", st.vfio_untracked);
		if (st.has_events_seq)
			ia_json_u64(j, "events_seq", st.events_seq);
		if (st.has_budget) {
			ia_json_u64(j, "events_coalesced", st.events_coalesced);
			ia_json_u64(j, "events_suppressed", st.events_suppressed);
			ia_json_u64(j, "failures_suppressed", st.failures_suppressed);
			ia_json_u64(j, "failures_dropped", st.failures_dropped);
			ia_json_arr_open(j, "budget");
			for (i = 0; i < st.nbudget; i++) {
				ia_json_obj_open(j, NULL);
				ia_json_u64(j, "uid", st.budget[i].uid);
				ia_json_u64(j, "suppressed", st.budget[i].suppressed);
				ia_json_u64(j, "failures_suppressed", st.budget[i].failures_suppressed);
				ia_json_obj_close(j);
			}
			ia_json_arr_close(j);
		}
		ia_json_arr_open(j, "quota_kinds");
		for (i = 0; i < st.nkinds; i++) {
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "name", st.kinds[i].name);
			ia_json_str(j, "unit", st.kinds[i].unit);
			if (st.kinds[i].has_refusals)
				ia_json_u64(j, "refusals", st.kinds[i].refusals);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		contract_json(j, cerr ? NULL : cr);
		ia_json_obj_close(j);
		printf("\n");
		free(cr);
		return IA_EXIT_OK;
	}
	printf("module version  %s\nkernel release  %s\npage size       %u\nfeatures:\n",
	       st.module_version, st.kernel_release, st.page_size);
	for (i = 0; i < st.nfeatures; i++)
		printf("  %-14s %-12s %s\n", st.features[i].name,
		       st.features[i].active ? "active" : "unavailable", st.features[i].detail);
	printf("quota kinds    ");
	for (i = 0; i < st.nkinds; i++)
		printf(" %s (%s)", st.kinds[i].name, st.kinds[i].unit);
	printf("%s\n", st.nkinds ? "" : " none");
	for (i = 0; i < st.nkinds; i++)
		if (st.kinds[i].has_refusals)
			printf("  %-14s %llu refusals since load (gone objects' included)\n",
			       st.kinds[i].name, (unsigned long long)st.kinds[i].refusals);
	printf("events dropped  %llu\nprobes missed   %llu\n",
	       (unsigned long long)st.events_dropped, (unsigned long long)st.probes_missed);
	if (st.has_budget) {
		printf("events coalesced %llu (threshold crossings in a later event's count)\n"
		       "over budget     %llu events, %llu failures (not sent; failures lost to a "
		       "full queue: %llu)\n", (unsigned long long)st.events_coalesced,
		       (unsigned long long)st.events_suppressed,
		       (unsigned long long)st.failures_suppressed,
		       (unsigned long long)st.failures_dropped);
		for (i = 0; i < st.nbudget; i++)
			printf("  uid %-10u %llu events, %llu failures over its budget\n",
			       st.budget[i].uid, (unsigned long long)st.budget[i].suppressed,
			       (unsigned long long)st.budget[i].failures_suppressed);
	}
	if (st.vfio_untracked)
		printf("%u VFIO container(s) not tracked (set up before iommu_account loaded)\n",
		       st.vfio_untracked);
	contract_text(cr, cerr);
	free(cr);
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_status = {
	.name = "status",
	.fn = cmd_status,
	.without_module = true,
	.help = "module version, kernel, features and their state; without the module, what "
		"this kernel would give it",
	.example = "iommu-accountctl status\niommu-accountctl -j status",
};
