// SPDX-License-Identifier: GPL-2.0
/*
 * reset_tool: the kernel's own answer about VFIO hot resets, for the
 * selftests (ground truth for GET_RESET_SCOPE and the tool's verdicts).
 *
 *   reset_tool info BDF     open BDF's group in a type1 container and the
 *                           device (a VF of a vfio-pci PF with the PF's VF
 *                           token), ask VFIO_DEVICE_GET_PCI_HOT_RESET_INFO;
 *                           print one line "GROUP DDDD:BB:DD.F" per device it
 *                           lists, or "error ERRNO_NAME"
 *   reset_tool reset BDF [GROUP...]
 *                           the same, then VFIO_DEVICE_PCI_HOT_RESET with the
 *                           fds of BDF's group and of the groups given (each
 *                           opened and put in the container; one open
 *                           elsewhere, EBUSY, is left out); prints "ok" or
 *                           "error ERRNO_NAME"; exit 0 or 1
 *   reset_tool token PF     open the vfio-pci PF with our VF token, which
 *                           sets it while no VF is open (vfio-pci starts
 *                           with a random one); VFs are opened with it
 *   reset_tool hold GROUP   put GROUP in a container of our own and hold it
 *                           until stdin closes (prints "holding")
 *   reset_tool fdhold BDF   open BDF through its VFIO cdev, bind it to an
 *                           iommufd context of our own and attach it to an
 *                           IOAS (prints "holding"); then, for each line
 *                           "reset" on stdin, VFIO_DEVICE_PCI_HOT_RESET on
 *                           that fd with no group fds (the iommufd way:
 *                           every affected device must be ours), printing
 *                           "ok" or "error ERRNO_NAME"; exits at EOF
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/vfio.h>

#include "ia_vfio.h"
#include "ia_iommufd.h"

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ENODEV: return "ENODEV";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOSPC: return "ENOSPC";
	default: return strerror(e);
	}
}

/* The IOMMU group of @bdf from sysfs, or -1. */
static int group_of(const char *bdf)
{
	char path[256], link[256];
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	p = strrchr(link, '/');
	return p ? atoi(p + 1) : -1;
}

static int fail(int e)
{
	printf("error %s\n", errname(e));
	return 1;
}

/* @bdf is a VF whose PF is bound to vfio-pci (opening it then needs the PF's VF token). */
static bool vf_of_vfio_pf(const char *bdf)
{
	char path[256], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return !strcmp(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, "vfio-pci");
}

/* The VF token `token` gives a vfio-pci PF, and with which its VFs are opened. */
#define IA_VF_TOKEN "1a2b3c4d-0000-4000-8000-1a2b3c4d5e6f"

/*
 * Container + BDF's group + the device: the device fd, or -errno. A VF of a
 * vfio-pci PF is opened with the PF's VF token (vfio-pci makes a random one:
 * `token` sets ours first).
 */
static int open_dev(const char *bdf, struct vfio_ctr *c)
{
	int g = group_of(bdf), ret, fd;
	char name[128];

	if (g < 0)
		return -ENOENT;
	ret = vfio_ctr_open(c, g);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s%s", bdf,
		 vf_of_vfio_pf(bdf) ? " vf_token=" IA_VF_TOKEN : "");
	fd = ioctl(c->group, VFIO_GROUP_GET_DEVICE_FD, name);
	return fd < 0 ? -errno : fd;
}

static int info(const char *bdf)
{
	struct vfio_pci_hot_reset_info *hi;
	struct vfio_ctr c;
	size_t sz;
	int fd, i;

	fd = open_dev(bdf, &c);
	if (fd < 0)
		return fail(-fd);
	sz = sizeof(*hi) + 64 * sizeof(hi->devices[0]);
	hi = calloc(1, sz);
	if (!hi)
		return fail(ENOMEM);
	hi->argsz = sz;
	if (ioctl(fd, VFIO_DEVICE_GET_PCI_HOT_RESET_INFO, hi))
		return fail(errno);
	for (i = 0; i < (int)hi->count; i++)
		printf("%u %04x:%02x:%02x.%x\n", hi->devices[i].group_id, hi->devices[i].segment,
		       hi->devices[i].bus, hi->devices[i].devfn >> 3, hi->devices[i].devfn & 7);
	return 0;
}

static int reset(const char *bdf, int ngroups, char **groups)
{
	struct vfio_pci_hot_reset *hr;
	struct vfio_ctr c;
	int fd, i, n = 0;

	fd = open_dev(bdf, &c);
	if (fd < 0)
		return fail(-fd);
	hr = calloc(1, sizeof(*hr) + (ngroups + 1) * sizeof(hr->group_fds[0]));
	if (!hr)
		return fail(ENOMEM);
	hr->group_fds[n++] = c.group;
	for (i = 0; i < ngroups; i++) {
		char path[64];
		int g;

		snprintf(path, sizeof(path), "/dev/vfio/%s", groups[i]);
		g = open(path, O_RDWR);
		/* Open elsewhere: a caller presents what it can; the kernel judges. */
		if (g < 0 && errno == EBUSY) {
			fprintf(stderr, "reset_tool: group %s is open elsewhere: not presented\n",
				groups[i]);
			continue;
		}
		if (g < 0)
			return fail(errno);
		if (ioctl(g, VFIO_GROUP_SET_CONTAINER, &c.container))
			return fail(errno);
		hr->group_fds[n++] = g;
	}
	hr->argsz = sizeof(*hr) + n * sizeof(hr->group_fds[0]);
	hr->count = n;
	if (ioctl(fd, VFIO_DEVICE_PCI_HOT_RESET, hr))
		return fail(errno);
	printf("ok\n");
	return 0;
}

/* Open the PF @bdf with our VF token, which sets it while no VF is open. */
static int token(const char *bdf)
{
	struct vfio_ctr c;
	char name[128];
	int ret = vfio_ctr_open(&c, group_of(bdf)), fd;

	if (ret)
		return fail(-ret);
	snprintf(name, sizeof(name), "%s vf_token=%s", bdf, IA_VF_TOKEN);
	fd = ioctl(c.group, VFIO_GROUP_GET_DEVICE_FD, name);
	if (fd < 0)
		return fail(errno);
	close(fd);
	vfio_ctr_close(&c);
	printf("ok\n");
	return 0;
}

static int hold(int group)
{
	struct vfio_ctr c;
	char b;
	int ret = vfio_ctr_open(&c, group);

	if (ret)
		return fail(-ret);
	printf("holding\n");
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	vfio_ctr_close(&c);
	return 0;
}

static int fdhold(const char *bdf)
{
	struct vfio_pci_hot_reset hr = { .argsz = sizeof(hr) };
	char line[64];
	int ifd, dfd;
	__u32 ioas;

	dfd = iommufd_bind_bdf(bdf, &ifd, &ioas);
	if (dfd < 0)
		return fail(-dfd);
	printf("holding\n");
	while (fgets(line, sizeof(line), stdin)) {
		if (strcmp(line, "reset\n"))
			continue;
		if (ioctl(dfd, VFIO_DEVICE_PCI_HOT_RESET, &hr))
			printf("error %s\n", errname(errno));
		else
			printf("ok\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "info"))
		return info(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "reset"))
		return reset(argv[2], argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "token"))
		return token(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "fdhold"))
		return fdhold(argv[2]);
	fprintf(stderr, "usage: reset_tool info BDF | reset BDF [GROUP...] | hold GROUP | "
		"token PF | fdhold BDF\n");
	return 2;
}
