// SPDX-License-Identifier: GPL-2.0
/*
 * XFER: DMA between a user buffer and a buffer object, synchronously through
 * the ioctl. io_uring's XFER (ipu_uring.c) shares the checks and the move
 * itself (ipu_xfer_dma()), and, on a device whose DMA is a CPU copy, the
 * whole synchronous path (ipu_xfer_chunks()).
 *
 * The ioctl pins and transfers a bounded chunk at a time, so that a transfer
 * of any size needs only small page arrays and stays killable.
 */
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>

#include <uapi/linux/ipu.h>

#include "ipu_bo.h"
#include "ipu_dma.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_file.h"
#include "ipu_trace.h"
#include "ipu_xfer.h"

/* Bytes pinned at once by the ioctl: 2 MiB. */
#define IPU_XFER_CHUNK (512UL * PAGE_SIZE)

/**
 * ipu_xfer_check_args - the checks that need no device
 * @args: the request
 *
 * Return: 0 or -EINVAL.
 */
int ipu_xfer_check_args(const struct ipu_xfer *args)
{
	u64 end;

	if (args->flags & ~IPU_XFER_FLAGS_ALL || hweight32(args->flags) != 1 ||
	    args->reserved || !args->length)
		return -EINVAL;
	if (check_add_overflow(args->bo_offset, args->length, &end) ||
	    check_add_overflow(args->user_ptr, args->length, &end))
		return -EINVAL;
	return 0;
}

/**
 * ipu_xfer_lookup - resolve the buffer object of a checked request
 * @ifile: the file
 * @args: a request that passed ipu_xfer_check_args()
 * @bop: out: the buffer, referenced; release with ipu_bo_put()
 *
 * Call with the device entered.
 *
 * Return: 0; -EACCES when @ifile is not the owner; -ENOENT for an unknown
 * handle; -EINVAL for a range outside the buffer.
 */
int ipu_xfer_lookup(struct ipu_file *ifile, const struct ipu_xfer *args,
		    struct ipu_bo **bop)
{
	struct ipu_bo *bo;

	if (!ipu_device_is_owner(ifile->idev, ifile))
		return -EACCES;
	bo = ipu_bo_lookup(ifile, args->handle);
	if (!bo)
		return -ENOENT;
	if (args->bo_offset + args->length > bo->size) {
		ipu_bo_put(bo);
		return -EINVAL;
	}
	*bop = bo;
	return 0;
}

/**
 * ipu_xfer_dma - move pinned host pages to or from device memory
 * @idev: the device
 * @usage: the file's usage, where the transfer's time goes
 * @dev_off: device memory offset of the first byte
 * @iter: the pinned host range (a bvec iterator)
 * @to_device: direction
 *
 * Enters the device for the move only: pinning, which may sleep for long,
 * is the caller's, outside the unplug guard.
 *
 * Return: 0; -ENODEV once the device is unplugged; the device's errno.
 */
int ipu_xfer_dma(struct ipu_device *idev, struct ipu_usage *usage,
		 u64 dev_off, struct iov_iter *iter, bool to_device)
{
	u64 start;
	int idx, ret;

	if (ipu_dev_enter(idev, &idx))
		return -ENODEV;
	start = ktime_get_ns();
	ret = ipu_hw_dma(idev, dev_off, iter, to_device);
	ipu_dev_exit(idev, idx);
	ipu_usage_add_xfer(usage, start);
	return ret;
}

/**
 * ipu_xfer_chunks - move a user range to or from device memory, at once
 * @ifile: the file, whose usage the time goes to
 * @dev_off: device memory offset of the first byte
 * @uaddr: the user range's first byte
 * @len: bytes
 * @to_device: direction
 * @nowait: the caller cannot wait (io_uring's inline issue): pinning that
 *	would fault is -EAGAIN (see ipu_dma_pin()); chunks moved before it
 *	are moved again by the retry, which is harmless (a copy)
 *
 * Pin a chunk, enter the device, move it, leave, unpin: pinning may sleep
 * on a fault for as long as userspace wants, and must not hold up removal.
 *
 * Return: 0 or a negative errno (ipu_dma_pin()'s, the device's, -ENODEV,
 * -EINTR).
 */
