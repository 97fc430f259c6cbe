/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transfers between host memory and buffer objects.
 */
#ifndef _IPU_XFER_H
#define _IPU_XFER_H

struct ipu_file;

int ipu_ioctl_xfer(struct ipu_file *ifile, void *data);

#endif /* _IPU_XFER_H */
