/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences, kept out of the rest of the module. Feature tests
 * (#ifdef on what the kernel defines) where the kernel offers one; a version
 * test only where the difference has no name to test.
 */
#ifndef _IA_COMPAT_H
#define _IA_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>
#include <net/genetlink.h>

/* Parsed attributes of a dump request (6.2 split genl_dumpit_info). */
static inline struct nlattr **ia_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * Multicast groups restricted to CAP_SYS_ADMIN (upstream 6.8, backported to
 * stable kernels). Without it a group cannot be restricted, and the events
 * (pids, uids and commands of every tenant) are not offered at all.
 */
#ifdef GENL_MCAST_CAP_SYS_ADMIN
#define IA_HAVE_MCAST_CAP 1
#define IA_MCAST_FLAGS GENL_MCAST_CAP_SYS_ADMIN
#else
#define IA_HAVE_MCAST_CAP 0
#define IA_MCAST_FLAGS 0
#endif

/* vma->vm_flags became read-only behind vm_flags_set() in 6.3 (no name to test). */
static inline void ia_vma_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void ia_vma_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Whether this kernel can have a VFIO type1 container at all. Since 6.2
 * the container is optional (CONFIG_VFIO_CONTAINER, no symbol before):
 * without it /dev/vfio/vfio, if there, is iommufd's compat container
 * (CONFIG_IOMMUFD_VFIO_CONTAINER), and vfio_iommu_type1 never loads.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0) && !IS_ENABLED(CONFIG_VFIO_CONTAINER)
#define IA_NO_TYPE1 1
#if IS_ENABLED(CONFIG_IOMMUFD_VFIO_CONTAINER)
#define IA_NO_TYPE1_WHY "this kernel has no type1 container (CONFIG_VFIO_CONTAINER unset): " \
	"/dev/vfio/vfio is iommufd's compat container, followed by feature iommufd"
#else
#define IA_NO_TYPE1_WHY "this kernel has no VFIO container (CONFIG_VFIO_CONTAINER and " \
	"CONFIG_IOMMUFD_VFIO_CONTAINER unset)"
#endif
#else
#define IA_NO_TYPE1 0
#define IA_NO_TYPE1_WHY ""
#endif

/* hex_to_bin() moved from kernel.h to its own header (linux/hex.h). */
#if __has_include("linux/hex.h")
#include <linux/hex.h>
#endif

#endif /* _IA_COMPAT_H */
