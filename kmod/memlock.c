// SPDX-License-Identifier: GPL-2.0
/*
 * The charge paths of the per-uid pot (user_struct->locked_vm): who charges
 * it, through what, what is still held and by whom, and the moment a charge
 * is refused or crosses a threshold.
 *
 * Charges: a return hook on __io_account_mem(user, nr_pages), io_uring's
 * one charging function on every kernel of the matrix (global there), and
 * on io_account_mem(user, mm, nr_pages) where that exists, because 7.x
 * inlines the former into it for registered buffers (a charge seen by both
 * is counted once). The uncharge helper is static inline, so releases are
 * followed where they happen to a known object instead. The consumer is decided by the call
 * site: a charge made inside io_sqe_buffer_register() is a registered
 * buffer; other call sites are classified by the function the charge
 * returns to (ring/region memory, zero-copy notifications, other).
 *
 * Releases, found by symbol, whichever the kernel has:
 *  - per buffer: io_buffer_unmap(ctx, slot) exists and io_unaccount_mem()
 *    does not (the charge is inlined in the unmap): the charges made inside
 *    io_sqe_buffer_register(ctx, iov, pimu, ...) are recorded under the
 *    buffer the kernel stored at *pimu, and released when io_buffer_unmap
 *    is given that buffer (*slot);
 *  - per ring: no io_buffer_unmap (7.x: it and the uncharge are inlined
 *    into io_free_rsrc_node): the charges inside io_sqe_buffer_register(ctx,
 *    ...) are recorded under the ring; an io_unaccount_mem() call seen
 *    inside io_free_rsrc_node(ctx, ..) takes its exact count off, and when
 *    io_sqe_buffers_unregister(ctx) empties the ring's table (unregister or
 *    teardown) the rest goes. Replacing one occupied slot is not seen on
 *    such a kernel until the table goes (documented limitation).
 * Either way only the kernel's own arguments and return values are used:
 * the pot of each charge (user), its size (nr_pages), its result, and the
 * object the kernel stored. Consumers whose release is not hooked on this
 * kernel are counted (charges, refusals, events) but not attributed: their
 * bytes are in "unattributed", which is the kernel's counter minus what is
 * attributed, so the parts always add up.
 *
 * A ring being closed (io_uring_release, the fops' release) marks its
 * records as pending release; so does the exit of the charging process.
 *
 * Locking: ia_ml_lock (a spinlock, irqsave: the hooks run in atomic
 * context) guards the users, the records and the actives. Taken with it,
 * in this order: the kernel's kernfs lock inside cgroup_path() (a failure's
 * cgroup path), then ia_evq_lock (events are queued under ia_ml_lock, and
 * ia_event_queue() takes nothing else). Nothing that sleeps, allocates
 * other than GFP_ATOMIC or calls into netlink runs under it; no other lock
 * of this module is held when it is taken.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/xdp_sock.h>

#include "ia.h"
#include "wrapper/hook.h"
#include "wrapper/kallsyms.h"

/* Concurrent registrations/charges in flight (each sleeps while pinning). */
#define IA_ML_MAXACTIVE 1024

static DEFINE_SPINLOCK(ia_ml_lock);

/* One uid that charged since the module loaded. */
struct ia_ml_user {
	struct hlist_node hnode;	/* ia_ml_users, by uid */
	kuid_t uid;
	u64 pages[IA_CONS_COUNT];	/* attributed, still charged */
	u64 charges, refusals;
	u32 inexact;
	bool armed[IA_LEVEL_COUNT];
	struct ia_coalesce co;
	struct ia_event pending_ev;	/* the last refusal, for a coalesced report */
	bool has_last;
	struct ia_failure last;		/* the last refusal, for GET_QUOTA */
	char *last_cgpath;		/* its cgroup's path, allocated at the first refusal */
};

/* Pages charged to @uid's pot and held by one object (a buffer or a ring). */
struct ia_ml_rec {
	struct hlist_node hnode;	/* ia_ml_recs, by key */
	struct hlist_node cnode;	/* ia_ml_by_ctx, by ring */
	const void *key;		/* the buffer, or the ring in per-ring mode */
	const void *ctx;		/* the ring */
	kuid_t uid;
	enum ia_consumer consumer;
	u64 pages;
	struct pid *pid;		/* the charging process (tgid) */
	bool closed;			/* its ring was closed */
};

enum ia_ml_act {
	IA_ACT_REGISTER,		/* io_sqe_buffer_register */
	IA_ACT_RELEASE,			/* io_free_rsrc_node */
	IA_ACT_CHARGE,			/* io_account_mem, around __io_account_mem */
};

/* A registration, release or charge in progress on a task (nested probes find it). */
struct ia_ml_active {
	struct hlist_node hnode;	/* ia_ml_actives, by task */
	struct task_struct *task;
	const void *ctx;
	void **pimu;			/* per-buffer mode: where the kernel stores it */
	kuid_t uid;
	u64 pages;			/* charged inside this call */
	enum ia_ml_act kind;
};

static DEFINE_HASHTABLE(ia_ml_users, 6);
static DEFINE_HASHTABLE(ia_ml_recs, 8);
static DEFINE_HASHTABLE(ia_ml_by_ctx, 8);	/* a closing ring finds its records */
static DEFINE_HASHTABLE(ia_ml_actives, 6);
static bool ia_ml_per_ring;		/* release mode, decided at init */
/*
 * Set (under the lock) before the hooks go: from then on no handler
 * touches the actives hash, whose nodes live in kretprobe instances that an
 * unregistered probe no longer unlinks, or on wrappers' stacks.
 */
static bool ia_ml_exiting;
/*
 * Set once at init, after every hook they need took: until then (or for
 * good, when one failed) the hooks that did take do nothing. Hooks are only
 * unregistered at exit, with the protocol above.
 */
static bool ia_ml_uring_on;		/* io_uring charges followed */
static bool ia_ml_attrib;		/* registered buffers attributed */
static struct ia_thresholds ia_ml_thr = { 800, 950 };
static u32 ia_ml_margin = 50;

/* Call sites: [start, end) of kernel functions that may charge. */
struct ia_ml_site {
	const char *name;
	enum ia_consumer consumer;
	unsigned long start, end;
};

