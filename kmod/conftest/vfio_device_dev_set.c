// SPDX-License-Identifier: GPL-2.0
/*
 * struct vfio_device public with its reset set (dev_set, upstream 5.15).
 * Before, vfio-pci shares a reset lock between the devices of a slot or a
 * bus (vfio_pci_reflck_attach()), and a VFIO device is one vfio-pci drives.
 */
#include <linux/vfio.h>

static inline const void *ia_conftest(struct vfio_device *vdev)
{
	return vdev->dev_set->set_id;
}
