// SPDX-License-Identifier: GPL-2.0
/* genl_info_dump(): a dump's parsed request (upstream 6.2: genl_dumpit_info split). */
#include <net/genetlink.h>

static inline struct nlattr **ia_conftest(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
