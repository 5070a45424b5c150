// SPDX-License-Identifier: GPL-2.0
/*
 * VFIO devices bind to iommufd (upstream 6.2): from that release the type1
 * container is optional (CONFIG_VFIO_CONTAINER, a symbol unknown before), so
 * with this and the symbol unset the kernel has no type1 container.
 */
#include <linux/stddef.h>
#include <linux/vfio.h>

static inline size_t ia_conftest(void)
{
	return offsetof(struct vfio_device_ops, bind_iommufd);
}