static struct ia_ml_site ia_ml_sites[] = {
	{ "io_sqe_buffer_register", IA_CONS_URING_BUFFERS },
	{ "io_sqe_buffers_register", IA_CONS_URING_BUFFERS },
	{ "io_buffer_account_pin", IA_CONS_URING_BUFFERS },
	{ "io_create_region", IA_CONS_URING_RINGS },
	{ "io_create_region_mmap_safe", IA_CONS_URING_RINGS },
	{ "io_region_pin_pages", IA_CONS_URING_RINGS },
	{ "io_region_allocate_pages", IA_CONS_URING_RINGS },
	{ "io_allocate_scq_urings", IA_CONS_URING_RINGS },
	{ "io_link_skb", IA_CONS_URING_ZC },
	{ "io_sg_from_iter", IA_CONS_URING_ZC },
	{ "io_sendmsg_zc", IA_CONS_URING_ZC },
	{ "io_send_zc", IA_CONS_URING_ZC },
	{ "io_send_zc_import", IA_CONS_URING_ZC },
	{ "io_notif_account_mem", IA_CONS_URING_ZC },
};

static enum ia_consumer ia_ml_site_of(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ia_ml_sites); i++)
		if (addr >= ia_ml_sites[i].start && addr < ia_ml_sites[i].end)
			return ia_ml_sites[i].consumer;
	return IA_CONS_URING_OTHER;
}

static struct ia_ml_user *ia_ml_user_get(kuid_t uid)
{
	struct ia_ml_user *u;
	int l;

	hash_for_each_possible(ia_ml_users, u, hnode, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	u = kzalloc(sizeof(*u), GFP_ATOMIC);
	if (!u)
		return NULL;
	u->uid = uid;
	for (l = 0; l < IA_LEVEL_COUNT; l++)
		u->armed[l] = true;
	hash_add(ia_ml_users, &u->hnode, __kuid_val(uid));
	return u;
}

static struct ia_ml_active *ia_ml_active_of(struct task_struct *task, enum ia_ml_act kind)
{
	struct ia_ml_active *a;

	hash_for_each_possible(ia_ml_actives, a, hnode, (unsigned long)task)
		if (a->task == task && a->kind == kind)
			return a;
	return NULL;
}

static struct ia_ml_rec *ia_ml_rec_of(const void *key)
{
	struct ia_ml_rec *r;

	hash_for_each_possible(ia_ml_recs, r, hnode, (unsigned long)key)
		if (r->key == key)
			return r;
	return NULL;
}

static void ia_ml_rec_del(struct ia_ml_rec *r)
{
	hash_del(&r->hnode);
	hash_del(&r->cnode);
	put_pid(r->pid);
	kfree(r);
}

static void ia_ml_flag(kuid_t uid, u32 bit)
{
	struct ia_ml_user *u = ia_ml_user_get(uid);

	if (u)
		u->inexact |= bit;
}

/* Take @pages off @r (and its uid); the record goes when it is empty. */
static void ia_ml_release(struct ia_ml_rec *r, u64 pages)
{
	struct ia_ml_user *u = ia_ml_user_get(r->uid);

	if (pages > r->pages) {
		if (u)
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS;
		pages = r->pages;
	}
	r->pages -= pages;
	if (u)
		u->pages[r->consumer] -= min(u->pages[r->consumer], pages);
	if (!r->pages)
		ia_ml_rec_del(r);
}

/* --- events ------------------------------------------------------------------ */

static void ia_ml_event_init(struct ia_event *ev, enum ia_event_type type, kuid_t uid,
			     enum ia_consumer consumer, u64 pages, u64 pot_pages, u64 limit)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = IA_KIND_UID_POT;
	ev->type = type;
	ev->time_ns = ktime_get_real_ns();
	ev->pot.uid = uid;
	ev->pot.consumer = consumer;
	ev->size = pages << PAGE_SHIFT;
	ev->locked_bytes = pot_pages << PAGE_SHIFT;
	ev->memlock = limit;
	ev->cgroup_id = ia_task_cgroup_id(current);
	ia_owner_current(&ev->who);
}

/*
 * A charge succeeded: the pot is @pot pages against the charging process's
 * @limit (bytes). Re-arm the levels the pot fell well below (it was @pot -
 * @pages before this charge), then raise the levels it reached.
 */
static void ia_ml_thresholds(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
			     u64 pot, u64 limit)
{
	const u32 thr[IA_LEVEL_COUNT] = { ia_ml_thr.warn, ia_ml_thr.crit };
	u64 before, now;
	struct ia_event ev;
	int l;

	lockdep_assert_held(&ia_ml_lock);
	if (limit == RLIM_INFINITY || !limit)
		return;
	/* Per mille of the limit, before and after this charge. */
	before = div64_u64(((pot - min(pot, pages)) << PAGE_SHIFT) * 1000, limit);
	now = div64_u64((pot << PAGE_SHIFT) * 1000, limit);
	for (l = 0; l < IA_LEVEL_COUNT; l++)
		if (!u->armed[l] && before + ia_ml_margin < thr[l])
			u->armed[l] = true;
	for (l = IA_LEVEL_COUNT - 1; l >= 0; l--) {
		if (!u->armed[l] || now < thr[l])
			continue;
		u->armed[l] = false;
		if (l == IA_LEVEL_CRIT)
			u->armed[IA_LEVEL_WARN] = false;	/* crit says it all */
		if (!ia_events_wanted())
			break;
		ia_ml_event_init(&ev, IA_EV_THRESHOLD, u->uid, consumer, pages, pot, limit);
		ev.level = l;
		ev.threshold = thr[l];
		ia_event_queue(&ev);
		break;
	}
}

static void ia_ml_flush_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(ia_ml_flush_work, ia_ml_flush_fn);
static bool ia_ml_flush_pending;

static void ia_ml_refused(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
			  u64 pot, u64 limit, int err)
{
	u64 now = ktime_get_ns();
	struct ia_event ev;
	u32 count;

	lockdep_assert_held(&ia_ml_lock);
	u->refusals++;
	ia_ml_event_init(&ev, IA_EV_FAILURE, u->uid, consumer, pages, pot, limit);
	ev.err = err;
	u->has_last = true;
	u->last = (struct ia_failure){ .time_ns = ev.time_ns, .err = err, .size = ev.size,
				       .who = ev.who, .cgroup_id = ev.cgroup_id };
	/* Under ia_ml_lock: the path is taken now, the cgroup may go soon. */
	if (!u->last_cgpath)
		u->last_cgpath = kmalloc(IA_CGPATH_LEN, GFP_ATOMIC);
	if (u->last_cgpath)
		ia_task_cgroup_path(current, u->last_cgpath, IA_CGPATH_LEN);
	if (ia_coalesce_fail(&u->co, now, &count)) {
		ev.count = count;
		if (ia_events_wanted())
			ia_event_queue(&ev);
		return;
	}
	u->pending_ev = ev;
	ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
}

