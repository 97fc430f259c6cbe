// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe (see scripts/build-module): compiles only where
 * vm_flags_set() exists (mainline 6.3+; not in Debian's 6.1), and then
 * defines IPU_HAVE_VM_FLAGS_SET in driver/compat_probes.h.
 */
#include <linux/mm.h>

void ipu_conftest_vm_flags_set(struct vm_area_struct *vma);

void ipu_conftest_vm_flags_set(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
}
