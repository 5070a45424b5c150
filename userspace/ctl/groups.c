// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl groups [--id N]: IOMMU groups, their devices and owners,
 * and for each device whether a VFIO hot reset of it stays inside its own
 * group (what a VMM that resets with one group fd relies on).
 */
#include <string.h>

#include <uapi/linux/iommu_account.h>

#include "ctl.h"

static const char *backend_name(uint32_t b)
{
	switch (b) {
	case IOMMU_ACCOUNT_GROUP_BACKEND_VFIO_CONTAINER:
		return "vfio-container";
	case IOMMU_ACCOUNT_GROUP_BACKEND_IOMMUFD:
		return "iommufd";
	default:
		return "none";
	}
}

struct groups_state {
	struct ia_ctx *ctx;
	struct ia_reset_brief *resets;	/* NULL: the module cannot tell */
};

/*
 * "in-group", "other-groups", "refused" (it reaches a device outside
 * vfio-pci's reset set: never possible), "none", or NULL when unknown.
 */
static const char *hot_reset(const struct groups_state *s, const char *address)
{
	const struct ia_reset_brief *b;

	if (!s->resets)
		return NULL;
	b = ia_ctl_reset_brief(s->resets, address);
	if (!b || b->unknown)
		return NULL;
	if (b->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE)
		return "none";
	if (b->refused)
		return "refused";
	return b->in_own_group ? "in-group" : "other-groups";
}

static int group_cb(const struct ia_group *g, void *arg)
{
	struct groups_state *s = arg;
	struct ia_ctx *ctx = s->ctx;
	const char *hr;
	struct ia_json *j = &ctx->j;
	const struct ia_device *d;
	char vd[8], b[96];
	unsigned int i;

	if (ctx->json) {
		ia_json_obj_open(j, NULL);
		ia_json_u64(j, "id", g->id);
		ia_json_str(j, "backend", backend_name(g->backend));
		if (g->has_container)
			ia_json_u64(j, "container", g->container);
		ia_json_owner(j, "owner", &g->owner);
		ia_json_arr_open(j, "devices");
		for (i = 0; i < g->ndevices; i++) {
			d = &g->devices[i];
			ia_json_obj_open(j, NULL);
			ia_json_str(j, "address", d->address);
			snprintf(vd, sizeof(vd), "%04x", d->vendor);
			ia_json_str(j, "vendor", vd);
			snprintf(vd, sizeof(vd), "%04x", d->device);
			ia_json_str(j, "device", vd);
			ia_json_str_or_null(j, "driver", d->driver);
			hr = hot_reset(s, d->address);
			ia_json_str_or_null(j, "hot_reset", hr);
			ia_json_obj_close(j);
		}
		ia_json_arr_close(j);
		ia_json_obj_close(j);
		return 0;
	}
	printf("group %u: %s", g->id, backend_name(g->backend));
	if (g->has_container)
		printf(" %u", g->container);
	if (g->owner.present)
		printf(", owner %s", ia_owner_str(&g->owner, b, sizeof(b)));
	printf("\n");
	for (i = 0; i < g->ndevices; i++) {
		d = &g->devices[i];
		hr = hot_reset(s, d->address);
		printf("    %s %04x:%04x %s%s%s\n", d->address, d->vendor, d->device,
		       d->driver[0] ? d->driver : "(no driver)",
		       hr ? ", hot reset: " : "",
		       !hr ? "" : !strcmp(hr, "in-group") ? "stays in the group" :
		       !strcmp(hr, "none") ? "none" :
		       !strcmp(hr, "refused") ? "refused by the kernel (outside the reset set)" :
		       "reaches other groups");
	}
	return 0;
}

static int cmd_groups(struct ia_ctx *ctx)
{
	struct groups_state s = { ctx, ia_ctl_reset_briefs(ctx) };
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_groups(&ctx->cl, ia_ctx_key(ctx), group_cb, &s);
	ia_ctl_list_close(ctx);
	ia_ctl_reset_briefs_free(s.resets);
	return err ? ia_ctl_error(ctx, "groups", err) : IA_EXIT_OK;
}

const struct ia_ctl_cmd ia_cmd_groups = {
	.name = "groups",
	.fn = cmd_groups,
	.opts = IA_CTL_OPTS(&ia_opt_id),
	.synopsis = "[--id N]",
	.help = "IOMMU groups: devices, container, owner",
	.example = "iommu-accountctl groups",
};
