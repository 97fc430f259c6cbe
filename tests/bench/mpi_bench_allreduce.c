// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mpi_bench_allreduce.c - the cost of a cross-instance all-reduce
 * (docs/instances.md) against the engine's own: run under
 * `mpirun -np N` (make bench-mpi: N = 2 and 4), one replica per instance.
 *
 * Ours: a program whose variable x (float32, 1 MiB or 64 MiB) is summed
 * over every replica, y = all_reduce(x), with one element of y stored (so
 * the op is not elided), launched through a session on the model: a run is
 * a launch and the all-reduce across instances (firmware/allreduce.c: each
 * instance's share of every replica's x by MPI_Ialltoallv, reduced in
 * replica order in double, the shares' results by MPI_Iallgatherv; polled).
 * The engine's: MPI_Allreduce(MPI_IN_PLACE, ..., MPI_FLOAT, MPI_SUM) of a
 * host buffer of the same size, in the same round. A round runs both, the
 * first of the two alternating (ABBA), each timed as the slowest rank's
 * (MPI_MAX) after a barrier; the times printed are each side's best round,
 * the ratio the median of the rounds' own ratios (on a busy host two runs
 * next to each other share its state; best against best was off by up to
 * 1.7x between two runs on the 2-core host with 4 ranks).
 * Timing is printed, never asserted:
 *
 *	bench mpi.allreduce_<size>.np<N>.ours_ms <x> ms
 *	bench mpi.allreduce_<size>.np<N>.mpi_allreduce_ms <x> ms
 *	bench mpi.allreduce_<size>.np<N>.ratio_vs_mpi <x> x
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ipu/ir.h>
#include <ipu/mpi.h>
#include <ipu/session.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The slowest rank's time of this round. */
static double slowest(double ms)
{
	double max = 0;

	MPI_Allreduce(&ms, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return max;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct ipu_session *make_session(uint32_t count, uint64_t n)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .flags = IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT);
	uint64_t shape[1] = { n }, one[1] = { 1 };
	int64_t stop[1] = { 1 };
	struct ipu_session *s = NULL;
	struct ipu_ir *ir;
	ipu_tensor x, y;
	ipu_stream sy;

	if (ipu_ir_create("bench_allreduce", &ir))
		return NULL;
	if (ipu_ir_set_replication_factor(ir, count) ||
	    ipu_ir_set_instance_replication_factor(ir, 1))
		goto err;
	x = ipu_ir_variable(ir, "x", IPU_DTYPE_FLOAT32, 1, shape, NULL, NULL);
	sy = ipu_ir_d2h_stream(ir, "y0", IPU_DTYPE_FLOAT32, 1, one);
	if (x.id <= 0 || sy.id <= 0)
		goto err;
	y = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, NULL);
	y = ipu_ir_slice(ir, y, 1, NULL, stop, NULL, NULL);
	if (y.id <= 0 || ipu_ir_host_store(ir, sy, y))
		goto err;
	if (ipu_session_create(ir, &opts, &s)) {
		fprintf(stderr, "session: %s\n", ipu_session_errmsg(NULL));
		return NULL;
	}
	if (ipu_session_attach(s)) {
		fprintf(stderr, "attach: %s\n", ipu_session_errmsg(s));
		ipu_session_destroy(s);
		return NULL;
	}
	return s;
err:
	fprintf(stderr, "program: %s\n", ipu_ir_errmsg(ir));
	ipu_ir_destroy(ir);
	return NULL;
}

static int bench(uint32_t index, uint32_t count, uint64_t bytes,
		 const char *label, int rounds)
{
	uint64_t n = bytes / sizeof(float);
	struct ipu_session *s = make_session(count, n);
	float *host = malloc(bytes), y0 = 0;
	struct ipu_stream_buffer out = { "y0", { &y0, IPU_DTYPE_FLOAT32, 1, { 1 } } };
	double ours = 1e30, theirs = 1e30, t, pair[2], *ratio;
	int r, side, err = 0;

	ratio = calloc((size_t)rounds, sizeof(*ratio));
	if (!s || !host || !ratio) {
		free(ratio);
		free(host);
		ipu_session_destroy(s);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		host[i] = (float)(i % 1000) * 1e-3f;
	for (r = 0; r < rounds + 1 && !err; r++) { /* round 0 warms up */
		for (side = 0; side < 2; side++) {
			bool mine = (side ^ r) & 1;

			MPI_Barrier(MPI_COMM_WORLD);
			t = now_ms();
			if (mine)
				err = ipu_session_run_with_outputs(s, NULL, 0,
								   &out, 1, 0);
			else
				MPI_Allreduce(MPI_IN_PLACE, host, (int)n,
					      MPI_FLOAT, MPI_SUM,
					      MPI_COMM_WORLD);
			t = slowest(now_ms() - t);
			if (err) {
				fprintf(stderr, "instance %u: run: %s\n",
					index, ipu_session_errmsg(s));
				break;
			}
			pair[mine] = t;
			if (r && mine)
				ours = t < ours ? t : ours;
			else if (r)
				theirs = t < theirs ? t : theirs;
		}
		if (r && !err)
			ratio[r - 1] = pair[1] / pair[0];
	}
	if (!err && index == 0) {
		printf("bench mpi.allreduce_%s.np%u.ours_ms %.3f ms\n", label,
		       count, ours);
		printf("bench mpi.allreduce_%s.np%u.mpi_allreduce_ms %.3f ms\n",
		       label, count, theirs);
		qsort(ratio, (size_t)rounds, sizeof(ratio[0]), cmp_double);
		printf("bench mpi.allreduce_%s.np%u.ratio_vs_mpi %.2f x\n",
		       label, count, ratio[rounds / 2]);
	}
	free(ratio);
	free(host);
	ipu_session_destroy(s);
	return err;
}

int main(int argc, char **argv)
{
	uint32_t index, count;
	char msg[256];
	int err;

	err = ipu_mpi_instances_init(&argc, &argv, 0, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mpi_bench_allreduce: %s\n", msg);
		return 1;
	}
	index = ipu_mpi_instance_index();
	count = ipu_mpi_instance_count();
	err = bench(index, count, 1u << 20, "1MiB", 40);
	if (!err)
		err = bench(index, count, 64u << 20, "64MiB", 9);
	if (err)
		MPI_Abort(MPI_COMM_WORLD, 1);
	ipu_mpi_instances_fini();
	return 0;
}
