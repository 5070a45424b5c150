// SPDX-License-Identifier: GPL-2.0
/*
 * libia hot-reset verdicts: what the kernel would answer a caller asking
 * VFIO_DEVICE_PCI_HOT_RESET for a device, from its GET_RESET_SCOPE answer
 * (struct ia_reset, objects.c), and the names of the scope's values.
 */
#include <string.h>
#include <uapi/linux/iommu_account.h>

#include "ia.h"

const char *ia_reset_scope_name(uint32_t scope)
{
	switch (scope) {
	case IOMMU_ACCOUNT_RESET_SCOPE_SLOT:
		return "slot";
	case IOMMU_ACCOUNT_RESET_SCOPE_BUS:
		return "bus";
	case IOMMU_ACCOUNT_RESET_SCOPE_NONE:
		return "none";
	}
	return "unknown";
}

const char *ia_verdict_name(enum ia_verdict_kind k)
{
	static const char *const names[] = {
		[IA_VERDICT_OK] = "ok",
		[IA_VERDICT_NO_RESET] = "no-reset",
		[IA_VERDICT_UNKNOWN] = "unknown",
		[IA_VERDICT_NOT_IN_SET] = "not-in-reset-set",
		[IA_VERDICT_NO_GROUP] = "no-iommu-group",
		[IA_VERDICT_HOST_DRIVER] = "host-driver",
		[IA_VERDICT_UNBOUND] = "unbound-device",
		[IA_VERDICT_FOREIGN] = "foreign-group",
		[IA_VERDICT_NOT_HELD] = "group-not-held",
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *ia_reset_set_kind_name(uint32_t kind)
{
	switch (kind) {
	case IOMMU_ACCOUNT_RESET_SET_KIND_DEVICE:
		return "device";
	case IOMMU_ACCOUNT_RESET_SET_KIND_SLOT:
		return "slot";
	case IOMMU_ACCOUNT_RESET_SET_KIND_BUS:
		return "bus";
	}
	return "unknown";
}

const char *ia_reset_set_name(uint32_t set)
{
	switch (set) {
	case IOMMU_ACCOUNT_RESET_SET_SAME:
		return "same";
	case IOMMU_ACCOUNT_RESET_SET_OTHER:
		return "other";
	case IOMMU_ACCOUNT_RESET_SET_NEVER:
		return "never";
	}
	return "unknown";
}

bool ia_driver_is_vfio(const char *drv)
{
	size_t n = strlen(drv);

	return !strcmp(drv, "vfio-pci") || (n >= 8 && !strcmp(drv + n - 8, "vfio_pci"));
}

static void add_group(struct ia_verdict *v, uint32_t g)
{
	unsigned int i;

	for (i = 0; i < v->ngroups; i++)
		if (v->groups[i] == g)
			return;
	if (v->ngroups < IA_VERDICT_MAX_GROUPS)
		v->groups[v->ngroups++] = g;
}

/* Keep the worst reason (the first of the worst kind). */
static void blame(struct ia_verdict *v, enum ia_verdict_kind k, const struct ia_reset_dev *d)
{
	if (v->kind == IA_VERDICT_OK || k < v->kind) {
		v->kind = k;
		v->culprit = d;
	}
}

/* "DDDD:BB" of two PCI addresses as the kernel writes them: the same bus? */
static bool same_bus(const char *a, const char *b)
{
	return strlen(a) >= 7 && !strncmp(a, b, 7);
}

/* Why @d, outside @r's reset set, can never be in it, and what would make a reset possible. */
static void not_in_set_reason(const struct ia_reset *r, const struct ia_reset_dev *d,
			      struct ia_verdict *v)
{
	const struct ia_reset_dev *self = NULL;
	char why[200], fix[160];
	unsigned int i;

	for (i = 0; i < r->naffected; i++)
		if (!strcmp(r->affected[i].dev.address, r->address))
			self = &r->affected[i];
	if (d->set == IOMMU_ACCOUNT_RESET_SET_NEVER)
		snprintf(why, sizeof(why), "%s is a bridge (or another device vfio-pci cannot "
			 "drive), in no reset set", d->dev.address);
	else if (self && self->virtfn)
		snprintf(why, sizeof(why), "%s is an SR-IOV VF, alone in a reset set of its own, "
			 "and its %s reset also reaches %s", r->address,
			 ia_reset_scope_name(r->scope), d->dev.address);
	else if (d->virtfn)
		snprintf(why, sizeof(why), "%s is an SR-IOV VF, alone in a reset set of its own",
			 d->dev.address);
	else
		snprintf(why, sizeof(why), "%s %s in the reset set of its own %s, not in %s's",
			 d->dev.address, d->vfio ? "is" : "would be",
			 same_bus(d->dev.address, r->address) ? "slot or bus" :
			 "bus (below a bridge)", r->address);
	if (self && self->virtfn)
		snprintf(fix, sizeof(fix), "reset the VF alone with a function reset "
			 "(VFIO_DEVICE_RESET)");
	else if (d->virtfn)
		snprintf(fix, sizeof(fix), "disable the VFs (sriov_numvfs 0) to reset the PF, or "
			 "reset each VF with a function reset (VFIO_DEVICE_RESET)");
	else
		snprintf(fix, sizeof(fix), "no choice of group fds helps; a function reset "
			 "(VFIO_DEVICE_RESET) resets %s alone", r->address);
	snprintf(v->reason, sizeof(v->reason), "%s: the kernel refuses a hot reset that reaches "
		 "it, whatever anybody holds (EINVAL); %s", why, fix);
}

void ia_reset_verdict(const struct ia_reset *r, uint32_t uid, bool caller_is_uid,
		      struct ia_verdict *v)
{
	const struct ia_reset_dev *d;
	unsigned int i;
	char via[48];

	memset(v, 0, sizeof(*v));
	v->in_own_group = r->scope != IOMMU_ACCOUNT_RESET_SCOPE_NONE && r->has_group;
	if (r->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE) {
		v->kind = IA_VERDICT_NO_RESET;
		v->errno_name = "ENODEV";
		snprintf(v->reason, sizeof(v->reason), "no reset: the kernel has neither a slot "
			 "nor a bus reset for %s (VFIO_DEVICE_PCI_HOT_RESET: ENODEV)", r->address);
		return;
	}
	for (i = 0; i < r->naffected; i++) {
		bool mine;

		d = &r->affected[i];
		if (!d->has_group || !r->has_group || d->group != r->group)
			v->in_own_group = false;
		if (d->has_group)
			add_group(v, d->group);
		if (!d->has_set) {
			blame(v, IA_VERDICT_UNKNOWN, d);
			continue;
		}
		if (d->set != IOMMU_ACCOUNT_RESET_SET_SAME) {
			blame(v, IA_VERDICT_NOT_IN_SET, d);
			continue;
		}
		if (!d->has_group) {
			blame(v, IA_VERDICT_NO_GROUP, d);
			continue;
		}
		if (!d->vfio) {
			blame(v, d->dev.driver[0] ? IA_VERDICT_HOST_DRIVER : IA_VERDICT_UNBOUND, d);
			continue;
		}
		if (d->holder == IOMMU_ACCOUNT_RESET_HOLDER_NONE) {
			blame(v, IA_VERDICT_NOT_HELD, d);
			continue;
		}
		mine = d->owner.present ? d->owner.uid == uid :
		       d->holder == IOMMU_ACCOUNT_RESET_HOLDER_CALLER && caller_is_uid;
		if (!mine)
			blame(v, IA_VERDICT_FOREIGN, d);
	}
	d = v->culprit;
	/* What the kernel answers a caller presenting the groups listed (those it can open). */
	v->errno_name = v->kind == IA_VERDICT_OK || v->kind == IA_VERDICT_UNKNOWN ||
			v->kind == IA_VERDICT_NOT_HELD ? NULL : "EINVAL";
	switch (v->kind) {
	case IA_VERDICT_OK:
		snprintf(v->reason, sizeof(v->reason), "ok: a %s reset of %u device(s), all in "
			 "one reset set, every group held by uid %u", ia_reset_scope_name(r->scope),
			 r->naffected, uid);
		break;
	case IA_VERDICT_UNKNOWN:
		snprintf(v->reason, sizeof(v->reason), "unknown: the module does not report "
			 "vfio-pci's reset sets (older than this tool), so whether the kernel "
			 "allows the reset cannot be told");
		break;
	case IA_VERDICT_NOT_IN_SET:
		not_in_set_reason(r, d, v);
		break;
	case IA_VERDICT_NO_GROUP:
		snprintf(v->reason, sizeof(v->reason), "%s has no IOMMU group, so it can be in no "
			 "reset set: the kernel refuses the reset (EINVAL; the hot-reset info "
			 "answers EPERM)", d->dev.address);
		break;
	case IA_VERDICT_HOST_DRIVER:
		if (r->has_group && d->group == r->group) {
			/* Its group is the device's own: not viable, the device cannot be opened. */
			v->errno_name = "EPERM";
			snprintf(v->reason, sizeof(v->reason), "%s (group %u) is in use by the host "
				 "driver %s: the group is not viable, so VFIO refuses it a container "
				 "(EPERM) and %s cannot be opened; unbind %s and bind it to vfio-pci",
				 d->dev.address, d->group, d->dev.driver, r->address,
				 d->dev.address);
		} else {
			snprintf(v->reason, sizeof(v->reason), "%s (group %u) is in use by the host "
				 "driver %s, outside vfio-pci's reset set: the reset fails (EINVAL); "
				 "unbind it and bind it to vfio-pci", d->dev.address, d->group,
				 d->dev.driver);
		}
		break;
	case IA_VERDICT_UNBOUND:
		snprintf(v->reason, sizeof(v->reason), "%s (group %u) is bound to no driver, so "
			 "it is not in vfio-pci's reset set: the reset fails (EINVAL); bind it to "
			 "vfio-pci and it joins the set", d->dev.address, d->group);
		break;
	case IA_VERDICT_FOREIGN:
		/* Held by a type1 container, or open through the VFIO cdev (iommufd). */
		if (d->has_container)
			snprintf(via, sizeof(via), "container %u", d->container);
		else
			snprintf(via, sizeof(via), "its VFIO cdev bound to iommufd");
		if (r->has_group && d->group == r->group) {
			/* The device's own group, open elsewhere: the device cannot be opened. */
			v->errno_name = "EBUSY";
			if (d->owner.present)
				snprintf(v->reason, sizeof(v->reason), "%s: its group %u is held by "
					 "uid %u (%s, %s[%u]), not uid %u: uid %u cannot open "
					 "it (EBUSY), let alone reset it", d->dev.address, d->group,
					 d->owner.uid, via, d->owner.comm, d->owner.pid, uid,
					 uid);
			else
				snprintf(v->reason, sizeof(v->reason), "%s: its group %u is held by "
					 "another user: uid %u cannot open it (EBUSY), let alone reset "
					 "it", d->dev.address, d->group, uid);
		} else if (d->owner.present)
			snprintf(v->reason, sizeof(v->reason), "%s: group %u is held by uid %u "
				 "(%s, %s[%u]), not uid %u: the reset fails (EINVAL)",
				 d->dev.address, d->group, d->owner.uid, via,
				 d->owner.comm, d->owner.pid, uid);
		else
			snprintf(v->reason, sizeof(v->reason), "%s: group %u is held by another "
				 "user: the reset fails (EINVAL)", d->dev.address, d->group);
		break;
	case IA_VERDICT_NOT_HELD:
		snprintf(v->reason, sizeof(v->reason), "%s: group %u is not held by anyone: "
			 "uid %u must open /dev/vfio/%u and present it (without it: EINVAL)",
			 d->dev.address, d->group, uid, d->group);
		break;
	default:
		break;
	}
}
