// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_allreduce.c - replicas: 1, 2, 4 and 8 of them running in
 * parallel, ALL_REDUCE sum and mean over all replicas and over groupings
 * (PopXL's ReplicaGrouping: blocks of group_size * stride), in place and
 * not, with streams per replica, and determinism: every member of a group
 * gets the same bits, and so does every run.
 *
 * The reference sums each group's members in increasing replica index, in
 * double (floats) or int64 (integers), and rounds once: what the firmware
 * promises, so results are compared bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Member @j of replica @r's group, worked out here without exe.h's
 * helpers: blocks of size * stride replicas, members stride apart. */
static uint32_t member(uint32_t r, uint32_t size, uint32_t stride, uint32_t j)
{
	return r / (size * stride) * (size * stride) + r % stride + j * stride;
}

/*
 * Small programs' replicas run in one thread, an instruction at a time for
 * each (exec.c, run_lockstep()), larger ones in threads of their own: with
 * this set, check_all_reduce() pads the arena past exec.c's
 * FW_LOCKSTEP_ARENA (1 MiB), so that the threads meet at the barriers.
 */
static bool pad_arena;

static void check_all_reduce(int dt, uint32_t replicas, int64_t mode,
			     uint32_t size, uint32_t stride, bool in_place)
{
	struct eb *b = eb_new(replicas, 1);
	uint32_t x = eb_tensor(b, dt, EB_SHAPE(3, 700)); /* > a chunk */
	uint32_t o = in_place ? x : eb_tensor(b, dt, EB_SHAPE(3, 700));
	bool isf = ipu_dtype_is_float(dt);
	uint8_t *before[8], *first = NULL;
	uint32_t r, j;
	uint64_t i, nb = b->tensors[x].nbytes;
	int run;

	if (pad_arena)
		eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE((1 << 18) + 1));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(o, x), EB_I64(mode, size, stride));
	eb_alloc(b);
	assert_true((b->exe.arena_size > (1u << 20)) == pad_arena);
	for (r = 0; r < replicas; r++) {
		eb_fill(b, r, x, 100 + r, isf ? -10 : -100, isf ? 10 : 100);
		before[r] = malloc(nb);
		memcpy(before[r], eb_ptr(b, r, x), nb);
	}
	for (run = 0; run < 2; run++) {
		if (run)
			for (r = 0; r < replicas; r++)
				memcpy(eb_ptr(b, r, x), before[r], nb);
		assert_int_equal(eb_run(b), 0);
		for (r = 0; r < replicas; r++) {
			for (i = 0; i < b->tensors[x].nelems; i++) {
				double f = 0, v;
				int64_t n = 0;

				for (j = 0; j < size; j++) {
					uint32_t m = member(r, size, stride, j);

					ipu_dtype_convert(&v, IPU_DTYPE_FLOAT64,
							  before[m] + i * ipu_dtype_size(dt),
							  dt, 1);
					f += v;
					n += (int64_t)v;
				}
				if (mode == IPU_EXE_REDUCE_MEAN)
					f /= size;
				if (isf ? !eb_same(b, r, o, i, &f, IPU_DTYPE_FLOAT64) :
					  !eb_same(b, r, o, i, &n, IPU_DTYPE_INT64))
					fail_msg("%s, %u replicas, mode %lld, group %u stride %u: replica %u out[%llu] = %g, want %g",
						 ipu_dtype_name(dt), replicas,
						 (long long)mode, size, stride, r,
						 (unsigned long long)i,
						 eb_get(b, r, o, i), isf ? f : (double)n);
			}
		}
		/* The second run gives the bits of the first. */
		if (!run) {
			first = malloc(nb * replicas);
			for (r = 0; r < replicas; r++)
				memcpy(first + r * nb, eb_ptr(b, r, o), nb);
		} else {
			for (r = 0; r < replicas; r++)
				assert_memory_equal(first + r * nb, eb_ptr(b, r, o), nb);
		}
	}
	free(first);
	for (r = 0; r < replicas; r++)
		free(before[r]);
	eb_free(b);
}

static void test_all_reduce_over_all_replicas(void **state)
{
	static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				   IPU_DTYPE_BFLOAT16, IPU_DTYPE_INT32,
				   IPU_DTYPE_INT8, IPU_DTYPE_INT16 };
	static const uint32_t reps[] = { 1, 2, 4, 8 };
	size_t d, r;

	(void)state;
	for (d = 0; d < N(dts); d++)
		for (r = 0; r < N(reps); r++) {
			check_all_reduce(dts[d], reps[r], IPU_EXE_REDUCE_SUM,
					 reps[r], 1, false);
			check_all_reduce(dts[d], reps[r], IPU_EXE_REDUCE_SUM,
					 reps[r], 1, true);
			if (ipu_dtype_is_float(dts[d]))
				check_all_reduce(dts[d], reps[r],
						 IPU_EXE_REDUCE_MEAN, reps[r],
						 1, true);
		}
}

