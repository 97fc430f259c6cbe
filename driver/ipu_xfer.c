// SPDX-License-Identifier: GPL-2.0
/*
 * XFER: DMA between a user buffer and a buffer object.
 *
 * The user pages are pinned (FOLL_PIN, so that the kernel's accounting and
 * writeback know a device is using them), handed to the device, and unpinned,
 * a bounded chunk at a time so that a transfer of any size needs only a small
 * page array.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <uapi/linux/ipu.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_xfer.h"

/* Pages pinned at once: 2 MiB of a 4 KiB-page host per chunk. */
#define IPU_XFER_CHUNK_PAGES 512

static int ipu_xfer_pages(struct ipu_device *idev, struct page **pages,
			  u64 dev_off, unsigned long uaddr, u64 len,
			  bool to_device)
{
	unsigned int gup_flags = to_device ? 0 : FOLL_WRITE;

	while (len) {
		unsigned int first_off = offset_in_page(uaddr);
		unsigned long npages = min_t(u64, IPU_XFER_CHUNK_PAGES,
					     DIV_ROUND_UP(first_off + len,
							  PAGE_SIZE));
		size_t chunk = min_t(u64, len, npages * PAGE_SIZE - first_off);
		int pinned, ret;

		pinned = pin_user_pages_fast(uaddr & PAGE_MASK, npages,
					     gup_flags, pages);
		if (pinned < 0)
			return pinned;
		if (pinned < npages) {
			unpin_user_pages(pages, pinned);
			return -EFAULT;
		}

		ret = ipu_hw_dma(idev, dev_off, pages, first_off, chunk,
				 to_device);
		if (to_device)
			unpin_user_pages(pages, npages);
		else
			unpin_user_pages_dirty_lock(pages, npages, !ret);
		if (ret)
			return ret;

		uaddr += chunk;
		dev_off += chunk;
		len -= chunk;
		if (len && fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

int ipu_ioctl_xfer(struct ipu_file *ifile, void *data)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_xfer *args = data;
	struct page **pages;
	struct ipu_bo *bo;
	u64 bo_end, user_end;
	int ret;

	if (args->flags & ~IPU_XFER_FLAGS_ALL || hweight32(args->flags) != 1 ||
	    args->reserved || !args->length)
		return -EINVAL;
	if (check_add_overflow(args->bo_offset, args->length, &bo_end) ||
	    check_add_overflow(args->user_ptr, args->length, &user_end))
		return -EINVAL;

	pages = kmalloc_array(IPU_XFER_CHUNK_PAGES, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;

	ret = ipu_dev_enter(idev);
	if (ret)
		goto err_free_pages;
	if (!ipu_device_is_owner(idev, ifile)) {
		ret = -EACCES;
		goto err_exit;
	}
	bo = ipu_bo_lookup(ifile, args->handle);
	if (!bo) {
		ret = -ENOENT;
		goto err_exit;
	}
	if (bo_end > bo->size) {
		ret = -EINVAL;
		goto err_put_bo;
	}

	ret = ipu_xfer_pages(idev, pages, ipu_bo_dev_off(bo) + args->bo_offset,
			     args->user_ptr, args->length,
			     args->flags & IPU_XFER_TO_DEVICE);

err_put_bo:
	ipu_bo_put(bo);
err_exit:
	ipu_dev_exit(idev);
err_free_pages:
	kfree(pages);
	return ret;
}
