/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Core of ipu.ko: one struct ipu_device per IPU, whatever its kind.
 */
#ifndef _IPU_DRV_H
#define _IPU_DRV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/srcu.h>
#include <linux/types.h>

#include "ipu_hw.h"
#include "ipu_launch.h"

/*
 * mmap offsets put a buffer's handle above bit 40 (ipu_bo.h) and device
 * addresses start at 4 GiB: both need a 64-bit unsigned long.
 */
#ifndef CONFIG_64BIT
#error "ipu.ko needs a 64-bit kernel"
#endif

#define IPU_DRIVER_NAME "ipu"
#define IPU_MAX_DEVICES 256

/*
 * Device addresses start here rather than at 0, so that a zeroed address in
 * userspace is never a valid buffer and gen_pool's 0-means-failure works.
 */
#define IPU_DEV_ADDR_BASE 0x100000000ULL

struct gen_pool;
struct workqueue_struct;
struct pid;
struct ipu_file;
struct ipu_info;

/**
 * struct ipu_device - one IPU, as the core sees it
 * @dev: the class device /sys/class/ipu/ipuN; its refcount is the device's.
 *	Open files and buffer objects each hold a reference.
 * @cdev: the character device /dev/ipuN.
 * @minor: N in ipuN.
 * @ops: the kind of IPU behind this device.
 * @mem_size: bytes of device memory.
 * @pool: device-address allocator over [IPU_DEV_ADDR_BASE, + @mem_size);
 *	gen_pool locks itself.
 * @unplugged: set once the device is gone; every later call gets -ENODEV.
 *	Read inside ipu_dev_enter() sections; see @unplug_srcu.
 * @unplug_srcu: the unplug guard's SRCU domain (ipu_dev_enter()): the
 *	device's own, so that unplugging one IPU waits only for the
 *	operations on it, never for a long transfer on another.
 * @lock: protects @owner, @owner_pid and @files, and serialises resets.
 * @owner: the open file that attached the device, or NULL.
 * @owner_pid: thread group of the process that attached, or NULL.
 * @files: the open files (struct ipu_file.node), whose mappings unplugging
 *	revokes when device memory is I/O memory (ipu_hw_ops.mem_wc).
 * @reset_count: resets since the device appeared.
 * @debugfs: /sys/kernel/debug/ipu/ipuN.
 * @launches: launches in flight and the firmware that runs them.
 * @gather_gen: bumped by the kind (under its gather ring's lock) when the
 *	device forgot its gather requests (a reset): ipu_gather.c drops the
 *	requests of older generations.
 * @gather: the device asks for gathers (ipu_hw_ops.gather_answer answers
 *	them): GET_INFO reports IPU_FEATURE_GATHER and split launches are
 *	taken, else refused with -EOPNOTSUPP. Set by the kind before
 *	ipu_device_register() and never changed: a PCI IPU whose CAPS has
 *	GATHER and whose gather ring is up.
 * @profile: the device writes op profiles (IPU_LAUNCH_PROFILE): GET_INFO
 *	reports IPU_FEATURE_PROFILE and profiled launches are taken, else
 *	refused with -EOPNOTSUPP. A userspace firmware always does
 *	(ipu_device_init()); a PCI IPU when its CAPS has PROFILE (spec 2.1,
 *	section 4.5). Set before ipu_device_register() and never changed.
 */
struct ipu_device {
	struct device dev;
	struct cdev cdev;
	int minor;
	const struct ipu_hw_ops *ops;
	u64 mem_size;
	struct gen_pool *pool;
	bool unplugged;
	struct srcu_struct unplug_srcu;
	struct mutex lock; /* owner, owner_pid, files; serialises resets */
	struct ipu_file *owner;
	struct pid *owner_pid;
	struct list_head files;
	atomic64_t reset_count;
	struct dentry *debugfs;
	struct ipu_launch_queue launches;
	u32 gather_gen;
	bool gather;
	bool profile;
};

static inline struct ipu_device *to_ipu_device(struct device *dev)
{
	return container_of(dev, struct ipu_device, dev);
}

