// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_exec.c - the executor itself: its API and argument checks,
 * LOOP (nested, empty, ending together), host streams over
 * num_host_transfers slots and -ERANGE past them (tensors on their slots
 * too), SCALED_ADD_INPLACE and ASSIGN on variables, and the checks that
 * keep an executable that did not validate from crashing the firmware.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

static void test_executor_create_destroy_args(void **state)
{
	struct ipufw_executor *ex = (void *)1;

	(void)state;
	assert_int_equal(ipufw_executor_create(0, &ex), -EINVAL);
	assert_int_equal(ipufw_executor_create(1, NULL), -EINVAL);
	assert_int_equal(ipufw_executor_create(8, &ex), 0);
	assert_non_null(ex);
	ipufw_executor_destroy(ex);
	ipufw_executor_destroy(NULL);
}

/* A one-op program: y = x + x, float32 [4]. */
static struct eb *tiny(uint32_t replicas)
{
	struct eb *b = eb_new(replicas, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_alloc(b);
	return b;
}

static void test_run_argument_errors(void **state)
{
	struct eb *b = tiny(2);
	void *arenas[2] = { b->arenas[0], b->arenas[1] };
	void *odd[2] = { (uint8_t *)b->arenas[0] + 2, b->arenas[1] };
	struct ipufw_executor *one;
	char err[256];

	(void)state;
	assert_int_equal(ipufw_run(NULL, &b->exe, arenas, b->exe.arena_size, err, sizeof(err)), -EINVAL);
	assert_int_equal(ipufw_run(b->ex, NULL, arenas, b->exe.arena_size, err, sizeof(err)), -EINVAL);
	assert_int_equal(ipufw_run(b->ex, &b->exe, NULL, b->exe.arena_size, err, sizeof(err)), -EINVAL);
	/* Arenas smaller than the executable needs. */
	assert_int_equal(ipufw_run(b->ex, &b->exe, arenas, b->exe.arena_size - 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "arenas of"));
	/* A NULL or unaligned arena. */
	arenas[1] = NULL;
	assert_int_equal(ipufw_run(b->ex, &b->exe, arenas, b->exe.arena_size, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "replica 1"));
	assert_int_equal(ipufw_run(b->ex, &b->exe, odd, b->exe.arena_size, NULL, 0), -EINVAL);
	/* More replicas than the executor has. */
	assert_int_equal(ipufw_executor_create(1, &one), 0);
	assert_int_equal(ipufw_run(one, &b->exe, b->arenas, b->exe.arena_size, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "2 replicas"));
	ipufw_executor_destroy(one);
	/* And the valid run, with and without a message buffer. */
	assert_int_equal(ipufw_run(b->ex, &b->exe, b->arenas, b->exe.arena_size, NULL, 0), 0);
	assert_int_equal(eb_run(b), 0);
	assert_string_equal(b->err, "");
	eb_free(b);
}

/* An executor bigger than the run: a run uses only the replicas it has. */
static void test_executor_serves_smaller_runs(void **state)
{
	struct eb *b = tiny(1);
	float *x;
	int i, r;

	(void)state;
	ipufw_executor_destroy(b->ex);
	assert_int_equal(ipufw_executor_create(4, &b->ex), 0);
	x = eb_ptr(b, 0, 0);
	for (r = 0; r < 3; r++) {
		for (i = 0; i < 4; i++)
			x[i] = (float)(i + r);
		assert_int_equal(eb_run(b), 0);
		for (i = 0; i < 4; i++)
			assert_true(((float *)eb_ptr(b, 0, 1))[i] == 2.0f * (float)(i + r));
	}
	eb_free(b);
}

/* LOOP over num_host_transfers: load slot i, double it, store slot i. */
static void test_streams_load_and_store_every_slot(void **state)
{
	const uint32_t nht = 5;
	struct eb *b = eb_new(1, nht);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_INT32, EB_SHAPE(2, 3));
	uint32_t out = eb_stream(b, IPU_EXE_STREAM_D2H, IPU_DTYPE_INT32, EB_SHAPE(2, 3));
	uint32_t x = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(2, 3));
	uint32_t y = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(2, 3));
	uint32_t s, i, run;

	(void)state;
	eb_loop(b, nht, 3);
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(y), EB_I64(out));
	eb_alloc(b);
	/* Twice: the per-stream counters start from 0 on every run. */
	for (run = 0; run < 2; run++) {
		for (s = 0; s < nht; s++)
			for (i = 0; i < 6; i++)
				((int32_t *)eb_slot(b, 0, in, s))[i] =
					(int32_t)(100 * run + 10 * s + i);
		assert_int_equal(eb_run(b), 0);
		for (s = 0; s < nht; s++)
			for (i = 0; i < 6; i++)
				assert_int_equal(((int32_t *)eb_slot(b, 0, out, s))[i],
						 2 * (100 * run + 10 * s + i));
	}
	eb_free(b);
}

