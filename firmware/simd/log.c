// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * log.c - ipu-simd's messages, one line each on stderr.
 *
 * Errors that clients cause (a malformed program, a replica that never
 * came) are rate-limited: any process that may launch could otherwise
 * fill the disk behind the daemon's log. The limit is a window of
 * SIMD_LOG_WINDOW_S seconds with SIMD_LOG_BURST lines; what is left out is
 * counted and reported when the next window opens.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "simd.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static time_t window_start;
static unsigned int window_lines;
static unsigned long suppressed;

/* One whole line at a time, so threads never interleave mid-line. */
static void vlog(const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "ipu-simd: %s\n", line);
}

void simd_info(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_lock);
}

void simd_debug(const char *fmt, ...)
{
	va_list ap;

	if (!simd_opts.verbose)
		return;
	pthread_mutex_lock(&log_lock);
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_lock);
}

void simd_error(const char *fmt, ...)
{
	struct timespec now;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&log_lock);
	if (now.tv_sec - window_start >= SIMD_LOG_WINDOW_S) {
		if (suppressed)
			fprintf(stderr, "ipu-simd: %lu messages suppressed\n",
				suppressed);
		window_start = now.tv_sec;
		window_lines = 0;
		suppressed = 0;
	}
	if (window_lines < SIMD_LOG_BURST) {
		window_lines++;
		va_start(ap, fmt);
		vlog(fmt, ap);
		va_end(ap);
	} else {
		suppressed++;
	}
	pthread_mutex_unlock(&log_lock);
}
