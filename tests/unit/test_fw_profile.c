// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_profile.c - the executor's op-level profile
 * (ipufw_executor_set_profile(), docs/trace.md): every instruction a
 * replica executes, but loop control, recorded in order with its start
 * and end; loops' bodies once per iteration; each replica its own; a full
 * buffer counts what it drops; off, nothing is recorded.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

/* y = x + x; z = y * y: two ops, float32 [4]. */
static struct eb *two_ops(uint32_t replicas)
{
	struct eb *b = eb_new(replicas, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t z = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_op(b, IPU_OP_MUL, EB_U32(z, y, y), EB_NONE);
	eb_alloc(b);
	return b;
}

static void test_ops_are_recorded_in_order(void **state)
{
	struct ipufw_op_record recs[2][8];
	struct ipufw_profile prof[2] = {
		{ .recs = recs[0], .cap = 8 }, { .recs = recs[1], .cap = 8 },
	};
	struct eb *b = two_ops(2);
	uint32_t r;

	(void)state;
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
		cmocka_unit_test(test_loop_bodies_once_per_iteration),
		cmocka_unit_test(test_a_full_buffer_counts_what_it_drops),
		cmocka_unit_test(test_off_records_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
