// SPDX-License-Identifier: GPL-2.0
/*
 * Source: the hot-reset scope of PCI devices, decided and walked as vfio-pci
 * does for VFIO_DEVICE_GET_PCI_HOT_RESET_INFO and VFIO_DEVICE_PCI_HOT_RESET
 * (drivers/vfio/pci/vfio_pci_core.c): a slot reset when
 * pci_probe_reset_slot() accepts the device's slot, else a bus reset when
 * pci_probe_reset_bus() accepts its bus; the affected devices are those of
 * pci_walk_bus() from the device's bus, limited to the ones below the slot
 * for a slot reset. Both probes are the kernel's own exported functions, so
 * quirks that forbid a bus or slot reset (PCI_DEV_FLAGS_NO_BUS_RESET) are
 * honoured exactly as vfio-pci would honour them.
 *
 * Everything runs in process context: the probes take the PCI core's
 * mutexes, pci_walk_bus() holds pci_bus_sem while it calls us. Devices are
 * held by reference while surveyed, so one removed meanwhile is surveyed as
 * it was or not at all, never freed under us.
 */
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "compat.h"
#include "ia.h"

/* vfio_pci_dev_below_slot(): @pdev is @slot's device or below it. */
static bool ia_dev_below_slot(struct pci_dev *pdev, struct pci_slot *slot)
{
	for (; pdev; pdev = pdev->bus->self)
		if (pdev->bus == slot->bus)
			return pdev->slot == slot;
	return false;
}

struct ia_reset_walk {
	struct pci_dev *target;
	bool slot;
	unsigned int n, cap;
	struct ia_reset_dev *dev;
};

static int ia_reset_walk_fn(struct pci_dev *pdev, void *data)
{
	struct ia_reset_walk *w = data;

	if (w->slot && !ia_dev_below_slot(pdev, w->target->slot))
		return 0;
	if (w->n < w->cap)
		w->dev[w->n].has_group = ia_group_dev_fill(&w->dev[w->n].d, pdev);
	w->n++;
	return 0;
}

/* The scope of @pdev and the devices it reaches (r->dev: kvfree it). */
static int ia_reset_survey(struct pci_dev *pdev, struct ia_reset_info *r)
{
	struct ia_reset_walk w = { .target = pdev };
	struct ia_group_dev self;

	memset(r, 0, sizeof(*r));
	r->has_group = ia_group_dev_fill(&self, pdev);
	strscpy(r->address, self.address, sizeof(r->address));
	r->group = self.group;
	if (!pci_probe_reset_slot(pdev->slot))
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_SLOT;
	else if (!pci_probe_reset_bus(pdev->bus))
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_BUS;
	else
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_NONE;
	if (r->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE)
		return 0;
	w.slot = r->scope == IOMMU_ACCOUNT_RESET_SCOPE_SLOT;
	/* Count, then fill; a device added in between is left for the next request. */
	pci_walk_bus(pdev->bus, ia_reset_walk_fn, &w);
	w.cap = w.n;
	w.n = 0;
	w.dev = kvcalloc(max(w.cap, 1U), sizeof(*w.dev), GFP_KERNEL);
	if (!w.dev)
		return -ENOMEM;
	pci_walk_bus(pdev->bus, ia_reset_walk_fn, &w);
	r->dev = w.dev;
	r->ndev = min(w.n, w.cap);
	return 0;
}

void ia_reset_snap_free(struct ia_reset_snap *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		kvfree(s->r[i].dev);
	kvfree(s->r);
	kfree(s);
}

static bool ia_reset_candidate(struct pci_dev *pdev)
{
	/* vfio-pci drives header type 0 only (vfio_pci_core_register_device()). */
	return pdev->hdr_type == PCI_HEADER_TYPE_NORMAL;
}

struct ia_reset_snap *ia_reset_snapshot(struct pci_dev *only)
{
	struct pci_dev *pdev = NULL, **devs = NULL;
	struct ia_reset_snap *s;
	unsigned int n = 0, cap = 0, i;
	int ret = 0;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	if (only) {
		devs = kmalloc(sizeof(*devs), GFP_KERNEL);
		if (!devs) {
			kfree(s);
			return ERR_PTR(-ENOMEM);
		}
		devs[n++] = pci_dev_get(only);
	} else {
		/* Hold every candidate first: the survey sleeps. */
		for_each_pci_dev(pdev) {
			if (!ia_reset_candidate(pdev))
				continue;
			if (n == cap) {
				struct pci_dev **nd;

				cap = cap ? 2 * cap : 32;
				nd = krealloc_array(devs, cap, sizeof(*devs), GFP_KERNEL);
				if (!nd) {
					pci_dev_put(pdev);
					ret = -ENOMEM;
					break;
				}
				devs = nd;
			}
			devs[n++] = pci_dev_get(pdev);
		}
	}
	if (!ret) {
		s->r = kvcalloc(max(n, 1U), sizeof(*s->r), GFP_KERNEL);
		if (!s->r)
			ret = -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!ret) {
			ret = ia_reset_survey(devs[i], &s->r[i]);
			if (!ret)
				s->nr++;
		}
		pci_dev_put(devs[i]);
		cond_resched();
	}
	kfree(devs);
	if (ret) {
		ia_reset_snap_free(s);
		return ERR_PTR(ret);
	}
	return s;
}

/* Exactly @n hexadecimal digits at @s. */
static int ia_hex(const char *s, int n, unsigned int *v)
{
	unsigned int x = 0;
	int i, d;

	for (i = 0; i < n; i++) {
		d = hex_to_bin(s[i]);
		if (d < 0)
			return -EINVAL;
		x = x * 16 + d;
	}
	*v = x;
	return 0;
}

/*
 * "DDDD:BB:DD.F" as pci_name() writes it (or "BB:DD.F", domain 0), nothing
 * else: the device, referenced, or an ERR_PTR.
 */
struct pci_dev *ia_reset_lookup(const char *addr)
{
	unsigned int dom = 0, bus, dev, fn;
	struct pci_dev *pdev;
	size_t len = strlen(addr);
	const char *p = addr;

	if (len == 12 && addr[4] == ':') {
		if (ia_hex(addr, 4, &dom))
			return ERR_PTR(-EINVAL);
		p = addr + 5;
	} else if (len != 7) {
		return ERR_PTR(-EINVAL);
	}
	if (p[2] != ':' || p[5] != '.' || ia_hex(p, 2, &bus) || ia_hex(p + 3, 2, &dev) ||
	    ia_hex(p + 6, 1, &fn) || dev > 0x1f || fn > 7)
		return ERR_PTR(-EINVAL);
	pdev = pci_get_domain_bus_and_slot(dom, bus, PCI_DEVFN(dev, fn));
	if (!pdev)
		return ERR_PTR(-ENODEV);
	if (!ia_reset_candidate(pdev)) {
		pci_dev_put(pdev);
		return ERR_PTR(-EOPNOTSUPP);
	}
	return pdev;
}

int ia_reset_init(void)
{
	ia_feature_set(IA_FEAT_RESET_SCOPE, true,
		       "pci_probe_reset_slot/bus and pci_walk_bus, as vfio-pci decides");
	return 0;
}
