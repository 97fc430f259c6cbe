// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * attr.c - reading sysfs-like attribute files (attr.h): for libipu's
 * enumeration and the tools.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attr.h"

int ipu_attr_read(const char *path, char *buf, size_t len)
{
	ssize_t n, more;
	char extra;
	int fd, err = 0;

	if (len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		err = -errno;
	} else if ((size_t)n == len - 1) {
		/* A full buffer: only a value that ends right here is whole. */
		do {
			more = read(fd, &extra, 1);
		} while (more < 0 && errno == EINTR);
		if (more != 0)
			err = -EOVERFLOW;
	}
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	/* One line: sysfs ends its values with a newline. */
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int ipu_attr_read_u64(const char *path, int base, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int err;

	err = ipu_attr_read(path, buf, sizeof(buf));
	if (err)
		return err;
	/* strtoull() would take a sign or leading blanks. */
	if (!isxdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, base);
	if (errno || end == buf || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

int ipu_attr_read_s64(const char *path, long long *val)
{
	char buf[64], *end;
	const char *digits;
	long long v;
	int err;

	err = ipu_attr_read(path, buf, sizeof(buf));
	if (err)
		return err;
	digits = buf[0] == '-' ? buf + 1 : buf;
	if (!isdigit((unsigned char)digits[0]))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

/* "ipuN" with N a decimal without sign or leading zero. */
int ipu_parse_node_name(const char *s, unsigned int *index)
{
	unsigned long v;
	char *end;

	if (strncmp(s, "ipu", 3) || s[3] < '0' || s[3] > '9' ||
	    (s[3] == '0' && s[4]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s + 3, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -EINVAL;
	*index = v;
	return 0;
}
