// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * iommu_account: occupancy of kernel quotas that fail with misleading errors
 * (the per-uid RLIMIT_MEMLOCK pot, VFIO DMA mapping slots, and the pools
 * applications publish through /dev/iommu-account) exported over
 * generic netlink.
 *
 * The order of initialisation, and why:
 * 1. the hooks= parameter is checked (a bad value refuses the load);
 * 2. kallsyms lookups are found, once (wrapper/kallsyms.c): every source
 *    resolves its symbols with them, and reports a feature off without them;
 *    then the livepatch watch (wrapper/hook.c), before any hook is placed;
 * 3. the sources, in the order of their table (sources.c): uid, memlock
 *    (with its consumers), vfio, published quotas, reset. They do not
 *    depend on one another;
 * 4. the netlink family last: it registers the event sink, and no request
 *    ever meets a source that is not ready.
 * Exit goes the other way, the livepatch watch first; events.c is flushed
 * after the last source.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#include "ia.h"
#include "source.h"
#include "wrapper/hook.h"
#include "wrapper/kallsyms.h"

static int __init ia_init(void)
{
	int ret;

	ret = ia_hooks_check();
	if (ret)
		return ret;
	ia_kallsyms_init();
	ret = ia_hooks_livepatch_init();
	if (ret)
		return ret;
	ret = ia_sources_init();
	if (ret)
		goto err_klp;
	ret = ia_netlink_init();
	if (ret)
		goto err_sources;
	pr_info("loaded, version %s\n", IA_VERSION);
	return 0;

err_sources:
	ia_sources_exit();
err_klp:
	ia_events_exit();
	ia_hooks_livepatch_exit();
	return ret;
}

static void __exit ia_exit(void)
{
	/* First: no handover runs while the sources take their hooks down. */
	ia_hooks_livepatch_exit();
	ia_netlink_exit();
	ia_sources_exit();
	ia_events_exit();
}

module_init(ia_init);
module_exit(ia_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("iommu-account developers");
MODULE_DESCRIPTION("Accounting of locked-memory, VFIO and IOMMU quotas over generic netlink");
MODULE_VERSION(IA_VERSION);