static void test_stream_loaded_too_often_is_erange(void **state)
{
	struct eb *b = eb_new(1, 2);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT16, EB_SHAPE(3));
	uint32_t out = eb_stream(b, IPU_EXE_STREAM_D2H, IPU_DTYPE_FLOAT16, EB_SHAPE(3));
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT16, EB_SHAPE(3));

	(void)state;
	eb_loop(b, 3, 1);
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_alloc(b);
	assert_int_equal(eb_run_raw(b), -ERANGE);
	assert_non_null(strstr(b->err, "replica 0, instruction 1 (host_load)"));
	assert_non_null(strstr(b->err, "\"s0\" loaded"));
	assert_non_null(strstr(b->err, "num_host_transfers = 2"));
	/* Stored too often: the same. */
	b->exe.num_instrs = 0;
	eb_loop(b, 2, 1);
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(out));
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(out));
	assert_int_equal(eb_run_raw(b), -ERANGE);
	assert_non_null(strstr(b->err, "instruction 2 (host_store)"));
	assert_non_null(strstr(b->err, "stored"));
	/* Exactly num_host_transfers is fine, run after run. */
	b->exe.num_instrs = 0;
	eb_loop(b, 2, 2);
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(out));
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(eb_run(b), 0);
	eb_free(b);
}

/*
 * A tensor on its stream's slot (copy elision, exe.h): the load and the
 * store copy nothing, yet count as transfers, so a second one in a run is
 * still -ERANGE.
 */
static void test_streams_in_place(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_INT32, EB_SHAPE(3));
	uint32_t out = eb_stream(b, IPU_EXE_STREAM_D2H, IPU_DTYPE_INT32, EB_SHAPE(3));
	uint32_t x = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(3));
	uint32_t y = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(3));
	int32_t *xs, *ys;
	int i, run;

	(void)state;
	b->tensors[x].offset = b->streams[in].slots_offset;
	b->tensors[y].offset = b->streams[out].slots_offset;
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(y), EB_I64(out));
	eb_alloc(b);
	xs = eb_slot(b, 0, in, 0);
	ys = eb_slot(b, 0, out, 0);
	for (run = 0; run < 2; run++) {
		for (i = 0; i < 3; i++)
			xs[i] = 10 * run + i;
		assert_int_equal(eb_run(b), 0);
		for (i = 0; i < 3; i++)
			assert_int_equal(ys[i], 2 * (10 * run + i));
	}
	/* y = x forwarded: one slot, the load and the store both elided. */
	b->streams[out].slots_offset = b->streams[in].slots_offset;
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(out));
	for (i = 0; i < 3; i++)
		xs[i] = 7 + i;
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(xs[i], 7 + i);
	/* Loaded or stored twice in one run: -ERANGE all the same. */
	b->exe.num_instrs = 0;
	eb_loop(b, 2, 1);
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	assert_int_equal(eb_run_raw(b), -ERANGE);
	assert_non_null(strstr(b->err, "\"s0\" loaded more than num_host_transfers = 1"));
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_loop(b, 2, 1);
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(out));
	assert_int_equal(eb_run_raw(b), -ERANGE);
	assert_non_null(strstr(b->err, "\"s1\" stored more than num_host_transfers = 1"));
	eb_free(b);
}

