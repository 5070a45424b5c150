// SPDX-License-Identifier: GPL-2.0
/* vm_flags_set()/vm_flags_clear(), vma->vm_flags read-only (upstream 6.3; RHEL 9 backports it). */
#include <linux/mm.h>

static inline void ia_conftest(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_IO);
	vm_flags_clear(vma, VM_IO);
}
