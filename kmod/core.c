// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * The core: features, owners, the snapshot idiom and quota lists. The
 * feature table is written from module notifiers and init while netlink
 * readers copy it, so both sides take the same lock.
 *
 * Locking: ia_feat_lock (irqsave) guards the feature table and is a leaf:
 * nothing is called under it, and no other lock of this module is held
 * when ia_feature_set(), ia_features_copy() or ia_feature_active() takes it.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "compat.h"
#include "ia.h"

static DEFINE_SPINLOCK(ia_feat_lock);

static struct ia_feature_info ia_features[IA_FEAT_COUNT] = {
	[IA_FEAT_UID_TASKS] = { .name = "uid-tasks" },
	[IA_FEAT_UID_ORPHANS] = { .name = "uid-orphans" },
	[IA_FEAT_VFIO_TYPE1] = { .name = "vfio-type1" },
	[IA_FEAT_VFIO_GROUPS] = { .name = "vfio-groups" },
	[IA_FEAT_IOMMUFD] = { .name = "iommufd" },
	[IA_FEAT_EVENTS] = { .name = "events" },
	[IA_FEAT_MEMLOCK_URING] = { .name = "memlock-io_uring" },
	[IA_FEAT_MEMLOCK_XDP] = { .name = "memlock-xdp" },
	[IA_FEAT_PUBLISHED] = { .name = "published-quotas" },
	[IA_FEAT_RESET_SCOPE] = { .name = "reset-scope" },
};

void ia_feature_set(enum ia_feature f, bool active, const char *fmt, ...)
{
	char detail[IA_FEAT_DETAIL_LEN];
	unsigned long flags;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	/* A detail cut short would read as a different one: say so. */
	WARN_ONCE(n >= sizeof(detail), "feature %s: detail cut at %zu bytes\n",
		  ia_features[f].name, sizeof(detail) - 1);
	spin_lock_irqsave(&ia_feat_lock, flags);
	ia_features[f].active = active;
	strscpy(ia_features[f].detail, detail, sizeof(ia_features[f].detail));
	spin_unlock_irqrestore(&ia_feat_lock, flags);
	if (!active)
		pr_info("feature %s unavailable: %s\n", ia_features[f].name, detail);
}

void ia_features_copy(struct ia_feature_info out[IA_FEAT_COUNT])
{
	unsigned long flags;

	spin_lock_irqsave(&ia_feat_lock, flags);
	memcpy(out, ia_features, sizeof(ia_features));
	spin_unlock_irqrestore(&ia_feat_lock, flags);
}

bool ia_feature_active(enum ia_feature f)
{
	unsigned long flags;
	bool active;

	spin_lock_irqsave(&ia_feat_lock, flags);
	active = ia_features[f].active;
	spin_unlock_irqrestore(&ia_feat_lock, flags);
	return active;
}

void *ia_snapshot_take(size_t hdr, size_t elem, unsigned int cap, ia_snap_fill_t fill,
		       void *arg, unsigned int *nr)
{
	unsigned int tries, n;
	void *buf;

	for (tries = 0; tries < 4; tries++) {
		buf = kvzalloc(size_add(hdr, size_mul(cap, elem)), GFP_KERNEL);
		if (!buf)
			return ERR_PTR(-ENOMEM);
		n = fill(buf, cap, arg);
		if (n <= cap) {
			*nr = n;
			return buf;
		}
		kvfree(buf);
		cap = n + n / 4 + 16;
	}
	return ERR_PTR(-EAGAIN);
}

void ia_quota_list_free(struct ia_quota_list *l)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(l))
		return;
	for (i = 0; i < l->nr; i++) {
		ia_cgpath_put(l->rec[i].last_cgpath);
		kvfree(l->rec[i].extra);
	}
	kvfree(l);
}

void ia_owner_current(struct ia_owner *o)
{
	o->pid = task_tgid_nr(current);
	o->uid = current_uid();
	get_task_comm(o->comm, current);
	o->cgroup_id = ia_task_cgroup_id(current);
}
