// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mpi_allreduce.c - one instance of an all-reduce program split across
 * `mpirun -np N` instances (docs/instances.md); tests/mpi/test_mpi.sh runs
 * it as 1x4, 2x2 and 4x1 and compares what rank 0 prints.
 *
 * The program: REPLICAS replicas, each loading x (float32, a mix of
 * magnitudes so that the order of a sum shows in its bits) from a stream,
 * y = all_reduce(x, sum) over every replica, z = all_reduce(x, mean) over
 * groups {r, r + 2} (every group spans two instances in 2x2), both stored
 * to streams. Each instance feeds its own replicas, global replica g
 * getting values seeded by g; rank 0 gathers every replica's y and z in
 * replica order and prints their FNV-1a 64 checksum.
 *
 * Weights across instances (PopXL's rules, libsession's gather.c): three
 * variables hold what the replicas computed, "own" (a group per replica:
 * own += x), "pair" (groups {r, r + 2}: pair += z) and "every" (one
 * group, all_replicas retrieval: every += x, so each replica's differs).
 * Every instance fetches them (get_tensor_data: 4 groups, 2 groups, 4
 * replicas, most of which live on other instances under 2x2 and 4x1) and
 * prints their checksum: each must print 1x4's.
 *
 * --die RANK: that rank kills itself (SIGKILL) before its run, so the
 * others' all-reduce waits for a peer that never comes: they must fail
 * with the transport's message within IPU_INSTANCE_TIMEOUT_MS.
 *
 * Exit status: 0; 1 with the error on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include <ipu/ir.h>
#include <ipu/mpi.h>
#include <ipu/session.h>

#define REPLICAS 4
#define N 4099 /* elements per replica: several firmware chunks */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* x of global replica @g: magnitudes from 1e-4 to 1e4, both signs. */
static void fill(float *x, uint32_t g)
{
	uint32_t s = 12345u + g * 7919u;

	for (size_t i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << 23);
		x[i] *= (i % 3 == 0) ? 1e4f : (i % 3 == 1) ? 1.0f : 1e-4f;
	}
}

static struct ipu_ir *build(uint32_t irf)
{
	uint64_t shape[1] = { N };
	struct ipu_replica_grouping pairs, ones;
	IPU_OPTS(ipu_ir_variable_opts, own_opts, .grouping = &ones);
	IPU_OPTS(ipu_ir_variable_opts, pair_opts, .grouping = &pairs);
	IPU_OPTS(ipu_ir_variable_opts, every_opts,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	struct ipu_ir *ir;
	ipu_stream sx, sy, sz;
	ipu_tensor x, y, z, own, pair, every;

	if (ipu_ir_create("allreduce_instances", &ir))
		return NULL;
	if (ipu_ir_set_replication_factor(ir, REPLICAS) ||
	    ipu_ir_set_instance_replication_factor(ir, irf) ||
	    ipu_ir_replica_grouping(ir, 2, 2, &pairs) ||
	    ipu_ir_replica_grouping(ir, 1, 1, &ones))
		goto err;
	sx = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, shape);
	sy = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, shape);
	sz = ipu_ir_d2h_stream(ir, "z", IPU_DTYPE_FLOAT32, 1, shape);
	if (sx.id <= 0 || sy.id <= 0 || sz.id <= 0)
		goto err;
	x = ipu_ir_host_load(ir, sx, NULL);
	if (x.id <= 0)
		goto err;
	y = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, NULL);
	z = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_MEAN, &pairs);
	if (y.id <= 0 || z.id <= 0 || ipu_ir_host_store(ir, sy, y) ||
	    ipu_ir_host_store(ir, sz, z))
		goto err;
	own = ipu_ir_variable(ir, "own", IPU_DTYPE_FLOAT32, 1, shape, NULL,
			      &own_opts);
	pair = ipu_ir_variable(ir, "pair", IPU_DTYPE_FLOAT32, 1, shape, NULL,
			       &pair_opts);
	every = ipu_ir_variable(ir, "every", IPU_DTYPE_FLOAT32, 1, shape, NULL,
				&every_opts);
	if (own.id <= 0 || pair.id <= 0 || every.id <= 0 ||
	    ipu_ir_assign(ir, own, ipu_ir_add(ir, own, x)) ||
	    ipu_ir_assign(ir, pair, ipu_ir_add(ir, pair, z)) ||
	    ipu_ir_assign(ir, every, ipu_ir_add(ir, every, x)))
		goto err;
	return ir;
err:
	fprintf(stderr, "building the program: %s\n", ipu_ir_errmsg(ir));
	ipu_ir_destroy(ir);
	return NULL;
}

