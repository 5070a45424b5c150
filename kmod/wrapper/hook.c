// SPDX-License-Identifier: GPL-2.0
/*
 * Hook sets (see hook.h): the mechanism of each hook chosen here, entry hooks
 * on one ftrace_ops per set, return hooks wrapped on ftrace, else kprobes and
 * kretprobes. What a hit costs, per kind and kernel, is measured by
 * selftests/iommu_account/kmod/ia_probe_cost and written down in
 * Documentation/design.md.
 *
 * One mutex, ia_hook_mutex, over registration, unregistration and the
 * handover to a livepatch (a module notifier, below), taken inside the
 * sources' own locks (vfio.c's attach mutex); handlers read only what
 * registration wrote before it returned, and what the handover changes
 * with READ_ONCE/WRITE_ONCE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/wait_bit.h>

#include "ia-conftest.h"
#include "hook.h"
#include "kallsyms.h"

static DEFINE_MUTEX(ia_hook_mutex);
static LIST_HEAD(ia_hook_live);		/* the registered sets */
/* A livepatch module came: no set wraps any more, for which (its name). */
static char ia_hook_klp[MODULE_NAME_LEN];
unsigned long ia_hook_kretprobe_tramp;

static char *ia_hooks_param = "auto";
module_param_named(hooks, ia_hooks_param, charp, 0444);
MODULE_PARM_DESC(hooks, "auto: ftrace hooks where the kernel allows them, else kprobes (never on PREEMPT_RT); kprobes: kprobes only (refused on PREEMPT_RT)");

/*
 * kprobe and kretprobe handlers run with preemption off, and ours take
 * spinlocks, which sleep on PREEMPT_RT: "BUG: scheduling while atomic" under
 * contention (seen on Debian's 6.12-rt-amd64 with hooks=kprobes, a handler
 * on vfio_pin_pages_remote waiting for ia_vfio_lock). There no kprobe is
 * placed: a hook ftrace cannot place is off, and its set says why.
 */
#define IA_HOOK_RT_WHY "PREEMPT_RT: no kprobes, their handlers would sleep with preemption off"

int ia_hooks_check(void)
{
	if (strcmp(ia_hooks_param, "auto") && strcmp(ia_hooks_param, "kprobes")) {
		pr_err("hooks=%s: expected auto or kprobes\n", ia_hooks_param);
		return -EINVAL;
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && !strcmp(ia_hooks_param, "kprobes")) {
		pr_err("hooks=kprobes: " IA_HOOK_RT_WHY "\n");
		return -EINVAL;
	}
	return 0;
}

static bool ia_hooks_ftrace(void)
{
	return !strcmp(ia_hooks_param, "auto");
}

/* A short reason for the feature detail: the first one a set met. */
static void ia_hook_fallback(struct ia_hook_set *s, const char *why)
{
	if (!s->fallback[0])
		strscpy(s->fallback, why, sizeof(s->fallback));
}

#if IA_HAVE_FTRACE_HOOKS

/*
 * What a callback is given: ftrace_regs, whose accessors were renamed
 * (kmod/conftest/ftrace_regs_*.c), or before 5.11 the pt_regs that
 * FTRACE_OPS_FL_SAVE_REGS fills (kmod/conftest/ftrace_func_fregs.c).
 */
