/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transfers between host memory and buffer objects.
 */
#ifndef _IPU_XFER_H
#define _IPU_XFER_H

struct ipu_bo;
struct ipu_file;
struct ipu_xfer;

int ipu_ioctl_xfer(struct ipu_file *ifile, void *data);
int ipu_xfer_check_args(const struct ipu_xfer *args);
int ipu_xfer_lookup(struct ipu_file *ifile, const struct ipu_xfer *args,
		    struct ipu_bo **bop);

#endif /* _IPU_XFER_H */
