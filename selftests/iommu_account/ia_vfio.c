// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "ia_vfio.h"
#include "ia_iommufd.h"

#define EDU_BUF (1 << 20)

int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(val))
		ret = -EIO;
	close(fd);
	return ret;
}

static int read_hex(const char *dir, const char *name)
{
	char path[512], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return (int)strtol(buf, NULL, 16);
}

int vfio_edu_groups(int *groups, int max)
{
	const char *base = "/sys/bus/pci/devices";
	char dir[512], link[512], path[600];
	struct dirent *de;
	int n = 0;
	DIR *d;

	/*
	 * type1 where the kernel has it; a kernel whose /dev/vfio/vfio is
	 * iommufd's compat container has none (VFIO_SET_IOMMU then says so).
	 */
	if (system("modprobe vfio_iommu_type1 2>/dev/null; modprobe vfio_pci"))
		return -ENOENT;
	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		if (read_hex(dir, "vendor") != 0x1234 || read_hex(dir, "device") != 0x11e8)
			continue;
		snprintf(path, sizeof(path), "%s/driver", dir);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0 || !strstr((link[len] = 0, link), "vfio-pci")) {
			snprintf(path, sizeof(path), "%s/driver_override", dir);
			write_file(path, "vfio-pci");
			write_file("/sys/bus/pci/drivers_probe", de->d_name);
		}
		snprintf(path, sizeof(path), "%s/iommu_group", dir);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = 0;
		groups[n++] = atoi(basename(link));
	}
	closedir(d);
	return n;
}

int vfio_set_entry_limit(unsigned int limit)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", limit);
	return write_file("/sys/module/vfio_iommu_type1/parameters/dma_entry_limit", v);
}

int vfio_ctr_open(struct vfio_ctr *c, int group)
{
	return vfio_ctr_open_buf(c, group, EDU_BUF);
}

int vfio_ctr_open_buf(struct vfio_ctr *c, int group, size_t buflen)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char path[64];
	int ret;

	memset(c, 0, sizeof(*c));
	c->container = c->group = -1;
	c->container = open("/dev/vfio/vfio", O_RDWR);
	if (c->container < 0)
		return -errno;
	if (ioctl(c->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
		return -EPROTO;
	snprintf(path, sizeof(path), "/dev/vfio/%d", group);
	c->group = open(path, O_RDWR);
	if (c->group < 0)
		return -errno;
	if (ioctl(c->group, VFIO_GROUP_GET_STATUS, &st))
		return -errno;
	/* A group that is not viable: the kernel's own answer is SET_CONTAINER's. */
	if (ioctl(c->group, VFIO_GROUP_SET_CONTAINER, &c->container))
		return -errno;
	if (ioctl(c->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -errno;
	c->buflen = buflen;
	c->buf = mmap(NULL, c->buflen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c->buf == MAP_FAILED) {
		ret = -errno;
		c->buf = NULL;
		return ret;
	}
	madvise(c->buf, c->buflen, MADV_NOHUGEPAGE);
	return 0;
}

void vfio_ctr_close(struct vfio_ctr *c)
{
	if (c->group >= 0)
		close(c->group);
	if (c->container >= 0)
		close(c->container);
	if (c->buf)
		munmap(c->buf, c->buflen);
	c->group = c->container = -1;
	c->buf = NULL;
}

int vfio_map(struct vfio_ctr *c, uint64_t iova, size_t size)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uint64_t)(uintptr_t)c->buf,
		.iova = iova,
		.size = size,
	};

	if (size > c->buflen)
		return -E2BIG;
	return ioctl(c->container, VFIO_IOMMU_MAP_DMA, &m) ? -errno : 0;
}

int vfio_map_raw(struct vfio_ctr *c, uint64_t iova, size_t size, uint64_t vaddr,
		 uint32_t flags)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = flags,
		.vaddr = vaddr,
		.iova = iova,
		.size = size,
	};

	return ioctl(c->container, VFIO_IOMMU_MAP_DMA, &m) ? -errno : 0;
}

long long vfio_unmap_flags(struct vfio_ctr *c, uint64_t iova, size_t size, uint32_t flags)
{
	struct vfio_iommu_type1_dma_unmap u = {
		.argsz = sizeof(u),
		.flags = flags,
		.iova = iova,
		.size = size,
	};

	return ioctl(c->container, VFIO_IOMMU_UNMAP_DMA, &u) ? -errno : (long long)u.size;
}

int vfio_unmap(struct vfio_ctr *c, uint64_t iova, size_t size)
{
	struct vfio_iommu_type1_dma_unmap u = {
		.argsz = sizeof(u),
		.iova = iova,
		.size = size,
	};

	return ioctl(c->container, VFIO_IOMMU_UNMAP_DMA, &u) ? -errno : 0;
}