/* Counters updated by SCALED_ADD_INPLACE count loop iterations. */
static void test_nested_loops(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t one = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
	uint32_t c[5];
	float want[5] = { 3, 12, 60, 0, 1 };
	int k;

	(void)state;
	for (k = 0; k < 5; k++)
		c[k] = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
#define INC(v) eb_op(b, IPU_OP_SCALED_ADD_INPLACE, EB_U32(v, one), EB_NONE)
	eb_loop(b, 3, 5);		/* 0: body 1..5, 3 times */
	INC(c[0]);			/* 1 */
	eb_loop(b, 4, 3);		/* 2: body 3..5, 12 times */
	INC(c[1]);			/* 3 */
	eb_loop(b, 5, 1);		/* 4: body 5, 60 times: all three */
	INC(c[2]);			/* 5    loops end here together */
	eb_loop(b, 0, 1);		/* 6: never */
	INC(c[3]);			/* 7 */
	eb_loop(b, 7, 0);		/* 8: empty body */
	INC(c[4]);			/* 9: once, after the loops */
#undef INC
	for (k = 0; k < (int)b->exe.num_instrs; k++)
		if (b->instrs[k].op == IPU_OP_SCALED_ADD_INPLACE) {
			b->instrs[k].fparams[0] = 1.0f;
			b->instrs[k].fparams[1] = 1.0f;
		}
	eb_alloc(b);
	*(float *)eb_ptr(b, 0, one) = 1.0f;
	assert_int_equal(eb_run(b), 0);
	for (k = 0; k < 5; k++)
		assert_true(*(float *)eb_ptr(b, 0, c[k]) == want[k]);
	eb_free(b);
}

static void test_scaled_add_and_assign(void **state)
{
	static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				   IPU_DTYPE_BFLOAT16, IPU_DTYPE_FLOAT8_143 };
	size_t d;
	uint64_t i;

	(void)state;
	for (d = 0; d < sizeof(dts) / sizeof(dts[0]); d++) {
		struct eb *b = eb_new(1, 1);
		uint32_t v = eb_variable(b, eb_tensor(b, dts[d], EB_SHAPE(3, 700)), 1, 1);
		uint32_t w = eb_variable(b, eb_tensor(b, dts[d], EB_SHAPE(3, 700)), 1, 1);
		uint32_t x = eb_tensor(b, dts[d], EB_SHAPE(3, 700));
		uint32_t in = eb_op(b, IPU_OP_SCALED_ADD_INPLACE, EB_U32(v, x), EB_NONE);
		float *before = malloc(2100 * sizeof(float));

		eb_op(b, IPU_OP_ASSIGN, EB_U32(w, x), EB_NONE);
		b->instrs[in].fparams[0] = 0.9f;
		b->instrs[in].fparams[1] = -0.125f;
		eb_alloc(b);
		eb_fill(b, 0, v, 1, -3, 3);
		eb_fill(b, 0, x, 2, -3, 3);
		for (i = 0; i < 2100; i++)
			before[i] = (float)eb_get(b, 0, v, i);
		assert_int_equal(eb_run(b), 0);
		for (i = 0; i < 2100; i++) {
			float want = 0.9f * before[i] + -0.125f * (float)eb_get(b, 0, x, i);

			if (!eb_same(b, 0, v, i, &want, IPU_DTYPE_FLOAT32))
				fail_msg("%s: var[%llu] = %g, want %g",
					 ipu_dtype_name(dts[d]), (unsigned long long)i,
					 eb_get(b, 0, v, i), (double)want);
		}
		assert_memory_equal(eb_ptr(b, 0, w), eb_ptr(b, 0, x),
				    b->tensors[x].nbytes);
		free(before);
		eb_free(b);
	}
}

/* Scaled add is float-only; the executor says so rather than guess. */
static void test_scaled_add_rejects_integers(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t v = eb_variable(b, eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(2)), 1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(2));

	(void)state;
	eb_op(b, IPU_OP_SCALED_ADD_INPLACE, EB_U32(v, x), EB_NONE);
	eb_alloc(b);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "scaled_add_inplace"));
	eb_free(b);
}

