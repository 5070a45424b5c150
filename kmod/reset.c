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
 * vfio-pci resets only when every device of that walk is a VFIO device of
 * the caller's reset set (vfio_pci_dev_set_resettable()), whatever group fds
 * are presented. Each affected device's set is read from its VFIO device
 * (the "vfio-dev" child vfio_main.c registers) and compared with the
 * surveyed device's; a device not bound to a VFIO driver gets the set
 * vfio_pci_core_register_device() would give it if bound now.
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
#include <linux/vfio.h>

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

static bool ia_reset_candidate(struct pci_dev *pdev)
{
	/* vfio-pci drives header type 0 only (vfio_pci_core_register_device()). */
	return pdev->hdr_type == PCI_HEADER_TYPE_NORMAL;
}

#if IA_HAVE_VFIO_DEVICE_DEV_SET
/* vfio_main.c registers every VFIO device as a "vfio-dev" class child of its device. */
static int ia_vfio_child_fn(struct device *dev, void *data)
{
	struct device **found = data;

	if (!dev->class || strcmp(dev->class->name, "vfio-dev"))
		return 0;
	*found = get_device(dev);
	return 1;
}

/* The reset set of @pdev as a registered VFIO device, else NULL. */
static const void *ia_vfio_set_id(struct pci_dev *pdev, bool *vfio)
{
	struct device *child = NULL;
	const void *id = NULL;

	device_for_each_child(&pdev->dev, &child, ia_vfio_child_fn);
	if (child) {
		struct vfio_device *vdev = container_of(child, struct vfio_device, device);

		/* The set is freed with the VFIO device, which we hold. */
		if (vdev->dev_set) {
			id = vdev->dev_set->set_id;
			*vfio = true;
		}
		put_device(child);
	}
	return id;
}
#else
/*
 * No dev_set (kmod/conftest/vfio_device_dev_set.c): vfio-pci's devices share
 * a reset lock by the same rule as below (vfio_pci_reflck_attach()), and a
 * VFIO PCI device is one vfio-pci drives. The driver is read under the
 * device lock, as the driver core writes it.
 */
static const void *ia_vfio_set_id(struct pci_dev *pdev, bool *vfio)
{
	device_lock(&pdev->dev);
	*vfio = pdev->dev.driver && !strcmp(pdev->dev.driver->name, "vfio-pci");
	device_unlock(&pdev->dev);
	return NULL;
}
#endif

/*
 * The key of vfio-pci's reset set ("dev_set") of @pdev: the set it is in as
 * a registered VFIO device (*@vfio true), else the one
 * vfio_pci_core_register_device() would give it if it were bound now (its
 * own on the root bus and for a VF, else its slot's when the slot can be
 * reset, else its bus's). NULL for a device vfio-pci cannot drive. Keys are
 * compared, never dereferenced.
 */
static const void *ia_reset_set_id(struct pci_dev *pdev, bool *vfio)
{
	const void *id;

	*vfio = false;
	if (!ia_reset_candidate(pdev))
		return NULL;
	id = ia_vfio_set_id(pdev, vfio);
	if (id)
		return id;
	if (pci_is_root_bus(pdev->bus) || pdev->is_virtfn)
		return pdev;
	if (!pci_probe_reset_slot(pdev->slot))
		return pdev->slot;
	return pdev->bus;
}

struct ia_reset_walk {
	struct pci_dev *target;
	bool slot;
	unsigned int n, cap;
	struct pci_dev **pdev;
};

static int ia_reset_walk_fn(struct pci_dev *pdev, void *data)
{
	struct ia_reset_walk *w = data;

	if (w->slot && !ia_dev_below_slot(pdev, w->target->slot))
		return 0;
	if (w->n < w->cap)
		w->pdev[w->n] = pci_dev_get(pdev);
	w->n++;
	return 0;
}

/* @d, a device the reset of a device whose reset set is @set_id reaches. */
static void ia_reset_dev_fill(struct ia_reset_dev *d, struct pci_dev *pdev, const void *set_id)
{
	const void *id = ia_reset_set_id(pdev, &d->vfio);

	d->has_group = ia_group_dev_fill(&d->d, pdev);
	d->virtfn = pdev->is_virtfn;
	d->set = !id ? IOMMU_ACCOUNT_RESET_SET_NEVER :
		 id == set_id ? IOMMU_ACCOUNT_RESET_SET_SAME : IOMMU_ACCOUNT_RESET_SET_OTHER;
}

/* The scope of @pdev and the devices it reaches (r->dev: kvfree it). */
static int ia_reset_survey(struct pci_dev *pdev, struct ia_reset_info *r)
{
	struct ia_reset_walk w = { .target = pdev };
	struct ia_group_dev self;
	const void *set_id;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->has_group = ia_group_dev_fill(&self, pdev);
	strscpy(r->address, self.address, sizeof(r->address));
	r->group = self.group;
	set_id = ia_reset_set_id(pdev, &r->vfio);
	r->set_kind = set_id == pdev->bus ? IOMMU_ACCOUNT_RESET_SET_KIND_BUS :
		      pdev->slot && set_id == pdev->slot ? IOMMU_ACCOUNT_RESET_SET_KIND_SLOT :
		      IOMMU_ACCOUNT_RESET_SET_KIND_DEVICE;
	if (!pci_probe_reset_slot(pdev->slot))
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_SLOT;
	else if (!pci_probe_reset_bus(pdev->bus))
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_BUS;
	else
		r->scope = IOMMU_ACCOUNT_RESET_SCOPE_NONE;
	if (r->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE)
		return 0;
	w.slot = r->scope == IOMMU_ACCOUNT_RESET_SCOPE_SLOT;
	/*
	 * Count, then hold each device; a device added in between is left for
	 * the next request. The sets are read after the walk: it holds
	 * pci_bus_sem, and a slot's reset probe has no business under it.
	 */
	pci_walk_bus(pdev->bus, ia_reset_walk_fn, &w);
	w.cap = w.n;
	w.n = 0;
	w.pdev = kvcalloc(max(w.cap, 1U), sizeof(*w.pdev), GFP_KERNEL);
	r->dev = kvcalloc(max(w.cap, 1U), sizeof(*r->dev), GFP_KERNEL);
	if (!w.pdev || !r->dev) {
		kvfree(w.pdev);
		kvfree(r->dev);
		r->dev = NULL;
		return -ENOMEM;
	}
	pci_walk_bus(pdev->bus, ia_reset_walk_fn, &w);
	r->ndev = min(w.n, w.cap);
	for (i = 0; i < r->ndev; i++) {
		ia_reset_dev_fill(&r->dev[i], w.pdev[i], set_id);
		pci_dev_put(w.pdev[i]);
	}
	kvfree(w.pdev);
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
				nd = krealloc(devs, array_size(cap, sizeof(*devs)), GFP_KERNEL);
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

int ia_reset_init(const struct ia_source *self)
{
	ia_feature_set(IA_FEAT_RESET_SCOPE, true,
		       "pci_probe_reset_slot/bus and pci_walk_bus, as vfio-pci decides");
	return 0;
}
