/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks, the only place they are made. A source declares what it hooks and
 * registers the declarations as a set; this layer picks the mechanism of
 * each hook, records which one won and every miss, and takes the set down
 * with shared grace periods. No other file touches ftrace or kprobes.
 *
 * Two kinds of hook, each declared with one macro:
 *  - an entry hook (IA_HOOK_ENTRY): a handler called with the function's
 *    first four arguments. All the entry hooks of a set share one ftrace_ops
 *    (no pt_regs saved, no kprobe lookup); else each is a kprobe;
 *  - a return hook (IA_HOOK_RETURN): an entry handler with the arguments and
 *    the caller's return address, which may decline the call, then a return
 *    handler with the return value, sharing per-call data of a declared type.
 *    The function is wrapped on ftrace (its calls redirected to a wrapper
 *    generated here with the same signature, which calls the original: one
 *    more entry hit per call, no return trampoline, no bound on calls in
 *    flight) where the original can be called from a module; else a
 *    kretprobe with a declared number of instances. A return hook may
 *    filter on one argument (its low 32 bits): other calls are not
 *    redirected, or are declined before the entry handler.
 *
 * A livepatch needs the functions it patches free of other IPMODIFY users:
 * when a livepatch module arrives (its COMING state, before its init can
 * call klp_enable_patch), every wrapped hook of every set is handed over to
 * a kretprobe, without a call lost or counted twice (hook.c), and the set's
 * feature says so; no set registered afterwards wraps.
 *
 * ftrace needs DYNAMIC_FTRACE_WITH_ARGS on x86 (every kernel of the matrix)
 * and the module parameter hooks=auto; under enforced IBT a function whose
 * address the kernel never takes has a sealed ENDBR and cannot be called
 * indirectly, so it cannot be wrapped. Symbols are "module:function" or
 * "function". Handlers run in atomic context (kprobes) or preemptible
 * (ftrace): they take irq-safe spinlocks, allocate GFP_ATOMIC and never
 * call a function hooked here.
 */
#ifndef _IA_WRAPPER_HOOK_H
#define _IA_WRAPPER_HOOK_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait_bit.h>

#include "ia-conftest.h"

/*
 * ftrace hooks on x86: the arguments from ftrace_regs (5.11 on), or from
 * the pt_regs an ftrace_ops with FTRACE_OPS_FL_SAVE_REGS gets before
 * (kmod/conftest/ftrace_func_fregs.c); else kprobes.
 */
#if defined(CONFIG_X86) && (defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) || \
	(!IA_HAVE_FTRACE_FUNC_FREGS && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)))
#define IA_HAVE_FTRACE_HOOKS 1
#else
#define IA_HAVE_FTRACE_HOOKS 0
#endif

typedef void (*ia_hook_entry_fn)(unsigned long a0, unsigned long a1,
				 unsigned long a2, unsigned long a3);
typedef unsigned long (*ia_hook_fn4)(unsigned long a0, unsigned long a1,
				     unsigned long a2, unsigned long a3);

/* How a hook was placed. */
enum ia_hook_how {
	IA_HOOK_OFF,		/* not wanted, or every mechanism failed */
	IA_HOOK_FTRACE,		/* entry hook on the set's ftrace_ops */
	IA_HOOK_WRAP,		/* return hook: calls redirected to its wrapper */
	IA_HOOK_KPROBE,		/* entry hook on a kprobe */
	IA_HOOK_KRETPROBE,	/* return hook on a kretprobe */
};

struct ia_hook {
	/* Declared (the macros below). */
	const char *sym;
	ia_hook_entry_fn fn;	/* entry hooks */
	void *wrapper;		/* return hooks: the generated wrapper */
	unsigned int wrapper_size;
	/* Set by the source before registering. */
	bool want;		/* register it (the macros set it) */
	bool required;		/* the set fails without it */
	/* Outcome, written by ia_hook_set_register(). */
	enum ia_hook_how how;
	int err;		/* why it is off, if it is */
	/* Private to hook.c (and the generated handlers). */
	unsigned long addr;	/* resolved at registration */
	unsigned long orig;	/* wrapped: the function, for the wrapper to call */
	atomic_t inflight;	/* wrapped: calls inside the wrapper */
	bool draining;		/* wrapped: being unregistered, wake the waiter */
	bool handing;		/* wrapped: a kretprobe takes the calls it sees */
	bool own_ops;		/* wrapped on its own ftrace_ops, not the set's */
	int only_arg;		/* return hooks: argument filtered on, or -1 */
	u32 only_val;
	struct ftrace_ops ops;	/* wrapped on its own */
	struct kprobe kp;
	struct kretprobe krp;
};

