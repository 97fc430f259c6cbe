/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ipu-trace.h - what ipu-trace does with a trace it read (trace_read.h):
 * trace_summary.c prints the summary, trace_svg.c draws the picture.
 */
#ifndef IPU_TRACE_TOOL_H
#define IPU_TRACE_TOOL_H

#include <stdio.h>

#include "trace_read.h"

/* How many of the slowest spans the summary lists. */
#define TRACE_SLOWEST 10

/*
 * trace_summary() - to @f: time per phase, transfer rates per direction
 * and stream, each device track's busy and idle share of the trace's
 * time, and the TRACE_SLOWEST ops that took the most time in all (by
 * name: count, total, mean), or, in a trace without op spans, the
 * slowest launches and transfers.
 */
void trace_summary(const struct trace *t, FILE *f);

/*
 * trace_svg() - the timeline as an SVG picture to @f: a row per track,
 * nested spans below their holders, coloured by category, each with a
 * tooltip (name, duration, bytes), and a time axis in ms.
 * Return: 0, or -EIO when writing failed.
 */
int trace_svg(const struct trace *t, const char *title, FILE *f);

/*
 * trace_record() - `ipu-trace record` (trace_record.c), @argv[0] being
 * "record". Return: the exit status: CMD's, 128+N when signal N ended it,
 * 2 for a usage error or without root, tracefs or ipu.ko's events, 1 when
 * CMD succeeded but the file could not be written.
 */
int trace_record(int argc, char **argv);

/*
 * trace_beside() - a new file beside @out, "DIR/.NAME.XXXXXX" (O_EXCL,
 * mode 0600 until trace_chmod_like_new()), as a stream; NULL with errno.
 * @tmp gets its name (free it), to be renamed over @out once complete.
 */
FILE *trace_beside(const char *out, char **tmp);

/*
 * trace_chmod_like_new() - give the file open at @fd the mode a new 0666
 * file would have (by descriptor: the name may have been swapped).
 */
int trace_chmod_like_new(int fd);

#endif /* IPU_TRACE_TOOL_H */
