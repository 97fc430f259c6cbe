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
 *
 * Revocation is final for the mappings of that attachment: each revoke
 * bumps the attach generation (fw_gen), every firmware VMA records the
 * generation it was made in, and the fault handler inserts page frames
 * under fw_lock only while the generations match. The zap happens under
 * fw_lock after the bump, so no fault can install a PTE behind it, and a
 * second FW_ATTACH on the same file does not revive old mappings. The file
 * stops being the firmware (FW_NEXT's -ENOLINK) only after the zap. The
 * mapping is VM_PFNMAP | VM_IO, so GUP cannot hold device memory either.
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
	int idx, ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!idev->ops->fw_in_userspace)
		return -EOPNOTSUPP;

	if (ipu_dev_enter(idev, &idx))
		return -ENODEV;
	ret = 0;
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
	ipu_dev_exit(idev, idx);
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
	spin_unlock(&lq->lock);
	/* Before the zap: a fault that takes fw_lock after us sees it. */
	lq->fw_gen++;

	if (mapping)
		unmap_mapping_range(mapping, IPU_FW_MMAP_OFFSET,
				    PAGE_ALIGN(idev->mem_size), 1);
	/*
	 * Only now may the firmware learn of it (-ENOLINK): one that writes a
	 * last result on hearing of the revoke must find its mapping dead.
	 */
	spin_lock(&lq->lock);
	lq->fw_file = NULL;
	lq->fw_mapping = NULL;
	spin_unlock(&lq->lock);
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

/*
 * FW_NEXT in two steps around the dispatcher's copy-out: the handler takes
 * the launch, and the undo puts it back when the firmware could not be
 * told of it (-EFAULT), so that no launch is lost unseen.
 */
int ipu_ioctl_fw_next(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_next_call *call = data;
	struct ipu_fw_work *work = &call->args;
	s64 timeout_ns = work->timeout_ns;

	if (work->id || work->exe_offset || work->exe_size ||
	    work->arena_offset || work->arena_size || work->replica ||
	    work->num_replicas || work->group || work->pid || work->pad ||
	    work->profile_offset || work->profile_size)
		return -EINVAL;
	memset(work, 0, sizeof(*work));
	work->timeout_ns = timeout_ns;
	return ipu_fw_next(ifile, work, &call->req);
}

/**
 * ipu_ioctl_fw_next_commit - the firmware knows of the launch it took
 * @ifile: the firmware's file
 * @data: the call, after a successful ipu_ioctl_fw_next()
 *
 * Return: 0.
 */
int ipu_ioctl_fw_next_commit(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_next_call *call = data;

	ipu_launch_put(call->req);
	return 0;
}

/**
 * ipu_ioctl_fw_next_undo - the launch could not be copied out: put it back
 * @ifile: the firmware's file
 * @data: the call, after a successful ipu_ioctl_fw_next()
 */
void ipu_ioctl_fw_next_undo(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_next_call *call = data;

	ipu_fw_next_untake(call->req);
}

int ipu_ioctl_fw_done(struct ipu_file *ifile, void *data)
{
	struct ipu_fw_done *args = data;
	int status = args->status;

	if (args->pad || status > 0)
		return -EINVAL;
	/*
	 * The launcher gets this status as a CQE or from WAIT: a kernel-
	 * internal code (-ERESTARTSYS, -EIOCBQUEUED, ...) or any other value
	 * that is not a userspace errno (the largest is EHWPOISON) would
	 * mislead it or io_uring. The firmware failed: -EIO.
	 */
	if (status < -EHWPOISON)
		status = -EIO;
	return ipu_fw_done(ifile, args->id, status);
}

/* The attach generation a firmware VMA was made in (see the top). */
static u64 ipu_fw_vma_gen(struct vm_area_struct *vma)
{
	return (uintptr_t)vma->vm_private_data;
}

/* Frames go in under fw_lock while the VMA's generation is current. */
static vm_fault_t ipu_fw_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ipu_file *ifile = vma->vm_file->private_data;
	struct ipu_device *idev = ifile->idev;
	struct ipu_launch_queue *lq = &idev->launches;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t vmret = VM_FAULT_SIGBUS;
	unsigned long pfn;
	int idx;

	if (off >= idev->mem_size || ipu_dev_enter(idev, &idx))
		return VM_FAULT_SIGBUS;
	mutex_lock(&lq->fw_lock);
	if (READ_ONCE(lq->fw_file) == ifile &&
	    lq->fw_gen == ipu_fw_vma_gen(vma) &&
	    !ipu_hw_mem_pfn(idev, off, &pfn))
		vmret = vmf_insert_pfn(vma, vmf->address, pfn);
	mutex_unlock(&lq->fw_lock);
	ipu_dev_exit(idev, idx);
	return vmret;
}

static const struct vm_operations_struct ipu_fw_vm_ops = {
	.fault = ipu_fw_vm_fault,
};

/**
 * ipu_fw_mmap - the firmware maps device memory (mmap offset 0)
 * @ifile: the firmware's file
 * @vma: the mapping, shared, inside device memory
 *
 * The mapping holds the file (vm_file), which holds the device. It lives
 * as long as this attachment of the firmware: after a revoke it raises
 * SIGBUS, even if the file attaches again.
 *
 * Return: 0; -EINVAL when @ifile is not the firmware or the range passes
 * the end of device memory.
 */
int ipu_fw_mmap(struct ipu_file *ifile, struct vm_area_struct *vma)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_launch_queue *lq = &idev->launches;
	unsigned long pages = PAGE_ALIGN(idev->mem_size) >> PAGE_SHIFT;
	int ret = 0;

	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;
	mutex_lock(&lq->fw_lock);
	if (READ_ONCE(lq->fw_file) != ifile)
		ret = -EINVAL;
	else
		vma->vm_private_data = (void *)(uintptr_t)lq->fw_gen;
	mutex_unlock(&lq->fw_lock);
	if (ret)
		return ret;
	vma->vm_ops = &ipu_fw_vm_ops;
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}