#define IA_HOOK_SET_MAX 12
#define IA_HOOK_SLOT_BITS 5

struct ia_calls;

struct ia_hook_set {
	const char *name;	/* for messages: "io_uring", "vfio_iommu_type1" */
	struct ia_hook **hooks;
	unsigned int n;
	/* Outcome. */
	unsigned int nftrace, nwrap, nkprobe, nkretprobe;
	char fallback[80];	/* why the first one not on ftrace is not (short) */
	/*
	 * Set by the source: called, without any lock of hook.c held, after
	 * a livepatch took the set's wrapped hooks to kretprobes (its feature
	 * detail is to be written again). May find the set unregistered.
	 */
	void (*changed)(struct ia_hook_set *s);
	/*
	 * The source's calls in flight, if it keeps some: made empty when
	 * the set is registered, killed before any of its hooks goes.
	 */
	struct ia_calls *calls;
	char why[160];		/* registration failed: which hook, what error */
	/* Private. */
	struct ftrace_ops ops;	/* the entry hooks on ftrace */
	struct ia_hook *fentry[IA_HOOK_SET_MAX];
	struct ia_hook *fslot[1 << IA_HOOK_SLOT_BITS];	/* the same, by address */
	unsigned int nfentry;
	struct ftrace_ops wops;	/* the wrapped return hooks (IPMODIFY) */
	struct ia_hook *wrapped[IA_HOOK_SET_MAX];
	struct ia_hook *wslot[1 << IA_HOOK_SLOT_BITS];	/* the same, by address */
	unsigned long wlo, wspan;	/* the text of their wrappers, from wlo */
	unsigned int nwrapped;
	bool registered;
	struct list_head live;	/* on hook.c's list while registered */
};

/*
 * Module parameter hooks=: "auto" (ftrace where the kernel allows it, else
 * kprobes) or "kprobes" (kprobes only). ia_hooks_check() refuses anything
 * else at load.
 */
int ia_hooks_check(void);
/*
 * The livepatch watch (a module notifier): registered at load before any
 * set, unregistered at exit after every set.
 */
int ia_hooks_livepatch_init(void);
void ia_hooks_livepatch_exit(void);

/*
 * Register every wanted hook of @s: the entry hooks first (a release is in
 * place before anything it releases can be recorded), then the return hooks
 * in the order declared. A hook whose symbol is missing, or that no
 * mechanism takes, is off with its error; if it was required, the whole set
 * is unregistered and the error returned with s->why filled. Sleeps.
 */
int ia_hook_set_register(struct ia_hook_set *s);
/*
 * Unregister @n sets together: no handler runs any more on return, and no
 * task is left in a wrapper. The wrapped hooks of all of them share two
 * RCU-tasks grace periods; may sleep long (a MAP_DMA pinning memory).
 */
void ia_hook_sets_unregister(struct ia_hook_set **s, unsigned int n);
/* Calls not seen: kprobe hits lost and kretprobe instances that ran out. */
u64 ia_hook_missed(const struct ia_hook *h);
u64 ia_hook_set_missed(const struct ia_hook_set *s);
/* "ftrace", or how many are kprobes and kretprobes and why, for a feature. */
void ia_hook_set_describe(const struct ia_hook_set *s, char *buf, size_t len);

static inline bool ia_hook_on(const struct ia_hook *h)
{
	return h->how != IA_HOOK_OFF;
}

/* --- calls in flight ---------------------------------------------------------------- */

/*
 * A hooked call in flight on a task, so that hooks nested inside it find it
 * (a charge inside a registration, a pin inside a MAP_DMA). It lives in the
 * return hook's per-call data; the table is the source's. Its chains are
 * hashed by task, each with its own lock (a leaf: taken alone or under a
 * source's lock, never the other way), so calls on different tasks do not
 * share one. Only the task itself adds, finds and removes its own calls,
 * so a call found stays valid until that task removes it. A source going
 * kills its table (ia_calls_kill) before its hooks are unregistered: from
 * then on nothing is added or found, and no chain is walked (the nodes of
 * calls whose return handlers will not run may be gone); after, it forgets
 * them with ia_calls_forget().
 */
struct ia_call {
	struct hlist_node hnode;
	struct task_struct *task;
	unsigned int kind;		/* the source's, to tell nested calls apart */
};

#define IA_CALLS_BITS 8

struct ia_calls {
	struct ia_calls_chain {
		spinlock_t lock;	/* the chain's, a leaf */
		struct hlist_head h;
	} c[1 << IA_CALLS_BITS];
	atomic_t n;			/* read without the lock: none in flight */
	bool dead;			/* killed: set under every chain's lock */
};

