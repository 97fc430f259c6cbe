/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host memory handed to the device: user pages pinned and described as a
 * bvec iov_iter, the form both the synchronous ioctl and io_uring (whose
 * registered buffers arrive as bvec iterators already) give the hardware.
 */
#ifndef _IPU_DMA_H
#define _IPU_DMA_H

#include <linux/bvec.h>
#include <linux/types.h>
#include <linux/uio.h>

/*
 * Pages of a range described inside struct ipu_dma_buf itself: a small
 * transfer (up to 60 KiB at any alignment) allocates nothing.
 */
#define IPU_DMA_INLINE_PAGES 16

/**
 * struct ipu_dma_buf - a pinned host range
 * @pages: the pinned pages, @npages of them: @inline_pages, or allocated.
 * @bvecs: one bio_vec per page, covering exactly the range: @inline_bvecs,
 *	or allocated.
 * @npages: pages pinned.
 * @iter: iterator over @bvecs; the hardware consumes it.
 * @to_device: direction: the pages are read (true) or written.
 * @inline_pages: @pages of a range of at most IPU_DMA_INLINE_PAGES pages.
 * @inline_bvecs: @bvecs of such a range.
 *
 * @iter points into the structure: pin it where it stays, never copy it.
 */
struct ipu_dma_buf {
	struct page **pages;
	struct bio_vec *bvecs;
	unsigned long npages;
	struct iov_iter iter;
	bool to_device;
	struct page *inline_pages[IPU_DMA_INLINE_PAGES];
	struct bio_vec inline_bvecs[IPU_DMA_INLINE_PAGES];
};

int ipu_dma_pin(struct ipu_dma_buf *buf, unsigned long uaddr, size_t len,
		bool to_device, bool nowait);
void ipu_dma_unpin(struct ipu_dma_buf *buf);

#endif /* _IPU_DMA_H */
