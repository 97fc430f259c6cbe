// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_launch.c - the cost of a launch: microseconds per ipufw_run() of a
 * one-op program (y = x + x on 4 floats), for 1 replica (the caller's
 * thread only) and for 2 and 4 (worker threads woken and waited for; the
 * op is an all-reduce there, so the replicas meet once).
 *
 *	bench model.launch_<r>replica.us_per_run <x> us
 *
 * No timing is asserted.
 */
#include <stdio.h>
#include <time.h>

#include "unit/exe_builder.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(uint32_t replicas, int runs)
{
	struct eb *b = eb_new(replicas, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	double best = 1e30, t;
	int round, i;

	if (replicas == 1)
		eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	else
		eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(y, x),
		      EB_I64(IPU_EXE_REDUCE_SUM, replicas, 1));
	eb_alloc(b);
	if (eb_run(b)) {
		eb_free(b);
		return 1;
	}
	/* Best of five rounds. */
	for (round = 0; round < 5; round++) {
		t = now();
		for (i = 0; i < runs; i++)
			if (eb_run_raw(b)) {
				fprintf(stderr, "bench_launch: %s\n", b->err);
				eb_free(b);
				return 1;
			}
		t = (now() - t) / runs;
		best = t < best ? t : best;
	}
	printf("bench model.launch_%ureplica.us_per_run %.3f us\n", replicas,
	       best * 1e6);
	eb_free(b);
	return 0;
}

int main(void)
{
	return bench(1, 200000) || bench(2, 20000) || bench(4, 20000);
}