static inline void ia_calls_init(struct ia_calls *t)
{
	static struct lock_class_key key;	/* one class per source file: "ia_calls" */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->c); i++) {
		spin_lock_init(&t->c[i].lock);
		lockdep_set_class_and_name(&t->c[i].lock, &key, "ia_calls");
		INIT_HLIST_HEAD(&t->c[i].h);
	}
	atomic_set(&t->n, 0);
	t->dead = false;
}

static inline struct ia_calls_chain *ia_calls_chain(struct ia_calls *t)
{
	return &t->c[hash_ptr(current, IA_CALLS_BITS)];
}

/* @c is in flight on the current task as @kind; false (not added) once killed. */
static inline bool ia_call_add(struct ia_calls *t, struct ia_call *c, unsigned int kind)
{
	struct ia_calls_chain *ch = ia_calls_chain(t);
	unsigned long flags;
	bool added;

	c->task = current;
	c->kind = kind;
	spin_lock_irqsave(&ch->lock, flags);
	added = !t->dead;
	if (added) {
		hlist_add_head(&c->hnode, &ch->h);
		atomic_inc(&t->n);
	} else {
		INIT_HLIST_NODE(&c->hnode);	/* a later ia_call_del() finds it unlisted */
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return added;
}

/* @c (added by the current task) is over; nothing once killed. */
static inline void ia_call_del(struct ia_calls *t, struct ia_call *c)
{
	struct ia_calls_chain *ch = ia_calls_chain(t);
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (!t->dead) {
		hlist_del_init(&c->hnode);
		atomic_dec(&t->n);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
}

/* The call of @kind in flight on the current task, or NULL (always, once killed). */
static inline struct ia_call *ia_call_find(struct ia_calls *t, unsigned int kind)
{
	struct ia_calls_chain *ch = ia_calls_chain(t);
	struct ia_call *c, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (!t->dead)
		hlist_for_each_entry(c, &ch->h, hnode)
			if (c->task == current && c->kind == kind) {
				found = c;
				break;
			}
	spin_unlock_irqrestore(&ch->lock, flags);
	return found;
}

/* No call in flight anywhere (a hint, without the lock). */
static inline bool ia_calls_none(struct ia_calls *t)
{
	return !atomic_read(&t->n);
}

static inline void ia_calls_kill(struct ia_calls *t)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->c); i++) {
		spin_lock_irqsave(&t->c[i].lock, flags);
		t->dead = true;
		spin_unlock_irqrestore(&t->c[i].lock, flags);
	}
}

/* With no hook left (no handler runs): the calls still listed are dropped. */
static inline void ia_calls_forget(struct ia_calls *t)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->c); i++) {
		spin_lock_irqsave(&t->c[i].lock, flags);
		INIT_HLIST_HEAD(&t->c[i].h);
		spin_unlock_irqrestore(&t->c[i].lock, flags);
	}
	atomic_set(&t->n, 0);
}

/* --- generated handlers ---------------------------------------------------------- */

static __always_inline void ia_hook_enter(struct ia_hook *h)
{
	atomic_inc(&h->inflight);
}

/*
 * The waiter is woken only while the hook is being taken down: the last
 * wrapper out then. atomic_dec_and_test() is fully ordered, and the
 * unregistering side sets draining before it reads the count.
 */
static __always_inline void ia_hook_leave(struct ia_hook *h)
{
	if (atomic_dec_and_test(&h->inflight) && READ_ONCE(h->draining))
		wake_up_var(&h->inflight);
}

static __always_inline void ia_hook_args(struct pt_regs *regs, unsigned long *a)
{
	a[0] = regs_get_kernel_argument(regs, 0);
	a[1] = regs_get_kernel_argument(regs, 1);
	a[2] = regs_get_kernel_argument(regs, 2);
	a[3] = regs_get_kernel_argument(regs, 3);
}

/*
 * Where kretprobes return through (rethook's trampoline, or kprobes' own on
 * kernels without rethook): a kretprobe that took a call has put it in the
 * call's return address. Resolved at load; 0 if not found.
 */
extern unsigned long ia_hook_kretprobe_tramp;

/*
 * In a wrapper, returning to @ra: a kretprobe of the hook's own took this
 * call at its entry (the handover to a livepatch is under way), so the
 * wrapper leaves it to the kretprobe.
 */
static __always_inline bool ia_hook_kretprobe_took(const struct ia_hook *h, unsigned long ra)
{
	return READ_ONCE(h->handing) && ra == READ_ONCE(ia_hook_kretprobe_tramp);
}

/* At a kretprobe's entry: the call is the hook's own wrapper calling the original. */
static __always_inline bool ia_hook_from_wrapper(const struct ia_hook *h, unsigned long caller)
{
	return caller - (unsigned long)h->wrapper < h->wrapper_size;
}

