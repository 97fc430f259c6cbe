// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_trace_read.c - libFuzzer target for ipu-trace's reader: on
 * arbitrary bytes trace_read_buf() must fail cleanly (a message) or give
 * a trace whose spans are sorted on tracks that exist, whose names hold
 * no control character (they go to a terminal), and which the summary and
 * the SVG writer go through. Crashes, leaks and sanitizer
 * reports are the bugs.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: -Iuserspace/tools -I/usr/include/json-c userspace/tools/trace_read.c userspace/tools/trace_summary.c userspace/tools/trace_svg.c userspace/tools/json_str.c -ljson-c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ipu-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_trace_read: %s\n", what);
	abort();
}

/* C0, DEL and the C1 controls in UTF-8 (0xc2 0x80..0x9f) are escaped. */
static void printable(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			bug("a name with a control character");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	char msg[512];
	FILE *null;
	size_t i, k;

	if (trace_read_buf((const char *)data, size, &t, msg, sizeof(msg))) {
		if (!msg[0])
			bug("a failure without a message");
		trace_free(&t);
		return 0;
	}
	for (i = 0; i < t.n_spans; i++) {
		k = trace_track_of(&t, &t.spans[i]);
		if (k >= t.n_tracks || t.tracks[k].pid != t.spans[i].pid ||
		    t.tracks[k].tid != t.spans[i].tid)
			bug("a span on a track that is not listed");
		if (t.spans[i].dur < 0 || t.spans[i].ts < t.t0 ||
		    t.spans[i].ts + t.spans[i].dur > t.t1)
			bug("a span outside the trace's time");
		printable(t.spans[i].name);
		printable(t.spans[i].cat);
	}
	for (k = 0; k < t.n_tracks; k++)
		printable(t.tracks[k].name);
	null = fopen("/dev/null", "w");
	if (null) {
		trace_summary(&t, null);
		trace_svg(&t, "fuzz", null);
		fclose(null);
	}
	trace_free(&t);
	return 0;
}
