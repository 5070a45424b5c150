// SPDX-License-Identifier: GPL-2.0
/*
 * An ftrace callback given struct ftrace_regs (upstream 5.11). Before, it
 * is given a struct pt_regs, filled only for an ftrace_ops that asks for
 * FTRACE_OPS_FL_SAVE_REGS (which changing the return address needs too).
 */
#include <linux/ftrace.h>

static void ia_conftest_cb(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			   struct ftrace_regs *fregs)
{
}

static struct ftrace_ops ia_conftest __maybe_unused = {
	.func = ia_conftest_cb,
};
