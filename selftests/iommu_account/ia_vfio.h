/* SPDX-License-Identifier: GPL-2.0 */
/* VFIO type1 from userspace, for the selftests: the VM's edu devices. */
#ifndef IA_VFIO_H
#define IA_VFIO_H

#include <stddef.h>
#include <stdint.h>

/* Bind every edu device (1234:11e8) to vfio-pci; fill their IOMMU group
 * numbers; return how many, or -errno. */
int vfio_edu_groups(int *groups, int max);
/* Set vfio_iommu_type1's dma_entry_limit (applies to new containers). */
int vfio_set_entry_limit(unsigned int limit);

struct vfio_ctr {
	int container;
	int group;
	void *buf;		/* backing memory for the mappings */
	size_t buflen;
};

/* Container + group + TYPE1v2 IOMMU; 0 or -errno. */
int vfio_ctr_open(struct vfio_ctr *c, int group);
/* The same with a buffer of @buflen bytes for the mappings. */
int vfio_ctr_open_buf(struct vfio_ctr *c, int group, size_t buflen);

/*
 * Mediated devices of the ia_mdev test module (selftests/iommu_account/kmod),
 * each an IOMMU group of its own behind an emulated IOMMU: load the module
 * (modprobe mdev, insmod /opt/ia/ia_mdev.ko) unless it is loaded, create
 * @n instances and fill their group numbers. Returns @n, or -errno with a
 * reason in @why (-ENOENT: the kernel or the VM has no mdev/ia_mdev).
 */
int vfio_mdev_groups(int *groups, int n, char *why, size_t len);
/* Remove every ia_mdev instance and unload the module. */
void vfio_mdev_cleanup(void);
void vfio_ctr_close(struct vfio_ctr *c);
/* Map @size bytes of the buffer at @iova; the kernel's answer, 0 or -errno. */
int vfio_map(struct vfio_ctr *c, uint64_t iova, size_t size);
int vfio_unmap(struct vfio_ctr *c, uint64_t iova, size_t size);
/* MAP_DMA with the caller's vaddr and flags; 0 or -errno. */
int vfio_map_raw(struct vfio_ctr *c, uint64_t iova, size_t size, uint64_t vaddr,
		 uint32_t flags);
/* UNMAP_DMA with flags: the kernel's answer, bytes unmapped, or -errno. */
long long vfio_unmap_flags(struct vfio_ctr *c, uint64_t iova, size_t size, uint32_t flags);
/* VFIO_IOMMU_GET_INFO's DMA_AVAIL capability; 0 or -errno. */
int vfio_dma_avail(struct vfio_ctr *c, uint32_t *avail);
/* VmLck of this process (mm->locked_vm), in bytes, or -1. */
long long vm_locked_bytes(void);
/* VmLck of process @pid (0: this one), in bytes, or -1. */
long long vm_locked_bytes_of(int pid);
/* Write @val to @path (sysfs, procfs, debugfs): 0, or -errno (-EIO: written short). */
int write_file(const char *path, const char *val);
/* What shell command @cmd printed (up to @len - 1 bytes), or "" when it failed. */
void run_output(const char *cmd, char *out, size_t len);

#endif
