// SPDX-License-Identifier: GPL-2.0
/*
 * Source: IOMMU groups with PCI devices, each device with its driver, and
 * the VFIO container each group is attached to (from vfio.c's containers).
 * reset.c reads a device's group the same way (ia_group_dev_fill()).
 * Everything runs in process context; the PCI bus walk takes the bus's own
 * locks, no lock of this module is held.
 */
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "ia.h"

struct ia_group_walk {
	struct ia_group_dev *dev;
	unsigned int n, cap;
};

bool ia_group_dev_fill(struct ia_group_dev *d, struct pci_dev *pdev)
{
	struct iommu_group *grp = iommu_group_get(&pdev->dev);
	const char *drv;

	memset(d, 0, sizeof(*d));
	strscpy(d->address, pci_name(pdev), sizeof(d->address));
	d->vendor = pdev->vendor;
	d->device = pdev->device;
	drv = READ_ONCE(pdev->dev.driver) ? dev_driver_string(&pdev->dev) : "";
	strscpy(d->driver, drv, sizeof(d->driver));
	d->fd_bound = ia_iommufd_dev_owner(d->address, &d->fd_owner);
	if (!grp)
		return false;
	d->group = iommu_group_id(grp);
	iommu_group_put(grp);
	return true;
}

static int ia_group_dev_fn(struct device *dev, void *data)
{
	struct ia_group_walk *w = data;
	struct ia_group_dev d;

	/* Devices without a group are not listed. */
	if (!ia_group_dev_fill(&d, to_pci_dev(dev)))
		return 0;
	if (w->n < w->cap)
		w->dev[w->n] = d;
	w->n++;
	return 0;
}

static int ia_group_dev_cmp(const void *a, const void *b)
{
	const struct ia_group_dev *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->address, y->address);
}

struct ia_group_snap *ia_group_snapshot(void)
{
	struct ia_group_walk w = { .cap = 64 };
	struct ia_group_snap *g;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	for (;;) {
		w.dev = kvcalloc(w.cap, sizeof(*w.dev), GFP_KERNEL);
		if (!w.dev)
			goto nomem;
		w.n = 0;
		bus_for_each_dev(&pci_bus_type, NULL, &w, ia_group_dev_fn);
		if (w.n <= w.cap)
			break;
		kvfree(w.dev);
		w.cap = w.n + 16;
	}
	sort(w.dev, w.n, sizeof(*w.dev), ia_group_dev_cmp, NULL);
	g->dev = w.dev;
	g->ndev = w.n;
	g->containers = ia_container_snapshot(IA_FILTER_ALL);
	if (IS_ERR(g->containers)) {
		g->containers = NULL;
		goto nomem;
	}
	return g;
nomem:
	ia_group_snap_free(g);
	return ERR_PTR(-ENOMEM);
}

void ia_group_snap_free(struct ia_group_snap *g)
{
	if (!g)
		return;
	kvfree(g->dev);
	ia_container_snap_free(g->containers);
	kfree(g);
}
