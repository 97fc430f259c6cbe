// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * error.c - error codes and the per-thread error message.
 *
 * Every public function returns 0 or -errno; when it fails it also leaves a
 * message here that names the device and the operation, for the caller to
 * show (sqlite's errmsg, libgit2's git_error_last). errno itself is saved
 * and restored around every public function (IPU_KEEP_ERRNO()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static __thread char ipu_errbuf[512];

const char *ipu_strerror(int err)
{
	const char *s;

	if (err == 0)
		return "Success";
	if (err < 0) {
		if (err == -2147483647 - 1)
			return "Unknown error";
		err = -err;
	}
	s = strerrordesc_np(err);
	return s ? s : "Unknown error";
}

const char *ipu_errmsg(void)
{
	return ipu_errbuf;
}

int ipu_err(int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ipu_errbuf, sizeof(ipu_errbuf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(ipu_errbuf))
		snprintf(ipu_errbuf + n, sizeof(ipu_errbuf) - n, ": %s",
			 ipu_strerror(err));
	return err;
}

int ipu_err_raw(int err, const char *msg)
{
	snprintf(ipu_errbuf, sizeof(ipu_errbuf), "%s", msg);
	return err;
}

void ipu_errno_restore(const int *saved)
{
	errno = *saved;
}
