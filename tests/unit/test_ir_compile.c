// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_compile.c - ipu_ir_compile(): every op in every dtype it takes
 * compiles, validates and round-trips through the file format; calls and
 * repeats flatten as documented; the executable lists what a session
 * needs; and settings that no single op could check are refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir_expect.h"

#include "exe_samples.h"
#include "ipu/exe.h"
#include "ipu/ir.h"

static void expect_compile_error(struct ipu_ir *ir, const char *what)
{
	struct ipu_exe *e = (void *)1;

	ir_expect_refused(ir, ipu_ir_compile(ir, &e), -EINVAL, what);
	assert_null(e);
}

/* save, load, save: the same bytes, and what was loaded validates. */
static void assert_round_trips(const struct ipu_exe *e)
{
	char msg[512];

	if (exe_resave_matches(e, msg, sizeof(msg)))
		fail_msg("%s", msg);
}

/* ---------------------------------------------------------------------- */
/* Every op, every dtype                                                    */
/* ---------------------------------------------------------------------- */

static bool dt_numeric(int dt)
{
	return dt != IPU_DTYPE_BOOL;
}

/*
 * One program using every op that takes @dt: data movement for all,
 * arithmetic for non-bool, float maths for floats; inside a call and a
 * repeat too, replicated, with every tensor checked to exist.
 */
static void build_all_ops(struct ipu_ir *ir, int dt)
{
	ipu_stream in = ipu_ir_h2d_stream(ir, "in", dt, 2, SHAPE(2, 3));
	ipu_stream out = ipu_ir_d2h_stream(ir, "out", dt, 2, SHAPE(3, 2));
	ipu_tensor v = ipu_ir_variable(ir, "v", dt, 2, SHAPE(2, 3), NULL, NULL);
	ipu_tensor x = ipu_ir_host_load(ir, in, NULL), t, y;
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor gi, o[1];
	static const int64_t start[1] = { 1 };

	ipu_ir_set_replication_factor(ir, 2);
	t = ipu_ir_transpose(ir, x, NULL, 0);
	t = ipu_ir_reshape(ir, t, (int64_t[]){ 3, 2 }, 2);
	y = ipu_ir_slice(ir, x, 1, start, NULL, NULL, NULL);
	y = ipu_ir_concat(ir, (ipu_tensor[]){ y, y }, 2, 0);
	assert_int_equal(ipu_ir_assign(ir, v, y), 0);
	for (int to = 1; to < IPU_DTYPE_COUNT_; to++)
		if (ipu_dtype_on_device(to))
			t = ipu_ir_cast(ir, ipu_ir_cast(ir, t, to), dt);
	if (dt_numeric(dt)) {
		ipu_tensor r = ipu_ir_add(ir, x, v);

		r = ipu_ir_div(ir, ipu_ir_mul(ir, ipu_ir_sub(ir, r, x), v), r);
		r = ipu_ir_relu(ir, ipu_ir_abs(ir, ipu_ir_neg(ir, r)));
		r = ipu_ir_reduce_sum(ir, ipu_ir_matmul(ir, r, t), NULL, 0, true);
		r = ipu_ir_reduce_max(ir, r, NULL, 0, false);
		r = ipu_ir_all_reduce(ir, r, IPU_IR_ALL_REDUCE_SUM, NULL);
		t = ipu_ir_add(ir, t, r);
	}
	if (ipu_dtype_is_float(dt)) {
		ipu_tensor r = ipu_ir_sqrt(ir, ipu_ir_log(ir, ipu_ir_exp(ir,
			ipu_ir_sigmoid(ir, ipu_ir_tanh(ir, ipu_ir_gelu(ir, x))))));

		r = ipu_ir_log_softmax(ir, ipu_ir_softmax(ir, r, 1), 0);
		r = ipu_ir_reduce_mean(ir, r, (int[]){ 1 }, 1, false);
		r = ipu_ir_all_reduce(ir, r, IPU_IR_ALL_REDUCE_MEAN, NULL);
		assert_int_equal(ipu_ir_scaled_add_inplace(ir, v, x, 0.9f, 0.1f),
				 0);
		t = ipu_ir_mul(ir, t, ipu_ir_reduce_sum(ir, r, NULL, 0, false));
	}
	ipu_ir_push_graph(ir, g);
	gi = ipu_ir_graph_input(ir, "gi", dt, 2, SHAPE(3, 2));
	ipu_ir_graph_output(ir, ipu_ir_reshape(ir, ipu_ir_transpose(ir, gi,
		NULL, 0), (int64_t[]){ 3, 2 }, 2));
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_call(ir, g, &t, 1, o, 1), 0);
	assert_int_equal(ipu_ir_repeat(ir, g, 3, o, 1, o, 1), 0);
	if (ipu_ir_host_store(ir, out, o[0]))
		fail_msg("%s: %s", ipu_dtype_name(dt), ipu_ir_errmsg(ir));
}