#if !IA_HAVE_FTRACE_FUNC_FREGS
#define IA_FREGS struct pt_regs
#define IA_FTRACE_REGS_FLAG FTRACE_OPS_FL_SAVE_REGS
#define ia_fregs_arg(f, n) regs_get_kernel_argument(f, n)
#define ia_fregs_set_ip(f, ip) instruction_pointer_set(f, ip)
#else
#define IA_FREGS struct ftrace_regs
#define IA_FTRACE_REGS_FLAG 0
#if IA_HAVE_FTRACE_REGS_GET_ARGUMENT
#define ia_fregs_arg(f, n) ftrace_regs_get_argument(f, n)
#else
#define ia_fregs_arg(f, n) regs_get_kernel_argument(&(f)->regs, n)
#endif
#if IA_HAVE_FTRACE_REGS_SET_INSTRUCTION_POINTER
#define ia_fregs_set_ip(f, ip) ftrace_regs_set_instruction_pointer(f, ip)
#else
#define ia_fregs_set_ip(f, ip) ftrace_instruction_pointer_set(f, ip)
#endif
#endif
/*
 * Called directly, not through ftrace_ops_assist_func() (which runs the
 * callback with preemption off: its spinlocks sleep on PREEMPT_RT): before
 * 5.11 an ftrace_ops asks for it (kmod/conftest/ftrace_ops_fl_recursion_safe.c),
 * since it is what an ftrace_ops without FTRACE_OPS_FL_RECURSION gets.
 */
#if IA_HAVE_FTRACE_OPS_FL_RECURSION_SAFE
#define IA_FTRACE_DIRECT FTRACE_OPS_FL_RECURSION_SAFE
#else
#define IA_FTRACE_DIRECT 0
#endif
#define IA_FTRACE_ENTRY_FLAGS (IA_FTRACE_REGS_FLAG | IA_FTRACE_DIRECT)
/* Changing where the call goes on: IPMODIFY, with the registers it needs. */
#define IA_FTRACE_WRAP_FLAGS (FTRACE_OPS_FL_IPMODIFY | IA_FTRACE_ENTRY_FLAGS)

/*
 * ftrace calls back with the address of the function's ftrace site, which is
 * its first instruction or the one after its ENDBR.
 */
static __always_inline bool ia_site_of(unsigned long ip, unsigned long addr)
{
	return ip - addr < 16;
}

/*
 * Which hook of a set's ftrace_ops was called: one slot looked up by the
 * address's 16-byte block (functions are 16-byte aligned, so the function
 * and its ftrace site share it), else the list. A set's callback costs the
 * same for every hook, however many there are.
 */
static __always_inline unsigned int ia_slot_of(unsigned long addr)
{
	return hash_long(addr >> 4, IA_HOOK_SLOT_BITS);
}

static void ia_slots_fill(struct ia_hook **slot, struct ia_hook **list, unsigned int n)
{
	unsigned int i;

	memset(slot, 0, sizeof(slot[0]) << IA_HOOK_SLOT_BITS);
	for (i = n; i-- > 0; )	/* on a collision, the first listed (hottest) */
		slot[ia_slot_of(list[i]->addr)] = list[i];
}

static __always_inline struct ia_hook *ia_lookup(struct ia_hook **slot, struct ia_hook **list,
						 unsigned int n, unsigned long ip)
{
	struct ia_hook *h = slot[ia_slot_of(ip)];
	unsigned int i;

	if (likely(h && ia_site_of(ip, h->addr)))
		return h;
	for (i = 0; i < n; i++)
		if (ia_site_of(ip, list[i]->addr))
			return list[i];
	return NULL;
}

static void notrace ia_fentry_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, IA_FREGS *fregs)
{
	struct ia_hook_set *s = container_of(op, struct ia_hook_set, ops);
	struct ia_hook *h = ia_lookup(s->fslot, s->fentry, s->nfentry, ip);

	if (h)
		h->fn(ia_fregs_arg(fregs, 0), ia_fregs_arg(fregs, 1),
		      ia_fregs_arg(fregs, 2), ia_fregs_arg(fregs, 3));
}

/*
 * An ftrace_ops' filter freed: ftrace_free_filter() where it is exported
 * (kmod/conftest/exports), else emptied by a reset, which leaves ftrace's
 * shared empty hash.
 */
static void ia_ftrace_filter_free(struct ftrace_ops *ops)
{
#if IA_HAVE_EXPORT_FTRACE_FREE_FILTER
	ftrace_free_filter(ops);
#else
	ftrace_set_filter(ops, NULL, 0, 1);
#endif
}