/* The weights as every instance sees them (all of them, gathered). */
static int print_weights(struct ipu_session *s, uint32_t index)
{
	static const char *const names[] = { "own", "pair", "every" };
	static const uint64_t lead[] = { REPLICAS, 2, REPLICAS };
	struct ipu_host_buffer dst[3];
	float *w = calloc((size_t)N * REPLICAS * 3, sizeof(float));
	float *at = w;
	uint64_t h;
	int err;

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < 3; i++) {
		dst[i] = (struct ipu_host_buffer){ at, IPU_DTYPE_FLOAT32, 2,
						   { lead[i], N } };
		at += lead[i] * N;
	}
	err = ipu_session_get_tensors_data(s, names, dst, 3);
	if (!err) {
		h = fnv1a(0xcbf29ce484222325ull, w,
			  sizeof(float) * (size_t)(at - w));
		printf("instance %u: weights checksum (FNV-1a 64): %016llx\n",
		       index, (unsigned long long)h);
	}
	free(w);
	return err;
}

/* Run on this instance's replicas; y and z of them into @y, @z. */
static int run(uint32_t index, uint32_t irf, float *y, float *z)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model");
	struct ipu_stream_buffer in, out[2];
	struct ipu_session *s = NULL;
	struct ipu_ir *ir = build(irf);
	float *x = malloc(sizeof(float) * N * irf);
	int err = -ENOMEM;

	if (!ir || !x)
		goto out;
	for (uint32_t r = 0; r < irf; r++)
		fill(x + (size_t)r * N, index * irf + r);
	err = ipu_session_create(ir, &opts, &s);
	if (err) {
		fprintf(stderr, "instance %u: session: %s\n", index,
			ipu_session_errmsg(NULL));
		goto out;
	}
	err = ipu_session_attach(s);
	if (err)
		goto out_msg;
	/* S11: the replica dimension is the instance's replicas, present
	 * only when there are several. */
	in = (struct ipu_stream_buffer){ "x", { x, IPU_DTYPE_FLOAT32, 2, { irf, N } } };
	if (irf == 1)
		in.buf = (struct ipu_host_buffer){ x, IPU_DTYPE_FLOAT32, 1, { N } };
	out[0] = in;
	out[0].stream = "y";
	out[0].buf.data = y;
	out[1] = in;
	out[1].stream = "z";
	out[1].buf.data = z;
	err = ipu_session_run_with_outputs(s, &in, 1, out, 2, 0);
	if (!err)
		err = print_weights(s, index);
	if (err)
		goto out_msg;
	err = ipu_session_detach(s, 0);
	if (!err)
		goto out;
out_msg:
	fprintf(stderr, "instance %u: %s\n", index, ipu_session_errmsg(s));
out:
	ipu_session_destroy(s);
	free(x);
	return err;
}

int main(int argc, char **argv)
{
	int die = -1, err, rank;
	uint32_t index, count, irf;
	float *y, *z, *all = NULL;
	char msg[256];
	uint64_t h;

	err = ipu_mpi_instances_init(&argc, &argv, 0, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "mpi_allreduce: %s\n", msg);
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "--die"))
		die = atoi(argv[2]);
	index = ipu_mpi_instance_index();
	count = ipu_mpi_instance_count();
	rank = (int)index;
	if (REPLICAS % count) {
		fprintf(stderr, "mpi_allreduce: %u replicas do not split into %u instances\n",
			REPLICAS, count);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	irf = REPLICAS / count;
	y = calloc((size_t)N * irf, sizeof(float));
	z = calloc((size_t)N * irf, sizeof(float));
	if (rank == 0)
		all = calloc((size_t)N * REPLICAS * 2, sizeof(float));
	if (!y || !z || (rank == 0 && !all)) {
		fprintf(stderr, "mpi_allreduce: no memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == die)
		raise(SIGKILL);
	err = run(index, irf, y, z);
	if (err) {
		/* A peer is gone: leave without the collectives of the
		 * finalisation, which would wait for it. */
		fflush(stderr);
		_exit(1);
	}
	MPI_Gather(y, (int)(N * irf), MPI_FLOAT, all, (int)(N * irf),
		   MPI_FLOAT, 0, MPI_COMM_WORLD);
	MPI_Gather(z, (int)(N * irf), MPI_FLOAT,
		   all ? all + (size_t)N * REPLICAS : NULL, (int)(N * irf),
		   MPI_FLOAT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		h = fnv1a(0xcbf29ce484222325ull, all,
			  sizeof(float) * N * REPLICAS * 2);
		printf("%ux%u all-reduce checksum (FNV-1a 64): %016llx\n",
		       count, irf, (unsigned long long)h);
	}
	free(all);
	free(y);
	free(z);
	ipu_mpi_instances_fini();
	return 0;
}
