// SPDX-License-Identifier: GPL-2.0
/*
 * Following vfio_iommu_type1: its hooks (declared in vfio.c) are registered
 * when it is loaded, at our load or later (a module notifier), and removed
 * when it goes, with every record of its containers. All of them or none:
 * a container followed without its release or its MAP_DMA would be wrong.
 *
 * Locking: ia_vfio_attach_mutex serialises registering and removing the
 * hooks; it is taken before ia_vfio_lock (vfio.c) and never under it.
 * ia_feature_set() is called under it. It is held across the removal's
 * waits for RCU Tasks (ours in ia_hook_drain, ftrace's in
 * unregister_ftrace_function), so no netlink request takes it: type1's
 * module pointer, which STATUS reads, is written under both locks and read
 * under ia_vfio_lock alone. (On PREEMPT_RT, with STATUS asked in a loop, an
 * rmmod of type1 took 3.5 s, and STATUS requests were seen asleep on this
 * mutex meanwhile.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include "compat.h"
#include "vfio.h"
#include "wrapper/kallsyms.h"

static DEFINE_MUTEX(ia_vfio_attach_mutex);
static bool ia_vfio_attached;
/* Written under ia_vfio_attach_mutex and ia_vfio_lock, read under either. */
static struct module *ia_vfio_type1_mod;

static void ia_vfio_type1_mod_set(struct module *mod)
{
	unsigned long flags;

	lockdep_assert_held(&ia_vfio_attach_mutex);
	spin_lock_irqsave(&ia_vfio_lock, flags);
	ia_vfio_type1_mod = mod;
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
}

u64 ia_vfio_probes_missed(void)
{
	return ia_hook_set_missed(&ia_vfio_hooks);
}

u32 ia_vfio_untracked(void)
{
	unsigned long flags;
	u32 tracked, refs = 0;

	/* The module is there until the pointer is cleared (its GOING notifier). */
	spin_lock_irqsave(&ia_vfio_lock, flags);
	if (ia_vfio_type1_mod)
		refs = module_refcount(ia_vfio_type1_mod);
	tracked = ia_vfio_tracked_locked();
	spin_unlock_irqrestore(&ia_vfio_lock, flags);
	/* Every container with type1 set holds one reference on the module. */
	return refs > tracked ? refs - tracked : 0;
}

/* No type1 to hook: not loaded yet, or (IA_NO_TYPE1) not in this kernel. */
static void ia_vfio_feature_not_loaded(void)
{
	if (IA_NO_TYPE1)
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false, "%s", IA_NO_TYPE1_WHY);
	else
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false,
			       IA_TYPE1 " not loaded: hooks attach when it loads");
}

static void ia_vfio_hooks_detach_locked(void)
{
	struct ia_hook_set *s = &ia_vfio_hooks;

	lockdep_assert_held(&ia_vfio_attach_mutex);
	if (!ia_vfio_attached)
		return;
	/* Waits for MAP_DMAs inside the wrapper to return. */
	ia_hook_sets_unregister(&s, 1);
	ia_vfio_attached = false;
	ia_vfio_forget();
	ia_vfio_dma_entry_limit = NULL;
	ia_vfio_type1_mod_set(NULL);
	ia_vfio_feature_not_loaded();
}

/* The feature, from how the attached hooks are placed. */
static void ia_vfio_feature_locked(void)
{
	struct ia_hook_set *s = &ia_vfio_hooks;
	char mech[128];

	lockdep_assert_held(&ia_vfio_attach_mutex);
	ia_hook_set_describe(s, mech, sizeof(mech));
	if (!s->nkprobe && !s->nkretprobe)
		strscpy(mech, "ftrace hooks (MAP_DMA wrapped) on " IA_TYPE1, sizeof(mech));
	else if (!s->nftrace && !s->nwrap)
		snprintf(mech, sizeof(mech), "kprobes on " IA_TYPE1 " (ftrace: %s)", s->fallback);
	else
		strscpy(mech + strlen(mech), " on " IA_TYPE1, sizeof(mech) - strlen(mech));
	ia_feature_set(IA_FEAT_VFIO_TYPE1, true, "%s%s%s", mech,
		       ia_vfio_dma_entry_limit ? "" : "; dma_entry_limit not found: limit reads 0",
		       ia_vfio_type1_mod ? "" :
		       "; module not found: untracked containers not counted");
}

