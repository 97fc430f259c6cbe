/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * trace_kparse.h - ipu.ko's trace events, as tracefs's `trace` file prints
 * them (driver/ipu_trace.h), read line by line and written as Chrome
 * trace events on a "kernel" process: what `ipu-trace record` merges into
 * a session's timeline (docs/trace.md). No system calls here, so that the
 * fuzz target (tests/fuzz/fuzz_ktrace_parse.c) runs it on any bytes.
 */
#ifndef IPU_TRACE_KPARSE_H
#define IPU_TRACE_KPARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A longer line is not one of ipu.ko's (theirs are under 200 bytes). */
#define KTRACE_MAX_LINE 1024
/*
 * Submitted or started transfers and launches waiting for their end;
 * past this many (or when memory for more runs out) the newest is written
 * as an instant event, counted.
 */
#define KTRACE_MAX_PENDING 4096
/* The "kernel" process's pid in the output, apart from libsession's. */
#define KTRACE_PID 1000000
/* Device minors above this are not ipu.ko's (a line naming one is malformed). */
#define KTRACE_MAX_MINOR 4095

/* One event line of the `trace` file. */
struct kline {
	char comm[64];		/* the task's name, raw: any bytes but NUL */
	int pid;
	int cpu;
	int64_t ts_ns;		/* the trace clock's time */
	char event[64];		/* "ipu_xfer_start" */
	int minor;		/* ipuN */
	const char *fields;	/* "client=1 handle=2 ..." inside the line */
};

/*
 * trace_kparse_line() - parse @line (NUL-terminated, no newline needed;
 * it is changed) into @k. The task's name is the only part a user
 * chooses, so the line is read from its right end: the last
 * "TIMESTAMP: NAME: " that "-PID [CPU] FLAGS" precedes.
 * Return: 1 for an ipu event, 0 for a comment, a blank line or another
 * system's event, -1 for a malformed line.
 */
int trace_kparse_line(char *line, struct kline *k);

struct kpend;
struct kqueue;

/* Where ktrace_*() write, and what they counted. */
struct ktrace {
	FILE *f;
	bool comma;		/* an event was written before: a comma first */
	uint64_t lines;		/* lines read */
	uint64_t events;	/* ipu events among them */
	uint64_t malformed;	/* lines skipped as malformed */
	uint64_t spans;		/* transfer and launch spans written */
	uint64_t unpaired;	/* a start or an end without the other */
	uint64_t overflow;	/* begun past KTRACE_MAX_PENDING */
	uint64_t probes;	/* held entries looked at while pairing */
	struct kpend *pend;	/* held entries, grown up to KTRACE_MAX_PENDING */
	struct kqueue *queues;	/* as many: a queue per key held */
	size_t n_pend, cap_pend;	/* held; allocated (of each) */
	int32_t free_pend, free_q;	/* free lists; -1: empty */
	int32_t *buckets;	/* the index: a chain of queues per hash */
	int32_t last_queue;	/* the queue hold() appended to */
	uint8_t *tracks;	/* per minor: a bit per track used */
};

/*
 * ktrace_init() - start writing kernel events to @f, each preceded by a
 * comma when @comma (events were written before them).
 * Return: 0 or -ENOMEM.
 */
int ktrace_init(struct ktrace *kt, FILE *f, bool comma);

/*
 * ktrace_line() - one line of the `trace` file: a transfer's or launch's
 * submit and start are held until its complete (or fail), then written as
 * one span from its start (its submit when it has none) with the time it
 * waited as `queued_us`; other events are instant events. Transfers pair
 * by device, client, handle and direction, launches by device, client,
 * id and replica, first in first out, through an index on those (a hash
 * of queues): no line looks at every held one. A malformed line is
 * counted.
 */
void ktrace_line(struct ktrace *kt, char *line);

/*
 * ktrace_finish() - write what is still held (as instant events, counted
 * as unpaired), the names of the tracks used, and free @kt.
 */
void ktrace_finish(struct ktrace *kt);

#endif /* IPU_TRACE_KPARSE_H */