/*
 * @ops, calling @fn, on the functions of @h[0..n); 0 or -errno. Entry hooks
 * take IA_FTRACE_ENTRY_FLAGS: no FTRACE_OPS_FL_RECURSION (before 5.11:
 * FTRACE_OPS_FL_RECURSION_SAFE, and pt_regs), so the trampoline calls @fn
 * directly (no ftrace_ops_assist_func); no handler calls a function hooked
 * here, so nothing can recurse, and handlers may be preempted and take
 * their own locks. Wrapped functions take FTRACE_OPS_FL_IPMODIFY, called
 * directly as well.
 */
static int ia_hook_ftrace_on(struct ftrace_ops *ops, ftrace_func_t fn, unsigned long flags,
			     struct ia_hook **h, unsigned int n)
{
	unsigned int i;
	int ret = 0;

	memset(ops, 0, sizeof(*ops));
	ops->func = fn;
	ops->flags = flags;
	for (i = 0; i < n && !ret; i++)
		ret = ftrace_set_filter_ip(ops, h[i]->addr, 0, !i);
	if (!ret)
		ret = register_ftrace_function(ops);
	if (ret)
		ia_ftrace_filter_free(ops);
	return ret;
}

/* The entry hooks gathered in s->fentry, on one ftrace_ops; 0 or -errno. */
static int ia_hook_fentries(struct ia_hook_set *s)
{
	unsigned int i;
	int ret;

	ia_slots_fill(s->fslot, s->fentry, s->nfentry);
	ret = ia_hook_ftrace_on(&s->ops, ia_fentry_cb, IA_FTRACE_ENTRY_FLAGS, s->fentry,
				s->nfentry);
	if (ret) {
		pr_info("%s: entry hooks on ftrace failed (%d): kprobes\n", s->name, ret);
		return ret;
	}
	for (i = 0; i < s->nfentry; i++)
		s->fentry[i]->how = IA_HOOK_FTRACE;
	return 0;
}

/* A call to wrapped @h: redirect it to the wrapper, unless filtered out. */
static __always_inline void ia_wrap_redirect(struct ia_hook *h, unsigned long parent_ip,
					     IA_FREGS *fregs)
{
	if (h->only_arg >= 0 && (u32)ia_fregs_arg(fregs, h->only_arg) != h->only_val)
		return;
	/*
	 * The wrapper calling the original: let it run. One range check
	 * (within_module() walks every memory type of the module: it made a
	 * wrapped call cost several times its in-vitro figure).
	 */
	if (parent_ip - (unsigned long)h->wrapper < h->wrapper_size)
		return;
	ia_fregs_set_ip(fregs, (unsigned long)h->wrapper);
}

/* The set's one IPMODIFY ftrace_ops: which function was called decides the hook. */
static void notrace ia_wrap_set_cb(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, IA_FREGS *fregs)
{
	struct ia_hook_set *s = container_of(op, struct ia_hook_set, wops);
	struct ia_hook *h;

	/*
	 * A wrapper calling its original (half of the hits): one range check
	 * over the text spanning the set's wrappers. No other function of this
	 * module calls a function it wraps, so nothing else is let through.
	 */
	if (parent_ip - s->wlo < s->wspan)
		return;
	h = ia_lookup(s->wslot, s->wrapped, s->nwrapped, ip);
	if (h)
		ia_wrap_redirect(h, parent_ip, fregs);
}

/* A hook's own ftrace_ops, where the set's could not be had. */
static void notrace ia_wrap_cb(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, IA_FREGS *fregs)
{
	ia_wrap_redirect(container_of(op, struct ia_hook, ops), parent_ip, fregs);
}

/* Can @h be wrapped? Readies it (orig, wrapper size), or says why not. */
static bool ia_hook_wrappable(struct ia_hook_set *s, struct ia_hook *h)
{
	/* The wrapper calls the original indirectly: it must carry an ENDBR. */
	if (!ia_kallsyms_callable(h->addr)) {
		ia_hook_fallback(s, "IBT, no ENDBR");
		return false;
	}
	h->wrapper_size = ia_kallsyms_symbol_size((unsigned long)h->wrapper, NULL);
	if (!h->wrapper_size) {
		ia_hook_fallback(s, "no wrapper size");
		return false;
	}
	atomic_set(&h->inflight, 0);
	h->draining = false;
	WRITE_ONCE(h->orig, h->addr);
	return true;
}