/*
 * A livepatch took the wrapped hooks to kretprobes, or (PREEMPT_RT) took the
 * set down: then the containers' records go with it, and the feature says
 * why until type1 is loaded again.
 */
static void ia_vfio_hooks_changed(struct ia_hook_set *s)
{
	mutex_lock(&ia_vfio_attach_mutex);
	if (ia_vfio_attached && !s->registered) {
		ia_vfio_hooks_detach_locked();
		ia_feature_set(IA_FEAT_VFIO_TYPE1, false, "%s", s->why);
	} else if (ia_vfio_attached) {
		ia_vfio_feature_locked();
	}
	mutex_unlock(&ia_vfio_attach_mutex);
}

/* Attach to vfio_iommu_type1 if it is loaded; a missing symbol is reported. */
static void ia_vfio_hooks_attach_locked(struct module *mod)
{
	struct ia_hook_set *s = &ia_vfio_hooks;
	int ret;

	lockdep_assert_held(&ia_vfio_attach_mutex);
	if (ia_vfio_attached)
		return;
	ia_vfio_dma_entry_limit =
		(unsigned int *)ia_kallsyms_lookup_name(IA_TYPE1 ":dma_entry_limit");
	ia_vfio_hooks_choose();
	ret = ia_hook_set_register(s);
	if (ret) {
		ia_vfio_dma_entry_limit = NULL;
		/* Its first hook found nothing: the module is not there. */
		if (ret == -ENOENT && !s->hooks[0]->addr)
			ia_vfio_feature_not_loaded();
		else
			ia_feature_set(IA_FEAT_VFIO_TYPE1, false, "%s", s->why);
		return;
	}
	ia_vfio_attached = true;
	ia_vfio_type1_mod_set(mod ? mod :
		(struct module *)ia_kallsyms_lookup_name(IA_TYPE1 ":__this_module"));
	ia_vfio_feature_locked();
}

static int ia_vfio_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, IA_TYPE1))
		return NOTIFY_DONE;
	mutex_lock(&ia_vfio_attach_mutex);
	if (action == MODULE_STATE_LIVE)
		ia_vfio_hooks_attach_locked(mod);
	else if (action == MODULE_STATE_GOING)
		ia_vfio_hooks_detach_locked();
	mutex_unlock(&ia_vfio_attach_mutex);
	return NOTIFY_OK;
}

static struct notifier_block ia_vfio_module_nb = {
	.notifier_call = ia_vfio_module_notify,
};

/* --- init / exit ------------------------------------------------------------------- */

int ia_vfio_init(const struct ia_source *self)
{
	int ret;

	ret = ia_vfio_records_init();
	if (ret)
		return ret;
	ia_feature_set(IA_FEAT_VFIO_GROUPS, true, "PCI devices with an IOMMU group");
	ia_vfio_feature_not_loaded();
	ia_vfio_hooks.changed = ia_vfio_hooks_changed;
	ret = register_module_notifier(&ia_vfio_module_nb);
	if (ret) {
		ia_vfio_records_exit();
		return ret;
	}
	mutex_lock(&ia_vfio_attach_mutex);
	ia_vfio_hooks_attach_locked(NULL);
	mutex_unlock(&ia_vfio_attach_mutex);
	return 0;
}

void ia_vfio_exit(const struct ia_source *self)
{
	unregister_module_notifier(&ia_vfio_module_nb);
	mutex_lock(&ia_vfio_attach_mutex);
	ia_vfio_hooks_detach_locked();
	mutex_unlock(&ia_vfio_attach_mutex);
	ia_vfio_records_exit();
}
