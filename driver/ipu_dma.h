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

/**
 * struct ipu_dma_buf - a pinned host range
 * @pages: the pinned pages, @npages of them.
 * @bvecs: one bio_vec per page, covering exactly the range.
 * @npages: pages pinned.
 * @iter: iterator over @bvecs; the hardware consumes it.
 * @to_device: direction: the pages are read (true) or written.
 */
struct ipu_dma_buf {
	struct page **pages;
	struct bio_vec *bvecs;
	unsigned long npages;
	struct iov_iter iter;
	bool to_device;
};

int ipu_dma_pin(struct ipu_dma_buf *buf, unsigned long uaddr, size_t len,
		bool to_device);
void ipu_dma_unpin(struct ipu_dma_buf *buf);

#endif /* _IPU_DMA_H */
