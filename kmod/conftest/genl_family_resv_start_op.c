// SPDX-License-Identifier: GPL-2.0
/*
 * genl_family.resv_start_op (upstream 6.1): commands from it on are
 * validated strictly, unknown flags refused. Before, every command of a
 * family without GENL_DONT_VALIDATE_* flags is strict already.
 */
#include <net/genetlink.h>

static struct genl_family ia_conftest __maybe_unused = {
	.resv_start_op = 1,
};
