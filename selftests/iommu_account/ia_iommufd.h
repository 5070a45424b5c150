/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The iommufd uAPI for the selftests (iommufd_test, reset_tool), and an
 * edu's VFIO cdev bound to a context of its own.
 */
#ifndef IA_IOMMUFD_H
#define IA_IOMMUFD_H

#include <linux/types.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>

/*
 * The iommufd uAPI (include/uapi/linux/iommufd.h, vfio.h of 6.6 and later):
 * the build host's headers may predate it. ABI, so defined here if absent.
 */
#ifndef IOMMU_IOAS_ALLOC
#define IOMMUFD_TYPE (';')
struct iommu_destroy {
	__u32 size;
	__u32 id;
};
#define IOMMU_DESTROY _IO(IOMMUFD_TYPE, 0x80)
struct iommu_ioas_alloc {
	__u32 size;
	__u32 flags;
	__u32 out_ioas_id;
};
#define IOMMU_IOAS_ALLOC _IO(IOMMUFD_TYPE, 0x81)
struct iommu_ioas_copy {
	__u32 size;
	__u32 flags;
	__u32 dst_ioas_id;
	__u32 src_ioas_id;
	__aligned_u64 length;
	__aligned_u64 dst_iova;
	__aligned_u64 src_iova;
};
#define IOMMU_IOAS_COPY _IO(IOMMUFD_TYPE, 0x83)
#define IOMMU_IOAS_MAP_FIXED_IOVA (1 << 0)
#define IOMMU_IOAS_MAP_WRITEABLE (1 << 1)
#define IOMMU_IOAS_MAP_READABLE (1 << 2)
struct iommu_ioas_map {
	__u32 size;
	__u32 flags;
	__u32 ioas_id;
	__u32 __reserved;
	__aligned_u64 user_va;
	__aligned_u64 length;
	__aligned_u64 iova;
};
#define IOMMU_IOAS_MAP _IO(IOMMUFD_TYPE, 0x85)
struct iommu_ioas_unmap {
	__u32 size;
	__u32 ioas_id;
	__aligned_u64 iova;
	__aligned_u64 length;
};
#define IOMMU_IOAS_UNMAP _IO(IOMMUFD_TYPE, 0x86)
#define IOMMU_OPTION_RLIMIT_MODE 0
#define IOMMU_OPTION_OP_SET 0
struct iommu_option {
	__u32 size;
	__u32 option_id;
	__u16 op;
	__u16 __reserved;
	__u32 object_id;
	__aligned_u64 val64;
};
#define IOMMU_OPTION _IO(IOMMUFD_TYPE, 0x87)
#endif
#ifndef VFIO_DEVICE_BIND_IOMMUFD
struct vfio_device_bind_iommufd {
	__u32 argsz;
	__u32 flags;
	__s32 iommufd;
	__u32 out_devid;
};
#define VFIO_DEVICE_BIND_IOMMUFD _IO(VFIO_TYPE, VFIO_BASE + 18)
struct vfio_device_attach_iommufd_pt {
	__u32 argsz;
	__u32 flags;
	__u32 pt_id;
};
#define VFIO_DEVICE_ATTACH_IOMMUFD_PT _IO(VFIO_TYPE, VFIO_BASE + 19)
struct vfio_device_detach_iommufd_pt {
	__u32 argsz;
	__u32 flags;
};
#define VFIO_DEVICE_DETACH_IOMMUFD_PT _IO(VFIO_TYPE, VFIO_BASE + 20)
#endif

/*
 * Open VFIO cdev @cdev, bind it to the iommufd context @ifd and attach it to
 * IOAS @ioas. The device fd, or -errno.
 */
int iommufd_bind_cdev(int ifd, const char *cdev, __u32 ioas);
/*
 * Open /dev/iommu (into *@ifd), BDF's VFIO cdev (/dev/vfio/devices/vfioN,
 * from sysfs), bind it to the context and attach it to a new IOAS (into
 * *@ioas). The device fd, or -errno.
 */
int iommufd_bind_bdf(const char *bdf, int *ifd, __u32 *ioas);

#endif