static void test_every_op_in_every_dtype_round_trips(void **state)
{
	bool used[IPU_OP_COUNT_] = { false };

	(void)state;
	for (int dt = 1; dt < IPU_DTYPE_COUNT_; dt++) {
		struct ipu_ir *ir;
		struct ipu_exe *e;

		if (!ipu_dtype_on_device(dt))
			continue;
		ir = ir_new();
		build_all_ops(ir, dt);
		e = ir_compile_ok(ir);
		assert_round_trips(e);
		for (uint32_t i = 0; i < e->num_instrs; i++)
			used[e->instrs[i].op] = true;
		ipu_exe_free(e);
		ipu_ir_destroy(ir);
	}
	for (uint32_t op = 1; op < IPU_OP_COUNT_; op++)
		if (strcmp(ipu_exe_op_name(op), "invalid"))
			if (!used[op])
				fail_msg("no program used %s", ipu_exe_op_name(op));
}

static void test_samples_compile(void **state)
{
	(void)state;
	for (int s = 0; s < SAMPLE_COUNT_; s++) {
		struct ipu_exe *e;
		char msg[1024];

		if (exe_sample(s, &e, msg, sizeof(msg)))
			fail_msg("sample %d: %s", s, msg);
		assert_round_trips(e);
		ipu_exe_free(e);
	}
}

/* ---------------------------------------------------------------------- */
/* What comes out                                                           */
/* ---------------------------------------------------------------------- */

