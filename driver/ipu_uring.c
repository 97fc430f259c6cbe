// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring passthrough: XFER and LAUNCH as SQE128 commands, with the same
 * payload structs as the ioctls. A launch is asynchronous, and so is a
 * transfer on a device that DMAs by itself (PCIe): ->uring_cmd checks the
 * command, takes what it needs from the submitting task (pinned pages, or
 * the registered buffer's bvecs with IORING_URING_CMD_FIXED), queues the
 * work and returns -EIOCBQUEUED. Transfers then run on ipu_xfer_wq,
 * launches on the firmware; either completes through io_uring task work,
 * so the CQE is posted from the submitter's context. A transfer on a
 * device whose DMA is a CPU copy (ipu_hw_ops.dma_cpu: simulated IPUs) is
 * done before ->uring_cmd returns, as the ioctl does it
 * (ipu_xfer_chunks(): pinned 2 MiB at a time, killable), and its result is
 * the CQE's: no workqueue, no task work, no slot of the cap below (nothing
 * stays in flight). The three hand-offs it used to take (io-wq to pin,
 * ipu_xfer_wq to copy, task work to complete) made a 4 KiB transfer on a
 * simulated IPU in a TCG guest ten times slower than the ioctl (make
 * kernel-bench).
 *
 * One file has at most max_uring_xfers (module parameter, default
 * IPU_MAX_URING_XFERS) transfers in flight (-EAGAIN beyond, as for
 * launches): each holds pinned pages and may occupy a
 * worker of the transfer queue for as long as its DMA queue makes it
 * wait. The cap is per file, as IPU_MAX_LAUNCHES is: transfers need the
 * owner's file, so while one file owns the device it bounds the device's
 * transfers too, and a file that attaches after another detached never
 * finds its cap taken by the other's transfers still in flight.
 *
 * Results are 0 or a negative errno, so IOSQE_IO_LINK chains stop at the
 * first failure. On kernels with io_uring_cmd_mark_cancelable(), launches
 * the firmware has not taken yet can be cancelled; everything else
 * completes by itself in bounded time (transfers at once, launches by their
 * deadline).
 *
 * Issued with IO_URING_F_NONBLOCK (inline from io_uring_enter()), a command
 * must not wait: allocations are GFP_NOWAIT, and a transfer from ordinary
 * user memory is pinned without faulting (ipu_dma_pin()'s nowait); when a
 * page is not present, or an allocation fails, it goes back with -EAGAIN
 * so that io_uring issues it again from its worker threads, where pinning
 * may fault. Registered buffers (IORING_URING_CMD_FIXED) are pinned
 * already.
 */
#include <linux/bits.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include <uapi/linux/ipu.h>

#include "compat.h"
#include "ipu_bo.h"
#include "ipu_dma.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_file.h"
#include "ipu_launch.h"
#include "ipu_trace.h"
#include "ipu_uring.h"
#include "ipu_xfer.h"

/* Largest asynchronous transfer: it is pinned whole at submission. */
#define IPU_URING_XFER_MAX BIT_ULL(30)

/**
 * struct ipu_uring_xfer - an asynchronous transfer
 * @work: runs on the DMA workqueue.
 * @cmd: the io_uring command.
 * @idev: the device.
 * @bo: the buffer object; referenced.
 * @dev_off: device memory offset of the first byte.
 * @buf: the pinned host range (unless @fixed).
 * @fixed_iter: the registered buffer's range (if @fixed).
 * @fixed: the host range is a registered buffer, already pinned.
 * @to_device: direction.
 * @status: the result.
 * @usage: the file's usage, where the transfer's time goes; the command
 *	holds the file, and so its usage, until it completes.
 */
struct ipu_uring_xfer {
	struct work_struct work;
	struct io_uring_cmd *cmd;
	struct ipu_device *idev;
	struct ipu_bo *bo;
	u64 dev_off;
	struct ipu_dma_buf buf;
	struct iov_iter fixed_iter;
	bool fixed;
	bool to_device;
	int status;
	struct ipu_usage *usage;
};

/* What ->pdu of a command in flight holds. */
struct ipu_uring_pdu {
	struct ipu_uring_xfer *xfer;
	struct ipu_launch_req *launch;
};

static struct ipu_uring_pdu *ipu_uring_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct ipu_uring_pdu) > sizeof(cmd->pdu));
	return (struct ipu_uring_pdu *)cmd->pdu;
}

/*
 * The payload as the ioctl dispatcher would take it: at least the v1 size,
 * bytes past what this kernel knows zero.
 */
