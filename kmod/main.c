// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * iommu_account: occupancy of kernel quotas that fail with misleading errors
 * (the per-uid RLIMIT_MEMLOCK pot, ...) exported over generic netlink.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/stdarg.h>

#include "ia.h"

struct ia_feature_info ia_features[IA_FEAT_COUNT] = {
	[IA_FEAT_UID_TASKS] = { .name = "uid-tasks" },
	[IA_FEAT_UID_ORPHANS] = { .name = "uid-orphans" },
	[IA_FEAT_VFIO_TYPE1] = { .name = "vfio-type1" },
	[IA_FEAT_VFIO_GROUPS] = { .name = "vfio-groups" },
	[IA_FEAT_IOMMUFD] = { .name = "iommufd" },
};

void ia_feature_set(enum ia_feature f, bool active, const char *fmt, ...)
{
	va_list ap;

	ia_features[f].active = active;
	va_start(ap, fmt);
	vsnprintf(ia_features[f].detail, sizeof(ia_features[f].detail), fmt, ap);
	va_end(ap);
	if (!active)
		pr_info("feature %s unavailable: %s\n", ia_features[f].name,
			ia_features[f].detail);
}

static int __init ia_init(void)
{
	int ret;

	ret = ia_uid_init();
	if (ret)
		return ret;
	ret = ia_netlink_init();
	if (ret)
		goto err_uid;
	ret = ia_vfio_init();
	if (ret)
		goto err_netlink;
	pr_info("loaded, version %s\n", IA_VERSION);
	return 0;

err_netlink:
	ia_netlink_exit();
err_uid:
	ia_uid_exit();
	return ret;
}

static void __exit ia_exit(void)
{
	ia_vfio_exit();
	ia_netlink_exit();
	ia_uid_exit();
}

module_init(ia_init);
module_exit(ia_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("iommu-account developers");
MODULE_DESCRIPTION("Accounting of locked-memory, VFIO and IOMMU quotas over generic netlink");
MODULE_VERSION(IA_VERSION);