static void test_empty_program(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_exe *e = ir_compile_ok(ir);

	(void)state;
	assert_int_equal(e->num_instrs, 0);
	assert_int_equal(e->num_tensors, 0);
	assert_int_equal(e->ipus_per_replica, 1);
	assert_int_equal(e->arena_size, 0);
	assert_string_equal(e->name, "t");
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_compiling_twice_gives_the_same_bytes(void **state)
{
	struct ipu_exe *a, *b;
	void *ba, *bb;
	size_t na, nb;
	char msg[512];
	struct ipu_ir *ir = ir_new();

	(void)state;
	build_all_ops(ir, IPU_DTYPE_FLOAT32);
	a = ir_compile_ok(ir);
	b = ir_compile_ok(ir);
	assert_int_equal(ipu_exe_save(a, &ba, &na, msg, sizeof(msg)), 0);
	assert_int_equal(ipu_exe_save(b, &bb, &nb, msg, sizeof(msg)), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(ba, bb, na);
	free(ba);
	free(bb);
	ipu_exe_free(a);
	ipu_exe_free(b);
	ipu_ir_destroy(ir);
}

static const struct ipu_exe_tensor *find(const struct ipu_exe *e,
					 const char *name)
{
	int i = ipu_exe_find_tensor(e, name);

	assert_true(i >= 0);
	return &e->tensors[i];
}

static void test_executable_lists_what_a_session_needs(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_replica_grouping pairs, orth;
	static const float w[2 * 3] = { 1, 2, 3, 4, 5, 6 };
	static const int8_t k[3] = { 7, 8, 9 };
	static const int64_t row[2] = { 1, 3 };
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	const struct ipu_exe_tensor *t;
	ipu_stream sa, sb, sc;
	struct ipu_exe *e;
	ipu_tensor plain;

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	ipu_ir_set_num_host_transfers(ir, 2);
	assert_int_equal(ipu_ir_replica_grouping(ir, 1, 2, &pairs), 0);
	assert_int_equal(ipu_ir_replica_grouping(ir, 2, 2, &orth), 0);
	IPU_OPTS(ipu_ir_variable_opts, grouped, .grouping = &pairs,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	IPU_OPTS(ipu_ir_variable_opts, strided, .grouping = &orth);
	IPU_OPTS(ipu_ir_variable_opts, mapped, .mmap_path = "data/w.bin");
	IPU_OPTS(ipu_ir_variable_opts, frozen, .mmap_path = "data/f.bin",
		 .mmap_readonly = true);
	plain = ipu_ir_variable(ir, "plain", IPU_DTYPE_FLOAT32, 1, SHAPE(3), w,
				NULL);
	ipu_ir_variable(ir, "grouped", IPU_DTYPE_FLOAT32, 1, SHAPE(3), w,
			&grouped);
	ipu_ir_variable(ir, "strided", IPU_DTYPE_FLOAT32, 1, SHAPE(3), w,
			&strided);
	ipu_ir_variable(ir, "mapped", IPU_DTYPE_FLOAT16, 2, SHAPE(2, 2), NULL,
			&mapped);
	ipu_ir_variable(ir, "frozen", IPU_DTYPE_INT32, 0, NULL, NULL, &frozen);
	ipu_ir_variable(ir, "zeros", IPU_DTYPE_INT8, 1, SHAPE(3), NULL, NULL);
	ipu_ir_constant(ir, "k", IPU_DTYPE_INT8, 1, SHAPE(3), k);
	sa = ipu_ir_h2d_stream(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(3));
	sb = ipu_ir_d2h_stream(ir, "b", IPU_DTYPE_INT8, 2, SHAPE(1, 3));
	sc = ipu_ir_h2d_stream(ir, "c", IPU_DTYPE_BOOL, 0, NULL);
	ipu_ir_push_ipu(ir, 3);
	ipu_ir_neg(ir, plain);
	ipu_ir_pop_ipu(ir);
	/* Each stream num_host_transfers times per run. */
	ipu_ir_push_graph(ir, body);
	ipu_ir_host_load(ir, sc, NULL);
	assert_int_equal(ipu_ir_host_store(ir, sb, ipu_ir_cast(ir,
		ipu_ir_reshape(ir, ipu_ir_host_load(ir, sa, NULL), row, 2),
		IPU_DTYPE_INT8)), 0);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 2, NULL, 0, NULL, 0), 0);
	e = ir_compile_ok(ir);

	assert_int_equal(e->replication_factor, 4);
	assert_int_equal(e->instance_replication_factor, 4);
	assert_int_equal(e->num_host_transfers, 2);
	assert_int_equal(e->ipus_per_replica, 4);
	/* Streams in creation order, with their layout. */
	assert_int_equal(e->num_streams, 3);
	assert_string_equal(e->streams[0].name, "a");
	assert_int_equal(e->streams[0].direction, IPU_EXE_STREAM_H2D);
	assert_string_equal(e->streams[1].name, "b");
	assert_int_equal(e->streams[1].direction, IPU_EXE_STREAM_D2H);
	assert_int_equal(e->streams[1].dtype, IPU_DTYPE_INT8);
	assert_int_equal(e->streams[1].ndim, 2);
	assert_int_equal(e->streams[1].nbytes, 3);
	assert_int_equal(e->streams[2].ndim, 0);
	assert_int_equal(e->streams[2].nbytes, 1);
	/* Variables: groupings, retrieval, data one value per group. */
	t = find(e, "plain");
	assert_int_equal(t->kind, IPU_EXE_TENSOR_VARIABLE);
	assert_int_equal(t->group_size, 4);
	assert_int_equal(t->group_stride, 1);
	assert_int_equal(t->data_size, 12);
	assert_memory_equal(e->data + t->data_offset, w, 12);
	t = find(e, "grouped");
	assert_int_equal(t->group_size, 2);
	assert_int_equal(t->retrieval, IPU_EXE_RETRIEVE_ALL_REPLICAS);
	assert_int_equal(t->data_size, 24);
	assert_memory_equal(e->data + t->data_offset, w, 24);
	t = find(e, "strided");
	assert_int_equal(t->group_size, 2);
	assert_int_equal(t->group_stride, 2);
	assert_int_equal(t->retrieval, IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	t = find(e, "mapped");
	assert_int_equal(t->flags, IPU_EXE_TENSOR_MMAP);
	assert_string_equal(t->mmap_path, "data/w.bin");
	assert_int_equal(t->data_size, 0);
	t = find(e, "frozen");
	assert_int_equal(t->flags, IPU_EXE_TENSOR_MMAP | IPU_EXE_TENSOR_MMAP_RDONLY);
	t = find(e, "zeros");
	assert_int_equal(t->data_size, 3);
	assert_memory_equal(e->data + t->data_offset, "\0\0\0", 3);
	t = find(e, "k");
	assert_int_equal(t->kind, IPU_EXE_TENSOR_CONSTANT);
	assert_memory_equal(e->data + t->data_offset, k, 3);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static uint32_t count_ops(const struct ipu_exe *e, uint32_t op)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < e->num_instrs; i++)
		n += e->instrs[i].op == op;
	return n;
}

static void test_calls_are_inlined_per_call_site(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor a, c, o1[1], o2[1];
	struct ipu_exe *e;
	static const float z[2];

	(void)state;
	c = ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 1, SHAPE(2), z);
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	ipu_ir_graph_output(ir, ipu_ir_exp(ir, a));
	ipu_ir_pop_graph(ir);
	ipu_ir_call(ir, g, &c, 1, o1, 1);
	ipu_ir_call(ir, g, o1, 1, o2, 1);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "o", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)), o2[0]);
	e = ir_compile_ok(ir);
	/* Two exps on two different outputs; no copies, no loops. */
	assert_int_equal(count_ops(e, IPU_OP_EXP), 2);
	assert_int_equal(count_ops(e, IPU_OP_COPY), 0);
	assert_int_equal(count_ops(e, IPU_OP_LOOP), 0);
	assert_int_not_equal(e->operands[e->instrs[0].first_operand],
			     e->operands[e->instrs[1].first_operand]);
	/* The second reads what the first wrote. */
	assert_int_equal(e->operands[e->instrs[0].first_operand],
			 e->operands[e->instrs[1].first_operand + 1]);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_variable_passed_to_call_is_copied(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor v, a, o[1];
	struct ipu_exe *e;

	(void)state;
	v = ipu_ir_variable(ir, "v", IPU_DTYPE_FLOAT32, 1, SHAPE(2), NULL, NULL);
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	/* The update must not change what the call was given. */
	ipu_ir_scaled_add_inplace(ir, v, a, 2, 0);
	ipu_ir_graph_output(ir, ipu_ir_neg(ir, a));
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_call(ir, g, &v, 1, o, 1), 0);
	e = ir_compile_ok(ir);
	assert_int_equal(e->instrs[0].op, IPU_OP_COPY);
	assert_int_equal(e->operands[e->instrs[0].first_operand + 1],
			 ipu_exe_find_tensor(e, "v"));
	assert_int_equal(e->instrs[1].op, IPU_OP_SCALED_ADD_INPLACE);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_repeat_becomes_a_loop(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor a, b, c, o[2];
	struct ipu_exe *e;
	const struct ipu_exe_instr *loop;
	static const float z[2];

	(void)state;
	c = ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 1, SHAPE(2), z);
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	b = ipu_ir_graph_input(ir, "b", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	/* Swap: each output is the other carried input. */
	ipu_ir_graph_output(ir, b);
	ipu_ir_graph_output(ir, a);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, g, 7, (ipu_tensor[]){ c, c }, 2, o,
				       2), 0);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "o", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)), o[0]);
	e = ir_compile_ok(ir);
	/* copy, copy (carried in), loop 7 { copy to temp, copy, copy }. */
	assert_int_equal(e->instrs[2].op, IPU_OP_LOOP);
	loop = &e->instrs[2];
	assert_int_equal(e->params[loop->first_param], 7);
	assert_int_equal(e->params[loop->first_param + 1], 3);
	assert_int_equal(count_ops(e, IPU_OP_COPY), 5);
	assert_int_equal(e->instrs[6].op, IPU_OP_HOST_STORE);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_empty_repeat_emits_no_loop(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor a, c, o[1];
	struct ipu_exe *e;
	static const float z[2];

	(void)state;
	c = ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 1, SHAPE(2), z);
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	ipu_ir_graph_output(ir, a);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, g, 5, &c, 1, o, 1), 0);
	assert_int_equal(ipu_ir_repeat(ir, g, 0, o, 1, o, 1), 0);
	e = ir_compile_ok(ir);
	assert_int_equal(count_ops(e, IPU_OP_LOOP), 0);
	assert_int_equal(count_ops(e, IPU_OP_COPY), 2);
	assert_int_equal(e->num_params, 0);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_all_reduce_over_all_replicas(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_exe *e;
	const int64_t *p;
	static const float z[2];

	(void)state;
	ipu_ir_all_reduce(ir, ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 1,
					      SHAPE(2), z),
			  IPU_IR_ALL_REDUCE_SUM, NULL);
	/* The replication factor may change after the op: it is read at
	 * compile time. */
	ipu_ir_set_replication_factor(ir, 8);
	e = ir_compile_ok(ir);
	p = e->params + e->instrs[0].first_param;
	assert_int_equal(p[0], IPU_EXE_REDUCE_SUM);
	assert_int_equal(p[1], 8);
	assert_int_equal(p[2], 1);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

