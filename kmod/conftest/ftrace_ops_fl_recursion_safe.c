// SPDX-License-Identifier: GPL-2.0
/*
 * FTRACE_OPS_FL_RECURSION_SAFE (before 5.11): an ftrace_ops without it is
 * called through ftrace_ops_assist_func(), with preemption off; with it,
 * directly, as an ftrace_ops without FTRACE_OPS_FL_RECURSION is since.
 */
#include <linux/ftrace.h>

static const unsigned long ia_conftest __maybe_unused = FTRACE_OPS_FL_RECURSION_SAFE;