int ipu_xfer_chunks(struct ipu_file *ifile, u64 dev_off, unsigned long uaddr,
		    u64 len, bool to_device, bool nowait)
{
	struct ipu_device *idev = ifile->idev;

	while (len) {
		size_t chunk = min_t(u64, len,
				     IPU_XFER_CHUNK - offset_in_page(uaddr));
		struct ipu_dma_buf buf;
		int ret;

		ret = ipu_dma_pin(&buf, uaddr, chunk, to_device, nowait);
		if (ret)
			return ret;
		ret = ipu_xfer_dma(idev, ifile->usage, dev_off, &buf.iter,
				   to_device);
		ipu_dma_unpin(&buf);
		if (ret)
			return ret;

		uaddr += chunk;
		dev_off += chunk;
		len -= chunk;
		if (len && fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

/**
 * ipu_xfer_get_bo - the buffer object a transfer names, looked up inside the
 * unplug guard
 * @ifile: the file
 * @args: the transfer, checked (ipu_xfer_check_args())
 * @bop: out: the buffer, referenced; release with ipu_bo_put()
 *
 * Return: 0; -ENODEV once the device is unplugged; ipu_xfer_lookup()'s.
 */
int ipu_xfer_get_bo(struct ipu_file *ifile, const struct ipu_xfer *args,
		    struct ipu_bo **bop)
{
	int idx, ret;

	ret = ipu_dev_enter(ifile->idev, &idx);
	if (ret)
		return ret;
	ret = ipu_xfer_lookup(ifile, args, bop);
	ipu_dev_exit(ifile->idev, idx);
	return ret;
}

/**
 * ipu_xfer_move - a transfer the caller makes at once, with its trace events
 * @ifile: the file
 * @bo: the buffer object @args names (ipu_xfer_get_bo())
 * @args: the transfer
 * @path: how it came (enum ipu_trace_path), for the trace
 * @iter: a registered buffer's range, or NULL: pin @args->user_ptr a chunk
 *	at a time (ipu_xfer_chunks())
 * @nowait: as ipu_xfer_chunks()'s
 *
 * The ioctl's way, and io_uring's on a device whose DMA is a CPU copy.
 *
 * Return: 0 or a negative errno (ipu_xfer_chunks()'s or ipu_xfer_dma()'s).
 */
int ipu_xfer_move(struct ipu_file *ifile, struct ipu_bo *bo,
		  const struct ipu_xfer *args, int path, struct iov_iter *iter,
		  bool nowait)
{
	bool to_device = args->flags & IPU_XFER_TO_DEVICE;
	u64 dev_off = ipu_bo_dev_off(bo) + args->bo_offset;
	int ret;

	trace_ipu_xfer_submit(bo, ifile->usage, args->length, to_device, path,
			      0);
	trace_ipu_xfer_start(bo, ifile->usage, args->length, to_device, path,
			     0);
	if (iter)
		ret = ipu_xfer_dma(ifile->idev, ifile->usage, dev_off, iter,
				   to_device);
	else
		ret = ipu_xfer_chunks(ifile, dev_off, args->user_ptr,
				      args->length, to_device, nowait);
	trace_ipu_xfer_complete(bo, ifile->usage, args->length, to_device,
				path, ret);
	return ret;
}

int ipu_ioctl_xfer(struct ipu_file *ifile, void *data)
{
	struct ipu_xfer *args = data;
	struct ipu_bo *bo;
	int ret;

	ret = ipu_xfer_check_args(args);
	if (ret)
		return ret;
	ret = ipu_xfer_get_bo(ifile, args, &bo);
	if (ret)
		return ret;
	/* The buffer's reference keeps its memory while we sleep in pinning. */
	ret = ipu_xfer_move(ifile, bo, args, IPU_TRACE_IOCTL, NULL, false);
	ipu_bo_put(bo);
	return ret;
}
