/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open /dev/ipuN: the unit that owns buffer objects and the attachment.
 */
#ifndef _IPU_FILE_H
#define _IPU_FILE_H

#include <linux/fs.h>
#include <linux/xarray.h>

struct ipu_device;
struct ipu_gather_inbox;
struct ipu_usage;

/**
 * struct ipu_file - per-open-file state
 * @idev: the device; the file holds a reference to it.
 * @bos: handle -> struct ipu_bo; the xarray's own lock protects it, each
 *	entry holds one reference to its buffer object.
 * @fences: fence -> struct ipu_launch_req of LAUNCH ioctls not yet waited
 *	for; each entry holds the submitter's reference.
 * @mapping: the address space mmap() of this file populates.
 * @node: in the device's list of open files (ipu_device.files).
 * @nr_launches: launches of this file in flight, ioctl fences not yet
 *	consumed and io_uring launches not yet completed alike; at most
 *	IPU_MAX_LAUNCHES (ipu_launch.c).
 * @nr_xfers: io_uring transfers of this file in flight, until their CQE
 *	is posted; at most IPU_MAX_URING_XFERS (ipu_uring.c).
 * @gather: the gather requests of this file's split launches (ipu_gather.c).
 * @usage: the engine time the file used, for fdinfo (ipu_fdinfo.c); its
 *	launches in flight hold references of their own.
 */
struct ipu_file {
	struct ipu_device *idev;
	struct xarray bos;
	struct xarray fences;
	struct address_space *mapping;
	struct list_head node;
	atomic_t nr_launches;
	atomic_t nr_xfers;
	struct ipu_gather_inbox *gather;
	struct ipu_usage *usage;
};

extern const struct file_operations ipu_fops;

#endif /* _IPU_FILE_H */
