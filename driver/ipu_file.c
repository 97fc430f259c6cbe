// SPDX-License-Identifier: GPL-2.0
/*
 * File operations of /dev/ipuN: open, release, ioctl, mmap, poll and
 * io_uring commands. There is no read or write: data moves by XFER and
 * mmap, and read(2), write(2) and their io_uring forms fail EINVAL at once.
 *
 * Everything a file acquires (buffer objects, the attachment) is released
 * when it is closed, so a crashed or killed process leaves nothing behind.
 */
#include <linux/compat.h>
#include <linux/slab.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_file.h"
#include "ipu_fw.h"
#include "ipu_gather.h"
#include "ipu_ioctl.h"
#include "ipu_launch.h"
#include "ipu_uring.h"

static int ipu_open(struct inode *inode, struct file *filp)
{
	struct ipu_device *idev =
		container_of(inode->i_cdev, struct ipu_device, cdev);
	struct ipu_file *ifile;
	int idx, ret;

	ifile = kzalloc(sizeof(*ifile), GFP_KERNEL_ACCOUNT);
	if (!ifile)
		return -ENOMEM;

	ifile->idev = idev;
	xa_init_flags(&ifile->bos, XA_FLAGS_ALLOC1);
	xa_init_flags(&ifile->fences, XA_FLAGS_ALLOC1);
	ifile->mapping = filp->f_mapping;
	ifile->usage = ipu_usage_new();
	ifile->gather = ipu_gather_inbox_new(idev);
	if (!ifile->usage || !ifile->gather) {
		ret = -ENOMEM;
		goto err_free_file;
	}

	ret = ipu_dev_enter(idev, &idx);
	if (ret)
		goto err_free_file;
	get_device(&idev->dev);
	/* Listed inside the guard: unplugging sees every file that entered. */
	mutex_lock(&idev->lock);
	list_add(&ifile->node, &idev->files);
	mutex_unlock(&idev->lock);
	ipu_dev_exit(idev, idx);

	filp->private_data = ifile;
	/*
	 * Nothing here blocks on IOCB_NOWAIT's behalf, as there is no read
	 * or write at all. Without the flag io_uring takes its nonblocking
	 * attempt of a READ or WRITE to be unsafe and, the file being
	 * pollable, waits for EPOLLIN or EPOLLOUT before it tries: a READ
	 * would wait until a gather request came, for ever on most files,
	 * instead of failing EINVAL as read(2) does (issue 25, item 10).
	 */
	filp->f_mode |= FMODE_NOWAIT;
	return nonseekable_open(inode, filp);

err_free_file:
	if (ifile->gather)
		ipu_gather_inbox_put(ifile->gather);
	ipu_usage_put(ifile->usage);
	kfree(ifile);
	return ret;
}

static int ipu_release(struct inode *inode, struct file *filp)
{
	struct ipu_file *ifile = filp->private_data;
	struct ipu_device *idev = ifile->idev;

	mutex_lock(&idev->lock);
	if (idev->owner == ifile)
		ipu_device_set_owner_locked(idev, NULL);
	list_del(&ifile->node);
	mutex_unlock(&idev->lock);

	ipu_fw_detach_file(ifile);
	ipu_gather_file_release(ifile);
	ipu_launch_release_fences(ifile);
	xa_destroy(&ifile->fences);
	ipu_bo_release_all(ifile);
	xa_destroy(&ifile->bos);
	ipu_usage_put(ifile->usage);
	ipu_device_put(idev);
	kfree(ifile);
	return 0;
}

static long ipu_unlocked_ioctl(struct file *filp, unsigned int cmd,
			       unsigned long arg)
{
	return ipu_ioctl(filp->private_data, cmd, arg);
}

/*
 * Readable (EPOLLIN | EPOLLPRI | EPOLLRDNORM) while a gather request of
 * the file's split launches waits; always writable (EPOLLOUT |
 * EPOLLWRNORM) on a live device, as a file without poll of its own is:
 * a write does not block, it fails EINVAL at once, and a poller waiting
 * for writable would otherwise sleep for ever. EPOLLERR | EPOLLHUP alone
 * once the device is unplugged.
 */
static __poll_t ipu_poll(struct file *filp, poll_table *wait)
{
	__poll_t mask = ipu_gather_poll(filp->private_data, filp, wait);

	if (!(mask & EPOLLHUP))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static int ipu_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ipu_file *ifile = filp->private_data;

	if (ipu_dev_unplugged(ifile->idev))
		return -ENODEV;
	return ipu_bo_mmap(ifile, vma);
}

const struct file_operations ipu_fops = {
	.owner = THIS_MODULE,
	.open = ipu_open,
	.release = ipu_release,
	.unlocked_ioctl = ipu_unlocked_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ipu_mmap,
	.poll = ipu_poll,
	.uring_cmd = ipu_uring_cmd,
	.show_fdinfo = ipu_show_fdinfo,
};
