// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring consumers of the per-uid pot: its charges and their results,
 * the registered buffers and rings that hold them, and their releases (see
 * memlock.c for what is followed on which kernel). Hooks declared here,
 * placed by wrapper/hook.c: under enforced IBT, 6.12 and 7.3 seal the ENDBR
 * of every io_uring function hooked here, so on such CPUs the return hooks
 * are kretprobes, not wrapped.
 *
 * Locking: memlock.h; the calls in flight are the hook set's (wrapper/hook.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "memlock.h"
#include "source.h"
#include "wrapper/kallsyms.h"

/* Concurrent registrations/charges in flight (each sleeps while pinning). */
#define IA_ML_MAXACTIVE 1024

enum ia_ml_act {
	IA_ACT_REGISTER,		/* io_sqe_buffer_register */
	IA_ACT_RELEASE,			/* io_free_rsrc_node */
	IA_ACT_CHARGE,			/* io_account_mem, around __io_account_mem */
};

/* A registration, release or charge in progress on a task (nested probes find it). */
struct ia_ml_active {
	struct ia_call call;		/* in ia_ml_calls; kind: enum ia_ml_act */
	const void *ctx;
	void **pimu;			/* per-buffer mode: where the kernel stores it */
	kuid_t uid;
	struct ia_ml_user *u;		/* @uid's ledger entry, found by the charge */
	u64 pages;			/* charged inside this call */
};

static struct ia_calls ia_ml_calls;
static bool ia_ml_per_ring;		/* release mode, decided at init */
/*
 * Set once at init, after every hook they need took: until then (or for
 * good, when one failed) the hooks that did take do nothing. Hooks are only
 * unregistered at exit, with the protocol in memlock.h.
 */
static struct ia_hook_set ia_ml_uring_hooks;
/* Its records are plain ones. */
static const struct ia_ml_rec_ops ia_ml_uring_recs = { .hooks = &ia_ml_uring_hooks };
static bool ia_ml_uring_on;		/* io_uring charges followed */
static bool ia_ml_attrib;		/* registered buffers attributed */
static bool ia_ml_outer_on;		/* io_account_mem hooked (7.x) */

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

/* The current task's call of @kind in flight, or NULL. */
static struct ia_ml_active *ia_ml_active_of(enum ia_ml_act kind)
{
	struct ia_call *c = ia_call_find(&ia_ml_calls, kind);

	return c ? container_of(c, struct ia_ml_active, call) : NULL;
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
	c->user = (struct user_struct *)a[0];
	c->pages = a[pages_arg];
	c->caller = caller;
	c->outer = outer;
	if (!c->user || !c->pages || !READ_ONCE(ia_ml_uring_on))
		return false;	/* nothing is charged, or not followed */
	/* No outer hook: no call of it to look for (the return checks exiting). */
	if (!outer && !READ_ONCE(ia_ml_outer_on))
		return true;
	/* Inside io_account_mem: that hook counts this charge. */
	if (!outer)
		return !ia_ml_active_of(IA_ACT_CHARGE) && !READ_ONCE(ia_ml_exiting);
	return ia_call_add(&ia_ml_calls, &c->act.call, IA_ACT_CHARGE);
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
	kuid_t uid = c->user->uid;
	struct ia_ml_active *a;
	struct ia_ml_user *u;
	unsigned long flags;

	if (c->outer)
		ia_call_del(&ia_ml_calls, &c->act.call);
	a = ia_ml_active_of(IA_ACT_REGISTER);
	consumer = a ? IA_CONS_URING_BUFFERS : ia_ml_site_of(c->caller);
	ia_ml_lock_uid(uid, flags);
	if (ia_ml_exiting)
		goto out;
	u = ia_ml_user_get(uid);
	if (!u)
		goto out;
	if (ret) {
		ia_ml_refused(u, consumer, c->pages, pot, limit, ENOMEM);
		goto out;
	}
	u->charges++;
	if (a) {
		/* The registration's own, on this task: no lock needed. */
		a->pages += c->pages;
		a->uid = uid;
		a->u = u;
	}
	ia_ml_thresholds(u, consumer, c->pages, pot, limit);
out:
	ia_ml_unlock_uid(uid, flags);
}

/* --- registrations and releases ------------------------------------------------- */

/* io_sqe_buffer_register(ctx, iov, [pimu, last_hpage]) and io_free_rsrc_node(ctx, node). */
static bool ia_ml_scope_entry(struct ia_ml_active *a, const unsigned long *args, bool release)
{
	if (!READ_ONCE(ia_ml_attrib))
		return false;
	memset(a, 0, sizeof(*a));
	a->ctx = (const void *)args[0];
	if (!release && !ia_ml_per_ring)
		a->pimu = (void **)args[2];
	return ia_call_add(&ia_ml_calls, &a->call, release ? IA_ACT_RELEASE : IA_ACT_REGISTER);
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

	ia_call_del(&ia_ml_calls, &a->call);
}

