// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl groups [--id N]: IOMMU groups, their devices and owners. */
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

static int group_cb(const struct ia_group *g, void *arg)
{
	struct ia_ctx *ctx = arg;
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
			if (d->driver[0])
				ia_json_str(j, "driver", d->driver);
			else
				ia_json_null(j, "driver");
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
		printf("    %s %04x:%04x %s\n", d->address, d->vendor, d->device,
		       d->driver[0] ? d->driver : "(no driver)");
	}
	return 0;
}

int cmd_groups(struct ia_ctx *ctx)
{
	int err;

	ia_ctl_list_open(ctx);
	err = ia_get_groups(&ctx->cl, ia_ctx_key(ctx), group_cb, ctx);
	ia_ctl_list_close(ctx);
	return err ? ia_ctl_error(ctx, "groups", err) : IA_EXIT_OK;
}