/* ---------------------------------------------------------------------- */
/* Refusals                                                                 */
/* ---------------------------------------------------------------------- */

static void test_instance_replication_factor_must_divide(void **state)
{
	struct ipu_ir *ir = ir_new();

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	ipu_ir_set_instance_replication_factor(ir, 3);
	expect_compile_error(ir, "compile: instance_replication_factor 3 does not divide replication_factor 4");
	ipu_ir_destroy(ir);
}

static void test_grouped_variable_outlives_replication_factor(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_replica_grouping g;

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	assert_int_equal(ipu_ir_replica_grouping(ir, 1, 2, &g), 0);
	IPU_OPTS(ipu_ir_variable_opts, o, .grouping = &g);
	ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 0, NULL, NULL, &o);
	ipu_ir_set_replication_factor(ir, 8);
	expect_compile_error(ir, "compile: variable 'w' holds 2 values (one per group), but replication factor 8 makes 4 groups");
	ipu_ir_set_replication_factor(ir, 2);
	expect_compile_error(ir, "compile: variable 'w' holds 2 values");
	ipu_ir_set_replication_factor(ir, 3);
	expect_compile_error(ir, "compile: variable 'w': replica grouping stride 1, group_size 2: the replication factor 3");
	ipu_ir_destroy(ir);
}

