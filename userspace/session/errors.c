// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * errors.c - libsession's messages (S25): a return code plus a readable
 * message naming what is at fault, kept per session, or per thread for
 * ipu_session_create(), which has no session to keep it in yet.
 */
#include <stdarg.h>
#include <stdio.h>

#include "session_internal.h"

static __thread char create_errmsg[SESS_ERRMSG_LEN];

int ipu_sess_err(struct ipu_session *s, int err, const char *fmt, ...)
{
	char *buf = s ? s->errmsg : create_errmsg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, SESS_ERRMSG_LEN, fmt, ap);
	va_end(ap);
	return err;
}

void ipu_sess_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write, so that lines of several threads do not interleave. */
	fprintf(stderr, "libsession: %s\n", line);
}

char *ipu_sess_fmt_shape(char *buf, size_t len, uint32_t ndim,
			 const uint64_t *shape)
{
	size_t at = 0;
	uint32_t i;

	at += (size_t)snprintf(buf, len, "(");
	for (i = 0; i < ndim && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%llu",
				       i ? ", " : "",
				       (unsigned long long)shape[i]);
	/* NumPy's spelling of a one-dimensional shape: (4,) */
	if (ndim == 1 && at < len)
		at += (size_t)snprintf(buf + at, len - at, ",");
	if (at < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}

const char *ipu_session_errmsg(const struct ipu_session *s)
{
	return s ? s->errmsg : create_errmsg;
}