static int ipu_uring_copy_args(void *dst, size_t ksize, size_t v1_size,
			       const void *payload, size_t usize)
{
	if (usize < v1_size || usize > IPU_URING_PAYLOAD)
		return -EINVAL;
	if (usize > ksize && memchr_inv((const u8 *)payload + ksize, 0,
					usize - ksize))
		return -E2BIG;
	memset(dst, 0, ksize);
	memcpy(dst, payload, min(usize, ksize));
	return 0;
}

static int max_uring_xfers_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1u << 20);
}

static const struct kernel_param_ops max_uring_xfers_ops = {
	.set = max_uring_xfers_set,
	.get = param_get_uint,
};

static unsigned int max_uring_xfers = IPU_MAX_URING_XFERS;
module_param_cb(max_uring_xfers, &max_uring_xfers_ops, &max_uring_xfers,
		0644);
MODULE_PARM_DESC(max_uring_xfers,
		 "io_uring transfers one file may have in flight (1-1048576, default 32768)");

/*
 * Counted up first and taken back if over: the cap may be lowered at run
 * time below what a file has in flight, which atomic_add_unless() would
 * not see.
 */
static bool ipu_uring_xfer_slot_get(struct ipu_file *ifile)
{
	if (atomic_inc_return(&ifile->nr_xfers) <=
	    (int)READ_ONCE(max_uring_xfers))
		return true;
	atomic_dec(&ifile->nr_xfers);
	return false;
}

static void ipu_uring_xfer_slot_put(struct ipu_file *ifile)
{
	atomic_dec(&ifile->nr_xfers);
}

static void ipu_uring_xfer_done(struct io_uring_cmd *cmd,
				unsigned int issue_flags)
{
	struct ipu_uring_xfer *x = ipu_uring_pdu(cmd)->xfer;
	int status = x->status;

	if (!x->fixed)
		ipu_dma_unpin(&x->buf);
	ipu_bo_put(x->bo);
	kfree(x);
	/* Free before userspace sees the CQE, which may resubmit at once. */
	ipu_uring_xfer_slot_put(cmd->file->private_data);
	ipu_uring_cmd_done(cmd, status, issue_flags);
}

IPU_URING_TW(ipu_uring_xfer_tw, ipu_uring_xfer_done)

static void ipu_uring_xfer_work(struct work_struct *work)
{
	struct ipu_uring_xfer *x = container_of(work, struct ipu_uring_xfer,
						work);
	struct iov_iter *iter = x->fixed ? &x->fixed_iter : &x->buf.iter;
	size_t len = iov_iter_count(iter); /* for the trace: DMA consumes it */

	trace_ipu_xfer_start(x->bo, x->usage, len, x->to_device,
			     IPU_TRACE_URING_PATH(x->fixed), 0);
	x->status = ipu_xfer_dma(x->idev, x->usage, x->dev_off, iter,
				 x->to_device);
	trace_ipu_xfer_complete(x->bo, x->usage, len, x->to_device,
				IPU_TRACE_URING_PATH(x->fixed), x->status);
	/* The buffers are released in task context, never here. */
	io_uring_cmd_complete_in_task(x->cmd, ipu_uring_xfer_tw);
}

/* The range of a registered buffer, as an iterator. */
static int ipu_uring_fixed_iter(struct io_uring_cmd *cmd,
				const struct ipu_xfer *args,
				struct iov_iter *iter, unsigned int issue_flags)
{
	int ret;

	ret = ipu_uring_import_fixed(args->user_ptr, args->length,
				     args->flags & IPU_XFER_TO_DEVICE ?
					     WRITE : READ,
				     iter, cmd, issue_flags);
	/* The UAPI's one errno for "not inside the registered buffer". */
	if (ret && ret != -ENOMEM)
		ret = -EFAULT;
	return ret;
}

/*
 * A transfer on a device whose DMA is a CPU copy, done now: the ioctl's
 * path, pinning without faulting when issued inline (-EAGAIN: io_uring
 * issues it again from its worker).
 */
static int ipu_uring_xfer_now(struct io_uring_cmd *cmd, struct ipu_file *ifile,
			      const struct ipu_xfer *args,
			      unsigned int issue_flags)
{
	bool fixed = cmd->flags & IORING_URING_CMD_FIXED;
	struct iov_iter iter;
	struct ipu_bo *bo;
	int ret;

	ret = ipu_xfer_get_bo(ifile, args, &bo);
	if (ret)
		return ret;
	if (fixed)
		ret = ipu_uring_fixed_iter(cmd, args, &iter, issue_flags);
	/* An -EAGAIN inline ends this attempt: io-wq's issue is another. */
	if (!ret)
		ret = ipu_xfer_move(ifile, bo, args,
				    IPU_TRACE_URING_PATH(fixed),
				    fixed ? &iter : NULL,
				    issue_flags & IO_URING_F_NONBLOCK);
	ipu_bo_put(bo);
	return ret;
}