static void ia_ml_reg_ret(void *data, unsigned long rv)
{
	struct ia_ml_active *a = data;
	struct ia_ml_user *u;
	struct ia_ml_rec *r;
	bool ok, other = false;
	unsigned long flags;
	void *key = NULL;

	/* Per buffer: int, 0 on success; per ring: a node or an ERR_PTR/NULL. */
	ok = ia_ml_per_ring ? !IS_ERR_OR_NULL((void *)rv) : !(int)rv;
	if (ok && a->pages && !ia_ml_per_ring &&
	    get_kernel_nofault(key, a->pimu))
		key = NULL;
	if (ok && a->pages && ia_ml_per_ring)
		key = (void *)a->ctx;

	ia_call_del(&ia_ml_calls, &a->call);
	if (!a->pages)
		return;
	if (!key) {
		/* Charged but not kept (or not found): we cannot follow it. */
		ia_ml_flag(a->uid, IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY);
		return;
	}
	ia_ml_lock_uid(a->uid, flags);
	if (ia_ml_exiting)
		goto out;
	u = a->u;	/* set with a->pages, on this task */
	r = ia_ml_rec_of(u, key, &ia_ml_uring_recs, &other);
	if (r && (!ia_ml_per_ring || ia_ml_rec_closed(r))) {
		/* A buffer (or ring) at the address of one we never saw released. */
		ia_ml_release(r, r->pages);
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
		r = NULL;
	}
	if (!r) {
		r = ia_ml_rec_new(u, key, a->ctx, IA_CONS_URING_BUFFERS, &ia_ml_uring_recs);
		if (!r) {
			u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
			goto out;
		}
	}
	ia_ml_charged(r, u, a->pages);
out:
	ia_ml_unlock_uid(a->uid, flags);
	if (other)
		ia_ml_release_other(key, &ia_ml_uring_recs, a->uid);
}

/* Per buffer: io_buffer_unmap(ctx, slot) releases *slot's charge. */
static void ia_ml_unmap(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	void **slot = (void **)a1;
	void *imu;

	if (!get_kernel_nofault(imu, slot) && imu)
		ia_ml_release_key(imu, &ia_ml_uring_recs);
}

/* Per ring: io_unaccount_mem(user, mm, nr_pages) inside io_free_rsrc_node(ctx, ..). */
static void ia_ml_unacct(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	struct ia_ml_active *a = ia_ml_active_of(IA_ACT_RELEASE);

	if (a)
		ia_ml_release_key_pages(a->ctx, &ia_ml_uring_recs, a2);
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

	if (!(int)rv)
		ia_ml_release_key(ctx, &ia_ml_uring_recs);
}

/* io_uring_release(inode, file): the ring's records wait for deferred release. */
static void ia_ml_ring_release(unsigned long a0, unsigned long a1, unsigned long a2,
			       unsigned long a3)
{
	struct file *file = (struct file *)a1;
	void *ctx;

	if (get_kernel_nofault(ctx, &file->private_data))
		return;
	ia_ml_ring_closed(ctx);
}

/* io_register_clone_buffers: buffers now shared by two rings. */
static bool ia_ml_clone_entry(void *data, const unsigned long *a, unsigned long caller)
{
	return READ_ONCE(ia_ml_attrib);
}

static void ia_ml_clone_ret(void *data, unsigned long rv)
{
	if (!(int)rv)
		ia_ml_flag(current_uid(), IOMMU_ACCOUNT_UID_INEXACT_SHARED_BUFFERS);
}

/* --- the hooks ---------------------------------------------------------------- */

IA_HOOK_RETURN(ia_ml_charge, "__io_account_mem", struct ia_ml_charge,
	       ia_ml_charge_entry, ia_ml_charge_ret, IA_ML_MAXACTIVE);
IA_HOOK_RETURN(ia_ml_charge_outer, "io_account_mem", struct ia_ml_charge,
	       ia_ml_charge_outer_entry, ia_ml_charge_ret, IA_ML_MAXACTIVE);
IA_HOOK_RETURN(ia_ml_reg, "io_sqe_buffer_register", struct ia_ml_active,
	       ia_ml_reg_entry, ia_ml_reg_ret, IA_ML_MAXACTIVE);
IA_HOOK_RETURN(ia_ml_free_node, "io_free_rsrc_node", struct ia_ml_active,
	       ia_ml_free_node_entry, ia_ml_free_node_ret, IA_ML_MAXACTIVE);
IA_HOOK_RETURN(ia_ml_unreg, "io_sqe_buffers_unregister", const void *,
	       ia_ml_unreg_entry, ia_ml_unreg_ret, IA_ML_MAXACTIVE);
IA_HOOK_RETURN(ia_ml_clone, "io_register_clone_buffers", u8,
	       ia_ml_clone_entry, ia_ml_clone_ret, 64);
IA_HOOK_ENTRY(ia_ml_unmap, "io_buffer_unmap", ia_ml_unmap);
IA_HOOK_ENTRY(ia_ml_unacct, "io_unaccount_mem", ia_ml_unacct);
IA_HOOK_ENTRY(ia_ml_ring_release, "io_uring_release", ia_ml_ring_release);

