// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning user memory for the device.
 *
 * FOLL_PIN (pin_user_pages_fast()) rather than get_user_pages(), so that the
 * kernel knows a device holds the pages (writeback, fork and the
 * nr_foll_pin_* counters see it). Pages the device may have written are
 * marked dirty when they are unpinned, also after a failed transfer: a
 * device can fail part way, after writing some of them.
 *
 * Pinning may fault and sleep for as long as userspace likes (userfaultfd),
 * so it never happens inside the unplug guard (ipu_dev_enter()).
 *
 * io_uring issues a command inline (IO_URING_F_NONBLOCK) from
 * io_uring_enter() and retries one refused with -EAGAIN from its worker
 * threads; that hand-off cost more than the 4 KiB transfer itself. So the
 * inline issue pins with FOLL_NOFAULT ("nowait"): pages already present
 * are pinned by the lockless walk (at worst the walk falls back to
 * mmap_lock held for reading, never to a fault, so never to a wait that
 * userspace controls), and a range with a page missing is -EAGAIN, left
 * to the worker, which faults it in. 6.12 and 7.3 export no pinning that
 * cannot take mmap_lock (pin_user_pages_fast_only() is 6.1's only).
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ipu_dma.h"

static void ipu_dma_free(struct ipu_dma_buf *buf)
{
	if (buf->pages != buf->inline_pages)
		kvfree(buf->pages);
	if (buf->bvecs != buf->inline_bvecs)
		kvfree(buf->bvecs);
	buf->pages = NULL;
	buf->bvecs = NULL;
}

/**
 * ipu_dma_pin - pin a user range and describe it as an iterator
 * @buf: out: the pinned range; release with ipu_dma_unpin()
 * @uaddr: first byte, any alignment
 * @len: bytes, > 0
 * @to_device: the device reads the range (else writes it)
 * @nowait: the caller cannot wait (io_uring's inline issue): no fault, no
 *	sleeping allocation; what would need either is -EAGAIN
 *
 * Return: 0; -EFAULT when part of the range is not mapped (or not writable
 * when the device writes it), including a range in the last page of the
 * address space; -ENOMEM; with @nowait, -EAGAIN instead of either.
 */
int ipu_dma_pin(struct ipu_dma_buf *buf, unsigned long uaddr, size_t len,
		bool to_device, bool nowait)
{
	gfp_t gfp = nowait ? GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT :
			     GFP_KERNEL_ACCOUNT;
	unsigned int gup = (to_device ? 0 : FOLL_WRITE) |
			   (nowait ? FOLL_NOFAULT : 0);
	unsigned int off = offset_in_page(uaddr);
	unsigned long npages = DIV_ROUND_UP(off + len, PAGE_SIZE);
	unsigned long end;
	size_t left = len;
	unsigned long i;
	int pinned;

	if (npages > INT_MAX)
		return -EINVAL;
	/*
	 * A range whose pages end past 2^64 (it lies in the last page of the
	 * address space, which is never user memory) is not mapped: -EFAULT,
	 * as the UAPI says. GUP reports it as -EOVERFLOW on newer kernels
	 * (6.12), as nothing pinned on older ones (6.1).
	 */
	if (check_add_overflow(uaddr & PAGE_MASK, npages << PAGE_SHIFT, &end))
		return -EFAULT;
	if (npages <= IPU_DMA_INLINE_PAGES) {
		buf->pages = buf->inline_pages;
		buf->bvecs = buf->inline_bvecs;
	} else {
		buf->pages = kvmalloc_array(npages, sizeof(*buf->pages), gfp);
		buf->bvecs = kvmalloc_array(npages, sizeof(*buf->bvecs), gfp);
		if (!buf->pages || !buf->bvecs) {
			pinned = nowait ? -EAGAIN : -ENOMEM;
			goto err_free;
		}
	}

	pinned = pin_user_pages_fast(uaddr & PAGE_MASK, npages, gup,
				     buf->pages);
	if (pinned >= 0 && pinned < npages) {
		unpin_user_pages(buf->pages, pinned);
		pinned = -EFAULT;
	}
	if (pinned < 0) {
		/* Missing pages, or any other doubt: the worker decides. */
		if (nowait)
			pinned = -EAGAIN;
		goto err_free;
	}

	for (i = 0; i < npages; i++) {
		size_t n = min_t(size_t, left, PAGE_SIZE - off);

		buf->bvecs[i].bv_page = buf->pages[i];
		buf->bvecs[i].bv_offset = off;
		buf->bvecs[i].bv_len = n;
		left -= n;
		off = 0;
	}
	buf->npages = npages;
	buf->to_device = to_device;
	/* WRITE: the iterator is the source of the data; READ: the sink. */
	iov_iter_bvec(&buf->iter, to_device ? WRITE : READ, buf->bvecs, npages,
		      len);
	return 0;

err_free:
	ipu_dma_free(buf);
	return pinned;
}

/**
 * ipu_dma_unpin - release a range pinned by ipu_dma_pin()
 * @buf: the range; pages the device wrote into (from the device) are marked
 *	dirty whether or not the transfer succeeded
 */
void ipu_dma_unpin(struct ipu_dma_buf *buf)
{
	if (buf->to_device)
		unpin_user_pages(buf->pages, buf->npages);
	else
		unpin_user_pages_dirty_lock(buf->pages, buf->npages, true);
	ipu_dma_free(buf);
}
