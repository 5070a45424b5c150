// SPDX-License-Identifier: GPL-2.0
/*
 * ia_mdev: a mediated-device type whose instances are VFIO devices behind an
 * emulated IOMMU, so that a VM can hold as many IOMMU groups (and so type1
 * containers) as a test needs: each instance is a group of its own. Nothing
 * is ever pinned (the device has no DMA), which is also how a type1
 * container with only mediated groups behaves: its mappings are recorded
 * by the kernel and pinned only when a device asks.
 *
 *   modprobe mdev && insmod ia_mdev.ko
 *   echo UUID > /sys/class/mdev_bus/ia_mdev/mdev_supported_types/ia_mdev-1/create
 *   readlink /sys/bus/mdev/devices/UUID/iommu_group     -> /dev/vfio/N
 *
 * A test module: never installed or packaged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/mdev.h>
#include <linux/module.h>
#include <linux/vfio.h>
#include <linux/version.h>

#define IA_MDEV_MAX 4096

struct ia_mdev {
	struct vfio_device vdev;
};

/* Type1 tells a device of unmapped ranges it may have pinned: none here. */
static void ia_mdev_dma_unmap(struct vfio_device *vdev, u64 iova, u64 length)
{
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
/* 6.1's vfio core calls release unconditionally and leaves the free to it. */
static void ia_mdev_release(struct vfio_device *vdev)
{
	vfio_free_device(vdev);
}
#endif

static const struct vfio_device_ops ia_mdev_ops = {
	.name = "ia-mdev",
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
	.release = ia_mdev_release,
#endif
	.dma_unmap = ia_mdev_dma_unmap,
};

static int ia_mdev_probe(struct mdev_device *mdev)
{
	struct ia_mdev *m;
	int ret;

	m = vfio_alloc_device(ia_mdev, vdev, &mdev->dev, &ia_mdev_ops);
	if (IS_ERR(m))
		return PTR_ERR(m);
	ret = vfio_register_emulated_iommu_dev(&m->vdev);
	if (ret) {
		vfio_put_device(&m->vdev);
		return ret;
	}
	dev_set_drvdata(&mdev->dev, m);
	return 0;
}

static void ia_mdev_remove(struct mdev_device *mdev)
{
	struct ia_mdev *m = dev_get_drvdata(&mdev->dev);

	vfio_unregister_group_dev(&m->vdev);
	vfio_put_device(&m->vdev);
}

static struct mdev_type ia_mdev_type = {
	.sysfs_name = "1",
	.pretty_name = "iommu-account test device",
};

static struct mdev_type *ia_mdev_types[] = { &ia_mdev_type };

static struct mdev_driver ia_mdev_driver = {
	.device_api = VFIO_DEVICE_API_PCI_STRING,
	.max_instances = IA_MDEV_MAX,
	.driver = {
		.name = "ia_mdev",
		.owner = THIS_MODULE,
		.mod_name = KBUILD_MODNAME,
	},
	.probe = ia_mdev_probe,
	.remove = ia_mdev_remove,
};

static struct mdev_parent ia_mdev_parent;
static struct device *ia_mdev_dev;

static int __init ia_mdev_init(void)
{
	int ret;

	ret = mdev_register_driver(&ia_mdev_driver);
	if (ret)
		return ret;
	ia_mdev_dev = root_device_register("ia_mdev");
	if (IS_ERR(ia_mdev_dev)) {
		ret = PTR_ERR(ia_mdev_dev);
		goto err_driver;
	}
	ret = mdev_register_parent(&ia_mdev_parent, ia_mdev_dev, &ia_mdev_driver,
				   ia_mdev_types, ARRAY_SIZE(ia_mdev_types));
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	root_device_unregister(ia_mdev_dev);
err_driver:
	mdev_unregister_driver(&ia_mdev_driver);
	return ret;
}

static void __exit ia_mdev_exit(void)
{
	mdev_unregister_parent(&ia_mdev_parent);
	root_device_unregister(ia_mdev_dev);
	mdev_unregister_driver(&ia_mdev_driver);
}

module_init(ia_mdev_init);
module_exit(ia_mdev_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iommu-account test: mediated devices behind an emulated IOMMU");