static void test_all_reduce_grouping_outlives_replication_factor(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_replica_grouping g;
	static const float z[1];

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	assert_int_equal(ipu_ir_replica_grouping(ir, 2, 2, &g), 0);
	ipu_ir_all_reduce(ir, ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 0,
					      NULL, z),
			  IPU_IR_ALL_REDUCE_SUM, &g);
	ipu_ir_set_replication_factor(ir, 2);
	expect_compile_error(ir, "compile: all_reduce of 'c': replica grouping stride 2, group_size 2");
	ipu_ir_destroy(ir);
}

static void build_loads_in_repeat(struct ipu_ir *ir, uint64_t count,
				  bool store)
{
	ipu_stream s = store ?
		ipu_ir_d2h_stream(ir, "s", IPU_DTYPE_INT32, 0, NULL) :
		ipu_ir_h2d_stream(ir, "s", IPU_DTYPE_INT32, 0, NULL);
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_graph outer = ipu_ir_create_graph(ir, "outer");
	static const int32_t z;

	ipu_ir_push_graph(ir, g);
	if (store)
		ipu_ir_host_store(ir, s, ipu_ir_constant(ir, "z",
							 IPU_DTYPE_INT32, 0,
							 NULL, &z));
	else
		ipu_ir_host_load(ir, s, NULL);
	ipu_ir_pop_graph(ir);
	ipu_ir_push_graph(ir, outer);
	assert_int_equal(ipu_ir_repeat(ir, g, count, NULL, 0, NULL, 0), 0);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, outer, 2, NULL, 0, NULL, 0), 0);
}

static void test_stream_loaded_more_than_host_transfers(void **state)
{
	struct ipu_ir *ir = ir_new();

	(void)state;
	ipu_ir_set_num_host_transfers(ir, 5);
	build_loads_in_repeat(ir, 3, false);
	expect_compile_error(ir, "compile: stream 's' is loaded 6 times per run, but num_host_transfers is 5");
	ipu_ir_set_num_host_transfers(ir, 6);
	ipu_exe_free(ir_compile_ok(ir));
	ipu_ir_destroy(ir);
}

static void test_stream_stored_more_than_host_transfers(void **state)
{
	struct ipu_ir *ir = ir_new();

	(void)state;
	build_loads_in_repeat(ir, 1ull << 62, true);
	expect_compile_error(ir, "compile: stream 's' is stored 9223372036854775808 times per run");
	ipu_ir_destroy(ir);
}

/* Fewer: the transfers never made would come back as zeros (d2h) or be
 * dropped (h2d), silently; refused instead, naming both counts. */
static void test_stream_used_fewer_than_host_transfers(void **state)
{
	struct ipu_ir *ir = ir_new();

	(void)state;
	ipu_ir_set_num_host_transfers(ir, 8);
	build_loads_in_repeat(ir, 3, true);
	expect_compile_error(ir, "compile: stream 's' is stored 6 times per run, but num_host_transfers is 8");
	ipu_ir_destroy(ir);
	ir = ir_new();
	ipu_ir_set_num_host_transfers(ir, 7);
	build_loads_in_repeat(ir, 3, false);
	expect_compile_error(ir, "compile: stream 's' is loaded 6 times per run, but num_host_transfers is 7");
	ipu_ir_destroy(ir);
}

