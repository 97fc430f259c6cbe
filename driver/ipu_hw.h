/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the device-independent core meets a kind of IPU.
 *
 * The core (chardev, files, buffer objects, transfers) knows nothing of how a
 * device stores memory or moves data; each kind of IPU (the simulated one in
 * ipu_sim.c, later PCI hardware) fills in a struct ipu_hw_ops, like null_blk,
 * vkms and netdevsim do for their subsystems.
 */
#ifndef _IPU_HW_H
#define _IPU_HW_H

#include <linux/types.h>

struct ipu_device;
struct ipu_info;
struct ipu_launch_req;
struct iov_iter;

/**
 * struct ipu_hw_ops - what a kind of IPU provides to the core
 * @platform: IPU_PLATFORM_* value reported to userspace.
 * @fw_in_userspace: the device's firmware is a userspace process that
 *	attaches through the FW_* ioctls (simulated IPUs).
 * @mem_wc: device memory is I/O memory (a prefetchable BAR): mmap maps it
 *	write-combining rather than cached, and unplugging revokes every
 *	mapping of it (the frames belong to the bus, and a later binding
 *	hands them to other files).
 * @dma: move all of @iter (pinned host pages, a bvec iterator) to or from
 *	device memory at @dev_off. Returns 0 or a negative errno. Called with
 *	the device entered (not unplugged), from process or workqueue context.
 * @dma_cpu: @dma is a copy by the CPU that neither sleeps nor waits for a
 *	device (simulated IPUs): io_uring runs such a transfer inline, as
 *	the ioctl does, rather than handing it to ipu_xfer_wq.
 * @mem_clear: zero @len bytes of device memory at @dev_off.
 * @mem_pfn: the page frame of device memory at @dev_off (page aligned), for
 *	mmap faults. Mappings are VM_PFNMAP | VM_IO: the core inserts the
 *	frame, never a struct page, so GUP (vmsplice, O_DIRECT, registered
 *	io_uring buffers) cannot hold device memory beyond its buffer's
 *	lifetime. Returns 0 or -EFAULT.
 * @launch: hand @req to the device's own command queue (PCI IPUs; NULL
 *	where launches go to a userspace firmware). Called with the launch
 *	queue's lock held: must not sleep. Returns 0 when the device took it
 *	(the kind then reports its result with ipu_launch_complete()),
 *	-EBUSY when the queue is full (it stays pending until the kind calls
 *	ipu_launch_kick()), or another negative errno: the launch's result.
 * @reset: reset the execution state; 0 or a negative errno. Launches the
 *	device had taken and did not finish stay in flight: the caller fails
 *	them once the device can no longer touch their buffers.
 * @gather_answer: answer the device's gather request @seq with @status (0
 *	or a negative errno) (ipu_gather.c); NULL where the kind has no
 *	gather requests. Only devices with &ipu_device.gather post any (the
 *	others' split launches are -EOPNOTSUPP). Called with the device
 *	entered, may sleep. Returns 0, or -ENOENT when a reset since
 *	&ipu_device.gather_gen was @gen made the device forget it.
 * @fill_info: fill the kind-specific fields of @info (serial, firmware
 *	version, PCI address).
 * @release: free the kind's private state; called once, when the last
 *	reference to the device is gone.
 */
struct ipu_hw_ops {
	u32 platform;
	bool fw_in_userspace;
	bool mem_wc;
	int (*dma)(struct ipu_device *idev, u64 dev_off, struct iov_iter *iter,
		   bool to_device);
	bool dma_cpu;
	void (*mem_clear)(struct ipu_device *idev, u64 dev_off, u64 len);
	int (*mem_pfn)(struct ipu_device *idev, u64 dev_off, unsigned long *pfn);
	int (*launch)(struct ipu_device *idev, struct ipu_launch_req *req);
	int (*reset)(struct ipu_device *idev);
	int (*gather_answer)(struct ipu_device *idev, u32 seq, u32 gen,
			     int status);
	void (*fill_info)(struct ipu_device *idev, struct ipu_info *info);
	void (*release)(struct ipu_device *idev);
};

#endif /* _IPU_HW_H */