int ipu_device_init(struct ipu_device *idev, struct device *parent,
		    const struct ipu_hw_ops *ops, u64 mem_size);
int ipu_device_register(struct ipu_device *idev);
void ipu_device_unregister(struct ipu_device *idev);
void ipu_device_put(struct ipu_device *idev);
void ipu_device_fill_info(struct ipu_device *idev, struct ipu_info *info);
bool ipu_device_is_owner(struct ipu_device *idev, struct ipu_file *ifile);
void ipu_device_set_owner_locked(struct ipu_device *idev,
				 struct ipu_file *ifile);

/*
 * The unplug guard, drm_dev_enter()/drm_dev_unplug()'s design: operations
 * that reach the hardware run inside an SRCU read section, and unplugging
 * sets @unplugged and then waits for the sections in progress with
 * synchronize_srcu(). A read section never blocks, so it may be entered
 * under mmap_lock (mmap, faults) or any other lock; in exchange nothing
 * that can wait for long (pinning user pages, which may fault and sleep on
 * userfaultfd; waiting for a launch) may happen inside one, or removal
 * waits as long. One SRCU domain per device (ipu_device.unplug_srcu),
 * initialised with the device and cleaned up at its final put: an
 * operation that holds one IPU's guard for long (a transfer waits up to
 * dma_timeout_ms for its batch) never delays another IPU's unplug.
 */

/*
 * The driver's workqueues (ipu_drv.c): ipu_wq runs what must make progress
 * whatever users do (launch watchdogs, the unbinding of a PCI IPU that
 * fell off the bus), ipu_xfer_wq the io_uring transfers, which may each
 * wait for a queue for long.
 */
extern struct workqueue_struct *ipu_wq;
extern struct workqueue_struct *ipu_xfer_wq;

/**
 * ipu_dev_enter - start an operation that needs the device present
 * @idev: the device
 * @idx: out: the read-section cookie for ipu_dev_exit()
 *
 * Return: 0, and the device stays present until ipu_dev_exit(); -ENODEV once
 * the device has been unplugged (nothing to exit then).
 *
 * sparse follows the read section through the inlined branch only where
 * it can thread the result to the caller's test; where it could not (the
 * result kept in memory, or the result variable reused by later branches)
 * it reported balanced code as a context imbalance ("unexpected unlock").
 * Branching on the call itself (``if (ipu_dev_enter(idev, &idx)) return
 * -ENODEV;``) always lets it follow.
 */
static inline int ipu_dev_enter(struct ipu_device *idev, int *idx)
{
	*idx = srcu_read_lock(&idev->unplug_srcu);
	if (READ_ONCE(idev->unplugged)) {
		srcu_read_unlock(&idev->unplug_srcu, *idx);
		return -ENODEV;
	}
	return 0;
}

static inline void ipu_dev_exit(struct ipu_device *idev, int idx)
{
	srcu_read_unlock(&idev->unplug_srcu, idx);
}

/* Whether the device is gone: for quick refusals outside a read section. */
static inline bool ipu_dev_unplugged(struct ipu_device *idev)
{
	return READ_ONCE(idev->unplugged);
}

/* Small inline wrappers, so the core never calls through ops directly. */
static inline int ipu_hw_dma(struct ipu_device *idev, u64 dev_off,
			     struct iov_iter *iter, bool to_device)
{
	return idev->ops->dma(idev, dev_off, iter, to_device);
}

static inline void ipu_hw_mem_clear(struct ipu_device *idev, u64 dev_off,
				    u64 len)
{
	idev->ops->mem_clear(idev, dev_off, len);
}

static inline int ipu_hw_mem_pfn(struct ipu_device *idev, u64 dev_off,
				 unsigned long *pfn)
{
	return idev->ops->mem_pfn(idev, dev_off, pfn);
}

static inline int ipu_hw_reset(struct ipu_device *idev)
{
	return idev->ops->reset(idev);
}

#endif /* _IPU_DRV_H */