static struct ia_hook *ia_ml_uring_list[] = {
	&ia_ml_unmap_hook, &ia_ml_unacct_hook, &ia_ml_ring_release_hook,
	&ia_ml_charge_hook, &ia_ml_charge_outer_hook, &ia_ml_reg_hook, &ia_ml_free_node_hook,
	&ia_ml_unreg_hook, &ia_ml_clone_hook,
};

static struct ia_hook_set ia_ml_uring_hooks = {
	.name = "io_uring",
	.hooks = ia_ml_uring_list,
	.n = ARRAY_SIZE(ia_ml_uring_list),
	.calls = &ia_ml_calls,
};

static bool ia_ml_have(const char *name)
{
	return ia_kallsyms_lookup_name(name) != 0;
}

/* Choose the hooks this kernel needs (before registration). */
static int ia_ml_uring_init(const struct ia_source *self)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ia_ml_sites); i++) {
		unsigned long a = ia_kallsyms_lookup_name(ia_ml_sites[i].name);

		if (a) {
			ia_ml_sites[i].start = a;
			ia_ml_sites[i].end = a + ia_kallsyms_symbol_size(a, ia_ml_sites[i].name);
		}
	}
	/* How buffers are released on this kernel, by what it has. */
	ia_ml_per_ring = !ia_ml_have("io_buffer_unmap") && ia_ml_have("io_free_rsrc_node") &&
			 ia_ml_have("io_unaccount_mem");
	ia_ml_unacct_hook.want = ia_ml_per_ring;
	ia_ml_free_node_hook.want = ia_ml_per_ring;
	ia_ml_unreg_hook.want = ia_ml_per_ring;
	ia_ml_unmap_hook.want = !ia_ml_per_ring && ia_ml_have("io_buffer_unmap");
	ia_ml_ring_release_hook.want = ia_ml_have("io_uring_release");
	/* 7.x inlines __io_account_mem into it for registered buffers. */
	ia_ml_charge_outer_hook.want = ia_ml_have("io_account_mem");
	ia_ml_clone_hook.want = ia_ml_have("io_register_clone_buffers");
	ia_ml_charge_hook.required = true;
	return 0;
}

/* After registration: switch on what took, and say so in its feature. */
static void ia_ml_uring_start(void)
{
	struct ia_hook_set *s = &ia_ml_uring_hooks;
	const char *release = NULL;
	char mech[160];
	bool attrib;

	if (!ia_hook_on(&ia_ml_charge_hook) ||
	    (ia_ml_charge_outer_hook.want && !ia_hook_on(&ia_ml_charge_outer_hook))) {
		WRITE_ONCE(ia_ml_uring_on, false);
		WRITE_ONCE(ia_ml_attrib, false);
		ia_feature_set(IA_FEAT_MEMLOCK_URING, false, "%s: io_uring charges not seen",
			       s->why[0] ? s->why : "hook on io_account_mem failed");
		return;
	}
	if (ia_hook_on(&ia_ml_unacct_hook))
		release = "per ring: io_unaccount_mem, io_sqe_buffers_unregister";
	else if (ia_hook_on(&ia_ml_unmap_hook))
		release = "per buffer: io_buffer_unmap";
	/* A record is never made without its release hooked. */
	attrib = release && ia_hook_on(&ia_ml_reg_hook) &&
		 (!ia_ml_per_ring || (ia_hook_on(&ia_ml_free_node_hook) &&
				      ia_hook_on(&ia_ml_unreg_hook)));
	WRITE_ONCE(ia_ml_attrib, attrib);
	WRITE_ONCE(ia_ml_outer_on, ia_hook_on(&ia_ml_charge_outer_hook));
	WRITE_ONCE(ia_ml_uring_on, true);
	ia_hook_set_describe(s, mech, sizeof(mech));
	ia_feature_set(IA_FEAT_MEMLOCK_URING, true,
		       "charges: %s; registered buffers released %s%s; hooks: %s",
		       ia_hook_on(&ia_ml_charge_outer_hook) ? "__io_account_mem, io_account_mem" :
		       "__io_account_mem",
		       attrib ? release : "(not hooked: buffers are in unattributed)",
		       ia_hook_on(&ia_ml_ring_release_hook) ? "; ring close: io_uring_release" :
		       "; io_uring_release not hooked: closed rings not marked pending",
		       mech);
}

/*
 * With no hook left, no handler runs: the calls still in flight
 * (their return handlers will not run) are forgotten.
 */
static void ia_ml_uring_exit(const struct ia_source *self)
{
	ia_calls_forget(&ia_ml_calls);
}

const struct ia_source ia_ml_uring_source = {
	.name = "io_uring",
	.init = ia_ml_uring_init,
	.exit = ia_ml_uring_exit,
	.feature = IA_FEAT_MEMLOCK_URING,
	.hooks = &ia_ml_uring_hooks,
	.start = ia_ml_uring_start,
};
