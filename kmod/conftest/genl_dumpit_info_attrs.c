// SPDX-License-Identifier: GPL-2.0
/*
 * A dump's parsed request in genl_dumpit_info's own attrs (before upstream
 * 6.2, which moved it into the genl_info it embeds).
 */
#include <net/genetlink.h>

static inline struct nlattr **ia_conftest(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}
