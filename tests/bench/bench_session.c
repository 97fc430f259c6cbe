// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_session.c - what libsession adds to a run, on the model.
 *
 * Overhead: a one-op program (y = x + x on one float, a 4-byte input and
 * output) run with ipu_session_run_with_outputs(), against libipu alone
 * on the session's own queue and IPU (test hooks, include/ipu/testing.h)
 * with buffer objects of its own holding the same executable: a bare
 * LAUNCH, and the chain a run is (H2D -> LAUNCH -> D2H) built by hand.
 * Public headers only, as an application would measure it.
 *
 * Bandwidth: 64 MiB streams through ipu_session_run_with_outputs() against
 * memcpy() of the same bytes (64 MiB in, 64 MiB out), for two programs:
 *
 *  - y = x ("stream"): the compiler elides the program's copies (the
 *    loaded tensor sits on x's slot, which y's slot shares: exe.h,
 *    "Shared memory"), so a run moves the bytes host to device and back
 *    and nothing else, and should come close to memcpy;
 *  - y = x * 2 ("stream_x2"): the load and the store are elided too
 *    (x's tensor on x's slot, the product on y's), but the multiply must
 *    still read 64 MiB and write 64 MiB, on top of the two transfers.
 *
 * The time of a bare launch of each program is printed too, and the ratio
 * of the transfers alone: the run's H2D and D2H commands, timed on their
 * own in the same rounds (not a run's time less a launch's: two best-of
 * figures from different measurements, whose difference went negative
 * when the machine was busy during the launches).
 *
 *	bench session.run_4B.us_per_run <x> us
 *	bench libipu.launch.us_per_launch <x> us
 *	bench libipu.h2d_launch_d2h.us_per_run <x> us
 *	bench session.run_4B.ratio_vs_chain <x> x
 *	bench session.run_4B.ratio_vs_launch <x> x
 *	bench session.stream_64MiB.gbps <x> GB/s
 *	bench session.stream_64MiB.ratio_vs_memcpy <x> x
 *	bench session.stream_64MiB.program_ms <x> ms
 *	bench session.stream_64MiB.transfers_ratio_vs_memcpy <x> x
 *	bench session.stream_x2_64MiB.gbps <x> GB/s
 *	bench session.stream_x2_64MiB.ratio_vs_memcpy <x> x
 *	bench session.stream_x2_64MiB.program_ms <x> ms
 *	bench session.stream_x2_64MiB.transfers_ratio_vs_memcpy <x> x
 *	bench memcpy_64MiB_in_out.gbps <x> GB/s
 *
 * Each ratio is against memcpy timed in the same rounds as the program.
 * Best of five rounds. No timing is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ipu/exe.h>
#include <ipu/ir.h>
#include <ipu/session.h>
#include <ipu/testing.h>

#include "bench_prog.h"

#define ROUNDS 5
#define RUNS 5000
#define BIG (64ull << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(struct ipu_session *s, const char *what)
{
	fprintf(stderr, "bench_session: %s: %s\n", what,
		s ? ipu_session_errmsg(s) : ipu_session_errmsg(NULL));
	return 1;
}

/* A session, attached, for y = op(x) over @n floats. */
static struct ipu_session *make(uint64_t n, enum bench_prog op)
{
	return bench_prog_session("bench_session", n, op, NULL);
}

/* Seconds per ipu_session_run_with_outputs() over @runs runs. */
static double time_runs(struct ipu_session *s, void *x, void *y, uint64_t n,
			int runs)
{
	struct ipu_stream_buffer in = {
		.stream = "x",
		.buf = { .data = x, .dtype = IPU_DTYPE_FLOAT32, .ndim = 1,
			 .shape = { n } },
	};
	struct ipu_stream_buffer out = in;
	double t = now();
	int i;

	out.stream = "y";
	out.buf.data = y;
	for (i = 0; i < runs; i++)
		if (ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0))
			return fail(s, "run"), -1;
	return (now() - t) / runs;
}

/* What time_libipu() submits: a bare launch, the chain of a run, or the
 * run's two transfers without the launch. */
enum batch { LAUNCH, CHAIN, XFERS };

/*
 * libipu's side: the session's program in buffer objects of our own on the
 * session's IPU, and the session's queue, which takes commands for it.
 */
struct bare {
	struct ipu_queue *q;
	struct ipu_bo *exe_bo, *arena_bo;
	uint64_t exe_size;
	uint64_t in_slot, out_slot;
};