/* The same sums from replicas in threads as from replicas in one. */
static void test_all_reduce_in_threads(void **state)
{
	static const uint32_t reps[] = { 2, 4, 8 };
	size_t r;

	(void)state;
	pad_arena = true;
	for (r = 0; r < N(reps); r++) {
		check_all_reduce(IPU_DTYPE_FLOAT32, reps[r], IPU_EXE_REDUCE_SUM,
				 reps[r], 1, false);
		check_all_reduce(IPU_DTYPE_FLOAT32, reps[r], IPU_EXE_REDUCE_SUM,
				 reps[r], 1, true);
		check_all_reduce(IPU_DTYPE_FLOAT16, reps[r], IPU_EXE_REDUCE_MEAN,
				 reps[r] / 2, 2, true);
	}
	pad_arena = false;
}

static void test_all_reduce_over_groupings(void **state)
{
	static const struct {
		uint32_t replicas, size, stride;
	} g[] = {
		{ 8, 2, 1 }, { 8, 4, 2 }, { 8, 2, 4 }, { 8, 4, 1 }, { 8, 1, 1 },
		{ 4, 2, 2 }, { 4, 2, 1 }, { 2, 1, 2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(g); i++) {
		check_all_reduce(IPU_DTYPE_FLOAT32, g[i].replicas,
				 IPU_EXE_REDUCE_SUM, g[i].size, g[i].stride, false);
		check_all_reduce(IPU_DTYPE_FLOAT32, g[i].replicas,
				 IPU_EXE_REDUCE_MEAN, g[i].size, g[i].stride, true);
		check_all_reduce(IPU_DTYPE_INT32, g[i].replicas,
				 IPU_EXE_REDUCE_SUM, g[i].size, g[i].stride, true);
	}
}

/* A training-loop shape: each replica loads its own slot, the replicas
 * average, the result goes back to each replica's own slot. */
static void test_replicas_stream_through_all_reduce(void **state)
{
	const uint32_t reps = 4, nht = 3;
	struct eb *b = eb_new(reps, nht);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT32, EB_SHAPE(5));
	uint32_t out = eb_stream(b, IPU_EXE_STREAM_D2H, IPU_DTYPE_FLOAT32, EB_SHAPE(5));
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5));
	uint32_t m = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5));
	uint32_t r, s, i;

	(void)state;
	eb_loop(b, nht, 3);
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(m, x), EB_I64(IPU_EXE_REDUCE_MEAN, reps, 1));
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(m), EB_I64(out));
	eb_alloc(b);
	for (r = 0; r < reps; r++)
		for (s = 0; s < nht; s++)
			for (i = 0; i < 5; i++)
				((float *)eb_slot(b, r, in, s))[i] = (float)(r * 100 + s * 10 + i);
	assert_int_equal(eb_run(b), 0);
	for (r = 0; r < reps; r++)
		for (s = 0; s < nht; s++)
			for (i = 0; i < 5; i++)
				assert_true(((float *)eb_slot(b, r, out, s))[i] ==
					    150.0f + (float)(s * 10 + i));
	eb_free(b);
}

/* Many runs back to back, on an executor with more workers than the runs
 * use: the hand-over between the caller and the workers holds up. */
static void test_many_runs_fewer_replicas_than_workers(void **state)
{
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(1));
	int run;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	ipufw_executor_destroy(b->ex);
	assert_int_equal(ipufw_executor_create(8, &b->ex), 0);
	eb_alloc(b);
	*(int32_t *)eb_ptr(b, 0, x) = 1;
	*(int32_t *)eb_ptr(b, 1, x) = 1;
	for (run = 1; run <= 30; run++) {
		assert_int_equal(eb_run(b), 0);
		/* Each run doubles both. */
		assert_int_equal(*(int32_t *)eb_ptr(b, 0, x), 1 << run);
		assert_int_equal(*(int32_t *)eb_ptr(b, 1, x), 1 << run);
	}
	eb_free(b);
}

/* Every replica fails (a stream loaded too often), before an all-reduce
 * or after one: no replica is left waiting at the barrier, the run reports
 * replica 0's error, and the executor serves the next run. */
static void check_failure(bool before)
{
	struct eb *b = eb_new(4, 1);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	int run;

	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	if (before)
		eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 4, 1));
	if (!before)
		eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_alloc(b);
	for (run = 0; run < 3; run++) {
		assert_int_equal(eb_run_raw(b), -ERANGE);
		assert_non_null(strstr(b->err, before ?
				       "replica 0, instruction 1 (host_load)" :
				       "replica 0, instruction 2 (host_load)"));
	}
	eb_free(b);
}

static void test_failures_do_not_hang_replicas(void **state)
{
	(void)state;
	check_failure(true);
	check_failure(false);
}

static void test_all_reduce_defensive(void **state)
{
	struct eb *b = eb_new(4, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3));
	uint32_t i = eb_tensor(b, IPU_DTYPE_BOOL, EB_SHAPE(2));

	(void)state;
	eb_alloc(b);
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 3, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* 4 % 3 */
	assert_non_null(strstr(b->err, "all_reduce"));
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 2, 0));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* stride 0 */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, -2, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* negative size */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(7, 2, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* mode */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(y, x), EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* sizes */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(i, i), EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* bool */
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_reduce_over_all_replicas),
		cmocka_unit_test(test_all_reduce_in_threads),
		cmocka_unit_test(test_all_reduce_over_groupings),
		cmocka_unit_test(test_replicas_stream_through_all_reduce),
		cmocka_unit_test(test_many_runs_fewer_replicas_than_workers),
		cmocka_unit_test(test_failures_do_not_hang_replicas),
		cmocka_unit_test(test_all_reduce_defensive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