/*
 * The wrappable return hooks of @s on one ftrace_ops (one ftrace update to
 * place and to remove them all); if that is refused (-EBUSY: another
 * IPMODIFY user, a livepatch, owns one of them), each on its own, so only
 * the contested one falls back to a kretprobe.
 */
static void ia_hook_wrap_all(struct ia_hook_set *s)
{
	unsigned long lo, hi;
	unsigned int i;
	int ret;

	s->nwrapped = 0;
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		if (h->want && !h->fn && h->addr && !WARN_ON(s->nwrapped >= IA_HOOK_SET_MAX) &&
		    ia_hook_wrappable(s, h))
			s->wrapped[s->nwrapped++] = h;
	}
	if (!s->nwrapped)
		return;
	ia_slots_fill(s->wslot, s->wrapped, s->nwrapped);
	lo = ULONG_MAX;
	hi = 0;
	for (i = 0; i < s->nwrapped; i++) {
		lo = min_t(unsigned long, lo, (unsigned long)s->wrapped[i]->wrapper);
		hi = max(hi, (unsigned long)s->wrapped[i]->wrapper + s->wrapped[i]->wrapper_size);
	}
	s->wlo = lo;
	s->wspan = hi - lo;
	ret = ia_hook_ftrace_on(&s->wops, ia_wrap_set_cb, IA_FTRACE_WRAP_FLAGS, s->wrapped,
				s->nwrapped);
	if (!ret) {
		for (i = 0; i < s->nwrapped; i++)
			s->wrapped[i]->how = IA_HOOK_WRAP;
		return;
	}
	pr_info("%s: one ftrace_ops for %u wrapped functions failed (%d): one each\n",
		s->name, s->nwrapped, ret);
	for (i = 0; i < s->nwrapped; i++) {
		struct ia_hook *h = s->wrapped[i];

		ret = ia_hook_ftrace_on(&h->ops, ia_wrap_cb, IA_FTRACE_WRAP_FLAGS, &h, 1);
		if (!ret) {
			h->how = IA_HOOK_WRAP;
			h->own_ops = true;
			continue;
		}
		pr_info("%s: ftrace on %s failed (%d): a kretprobe\n", s->name, h->sym, ret);
		ia_hook_fallback(s, "ftrace refused");
	}
	s->nwrapped = 0;
}

static void ia_hook_ftrace_off(struct ftrace_ops *ops)
{
	/* Returns once no CPU is inside the callback for these functions. */
	unregister_ftrace_function(ops);
	ia_ftrace_filter_free(ops);
}

#else /* !IA_HAVE_FTRACE_HOOKS */

static int ia_hook_fentries(struct ia_hook_set *s)
{
	return -EOPNOTSUPP;
}

static void ia_hook_wrap_all(struct ia_hook_set *s)
{
}

static void ia_hook_ftrace_off(struct ftrace_ops *ops)
{
}

#endif

/* kprobes keep state from a registration: a new one needs them clean. */
static void ia_hook_reset(struct ia_hook *h)
{
	kprobe_pre_handler_t pre = h->kp.pre_handler;

	memset(&h->kp, 0, sizeof(h->kp));
	h->kp.pre_handler = pre;
	h->kp.symbol_name = h->sym;
	memset(&h->krp.kp, 0, sizeof(h->krp.kp));
	h->krp.kp.symbol_name = h->sym;
	h->krp.nmissed = 0;
	h->how = IA_HOOK_OFF;
	h->err = 0;
	h->addr = ia_kallsyms_lookup_name(h->sym);
}