/* Allocation flags for the issue path: charged, and never sleeping inline. */
static gfp_t ipu_uring_gfp(unsigned int issue_flags)
{
	return issue_flags & IO_URING_F_NONBLOCK ? GFP_NOWAIT | __GFP_ACCOUNT :
						   GFP_KERNEL_ACCOUNT;
}

/* A failed allocation inline is worth a retry from io_uring's worker. */
static int ipu_uring_nomem(unsigned int issue_flags)
{
	return issue_flags & IO_URING_F_NONBLOCK ? -EAGAIN : -ENOMEM;
}

static int ipu_uring_xfer(struct io_uring_cmd *cmd, struct ipu_file *ifile,
			  const void *payload, size_t usize,
			  unsigned int issue_flags)
{
	struct ipu_device *idev = ifile->idev;
	bool fixed = cmd->flags & IORING_URING_CMD_FIXED;
	struct ipu_uring_xfer *x;
	struct ipu_xfer args;
	int ret;

	ret = ipu_uring_copy_args(&args, sizeof(args), sizeof(args), payload,
				  usize);
	if (ret)
		return ret;
	ret = ipu_xfer_check_args(&args);
	if (ret)
		return ret;
	if (args.length > IPU_URING_XFER_MAX)
		return -EINVAL;
	if (idev->ops->dma_cpu)
		return ipu_uring_xfer_now(cmd, ifile, &args, issue_flags);
	/*
	 * Past the cap: -EAGAIN. Issued inline (IO_URING_F_NONBLOCK), the
	 * command goes to io_uring's worker, which issues it once more
	 * without the flag; from there -EAGAIN is the CQE's result (this
	 * file is neither pollable nor IOPOLL, so nothing retries it).
	 */
	if (!ipu_uring_xfer_slot_get(ifile))
		return -EAGAIN;

	x = kzalloc(sizeof(*x), ipu_uring_gfp(issue_flags));
	if (!x) {
		ret = ipu_uring_nomem(issue_flags);
		goto err_slot;
	}
	x->cmd = cmd;
	x->idev = idev;
	x->usage = ifile->usage;
	x->to_device = args.flags & IPU_XFER_TO_DEVICE;
	x->fixed = fixed;

	ret = ipu_xfer_get_bo(ifile, &args, &x->bo);
	if (ret)
		goto err_free;
	x->dev_off = ipu_bo_dev_off(x->bo) + args.bo_offset;

	if (x->fixed)
		ret = ipu_uring_fixed_iter(cmd, &args, &x->fixed_iter,
					   issue_flags);
	else
		ret = ipu_dma_pin(&x->buf, args.user_ptr, args.length,
				  x->to_device,
				  issue_flags & IO_URING_F_NONBLOCK);
	if (ret)
		goto err_put_bo;

	trace_ipu_xfer_submit(x->bo, x->usage, args.length, x->to_device,
			      IPU_TRACE_URING_PATH(x->fixed), 0);
	ipu_uring_pdu(cmd)->xfer = x;
	INIT_WORK(&x->work, ipu_uring_xfer_work);
	queue_work(ipu_xfer_wq, &x->work);
	return -EIOCBQUEUED;

err_put_bo:
	ipu_bo_put(x->bo);
err_free:
	kfree(x);
err_slot:
	ipu_uring_xfer_slot_put(ifile);
	return ret;
}

/*
 * Post a launch's completion. In this order: the file's launch slot is
 * free before userspace sees the CQE; io_uring_cmd_done() takes the
 * command off io_uring's cancelable list (under the ring's lock) before the
 * launch is freed, so a cancel pass never finds a freed launch; the
 * command is not touched after it is done.
 */
static void ipu_uring_launch_done(struct io_uring_cmd *cmd,
				  struct ipu_launch_req *req, int status,
				  unsigned int issue_flags)
{
	ipu_launch_slot_put(cmd->file->private_data);
	ipu_uring_cmd_done(cmd, status, issue_flags);
	ipu_launch_put(req);
}

static void ipu_uring_launch_finish(struct io_uring_cmd *cmd,
				    unsigned int issue_flags)
{
	struct ipu_launch_req *req = ipu_uring_pdu(cmd)->launch;

	ipu_uring_launch_done(cmd, req, req->status, issue_flags);
}

