// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_graphs.c - subgraphs, graph and IPU scopes, calls and repeats,
 * virtual graph ids: what they build, and each mistake refused with a
 * message while the ir keeps working.
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

#include "ipu/ir.h"

/*
 * body(x [4], n [4]) = (x + n, n): a repeatable subgraph with two inputs
 * and one carried output... and two outputs for calls.
 */
struct fx {
	struct ipu_ir *ir;
	ipu_graph body;
	ipu_tensor bx, bn, by;
	ipu_tensor x4, n4, s, w;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	static const float z[4];
	struct ipu_ir *ir;

	if (!f || ipu_ir_create("graphs", &f->ir))
		return -1;
	ir = f->ir;
	f->x4 = ipu_ir_constant(ir, "x4", IPU_DTYPE_FLOAT32, 1, SHAPE(4), z);
	f->n4 = ipu_ir_constant(ir, "n4", IPU_DTYPE_FLOAT32, 1, SHAPE(4), z);
	f->s = ipu_ir_constant(ir, "s", IPU_DTYPE_FLOAT32, 0, NULL, z);
	f->w = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 1, SHAPE(4), z,
			       NULL);
	f->body = ipu_ir_create_graph(ir, "body");
	ipu_ir_push_graph(ir, f->body);
	f->bx = ipu_ir_graph_input(ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	f->bn = ipu_ir_graph_input(ir, "n", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	f->by = ipu_ir_add(ir, f->bx, f->bn);
	ipu_ir_graph_output(ir, f->by);
	ipu_ir_pop_graph(ir);
	if (ipu_tensor_error(f->by) || ipu_tensor_error(f->w)) {
		ipu_ir_destroy(ir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static void assert_still_usable(struct fx *f)
{
	ipu_tensor out[1];

	assert_int_equal(ipu_ir_current_graph(f->ir).id, 1);
	assert_int_equal(ipu_tensor_error(ipu_ir_add(f->ir, f->x4, f->n4)), 0);
	assert_int_equal(ipu_ir_call(f->ir, f->body,
				     (ipu_tensor[]){ f->x4, f->n4 }, 2, out, 1),
			 0);
}

static void expect_error(struct fx *f, int got, int err, const char *what)
{
	ir_expect_refused(f->ir, got, err, what);
	/* Scopes pushed by a case are its own to pop. */
	while (ipu_ir_current_graph(f->ir).id != 1)
		ipu_ir_pop_graph(f->ir);
	assert_still_usable(f);
}

static ipu_tensor out1[1], out2[2];

/* Build inside @g, returning what @call returned. */
#define IN_GRAPH(g, call) \
	(ipu_ir_push_graph(f->ir, g), __extension__({ int r_ = (call); ipu_ir_pop_graph(f->ir); r_; }))

static int call_twice_then_add(struct fx *f)
{
	ipu_ir_call(f->ir, f->body, (ipu_tensor[]){ f->x4, f->n4 }, 2, out1, 1);
	return IN_GRAPH(f->body, ipu_ir_add(f->ir, f->bx, f->bx).id);
}

static int too_many_scopes(struct fx *f)
{
	int ret = 0;

	for (int i = 0; i < IPU_IR_MAX_SCOPES && !ret; i++)
		ret = ipu_ir_push_graph(f->ir, f->body);
	return ret;
}

static int too_many_ipu_scopes(struct fx *f)
{
	int ret = 0;

	for (int i = 0; i <= IPU_IR_MAX_SCOPES && !ret; i++)
		ret = ipu_ir_push_ipu(f->ir, 1);
	for (int i = 0; i < IPU_IR_MAX_SCOPES; i++)
		assert_int_equal(ipu_ir_pop_ipu(f->ir), 0);
	return ret;
}

static int repeat_more_outputs_than_inputs(struct fx *f)
{
	ipu_graph g = ipu_ir_create_graph(f->ir, "wide");
	ipu_tensor a;

	ipu_ir_push_graph(f->ir, g);
	a = ipu_ir_graph_input(f->ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	ipu_ir_graph_output(f->ir, a);
	ipu_ir_graph_output(f->ir, a);
	ipu_ir_pop_graph(f->ir);
	return ipu_ir_repeat(f->ir, g, 2, &f->x4, 1, out2, 2);
}

static int repeat_carried_mismatch(struct fx *f)
{
	ipu_graph g = ipu_ir_create_graph(f->ir, "shrink");
	ipu_tensor a;

	ipu_ir_push_graph(f->ir, g);
	a = ipu_ir_graph_input(f->ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	ipu_ir_graph_output(f->ir, ipu_ir_reduce_sum(f->ir, a, NULL, 0, false));
	ipu_ir_pop_graph(f->ir);
	return ipu_ir_repeat(f->ir, g, 2, &f->x4, 1, out1, 1);
}

static int call_self(struct fx *f)
{
	ipu_graph g = ipu_ir_create_graph(f->ir, "loop");

	return IN_GRAPH(g, ipu_ir_call(f->ir, g, NULL, 0, NULL, 0));
}

/* (name, call, errno, part of the message) */
#define CASES(X_)                                                              \
	X_(graph_name_taken, ipu_ir_create_graph(f->ir, "body").id, -EINVAL,   \
	   "create_graph: a graph named 'body' exists")                        \
	X_(graph_name_main_taken, ipu_ir_create_graph(f->ir, "main").id,      \
	   -EINVAL, "a graph named 'main' exists")                             \
	X_(graph_name_empty, ipu_ir_create_graph(f->ir, "").id, -EINVAL,       \
	   "create_graph: a name is required")                                 \
	X_(push_failed_graph, ipu_ir_push_graph(f->ir, (ipu_graph){ -ENOMEM }), \
	   -EINVAL, "push_graph: the graph is the result of a failed call")     \
	X_(push_unknown_graph, ipu_ir_push_graph(f->ir, (ipu_graph){ 99 }),    \
	   -EINVAL, "push_graph: no graph 99 in this ir")                      \
	X_(push_too_deep, too_many_scopes(f), -E2BIG,                          \
	   "push_graph: graph scopes nest deeper than 64")                     \
	X_(pop_main_graph, ipu_ir_pop_graph(f->ir), -EINVAL,                   \
	   "pop_graph: no graph pushed; the main graph stays")                 \
	X_(graph_input_in_main, ipu_ir_graph_input(f->ir, "q", IPU_DTYPE_FLOAT32, \
						   0, NULL).id,                \
	   -EINVAL, "graph_input: the main graph has no inputs or outputs")    \
	X_(graph_output_in_main, ipu_ir_graph_output(f->ir, f->x4), -EINVAL,   \
	   "graph_output: the main graph has no inputs or outputs")            \
	X_(graph_input_bad_shape,                                              \
	   IN_GRAPH(ipu_ir_create_graph(f->ir, "g2"),                          \
		    ipu_ir_graph_input(f->ir, "q", IPU_DTYPE_FLOAT32, 1,       \
				       SHAPE(0)).id),                          \
	   -EINVAL, "graph_input: 'q': dimension 0 is 0")                      \
	X_(graph_output_of_other_graph,                                        \
	   IN_GRAPH(ipu_ir_create_graph(f->ir, "g3"),                          \
		    ipu_ir_graph_output(f->ir, ipu_ir_neg(f->ir, f->bx))),     \
	   -EINVAL, "graph_output: input 1 is the result of a failed call")    \
	X_(op_on_tensor_of_other_graph, ipu_ir_neg(f->ir, f->by).id, -EINVAL,  \
	   "neg: 'add.7' belongs to graph 'body', not to the current graph 'main'") \
	X_(call_main_graph, ipu_ir_call(f->ir, ipu_ir_main_graph(f->ir), NULL, \
					0, NULL, 0),                           \
	   -EINVAL, "call: the main graph cannot be called")                   \
	X_(call_itself, call_self(f), -EINVAL,                                 \
	   "call: graph 'loop' cannot call itself")                            \
	X_(call_wrong_input_count, ipu_ir_call(f->ir, f->body, &f->x4, 1, out1, 1), \
	   -EINVAL, "call: graph 'body' takes 2 inputs, 1 given")              \
	X_(call_wrong_output_count,                                            \
	   ipu_ir_call(f->ir, f->body, (ipu_tensor[]){ f->x4, f->n4 }, 2, out2, 2), \
	   -EINVAL, "call: graph 'body' has 1 outputs, room for 2 given")      \
	X_(call_outputs_without_array,                                         \
	   ipu_ir_call(f->ir, f->body, (ipu_tensor[]){ f->x4, f->n4 }, 2, NULL, 1), \
	   -EINVAL, "call: 1 outputs but no array")                            \
	X_(call_inputs_without_array, ipu_ir_call(f->ir, f->body, NULL, 2, out1, 1), \
	   -EINVAL, "call: 2 inputs but no array")                             \
	X_(call_input_mismatch,                                                \
	   ipu_ir_call(f->ir, f->body, (ipu_tensor[]){ f->x4, f->s }, 2, out1, 1), \
	   -EINVAL, "call: input 2 's' float32 [] does not match input 'n' float32 [4] of graph 'body'") \
	X_(call_failed_input,                                                  \
	   ipu_ir_call(f->ir, f->body, (ipu_tensor[]){ f->x4, { -EINVAL } }, 2, out1, 1), \
	   -EINVAL, "call: input 2 is the result of a failed call")            \
	X_(call_unknown_graph, ipu_ir_call(f->ir, (ipu_graph){ 0 }, NULL, 0, NULL, 0), \
	   -EINVAL, "call: no graph 0 in this ir")                             \
	X_(called_graph_is_frozen, call_twice_then_add(f), -EINVAL,            \
	   "add: graph 'body' was already called and can no longer change")    \
	X_(repeat_more_outputs_than_inputs, repeat_more_outputs_than_inputs(f), \
	   -EINVAL, "repeat: graph 'wide' has 2 outputs but 1 inputs")         \
	X_(repeat_carried_layouts_differ, repeat_carried_mismatch(f), -EINVAL, \
	   "repeat: graph 'shrink' output 0 'reduce_sum.")                     \
	X_(repeat_count_too_large,                                             \
	   ipu_ir_repeat(f->ir, f->body, 1ull << 63,                           \
			 (ipu_tensor[]){ f->x4, f->n4 }, 2, out1, 1),          \
	   -EINVAL, "repeat: count 9223372036854775808 is too large")          \
	X_(push_ipu_out_of_range, ipu_ir_push_ipu(f->ir, IPU_IR_MAX_VGID),     \
	   -EINVAL, "push_ipu: virtual graph id 4096, at most 4095")           \
	X_(push_ipu_too_deep, too_many_ipu_scopes(f), -E2BIG,                  \
	   "push_ipu: ipu scopes nest deeper than 64")                         \
	X_(pop_ipu_without_push, ipu_ir_pop_ipu(f->ir), -EINVAL,               \
	   "pop_ipu: no ipu scope pushed")                                     \
	X_(set_ipu_of_variable, ipu_ir_set_ipu(f->ir, f->w, 1), -EINVAL,       \
	   "set_ipu: 'w' is not the output of an op")                          \
	X_(set_ipu_out_of_range,                                               \
	   ipu_ir_set_ipu(f->ir, ipu_ir_neg(f->ir, f->x4), 5000), -EINVAL,     \
	   "set_ipu: virtual graph id 5000, at most 4095")                     \
	X_(set_ipu_of_failed_tensor, ipu_ir_set_ipu(f->ir, (ipu_tensor){ -EINVAL }, 1), \
	   -EINVAL, "set_ipu: input 1 is the result of a failed call")

#define DEFINE_CASE(name, call, err, what)        \
	static void test_##name(void **state)     \
	{                                         \
		struct fx *f = *state;            \
		expect_error(f, call, err, what); \
	}
CASES(DEFINE_CASE)

static void test_failed_call_fills_outputs_with_the_error(void **state)
{
	struct fx *f = *state;
	ipu_tensor out[1] = { { 5 } };

	assert_int_equal(ipu_ir_call(f->ir, f->body, &f->x4, 1, out, 1),
			 -EINVAL);
	assert_int_equal(out[0].id, -EINVAL);
	/* ... so using it is itself an error that says so. */
	assert_int_equal(ipu_ir_relu(f->ir, out[0]).id, -EINVAL);
	assert_non_null(strstr(ipu_ir_errmsg(f->ir),
			       "relu: input 1 is the result of a failed call"));
}

static void test_call_outputs_are_new_tensors_of_the_caller(void **state)
{
	struct fx *f = *state;
	ipu_tensor a[1], b[1];
	uint64_t shape[IPU_EXE_MAX_DIMS];

	assert_int_equal(ipu_ir_call(f->ir, f->body,
				     (ipu_tensor[]){ f->x4, f->n4 }, 2, a, 1), 0);
	assert_int_equal(ipu_ir_call(f->ir, f->body,
				     (ipu_tensor[]){ a[0], f->n4 }, 2, b, 1), 0);
	assert_int_not_equal(a[0].id, b[0].id);
	assert_int_equal(ipu_ir_tensor_shape(f->ir, b[0], shape), 1);
	assert_int_equal(shape[0], 4);
	/* They belong to main: ops there may use them. */
	assert_int_equal(ipu_tensor_error(ipu_ir_mul(f->ir, a[0], b[0])), 0);
	/* Dropping the outputs is allowed. */
	assert_int_equal(ipu_ir_call(f->ir, f->body,
				     (ipu_tensor[]){ f->x4, f->n4 }, 2, NULL, 0), 0);
}

static void test_repeat_carries_outputs(void **state)
{
	struct fx *f = *state;
	ipu_tensor out[1];

	assert_int_equal(ipu_ir_repeat(f->ir, f->body, 10,
				       (ipu_tensor[]){ f->x4, f->n4 }, 2, out, 1),
			 0);
	assert_int_equal(ipu_ir_repeat(f->ir, f->body, 0,
				       (ipu_tensor[]){ out[0], f->n4 }, 2, out, 1),
			 0);
	assert_int_equal(ipu_tensor_error(out[0]), 0);
}

static void test_subgraphs_use_variables_and_call_others(void **state)
{
	struct fx *f = *state;
	ipu_graph outer = ipu_ir_create_graph(f->ir, "outer");
	ipu_tensor in, o[1];

	assert_int_equal(ipu_ir_push_graph(f->ir, outer), 0);
	assert_int_equal(ipu_ir_current_graph(f->ir).id, outer.id);
	in = ipu_ir_graph_input(f->ir, "in", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	assert_int_equal(ipu_ir_call(f->ir, f->body,
				     (ipu_tensor[]){ in, f->w }, 2, o, 1), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(f->ir, f->w, o[0], 1, 1), 0);
	assert_int_equal(ipu_ir_graph_output(f->ir, o[0]), 0);
	assert_int_equal(ipu_ir_pop_graph(f->ir), 0);
	assert_int_equal(ipu_ir_repeat(f->ir, outer, 3, &f->x4, 1, o, 1), 0);
}

static void test_ipus_per_replica_from_virtual_graph_ids(void **state)
{
	struct fx *f = *state;
	ipu_tensor t;

	assert_int_equal(ipu_ir_ipus_per_replica(f->ir), 1);
	assert_int_equal(ipu_ir_push_ipu(f->ir, 2), 0);
	assert_int_equal(ipu_ir_push_ipu(f->ir, 1), 0);
	t = ipu_ir_neg(f->ir, f->x4);
	assert_int_equal(ipu_ir_pop_ipu(f->ir), 0);
	assert_int_equal(ipu_ir_ipus_per_replica(f->ir), 2);
	ipu_ir_relu(f->ir, f->x4);	/* on IPU 2 */
	assert_int_equal(ipu_ir_pop_ipu(f->ir), 0);
	assert_int_equal(ipu_ir_ipus_per_replica(f->ir), 3);
	assert_int_equal(ipu_ir_set_ipu(f->ir, t, 5), 0);
	assert_int_equal(ipu_ir_ipus_per_replica(f->ir), 6);
	assert_int_equal(ipu_ir_ipus_per_replica(NULL), 0);
}

static void test_by_ref_refusals(void **state)
{
	struct fx *f = *state;
	struct ipu_ir *ir = f->ir;
	ipu_graph g = ipu_ir_create_graph(ir, "upd");
	ipu_tensor a, c;
	static const float one[4] = { 1, 1, 1, 1 };

	c = ipu_ir_constant(ir, "k", IPU_DTYPE_FLOAT32, 1,
			    (const uint64_t[]){ 4 }, one);
	ir_expect_refused(ir, ipu_ir_graph_input_by_ref(ir, f->x4), -EINVAL,
			  "graph_input_by_ref: the main graph has no inputs");
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1,
			       (const uint64_t[]){ 4 });
	ir_expect_refused(ir, ipu_ir_graph_input_by_ref(ir, c), -EINVAL,
			  "'k' is not an input of graph 'upd'");
	assert_int_equal(ipu_ir_graph_input_by_ref(ir, a), 0);
	assert_int_equal(ipu_ir_assign(ir, a, ipu_ir_neg(ir, a)), 0);
	ipu_ir_pop_graph(ir);
	/* A constant cannot be updated through a reference either. */
	ir_expect_refused(ir, ipu_ir_call(ir, g, &c, 1, NULL, 0), -EINVAL,
			  "input 1 'k' is a constant, and graph 'upd' updates its input 'a'");
	assert_int_equal(ipu_ir_call(ir, g, (ipu_tensor[]){ ipu_ir_neg(ir, f->x4) },
				     1, NULL, 0), 0);
	ir_expect_refused(ir, ipu_ir_graph_input_by_ref(ir, a), -EINVAL,
			  "graph_input_by_ref: the main graph");
}

static void test_null_arguments(void **state)
{
	struct fx *f = *state;

	(void)f;
	assert_int_equal(ipu_ir_create_graph(NULL, "x").id, -EINVAL);
	assert_int_equal(ipu_ir_push_graph(NULL, f->body), -EINVAL);
	assert_int_equal(ipu_ir_pop_graph(NULL), -EINVAL);
	assert_int_equal(ipu_ir_push_ipu(NULL, 0), -EINVAL);
	assert_int_equal(ipu_ir_pop_ipu(NULL), -EINVAL);
	assert_int_equal(ipu_ir_call(NULL, f->body, NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(ipu_ir_repeat(NULL, f->body, 1, NULL, 0, NULL, 0),
			 -EINVAL);
	assert_int_equal(ipu_ir_main_graph(NULL).id, -EINVAL);
	assert_int_equal(ipu_ir_current_graph(NULL).id, -EINVAL);
	assert_int_equal(ipu_ir_graph_output(NULL, f->x4), -EINVAL);
	assert_int_equal(ipu_ir_set_ipu(NULL, f->x4, 0), -EINVAL);
	assert_int_equal(ipu_graph_error((ipu_graph){ 0 }), -EINVAL);
	assert_int_equal(ipu_graph_error((ipu_graph){ 3 }), 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, ir_fixture_teardown),
#define TABLE_CASE(name, call, err, what) T(test_##name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASES(TABLE_CASE)
		T(test_failed_call_fills_outputs_with_the_error)
		T(test_call_outputs_are_new_tensors_of_the_caller)
		T(test_repeat_carries_outputs)
		T(test_subgraphs_use_variables_and_call_others)
		T(test_ipus_per_replica_from_virtual_graph_ids)
		T(test_by_ref_refusals)
	T(test_null_arguments)
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
