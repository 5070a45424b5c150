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

#endif
