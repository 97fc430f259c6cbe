/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transfers between host memory and buffer objects.
 */
#ifndef _IPU_XFER_H
#define _IPU_XFER_H

#include <linux/types.h>

struct iov_iter;
struct ipu_bo;
struct ipu_device;
struct ipu_file;
struct ipu_usage;
struct ipu_xfer;

int ipu_ioctl_xfer(struct ipu_file *ifile, void *data);
int ipu_xfer_check_args(const struct ipu_xfer *args);
int ipu_xfer_lookup(struct ipu_file *ifile, const struct ipu_xfer *args,
		    struct ipu_bo **bop);
int ipu_xfer_get_bo(struct ipu_file *ifile, const struct ipu_xfer *args,
		    struct ipu_bo **bop);
int ipu_xfer_move(struct ipu_file *ifile, struct ipu_bo *bo,
		  const struct ipu_xfer *args, int path, struct iov_iter *iter,
		  bool nowait);
int ipu_xfer_dma(struct ipu_device *idev, struct ipu_usage *usage,
		 u64 dev_off, struct iov_iter *iter, bool to_device);
int ipu_xfer_chunks(struct ipu_file *ifile, u64 dev_off, unsigned long uaddr,
		    u64 len, bool to_device, bool nowait);

#endif /* _IPU_XFER_H */
