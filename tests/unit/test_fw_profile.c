// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_profile.c - the executor's op-level profile
 * (ipufw_executor_set_profile(), docs/trace.md): every instruction a
 * replica executes, but loop control, recorded in order with its start
 * and end; loops' bodies once per iteration; each replica its own; a full
 * buffer counts what it drops; off, nothing is recorded. Replicas of a
 * small program (exec.c's FW_LOCKSTEP_ARENA, 1 MiB) run in the caller's
 * thread an instruction at a time for each, larger ones in threads: both
 * are profiled, and a profile does not change which way a run goes.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

/* An unused tensor that takes the arena past FW_LOCKSTEP_ARENA. */
static void pad_past_lockstep(struct eb *b)
{
	eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE((1 << 18) + 1));
}

/* y = x + x; z = y * y: two ops, float32 [4]; @threads: an arena for
 * replicas in threads. */
static struct eb *two_ops_in(uint32_t replicas, bool threads)
{
	struct eb *b = eb_new(replicas, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t z = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_op(b, IPU_OP_MUL, EB_U32(z, y, y), EB_NONE);
	if (threads)
		pad_past_lockstep(b);
	eb_alloc(b);
	assert_true((b->exe.arena_size > (1u << 20)) == threads);
	return b;
}

static struct eb *two_ops(uint32_t replicas)
{
	return two_ops_in(replicas, false);
}

static void check_ops_in_order(bool threads)
{
	struct ipufw_op_record recs[2][8];
	struct ipufw_profile prof[2] = {
		{ .recs = recs[0], .cap = 8 }, { .recs = recs[1], .cap = 8 },
	};
	struct eb *b = two_ops_in(2, threads);
	uint32_t r;

	ipufw_executor_set_profile(b->ex, prof);
	assert_int_equal(eb_run(b), 0);
	for (r = 0; r < 2; r++) {
		assert_int_equal(prof[r].n, 2);
		assert_int_equal(prof[r].dropped, 0);
		assert_int_equal(recs[r][0].pc, 0);
		assert_int_equal(recs[r][0].op, IPU_OP_ADD);
		assert_int_equal(recs[r][1].pc, 1);
		assert_int_equal(recs[r][1].op, IPU_OP_MUL);
		assert_true(recs[r][0].start_ns > 0);
		assert_true(recs[r][0].start_ns <= recs[r][0].end_ns);
		assert_true(recs[r][0].end_ns <= recs[r][1].start_ns);
		assert_true(recs[r][1].start_ns <= recs[r][1].end_ns);
	}
	/* A second run appends. */
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(prof[0].n, 4);
	assert_true(recs[0][1].end_ns <= recs[0][2].start_ns);
	ipufw_executor_set_profile(b->ex, NULL);
	eb_free(b);
}

static void test_ops_are_recorded_in_order(void **state)
{
	(void)state;
	check_ops_in_order(false);
}

static void test_ops_are_recorded_in_order_in_threads(void **state)
{
	(void)state;
	check_ops_in_order(true);
}

/*
 * Replicas in lockstep take their turns, and a profile shows it: every
 * replica's op k after every replica's op k - 1, and each op but an
 * all-reduce after the previous replica's. An all-reduce (its two halves
 * over all replicas) is recorded for each replica from its start to the
 * end of that replica's half that stores.
 */
static void test_lockstep_replicas_are_profiled(void **state)
{
	enum { R = 3, N = 3 };
	struct ipufw_op_record recs[R][8];
	struct ipufw_profile prof[R];
	static const uint32_t ops[N] = {
		IPU_OP_ADD, IPU_OP_ALL_REDUCE, IPU_OP_MUL,
	};
	struct eb *b = eb_new(R, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t s = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t z = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t r, k;

	(void)state;
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(s, y),
	      EB_I64(IPU_EXE_REDUCE_SUM, R, 1));
	eb_op(b, IPU_OP_MUL, EB_U32(z, s, s), EB_NONE);
	eb_alloc(b);
	for (r = 0; r < R; r++) {
		prof[r] = (struct ipufw_profile){ .recs = recs[r], .cap = 8 };
		eb_set(b, r, x, 0, 1.0 + r);
	}
	ipufw_executor_set_profile(b->ex, prof);
	assert_int_equal(eb_run(b), 0);
	assert_true(eb_get(b, 1, z, 0) == 144.0); /* (2 + 4 + 6)^2 */
	for (r = 0; r < R; r++) {
		assert_int_equal(prof[r].n, N);
		assert_int_equal(prof[r].dropped, 0);
		for (k = 0; k < N; k++) {
			assert_int_equal(recs[r][k].pc, k);
			assert_int_equal(recs[r][k].op, ops[k]);
			assert_true(recs[r][k].start_ns <= recs[r][k].end_ns);
		}
	}
	for (k = 1; k < N; k++)
		for (r = 0; r < R; r++)
			assert_true(recs[R - 1][k - 1].end_ns <=
				    recs[r][k].start_ns);
	for (k = 0; k < N; k++)
		for (r = 1; r < R; r++)
			if (ops[k] == IPU_OP_ALL_REDUCE)
				assert_true(recs[r - 1][k].end_ns <=
					    recs[r][k].end_ns);
			else
				assert_true(recs[r - 1][k].end_ns <=
					    recs[r][k].start_ns);
	ipufw_executor_set_profile(b->ex, NULL);
	eb_free(b);
}

static void test_loop_bodies_once_per_iteration(void **state)
{
	struct ipufw_op_record recs[16];
	struct ipufw_profile prof = { .recs = recs, .cap = 16 };
	struct eb *b = eb_new(1, 1);
	uint32_t one = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
	uint32_t c = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
	uint32_t i;

	(void)state;
	eb_loop(b, 3, 1);					/* 0 */
	eb_op(b, IPU_OP_SCALED_ADD_INPLACE, EB_U32(c, one), EB_NONE);	/* 1 */
	b->instrs[1].fparams[0] = 1.0f;
	b->instrs[1].fparams[1] = 1.0f;
	eb_alloc(b);
	ipufw_executor_set_profile(b->ex, &prof);
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(prof.n, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(recs[i].pc, 1);
	ipufw_executor_set_profile(b->ex, NULL);
	eb_free(b);
}

static void test_a_full_buffer_counts_what_it_drops(void **state)
{
	struct ipufw_op_record recs[1];
	struct ipufw_profile prof = { .recs = recs, .cap = 1 };
	struct eb *b = two_ops(1);

	(void)state;
	ipufw_executor_set_profile(b->ex, &prof);
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(prof.n, 1);
	assert_int_equal(prof.dropped, 3);
	ipufw_executor_set_profile(b->ex, NULL);
	eb_free(b);
}

static void test_off_records_nothing(void **state)
{
	struct ipufw_op_record recs[4];
	struct ipufw_profile prof = { .recs = recs, .cap = 4 };
	struct eb *b = two_ops(1);

	(void)state;
	ipufw_executor_set_profile(b->ex, &prof);
	ipufw_executor_set_profile(b->ex, NULL);
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(prof.n, 0);
	assert_int_equal(prof.dropped, 0);
	ipufw_executor_set_profile(NULL, &prof);	/* a no-op */
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_are_recorded_in_order),
		cmocka_unit_test(test_ops_are_recorded_in_order_in_threads),
		cmocka_unit_test(test_lockstep_replicas_are_profiled),
		cmocka_unit_test(test_loop_bodies_once_per_iteration),
		cmocka_unit_test(test_a_full_buffer_counts_what_it_drops),
		cmocka_unit_test(test_off_records_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