static void test_empty_program(void **state)
{
	struct eb *b = eb_new(2, 3);

	(void)state;
	eb_alloc(b);
	assert_int_equal(eb_run_raw(b), 0);
	eb_free(b);
}

/* Each of these would make a naive executor read or write out of bounds;
 * ipufw_run() refuses them before running anything. */
static void test_preflight_rejects_what_does_not_fit(void **state)
{
	struct eb *b = tiny(1);
	struct ipu_exe_tensor *t = &b->tensors[1];
	struct ipu_exe_tensor saved = *t;
	struct ipu_exe_instr *in = &b->instrs[0];
	struct ipu_exe_instr isaved = *in;
	uint32_t s;

	(void)state;
	t->offset = b->exe.arena_size - 8;	/* past the end */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "tensor 1"));
	t->offset = UINT64_MAX - 4;		/* offset + size wraps */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	t->offset = saved.offset + 2;		/* misaligned */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;
	t->nelems = 5;				/* not the shape's product */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;
	t->nbytes = 32;				/* not nelems * size */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;
	t->dtype = IPU_DTYPE_FLOAT64;		/* not a device dtype */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;
	t->ndim = 9;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;
	t->shape[0] = UINT64_MAX;		/* product overflows */
	t->ndim = 2;
	t->shape[1] = 4;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*t = saved;

	b->operands[1] = 99;			/* no such tensor */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "instruction 0"));
	b->operands[1] = 0;
	in->num_operands = 200;			/* past the operand table */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*in = isaved;
	in->num_params = 1;			/* past the param table */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*in = isaved;
	in->op = 7;				/* a hole in the opcodes */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	in->op = IPU_OP_COUNT_;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	*in = isaved;

	b->exe.num_host_transfers = 0;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_host_transfers = 1;
	b->exe.tensors = NULL;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.tensors = b->tensors;

	/* A stream whose slots leave the arena. */
	s = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	b->streams[s].slots_offset = b->exe.arena_size;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "stream 0"));
	b->exe.num_streams = 0;

	assert_int_equal(eb_run_raw(b), 0);
	eb_free(b);
}

static void test_bad_loops_and_streams_fail_cleanly(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3));
	int k;

	(void)state;
	eb_alloc(b);
	eb_loop(b, 2, 5);			/* body past the end */
	eb_op(b, IPU_OP_COPY, EB_U32(x, x), EB_NONE);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "loop"));
	b->exe.num_instrs = 0;
	eb_loop(b, 2, 2);			/* inner body past the outer's */
	eb_loop(b, 2, 2);
	eb_op(b, IPU_OP_COPY, EB_U32(x, x), EB_NONE);
	eb_op(b, IPU_OP_COPY, EB_U32(x, x), EB_NONE);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_loop(b, -1, 1);			/* negative count */
	eb_op(b, IPU_OP_COPY, EB_U32(x, x), EB_NONE);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_LOOP, EB_NONE, EB_I64(1)); /* body_len missing */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	for (k = 0; k <= IPU_EXE_MAX_LOOP_DEPTH; k++) /* too deep */
		eb_loop(b, 1, IPU_EXE_MAX_LOOP_DEPTH - k + 1);
	eb_op(b, IPU_OP_COPY, EB_U32(x, x), EB_NONE);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "deeper"));

	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(1)); /* no stream 1 */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_HOST_STORE, EB_U32(x), EB_I64(in)); /* wrong way */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(y), EB_I64(in)); /* wrong size */
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "s0"));
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_executor_create_destroy_args),
		cmocka_unit_test(test_run_argument_errors),
		cmocka_unit_test(test_executor_serves_smaller_runs),
		cmocka_unit_test(test_streams_load_and_store_every_slot),
		cmocka_unit_test(test_stream_loaded_too_often_is_erange),
		cmocka_unit_test(test_streams_in_place),
		cmocka_unit_test(test_nested_loops),
		cmocka_unit_test(test_scaled_add_and_assign),
		cmocka_unit_test(test_scaled_add_rejects_integers),
		cmocka_unit_test(test_empty_program),
		cmocka_unit_test(test_preflight_rejects_what_does_not_fit),
		cmocka_unit_test(test_bad_loops_and_streams_fail_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
