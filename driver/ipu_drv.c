// SPDX-License-Identifier: GPL-2.0
/*
 * ipu.ko: module, class and character devices.
 *
 * Each IPU, whatever its kind, is a struct ipu_device registered here as
 * /dev/ipuN (class "ipu", dynamic major, minor from an IDA). The kinds of IPU
 * (ipu_sim.c, ipu_pci.c) create and remove devices through ipu_device_init(),
 * ipu_device_register() and ipu_device_unregister().
 */
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/genalloc.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

#include <uapi/linux/ipu.h>

#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_gather.h"
#include "ipu_pci.h"
#include "ipu_sim.h"
#include "ipu_sysfs.h"
#include "ipu_trace.h"

struct workqueue_struct *ipu_wq;
struct workqueue_struct *ipu_xfer_wq;

static dev_t ipu_devt;
static DEFINE_IDA(ipu_minor_ida);
static struct dentry *ipu_debugfs_root;

static struct class ipu_class = {
	.name = IPU_DRIVER_NAME,
};

/* The final put: no file, mapping or buffer object refers to the device. */
static void ipu_device_release(struct device *dev)
{
	struct ipu_device *idev = to_ipu_device(dev);

	/* No read section is left: every file and mapping is gone. */
	cleanup_srcu_struct(&idev->unplug_srcu);
	gen_pool_destroy(idev->pool);
	ida_free(&ipu_minor_ida, idev->minor);
	idev->ops->release(idev);
}

/**
 * ipu_device_init - prepare a device embedded in a kind's own structure
 * @idev: zeroed device
 * @parent: parent in the device model (the kind's root or bus device)
 * @ops: the kind of IPU
 * @mem_size: bytes of device memory, a multiple of PAGE_SIZE
 *
 * On success the device is reference counted: undo with ipu_device_put(),
 * which calls @ops->release. On failure nothing is left to undo here and the
 * caller still owns its structure. Nothing can fail after the device model
 * takes over the structure (device_initialize()), which keeps both
 * contracts simple.
 *
 * Return: 0 or a negative errno.
 */
int ipu_device_init(struct ipu_device *idev, struct device *parent,
		    const struct ipu_hw_ops *ops, u64 mem_size)
{
	int minor, ret;

	minor = ida_alloc_max(&ipu_minor_ida, IPU_MAX_DEVICES - 1, GFP_KERNEL);
	if (minor < 0)
		return minor;

	idev->pool = gen_pool_create(PAGE_SHIFT, NUMA_NO_NODE);
	if (!idev->pool) {
		ret = -ENOMEM;
		goto err_free_minor;
	}
	ret = gen_pool_add(idev->pool, IPU_DEV_ADDR_BASE, mem_size,
			   NUMA_NO_NODE);
	if (ret)
		goto err_destroy_pool;
	ret = init_srcu_struct(&idev->unplug_srcu);
	if (ret)
		goto err_destroy_pool;

	idev->minor = minor;
	idev->ops = ops;
	/* A userspace firmware writes op profiles; a kind may say more. */
	idev->profile = ops->fw_in_userspace;
	idev->mem_size = mem_size;
	mutex_init(&idev->lock);
	INIT_LIST_HEAD(&idev->files);
	atomic64_set(&idev->reset_count, 0);
	ipu_launch_queue_init(&idev->launches);

	device_initialize(&idev->dev);
	idev->dev.class = &ipu_class;
	idev->dev.parent = parent;
	idev->dev.devt = MKDEV(MAJOR(ipu_devt), minor);
	idev->dev.groups = ipu_dev_groups;
	idev->dev.release = ipu_device_release;
	cdev_init(&idev->cdev, &ipu_fops);
	idev->cdev.owner = THIS_MODULE;
	return 0;

err_destroy_pool:
	gen_pool_destroy(idev->pool);
err_free_minor:
	ida_free(&ipu_minor_ida, minor);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_device_init, ERRNO);

/**
 * ipu_device_register - make an initialised device visible as /dev/ipuN
 * @idev: device from ipu_device_init()
 *
 * On failure the caller still holds its reference and drops it with
 * ipu_device_put().
 *
 * Return: 0 or a negative errno.
 */
int ipu_device_register(struct ipu_device *idev)
{
	int ret;

	ret = dev_set_name(&idev->dev, "ipu%d", idev->minor);
	if (ret)
		return ret;
	ret = cdev_device_add(&idev->cdev, &idev->dev);
	if (ret)
		return ret;
	idev->debugfs = debugfs_create_dir(dev_name(&idev->dev),
					   ipu_debugfs_root);
	return 0;
}

