// SPDX-License-Identifier: GPL-2.0
/*
 * Entry hooks and wrapped functions on ftrace (see hook.h). What a hit costs,
 * per kind and kernel, is measured by selftests/iommu_account/kmod/ia_probe_cost
 * and written down in Documentation/design.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/wait_bit.h>

#include "hook.h"
#include "kallsyms.h"

static char *ia_hooks_param = "auto";
module_param_named(hooks, ia_hooks_param, charp, 0444);
MODULE_PARM_DESC(hooks, "auto: ftrace hooks where the kernel allows them, else kprobes; kprobes: kprobes only");

int ia_hooks_check(void)
{
	if (strcmp(ia_hooks_param, "auto") && strcmp(ia_hooks_param, "kprobes")) {
		pr_err("hooks=%s: expected auto or kprobes\n", ia_hooks_param);
		return -EINVAL;
	}
	return 0;
}

bool ia_hooks_ftrace(void)
{
	return !strcmp(ia_hooks_param, "auto");
}

const char *ia_hooks_mode(void)
{
	return ia_hooks_param;
}

#if IA_HAVE_FTRACE_HOOKS

/* ftrace_regs accessors were renamed (ftrace_regs_get_argument: 6.2+). */
#ifdef ftrace_regs_get_argument
#define ia_fregs_arg(f, n) ftrace_regs_get_argument(f, n)
#else
#define ia_fregs_arg(f, n) regs_get_kernel_argument(&(f)->regs, n)
#endif
#ifdef ftrace_regs_set_instruction_pointer
#define ia_fregs_set_ip(f, ip) ftrace_regs_set_instruction_pointer(f, ip)
#else
#define ia_fregs_set_ip(f, ip) ftrace_instruction_pointer_set(f, ip)
#endif

/*
 * ftrace calls back with the address of the function's ftrace site, which is
 * its first instruction or the one after its ENDBR.
 */
static bool ia_site_of(unsigned long ip, unsigned long addr)
{
	return ip - addr < 16;
}

static void notrace ia_fentry_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ia_fentry_set *s = container_of(op, struct ia_fentry_set, ops);
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (!ia_site_of(ip, s->e[i].addr))
			continue;
		s->e[i].fn(ia_fregs_arg(fregs, 0), ia_fregs_arg(fregs, 1),
			   ia_fregs_arg(fregs, 2), ia_fregs_arg(fregs, 3));
		return;
	}
}

int ia_fentry_register(struct ia_fentry_set *s, char *why, size_t len)
{
	unsigned int i;
	int ret;

	memset(&s->ops, 0, sizeof(s->ops));
	s->ops.func = ia_fentry_cb;
	/*
	 * No FTRACE_OPS_FL_RECURSION: the trampoline calls ia_fentry_cb
	 * directly (no ftrace_ops_assist_func). No handler calls a function
	 * hooked here, so nothing can recurse; handlers may be preempted and
	 * take their own locks.
	 */
	s->ops.flags = 0;
	for (i = 0; i < s->n; i++) {
		s->e[i].addr = ia_kallsyms_lookup_name(s->e[i].sym);
		if (!s->e[i].addr) {
			ret = -ENOENT;
			goto err;
		}
		ret = ftrace_set_filter_ip(&s->ops, s->e[i].addr, 0, !i);
		if (ret)
			goto err;
	}
	ret = register_ftrace_function(&s->ops);
	if (ret) {
		snprintf(why, len, "ftrace on %s failed (%d)", s->e[0].sym, ret);
		goto err_filter;
	}
	s->registered = true;
	return 0;

err:
	snprintf(why, len, "ftrace on %s failed (%d)", s->e[i].sym, ret);
err_filter:
	ftrace_free_filter(&s->ops);
	return ret;
}

void ia_fentry_unregister(struct ia_fentry_set *s)
{
	if (!s->registered)
		return;
	/* Returns once no CPU is inside ia_fentry_cb for these functions. */
	unregister_ftrace_function(&s->ops);
	ftrace_free_filter(&s->ops);
	s->registered = false;
}