/* Free what bare_make() made; again is harmless. */
static void bare_free(struct bare *b)
{
	if (b->exe_bo)
		ipu_bo_destroy(b->exe_bo);
	if (b->arena_bo)
		ipu_bo_destroy(b->arena_bo);
	b->exe_bo = b->arena_bo = NULL;
}

/* The slots of stream @name of @exe. */
static uint64_t slot_of(const struct ipu_exe *exe, const char *name)
{
	uint32_t i;

	for (i = 0; i < exe->num_streams; i++)
		if (!strcmp(exe->streams[i].name, name))
			return exe->streams[i].slots_offset;
	return 0;
}

static int bare_make(struct ipu_session *s, struct bare *b)
{
	struct ipu_device *dev = __ipu_session_replica_device(s, 0);
	const struct ipu_exe *exe = ipu_session_exe(s);
	char msg[256];
	size_t len;
	void *img;
	int err;

	memset(b, 0, sizeof(*b));
	b->q = __ipu_session_queue(s);
	if (ipu_exe_save(exe, &img, &len, msg, sizeof(msg))) {
		fprintf(stderr, "bench_session: saving the executable: %s\n",
			msg);
		return -1;
	}
	b->exe_size = len;
	err = ipu_bo_create(dev, len, 0, &b->exe_bo);
	if (!err)
		err = ipu_xfer_to_device(b->exe_bo, 0, img, len);
	if (!err)
		err = ipu_bo_create(dev, exe->arena_size ? exe->arena_size : 1,
				    0, &b->arena_bo);
	free(img);
	if (err) {
		fprintf(stderr, "bench_session: %s\n", ipu_errmsg());
		bare_free(b);
		return -1;
	}
	b->in_slot = slot_of(exe, "x");
	b->out_slot = slot_of(exe, "y");
	return 0;
}

/*
 * Seconds per batch of libipu commands on the session's queue, moving
 * @bytes between @x / @y and the streams' slots (CHAIN, XFERS).
 */
static double time_libipu(const struct bare *b, enum batch what, void *x,
			  void *y, uint64_t bytes, int runs)
{
	struct ipu_launch_desc l = {
		.exe_bo = b->exe_bo, .exe_size = b->exe_size,
		.arena_bo = b->arena_bo, .num_replicas = 1,
	};
	struct ipu_xfer_desc h2d = {
		.bo = b->arena_bo, .bo_offset = b->in_slot, .host = x,
		.length = bytes, .dir = IPU_XFER_DIR_TO_DEVICE,
	};
	struct ipu_xfer_desc d2h = {
		.bo = b->arena_bo, .bo_offset = b->out_slot, .host = y,
		.length = bytes, .dir = IPU_XFER_DIR_FROM_DEVICE,
	};
	struct ipu_completion cqes[3];
	struct ipu_cmd cmds[3];
	size_t n = 0, got;
	double t;
	int i, ret;

	if (what != LAUNCH)
		ipu_cmd_prep_xfer(&cmds[n++], &h2d, 0);
	if (what != XFERS)
		ipu_cmd_prep_launch(&cmds[n++], &l, 1);
	if (what != LAUNCH)
		ipu_cmd_prep_xfer(&cmds[n++], &d2h, 2);
	for (i = 0; i + 1 < (int)n; i++)
		cmds[i].flags = IPU_CMD_F_LINK;
	t = now();
	for (i = 0; i < runs; i++) {
		if (ipu_queue_submit(b->q, cmds, n))
			return fprintf(stderr, "bench_session: %s\n",
				       ipu_errmsg()), -1;
		for (got = 0; got < n; got += (size_t)ret) {
			ret = ipu_queue_reap(b->q, cqes, n, n - got, -1);
			if (ret <= 0 || cqes[0].result)
				return fprintf(stderr, "bench_session: %s\n",
					       ret <= 0 ? ipu_errmsg() :
							  cqes[0].msg),
				       -1;
		}
	}
	return (now() - t) / runs;
}

/* Keep the smallest of @t and *@best; false when @t failed. */
static bool best_of(double t, double *best)
{
	if (t < 0)
		return false;
	if (t < *best)
		*best = t;
	return true;
}

/*
 * The three are measured round by round, interleaved, so that a machine
 * busy with other work slows them alike; round 0 warms up (pages touched,
 * the executable parsed and cached).
 */