/* @h on a kprobe (entry hook) or a kretprobe (return hook). */
static void ia_hook_probe(struct ia_hook *h)
{
	int ret;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		h->err = -EOPNOTSUPP;
		return;
	}
	ret = h->fn ? register_kprobe(&h->kp) : register_kretprobe(&h->krp);

	if (ret)
		h->err = ret;
	else
		h->how = h->fn ? IA_HOOK_KPROBE : IA_HOOK_KRETPROBE;
}

static void ia_hook_place_entries(struct ia_hook_set *s, bool ftrace)
{
	unsigned int i;

	s->nfentry = 0;
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		if (h->want && h->fn && h->addr && ftrace &&
		    !WARN_ON(s->nfentry >= IA_HOOK_SET_MAX))
			s->fentry[s->nfentry++] = h;
	}
	if (s->nfentry && ia_hook_fentries(s)) {
		ia_hook_fallback(s, "ftrace refused");
		s->nfentry = 0;
	}
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		/* kprobes resolve the symbol themselves (no kallsyms needed). */
		if (h->want && h->fn && h->how == IA_HOOK_OFF)
			ia_hook_probe(h);
	}
}

static void ia_hook_place_returns(struct ia_hook_set *s, bool ftrace)
{
	unsigned int i;

	s->nwrapped = 0;
	if (ftrace && ia_hook_klp[0]) {
		char why[sizeof(s->fallback)];

		snprintf(why, sizeof(why), "livepatch %s came", ia_hook_klp);
		ia_hook_fallback(s, why);
	} else if (ftrace) {
		ia_hook_wrap_all(s);
	}
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		if (h->want && !h->fn && h->how == IA_HOOK_OFF)
			ia_hook_probe(h);
	}
}

static void ia_hook_sets_unregister_locked(struct ia_hook_set **sets, unsigned int n);

int ia_hook_set_register(struct ia_hook_set *s)
{
	bool ftrace = IA_HAVE_FTRACE_HOOKS && ia_hooks_ftrace();
	int fail = 0;
	unsigned int i;

	mutex_lock(&ia_hook_mutex);

	s->nftrace = 0;
	s->nwrap = 0;
	s->nkprobe = 0;
	s->nkretprobe = 0;
	s->fallback[0] = '\0';
	s->why[0] = '\0';
	if (s->calls)
		ia_calls_init(s->calls);	/* no hook of the set runs yet */
	if (!ftrace)
		ia_hook_fallback(s, !ia_hooks_ftrace() ? "hooks=kprobes" :
				 "no ftrace with arguments");
	for (i = 0; i < s->n; i++) {
		ia_hook_reset(s->hooks[i]);
		if (ftrace && s->hooks[i]->want && !s->hooks[i]->addr)
			ia_hook_fallback(s, "symbol not found");
	}
	/* Releases first: nothing is recorded before its release is hooked. */
	ia_hook_place_entries(s, ftrace);
	ia_hook_place_returns(s, ftrace);
	s->registered = true;
	list_add_tail(&s->live, &ia_hook_live);
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		switch (h->how) {
		case IA_HOOK_FTRACE:
			s->nftrace++;
			break;
		case IA_HOOK_WRAP:
			s->nwrap++;
			break;
		case IA_HOOK_KPROBE:
			s->nkprobe++;
			break;
		case IA_HOOK_KRETPROBE:
			s->nkretprobe++;
			break;
		case IA_HOOK_OFF:
			if (!h->want)
				break;
			pr_info("%s: no hook on %s (%d)\n", s->name, h->sym, h->err);
			if (h->required && !fail) {
				fail = h->err ? h->err : -ENOENT;
				if (fail == -EOPNOTSUPP && IS_ENABLED(CONFIG_PREEMPT_RT))
					snprintf(s->why, sizeof(s->why),
						 "no hook on %s: ftrace: %s; " IA_HOOK_RT_WHY,
						 h->sym, s->fallback[0] ? s->fallback : "refused");
				else
					snprintf(s->why, sizeof(s->why), "hook on %s failed (%d)",
						 h->sym, fail);
			}
			break;
		}
	}
	if (fail)
		ia_hook_sets_unregister_locked(&s, 1);
	mutex_unlock(&ia_hook_mutex);
	return fail;
}