/* A stream no op uses, or used only in a loop that never runs. */
static void test_stream_never_used_is_refused(void **state)
{
	struct ipu_ir *ir = ir_new();
	static const float z;

	(void)state;
	ipu_ir_d2h_stream(ir, "unused", IPU_DTYPE_FLOAT32, 0, NULL);
	ipu_ir_neg(ir, ipu_ir_variable(ir, "v", IPU_DTYPE_FLOAT32, 0, NULL, &z,
				      NULL));
	expect_compile_error(ir, "compile: stream 'unused' is stored 0 times per run, but num_host_transfers is 1");
	ipu_ir_destroy(ir);
	ir = ir_new();
	build_loads_in_repeat(ir, 0, false);
	expect_compile_error(ir, "compile: stream 's' is loaded 0 times per run, but num_host_transfers is 1");
	ipu_ir_destroy(ir);
}

static void test_repeats_nest_too_deep(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g[IPU_EXE_MAX_LOOP_DEPTH + 1];
	static const float z;

	(void)state;
	for (int i = 0; i <= IPU_EXE_MAX_LOOP_DEPTH; i++) {
		char name[16];

		snprintf(name, sizeof(name), "g%d", i);
		g[i] = ipu_ir_create_graph(ir, name);
		ipu_ir_push_graph(ir, g[i]);
		if (i)
			assert_int_equal(ipu_ir_repeat(ir, g[i - 1], 2, NULL, 0,
						       NULL, 0), 0);
		else
			ipu_ir_exp(ir, ipu_ir_constant(ir, "z", IPU_DTYPE_FLOAT32,
						       0, NULL, &z));
		ipu_ir_pop_graph(ir);
	}
	assert_int_equal(ipu_ir_repeat(ir, g[IPU_EXE_MAX_LOOP_DEPTH], 2, NULL,
				       0, NULL, 0), 0);
	expect_compile_error(ir, "repeats nest deeper than 32");
	ipu_ir_destroy(ir);
}

static void test_too_many_ipus(void **state)
{
	struct ipu_ir *ir = ir_new();
	static const float z;

	(void)state;
	ipu_ir_set_replication_factor(ir, 1u << 24);
	ipu_ir_push_ipu(ir, IPU_IR_MAX_VGID - 1);
	ipu_ir_exp(ir, ipu_ir_constant(ir, "z", IPU_DTYPE_FLOAT32, 0, NULL, &z));
	expect_compile_error(ir, "compile: the program does not validate: 4096 IPUs per replica times 16777216 replicas");
	ipu_ir_destroy(ir);
}

static void test_null_arguments(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_exe *e;

	(void)state;
	assert_int_equal(ipu_ir_compile(NULL, &e), -EINVAL);
	assert_int_equal(ipu_ir_compile(ir, NULL), -EINVAL);
	ipu_ir_destroy(ir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_op_in_every_dtype_round_trips),
		cmocka_unit_test(test_samples_compile),
		cmocka_unit_test(test_empty_program),
		cmocka_unit_test(test_compiling_twice_gives_the_same_bytes),
		cmocka_unit_test(test_executable_lists_what_a_session_needs),
		cmocka_unit_test(test_calls_are_inlined_per_call_site),
		cmocka_unit_test(test_variable_passed_to_call_is_copied),
		cmocka_unit_test(test_repeat_becomes_a_loop),
		cmocka_unit_test(test_empty_repeat_emits_no_loop),
		cmocka_unit_test(test_all_reduce_over_all_replicas),
		cmocka_unit_test(test_instance_replication_factor_must_divide),
		cmocka_unit_test(test_grouped_variable_outlives_replication_factor),
		cmocka_unit_test(test_all_reduce_grouping_outlives_replication_factor),
		cmocka_unit_test(test_stream_loaded_more_than_host_transfers),
		cmocka_unit_test(test_stream_stored_more_than_host_transfers),
		cmocka_unit_test(test_stream_used_fewer_than_host_transfers),
		cmocka_unit_test(test_stream_never_used_is_refused),
		cmocka_unit_test(test_repeats_nest_too_deep),
		cmocka_unit_test(test_too_many_ipus),
		cmocka_unit_test(test_null_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
