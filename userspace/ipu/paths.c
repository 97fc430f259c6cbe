// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * paths.c - where libipu looks for sysfs and device nodes.
 *
 * "/sys" and "/dev" unless a test moved them (a fake sysfs tree in a
 * temporary directory, a regular file posing as a device node).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define IPU_ROOT_MAX 256

static char ipu_sysfs_root_buf[IPU_ROOT_MAX] = "/sys";
static char ipu_dev_root_buf[IPU_ROOT_MAX] = "/dev";

static int set_root(char *buf, const char *root, const char *dflt)
{
	if (!root)
		root = dflt;
	if (strlen(root) >= IPU_ROOT_MAX)
		return -ENAMETOOLONG;
	strcpy(buf, root);
	return 0;
}

const char *ipu_sysfs_root(void)
{
	return ipu_sysfs_root_buf;
}

const char *ipu_dev_root(void)
{
	return ipu_dev_root_buf;
}

int __ipu_set_sysfs_root(const char *root)
{
	return set_root(ipu_sysfs_root_buf, root, "/sys");
}

int __ipu_set_dev_root(const char *root)
{
	return set_root(ipu_dev_root_buf, root, "/dev");
}
