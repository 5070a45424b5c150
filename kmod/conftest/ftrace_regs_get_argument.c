// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_regs_get_argument(): an argument from ftrace_regs (upstream 6.2;
 * before, regs_get_kernel_argument() on its pt_regs).
 */
#include <linux/ftrace.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
static inline unsigned long ia_conftest(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_argument(fregs, 0);
}
#else
#error "no ftrace_regs to take an argument from"
#endif
