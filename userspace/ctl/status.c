// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl status: module version, kernel, state of each feature. */
#include "ctl.h"

static int cmd_status(struct ia_ctx *ctx)
{
	struct ia_status st;
	struct ia_json *j = &ctx->j;
	unsigned int i;
	int err;

	err = ia_get_status(&ctx->cl, &st);
	if (err)
		return ia_ctl_error(ctx, "status", err);
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
		ia_json_obj_close(j);
		printf("\n");
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
	return IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_status = {
	.name = "status",
	.fn = cmd_status,
	.help = "module version, kernel, features and their state",
};
