// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: allocation from device memory, handles, mmap.
 *
 * A buffer's lifetime is a kref: the file's handle, every VMA mapping it and
 * every transfer using it hold a reference, and the device memory goes back to
 * the pool with the last one. Each buffer holds a reference to the device, so
 * the pool outlives its allocations even after hot removal.
 */
#include <linux/genalloc.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <uapi/linux/ipu.h>

#include "compat.h"
#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_fw.h"
#include "ipu_trace.h"

static void ipu_bo_release(struct kref *ref)
{
	struct ipu_bo *bo = container_of(ref, struct ipu_bo, ref);
	struct ipu_device *idev = bo->idev;

	trace_ipu_bo_destroy(bo);
	gen_pool_free(idev->pool, bo->dev_addr, bo->size);
	ipu_device_put(idev);
	kfree(bo);
}

/**
 * ipu_bo_put - drop a reference to a buffer object
 * @bo: the buffer
 */
void ipu_bo_put(struct ipu_bo *bo)
{
	kref_put(&bo->ref, ipu_bo_release);
}

/**
 * ipu_bo_lookup - find a buffer by handle and take a reference
 * @ifile: the file that holds the handle
 * @handle: the handle
 *
 * Return: the buffer, to be released with ipu_bo_put(), or NULL.
 */
struct ipu_bo *ipu_bo_lookup(struct ipu_file *ifile, u32 handle)
{
	struct ipu_bo *bo;

	xa_lock(&ifile->bos);
	bo = xa_load(&ifile->bos, handle);
	if (bo)
		kref_get(&bo->ref);
	xa_unlock(&ifile->bos);
	return bo;
}

static u64 ipu_bo_mmap_offset(const struct ipu_bo *bo)
{
	return (u64)bo->handle << IPU_BO_MMAP_SHIFT;
}

/* Device memory a new buffer's clearing does per step: ms on a PCIe BAR. */
#define IPU_BO_CLEAR_STEP (16ULL << 20)

/*
 * Zero a new buffer's @size bytes at device offset @dev_off, a step at a
 * time: a buffer may be the whole device (64 GiB through a BAR takes
 * seconds). Each step is its own unplug guard section, so that removal
 * waits for one step, not for the whole buffer; between steps the CPU is
 * yielded and a dying process stops. No one else sees the buffer yet (it
 * has no handle), so stopping half way leaks nothing.
 *
 * Return: 0, -ENODEV once the device is unplugged, -EINTR on a fatal signal.
 */
static int ipu_bo_clear(struct ipu_device *idev, u64 dev_off, u64 size)
{
	u64 done, n;
	int idx;

	for (done = 0; done < size; done += n) {
		n = min_t(u64, size - done, IPU_BO_CLEAR_STEP);
		if (fatal_signal_pending(current))
			return -EINTR;
		if (ipu_dev_enter(idev, &idx))
			return -ENODEV;
		ipu_hw_mem_clear(idev, dev_off + done, n);
		ipu_dev_exit(idev, idx);
		cond_resched();
	}
	return 0;
}

int ipu_ioctl_bo_create(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_create_call *call = data;
	struct ipu_bo_create *args = &call->args;
	struct ipu_device *idev = ifile->idev;
	struct ipu_bo *bo;
	unsigned long addr;
	u64 size;
	u32 handle;
	int idx, ret;

	/* Output-only fields: zero on input, so that they can gain meaning. */
	if (args->flags & ~IPU_BO_CREATE_FLAGS_ALL || !args->size ||
	    args->handle || args->device_addr || args->mmap_offset)
		return -EINVAL;
	/* Larger than the whole device: no rounding can make it fit. */
	if (args->size > idev->mem_size)
		return -ENOSPC;
	size = PAGE_ALIGN(args->size);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return -ENOMEM;
	kref_init(&bo->ref);

	ret = ipu_dev_enter(idev, &idx);
	if (ret)
		goto err_free_bo;
	if (!ipu_device_is_owner(idev, ifile)) {
		ret = -EACCES;
		goto err_exit;
	}

	addr = gen_pool_alloc(idev->pool, size);
	if (!addr) {
		ret = -ENOSPC;
		goto err_exit;
	}
	bo->dev_addr = addr;
	bo->size = size;
	get_device(&idev->dev);
	bo->idev = idev;
	ipu_dev_exit(idev, idx);
	/* Nobody may see what an earlier user left in this range. */
	ret = ipu_bo_clear(idev, ipu_bo_dev_off(bo), size);
	if (ret)
		goto err_put_bo;

	ret = xa_alloc(&ifile->bos, &handle, bo,
		       XA_LIMIT(1, IPU_BO_MAX_HANDLE), GFP_KERNEL_ACCOUNT);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_put_bo;
	}
	bo->handle = handle;
	trace_ipu_bo_create(bo);

	args->size = size;
	args->handle = handle;
	args->device_addr = bo->dev_addr;
	args->mmap_offset = ipu_bo_mmap_offset(bo);
	call->bo = bo;
	return 0;

err_put_bo:
	ipu_bo_put(bo);
	return ret;
err_exit:
	ipu_dev_exit(idev, idx);
err_free_bo:
	kfree(bo);
	return ret;
}

/**
 * ipu_ioctl_bo_create_undo - the caller never learnt of its new buffer
 * @ifile: the file
 * @data: the call, after a successful ipu_ioctl_bo_create()
 *
 * The dispatcher could not copy the result out (-EFAULT): drop the handle,
 * unless another thread of the caller guessed it and destroyed it already.
 */
