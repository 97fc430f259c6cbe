/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffer objects: ranges of device memory owned by an open file.
 */
#ifndef _IPU_BO_H
#define _IPU_BO_H

#include <linux/kref.h>
#include <linux/types.h>

#include <uapi/linux/ipu.h>

#include "ipu_drv.h"

struct ipu_device;
struct ipu_file;
struct vm_area_struct;

/*
 * mmap offsets are the handle shifted by this much: the low bits address a
 * page inside the buffer, so a buffer is at most 1 TiB, and handles are kept
 * small enough that every offset fits in a 64-bit file offset.
 */
#define IPU_BO_MMAP_SHIFT 40
#define IPU_BO_MAX_HANDLE ((1U << 20) - 1)

/**
 * struct ipu_bo - one buffer object
 * @ref: the handle, each mapping and each transfer in flight hold one.
 * @idev: the device; the buffer holds a reference to it, so the device's
 *	memory outlives every buffer carved from it.
 * @dev_addr: device address, in [IPU_DEV_ADDR_BASE, + mem_size).
 * @size: bytes, a multiple of PAGE_SIZE.
 * @handle: the handle in the owning file.
 */
struct ipu_bo {
	struct kref ref;
	struct ipu_device *idev;
	u64 dev_addr;
	u64 size;
	u32 handle;
};

/**
 * struct ipu_bo_create_call - BO_CREATE as the dispatcher holds it
 * @args: the user's struct; copied out after the handler.
 * @bo: the new buffer, for ipu_ioctl_bo_create_undo() when the copy-out
 *	fails. Kernel-only: past the copied-out bytes.
 */
struct ipu_bo_create_call {
	struct ipu_bo_create args;
	struct ipu_bo *bo;
};

int ipu_ioctl_bo_create(struct ipu_file *ifile, void *data);
void ipu_ioctl_bo_create_undo(struct ipu_file *ifile, void *data);
int ipu_ioctl_bo_destroy(struct ipu_file *ifile, void *data);
int ipu_ioctl_bo_info(struct ipu_file *ifile, void *data);
int ipu_bo_mmap(struct ipu_file *ifile, struct vm_area_struct *vma);

struct ipu_bo *ipu_bo_lookup(struct ipu_file *ifile, u32 handle);
void ipu_bo_put(struct ipu_bo *bo);
void ipu_bo_release_all(struct ipu_file *ifile);

/* Offset of the buffer in device memory, as the hardware ops take it. */
static inline u64 ipu_bo_dev_off(const struct ipu_bo *bo)
{
	return bo->dev_addr - IPU_DEV_ADDR_BASE;
}

#endif /* _IPU_BO_H */