static void ia_ml_flush_fn(struct work_struct *w)
{
	u64 now = ktime_get_ns();
	struct ia_ml_user *u;
	unsigned long flags;
	bool again = false;
	unsigned int bkt;
	u32 count;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_flush_pending = false;
	hash_for_each(ia_ml_users, bkt, u, hnode) {
		if (!u->co.pending)
			continue;
		count = ia_coalesce_due(&u->co, now);
		if (!count) {
			again = true;
			continue;
		}
		u->pending_ev.count = count;
		u->pending_ev.time_ns = ktime_get_real_ns();
		if (ia_events_wanted())
			ia_event_queue(&u->pending_ev);
	}
	if (again)
		ia_coalesce_schedule(&ia_ml_flush_work, &ia_ml_flush_pending);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* --- hooks -------------------------------------------------------------------- */

/*
 * Two kinds, each with the cheapest mechanism the kernel allows:
 *  - return hooks (an entry with the arguments, then the return value): the
 *    function wrapped on ftrace (wrapper/hook.h: the call redirected to a
 *    wrapper of ours that calls the original; no return trampoline) where
 *    the original can be called from a module, else a kretprobe. Under
 *    enforced IBT a function whose address the kernel never takes has its
 *    ENDBR sealed and cannot be called indirectly: 6.12 and 7.3 seal every
 *    io_uring function hooked here, so on such CPUs these stay kretprobes;
 *  - entry hooks (releases, ring close): one ftrace_ops for all of them,
 *    else kprobes.
 * Both end up in the same handlers, which take plain arguments.
 */
typedef unsigned long (*ia_ml_fn4)(unsigned long a0, unsigned long a1, unsigned long a2,
				   unsigned long a3);

/* Per-call data of a return hook: on the wrapper's stack or in the kretprobe instance. */
#define IA_ML_DATA_WORDS 16

struct ia_ml_rhook {
	const char *sym;
	/* false: nothing to follow, no return handler for this call */
	bool (*entry)(void *data, const unsigned long *a, unsigned long caller);
	void (*ret)(void *data, unsigned long rv);
	struct ia_wrap wrap;
	struct kretprobe krp;
	bool wrapped, probed;
};

static __always_inline unsigned long ia_ml_wrapped(struct ia_ml_rhook *h, unsigned long a0,
						   unsigned long a1, unsigned long a2,
						   unsigned long a3, unsigned long caller)
{
	const unsigned long a[4] = { a0, a1, a2, a3 };
	u64 data[IA_ML_DATA_WORDS];
	unsigned long rv;
	bool follow;

	ia_wrap_enter(&h->wrap);
	follow = h->entry(data, a, caller);
	/*
	 * Up to four integer or pointer arguments in registers (x86-64): the
	 * original takes what it declares. Never a tail call (work follows):
	 * its own entry sees a return address in this wrapper and lets it run.
	 */
	rv = ((ia_ml_fn4)h->wrap.orig)(a0, a1, a2, a3);
	if (follow)
		h->ret(data, rv);
	ia_wrap_leave(&h->wrap);
	return rv;
}

static __always_inline int ia_ml_kentry(struct ia_ml_rhook *h, struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	const unsigned long a[4] = {
		regs_get_kernel_argument(regs, 0), regs_get_kernel_argument(regs, 1),
		regs_get_kernel_argument(regs, 2), regs_get_kernel_argument(regs, 3),
	};

	/* At the entry the stack's top word is the return address. */
	return h->entry(ri->data, a, regs_get_kernel_stack_nth(regs, 0)) ? 0 : 1;
}

static __always_inline int ia_ml_kret(struct ia_ml_rhook *h, struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	h->ret(ri->data, regs_return_value(regs));
	return 0;
}

/*
 * A return hook ia_ml_h_NAME on @symbol: its wrapper and kretprobe handlers.
 * The symbol goes to the wrap and the kretprobe at registration.
 */
#define IA_ML_RHOOK(name, symbol, entry_fn, ret_fn, max)				\
static struct ia_ml_rhook ia_ml_h_##name;						\
static noinline notrace unsigned long ia_ml_w_##name(unsigned long a0, unsigned long a1,\
						      unsigned long a2, unsigned long a3)\
{											\
	return ia_ml_wrapped(&ia_ml_h_##name, a0, a1, a2, a3,				\
			     (unsigned long)__builtin_return_address(0));		\
}											\
static int ia_ml_ke_##name(struct kretprobe_instance *ri, struct pt_regs *regs)	\
{											\
	return ia_ml_kentry(&ia_ml_h_##name, ri, regs);					\
}											\
static int ia_ml_kr_##name(struct kretprobe_instance *ri, struct pt_regs *regs)	\
{											\
	return ia_ml_kret(&ia_ml_h_##name, ri, regs);					\
}											\
static struct ia_ml_rhook ia_ml_h_##name = {						\
	.sym = symbol, .entry = entry_fn, .ret = ret_fn,				\
	.wrap = { .wrapper = ia_ml_w_##name, .only_arg = -1 },				\
	.krp = { .entry_handler = ia_ml_ke_##name, .handler = ia_ml_kr_##name,		\
		 .data_size = IA_ML_DATA_WORDS * 8, .maxactive = max },		\
}

/* An entry hook: ftrace callback or kprobe pre-handler, same function. */
struct ia_ml_ehook {
	const char *sym;
	ia_fentry_fn fn;
	struct kprobe kp;
	bool want, on;
};

static __always_inline int ia_ml_kpre(struct ia_ml_ehook *e, struct pt_regs *regs)
{
	e->fn(regs_get_kernel_argument(regs, 0), regs_get_kernel_argument(regs, 1),
	      regs_get_kernel_argument(regs, 2), regs_get_kernel_argument(regs, 3));
	return 0;
}

/* An entry hook ia_ml_e_NAME on @symbol. */
#define IA_ML_EHOOK(name, symbol, fn_)							\
static struct ia_ml_ehook ia_ml_e_##name;						\
static int ia_ml_kp_##name(struct kprobe *p, struct pt_regs *regs)			\
{											\
	return ia_ml_kpre(&ia_ml_e_##name, regs);					\
}											\
static struct ia_ml_ehook ia_ml_e_##name = {						\
	.sym = symbol, .fn = fn_, .kp = { .pre_handler = ia_ml_kp_##name },		\
}

/* --- charges ------------------------------------------------------------------ */

/*
 * A charge: __io_account_mem(user, nr_pages), or io_account_mem(user, mm,
 * nr_pages) where the kernel has it (7.x inlines the former into the latter
 * for registered buffers). The per-call data starts with an active record,
 * so a nested __io_account_mem inside io_account_mem is not counted twice.
 */
struct ia_ml_charge {
	struct ia_ml_active act;	/* IA_ACT_CHARGE, io_account_mem only */
	struct user_struct *user;
	unsigned long pages;
	unsigned long caller;
	bool outer;
};

static bool ia_ml_charge_start(struct ia_ml_charge *c, const unsigned long *a,
			       unsigned long caller, int pages_arg, bool outer)
{
	unsigned long flags;

	c->user = (struct user_struct *)a[0];
	c->pages = a[pages_arg];
	c->caller = caller;
	c->outer = outer;
	if (!c->user || !c->pages || !READ_ONCE(ia_ml_uring_on))
		return false;	/* nothing is charged, or not followed */
	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting) {
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		return false;
	}
	if (!outer && ia_ml_active_of(current, IA_ACT_CHARGE)) {
		/* Inside io_account_mem: that hook counts this charge. */
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		return false;
	}
	if (outer) {
		c->act.task = current;
		c->act.kind = IA_ACT_CHARGE;
		hash_add(ia_ml_actives, &c->act.hnode, (unsigned long)current);
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return true;
}

static bool ia_ml_charge_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_ml_charge_start(data, a, caller, 1, false);
}

static bool ia_ml_charge_outer_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_ml_charge_start(data, a, caller, 2, true);
}

static void ia_ml_charge_ret(void *data, unsigned long rv)
{
	struct ia_ml_charge *c = data;
	int ret = (int)rv;	/* both return int */
	u64 limit = task_rlimit(current, RLIMIT_MEMLOCK);
	u64 pot = atomic_long_read(&c->user->locked_vm);
	enum ia_consumer consumer;
	struct ia_ml_active *a;
	struct ia_ml_user *u;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting)
		goto out;
	if (c->outer)
		hash_del(&c->act.hnode);
	a = ia_ml_active_of(current, IA_ACT_REGISTER);
	consumer = a ? IA_CONS_URING_BUFFERS : ia_ml_site_of(c->caller);
	u = ia_ml_user_get(c->user->uid);
	if (!u)
		goto out;
	if (ret) {
		ia_ml_refused(u, consumer, c->pages, pot, limit, ENOMEM);
		goto out;
	}
	u->charges++;
	if (a) {
		a->pages += c->pages;
		a->uid = c->user->uid;
	}
	ia_ml_thresholds(u, consumer, c->pages, pot, limit);
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* --- registrations and releases ------------------------------------------------- */

/* io_sqe_buffer_register(ctx, iov, [pimu, last_hpage]) and io_free_rsrc_node(ctx, node). */
static bool ia_ml_scope_entry(struct ia_ml_active *a, const unsigned long *args, bool release)
{
	unsigned long flags;

	if (!READ_ONCE(ia_ml_attrib))
		return false;
	memset(a, 0, sizeof(*a));
	a->task = current;
	a->ctx = (const void *)args[0];
	a->kind = release ? IA_ACT_RELEASE : IA_ACT_REGISTER;
	if (!release && !ia_ml_per_ring)
		a->pimu = (void **)args[2];
	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting) {
		spin_unlock_irqrestore(&ia_ml_lock, flags);
		return false;
	}
	hash_add(ia_ml_actives, &a->hnode, (unsigned long)current);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return true;
}