static void notrace ia_wrap_cb(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ia_wrap *w = container_of(op, struct ia_wrap, ops);

	if (w->only_arg >= 0 && (u32)ia_fregs_arg(fregs, w->only_arg) != w->only_val)
		return;
	/*
	 * The wrapper calling the original: let it run. One range check
	 * (within_module() walks every memory type of the module: it made a
	 * wrapped call cost several times its in-vitro figure).
	 */
	if (parent_ip - (unsigned long)w->wrapper < w->wrapper_size)
		return;
	ia_fregs_set_ip(fregs, (unsigned long)w->wrapper);
}

int ia_wrap_register(struct ia_wrap *w, char *why, size_t len)
{
	int ret;

	w->orig = ia_kallsyms_lookup_name(w->sym);
	if (!w->orig) {
		snprintf(why, len, "%s not found", w->sym);
		return -ENOENT;
	}
	/* The wrapper calls the original indirectly: it must carry an ENDBR. */
	if (!ia_kallsyms_callable(w->orig)) {
		snprintf(why, len, "%s has no ENDBR under IBT", w->sym);
		return -EPERM;
	}
	w->wrapper_size = ia_kallsyms_symbol_size((unsigned long)w->wrapper, NULL);
	if (!w->wrapper_size) {
		snprintf(why, len, "no kallsyms size for the wrapper of %s", w->sym);
		return -ENOENT;
	}
	memset(&w->ops, 0, sizeof(w->ops));
	w->ops.func = ia_wrap_cb;
	w->ops.flags = FTRACE_OPS_FL_IPMODIFY;	/* called directly, as above */
	atomic_set(&w->inflight, 0);
	ret = ftrace_set_filter_ip(&w->ops, w->orig, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&w->ops);
	if (ret) {
		/* -EBUSY: another IPMODIFY user (a livepatch) owns the function. */
		snprintf(why, len, "ftrace on %s failed (%d)", w->sym, ret);
		ftrace_free_filter(&w->ops);
		return ret;
	}
	w->registered = true;
	return 0;
}

void ia_wrap_unregister_many(struct ia_wrap **w, unsigned int n)
{
	unsigned int i, live = 0;

	for (i = 0; i < n; i++) {
		if (!w[i]->registered)
			continue;
		unregister_ftrace_function(&w[i]->ops);
		ftrace_free_filter(&w[i]->ops);
		live++;
	}
	if (!live)
		return;
	/*
	 * No call is redirected any more. A task redirected just before may
	 * still be in a wrapper's prologue, before ia_wrap_enter(): it has
	 * not scheduled voluntarily since, so one RCU-tasks grace period
	 * waits for it. Then wait for the wrappers inside the originals (a
	 * MAP_DMA pinning memory may take a while), and for the last one's
	 * epilogue after ia_wrap_leave() with a second grace period: two
	 * grace periods for all of them, not two each.
	 */
	synchronize_rcu_tasks();
	for (i = 0; i < n; i++)
		if (w[i]->registered)
			wait_var_event(&w[i]->inflight, !atomic_read(&w[i]->inflight));
	synchronize_rcu_tasks();
	for (i = 0; i < n; i++)
		w[i]->registered = false;
}

void ia_wrap_unregister(struct ia_wrap *w)
{
	ia_wrap_unregister_many(&w, 1);
}

#else /* !IA_HAVE_FTRACE_HOOKS */

int ia_fentry_register(struct ia_fentry_set *s, char *why, size_t len)
{
	snprintf(why, len, "no ftrace with arguments on this kernel");
	return -EOPNOTSUPP;
}

void ia_fentry_unregister(struct ia_fentry_set *s)
{
}

int ia_wrap_register(struct ia_wrap *w, char *why, size_t len)
{
	snprintf(why, len, "no ftrace with arguments on this kernel");
	return -EOPNOTSUPP;
}

void ia_wrap_unregister_many(struct ia_wrap **w, unsigned int n)
{
}

void ia_wrap_unregister(struct ia_wrap *w)
{
}

#endif
