// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * iommu_account: occupancy of kernel quotas that fail with misleading errors
 * (the per-uid RLIMIT_MEMLOCK pot, VFIO DMA mapping slots, and the pools
 * applications publish through /dev/iommu-account) exported over
 * generic netlink. Sources start first, the family last, so no request ever
 * meets a source that is not ready; exit goes the other way.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#include "ia.h"
#include "wrapper/hook.h"

static int __init ia_init(void)
{
	int ret;

	ret = ia_hooks_check();
	if (ret)
		return ret;
	ret = ia_uid_init();
	if (ret)
		return ret;
	ret = ia_memlock_init();
	if (ret)
		goto err_uid;
	ret = ia_vfio_init();
	if (ret)
		goto err_memlock;
	ret = ia_pub_init();
	if (ret)
		goto err_vfio;
	ret = ia_reset_init();
	if (ret)
		goto err_pub;
	ret = ia_netlink_init();
	if (ret)
		goto err_pub;
	pr_info("loaded, version %s\n", IA_VERSION);
	return 0;

err_pub:
	ia_pub_exit();
err_vfio:
	ia_vfio_exit();
err_memlock:
	ia_memlock_exit();
err_uid:
	ia_uid_exit();
	ia_events_exit();
	return ret;
}

static void __exit ia_exit(void)
{
	ia_netlink_exit();
	ia_pub_exit();
	ia_vfio_exit();
	ia_memlock_exit();
	ia_uid_exit();
	ia_events_exit();
}

module_init(ia_init);
module_exit(ia_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("iommu-account developers");
MODULE_DESCRIPTION("Accounting of locked-memory, VFIO and IOMMU quotas over generic netlink");
MODULE_VERSION(IA_VERSION);