static bool ia_ml_reg_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_ml_scope_entry(data, a, false);
}

static bool ia_ml_free_node_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return ia_ml_scope_entry(data, a, true);
}

static void ia_ml_free_node_ret(void *data, unsigned long rv)
{
	struct ia_ml_active *a = data;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (!ia_ml_exiting)
		hash_del(&a->hnode);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

static void ia_ml_reg_ret(void *data, unsigned long rv)
{
	struct ia_ml_active *a = data;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	unsigned long flags;
	void *key = NULL;
	bool ok;

	/* Per buffer: int, 0 on success; per ring: a node or an ERR_PTR/NULL. */
	ok = ia_ml_per_ring ? !IS_ERR_OR_NULL((void *)rv) : !(int)rv;
	if (ok && a->pages && !ia_ml_per_ring &&
	    get_kernel_nofault(key, a->pimu))
		key = NULL;
	if (ok && a->pages && ia_ml_per_ring)
		key = (void *)a->ctx;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting)
		goto out;
	hash_del(&a->hnode);
	if (!a->pages)
		goto out;
	if (!key) {
		/* Charged but not kept (or not found): we cannot follow it. */
		ia_ml_flag(a->uid, IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
		goto out;
	}
	u = ia_ml_user_get(a->uid);
	r = ia_ml_rec_of(key);
	if (r && (!ia_ml_per_ring || r->closed || !uid_eq(r->uid, a->uid))) {
		/* A buffer (or ring) at the address of one we never saw released. */
		ia_ml_release(r, r->pages);
		ia_ml_flag(a->uid, IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED);
		r = NULL;
	}
	if (!r) {
		r = kzalloc(sizeof(*r), GFP_ATOMIC);
		if (!r) {
			ia_ml_flag(a->uid, IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
			goto out;
		}
		r->key = key;
		r->ctx = a->ctx;
		r->uid = a->uid;
		r->consumer = IA_CONS_URING_BUFFERS;
		r->pid = get_pid(task_tgid(current));
		hash_add(ia_ml_recs, &r->hnode, (unsigned long)key);
		hash_add(ia_ml_by_ctx, &r->cnode, (unsigned long)r->ctx);
	}
	r->pages += a->pages;
	if (u)
		u->pages[r->consumer] += a->pages;
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* Per buffer: io_buffer_unmap(ctx, slot) releases *slot's charge. */
static void ia_ml_unmap(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	void **slot = (void **)a1;
	struct ia_ml_rec *r;
	unsigned long flags;
	void *imu;

	if (get_kernel_nofault(imu, slot) || !imu)
		return;
	spin_lock_irqsave(&ia_ml_lock, flags);
	r = ia_ml_rec_of(imu);
	if (r)
		ia_ml_release(r, r->pages);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* Per ring: io_unaccount_mem(user, mm, nr_pages) inside io_free_rsrc_node(ctx, ..). */
static void ia_ml_unacct(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct ia_ml_active *a;
	struct ia_ml_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	a = ia_ml_exiting ? NULL : ia_ml_active_of(current, IA_ACT_RELEASE);
	if (a) {
		r = ia_ml_rec_of(a->ctx);
		if (r)
			ia_ml_release(r, a2);
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/*
 * Per ring: io_sqe_buffers_unregister(ctx) returned 0: the ring's whole
 * buffer table is gone (unregister, or the ring's teardown), and with it
 * every charge of its buffers, whether or not the release of each was seen.
 */
static bool ia_ml_unreg_entry(void *data, const unsigned long *a, unsigned long caller)
{
	*(const void **)data = (const void *)a[0];
	return READ_ONCE(ia_ml_attrib);
}

static void ia_ml_unreg_ret(void *data, unsigned long rv)
{
	const void *ctx = *(const void **)data;
	struct ia_ml_rec *r;
	unsigned long flags;

	if ((int)rv)
		return;
	spin_lock_irqsave(&ia_ml_lock, flags);
	r = ia_ml_rec_of(ctx);
	if (r)
		ia_ml_release(r, r->pages);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* io_uring_release(inode, file): the ring's records wait for deferred release. */
static void ia_ml_ring_release(unsigned long a0, unsigned long a1, unsigned long a2,
			       unsigned long a3)
{
	struct file *file = (struct file *)a1;
	struct ia_ml_rec *r;
	unsigned long flags;
	void *ctx;

	if (get_kernel_nofault(ctx, &file->private_data))
		return;
	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each_possible(ia_ml_by_ctx, r, cnode, (unsigned long)ctx)
		if (r->ctx == ctx)
			r->closed = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* io_register_clone_buffers: buffers now shared by two rings. */
static bool ia_ml_clone_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return READ_ONCE(ia_ml_attrib);
}

static void ia_ml_clone_ret(void *data, unsigned long rv)
{
	unsigned long flags;

	if ((int)rv)
		return;
	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_flag(current_uid(), IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

IA_ML_RHOOK(charge, "__io_account_mem", ia_ml_charge_entry, ia_ml_charge_ret,
	    IA_ML_MAXACTIVE);
IA_ML_RHOOK(charge_outer, "io_account_mem", ia_ml_charge_outer_entry,
	    ia_ml_charge_ret, IA_ML_MAXACTIVE);
IA_ML_RHOOK(reg, "io_sqe_buffer_register", ia_ml_reg_entry, ia_ml_reg_ret,
	    IA_ML_MAXACTIVE);
IA_ML_RHOOK(free_node, "io_free_rsrc_node", ia_ml_free_node_entry,
	    ia_ml_free_node_ret, IA_ML_MAXACTIVE);
IA_ML_RHOOK(unreg, "io_sqe_buffers_unregister", ia_ml_unreg_entry, ia_ml_unreg_ret,
	    IA_ML_MAXACTIVE);
IA_ML_RHOOK(clone, "io_register_clone_buffers", ia_ml_clone_entry, ia_ml_clone_ret, 64);
IA_ML_EHOOK(unmap, "io_buffer_unmap", ia_ml_unmap);
IA_ML_EHOOK(unacct, "io_unaccount_mem", ia_ml_unacct);
IA_ML_EHOOK(ring_release, "io_uring_release", ia_ml_ring_release);

/*
 * AF_XDP umems: xdp_umem_create(mr) charges umem->npgs to umem->user (NULL
 * with CAP_IPC_LOCK: no charge) or fails with ENOBUFS past RLIMIT_MEMLOCK;
 * the charge goes when the last reference does: xdp_put_umem(umem, false)
 * with one user left, or the deferred work xdp_umem_release_deferred(work).
 * struct xdp_umem is in include/net/xdp_sock.h, so the fields are read at
 * the offsets of the kernel this module is built for.
 */
#if IS_ENABLED(CONFIG_XDP_SOCKETS)
static bool ia_ml_xdp_create_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct xdp_umem_reg *mr = (struct xdp_umem_reg *)a[0];
	u64 len;

	/* mr is the kernel's copy of the request (xsk_setsockopt). */
	if (get_kernel_nofault(len, &mr->len))
		len = 0;
	*(u64 *)data = len >> PAGE_SHIFT;
	return true;
}

static void ia_ml_xdp_charged(struct xdp_umem *umem)
{
	struct user_struct *user = READ_ONCE(umem->user);
	u64 limit = task_rlimit(current, RLIMIT_MEMLOCK);
	struct ia_ml_user *u;
	struct ia_ml_rec *r;

	if (!user)
		return;		/* CAP_IPC_LOCK: nothing charged */
	u = ia_ml_user_get(user->uid);
	if (!u)
		return;
	u->charges++;
	r = ia_ml_rec_of(umem);
	if (r) {
		/* A umem at the address of one we never saw released. */
		ia_ml_release(r, r->pages);
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
	}
	r = kzalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
		return;
	}
	r->key = umem;
	r->uid = user->uid;
	r->consumer = IA_CONS_XDP_UMEM;
	r->pages = umem->npgs;
	r->pid = get_pid(task_tgid(current));
	hash_add(ia_ml_recs, &r->hnode, (unsigned long)umem);
	hash_add(ia_ml_by_ctx, &r->cnode, (unsigned long)r->ctx);
	u->pages[IA_CONS_XDP_UMEM] += r->pages;
	ia_ml_thresholds(u, IA_CONS_XDP_UMEM, r->pages, atomic_long_read(&user->locked_vm),
			 limit);
}

static void ia_ml_xdp_create_ret(void *data, unsigned long rv)
{
	void *ret = (void *)rv;
	u64 pages = *(u64 *)data;
	struct ia_ml_user *u;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	if (ia_ml_exiting)
		goto out;
	if (!IS_ERR_OR_NULL(ret)) {
		ia_ml_xdp_charged(ret);
	} else if (PTR_ERR(ret) == -ENOBUFS) {
		/* The memlock check refused: charged to the current user. */
		u = ia_ml_user_get(current_uid());
		if (u)
			ia_ml_refused(u, IA_CONS_XDP_UMEM, pages,
				      atomic_long_read(&current_user()->locked_vm),
				      task_rlimit(current, RLIMIT_MEMLOCK), ENOBUFS);
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

static void ia_ml_xdp_release(struct xdp_umem *umem)
{
	struct ia_ml_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	r = ia_ml_rec_of(umem);
	if (r)
		ia_ml_release(r, r->pages);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* xdp_put_umem(umem, defer_cleanup): the last reference, released now. */
static void ia_ml_xdp_put(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct xdp_umem *umem = (struct xdp_umem *)a0;
	bool defer = a1 & 0xff;		/* a bool argument */

	if (umem && !defer && refcount_read(&umem->users) == 1)
		ia_ml_xdp_release(umem);
}

/* xdp_umem_release_deferred(work): the last reference, released in a work item. */
static void ia_ml_xdp_deferred(unsigned long a0, unsigned long a1, unsigned long a2,
			       unsigned long a3)
{
	struct work_struct *work = (struct work_struct *)a0;

	ia_ml_xdp_release(container_of(work, struct xdp_umem, work));
}

IA_ML_RHOOK(xdp_create, "xdp_umem_create", ia_ml_xdp_create_entry,
	    ia_ml_xdp_create_ret, 64);
IA_ML_EHOOK(xdp_put, "xdp_put_umem", ia_ml_xdp_put);
IA_ML_EHOOK(xdp_deferred, "xdp_umem_release_deferred", ia_ml_xdp_deferred);
#define IA_ML_XDP 1
#else
#define IA_ML_XDP 0
#endif

/* --- registration ---------------------------------------------------------------- */

static struct ia_ml_ehook *const ia_ml_ehooks[] = {
	&ia_ml_e_unmap, &ia_ml_e_unacct, &ia_ml_e_ring_release,
#if IA_ML_XDP
	&ia_ml_e_xdp_put, &ia_ml_e_xdp_deferred,
#endif
};

static struct ia_fentry ia_ml_fentries[ARRAY_SIZE(ia_ml_ehooks)];
static struct ia_fentry_set ia_ml_fset = { .e = ia_ml_fentries };

/* Return hooks registered, in order; unregistered in reverse on exit. */
static struct ia_ml_rhook *ia_ml_rhooks_on[8];
static unsigned int ia_ml_nrhooks;
static unsigned int ia_ml_nkretprobes;	/* of those, kretprobes */
static char ia_ml_fallback[24];		/* why the first one is not wrapped */

/*
 * The entry hooks marked want: one ftrace_ops, or kprobes one by one. Each
 * one that took is marked on.
 */
static void ia_ml_ehooks_register(void)
{
	char why[96] = "";
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ia_ml_ehooks); i++) {
		struct ia_ml_ehook *e = ia_ml_ehooks[i];

		if (!e->want)
			continue;
		ia_ml_fentries[n].sym = e->sym;
		ia_ml_fentries[n].fn = e->fn;
		n++;
	}
	if (!n)
		return;
	ia_ml_fset.n = n;
	if (ia_hooks_ftrace() && !ia_fentry_register(&ia_ml_fset, why, sizeof(why))) {
		for (i = 0; i < ARRAY_SIZE(ia_ml_ehooks); i++)
			ia_ml_ehooks[i]->on = ia_ml_ehooks[i]->want;
		return;
	}
	if (why[0])
		pr_info("io_uring/xdp entry hooks: %s: using kprobes\n", why);
	for (i = 0; i < ARRAY_SIZE(ia_ml_ehooks); i++) {
		struct ia_ml_ehook *e = ia_ml_ehooks[i];

		if (!e->want)
			continue;
		e->kp.symbol_name = e->sym;
		e->on = !register_kprobe(&e->kp);
	}
}

static void ia_ml_ehooks_unregister(void)
{
	unsigned int i;

	ia_fentry_unregister(&ia_ml_fset);
	for (i = 0; i < ARRAY_SIZE(ia_ml_ehooks); i++) {
		struct ia_ml_ehook *e = ia_ml_ehooks[i];

		if (e->on && e->kp.addr)
			unregister_kprobe(&e->kp);
		e->on = false;
	}
}

/* Wrapped where it can be, else a kretprobe; 0 or -errno. */
static int ia_ml_rhook_register(struct ia_ml_rhook *h)
{
	char why[96] = "";
	int ret;

	BUILD_BUG_ON(sizeof(struct ia_ml_charge) > IA_ML_DATA_WORDS * 8);
	BUILD_BUG_ON(sizeof(struct ia_ml_active) > IA_ML_DATA_WORDS * 8);
	if (WARN_ON(ia_ml_nrhooks >= ARRAY_SIZE(ia_ml_rhooks_on)))
		return -ENOSPC;
	h->wrap.sym = h->sym;
	h->krp.kp.symbol_name = h->sym;
	ret = ia_hooks_ftrace() ? ia_wrap_register(&h->wrap, why, sizeof(why)) : -EPERM;
	if (!ret) {
		h->wrapped = true;
	} else {
		int wret = ret;

		ret = register_kretprobe(&h->krp);
		if (ret)
			return ret;
		h->probed = true;
		if (why[0])
			pr_info("%s\n", why);
		/* Short: it ends a feature detail. */
		if (!ia_ml_nkretprobes++)
			snprintf(ia_ml_fallback, sizeof(ia_ml_fallback), "%s",
				 !ia_hooks_ftrace() ? "hooks=kprobes" :
				 wret == -EPERM ? "IBT, no ENDBR" : "ftrace refused");
	}
	ia_ml_rhooks_on[ia_ml_nrhooks++] = h;
	return 0;
}

static void ia_ml_rhook_unregister(struct ia_ml_rhook *h)
{
	if (h->wrapped)
		ia_wrap_unregister(&h->wrap);	/* waits for calls inside it */
	if (h->probed) {
		unregister_kretprobe(&h->krp);
		ia_ml_nkretprobes--;
	}
	h->wrapped = false;
	h->probed = false;
}

/*
 * With no hook left, no handler runs: the actives of calls still in flight
 * (their return handlers will not run) are forgotten.
 */
static void ia_ml_unregister(void)
{
	struct ia_wrap *wraps[ARRAY_SIZE(ia_ml_rhooks_on)];
	unsigned int i, nw = 0;
	unsigned long flags;

	/* The wrapped ones together: their grace periods are shared. */
	for (i = 0; i < ia_ml_nrhooks; i++)
		if (ia_ml_rhooks_on[i]->wrapped)
			wraps[nw++] = &ia_ml_rhooks_on[i]->wrap;
	ia_wrap_unregister_many(wraps, nw);
	while (ia_ml_nrhooks)
		ia_ml_rhook_unregister(ia_ml_rhooks_on[--ia_ml_nrhooks]);
	ia_ml_ehooks_unregister();
	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_init(ia_ml_actives);
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

static bool ia_ml_have(const char *name)
{
	return ia_kallsyms_lookup_name(name) != 0;
}

/* __io_account_mem, and io_account_mem where it exists; @what names them. */
static int ia_ml_add_charge_hooks(const char **what)
{
	int ret;

	*what = "__io_account_mem";
	ret = ia_ml_rhook_register(&ia_ml_h_charge);
	if (ret || !ia_ml_have("io_account_mem"))
		return ret;
	*what = "__io_account_mem, io_account_mem";
	return ia_ml_rhook_register(&ia_ml_h_charge_outer);
}

/* "; hooks: ftrace", or which part is kretprobes and why. */
static void ia_ml_mechanism(char *buf, size_t len)
{
	if (!ia_ml_nkretprobes)
		snprintf(buf, len, "; hooks: ftrace");
	else if (ia_ml_nkretprobes == ia_ml_nrhooks)
		snprintf(buf, len, "; hooks: kretprobes (%s)", ia_ml_fallback);
	else
		snprintf(buf, len, "; hooks: ftrace, %u kretprobes (%s)", ia_ml_nkretprobes,
			 ia_ml_fallback);
}

/*
 * @release: the release hook of this kernel took (entry hooks are
 * registered first: a record is never made without its release).
 */
static void ia_ml_uring_init(const char *release, bool closes)
{
	const char *charge;
	char mech[64];
	int ret;

	ret = ia_ml_add_charge_hooks(&charge);
	if (ret) {
		ia_feature_set(IA_FEAT_MEMLOCK_URING, false,
			       "hook on %s failed (%d): io_uring charges not seen", charge, ret);
		return;
	}
	if (release) {
		ret = ia_ml_rhook_register(&ia_ml_h_reg);
		if (!ret && ia_ml_per_ring)
			ret = ia_ml_rhook_register(&ia_ml_h_free_node);
		if (!ret && ia_ml_per_ring)
			ret = ia_ml_rhook_register(&ia_ml_h_unreg);
		if (ret)
			release = NULL;	/* charges and events without attribution */
	}
	/* Optional: clone detection. */
	if (release && ia_ml_have("io_register_clone_buffers"))
		ia_ml_rhook_register(&ia_ml_h_clone);
	WRITE_ONCE(ia_ml_attrib, !!release);
	WRITE_ONCE(ia_ml_uring_on, true);
	ia_ml_mechanism(mech, sizeof(mech));
	ia_feature_set(IA_FEAT_MEMLOCK_URING, true,
		       "charges: %s; registered buffers released %s%s%s", charge,
		       release ? release : "(not hooked: buffers are in unattributed)",
		       closes ? "; ring close: io_uring_release" :
		       "; io_uring_release not hooked: closed rings not marked pending",
		       mech);
}

static void ia_ml_xdp_init(void)
{
#if IA_ML_XDP
	int ret;

	if (!ia_ml_e_xdp_put.on || !ia_ml_e_xdp_deferred.on) {
		/* The one that did register stays until exit: it finds no record. */
		ia_feature_set(IA_FEAT_MEMLOCK_XDP, false,
			       "hooks on xdp_put_umem, xdp_umem_release_deferred failed: umems are in unattributed");
		return;
	}
	ret = ia_ml_rhook_register(&ia_ml_h_xdp_create);
	if (ret) {
		ia_feature_set(IA_FEAT_MEMLOCK_XDP, false,
			       "hook on xdp_umem_create failed (%d): umems are in unattributed",
			       ret);
		return;
	}
	ia_feature_set(IA_FEAT_MEMLOCK_XDP, true,
		       "charges: xdp_umem_create (%s); released: xdp_put_umem, xdp_umem_release_deferred (%s)",
		       ia_ml_h_xdp_create.wrapped ? "wrapped" : "kretprobe",
		       ia_ml_fset.registered ? "ftrace" : "kprobes");
#else
	ia_feature_set(IA_FEAT_MEMLOCK_XDP, false, "CONFIG_XDP_SOCKETS is not set in this kernel");
#endif
}

int ia_memlock_init(void)
{
	const char *release = NULL;
	const char *why = ia_kallsyms_unavailable();
	unsigned int i;

	if (why) {
		ia_feature_set(IA_FEAT_MEMLOCK_URING, false, "%s", why);
		ia_feature_set(IA_FEAT_MEMLOCK_XDP, false, "%s", why);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(ia_ml_sites); i++) {
		unsigned long a = ia_kallsyms_lookup_name(ia_ml_sites[i].name);

		if (a) {
			ia_ml_sites[i].start = a;
			ia_ml_sites[i].end = a + ia_kallsyms_symbol_size(a, ia_ml_sites[i].name);
		}
	}
	/* How buffers are released on this kernel, by what it has. */
	if (!ia_ml_have("io_buffer_unmap") && ia_ml_have("io_free_rsrc_node") &&
	    ia_ml_have("io_unaccount_mem")) {
		ia_ml_per_ring = true;
		ia_ml_e_unacct.want = true;
	} else if (ia_ml_have("io_buffer_unmap")) {
		ia_ml_per_ring = false;
		ia_ml_e_unmap.want = true;
	}
	ia_ml_e_ring_release.want = ia_ml_have("io_uring_release");
#if IA_ML_XDP
	ia_ml_e_xdp_put.want = true;
	ia_ml_e_xdp_deferred.want = true;
#endif
	/* Releases first: a record is never made without its release hooked. */
	ia_ml_ehooks_register();
	if (ia_ml_e_unacct.on)
		release = "per ring: io_unaccount_mem, io_sqe_buffers_unregister";
	else if (ia_ml_e_unmap.on)
		release = "per buffer: io_buffer_unmap";
	ia_ml_uring_init(release, ia_ml_e_ring_release.on);
	ia_ml_xdp_init();
	return 0;
}

void ia_memlock_exit(void)
{
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_exiting = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	ia_ml_unregister();
	cancel_delayed_work_sync(&ia_ml_flush_work);
	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each_safe(ia_ml_recs, bkt, tmp, r, hnode)
		ia_ml_rec_del(r);
	hash_for_each_safe(ia_ml_users, bkt, tmp, u, hnode) {
		hash_del(&u->hnode);
		kfree(u->last_cgpath);
		kfree(u);
	}
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* Calls not seen: kretprobe instances that ran out (wraps and entry hooks miss none). */
u64 ia_memlock_probes_missed(void)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < ia_ml_nrhooks; i++)
		if (ia_ml_rhooks_on[i]->probed)
			n += READ_ONCE(ia_ml_rhooks_on[i]->krp.nmissed);
	for (i = 0; i < ARRAY_SIZE(ia_ml_ehooks); i++)
		if (ia_ml_ehooks[i]->on && !ia_ml_fset.registered)
			n += READ_ONCE(ia_ml_ehooks[i]->kp.nmissed);
	return n;
}

/* --- snapshots ---------------------------------------------------------------- */

static bool ia_ml_rec_pending(const struct ia_ml_rec *r)
{
	bool gone;

	if (r->closed)
		return true;
	rcu_read_lock();
	gone = !pid_task(r->pid, PIDTYPE_TGID);
	rcu_read_unlock();
	return gone;
}

static int ia_ml_uid_cmp(const void *a, const void *b)
{
	u32 x = __kuid_val(((const struct ia_memlock_uid *)a)->uid);
	u32 y = __kuid_val(((const struct ia_memlock_uid *)b)->uid);

	return x < y ? -1 : x > y;
}

static unsigned int ia_ml_uids_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_uids *s = buf;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	unsigned long flags;
	unsigned int bkt, n = 0, i;

	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each(ia_ml_users, bkt, u, hnode)
		n++;
	if (n > cap)
		goto out;
	n = 0;
	hash_for_each(ia_ml_users, bkt, u, hnode) {
		struct ia_memlock_uid *o = &s->u[n++];

		o->uid = u->uid;
		memcpy(o->pages, u->pages, sizeof(o->pages));
		o->charges = u->charges;
		o->refusals = u->refusals;
		o->inexact = u->inexact;
		o->has_last = u->has_last;
		o->last = u->last;
		if (u->last_cgpath)
			strscpy(o->last_cgpath, u->last_cgpath, sizeof(o->last_cgpath));
		else
			o->last_cgpath[0] = 0;
	}
	hash_for_each(ia_ml_recs, bkt, r, hnode) {
		if (!ia_ml_rec_pending(r))
			continue;
		for (i = 0; i < n; i++)
			if (uid_eq(s->u[i].uid, r->uid))
				s->u[i].pending_pages += r->pages;
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return n;
}

struct ia_memlock_uids *ia_memlock_uids(void)
{
	struct ia_memlock_uids *s;
	unsigned int n;

	s = ia_snapshot_take(offsetof(struct ia_memlock_uids, u), sizeof(s->u[0]), 16,
			     ia_ml_uids_fill, NULL, &n);
	if (IS_ERR(s))
		return s;
	s->nr = n;
	s->probe_missed = ia_memlock_probes_missed() != 0;
	sort(s->u, n, sizeof(s->u[0]), ia_ml_uid_cmp, NULL);
	return s;
}

const struct ia_memlock_uid *ia_memlock_uid_find(const struct ia_memlock_uids *s, kuid_t uid)
{
	unsigned int lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (uid_eq(s->u[mid].uid, uid))
			return &s->u[mid];
		if (__kuid_val(s->u[mid].uid) < __kuid_val(uid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int ia_ml_proc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ia_memlock_proc *)a)->pid;
	pid_t y = ((const struct ia_memlock_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

static unsigned int ia_ml_procs_fill(void *buf, unsigned int cap, void *arg)
{
	struct ia_memlock_procs *s = buf;
	struct ia_ml_rec *r, *q;
	unsigned long flags;
	unsigned int bkt, bkt2, n = 0, i;

	spin_lock_irqsave(&ia_ml_lock, flags);
	hash_for_each(ia_ml_recs, bkt, r, hnode)
		n++;
	if (n > cap)
		goto out;
	n = 0;
	hash_for_each(ia_ml_recs, bkt, r, hnode) {
		pid_t pid = pid_nr(r->pid);
		bool first_ring = true;

		for (i = 0; i < n && s->p[i].pid != pid; i++)
			;
		if (i == n) {
			s->p[n].pid = pid;
			n++;
		}
		s->p[i].pages[r->consumer] += r->pages;
		if (r->consumer != IA_CONS_URING_BUFFERS)
			continue;
		/* Count each ring once per process. */
		hash_for_each(ia_ml_recs, bkt2, q, hnode) {
			if (q == r)
				break;
			if (q->consumer == IA_CONS_URING_BUFFERS && q->ctx == r->ctx &&
			    q->pid == r->pid)
				first_ring = false;
		}
		s->p[i].rings += first_ring;
	}
out:
	spin_unlock_irqrestore(&ia_ml_lock, flags);
	return n;
}

/* What each live charging process holds: pages by consumer, rings. */
struct ia_memlock_procs *ia_memlock_procs(void)
{
	struct ia_memlock_procs *s;
	unsigned int n;

	s = ia_snapshot_take(offsetof(struct ia_memlock_procs, p), sizeof(s->p[0]), 16,
			     ia_ml_procs_fill, NULL, &n);
	if (IS_ERR(s))
		return s;
	s->nr = n;
	sort(s->p, n, sizeof(s->p[0]), ia_ml_proc_cmp, NULL);
	return s;
}

const struct ia_memlock_proc *ia_memlock_proc_find(const struct ia_memlock_procs *s, pid_t pid)
{
	unsigned int lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (s->p[mid].pid == pid)
			return &s->p[mid];
		if (s->p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ia_memlock_thresholds_get(struct ia_thresholds *t, u32 *margin)
{
	unsigned long flags;

	spin_lock_irqsave(&ia_ml_lock, flags);
	*t = ia_ml_thr;
	*margin = ia_ml_margin;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}

/* New lines: every level re-arms; the next charge raises what it reaches. */
void ia_memlock_thresholds_set(const struct ia_thresholds *t, u32 margin)
{
	struct ia_ml_user *u;
	unsigned long flags;
	unsigned int bkt;
	int l;

	spin_lock_irqsave(&ia_ml_lock, flags);
	ia_ml_thr = *t;
	ia_ml_margin = margin;
	hash_for_each(ia_ml_users, bkt, u, hnode)
		for (l = 0; l < IA_LEVEL_COUNT; l++)
			u->armed[l] = true;
	spin_unlock_irqrestore(&ia_ml_lock, flags);
}
