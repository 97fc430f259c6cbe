/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Core of ipu.ko: one struct ipu_device per IPU, whatever its kind.
 */
#ifndef _IPU_DRV_H
#define _IPU_DRV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>

#include "ipu_hw.h"
#include "ipu_launch.h"

#define IPU_DRIVER_NAME "ipu"
#define IPU_MAX_DEVICES 256

/*
 * Device addresses start here rather than at 0, so that a zeroed address in
 * userspace is never a valid buffer and gen_pool's 0-means-failure works.
 */
#define IPU_DEV_ADDR_BASE 0x100000000ULL

struct gen_pool;
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
 * @unplug_rwsem: held for reading by every operation that reaches the
 *	hardware, for writing when the device is unplugged; protects @unplugged.
 * @unplugged: set once the device is gone; every later call gets -ENODEV.
 * @lock: protects @owner and @owner_pid, and serialises resets.
 * @owner: the open file that attached the device, or NULL.
 * @owner_pid: thread group of the process that attached, or NULL.
 * @reset_count: resets since the device appeared.
 * @debugfs: /sys/kernel/debug/ipu/ipuN.
 * @launches: launches in flight and the firmware that runs them.
 */
struct ipu_device {
	struct device dev;
	struct cdev cdev;
	int minor;
	const struct ipu_hw_ops *ops;
	u64 mem_size;
	struct gen_pool *pool;
	struct rw_semaphore unplug_rwsem;
	bool unplugged;
	struct mutex lock; /* owner, owner_pid; serialises resets */
	struct ipu_file *owner;
	struct pid *owner_pid;
	atomic64_t reset_count;
	struct dentry *debugfs;
	struct ipu_launch_queue launches;
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
void ipu_device_reset_count(struct ipu_device *idev);
void ipu_device_set_owner_locked(struct ipu_device *idev,
				 struct ipu_file *ifile);

/**
 * ipu_dev_enter - start an operation that needs the device present
 * @idev: the device
 *
 * Like drm_dev_enter(): returns -ENODEV once the device has been unplugged;
 * otherwise the device stays present until ipu_dev_exit().
 */
static inline int ipu_dev_enter(struct ipu_device *idev)
{
	down_read(&idev->unplug_rwsem);
	if (idev->unplugged) {
		up_read(&idev->unplug_rwsem);
		return -ENODEV;
	}
	return 0;
}

static inline void ipu_dev_exit(struct ipu_device *idev)
{
	up_read(&idev->unplug_rwsem);
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

static inline struct page *ipu_hw_mem_page(struct ipu_device *idev,
					   u64 dev_off)
{
	return idev->ops->mem_page(idev, dev_off);
}

static inline int ipu_hw_reset(struct ipu_device *idev)
{
	return idev->ops->reset(idev);
}

#endif /* _IPU_DRV_H */
