/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ioctl dispatch: one table, one place where sizes and directions are checked.
 */
#ifndef _IPU_IOCTL_H
#define _IPU_IOCTL_H

struct ipu_file;

long ipu_ioctl(struct ipu_file *ifile, unsigned int cmd, unsigned long arg);

#endif /* _IPU_IOCTL_H */
