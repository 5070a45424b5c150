// SPDX-License-Identifier: GPL-2.0
/*
 * GENL_REQ_ATTR_CHECK(): a missing attribute refused with its type in the
 * extended ack (upstream 6.0); before, the module says it in a message.
 */
#include <net/genetlink.h>

static inline bool ia_conftest(struct genl_info *info)
{
	return GENL_REQ_ATTR_CHECK(info, 1);
}