/* One set's kprobes and kretprobes, each kind in one call (one grace period). */
static void ia_hook_probes_off(struct ia_hook_set *s)
{
	struct kretprobe *krps[IA_HOOK_SET_MAX];
	struct kprobe *kps[IA_HOOK_SET_MAX];
	unsigned int i, nk = 0, nr = 0;

	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		if (h->how == IA_HOOK_KPROBE && nk < IA_HOOK_SET_MAX)
			kps[nk++] = &h->kp;
		else if (h->how == IA_HOOK_KPROBE)
			unregister_kprobe(&h->kp);
		if (h->how == IA_HOOK_KRETPROBE && nr < IA_HOOK_SET_MAX)
			krps[nr++] = &h->krp;
		else if (h->how == IA_HOOK_KRETPROBE)
			unregister_kretprobe(&h->krp);
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(krps, nr);
}

/*
 * After the redirections of the wrapped hooks marked draining are off: a
 * task redirected just before may still be in a wrapper's prologue, before
 * ia_hook_enter(): it has not scheduled voluntarily since, so one
 * RCU-tasks grace period waits for it. Then wait for the wrappers inside
 * the originals (a MAP_DMA pinning memory may take a while), and for the
 * last one's epilogue after ia_hook_leave() with a second grace period:
 * two grace periods for all the sets, not two each.
 */
static void ia_hook_drain(struct ia_hook_set **sets, unsigned int n)
{
	unsigned int i, j;

	/* Orders the draining flags before the counts read below. */
	smp_mb();
	synchronize_rcu_tasks();
	for (i = 0; i < n; i++)
		for (j = 0; j < sets[i]->n; j++) {
			struct ia_hook *h = sets[i]->hooks[j];

			if (READ_ONCE(h->draining))
				wait_var_event(&h->inflight, !atomic_read(&h->inflight));
		}
	synchronize_rcu_tasks();
}

static void ia_hook_sets_unregister_locked(struct ia_hook_set **sets, unsigned int n)
{
	unsigned int i, j, wrapped = 0;

	/* No handler walks a table of calls whose nodes may go with a probe. */
	for (i = 0; i < n; i++)
		if (sets[i]->registered && sets[i]->calls)
			ia_calls_kill(sets[i]->calls);
	for (i = 0; i < n; i++) {
		struct ia_hook_set *s = sets[i];

		if (!s->registered)
			continue;
		/* No call is redirected any more once this returns. */
		if (s->nwrapped)
			ia_hook_ftrace_off(&s->wops);
		s->nwrapped = 0;
		for (j = 0; j < s->n; j++) {
			struct ia_hook *h = s->hooks[j];

			if (h->how != IA_HOOK_WRAP)
				continue;
			if (h->own_ops)
				ia_hook_ftrace_off(&h->ops);
			h->own_ops = false;
			/* Wrappers leaving from now on wake the wait below. */
			WRITE_ONCE(h->draining, true);
			wrapped++;
		}
		if (s->nfentry)
			ia_hook_ftrace_off(&s->ops);
		s->nfentry = 0;
		ia_hook_probes_off(s);
	}
	if (wrapped)
		ia_hook_drain(sets, n);
	for (i = 0; i < n; i++) {
		if (sets[i]->registered)
			list_del(&sets[i]->live);
		for (j = 0; j < sets[i]->n; j++) {
			sets[i]->hooks[j]->how = IA_HOOK_OFF;
			WRITE_ONCE(sets[i]->hooks[j]->draining, false);
			WRITE_ONCE(sets[i]->hooks[j]->handing, false);
		}
		sets[i]->registered = false;
	}
}

void ia_hook_sets_unregister(struct ia_hook_set **sets, unsigned int n)
{
	mutex_lock(&ia_hook_mutex);
	ia_hook_sets_unregister_locked(sets, n);
	mutex_unlock(&ia_hook_mutex);
}

/* --- the handover to a livepatch ------------------------------------------------ */

#define IA_HOOK_SETS_MAX 8

