// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware role. A simulated IPU has no processor of its own; its
 * firmware is a userspace process (ipu-simd) that attaches to the device
 * through an open file, maps the whole device memory, takes launches
 * (FW_NEXT) and reports their results (FW_DONE).
 *
 * Resetting the device revokes the firmware: its mapping of device memory
 * is zapped and its file is no longer the firmware (-ENOLINK), as a reset
 * stops a real device's processor. A firmware that missed a deadline may
 * still be running, and must not write into memory that is reused once the
 * launches it was running have failed. ipu-simd then attaches again.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>

#include <uapi/linux/ipu.h>

#include "compat.h"
#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_fw.h"
#include "ipu_launch.h"

int ipu_ioctl_fw_attach(struct ipu_file *ifile, void *data)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_launch_queue *lq = &idev->launches;
	struct ipu_fw_attach *args = data;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!idev->ops->fw_in_userspace)
		return -EOPNOTSUPP;

	ret = ipu_dev_enter(idev);
	if (ret)
		return ret;
	mutex_lock(&lq->fw_lock);
	spin_lock(&lq->lock);
	if (lq->fw_file == ifile) {
		ret = -EALREADY;
	} else if (lq->fw_file) {
		ret = -EBUSY;
	} else {
		lq->fw_file = ifile;
		lq->fw_mapping = ifile->mapping;
	}
	spin_unlock(&lq->lock);
	mutex_unlock(&lq->fw_lock);
	ipu_dev_exit(idev);
	return ret;
}

/* Stop @lq's firmware; the caller holds fw_lock. */
static void ipu_fw_revoke_locked(struct ipu_device *idev)
{
	struct ipu_launch_queue *lq = &idev->launches;
	struct address_space *mapping;

	lockdep_assert_held(&lq->fw_lock);

	spin_lock(&lq->lock);
	mapping = lq->fw_file ? lq->fw_mapping : NULL;
	lq->fw_file = NULL;
	lq->fw_mapping = NULL;
	spin_unlock(&lq->lock);

	if (mapping)
		unmap_mapping_range(mapping, IPU_FW_MMAP_OFFSET,
				    PAGE_ALIGN(idev->mem_size), 1);
	wake_up_all(&lq->fw_wq);
}

/**
 * ipu_fw_revoke - detach the firmware of a device, whatever file it is
 * @idev: the device
 */
void ipu_fw_revoke(struct ipu_device *idev)
{
	mutex_lock(&idev->launches.fw_lock);
	ipu_fw_revoke_locked(idev);
	mutex_unlock(&idev->launches.fw_lock);
}

/**
 * ipu_fw_detach_file - a file being closed stops being the firmware
 * @ifile: the file
 *
 * Launches it was running are left to time out: the device cannot know
 * whether they finished.
 */
void ipu_fw_detach_file(struct ipu_file *ifile)
{
	struct ipu_launch_queue *lq = &ifile->idev->launches;

	mutex_lock(&lq->fw_lock);
	if (READ_ONCE(lq->fw_file) == ifile)
		ipu_fw_revoke_locked(ifile->idev);
	mutex_unlock(&lq->fw_lock);
}

int ipu_ioctl_fw_next(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_work *work = data;
	s64 timeout_ns = work->timeout_ns;

	if (work->id || work->exe_offset || work->exe_size ||
	    work->arena_offset || work->arena_size || work->replica ||
	    work->num_replicas || work->group || work->pid || work->pad)
		return -EINVAL;
	memset(work, 0, sizeof(*work));
	work->timeout_ns = timeout_ns;
	return ipu_fw_next(ifile, work);
}

int ipu_ioctl_fw_done(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_done *args = data;

	if (args->pad || args->status > 0 || args->status < -MAX_ERRNO)
		return -EINVAL;
	return ipu_fw_done(ifile, args->id, args->status);
}

/* Faults check that the file is still the firmware: a revoke zaps. */
static vm_fault_t ipu_fw_vm_fault(struct vm_fault *vmf)
{
	struct ipu_file *ifile = vmf->vma->vm_private_data;
	struct ipu_device *idev = ifile->idev;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	struct page *page;

	if (READ_ONCE(idev->launches.fw_file) != ifile ||
	    READ_ONCE(idev->unplugged) || off >= idev->mem_size)
		return VM_FAULT_SIGBUS;
	page = ipu_hw_mem_page(idev, off);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct ipu_fw_vm_ops = {
	.fault = ipu_fw_vm_fault,
};

/**
 * ipu_fw_mmap - the firmware maps device memory (mmap offset 0)
 * @ifile: the firmware's file
 * @vma: the mapping, shared, inside device memory
 *
 * The mapping holds the file (vm_file), which holds the device.
 *
 * Return: 0; -EINVAL when @ifile is not the firmware or the range passes
 * the end of device memory.
 */
int ipu_fw_mmap(struct ipu_file *ifile, struct vm_area_struct *vma)
{
	struct ipu_device *idev = ifile->idev;
	unsigned long pages = PAGE_ALIGN(idev->mem_size) >> PAGE_SHIFT;

	if (READ_ONCE(idev->launches.fw_file) != ifile)
		return -EINVAL;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;
	vma->vm_private_data = ifile;
	vma->vm_ops = &ipu_fw_vm_ops;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}
