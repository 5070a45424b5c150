// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_regs_set_instruction_pointer() (upstream 6.2; before,
 * ftrace_instruction_pointer_set()).
 */
#include <linux/ftrace.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
static inline void ia_conftest(struct ftrace_regs *fregs, unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
}
#else
#error "no ftrace_regs to set an instruction pointer in"
#endif