ALLOW_ERROR_INJECTION(ipu_device_register, ERRNO);

/*
 * Unplugging a device whose memory is a BAR: zap every mapping of every
 * open file (the whole address space: buffer objects, and whatever else
 * of this device a file maps). A later fault finds the device unplugged
 * and raises SIGBUS. Called after the unplug guard was waited for, so no
 * fault inserts a frame behind the zap.
 */
static void ipu_device_revoke_mappings(struct ipu_device *idev)
{
	struct ipu_file *ifile;

	mutex_lock(&idev->lock);
	list_for_each_entry(ifile, &idev->files, node)
		unmap_mapping_range(ifile->mapping, 0, 0, 1);
	mutex_unlock(&idev->lock);
}

/*
 * Wake whoever polls a file of the unplugged device: no gather request
 * comes any more, and poll() says EPOLLHUP from now on.
 */
static void ipu_device_wake_pollers(struct ipu_device *idev)
{
	struct ipu_file *ifile;

	mutex_lock(&idev->lock);
	list_for_each_entry(ifile, &idev->files, node)
		ipu_gather_file_unplug(ifile);
	mutex_unlock(&idev->lock);
}

/**
 * ipu_device_unregister - hot-remove a device
 * @idev: registered device
 *
 * Makes every later call on files still open on the device fail with
 * -ENODEV, and waits for the operations in progress (none of which blocks
 * inside the guard: see ipu_dev_enter()). Mappings of device memory that
 * is I/O memory are revoked (ipu_hw_ops.mem_wc). Drops the caller's reference;
 * the memory goes when the last file, mapping and buffer object are gone.
 */
void ipu_device_unregister(struct ipu_device *idev)
{
	trace_ipu_unplug(idev);
	WRITE_ONCE(idev->unplugged, true);
	/* Every operation that entered before the store has left. */
	synchronize_srcu(&idev->unplug_srcu);
	if (idev->ops->mem_wc)
		ipu_device_revoke_mappings(idev);
	ipu_device_wake_pollers(idev);
	ipu_launch_queue_fini(idev);

	debugfs_remove_recursive(idev->debugfs);
	cdev_device_del(&idev->cdev, &idev->dev);

	mutex_lock(&idev->lock);
	ipu_device_set_owner_locked(idev, NULL);
	mutex_unlock(&idev->lock);

	ipu_device_put(idev);
}

/**
 * ipu_device_set_owner_locked - attach a file, or detach whoever is attached
 * @idev: the device; its lock held
 * @ifile: the new owner, or NULL
 *
 * The owner's pid is the calling process's thread group.
 */
void ipu_device_set_owner_locked(struct ipu_device *idev,
				 struct ipu_file *ifile)
{
	lockdep_assert_held(&idev->lock);

	put_pid(idev->owner_pid);
	idev->owner_pid = ifile ? get_task_pid(current, PIDTYPE_TGID) : NULL;
	WRITE_ONCE(idev->owner, ifile);
}

/**
 * ipu_device_put - drop a reference to a device
 * @idev: the device
 */
void ipu_device_put(struct ipu_device *idev)
{
	put_device(&idev->dev);
}

/**
 * ipu_device_is_owner - whether a file has attached the device
 * @idev: the device
 * @ifile: the open file
 *
 * A snapshot: an operation that starts as owner finishes even if the owner
 * detaches meanwhile, as a DMA already programmed would on hardware.
 *
 * Return: true if @ifile is the owner.
 */
bool ipu_device_is_owner(struct ipu_device *idev, struct ipu_file *ifile)
{
	return READ_ONCE(idev->owner) == ifile;
}

/**
 * ipu_device_fill_info - everything GET_INFO and sysfs report
 * @idev: the device
 * @info: zeroed output; owner_pid is left to the caller, which knows the
 *	pid namespace it reports in
 */
