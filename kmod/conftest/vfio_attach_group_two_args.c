// SPDX-License-Identifier: GPL-2.0
/*
 * A public vfio_iommu_driver_ops whose attach_group takes no group type
 * (before 5.16, when the ops moved into drivers/vfio/vfio.h and gained
 * enum vfio_group_type): type1's attach has two arguments.
 */
#include <linux/vfio.h>

static int ia_conftest_attach(void *iommu_data, struct iommu_group *group)
{
	return 0;
}

static const struct vfio_iommu_driver_ops ia_conftest __maybe_unused = {
	.attach_group = ia_conftest_attach,
};
