/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * trace_read.h - ipu-trace's reader of Chrome trace-event JSON (what
 * libsession writes, docs/trace.md; any other producer's file too): the
 * complete ("X") events and the names of processes and threads, with
 * json-c. Untrusted input: every member is checked for its type, and a
 * file that is not such a trace fails with a message saying where.
 */
#ifndef IPU_TRACE_READ_H
#define IPU_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

/*
 * The largest trace read (1 GiB), so that a stray huge file fails at once
 * with its size named rather than after minutes of parsing and a few GiB
 * of memory. Far beyond libsession's: at most SESS_TRACE_MAX_EVENTS
 * (1,048,576) events of under 200 bytes each.
 */
#define TRACE_MAX_BYTES (1ull << 30)

/**
 * struct trace_span - one "X" event.
 * @name, @cat: as given ("" when absent); owned by the trace.
 * @pid, @tid: its track.
 * @ts, @dur: start and length in ns (the file's µs, rounded).
 * @bytes: args.bytes, or 0.
 * @depth: how many spans of its track hold it (filled by trace_read_*).
 */
struct trace_span {
	char *name, *cat;
	int64_t pid, tid;
	int64_t ts, dur;
	uint64_t bytes;
	unsigned int depth;
};

/* struct trace_track - a (pid, tid) with spans, and its name. */
struct trace_track {
	int64_t pid, tid;
	char *name;
};

/**
 * struct trace - what trace_read_buf() found.
 * @spans, @n_spans: the spans, sorted by track, then start, longer first.
 * @tracks, @n_tracks: the tracks spans use, in (pid, tid) order; a name
 *	from the process_name and thread_name metadata, else "pid/tid".
 * @t0, @t1: the earliest start and the latest end of any span (ns).
 */
struct trace {
	struct trace_span *spans;
	size_t n_spans;
	struct trace_track *tracks;
	size_t n_tracks;
	int64_t t0, t1;
};

/**
 * trace_read_buf() - parse @len bytes at @buf (need not end in NUL).
 * @t: out: the trace; free with trace_free() whatever the outcome.
 * @msg, @msglen: the reason on failure ("not JSON at byte 12: ...",
 *	"event 3: \"ts\" is not a number").
 *
 * Return: 0; -EINVAL for a file that is not a trace; -ENOMEM.
 */
int trace_read_buf(const char *buf, size_t len, struct trace *t, char *msg,
		   size_t msglen);

/**
 * trace_read_file() - trace_read_buf() of the file at @path (at most
 * TRACE_MAX_BYTES); errors of reading it also as a negative errno, the
 * message naming the path.
 */
int trace_read_file(const char *path, struct trace *t, char *msg,
		    size_t msglen);

/* trace_free() - what a read allocated; @t is zeroed. */
void trace_free(struct trace *t);

/* trace_track_of() - index of the track of @sp in @t->tracks. */
size_t trace_track_of(const struct trace *t, const struct trace_span *sp);


#endif /* IPU_TRACE_READ_H */
