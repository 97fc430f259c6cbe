// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_path.c - the paths ipu-info reads, below --root: a path that would
 * be cut short names no file at all. The files themselves are read with
 * libipu's attribute readers (userspace/ipu/attr.h), which take a value
 * only when it is whole.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "info.h"

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
