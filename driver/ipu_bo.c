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
#include <linux/slab.h>

#include <uapi/linux/ipu.h>

#include "compat.h"
#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_fw.h"

static void ipu_bo_release(struct kref *ref)
{
	struct ipu_bo *bo = container_of(ref, struct ipu_bo, ref);
	struct ipu_device *idev = bo->idev;

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

int ipu_ioctl_bo_create(struct ipu_file *ifile, void *data)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_bo_create *args = data;
	struct ipu_bo *bo;
	unsigned long addr;
	u64 size;
	u32 handle;
	int ret;

	if (args->flags & ~IPU_BO_CREATE_FLAGS_ALL || !args->size)
		return -EINVAL;
	/* Larger than the whole device: no rounding can make it fit. */
	if (args->size > idev->mem_size)
		return -ENOSPC;
	size = PAGE_ALIGN(args->size);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	kref_init(&bo->ref);

	ret = ipu_dev_enter(idev);
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
	/* Nobody may see what an earlier user left in this range. */
	ipu_hw_mem_clear(idev, ipu_bo_dev_off(bo), size);

	ret = xa_alloc(&ifile->bos, &handle, bo,
		       XA_LIMIT(1, IPU_BO_MAX_HANDLE), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_put_bo;
	}
	bo->handle = handle;
	ipu_dev_exit(idev);

	args->size = size;
	args->handle = handle;
	args->device_addr = bo->dev_addr;
	args->mmap_offset = ipu_bo_mmap_offset(bo);
	return 0;

err_put_bo:
	ipu_dev_exit(idev);
	ipu_bo_put(bo);
	return ret;
err_exit:
	ipu_dev_exit(idev);
err_free_bo:
	kfree(bo);
	return ret;
}

int ipu_ioctl_bo_destroy(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_destroy *args = data;
	struct ipu_bo *bo;
	int ret;

	if (args->pad)
		return -EINVAL;

	ret = ipu_dev_enter(ifile->idev);
	if (ret)
		return ret;
	bo = xa_erase(&ifile->bos, args->handle);
	ipu_dev_exit(ifile->idev);
	if (!bo)
		return -ENOENT;
	ipu_bo_put(bo);
	return 0;
}

int ipu_ioctl_bo_info(struct ipu_file *ifile, void *data)
{
	struct ipu_bo_info *args = data;
	struct ipu_bo *bo;
	int ret;

	if (args->pad)
		return -EINVAL;

	ret = ipu_dev_enter(ifile->idev);
	if (ret)
		return ret;
	bo = ipu_bo_lookup(ifile, args->handle);
	ipu_dev_exit(ifile->idev);
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
 * Faults do not take the unplug lock: a transfer that holds it for reading
 * may itself fault in a user buffer that maps a buffer object. The memory
 * stays valid without it (the mapping holds the buffer, the buffer the
 * device); after unplug, new faults are refused.
 */
static vm_fault_t ipu_bo_vm_fault(struct vm_fault *vmf)
{
	struct ipu_bo *bo = vmf->vma->vm_private_data;
	u64 off = (u64)(vmf->pgoff & IPU_BO_PGOFF_MASK) << PAGE_SHIFT;
	struct page *page;

	if (READ_ONCE(bo->idev->unplugged) || off >= bo->size)
		return VM_FAULT_SIGBUS;

	page = ipu_hw_mem_page(bo->idev, ipu_bo_dev_off(bo) + off);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
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
	int ret;

	/* A private mapping would copy device memory on write: meaningless. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (handle > IPU_BO_MAX_HANDLE)
		return -EINVAL;
	if (!handle)
		return ipu_fw_mmap(ifile, vma);

	ret = ipu_dev_enter(ifile->idev);
	if (ret)
		return ret;
	bo = ipu_bo_lookup(ifile, handle);
	ipu_dev_exit(ifile->idev);
	if (!bo)
		return -EINVAL;
	if (first + npages < first || first + npages > bo->size >> PAGE_SHIFT) {
		ipu_bo_put(bo);
		return -EINVAL;
	}

	/* The lookup's reference now belongs to the mapping. */
	vma->vm_private_data = bo;
	vma->vm_ops = &ipu_bo_vm_ops;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}
