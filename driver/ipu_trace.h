/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of ipu.ko (events/ipu/ in tracefs), for trace-cmd, perf and
 * Perfetto: buffers, transfers, launches, interrupts, deadline expiries,
 * resets, unplugs and gather requests, on simulated and PCI IPUs alike.
 * docs/driver.md lists them with their fields.
 *
 * Every field is a value: device minor, per-file client id (fdinfo's
 * drm-client-id), buffer handle, launch id; never a kernel pointer. No
 * string field either: __string()/__assign_str() changed their arguments
 * in 6.10, and the names the events print (paths, causes) are small
 * enums printed with __print_symbolic(), which every kernel has alike.
 *
 * Off, each call site is a static branch that is not taken: the
 * arguments are not even evaluated.
 *
 * This header is read several times by <trace/define_trace.h>
 * (TRACE_HEADER_MULTI_READ); ipu_trace.c defines CREATE_TRACE_POINTS.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ipu

#ifndef _IPU_TRACE_ENUMS
#define _IPU_TRACE_ENUMS

/* How a transfer reached the driver. */
enum ipu_trace_path {
	IPU_TRACE_IOCTL,	/* the XFER ioctl */
	IPU_TRACE_URING,	/* IPU_URING_CMD_XFER from user memory */
	IPU_TRACE_URING_FIXED,	/* the same from a registered buffer */
};

/* Why a device was reset. */
enum ipu_trace_reset_cause {
	IPU_TRACE_RESET_IOCTL,		/* the owner's RESET */
	IPU_TRACE_RESET_DEADLINE,	/* the watchdog: a launch was late */
	IPU_TRACE_RESET_PCI,		/* FLR, AER or lost power (PCI core) */
	IPU_TRACE_RESET_RESUME,		/* resume from system sleep */
};

/* The path of an io_uring transfer, by whether its buffer is registered. */
#define IPU_TRACE_URING_PATH(fixed) \
	((fixed) ? IPU_TRACE_URING_FIXED : IPU_TRACE_URING)

#endif /* _IPU_TRACE_ENUMS */

#if !defined(_IPU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IPU_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

#include <uapi/linux/ipu.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_launch.h"

TRACE_DEFINE_ENUM(IPU_TRACE_IOCTL);
TRACE_DEFINE_ENUM(IPU_TRACE_URING);
TRACE_DEFINE_ENUM(IPU_TRACE_URING_FIXED);
TRACE_DEFINE_ENUM(IPU_TRACE_RESET_IOCTL);
TRACE_DEFINE_ENUM(IPU_TRACE_RESET_DEADLINE);
TRACE_DEFINE_ENUM(IPU_TRACE_RESET_PCI);
TRACE_DEFINE_ENUM(IPU_TRACE_RESET_RESUME);

#define ipu_trace_show_path(p)						\
	__print_symbolic(p, { IPU_TRACE_IOCTL, "ioctl" },		\
			 { IPU_TRACE_URING, "io_uring" },		\
			 { IPU_TRACE_URING_FIXED, "registered" })

#define ipu_trace_show_dir(d)						\
	__print_symbolic(d, { 1, "to_device" }, { 0, "from_device" })

#define ipu_trace_show_reset(c)						\
	__print_symbolic(c, { IPU_TRACE_RESET_IOCTL, "ioctl" },	\
			 { IPU_TRACE_RESET_DEADLINE, "deadline" },	\
			 { IPU_TRACE_RESET_PCI, "pci" },		\
			 { IPU_TRACE_RESET_RESUME, "resume" })

/* Buffer objects: created by BO_CREATE, destroyed with their last user. */
DECLARE_EVENT_CLASS(ipu_bo_class,
		    TP_PROTO(const struct ipu_bo *bo),
		    TP_ARGS(bo),
		    TP_STRUCT__entry(__field(int, minor)
				     __field(u32, handle)
				     __field(u64, size)
				     __field(u64, dev_addr)
		    ),
		    TP_fast_assign(__entry->minor = bo->idev->minor;
				   __entry->handle = bo->handle;
				   __entry->size = bo->size;
				   __entry->dev_addr = bo->dev_addr;
		    ),
		    TP_printk("ipu%d handle=%u size=%llu dev_addr=0x%llx",
			      __entry->minor, __entry->handle, __entry->size,
			      __entry->dev_addr)
);

DEFINE_EVENT(ipu_bo_class, ipu_bo_create,
	     TP_PROTO(const struct ipu_bo *bo),
	     TP_ARGS(bo)
);

/* A buffer that never got a handle (BO_CREATE failed) was never created. */
DEFINE_EVENT_CONDITION(ipu_bo_class, ipu_bo_destroy,
		       TP_PROTO(const struct ipu_bo *bo),
		       TP_ARGS(bo),
		       TP_CONDITION(bo->handle)
);

/*
 * Transfers: submitted (checked, buffer found), started (the device
 * moves data), complete (with the result, 0 or a negative errno).
 */