static int bench_overhead(void)
{
	struct ipu_session *s = make(1, ADD_SELF);
	double run = 1e30, launch = 1e30, chain = 1e30;
	float x = 1, y = 0;
	struct bare b;
	bool ok = s && !bare_make(s, &b);
	int round;

	for (round = 0; ok && round <= ROUNDS; round++) {
		double r = time_runs(s, &x, &y, 1, RUNS);
		double l = time_libipu(&b, LAUNCH, NULL, NULL, 4, RUNS);
		double c = time_libipu(&b, CHAIN, &x, &y, 4, RUNS);

		ok = r >= 0 && l >= 0 && c >= 0;
		if (round)
			ok = best_of(r, &run) && best_of(l, &launch) &&
			     best_of(c, &chain);
	}
	if (s && b.q)
		bare_free(&b);
	ipu_session_destroy(s);
	if (!ok || y != 2)
		return 1;
	printf("bench session.run_4B.us_per_run %.3f us\n", run * 1e6);
	printf("bench libipu.launch.us_per_launch %.3f us\n", launch * 1e6);
	printf("bench libipu.h2d_launch_d2h.us_per_run %.3f us\n", chain * 1e6);
	/* What libsession adds to the commands a run is: against the chain
	 * (the launch alone is one command of the run's three). */
	printf("bench session.run_4B.ratio_vs_chain %.3f x\n", run / chain);
	printf("bench session.run_4B.ratio_vs_launch %.3f x\n", run / launch);
	return 0;
}

/*
 * Program @op over @BIG bytes of @x: best run, best bare launch and best
 * transfers alone (the run's H2D and D2H without the launch) of ROUNDS
 * after a warm-up round, each run's output checked against @want, and
 * memcpy() of the same bytes in and out (through @z) in the same rounds,
 * interleaved, so that a machine busy with other work slows them alike;
 * *@copy gets memcpy's best. Every figure is a time measured as such,
 * none a difference of two, so no ratio can come out negative.
 */
static int bench_program(const char *name, enum bench_prog op, const float *x,
			 float *y, char *z, const float *want, double *copy)
{
	struct ipu_session *s = make(BIG / 4, op);
	double run = 1e30, program = 1e30, xfers = 1e30, t;
	struct bare b;
	int round;
	bool ok = s && !bare_make(s, &b);

	*copy = 1e30;
	for (round = 0; ok && round <= ROUNDS; round++) {
		double r, p, xf;

		t = now();
		memcpy(z, x, BIG);	/* what goes in */
		memcpy(y, z, BIG);	/* and what comes out */
		t = now() - t;
		memset(y, 0, BIG);
		r = time_runs(s, (void *)x, y, BIG / 4, 1);
		ok = r >= 0 && !memcmp(want, y, BIG);
		p = time_libipu(&b, LAUNCH, NULL, NULL, BIG, 1);
		xf = time_libipu(&b, XFERS, (void *)x, y, BIG, 1);
		ok = ok && p >= 0 && xf >= 0;
		if (round && ok) {
			best_of(t, copy);
			best_of(r, &run);
			best_of(p, &program);
			best_of(xf, &xfers);
		}
	}
	if (s && b.q)
		bare_free(&b);
	ipu_session_destroy(s);
	if (!ok) {
		fprintf(stderr, "bench_session: %s: failed or wrong output\n",
			name);
		return 1;
	}
	printf("bench session.%s.gbps %.2f GB/s\n", name, 2 * BIG / run / 1e9);
	printf("bench session.%s.ratio_vs_memcpy %.3f x\n", name, *copy / run);
	printf("bench session.%s.program_ms %.3f ms\n", name, program * 1e3);
	printf("bench session.%s.transfers_ratio_vs_memcpy %.3f x\n", name,
	       *copy / xfers);
	return 0;
}

static int bench_bandwidth(void)
{
	const size_t n = BIG / 4;
	float *x = malloc(BIG), *y = malloc(BIG), *want = malloc(BIG);
	char *z = malloc(BIG);
	double copy1, copy2;
	int err = 1;

	if (!x || !y || !want || !z)
		goto out;
	for (size_t i = 0; i < n; i++) {
		x[i] = (float)(i % 1000) - 500;
		want[i] = x[i] * 2;	/* exact */
	}
	memset(y, 2, BIG);
	memset(z, 3, BIG);
	if (bench_program("stream_64MiB", IDENTITY, x, y, z, x, &copy1) ||
	    bench_program("stream_x2_64MiB", TIMES_TWO, x, y, z, want, &copy2))
		goto out;
	printf("bench memcpy_64MiB_in_out.gbps %.2f GB/s\n",
	       2 * BIG / (copy1 < copy2 ? copy1 : copy2) / 1e9);
	err = 0;
out:
	free(x);
	free(y);
	free(want);
	free(z);
	return err;
}

int main(void)
{
	return bench_overhead() || bench_bandwidth();
}