void ipu_ioctl_bo_create_undo(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_create_call *call = data;

	if (xa_cmpxchg(&ifile->bos, call->bo->handle, call->bo, NULL,
		       GFP_KERNEL) == call->bo)
		ipu_bo_put(call->bo);
}

int ipu_ioctl_bo_destroy(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_destroy *args = data;
	struct ipu_bo *bo;
	int idx, ret;

	if (args->pad)
		return -EINVAL;

	ret = ipu_dev_enter(ifile->idev, &idx);
	if (ret)
		return ret;
	bo = xa_erase(&ifile->bos, args->handle);
	ipu_dev_exit(ifile->idev, idx);
	if (!bo)
		return -ENOENT;
	ipu_bo_put(bo);
	return 0;
}

int ipu_ioctl_bo_info(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_info *args = data;
	struct ipu_bo *bo;
	int idx, ret;

	if (args->pad || args->size || args->device_addr || args->mmap_offset)
		return -EINVAL;

	ret = ipu_dev_enter(ifile->idev, &idx);
	if (ret)
		return ret;
	bo = ipu_bo_lookup(ifile, args->handle);
	ipu_dev_exit(ifile->idev, idx);
	if (!bo)
		return -ENOENT;
	args->size = bo->size;
	args->device_addr = bo->dev_addr;
	args->mmap_offset = ipu_bo_mmap_offset(bo);
	ipu_bo_put(bo);
	return 0;
}

/**
 * ipu_bo_release_all - drop every handle of a file that is being closed
 * @ifile: the file
 */
void ipu_bo_release_all(struct ipu_file *ifile)
{
	struct ipu_bo *bo;
	unsigned long handle;

	xa_for_each(&ifile->bos, handle, bo) {
		xa_erase(&ifile->bos, handle);
		ipu_bo_put(bo);
	}
}

static void ipu_bo_vm_open(struct vm_area_struct *vma)
{
	struct ipu_bo *bo = vma->vm_private_data;

	kref_get(&bo->ref);
}

static void ipu_bo_vm_close(struct vm_area_struct *vma)
{
	ipu_bo_put(vma->vm_private_data);
}

#define IPU_BO_PGOFF_MASK ((1UL << (IPU_BO_MMAP_SHIFT - PAGE_SHIFT)) - 1)

/*
 * The mapping is VM_PFNMAP | VM_IO and gets page frames, not pages: GUP
 * refuses such mappings, so nothing but this VMA (which holds the buffer)
 * can reach the memory, and it returns to the pool only when the last
 * mapping is gone. Faults enter the unplug guard (it never blocks, so it
 * is fine under mmap_lock): after unplug no new frame is inserted.
 */
static vm_fault_t ipu_bo_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ipu_bo *bo = vma->vm_private_data;
	u64 off = (u64)(vmf->pgoff & IPU_BO_PGOFF_MASK) << PAGE_SHIFT;
	vm_fault_t vmret = VM_FAULT_SIGBUS;
	unsigned long pfn;
	int idx;

	if (off >= bo->size || ipu_dev_enter(bo->idev, &idx))
		return VM_FAULT_SIGBUS;
	if (!ipu_hw_mem_pfn(bo->idev, ipu_bo_dev_off(bo) + off, &pfn))
		vmret = vmf_insert_pfn(vma, vmf->address, pfn);
	ipu_dev_exit(bo->idev, idx);
	return vmret;
}

static const struct vm_operations_struct ipu_bo_vm_ops = {
	.open = ipu_bo_vm_open,
	.close = ipu_bo_vm_close,
	.fault = ipu_bo_vm_fault,
};

/**
 * ipu_bo_mmap - map (part of) a buffer object
 * @ifile: the file that holds the buffer's handle
 * @vma: the new mapping; its offset selects the buffer and a page in it
 *
 * Return: 0 or a negative errno: -EINVAL for a private mapping, an unknown
 * offset or a range past the end of the buffer, -ENODEV after unplug.
 */
int ipu_bo_mmap(struct ipu_file *ifile, struct vm_area_struct *vma)
{
	u32 handle = vma->vm_pgoff >> (IPU_BO_MMAP_SHIFT - PAGE_SHIFT);
	unsigned long first = vma->vm_pgoff & IPU_BO_PGOFF_MASK;
	unsigned long npages = vma_pages(vma);
	struct ipu_bo *bo;
	int idx, ret;

	/*
	 * A private mapping would copy device memory on write: meaningless.
	 * VM_MAYSHARE, not VM_SHARED: mmap() clears VM_SHARED for a shared
	 * mapping of a read-only file, which may still map read-only.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (handle > IPU_BO_MAX_HANDLE)
		return -EINVAL;
	if (!handle)
		return ipu_fw_mmap(ifile, vma);

	ret = ipu_dev_enter(ifile->idev, &idx);
	if (ret)
		return ret;
	bo = ipu_bo_lookup(ifile, handle);
	ipu_dev_exit(ifile->idev, idx);
	if (!bo)
		return -EINVAL;
	if (first + npages < first || first + npages > bo->size >> PAGE_SHIFT) {
		ipu_bo_put(bo);
		return -EINVAL;
	}

	/* The lookup's reference now belongs to the mapping. */
	vma->vm_private_data = bo;
	vma->vm_ops = &ipu_bo_vm_ops;
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	/* A BAR: stores combine, no cache to keep coherent with the device. */
	if (ifile->idev->ops->mem_wc)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	return 0;
}
