// SPDX-License-Identifier: GPL-2.0
/* Multicast groups restricted to CAP_SYS_ADMIN (upstream 6.8, backported to stable kernels). */
#include <net/genetlink.h>

static const struct genl_multicast_group ia_conftest[] __maybe_unused = {
	{ .name = "t", .flags = GENL_MCAST_CAP_SYS_ADMIN },
};
