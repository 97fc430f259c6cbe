// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * sysfs.c - hardware devices as sysfs shows them: /sys/class/ipu/ipuN/.
 *
 * Attributes (docs/sim-control.md): platform, memory_total, memory_used,
 * owner_pid, firmware_version ("major.minor.patch"), serial (16 hex
 * digits), reset_count. A device can vanish while it is read: an attribute
 * that cannot be read is left 0 (""), a device whose directory is gone is
 * left out.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* "<dir>/<attr>" into @path; -ENAMETOOLONG when it does not fit. */
static int attr_path(char *path, size_t len, const char *dir, const char *attr)
{
	return snprintf(path, len, "%s/%s", dir, attr) >= (int)len ?
		       -ENAMETOOLONG : 0;
}

int ipu_sysfs_read(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int err = attr_path(path, sizeof(path), dir, attr);

	return err ? err : ipu_attr_read(path, buf, len);
}

int ipu_sysfs_read_u64(const char *dir, const char *attr, int base,
		       uint64_t *val)
{
	char path[PATH_MAX];
	int err = attr_path(path, sizeof(path), dir, attr);

	return err ? err : ipu_attr_read_u64(path, base, val);
}

int ipu_parse_fw_version(const char *s, uint32_t *ver)
{
	unsigned int maj, min, pat;
	int n = 0;

	if (sscanf(s, "%u.%u.%u%n", &maj, &min, &pat, &n) != 3 || s[n] ||
	    maj > 0xffff || min > 0xff || pat > 0xff)
		return -EINVAL;
	*ver = maj << 16 | min << 8 | pat;
	return 0;
}

unsigned int ipu_platform_from_name(const char *name)
{
	if (!strcmp(name, "sim"))
		return IPU_DEVICE_PLATFORM_SIM;
	if (!strcmp(name, "pci"))
		return IPU_DEVICE_PLATFORM_PCI;
	if (!strcmp(name, "model"))
		return IPU_DEVICE_PLATFORM_MODEL;
	return IPU_DEVICE_PLATFORM_UNKNOWN;
}

/*
 * Add ipuN, unless @only names a platform and the device's is another
 * (IPU_HW_PLATFORM, backend_kernel.c).
 */
static int add_device(struct ipu_device_list *list, const char *prefix,
		      const char *classdir, unsigned int index, const char *only)
{
	struct ipu_device_entry e = { 0 };
	char dir[PATH_MAX], name[64], node[PATH_MAX], platform[64], fw[64];
	uint64_t v;

	if (snprintf(dir, sizeof(dir), "%s/ipu%u", classdir, index) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	/* Gone since readdir(): leave it out. */
	if (access(dir, F_OK))
		return 0;
	if (ipu_sysfs_read(dir, "platform", platform, sizeof(platform)))
		platform[0] = '\0';
	if (only && strcmp(platform, only))
		return 0;

	if (snprintf(name, sizeof(name), "%s:%u", prefix, index) >=
	    (int)sizeof(name) ||
	    snprintf(node, sizeof(node), "%s/ipu%u", ipu_dev_root(), index) >=
	    (int)sizeof(node))
		return -ENAMETOOLONG;
	e.name = name;
	e.node = node;
	e.index = index;
	e.platform_name = platform;
	e.platform = ipu_platform_from_name(platform);
	if (!ipu_sysfs_read_u64(dir, "memory_total", 0, &v))
		e.memory_total = v;
	if (!ipu_sysfs_read_u64(dir, "memory_used", 0, &v))
		e.memory_used = v;
	if (!ipu_sysfs_read_u64(dir, "owner_pid", 10, &v) && v <= UINT32_MAX)
		e.owner_pid = v;
	if (!ipu_sysfs_read_u64(dir, "reset_count", 0, &v))
		e.reset_count = v;
	if (!ipu_sysfs_read_u64(dir, "serial", 16, &v))
		e.serial = v;
	if (!ipu_sysfs_read(dir, "firmware_version", fw, sizeof(fw)))
		ipu_parse_fw_version(fw, &e.firmware_version);
	return ipu_device_list_add(list, &e);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int ipu_sysfs_enumerate(struct ipu_device_list *list, const char *prefix,
			const char *only)
{
	char classdir[PATH_MAX];
	unsigned int *idx = NULL, *tmp, index;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (snprintf(classdir, sizeof(classdir), "%s/class/ipu",
		     ipu_sysfs_root()) >= (int)sizeof(classdir))
		return -ENAMETOOLONG;
	d = opendir(classdir);
	if (!d)
		/* No driver loaded: no hardware devices. */
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		if (ipu_parse_node_name(de->d_name, &index))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			tmp = realloc(idx, cap * sizeof(*idx));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			idx = tmp;
		}
		idx[n++] = index;
	}
	closedir(d);

	if (!err && n) {
		qsort(idx, n, sizeof(*idx), cmp_uint);
		for (i = 0; i < n && !err; i++)
			err = add_device(list, prefix, classdir, idx[i], only);
	}
	free(idx);
	return err;
}
