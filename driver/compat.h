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

#ifdef IPU_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#ifndef IPU_HAVE_VM_FLAGS_SET
/* 6.3 made vm_flags read-only behind these helpers. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/* The 80 bytes of command payload in an SQE128 submission. */
static inline const void *ipu_uring_cmd_payload(struct io_uring_cmd *cmd)
{
#ifdef IPU_HAVE_IO_URING_SQE_CMD
	return io_uring_sqe_cmd(cmd->sqe);
#else
	return cmd->cmd;
#endif
}

#ifdef IPU_HAVE_IO_URING_CMD_MARK_CANCELABLE
#define IPU_URING_CAN_CANCEL 1
#define IPU_URING_F_CANCEL IO_URING_F_CANCEL
#else
/* No cancel hook (Debian's 6.1): commands complete by themselves. */
#define IPU_URING_CAN_CANCEL 0
#define IPU_URING_F_CANCEL 0
static inline void io_uring_cmd_mark_cancelable(struct io_uring_cmd *cmd,
						unsigned int issue_flags)
{
}
#endif

#endif /* _IPU_COMPAT_H */