IPU_URING_TW(ipu_uring_launch_tw, ipu_uring_launch_finish)

/* Called by the launch queue when the firmware (or the timeout) is done. */
static void ipu_uring_launch_complete(struct ipu_launch_req *req)
{
	io_uring_cmd_complete_in_task(req->priv, ipu_uring_launch_tw);
}

static int ipu_uring_launch(struct io_uring_cmd *cmd, struct ipu_file *ifile,
			    const void *payload, size_t usize,
			    unsigned int issue_flags)
{
	struct ipu_launch_req *req;
	struct ipu_launch args;
	int ret;

	BUILD_BUG_ON(sizeof(args) > IPU_URING_PAYLOAD);
	ret = ipu_uring_copy_args(&args, sizeof(args), IPU_LAUNCH_SIZE_V1,
				  payload, usize);
	if (ret)
		return ret;
	if (args.fence || cmd->flags & IORING_URING_CMD_FIXED)
		return -EINVAL;

	if (!ipu_launch_slot_get(ifile))
		return -EAGAIN;
	req = ipu_launch_alloc(ifile->idev, ipu_uring_launch_complete, cmd,
			       ipu_uring_gfp(issue_flags));
	if (!req) {
		ret = ipu_uring_nomem(issue_flags);
		goto err_slot;
	}
	ret = ipu_launch_prepare(ifile, &args, req);
	if (ret)
		goto err_put;

	/*
	 * Complete before it is published: once cancelable, io_uring's cancel
	 * pass (ring exit, maybe on another CPU with IOSQE_ASYNC) may look at
	 * it. Cancelable before it is pushed: once pushed it may complete, and
	 * a completed command must not be marked.
	 */
	ipu_uring_pdu(cmd)->launch = req;
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
	ret = ipu_launch_push(req);
	if (ret) {
		if (!IPU_URING_CAN_CANCEL)
			goto err_put;
		/*
		 * A command marked cancelable leaves io_uring's list of them
		 * only through io_uring_cmd_done(): returned as is, it would
		 * stay there, freed, until the ring's cancel pass touches it.
		 */
		ipu_uring_launch_done(cmd, req, ret, issue_flags);
		return -EIOCBQUEUED;
	}
	return -EIOCBQUEUED;

err_put:
	ipu_launch_put(req);
err_slot:
	ipu_launch_slot_put(ifile);
	return ret;
}

/* io_uring is tearing the ring down: withdraw a launch not yet running. */
static int ipu_uring_cancel(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct ipu_launch_req *req = ipu_uring_pdu(cmd)->launch;

	if (req && ipu_launch_cancel(req))
		ipu_uring_launch_done(cmd, req, -ECANCELED, issue_flags);
	return 0;
}

/**
 * ipu_uring_cmd - file_operations.uring_cmd of /dev/ipuN
 * @cmd: the command
 * @issue_flags: io_uring's
 *
 * Return: -EIOCBQUEUED when the command went asynchronous, else its result
 * (posted as the CQE): -EINVAL without SQE128 or for a malformed payload,
 * -ENOTTY for an unknown cmd_op, the command's errors.
 */
int ipu_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct ipu_file *ifile = cmd->file->private_data;
	unsigned int op = cmd->cmd_op;
	const void *payload;

	if (IPU_URING_CAN_CANCEL && (issue_flags & IPU_URING_F_CANCEL))
		return ipu_uring_cancel(cmd, issue_flags);
	if (ipu_dev_unplugged(ifile->idev))
		return -ENODEV;
	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;
	memset(ipu_uring_pdu(cmd), 0, sizeof(struct ipu_uring_pdu));
	payload = ipu_uring_cmd_payload(cmd);

	if (_IOC_TYPE(op) != IPU_IOCTL_TYPE)
		return -ENOTTY;
	if (_IOC_NR(op) == _IOC_NR(IPU_URING_CMD_XFER) &&
	    _IOC_DIR(op) == _IOC_DIR(IPU_URING_CMD_XFER))
		return ipu_uring_xfer(cmd, ifile, payload, _IOC_SIZE(op),
				      issue_flags);
	if (_IOC_NR(op) == _IOC_NR(IPU_URING_CMD_LAUNCH) &&
	    _IOC_DIR(op) == _IOC_DIR(IPU_URING_CMD_LAUNCH))
		return ipu_uring_launch(cmd, ifile, payload, _IOC_SIZE(op),
					issue_flags);
	return -ENOTTY;
}