DECLARE_EVENT_CLASS(ipu_xfer_class,
		    TP_PROTO(const struct ipu_bo *bo, const struct ipu_usage *usage,
			     u64 bytes, bool to_device, int path, int result),
		    TP_ARGS(bo, usage, bytes, to_device, path, result),
		    TP_STRUCT__entry(__field(int, minor)
				     __field(u64, client)
				     __field(u32, handle)
				     __field(u64, bytes)
				     __field(u8, to_device)
				     __field(u8, path)
				     __field(int, result)
		    ),
		    TP_fast_assign(__entry->minor = bo->idev->minor;
				   __entry->client = usage->client_id;
				   __entry->handle = bo->handle;
				   __entry->bytes = bytes;
				   __entry->to_device = to_device;
				   __entry->path = path;
				   __entry->result = result;
		    ),
		    TP_printk("ipu%d client=%llu handle=%u bytes=%llu dir=%s path=%s result=%d",
			      __entry->minor, __entry->client, __entry->handle,
			      __entry->bytes, ipu_trace_show_dir(__entry->to_device),
			      ipu_trace_show_path(__entry->path), __entry->result)
);

DEFINE_EVENT(ipu_xfer_class, ipu_xfer_submit,
	     TP_PROTO(const struct ipu_bo *bo, const struct ipu_usage *usage,
		      u64 bytes, bool to_device, int path, int result),
	     TP_ARGS(bo, usage, bytes, to_device, path, result)
);

DEFINE_EVENT(ipu_xfer_class, ipu_xfer_start,
	     TP_PROTO(const struct ipu_bo *bo, const struct ipu_usage *usage,
		      u64 bytes, bool to_device, int path, int result),
	     TP_ARGS(bo, usage, bytes, to_device, path, result)
);

DEFINE_EVENT(ipu_xfer_class, ipu_xfer_complete,
	     TP_PROTO(const struct ipu_bo *bo, const struct ipu_usage *usage,
		      u64 bytes, bool to_device, int path, int result),
	     TP_ARGS(bo, usage, bytes, to_device, path, result)
);

/*
 * Launches: submitted (queued with its id), started (taken by the
 * firmware or the device's queue), then complete (status 0) or failed
 * (a negative errno: the firmware's, -ETIMEDOUT, -EIO after a reset,
 * -ENODEV after unplug, -ECANCELED).
 */
DECLARE_EVENT_CLASS(ipu_launch_class,
		    TP_PROTO(const struct ipu_launch_req *req),
		    TP_ARGS(req),
		    TP_STRUCT__entry(__field(int, minor)
				     __field(u64, client)
				     __field(u64, id)
				     __field(u32, exe_handle)
				     __field(u32, arena_handle)
				     __field(u32, replica)
				     __field(u32, num_replicas)
				     __field(u32, instance_count)
				     __field(int, status)
		    ),
		    TP_fast_assign(__entry->minor = req->idev->minor;
				   __entry->client = req->usage ? req->usage->client_id : 0;
				   __entry->id = req->id;
				   __entry->exe_handle = req->exe_bo ? req->exe_bo->handle : 0;
				   __entry->arena_handle =
					req->arena_bo ? req->arena_bo->handle : 0;
				   __entry->replica = req->replica;
				   __entry->num_replicas = req->num_replicas;
				   __entry->instance_count = req->instance_count;
				   __entry->status = req->done ? req->status : 0;
		    ),
		    TP_printk("ipu%d client=%llu id=%llu exe=%u arena=%u replica=%u/%u instances=%u status=%d",
			      __entry->minor, __entry->client, __entry->id,
			      __entry->exe_handle, __entry->arena_handle, __entry->replica,
			      __entry->num_replicas, __entry->instance_count,
			      __entry->status)
);

DEFINE_EVENT(ipu_launch_class, ipu_launch_submit,
	     TP_PROTO(const struct ipu_launch_req *req),
	     TP_ARGS(req)
);

DEFINE_EVENT(ipu_launch_class, ipu_launch_start,
	     TP_PROTO(const struct ipu_launch_req *req),
	     TP_ARGS(req)
);

DEFINE_EVENT_CONDITION(ipu_launch_class, ipu_launch_complete,
		       TP_PROTO(const struct ipu_launch_req *req),
		       TP_ARGS(req),
		       TP_CONDITION(!req->status)
);

DEFINE_EVENT_CONDITION(ipu_launch_class, ipu_launch_fail,
		       TP_PROTO(const struct ipu_launch_req *req),
		       TP_ARGS(req),
		       TP_CONDITION(req->status)
);

/* A PCI IPU's interrupt: the vector and the causes acknowledged. */
TRACE_EVENT(ipu_irq,
	    TP_PROTO(int minor, u32 vector, u32 cause),
	    TP_ARGS(minor, vector, cause),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u32, vector)
			     __field(u32, cause)
	    ),
	    TP_fast_assign(__entry->minor = minor;
			   __entry->vector = vector;
			   __entry->cause = cause;
	    ),
	    TP_printk("ipu%d vector=%u cause=0x%x", __entry->minor,
		      __entry->vector, __entry->cause)
);

