// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_XDP consumer of the per-uid pot: umems, their charges, refusals and
 * releases. Hooks declared here, placed by wrapper/hook.c; all three are
 * required (a umem is never recorded without its releases hooked).
 *
 * Locking: memlock.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <net/xdp_sock.h>

#include "memlock.h"
#include "source.h"

/*
 * AF_XDP umems: xdp_umem_create(mr) charges umem->npgs to umem->user (NULL
 * with CAP_IPC_LOCK: no charge) or fails with ENOBUFS past RLIMIT_MEMLOCK;
 * the charge goes when the last reference does: xdp_put_umem(umem, false)
 * with one user left, or the deferred work xdp_umem_release_deferred(work).
 * struct xdp_umem is in include/net/xdp_sock.h, so the fields are read at
 * the offsets of the kernel this module is built for.
 */
#if IS_ENABLED(CONFIG_XDP_SOCKETS)

/* Set once at init, when all three hooks took. */
static struct ia_hook_set ia_ml_xdp_hooks;
/* Its records are plain ones. */
static const struct ia_ml_rec_ops ia_ml_xdp_recs = { .hooks = &ia_ml_xdp_hooks };
static bool ia_ml_xdp_on;

static bool ia_ml_xdp_create_entry(void *data, const unsigned long *a, unsigned long caller)
{
	struct xdp_umem_reg *mr = (struct xdp_umem_reg *)a[0];
	u64 len;

	/* mr is the kernel's copy of the request (xsk_setsockopt). */
	if (get_kernel_nofault(len, &mr->len))
		len = 0;
	*(u64 *)data = len >> PAGE_SHIFT;
	return READ_ONCE(ia_ml_xdp_on);
}

/* Under @user's part. */
static void ia_ml_xdp_charged(struct xdp_umem *umem, struct user_struct *user)
{
	u64 limit = task_rlimit(current, RLIMIT_MEMLOCK);
	struct ia_ml_user *u;
	struct ia_ml_rec *r;

	u = ia_ml_user_get(user->uid);
	if (!u)
		return;
	u->charges++;
	r = ia_ml_rec_of(u, umem, &ia_ml_xdp_recs, NULL);
	if (r) {
		/* A umem at the address of one we never saw released. */
		ia_ml_release(r, r->pages);
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_PROBE_MISSED;
	}
	r = ia_ml_rec_new(u, umem, NULL, IA_CONS_XDP_UMEM, &ia_ml_xdp_recs);
	if (!r) {
		u->inexact |= IOMMU_ACCOUNT_UID_INEXACT_NO_MEMORY;
		return;
	}
	ia_ml_charged(r, u, umem->npgs);
	ia_ml_thresholds(u, IA_CONS_XDP_UMEM, r->pages, atomic_long_read(&user->locked_vm),
			 limit);
}

static void ia_ml_xdp_create_ret(void *data, unsigned long rv)
{
	struct xdp_umem *umem = (struct xdp_umem *)rv;
	struct user_struct *user;
	u64 pages = *(u64 *)data;
	struct ia_ml_user *u;
	unsigned long flags;
	kuid_t uid;

	if (!IS_ERR_OR_NULL(umem)) {
		user = READ_ONCE(umem->user);
		if (!user)
			return;		/* CAP_IPC_LOCK: nothing charged */
		ia_ml_release_other(umem, &ia_ml_xdp_recs, user->uid);
		ia_ml_lock_uid(user->uid, flags);
		if (!ia_ml_exiting)
			ia_ml_xdp_charged(umem, user);
		ia_ml_unlock_uid(user->uid, flags);
	} else if (PTR_ERR(umem) == -ENOBUFS) {
		/* The memlock check refused: charged to the current user. */
		uid = current_uid();
		ia_ml_lock_uid(uid, flags);
		u = ia_ml_exiting ? NULL : ia_ml_user_get(uid);
		if (u)
			ia_ml_refused(u, IA_CONS_XDP_UMEM, pages,
				      atomic_long_read(&current_user()->locked_vm),
				      task_rlimit(current, RLIMIT_MEMLOCK), ENOBUFS);
		ia_ml_unlock_uid(uid, flags);
	}
}

static void ia_ml_xdp_release(struct xdp_umem *umem)
{
	ia_ml_release_key(umem, &ia_ml_xdp_recs);
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

IA_HOOK_RETURN(ia_ml_xdp_create, "xdp_umem_create", u64, ia_ml_xdp_create_entry,
	       ia_ml_xdp_create_ret, 64);
IA_HOOK_ENTRY(ia_ml_xdp_put, "xdp_put_umem", ia_ml_xdp_put);
IA_HOOK_ENTRY(ia_ml_xdp_deferred, "xdp_umem_release_deferred", ia_ml_xdp_deferred);

static struct ia_hook *ia_ml_xdp_list[] = {
	&ia_ml_xdp_put_hook, &ia_ml_xdp_deferred_hook, &ia_ml_xdp_create_hook,
};

static struct ia_hook_set ia_ml_xdp_hooks = {
	.name = "xdp",
	.hooks = ia_ml_xdp_list,
	.n = ARRAY_SIZE(ia_ml_xdp_list),
};

static int ia_ml_xdp_init(const struct ia_source *self)
{
	ia_ml_xdp_put_hook.required = true;
	ia_ml_xdp_deferred_hook.required = true;
	ia_ml_xdp_create_hook.required = true;
	return 0;
}

static void ia_ml_xdp_start(void)
{
	char mech[160];

	if (!ia_hook_on(&ia_ml_xdp_put_hook) || !ia_hook_on(&ia_ml_xdp_deferred_hook) ||
	    !ia_hook_on(&ia_ml_xdp_create_hook)) {
		/* The ones that did register stay until exit, and do nothing. */
		WRITE_ONCE(ia_ml_xdp_on, false);
		ia_feature_set(IA_FEAT_MEMLOCK_XDP, false,
			       "%s: umems are in unattributed", ia_ml_xdp_hooks.why);
		return;
	}
	WRITE_ONCE(ia_ml_xdp_on, true);
	ia_hook_set_describe(&ia_ml_xdp_hooks, mech, sizeof(mech));
	ia_feature_set(IA_FEAT_MEMLOCK_XDP, true,
		       "charges: xdp_umem_create; released: xdp_put_umem, xdp_umem_release_deferred; hooks: %s",
		       mech);
}

#else

static struct ia_hook_set ia_ml_xdp_hooks = { .name = "xdp" };

static int ia_ml_xdp_init(const struct ia_source *self)
{
	return 0;
}

static void ia_ml_xdp_start(void)
{
	ia_feature_set(IA_FEAT_MEMLOCK_XDP, false, "CONFIG_XDP_SOCKETS is not set in this kernel");
}

#endif

const struct ia_source ia_ml_xdp_source = {
	.name = "xdp",
	.init = ia_ml_xdp_init,
	.feature = IA_FEAT_MEMLOCK_XDP,
	.hooks = &ia_ml_xdp_hooks,
	.start = ia_ml_xdp_start,
};
