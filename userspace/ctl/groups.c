// SPDX-License-Identifier: GPL-2.0
/* iommu-accountctl groups [--id N]: IOMMU groups, their devices and owners. */
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

static void print_device(struct ia_ctx *ctx, struct nlattr *nest, bool first)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_DEVICE_MAX + 1];
	const char *addr = "", *drv = "";
	unsigned int ven = 0, dev = 0;

	if (nla_parse_nested(tb, IOMMU_ACCOUNT_A_DEVICE_MAX, nest, NULL))
		return;
	if (tb[IOMMU_ACCOUNT_A_DEVICE_ADDRESS])
		addr = nla_get_string(tb[IOMMU_ACCOUNT_A_DEVICE_ADDRESS]);
	if (tb[IOMMU_ACCOUNT_A_DEVICE_DRIVER])
		drv = nla_get_string(tb[IOMMU_ACCOUNT_A_DEVICE_DRIVER]);
	if (tb[IOMMU_ACCOUNT_A_DEVICE_VENDOR])
		ven = nla_get_u16(tb[IOMMU_ACCOUNT_A_DEVICE_VENDOR]);
	if (tb[IOMMU_ACCOUNT_A_DEVICE_DEVICE])
		dev = nla_get_u16(tb[IOMMU_ACCOUNT_A_DEVICE_DEVICE]);
	if (ctx->json) {
		printf("%s{\"address\":", first ? "" : ",");
		ia_json_str(stdout, addr);
		printf(",\"vendor\":\"%04x\",\"device\":\"%04x\",\"driver\":", ven, dev);
		if (*drv)
			ia_json_str(stdout, drv);
		else
			printf("null");
		printf("}");
	} else {
		printf("    %s %04x:%04x %s\n", addr, ven, dev, *drv ? drv : "(no driver)");
	}
}

static int group_cb(struct ia_ctx *ctx, struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	unsigned int *n = arg;
	uint32_t id = tb[IOMMU_ACCOUNT_A_GROUP_ID] ? nla_get_u32(tb[IOMMU_ACCOUNT_A_GROUP_ID]) : 0;
	uint32_t be = tb[IOMMU_ACCOUNT_A_GROUP_BACKEND] ?
		nla_get_u32(tb[IOMMU_ACCOUNT_A_GROUP_BACKEND]) : 0;
	struct nlattr *a;
	bool first = true;
	char b[96];
	int rem;

	if (ctx->json) {
		printf("%s{\"id\":%u,\"backend\":\"%s\"", (*n)++ ? "," : "", id, backend_name(be));
		if (tb[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID])
			printf(",\"container\":%u", nla_get_u32(tb[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID]));
		ia_print_owner(ctx, tb[IOMMU_ACCOUNT_A_GROUP_OWNER], "owner");
		printf(",\"devices\":[");
	} else {
		(*n)++;
		printf("group %u: %s", id, backend_name(be));
		if (tb[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID])
			printf(" %u", nla_get_u32(tb[IOMMU_ACCOUNT_A_GROUP_CONTAINER_ID]));
		if (tb[IOMMU_ACCOUNT_A_GROUP_OWNER])
			printf(", owner %s", ia_owner_str(tb[IOMMU_ACCOUNT_A_GROUP_OWNER], b, sizeof(b)));
		printf("\n");
	}
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != IOMMU_ACCOUNT_A_GROUP_DEVICE)
			continue;
		print_device(ctx, a, first);
		first = false;
	}
	if (ctx->json)
		printf("]}");
	return 0;
}

int cmd_groups(struct ia_ctx *ctx)
{
	unsigned int n = 0;

	return ia_get_objects(ctx, IOMMU_ACCOUNT_CMD_GET_GROUP,
			      IOMMU_ACCOUNT_A_GROUP_ID, IOMMU_ACCOUNT_A_GROUP_MAX, group_cb, &n);
}