/*
 * A PCI IPU's DMA queue: a transfer, mapped, joins the queue's pending
 * list (@pending: how many wait there now, it included), and a doorbell
 * hands the device @descriptors descriptors of @transfers transfers.
 * Together they show how well transfers share a doorbell (ipu_pci_dma.c).
 */
TRACE_EVENT(ipu_dma_queue,
	    TP_PROTO(int minor, bool to_device, u32 pending),
	    TP_ARGS(minor, to_device, pending),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u8, to_device)
			     __field(u32, pending)
	    ),
	    TP_fast_assign(__entry->minor = minor;
			   __entry->to_device = to_device;
			   __entry->pending = pending;
	    ),
	    TP_printk("ipu%d dir=%s pending=%u", __entry->minor,
		      ipu_trace_show_dir(__entry->to_device), __entry->pending)
);

TRACE_EVENT(ipu_dma_doorbell,
	    TP_PROTO(int minor, bool to_device, u32 descriptors, u32 transfers),
	    TP_ARGS(minor, to_device, descriptors, transfers),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u8, to_device)
			     __field(u32, descriptors)
			     __field(u32, transfers)
	    ),
	    TP_fast_assign(__entry->minor = minor;
			   __entry->to_device = to_device;
			   __entry->descriptors = descriptors;
			   __entry->transfers = transfers;
	    ),
	    TP_printk("ipu%d dir=%s descriptors=%u transfers=%u",
		      __entry->minor, ipu_trace_show_dir(__entry->to_device),
		      __entry->descriptors, __entry->transfers)
);

/* The watchdog found a launch past its deadline; a reset follows. */
TRACE_EVENT(ipu_deadline,
	    TP_PROTO(const struct ipu_device *idev, unsigned int timeout_ms),
	    TP_ARGS(idev, timeout_ms),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(unsigned int, timeout_ms)
	    ),
	    TP_fast_assign(__entry->minor = idev->minor;
			   __entry->timeout_ms = timeout_ms;
	    ),
	    TP_printk("ipu%d timeout_ms=%u", __entry->minor, __entry->timeout_ms)
);

/* A reset of the execution state: why, and its result. */
TRACE_EVENT(ipu_reset,
	    TP_PROTO(const struct ipu_device *idev, int cause, int result),
	    TP_ARGS(idev, cause, result),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(int, cause)
			     __field(int, result)
	    ),
	    TP_fast_assign(__entry->minor = idev->minor;
			   __entry->cause = cause;
			   __entry->result = result;
	    ),
	    TP_printk("ipu%d cause=%s result=%d", __entry->minor,
		      ipu_trace_show_reset(__entry->cause), __entry->result)
);

TRACE_EVENT(ipu_unplug,
	    TP_PROTO(const struct ipu_device *idev),
	    TP_ARGS(idev),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u64, resets)
	    ),
	    TP_fast_assign(__entry->minor = idev->minor;
			   __entry->resets = atomic64_read(&idev->reset_count);
	    ),
	    TP_printk("ipu%d resets=%llu", __entry->minor, __entry->resets)
);

/*
 * A split launch's gather request, as the device posted it (result: 0
 * when it reached the file's inbox, else the errno the device is
 * answered with at once), and the file's answer to it, traced as it goes
 * to the device: before what it causes there (the launch going on or
 * failing), and only for requests the device still waits for.
 */
TRACE_EVENT(ipu_gather_request,
	    TP_PROTO(const struct ipu_launch_req *req,
		     const struct ipu_gather_next *info, u32 seq, int result),
	    TP_ARGS(req, info, seq, result),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u64, id)
			     __field(u32, seq)
			     __field(u64, bytes)
			     __field(u32, replica)
			     __field(u32, instance)
			     __field(u32, instance_count)
			     __field(int, result)
	    ),
	    TP_fast_assign(__entry->minor = req->idev->minor;
			   __entry->id = req->id;
			   __entry->seq = seq;
			   __entry->bytes = info->bytes;
			   __entry->replica = info->replica;
			   __entry->instance = info->instance_index;
			   __entry->instance_count = info->instance_count;
			   __entry->result = result;
	    ),
	    TP_printk("ipu%d id=%llu seq=%u bytes=%llu replica=%u instance=%u/%u result=%d",
		      __entry->minor, __entry->id, __entry->seq, __entry->bytes,
		      __entry->replica, __entry->instance, __entry->instance_count,
		      __entry->result)
);

TRACE_EVENT(ipu_gather_answer,
	    TP_PROTO(const struct ipu_device *idev, u32 seq, int status),
	    TP_ARGS(idev, seq, status),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u32, seq)
			     __field(int, status)
	    ),
	    TP_fast_assign(__entry->minor = idev->minor;
			   __entry->seq = seq;
			   __entry->status = status;
	    ),
	    TP_printk("ipu%d seq=%u status=%d", __entry->minor,
		      __entry->seq, __entry->status)
);

#endif /* _IPU_TRACE_H */

/*
 * An out-of-tree module's trace header: <trace/define_trace.h> includes
 * it again as "TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h", found through
 * the -I$(src)/driver of the Kbuild file.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ipu_trace
#include <trace/define_trace.h>
