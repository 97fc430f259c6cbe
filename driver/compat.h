/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ipu.ko supports (Debian 12's 6.1 to
 * Debian 13's 6.12), decided by compile probes, never by version numbers:
 * distributions backport. scripts/build-module compiles each probe in
 * driver/conftest/ against the target kernel and writes compat_probes.h with
 * IPU_HAVE_<PROBE> for those that build.
 */
#ifndef _IPU_COMPAT_H
#define _IPU_COMPAT_H

#include <linux/mm.h>

#include "compat_probes.h"

#ifndef IPU_HAVE_VM_FLAGS_SET
/* 6.3 made vm_flags read-only behind these helpers. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#endif /* _IPU_COMPAT_H */
