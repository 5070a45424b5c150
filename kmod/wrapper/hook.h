/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cheapest hooks each kernel offers, in one place (the rest of the module
 * never touches ftrace):
 *
 *  - entry hooks: one ftrace_ops for a set of functions, called with the
 *    function's first four arguments (no pt_regs saved, no kprobe lookup);
 *  - a wrapped function: an ftrace_ops that redirects the calls it wants to
 *    a wrapper of ours with the same signature, which calls the original
 *    and so sees its arguments and its return value in process context (one
 *    more entry hit per wrapped call instead of a return probe's trampoline).
 *
 * Both need DYNAMIC_FTRACE_WITH_ARGS on x86 (every kernel of the matrix);
 * elsewhere registration fails with -EOPNOTSUPP and callers fall back to
 * kprobes. Symbols are "module:function" or "function".
 */
#ifndef _IA_WRAPPER_HOOK_H
#define _IA_WRAPPER_HOOK_H

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/types.h>
#include <linux/wait_bit.h>

#if defined(CONFIG_X86) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define IA_HAVE_FTRACE_HOOKS 1
#else
#define IA_HAVE_FTRACE_HOOKS 0
#endif

typedef void (*ia_fentry_fn)(unsigned long a0, unsigned long a1,
			     unsigned long a2, unsigned long a3);

struct ia_fentry {
	const char *sym;
	ia_fentry_fn fn;
	unsigned long addr;	/* resolved at registration */
};

struct ia_fentry_set {
	struct ia_fentry *e;
	unsigned int n;
	struct ftrace_ops ops;
	bool registered;
};

/* 0, or -errno with the failing symbol in @why. */
int ia_fentry_register(struct ia_fentry_set *s, char *why, size_t len);
void ia_fentry_unregister(struct ia_fentry_set *s);

struct ia_wrap {
	const char *sym;
	void *wrapper;			/* same signature as the function */
	/*
	 * Redirect only the calls whose argument only_arg (its low 32 bits: an
	 * int or a command) is only_val; only_arg -1: every call.
	 */
	int only_arg;
	u32 only_val;
	unsigned long orig;		/* the function, for the wrapper to call */
	unsigned long wrapper_size;	/* calls from [wrapper, +size) run the original */
	atomic_t inflight;		/* wrappers between ia_wrap_enter/leave */
	struct ftrace_ops ops;
	bool registered;
};

/*
 * Module parameter hooks=: "auto" (ftrace where the kernel allows it, else
 * kprobes) or "kprobes" (kprobes only). ia_hooks_check() refuses anything
 * else at load; ia_hooks_ftrace() says whether ftrace may be tried.
 */
int ia_hooks_check(void);
bool ia_hooks_ftrace(void);
const char *ia_hooks_mode(void);

int ia_wrap_register(struct ia_wrap *w, char *why, size_t len);
/* Returns once no task is inside the wrapper any more (may sleep long). */
void ia_wrap_unregister(struct ia_wrap *w);
/* The same for @n of them at once (two RCU-tasks grace periods in all). */
void ia_wrap_unregister_many(struct ia_wrap **w, unsigned int n);

/* Called first and last by every wrapper. */
static inline void ia_wrap_enter(struct ia_wrap *w)
{
	atomic_inc(&w->inflight);
}

static inline void ia_wrap_leave(struct ia_wrap *w)
{
	if (atomic_dec_and_test(&w->inflight))
		wake_up_var(&w->inflight);
}

#endif