void ipu_device_fill_info(struct ipu_device *idev, struct ipu_info *info)
{
	info->api_version = IPU_API_VERSION;
	info->platform = idev->ops->platform;
	info->features = IPU_FEATURE_BO | IPU_FEATURE_MMAP | IPU_FEATURE_XFER |
			 IPU_FEATURE_RESET | IPU_FEATURE_HOTPLUG |
			 IPU_FEATURE_URING_CMD | IPU_FEATURE_URING_FIXED;
	/*
	 * Launches run on a userspace firmware (simulated IPUs) or on the
	 * device's command queue (PCI IPUs): libipu and libsession read the
	 * bit to choose devices that can run programs.
	 */
	if (idev->ops->fw_in_userspace)
		info->features |= IPU_FEATURE_FW_SIM | IPU_FEATURE_LAUNCH;
	if (idev->ops->launch)
		info->features |= IPU_FEATURE_LAUNCH;
	/* Not every device of a kind has them: a PCI IPU needs CAPS.GATHER. */
	if (idev->gather)
		info->features |= IPU_FEATURE_GATHER;
	/* Likewise: a PCI IPU needs CAPS.PROFILE. */
	if (idev->profile)
		info->features |= IPU_FEATURE_PROFILE;
	info->memory_total = idev->mem_size;
	info->memory_used = idev->mem_size - gen_pool_avail(idev->pool);
	info->reset_count = atomic64_read(&idev->reset_count);
	info->mem_page_size = PAGE_SIZE;
	idev->ops->fill_info(idev, info);
}

static int __init ipu_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&ipu_devt, 0, IPU_MAX_DEVICES,
				  IPU_DRIVER_NAME);
	if (ret)
		return ret;

	ret = class_register(&ipu_class);
	if (ret)
		goto err_unregister_region;

	/*
	 * Our own queues rather than system ones, so that module exit can
	 * wait for every work item (destroy_workqueue() drains them).
	 *
	 * Launch watchdogs and the unbinding of a PCI IPU that fell off the
	 * bus are what bounds every launch and lets a dead device go: they
	 * share no queue with anything a user can queue many of, since an
	 * unbound queue runs at most max_active items at once and io_uring
	 * transfers may each wait for a DMA queue for long. WQ_MEM_RECLAIM
	 * gives the queue a rescuer thread, so that these few items run
	 * even when no new worker can be created (memory pressure, which a
	 * hung device pinning user pages and launch buffers makes worse):
	 * the kernel's way to guarantee a queue's forward progress. Nothing
	 * they run flushes a queue without it (the watchdog cancels nothing;
	 * removal waits for the unplug guard, not for transfer work).
	 */
	ipu_wq = alloc_workqueue("ipu", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!ipu_wq) {
		ret = -ENOMEM;
		goto err_unregister_class;
	}
	/*
	 * io_uring transfers, each of which may wait for its DMA queue (up
	 * to dma_timeout_ms a batch): no rescuer, their number is
	 * bounded per file (IPU_MAX_URING_XFERS) and they allocate nothing
	 * the kernel needs back to make progress.
	 */
	ipu_xfer_wq = alloc_workqueue("ipu_xfer", WQ_UNBOUND, 0);
	if (!ipu_xfer_wq) {
		ret = -ENOMEM;
		goto err_destroy_wq;
	}

	ipu_debugfs_root = debugfs_create_dir(IPU_DRIVER_NAME, NULL);

	/* Simulated IPUs first: they keep /dev/ipu0.., PCI IPUs follow. */
	ret = ipu_sim_init();
	if (ret)
		goto err_remove_debugfs;
	ret = ipu_pci_init();
	if (ret)
		goto err_sim_exit;
	return 0;

err_sim_exit:
	ipu_sim_exit();
err_remove_debugfs:
	debugfs_remove_recursive(ipu_debugfs_root);
	destroy_workqueue(ipu_xfer_wq);
err_destroy_wq:
	destroy_workqueue(ipu_wq);
err_unregister_class:
	class_unregister(&ipu_class);
err_unregister_region:
	unregister_chrdev_region(ipu_devt, IPU_MAX_DEVICES);
	return ret;
}

static void __exit ipu_exit(void)
{
	ipu_pci_exit();
	ipu_sim_exit();
	debugfs_remove_recursive(ipu_debugfs_root);
	destroy_workqueue(ipu_xfer_wq);
	destroy_workqueue(ipu_wq);
	class_unregister(&ipu_class);
	unregister_chrdev_region(ipu_devt, IPU_MAX_DEVICES);
	ida_destroy(&ipu_minor_ida);
}

module_init(ipu_init);
module_exit(ipu_exit);

MODULE_DESCRIPTION("IPU accelerator driver");
MODULE_LICENSE("GPL");
