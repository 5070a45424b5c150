/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences, kept out of the rest of the module. What a kernel
 * offers is found by compiling against it (kmod/conftest/, Kbuild: the
 * generated ia-conftest.h's IA_HAVE_*), never from its version: vendors
 * backport (RHEL 9's 5.14 carries 6.x's VMA and netlink APIs, Debian's and
 * Ubuntu's stable updates theirs). Kconfig options are read as such
 * (IS_ENABLED), a kernel's own choice rather than an API.
 */
#ifndef _IA_COMPAT_H
#define _IA_COMPAT_H

#include <linux/mm.h>
#include <net/genetlink.h>

#include "ia-conftest.h"

/*
 * Parsed attributes of a dump request: genl_info_dump(), else in
 * genl_dumpit_info itself (before 6.2) or in the genl_info it embeds.
 */
static inline struct nlattr **ia_dump_attrs(struct netlink_callback *cb)
{
#if IA_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#elif IA_HAVE_GENL_DUMPIT_INFO_ATTRS
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_dumpit_info(cb)->info.attrs;
#endif
}

/*
 * Multicast groups restricted to CAP_SYS_ADMIN (upstream 6.8, backported to
 * stable kernels). Without it a group cannot be restricted, and the events
 * (pids, uids and commands of every tenant) are not offered at all.
 */
#if IA_HAVE_GENL_MCAST_CAP_SYS_ADMIN
#define IA_HAVE_MCAST_CAP 1
#define IA_MCAST_FLAGS GENL_MCAST_CAP_SYS_ADMIN
#else
#define IA_HAVE_MCAST_CAP 0
#define IA_MCAST_FLAGS 0
#endif

/* vma->vm_flags read-only behind vm_flags_set() (kmod/conftest/vm_flags_set.c). */
static inline void ia_vma_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#if IA_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void ia_vma_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#if IA_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Whether this kernel can have a VFIO type1 container at all. Since VFIO
 * devices bind to iommufd (kmod/conftest/vfio_bind_iommufd.c) the container
 * is optional (CONFIG_VFIO_CONTAINER, a symbol unknown before, which reads
 * as unset there: hence the compile test beside it): without it
 * /dev/vfio/vfio, if there, is iommufd's compat container
 * (CONFIG_IOMMUFD_VFIO_CONTAINER), and vfio_iommu_type1 never loads.
 */
#if IA_HAVE_VFIO_BIND_IOMMUFD && !IS_ENABLED(CONFIG_VFIO_CONTAINER)
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
#if IA_HAVE_LINUX_HEX_H
#include <linux/hex.h>
#endif

/*
 * A required attribute missing: refused with its type in the extended ack
 * (GENL_REQ_ATTR_CHECK), else with a message only (before 6.0).
 */
static inline bool ia_req_attr_missing(struct genl_info *info, int attr)
{
#if IA_HAVE_GENL_REQ_ATTR_CHECK
	return GENL_REQ_ATTR_CHECK(info, attr);
#else
	if (info->attrs[attr])
		return false;
	NL_SET_ERR_MSG(info->extack, "a required attribute is missing");
	return true;
#endif
}

/*
 * A request that takes no attributes and has one: refused. From 6.1 the
 * family's resv_start_op has genetlink refuse it for a command without a
 * policy (kmod/conftest/genl_family_resv_start_op.c); before, it is said here.
 */
static inline bool ia_req_no_attrs(struct genl_info *info)
{
	if (IA_HAVE_GENL_FAMILY_RESV_START_OP || !nlmsg_attrlen(info->nlhdr, GENL_HDRLEN))
		return false;
	NL_SET_ERR_MSG(info->extack, "this command takes no attributes");
	return true;
}

/* va_list: the kernel's own linux/stdarg.h, else the compiler's (before 5.15). */
#if IA_HAVE_LINUX_STDARG_H
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#endif

#endif /* _IA_COMPAT_H */
