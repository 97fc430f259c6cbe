/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ipu.ko supports (Debian 12's 6.1 to
 * trixie-backports' 7.3), decided by compile probes, never by version
 * numbers or by which header exists: distributions backport, and an API
 * changes inside a header that stays. scripts/build-module compiles each
 * probe in driver/conftest/ (each one uses exactly the API it is named
 * after) against the target kernel and writes compat_probes.h with
 * IPU_HAVE_<PROBE> for those that build.
 *
 * For each API the driver needs, one variant must be found; if none is,
 * the build stops here with #error naming the API (never a fallback to a
 * field or signature that may not exist on that kernel).
 */
#ifndef _IPU_COMPAT_H
#define _IPU_COMPAT_H

#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/uio.h>

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

#ifndef IPU_HAVE_PCIM_REQUEST_ALL_REGIONS
/*
 * Where it is absent (Debian's 6.1), pci_request_regions() after pcim_enable_device() is managed
 * (the "hybrid" mode later kernels removed): the same contract. Releasing
 * the regions by hand as well would release them twice there (devres has
 * unlinked pcim_release() by the time a driver's own action runs).
 */
static inline int pcim_request_all_regions(struct pci_dev *pdev,
					   const char *name)
{
	return pci_request_regions(pdev, name);
}
#endif

/* The command area of an SQE128 submission: what the payloads fit in. */
#define IPU_URING_PAYLOAD 80

struct ipu_uring_payload {
	u8 bytes[IPU_URING_PAYLOAD];
};

/* The 80 bytes of command payload in an SQE128 submission. */
static inline const void *ipu_uring_cmd_payload(struct io_uring_cmd *cmd)
{
#if defined(IPU_HAVE_IO_URING_SQE128_CMD)
	/* 7.x: typed, size-checked against the 128-byte SQE. */
	return io_uring_sqe128_cmd(cmd->sqe, struct ipu_uring_payload);
#elif defined(IPU_HAVE_IO_URING_SQE_CMD_1)
	return io_uring_sqe_cmd(cmd->sqe);
#elif defined(IPU_HAVE_IO_URING_CMD_FIELD_CMD)
	return cmd->cmd;
#else
#error "ipu: no way to reach a uring_cmd's payload (see driver/conftest/*sqe*cmd*.c)"
#endif
}

/* Complete a uring_cmd with @ret (the second CQE word is never used). */
static inline void ipu_uring_cmd_done(struct io_uring_cmd *cmd, int ret,
				      unsigned int issue_flags)
{
#if defined(IPU_HAVE_IO_URING_CMD_DONE_3)
	io_uring_cmd_done(cmd, ret, issue_flags);
#elif defined(IPU_HAVE_IO_URING_CMD_DONE_4)
	io_uring_cmd_done(cmd, ret, 0, issue_flags);
#else
#error "ipu: no known io_uring_cmd_done() (see driver/conftest/io_uring_cmd_done_*.c)"
#endif
}

/* The pages of a registered buffer (IORING_URING_CMD_FIXED) as an iter. */
static inline int ipu_uring_import_fixed(u64 ubuf, unsigned long len, int rw,
					 struct iov_iter *iter,
					 struct io_uring_cmd *cmd,
					 unsigned int issue_flags)
{
#if defined(IPU_HAVE_IO_URING_CMD_IMPORT_FIXED_6)
	/* 6.15+: the buffer table is looked up under the ring's lock. */
	return io_uring_cmd_import_fixed(ubuf, len, rw, iter, cmd, issue_flags);
#elif defined(IPU_HAVE_IO_URING_CMD_IMPORT_FIXED_5)
	return io_uring_cmd_import_fixed(ubuf, len, rw, iter, cmd);
#else
#error "ipu: no known io_uring_cmd_import_fixed() (see driver/conftest/)"
#endif
}

/*
 * IPU_URING_TW(name, fn) defines name(), a callback for
 * io_uring_cmd_complete_in_task() in the form this kernel calls, which
 * calls fn(cmd, issue_flags): the driver's task work is written once, as
 * fn. 6.1 to 6.x call back with (cmd, issue_flags); since io_uring's
 * generic task work took over (7.x) the callback gets (tw_req, token), the
 * command is io_uring_cmd_from_tw() and the flags to complete with are
 * IO_URING_CMD_TASK_WORK_ISSUE_FLAGS.
 */
#if defined(IPU_HAVE_IO_URING_TW_REQ)
#define IPU_URING_TW(name, fn)						\
	static void name(struct io_tw_req tw_req, io_tw_token_t tw)	\
	{								\
		fn(io_uring_cmd_from_tw(tw_req),			\
		   IO_URING_CMD_TASK_WORK_ISSUE_FLAGS);			\
	}
#elif defined(IPU_HAVE_IO_URING_TW_ISSUE_FLAGS)
#define IPU_URING_TW(name, fn)						\
	static void name(struct io_uring_cmd *cmd, unsigned int issue_flags) \
	{								\
		fn(cmd, issue_flags);					\
	}
#else
#error "ipu: no known io_uring_cmd_complete_in_task() callback (see driver/conftest/)"
#endif

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