int vfio_dma_avail(struct vfio_ctr *c, uint32_t *avail)
{
	char buf[4096];
	struct vfio_iommu_type1_info *info = (void *)buf;
	struct vfio_info_cap_header *h;
	uint32_t off;

	memset(buf, 0, sizeof(buf));
	info->argsz = sizeof(buf);
	if (ioctl(c->container, VFIO_IOMMU_GET_INFO, info))
		return -errno;
	if (!(info->flags & VFIO_IOMMU_INFO_CAPS))
		return -ENOENT;
	for (off = info->cap_offset; off && off < sizeof(buf); off = h->next) {
		h = (void *)(buf + off);
		if (h->id == VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL) {
			*avail = ((struct vfio_iommu_type1_info_dma_avail *)h)->avail;
			return 0;
		}
	}
	return -ENOENT;
}

long long vm_locked_bytes_of(int pid)
{
	char path[64], line[256];
	long long kb = -1;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

long long vm_locked_bytes(void)
{
	return vm_locked_bytes_of(0);
}

/* What @cmd printed (up to @len - 1 bytes), or "" when it failed. */
void run_output(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;

	out[0] = 0;
	if (!f)
		return;
	n = fread(out, 1, len - 1, f);
	out[n] = 0;
	if (pclose(f))
		out[0] = 0;
}

#define MDEV_PARENT "/sys/class/mdev_bus/ia_mdev/mdev_supported_types"

/* The one type directory of the ia_mdev parent, or -errno. */
static int mdev_type_dir(char *out, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(MDEV_PARENT);

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			break;
	if (de)
		snprintf(out, len, MDEV_PARENT "/%s", de->d_name);
	closedir(d);
	return de ? 0 : -ENOENT;
}

int vfio_mdev_groups(int *groups, int n, char *why, size_t len)
{
	char type[400], path[600], link[256], uuid[40];
	int i, fd;

	if (system("modprobe vfio_iommu_type1")) {
		snprintf(why, len, "vfio_iommu_type1 does not load");
		return -ENOENT;
	}
	if (access(MDEV_PARENT, F_OK) &&
	    system("modprobe mdev 2>/dev/null && insmod /opt/ia/ia_mdev.ko 2>/dev/null")) {
		snprintf(why, len, "no mediated devices here (mdev in this kernel and "
			 "/opt/ia/ia_mdev.ko, from scripts/vm/run --add, are both needed)");
		return -ENOENT;
	}
	if (mdev_type_dir(type, sizeof(type))) {
		snprintf(why, len, "ia_mdev loaded but %s is empty", MDEV_PARENT);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/create", type);
	for (i = 0; i < n; i++) {
		char target[256], *slash;
		ssize_t l;
		int err;

		snprintf(uuid, sizeof(uuid), "1a000000-0000-4000-8000-%012x", (unsigned int)i);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, uuid, strlen(uuid)) < 0) {
			err = errno;
			snprintf(why, len, "creating mdev %d: %s", i, strerror(err));
			if (fd >= 0)
				close(fd);
			return -err;
		}
		close(fd);
		snprintf(link, sizeof(link), "/sys/bus/mdev/devices/%s/iommu_group", uuid);
		l = readlink(link, target, sizeof(target) - 1);
		if (l < 0) {
			snprintf(why, len, "mdev %s has no IOMMU group", uuid);
			return -ENOENT;
		}
		target[l] = 0;
		slash = strrchr(target, '/');
		groups[i] = atoi(slash ? slash + 1 : target);
	}
	return n;
}

void vfio_mdev_cleanup(void)
{
	char path[600];
	struct dirent *de;
	DIR *d = opendir("/sys/bus/mdev/devices");

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "1a000000-", 9))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/mdev/devices/%s/remove", de->d_name);
		write_file(path, "1");
	}
	if (d)
		closedir(d);
	if (system("rmmod ia_mdev 2>/dev/null"))
		;	/* loaded by someone else, or not at all */
}

int iommufd_bind_cdev(int ifd, const char *cdev, __u32 ioas)
{
	struct vfio_device_bind_iommufd b = { .argsz = sizeof(b), .iommufd = ifd };
	struct vfio_device_attach_iommufd_pt at = { .argsz = sizeof(at), .pt_id = ioas };
	int dfd = open(cdev, O_RDWR);

	if (dfd < 0)
		return -errno;
	if (ioctl(dfd, VFIO_DEVICE_BIND_IOMMUFD, &b) || ioctl(dfd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at))
		return -errno;
	return dfd;
}

int iommufd_bind_bdf(const char *bdf, int *ifd, __u32 *ioas)
{
	struct iommu_ioas_alloc al = { .size = sizeof(al) };
	char path[300], cdev[320] = "";
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vfio-dev", bdf);
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "vfio", 4))
			snprintf(cdev, sizeof(cdev), "/dev/vfio/devices/%s", de->d_name);
	closedir(d);
	if (!cdev[0])
		return -ENOENT;
	*ifd = open("/dev/iommu", O_RDWR);
	if (*ifd < 0)
		return -errno;
	if (ioctl(*ifd, IOMMU_IOAS_ALLOC, &al))
		return -errno;
	*ioas = al.out_ioas_id;
	return iommufd_bind_cdev(*ifd, cdev, al.out_ioas_id);
}
