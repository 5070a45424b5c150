/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, kept out of the rest of the module.
 */
#ifndef _IA_COMPAT_H
#define _IA_COMPAT_H

#include <linux/version.h>
#include <net/genetlink.h>

/* Parsed attributes of a dump request (6.2 split genl_dumpit_info). */
static inline struct nlattr **ia_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _IA_COMPAT_H */
