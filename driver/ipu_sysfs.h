/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs attributes of /sys/class/ipu/ipuN.
 */
#ifndef _IPU_SYSFS_H
#define _IPU_SYSFS_H

#include <linux/sysfs.h>

extern const struct attribute_group *ipu_dev_groups[];

#endif /* _IPU_SYSFS_H */
