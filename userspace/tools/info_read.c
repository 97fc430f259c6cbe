// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_read.c - ipu-info's reading of sysfs-like files: one short value
 * per file, treated as untrusted (a fake tree in the tests, a driver with
 * a bug, a file that changed while read). A value is taken only when it
 * is whole: too long, empty, signed, padded or followed by garbage, it is
 * -EINVAL (or -EOVERFLOW), and the caller shows it as unknown.
 *
 * libipu's sysfs.c parses the same attributes for enumeration, but it is
 * internal to the library, reads only below /sys and folds every failure
 * into 0; ipu-info reads below --root and names each failure, so it has
 * its own reader.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info.h"

int info_read_str(const char *path, char *buf, size_t len)
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

int info_read_u64(const char *path, int base, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int err;

	err = info_read_str(path, buf, sizeof(buf));
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

int info_read_s64(const char *path, long long *val)
{
	char buf[64], *end;
	const char *digits;
	long long v;
	int err;

	err = info_read_str(path, buf, sizeof(buf));
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

int info_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		/* A path cut short would name another file: name none. */
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}