/*
 * @h, wrapped, to a kretprobe as well; 0 or -errno. From here until its
 * redirection is off, a call can be seen by both: the kretprobe's entry
 * handler declines the wrapper's own call to the original
 * (ia_hook_from_wrapper), and a wrapper leaves a call the kretprobe took
 * (its return address is the kretprobe's trampoline: ia_hook_kretprobe_took),
 * so each call is followed once, by one of them. A call the kretprobe does
 * not take (its entry handler declined, or no instance was free) is the
 * wrapper's: none is lost.
 */
static int ia_hook_add_kretprobe(struct ia_hook *h)
{
	int ret;

	memset(&h->krp.kp, 0, sizeof(h->krp.kp));
	h->krp.kp.symbol_name = h->sym;
	h->krp.nmissed = 0;
	/*
	 * Before the kretprobe is armed: a wrapper that sees handing and no
	 * trampoline follows the call itself, so none taken by the kretprobe
	 * is ever followed by the wrapper too.
	 */
	WRITE_ONCE(h->handing, true);
	smp_mb();	/* handing is seen before any hit of the kretprobe */
	ret = register_kretprobe(&h->krp);
	if (ret)
		WRITE_ONCE(h->handing, false);
	return ret;
}

/* The redirections of @s's handed hooks off; returns how many were handed. */
static unsigned int ia_hook_unwrap_handed(struct ia_hook_set *s)
{
#if IA_HAVE_FTRACE_HOOKS
	unsigned int i, handed = 0, kept = 0;

	for (i = 0; i < s->nwrapped; i++)
		if (!READ_ONCE(s->wrapped[i]->handing))
			kept++;
	if (s->nwrapped && !kept) {
		ia_hook_ftrace_off(&s->wops);
		s->nwrapped = 0;
	}
	for (i = 0; i < s->n; i++) {
		struct ia_hook *h = s->hooks[i];

		if (h->how != IA_HOOK_WRAP || !READ_ONCE(h->handing))
			continue;
		/* An empty filter would trace every function: never emptied. */
		if (s->nwrapped && !h->own_ops)
			ftrace_set_filter_ip(&s->wops, h->addr, 1, 0);
		if (h->own_ops)
			ia_hook_ftrace_off(&h->ops);
		h->own_ops = false;
		WRITE_ONCE(h->draining, true);
		handed++;
	}
	return handed;
#else
	return 0;	/* nothing is ever wrapped */
#endif
}

/*
 * A livepatch module @who is coming: every wrapped hook of every set to a
 * kretprobe (which functions it patches is known only once its init has
 * run), and no set wraps from now on. Sleeps (the wrappers in flight are
 * waited for). On PREEMPT_RT no kretprobe may take over (IA_HOOK_RT_WHY):
 * every set with a wrapped hook is taken down whole, its source forgets
 * what it followed (its changed callback sees the set unregistered) and its
 * feature says why; the livepatch is never refused.
 */
