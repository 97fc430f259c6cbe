// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_trace.c - what a session's timeline (IPU_TRACE, docs/trace.md)
 * costs a run, on the model: the same one-op program (y = x + x on one
 * float, where the session's own work weighs most), run untraced and
 * traced, alternating rounds so both see the same machine; best of five
 * rounds of RUNS runs each. Traced runs profile their launches too
 * (IPU_LAUNCH_F_PROFILE): the "on" numbers include the op spans, whose
 * count per run the last line says. Then the time the traced session
 * takes to write its file when it is destroyed. Public headers only.
 *
 *	bench trace.off.us_per_run <x> us
 *	bench trace.on.us_per_run <x> us (with op spans)
 *	bench trace.on_vs_off.ratio <x> x
 *	bench trace.write_ms <x> ms (<n> runs' events)
 *	bench trace.on.op_spans_per_run <x>
 *
 * No timing is asserted: the ratio is printed for people to read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ipu/session.h>

#include "bench_prog.h"

#define ROUNDS 5
#define RUNS 2000

/* Op spans in the trace at @path ("cat":"op"), or -1. */
static long op_spans(const char *path)
{
	static const char key[] = "\"cat\":\"op\"";
	size_t at = 0;
	long n = 0;
	FILE *f = fopen(path, "r");
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF) {
		at = c == key[at] ? at + 1 : c == key[0];
		if (at == sizeof(key) - 1) {
			n++;
			at = 0;
		}
	}
	fclose(f);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per run over RUNS runs; negative on failure. */
static double time_runs(struct ipu_session *s)
{
	float xv = 1, yv = 0;
	struct ipu_stream_buffer in = {
		.stream = "x",
		.buf = { .data = &xv, .dtype = IPU_DTYPE_FLOAT32, .ndim = 1,
			 .shape = { 1 } },
	};
	struct ipu_stream_buffer out = in;
	double t = now();
	int i;

	out.stream = "y";
	out.buf.data = &yv;
	for (i = 0; i < RUNS; i++)
		if (ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0)) {
			fprintf(stderr, "bench_trace: run: %s\n",
				ipu_session_errmsg(s));
			return -1;
		}
	return (now() - t) / RUNS;
}

int main(void)
{
	char dir[] = "/tmp/bench_trace.XXXXXX", path[64];
	struct ipu_session *off, *on;
	double best_off = 1e9, best_on = 1e9, t, w;
	int r, err = 1;

	if (!mkdtemp(dir)) {
		perror("bench_trace: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/t.json", dir);
	unsetenv("IPU_TRACE");
	off = bench_prog_session("bench_trace", 1, ADD_SELF, NULL);
	on = bench_prog_session("bench_trace", 1, ADD_SELF, path);
	if (!off || !on)
		goto out;
	for (r = 0; r < ROUNDS; r++) {
		t = time_runs(off);
		if (t < 0)
			goto out;
		best_off = t < best_off ? t : best_off;
		t = time_runs(on);
		if (t < 0)
			goto out;
		best_on = t < best_on ? t : best_on;
	}
	printf("bench trace.off.us_per_run %.2f us\n", best_off * 1e6);
	printf("bench trace.on.us_per_run %.2f us (with op spans)\n",
	       best_on * 1e6);
	printf("bench trace.on_vs_off.ratio %.3f x\n", best_on / best_off);
	w = now();
	ipu_session_destroy(on);
	on = NULL;
	printf("bench trace.write_ms %.1f ms (%d runs' events)\n",
	       (now() - w) * 1e3, ROUNDS * RUNS);
	printf("bench trace.on.op_spans_per_run %.2f\n",
	       (double)op_spans(path) / (ROUNDS * RUNS));
	err = 0;
out:
	ipu_session_destroy(on);
	ipu_session_destroy(off);
	unlink(path);
	rmdir(dir);
	return err;
}