/* A call a return hook's argument filter leaves out (its argument alone read). */
static __always_inline bool ia_hook_skip(const struct ia_hook *h, struct pt_regs *regs)
{
	return h->only_arg >= 0 &&
	       (u32)regs_get_kernel_argument(regs, h->only_arg) != h->only_val;
}

/* At a function's entry (a kretprobe's entry handler): the stack's top word. */
static __always_inline unsigned long ia_hook_caller(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}

/*
 * An entry hook NAME_hook on @symbol: @fn_(a0, a1, a2, a3) on every call,
 * called directly from a kprobe (from the set's ftrace callback, through
 * the hook).
 */
#define IA_HOOK_ENTRY(name, symbol, fn_)						\
static __always_inline void name##_fn(unsigned long a0, unsigned long a1,		\
				      unsigned long a2, unsigned long a3)		\
{											\
	fn_(a0, a1, a2, a3);								\
}											\
static int name##_kp(struct kprobe *p, struct pt_regs *regs)				\
{											\
	unsigned long a[4];								\
											\
	ia_hook_args(regs, a);								\
	name##_fn(a[0], a[1], a[2], a[3]);						\
	return 0;									\
}											\
static struct ia_hook name##_hook = {							\
	.sym = symbol, .fn = name##_fn, .want = true, .only_arg = -1,			\
	.kp = { .pre_handler = name##_kp },						\
}

/*
 * A return hook NAME_hook on @symbol, for the calls whose argument @arg is
 * @val (@arg -1: every call). Per call, a @type on the wrapper's stack or in
 * the kretprobe instance: bool @entry_fn(void *data, const unsigned long
 * a[4], unsigned long caller) says whether to follow the call; then
 * @ret_fn(void *data, unsigned long rv) (a kretprobe's entry handler returns
 * 1 for a call not followed; the caller's return address is the stack's top
 * word there). At most @max calls in flight under a kretprobe. Both handlers
 * are called directly (no indirect call).
 *
 * The wrapper passes up to four integer or pointer arguments in registers
 * (x86-64): the original takes what it declares. It never tail-calls the
 * original (work follows): the original's own entry sees a return address
 * in the wrapper and lets it run.
 */
#define IA_HOOK_RETURN_IF(name, symbol, arg, val, type, entry_fn, ret_fn, max)	\
static struct ia_hook name##_hook;							\
static __always_inline bool name##_in(void *d, const unsigned long *a, unsigned long c)\
{											\
	return entry_fn(d, a, c);							\
}											\
static __always_inline void name##_out(void *d, unsigned long rv)			\
{											\
	ret_fn(d, rv);									\
}											\
static noinline notrace unsigned long name##_w(unsigned long a0, unsigned long a1,	\
					       unsigned long a2, unsigned long a3)	\
{											\
	const unsigned long a[4] = { a0, a1, a2, a3 };					\
	type data;									\
	unsigned long rv;								\
	bool follow;									\
											\
	ia_hook_enter(&name##_hook);							\
	follow = !ia_hook_kretprobe_took(&name##_hook,					\
					 (unsigned long)__builtin_return_address(0)) &&	\
		 name##_in(&data, a, (unsigned long)__builtin_return_address(0));	\
	rv = ((ia_hook_fn4)READ_ONCE(name##_hook.orig))(a0, a1, a2, a3);		\
	if (follow)									\
		name##_out(&data, rv);							\
	ia_hook_leave(&name##_hook);							\
	return rv;									\
}											\
static int name##_ke(struct kretprobe_instance *ri, struct pt_regs *regs)		\
{											\
	unsigned long a[4];								\
											\
	if (ia_hook_skip(&name##_hook, regs) ||						\
	    ia_hook_from_wrapper(&name##_hook, ia_hook_caller(regs)))			\
		return 1;								\
	ia_hook_args(regs, a);								\
	return name##_in(ri->data, a, ia_hook_caller(regs)) ? 0 : 1;			\
}											\
static int name##_kr(struct kretprobe_instance *ri, struct pt_regs *regs)		\
{											\
	name##_out(ri->data, regs_return_value(regs));					\
	return 0;									\
}											\
static struct ia_hook name##_hook = {							\
	.sym = symbol, .wrapper = name##_w, .want = true,				\
	.only_arg = (arg), .only_val = (val),						\
	.krp = { .entry_handler = name##_ke, .handler = name##_kr,			\
		 .data_size = sizeof(type), .maxactive = (max) },			\
}

#define IA_HOOK_RETURN(name, symbol, type, entry_fn, ret_fn, max)			\
	IA_HOOK_RETURN_IF(name, symbol, -1, 0, type, entry_fn, ret_fn, max)

#endif