static void ia_hooks_handover(const char *who)
{
	struct ia_hook_set *s, *sets[IA_HOOK_SETS_MAX];
	unsigned int n = 0, i, j, handed;
	int ret;

	mutex_lock(&ia_hook_mutex);
	strscpy(ia_hook_klp, who, sizeof(ia_hook_klp));
	list_for_each_entry(s, &ia_hook_live, live) {
		if (!s->nwrap || WARN_ON(n >= IA_HOOK_SETS_MAX))
			continue;
		if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
			snprintf(s->why, sizeof(s->why), "taken down for livepatch %s (%s)",
				 who, IA_HOOK_RT_WHY);
			pr_warn("%s: hooks taken down for livepatch %s (%s)\n", s->name, who,
				IA_HOOK_RT_WHY);
			sets[n++] = s;
			continue;
		}
		for (i = 0; i < s->n; i++) {
			struct ia_hook *h = s->hooks[i];

			if (h->how != IA_HOOK_WRAP)
				continue;
			ret = ia_hook_add_kretprobe(h);
			if (ret)
				pr_warn("%s: %s stays wrapped (kretprobe: %d): livepatch %s cannot patch it\n",
					s->name, h->sym, ret, who);
		}
		handed = ia_hook_unwrap_handed(s);
		if (!handed)
			continue;
		/* Without the trampoline a call in the window may be seen twice. */
		snprintf(s->fallback, sizeof(s->fallback), "%u handed to livepatch %s%s",
			 handed, who, ia_hook_kretprobe_tramp ? "" :
			 ", not exactly: no kretprobe trampoline found");
		sets[n++] = s;
	}
	/* Taken down (PREEMPT_RT), or their wrappers in flight waited for. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && n)
		ia_hook_sets_unregister_locked(sets, n);
	else if (n)
		ia_hook_drain(sets, n);
	for (i = 0; i < n && !IS_ENABLED(CONFIG_PREEMPT_RT); i++) {
		s = sets[i];
		for (j = 0; j < s->n; j++) {
			struct ia_hook *h = s->hooks[j];

			if (h->how != IA_HOOK_WRAP || !READ_ONCE(h->handing))
				continue;
			h->how = IA_HOOK_KRETPROBE;
			WRITE_ONCE(h->handing, false);
			WRITE_ONCE(h->draining, false);
			s->nwrap--;
			s->nkretprobe++;
		}
		pr_info("%s: wrapped hooks handed to kretprobes for livepatch %s\n", s->name, who);
	}
	mutex_unlock(&ia_hook_mutex);
	/* Each source writes its feature again, under its own locks. */
	for (i = 0; i < n; i++)
		if (sets[i]->changed)
			sets[i]->changed(sets[i]);
}

static int ia_hook_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;

	/* COMING: before the livepatch's init calls klp_enable_patch(). */
	if (action != MODULE_STATE_COMING || !is_livepatch_module(mod))
		return NOTIFY_DONE;
	ia_hooks_handover(mod->name);
	return NOTIFY_OK;
}

static struct notifier_block ia_hook_module_nb = {
	.notifier_call = ia_hook_module_notify,
};

int ia_hooks_livepatch_init(void)
{
	/* x86 kretprobes return through rethook's trampoline (5.19+). */
	ia_hook_kretprobe_tramp = ia_kallsyms_lookup_name("arch_rethook_trampoline");
	if (!ia_hook_kretprobe_tramp)
		ia_hook_kretprobe_tramp = ia_kallsyms_lookup_name("__kretprobe_trampoline");
	return register_module_notifier(&ia_hook_module_nb);
}

void ia_hooks_livepatch_exit(void)
{
	/* Waits for a handover in progress: none runs after this. */
	unregister_module_notifier(&ia_hook_module_nb);
}

u64 ia_hook_missed(const struct ia_hook *h)
{
	switch (h->how) {
	case IA_HOOK_KPROBE:
		return READ_ONCE(h->kp.nmissed);
	case IA_HOOK_KRETPROBE:
		return READ_ONCE(h->krp.nmissed) + READ_ONCE(h->krp.kp.nmissed);
	default:
		return 0;	/* ftrace misses no call */
	}
}

u64 ia_hook_set_missed(const struct ia_hook_set *s)
{
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < s->n; i++)
		n += ia_hook_missed(s->hooks[i]);
	return n;
}

void ia_hook_set_describe(const struct ia_hook_set *s, char *buf, size_t len)
{
	int n = 0;

	if (!s->nkprobe && !s->nkretprobe) {
		snprintf(buf, len, "ftrace");
		return;
	}
	if (s->nftrace + s->nwrap)
		n += scnprintf(buf + n, len - n, "ftrace, ");
	if (s->nkretprobe)
		n += scnprintf(buf + n, len - n, "%u kretprobes%s", s->nkretprobe,
			       s->nkprobe ? ", " : "");
	if (s->nkprobe)
		n += scnprintf(buf + n, len - n, "%u kprobes", s->nkprobe);
	scnprintf(buf + n, len - n, " (%s)", s->fallback);
}
