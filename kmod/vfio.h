/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the VFIO type1 source: vfio.c (containers, mappings, group
 * membership: what each hooked call means) and vfio_attach.c (following
 * vfio_iommu_type1 as it loads and goes: the hooks' registration). Locking:
 * vfio.c.
 */
#ifndef _IA_VFIO_H
#define _IA_VFIO_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ia.h"
#include "wrapper/hook.h"

#define IA_TYPE1 "vfio_iommu_type1"

extern spinlock_t ia_vfio_lock;
/* type1's dma_entry_limit (kallsyms), NULL while it is not loaded or not found. */
extern unsigned int *ia_vfio_dma_entry_limit;
/* Every hook of the source, declared in vfio.c. */
extern struct ia_hook_set ia_vfio_hooks;
/* Which of them this kernel's type1 needs, each wanted one required. */
void ia_vfio_hooks_choose(void);

/* The hooks are gone: forget every container and every call in flight. */
void ia_vfio_forget(void);
/* Containers with a record. */
u32 ia_vfio_tracked_locked(void);	/* ia_vfio_lock held */
/* The mapping records' cache; exit forgets every record first. */
int ia_vfio_records_init(void);
void ia_vfio_records_exit(void);

#endif
