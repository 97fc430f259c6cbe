// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_ops.c - the IR's ops: shapes and dtypes inferred as NumPy and
 * PopXL would, and every mistake refused with a message naming the op, the
 * tensors and their shapes, after which the ir keeps working.
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

struct fx {
	struct ipu_ir *ir;
	ipu_tensor a, b, v, i, m, s, h, u8, w, wi, x, w5, ba, bb, big1, big2;
	ipu_graph g;
};

static ipu_tensor constant(struct ipu_ir *ir, const char *name,
			   enum ipu_dtype dt, size_t ndim, const uint64_t *shape)
{
	static const uint8_t zeros[4096];

	return ipu_ir_constant(ir, name, dt, ndim, shape, zeros);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct ipu_ir *ir;

	if (!f || ipu_ir_create("ops", &f->ir))
		return -1;
	ir = f->ir;
	f->a = constant(ir, "a", IPU_DTYPE_FLOAT32, 2, (uint64_t[]){ 2, 3 });
	f->b = constant(ir, "b", IPU_DTYPE_FLOAT32, 2, (uint64_t[]){ 3, 4 });
	f->v = constant(ir, "v", IPU_DTYPE_FLOAT32, 1, (uint64_t[]){ 3 });
	f->i = constant(ir, "i", IPU_DTYPE_INT32, 2, (uint64_t[]){ 2, 3 });
	f->m = constant(ir, "m", IPU_DTYPE_BOOL, 2, (uint64_t[]){ 2, 3 });
	f->s = constant(ir, "s", IPU_DTYPE_FLOAT32, 0, NULL);
	f->h = constant(ir, "h", IPU_DTYPE_FLOAT16, 2, (uint64_t[]){ 2, 3 });
	f->u8 = constant(ir, "u8", IPU_DTYPE_UINT8, 2, (uint64_t[]){ 2, 3 });
	f->x = constant(ir, "x", IPU_DTYPE_FLOAT32, 2, (uint64_t[]){ 4, 3 });
	f->w5 = constant(ir, "w5", IPU_DTYPE_FLOAT32, 2, (uint64_t[]){ 4, 5 });
	f->ba = constant(ir, "ba", IPU_DTYPE_FLOAT32, 3, (uint64_t[]){ 5, 2, 3 });
	f->bb = constant(ir, "bb", IPU_DTYPE_FLOAT32, 3, (uint64_t[]){ 7, 3, 4 });
	f->w = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 2,
			       (uint64_t[]){ 2, 3 }, NULL, NULL);
	f->wi = ipu_ir_variable(ir, "wi", IPU_DTYPE_INT32, 2,
				(uint64_t[]){ 2, 3 }, NULL, NULL);
	/* Huge shapes cost nothing as graph inputs: they hold no data. */
	f->g = ipu_ir_create_graph(ir, "huge");
	ipu_ir_push_graph(ir, f->g);
	f->big1 = ipu_ir_graph_input(ir, "big1", IPU_DTYPE_FLOAT32, 2,
				     (uint64_t[]){ 1ull << 31, 1 });
	f->big2 = ipu_ir_graph_input(ir, "big2", IPU_DTYPE_FLOAT32, 2,
				     (uint64_t[]){ 1, 1ull << 31 });
	ipu_ir_pop_graph(ir);
	if (ipu_tensor_error(f->big2) || ipu_tensor_error(f->wi)) {
		ipu_ir_destroy(ir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* After a refused op the ir still builds. */
static void assert_still_usable(struct fx *f)
{
	ipu_tensor t = ipu_ir_add(f->ir, f->a, f->a);

	assert_int_equal(ipu_tensor_error(t), 0);
}

static void expect_error(struct fx *f, int got, int err, const char *what)
{
	ir_expect_refused(f->ir, got, err, what);
	assert_still_usable(f);
}

/* Handles carry the error in .id; int calls return it. */
#define E(t) ((t).id)

static const int perm1[1] = { 0 }, perm00[2] = { 0, 0 }, perm02[2] = { 0, 2 };
static const int64_t shape42[2] = { 4, 2 }, shape_mm[2] = { -1, -1 },
		     shape4m[2] = { 4, -1 }, shape06[2] = { 0, 6 },
		     shape9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 6 };
static const int64_t two[1] = { 2 }, zero[1] = { 0 }, three[2] = { 0, 0 };
static const int axes00[2] = { 0, 0 }, axis5[1] = { 5 };

/* (name, call, errno, part of the message) */
#define CASES(X_)                                                                 \
	X_(add_dtypes_differ, E(ipu_ir_add(f->ir, f->a, f->i)), -EINVAL,          \
	   "add: 'a' is float32 and 'i' is int32: dtypes differ")                 \
	X_(add_shapes_do_not_broadcast, E(ipu_ir_add(f->ir, f->a, f->b)), -EINVAL, \
	   "add: 'a' [2, 3] and 'b' [3, 4]: shapes do not broadcast (3 and 4)")   \
	X_(sub_on_bool, E(ipu_ir_sub(f->ir, f->m, f->m)), -EINVAL,                \
	   "sub: 'm' is bool: sub takes numeric tensors (bool supports only data movement and cast)") \
	X_(mul_shapes_do_not_broadcast, E(ipu_ir_mul(f->ir, f->x, f->a)), -EINVAL, \
	   "mul: 'x' [4, 3] and 'a' [2, 3]: shapes do not broadcast (4 and 2)")   \
	X_(div_dtypes_differ, E(ipu_ir_div(f->ir, f->h, f->a)), -EINVAL,          \
	   "div: 'h' is float16 and 'a' is float32: dtypes differ")               \
	X_(neg_on_bool, E(ipu_ir_neg(f->ir, f->m)), -EINVAL,                      \
	   "neg: 'm' is bool: neg takes numeric tensors")                         \
	X_(abs_on_bool, E(ipu_ir_abs(f->ir, f->m)), -EINVAL,                      \
	   "abs: 'm' is bool")                                                    \
	X_(relu_on_bool, E(ipu_ir_relu(f->ir, f->m)), -EINVAL,                    \
	   "relu: 'm' is bool")                                                   \
	X_(gelu_on_integer, E(ipu_ir_gelu(f->ir, f->i)), -EINVAL,                 \
	   "gelu: 'i' is int32: gelu takes floating-point tensors")               \
	X_(tanh_on_integer, E(ipu_ir_tanh(f->ir, f->u8)), -EINVAL,                \
	   "tanh: 'u8' is uint8: tanh takes floating-point tensors")              \
	X_(sigmoid_on_bool, E(ipu_ir_sigmoid(f->ir, f->m)), -EINVAL,              \
	   "sigmoid: 'm' is bool: sigmoid takes floating-point tensors")          \
	X_(exp_on_integer, E(ipu_ir_exp(f->ir, f->i)), -EINVAL,                   \
	   "exp: 'i' is int32: exp takes floating-point tensors")                 \
	X_(log_on_integer, E(ipu_ir_log(f->ir, f->i)), -EINVAL,                   \
	   "log: 'i' is int32")                                                   \
	X_(sqrt_on_integer, E(ipu_ir_sqrt(f->ir, f->i)), -EINVAL,                 \
	   "sqrt: 'i' is int32")                                                  \
	X_(matmul_inner_dimensions_differ, E(ipu_ir_matmul(f->ir, f->x, f->w5)),  \
	   -EINVAL, "matmul: 'x' [4, 3] and 'w5' [4, 5]: inner dimensions 3 and 4 differ") \
	X_(matmul_of_a_vector, E(ipu_ir_matmul(f->ir, f->v, f->b)), -EINVAL,      \
	   "matmul: 'v' [3] and 'b' [3, 4]: operands need at least 2 dimensions") \
	X_(matmul_batch_dimensions_differ, E(ipu_ir_matmul(f->ir, f->ba, f->bb)), \
	   -EINVAL, "matmul: 'ba' [5, 2, 3] and 'bb' [7, 3, 4]: batch dimensions do not broadcast") \
	X_(matmul_dtypes_differ, E(ipu_ir_matmul(f->ir, f->i, f->b)), -EINVAL,    \
	   "matmul: 'i' is int32 and 'b' is float32: dtypes differ")              \
	X_(matmul_on_bool, E(ipu_ir_matmul(f->ir, f->m, f->m)), -EINVAL,          \
	   "matmul: 'm' is bool")                                                 \
	X_(transpose_permutation_too_short,                                       \
	   E(ipu_ir_transpose(f->ir, f->a, perm1, 1)), -EINVAL,                   \
	   "transpose: a permutation of 1 axes for 'a', which has 2")             \
	X_(transpose_permutation_repeats,                                         \
	   E(ipu_ir_transpose(f->ir, f->a, perm00, 2)), -EINVAL,                  \
	   "transpose: perm[1] = 0 repeats an axis")                              \
	X_(transpose_axis_out_of_range,                                           \
	   E(ipu_ir_transpose(f->ir, f->a, perm02, 2)), -EINVAL,                  \
	   "transpose: axis 2 is not an axis of 'a' [2, 3]")                      \
	X_(reshape_element_counts_differ,                                         \
	   E(ipu_ir_reshape(f->ir, f->a, shape42, 2)), -EINVAL,                   \
	   "reshape: 'a' [2, 3] cannot become [4, 2]: element counts differ")     \
	X_(reshape_two_unknown_dimensions,                                        \
	   E(ipu_ir_reshape(f->ir, f->a, shape_mm, 2)), -EINVAL,                  \
	   "reshape: 'a' [2, 3]: dimension 1 of the new shape is -1")             \
	X_(reshape_unknown_does_not_divide,                                       \
	   E(ipu_ir_reshape(f->ir, f->a, shape4m, 2)), -EINVAL,                   \
	   "reshape: 'a' [2, 3]: 6 elements do not divide into the new shape")    \
	X_(reshape_zero_dimension, E(ipu_ir_reshape(f->ir, f->a, shape06, 2)),    \
	   -EINVAL, "dimension 0 of the new shape is 0")                          \
	X_(reshape_too_many_dimensions,                                           \
	   E(ipu_ir_reshape(f->ir, f->a, shape9, 9)), -EINVAL,                    \
	   "a new shape of 9 dimensions (at most 8)")                             \
	X_(slice_is_empty, E(ipu_ir_slice(f->ir, f->a, 1, two, two, NULL, NULL)), \
	   -EINVAL, "slice: axis 0 of 'a' (size 2): [2:2:1] is empty")            \
	X_(slice_step_zero, E(ipu_ir_slice(f->ir, f->a, 1, NULL, NULL, zero, NULL)), \
	   -EINVAL, "slice: axis 0 of 'a': step 0, only steps >= 1")              \
	X_(slice_axis_twice,                                                      \
	   E(ipu_ir_slice(f->ir, f->a, 2, three, NULL, NULL, axes00)), -EINVAL,   \
	   "slice: axis 0 of 'a' is sliced twice")                                \
	X_(slice_more_axes_than_tensor,                                           \
	   E(ipu_ir_slice(f->ir, f->a, 3, NULL, NULL, NULL, NULL)), -EINVAL,      \
	   "slice: 3 axes for 'a', which has 2")                                  \
	X_(slice_axis_out_of_range,                                               \
	   E(ipu_ir_slice(f->ir, f->a, 1, NULL, NULL, NULL, axis5)), -EINVAL,     \
	   "slice: axis 5 is not an axis of 'a' [2, 3]")                          \
	X_(concat_without_inputs, E(ipu_ir_concat(f->ir, NULL, 0, 0)), -EINVAL,   \
	   "concat: no inputs")                                                   \
	X_(concat_dtypes_differ,                                                  \
	   E(ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, f->h }, 2, 0)), -EINVAL,  \
	   "concat: 'a' is float32 and 'h' is float16: dtypes differ")            \
	X_(concat_shapes_differ,                                                  \
	   E(ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, f->b }, 2, 0)), -EINVAL,  \
	   "concat: 'a' [2, 3] and 'b' [3, 4]: shapes differ outside axis 0")     \
	X_(concat_ranks_differ,                                                   \
	   E(ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, f->ba }, 2, 0)), -EINVAL, \
	   "shapes differ outside axis 0")                                        \
	X_(concat_axis_out_of_range,                                              \
	   E(ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, f->a }, 2, 2)), -EINVAL,  \
	   "concat: axis 2 is not an axis of 'a' [2, 3]")                         \
	X_(concat_failed_input,                                                   \
	   E(ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, { -ENOMEM } }, 2, 0)),    \
	   -EINVAL, "concat: input 2 is the result of a failed call (Cannot allocate memory)") \
	X_(reduce_axis_out_of_range,                                              \
	   E(ipu_ir_reduce_sum(f->ir, f->a, axis5, 1, false)), -EINVAL,           \
	   "reduce_sum: axis 5 is not an axis of 'a' [2, 3]")                     \
	X_(reduce_axis_twice, E(ipu_ir_reduce_max(f->ir, f->a, axes00, 2, true)), \
	   -EINVAL, "reduce_max: axis 0 of 'a' is named twice")                   \
	X_(reduce_axes_without_array,                                             \
	   E(ipu_ir_reduce_sum(f->ir, f->a, NULL, 2, false)), -EINVAL,            \
	   "reduce_sum: 2 axes, but no array")                                    \
	X_(reduce_mean_on_integer,                                                \
	   E(ipu_ir_reduce_mean(f->ir, f->i, NULL, 0, false)), -EINVAL,           \
	   "reduce_mean: 'i' is int32: reduce_mean takes floating-point tensors") \
	X_(reduce_sum_on_bool, E(ipu_ir_reduce_sum(f->ir, f->m, NULL, 0, false)), \
	   -EINVAL, "reduce_sum: 'm' is bool")                                    \
	X_(softmax_on_integer, E(ipu_ir_softmax(f->ir, f->i, -1)), -EINVAL,       \
	   "softmax: 'i' is int32: softmax takes floating-point tensors")         \
	X_(softmax_axis_out_of_range, E(ipu_ir_softmax(f->ir, f->a, 2)), -EINVAL, \
	   "softmax: axis 2 is not an axis of 'a' [2, 3]")                        \
	X_(log_softmax_of_scalar, E(ipu_ir_log_softmax(f->ir, f->s, -1)), -EINVAL, \
	   "log_softmax: axis -1 is not an axis of 's' []")                       \
	X_(cast_to_host_dtype, E(ipu_ir_cast(f->ir, f->a, IPU_DTYPE_FLOAT64)),    \
	   -EINVAL, "cast: 'a' to dtype 10 (float64), which is not a device dtype") \
	X_(cast_to_invalid_dtype, E(ipu_ir_cast(f->ir, f->a, IPU_DTYPE_INVALID)), \
	   -EINVAL, "cast: 'a' to dtype 0 (invalid)")                             \
	X_(scaled_add_on_constant,                                                \
	   ipu_ir_scaled_add_inplace(f->ir, f->a, f->a, 1, 1), -EINVAL,           \
	   "scaled_add_inplace: 'a' is a constant: constants are not updated in place") \
	X_(scaled_add_on_integer_variable,                                        \
	   ipu_ir_scaled_add_inplace(f->ir, f->wi, f->i, 1, 1), -EINVAL,          \
	   "scaled_add_inplace: 'wi' is int32: scaled_add_inplace takes floating-point tensors") \
	X_(scaled_add_shapes_differ,                                              \
	   ipu_ir_scaled_add_inplace(f->ir, f->w, f->s, 1, 1), -EINVAL,           \
	   "scaled_add_inplace: 'w' [2, 3] and 's' []: shapes differ")            \
	X_(scaled_add_dtypes_differ,                                              \
	   ipu_ir_scaled_add_inplace(f->ir, f->w, f->h, 1, 1), -EINVAL,           \
	   "scaled_add_inplace: 'w' is float32 and 'h' is float16: dtypes differ") \
	X_(assign_to_constant, ipu_ir_assign(f->ir, f->a, f->a), -EINVAL,         \
	   "assign: 'a' is a constant")                                           \
	X_(assign_shapes_differ, ipu_ir_assign(f->ir, f->w, f->x), -EINVAL,       \
	   "assign: 'w' [2, 3] and 'x' [4, 3]: shapes differ")                    \
	X_(assign_dtypes_differ, ipu_ir_assign(f->ir, f->w, f->i), -EINVAL,       \
	   "assign: 'w' is float32 and 'i' is int32: dtypes differ")              \
	X_(all_reduce_on_bool,                                                    \
	   E(ipu_ir_all_reduce(f->ir, f->m, IPU_IR_ALL_REDUCE_SUM, NULL)), -EINVAL, \
	   "all_reduce: 'm' is bool")                                             \
	X_(all_reduce_mean_on_integer,                                            \
	   E(ipu_ir_all_reduce(f->ir, f->i, IPU_IR_ALL_REDUCE_MEAN, NULL)),       \
	   -EINVAL, "all_reduce: 'i' is int32: all_reduce takes floating-point")  \
	X_(all_reduce_unknown_reduction,                                          \
	   E(ipu_ir_all_reduce(f->ir, f->a, 7, NULL)), -EINVAL,                   \
	   "all_reduce: mode 7 is neither sum (0) nor mean (1)")                  \
	X_(all_reduce_grouping_too_big,                                           \
	   E(ipu_ir_all_reduce(f->ir, f->a, IPU_IR_ALL_REDUCE_SUM,                \
			       &(struct ipu_replica_grouping){ .stride = 1,          \
							 .group_size = 2 })), \
	   -EINVAL,                                                               \
	   "all_reduce: 'a': replica grouping stride 1, group_size 2: the replication factor 1 is not a multiple") \
	X_(input_from_failed_call, E(ipu_ir_relu(f->ir, (ipu_tensor){ -EINVAL })), \
	   -EINVAL, "relu: input 1 is the result of a failed call (Invalid argument)") \
	X_(input_uninitialised, E(ipu_ir_exp(f->ir, (ipu_tensor){ 0 })), -EINVAL, \
	   "exp: input 1 is an uninitialised tensor handle")                      \
	X_(input_from_elsewhere, E(ipu_ir_add(f->ir, f->a, (ipu_tensor){ 9999 })), \
	   -EINVAL, "add: input 2: no tensor 9999 in this ir")                    \
	X_(input_of_another_graph, E(ipu_ir_neg(f->ir, f->big1)), -EINVAL,        \
	   "neg: 'big1' belongs to graph 'huge', not to the current graph 'main'") \
	X_(output_too_large, E(big_add(f)), -EINVAL,                              \
	   "add: the output [2147483648, 2147483648] is too large")

static ipu_tensor big_add(struct fx *f)
{
	ipu_tensor t;

	ipu_ir_push_graph(f->ir, f->g);
	t = ipu_ir_add(f->ir, f->big1, f->big2);
	ipu_ir_pop_graph(f->ir);
	return t;
}

#define DEFINE_CASE(name, call, err, what)       \
	static void test_##name(void **state)    \
	{                                        \
		struct fx *f = *state;           \
		expect_error(f, call, err, what); \
	}
CASES(DEFINE_CASE)

/* ---------------------------------------------------------------------- */
/* What the ops infer                                                      */
/* ---------------------------------------------------------------------- */

static void expect_shape(struct fx *f, ipu_tensor t, enum ipu_dtype dt,
			 int ndim, const uint64_t *shape)
{
	uint64_t got[IPU_EXE_MAX_DIMS];

	if (ipu_tensor_error(t))
		fail_msg("%s", ipu_ir_errmsg(f->ir));
	assert_int_equal(ipu_ir_tensor_dtype(f->ir, t), dt);
	assert_int_equal(ipu_ir_tensor_shape(f->ir, t, got), ndim);
	assert_memory_equal(got, shape, ndim * sizeof(*shape));
	for (int d = ndim; d < IPU_EXE_MAX_DIMS; d++)
		assert_int_equal(got[d], 0);
}

static void test_binary_ops_broadcast(void **state)
{
	struct fx *f = *state;

	expect_shape(f, ipu_ir_add(f->ir, f->a, f->v), IPU_DTYPE_FLOAT32, 2,
		     SHAPE(2, 3));
	expect_shape(f, ipu_ir_sub(f->ir, f->s, f->ba), IPU_DTYPE_FLOAT32, 3,
		     SHAPE(5, 2, 3));
	expect_shape(f, ipu_ir_mul(f->ir, f->ba, f->a), IPU_DTYPE_FLOAT32, 3,
		     SHAPE(5, 2, 3));
	expect_shape(f, ipu_ir_div(f->ir, f->i, f->i), IPU_DTYPE_INT32, 2,
		     SHAPE(2, 3));
	expect_shape(f, ipu_ir_add(f->ir, f->s, f->s), IPU_DTYPE_FLOAT32, 0,
		     SHAPE(0));
}

static void test_unary_ops_keep_shape(void **state)
{
	struct fx *f = *state;
	ipu_tensor (*const numeric[])(struct ipu_ir *, ipu_tensor) = {
		ipu_ir_neg, ipu_ir_abs, ipu_ir_relu,
	};
	ipu_tensor (*const floats[])(struct ipu_ir *, ipu_tensor) = {
		ipu_ir_gelu, ipu_ir_tanh, ipu_ir_sigmoid, ipu_ir_exp,
		ipu_ir_log, ipu_ir_sqrt,
	};

	for (size_t k = 0; k < sizeof(numeric) / sizeof(numeric[0]); k++) {
		expect_shape(f, numeric[k](f->ir, f->u8), IPU_DTYPE_UINT8, 2,
			     SHAPE(2, 3));
		expect_shape(f, numeric[k](f->ir, f->i), IPU_DTYPE_INT32, 2,
			     SHAPE(2, 3));
	}
	for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++)
		expect_shape(f, floats[k](f->ir, f->h), IPU_DTYPE_FLOAT16, 2,
			     SHAPE(2, 3));
}

static void test_matmul_shapes(void **state)
{
	struct fx *f = *state;

	expect_shape(f, ipu_ir_matmul(f->ir, f->a, f->b), IPU_DTYPE_FLOAT32, 2,
		     SHAPE(2, 4));
	expect_shape(f, ipu_ir_matmul(f->ir, f->ba, f->b), IPU_DTYPE_FLOAT32,
		     3, SHAPE(5, 2, 4));
	expect_shape(f, ipu_ir_matmul(f->ir, f->a, f->bb), IPU_DTYPE_FLOAT32,
		     3, SHAPE(7, 2, 4));
}

static void test_matmul_broadcasts_batch_dimensions(void **state)
{
	struct fx *f = *state;
	ipu_tensor p = constant(f->ir, "p", IPU_DTYPE_FLOAT32, 4,
				SHAPE(6, 1, 2, 3));
	ipu_tensor q = constant(f->ir, "q", IPU_DTYPE_FLOAT32, 3,
				SHAPE(7, 3, 4));

	expect_shape(f, ipu_ir_matmul(f->ir, p, q), IPU_DTYPE_FLOAT32, 4,
		     SHAPE(6, 7, 2, 4));
}

static void test_shape_ops(void **state)
{
	struct fx *f = *state;
	static const int perm[3] = { -1, 0, 1 };
	static const int64_t rs[3] = { 3, -1, 5 };
	static const int64_t start[2] = { -2, 1 }, stop[2] = { 100, -1 },
			     step[2] = { 1, 2 };
	static const int axes[2] = { 0, 2 };

	expect_shape(f, ipu_ir_transpose(f->ir, f->ba, NULL, 0),
		     IPU_DTYPE_FLOAT32, 3, SHAPE(3, 2, 5));
	expect_shape(f, ipu_ir_transpose(f->ir, f->ba, perm, 3),
		     IPU_DTYPE_FLOAT32, 3, SHAPE(3, 5, 2));
	expect_shape(f, ipu_ir_reshape(f->ir, f->ba, rs, 3), IPU_DTYPE_FLOAT32,
		     3, SHAPE(3, 2, 5));
	expect_shape(f, ipu_ir_reshape(f->ir, f->s, NULL, 0), IPU_DTYPE_FLOAT32,
		     0, SHAPE(0));
	/* ba [5, 2, 3]: axis 0 [-2:100] -> 2, axis 2 [1:-1:2] -> 1 */
	expect_shape(f, ipu_ir_slice(f->ir, f->ba, 2, start, stop, step, axes),
		     IPU_DTYPE_FLOAT32, 3, SHAPE(2, 2, 1));
	expect_shape(f, ipu_ir_concat(f->ir, (ipu_tensor[]){ f->a, f->a, f->a },
				      3, -1),
		     IPU_DTYPE_FLOAT32, 2, SHAPE(2, 9));
	expect_shape(f, ipu_ir_transpose(f->ir, f->m, NULL, 0), IPU_DTYPE_BOOL,
		     2, SHAPE(3, 2));
	expect_shape(f, ipu_ir_concat(f->ir, (ipu_tensor[]){ f->m }, 1, 0),
		     IPU_DTYPE_BOOL, 2, SHAPE(2, 3));
}

static void test_reductions(void **state)
{
	struct fx *f = *state;
	static const int last[1] = { -1 }, both[2] = { 2, 0 };

	expect_shape(f, ipu_ir_reduce_sum(f->ir, f->ba, NULL, 0, false),
		     IPU_DTYPE_FLOAT32, 0, SHAPE(0));
	expect_shape(f, ipu_ir_reduce_sum(f->ir, f->ba, NULL, 0, true),
		     IPU_DTYPE_FLOAT32, 3, SHAPE(1, 1, 1));
	expect_shape(f, ipu_ir_reduce_max(f->ir, f->i, last, 1, false),
		     IPU_DTYPE_INT32, 1, SHAPE(2));
	expect_shape(f, ipu_ir_reduce_mean(f->ir, f->ba, both, 2, true),
		     IPU_DTYPE_FLOAT32, 3, SHAPE(1, 2, 1));
	expect_shape(f, ipu_ir_reduce_mean(f->ir, f->ba, both, 2, false),
		     IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	expect_shape(f, ipu_ir_softmax(f->ir, f->ba, 1), IPU_DTYPE_FLOAT32, 3,
		     SHAPE(5, 2, 3));
	expect_shape(f, ipu_ir_log_softmax(f->ir, f->h, -1), IPU_DTYPE_FLOAT16,
		     2, SHAPE(2, 3));
}

static void test_cast_between_every_device_dtype(void **state)
{
	struct fx *f = *state;

	for (int from = 1; from < IPU_DTYPE_COUNT_; from++) {
		ipu_tensor x;
		char name[16];

		if (!ipu_dtype_on_device(from))
			continue;
		snprintf(name, sizeof(name), "from%d", from);
		x = constant(f->ir, name, from, 1, SHAPE(4));
		for (int to = 1; to < IPU_DTYPE_COUNT_; to++)
			if (ipu_dtype_on_device(to))
				expect_shape(f, ipu_ir_cast(f->ir, x, to), to,
					     1, SHAPE(4));
	}
}

static void test_updates_and_collectives(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ipu_ir_scaled_add_inplace(f->ir, f->w, f->a, 1, -0.1f),
			 0);
	assert_int_equal(ipu_ir_assign(f->ir, f->wi, f->i), 0);
	assert_int_equal(ipu_ir_assign(f->ir, f->w, ipu_ir_relu(f->ir, f->w)),
			 0);
	expect_shape(f, ipu_ir_all_reduce(f->ir, f->i, IPU_IR_ALL_REDUCE_SUM,
					  NULL),
		     IPU_DTYPE_INT32, 2, SHAPE(2, 3));
	expect_shape(f, ipu_ir_all_reduce(f->ir, f->w, IPU_IR_ALL_REDUCE_MEAN,
					  NULL),
		     IPU_DTYPE_FLOAT32, 2, SHAPE(2, 3));
}

static void test_chained_failure_reports_both(void **state)
{
	struct fx *f = *state;
	ipu_tensor y = ipu_ir_relu(f->ir, ipu_ir_matmul(f->ir, f->x, f->w5));

	assert_int_equal(ipu_tensor_error(y), -EINVAL);
	assert_non_null(strstr(ipu_ir_errmsg(f->ir),
			       "relu: input 1 is the result of a failed call"));
	assert_non_null(strstr(ipu_ir_errmsg(f->ir),
			       "matmul: 'x' [4, 3] and 'w5' [4, 5]: inner dimensions 3 and 4 differ"));
	assert_still_usable(f);
}

static void test_null_ir(void **state)
{
	struct fx *f = *state;

	assert_int_equal(E(ipu_ir_add(NULL, f->a, f->a)), -EINVAL);
	assert_int_equal(E(ipu_ir_relu(NULL, f->a)), -EINVAL);
	assert_int_equal(ipu_ir_assign(NULL, f->w, f->a), -EINVAL);
	assert_int_equal(E(ipu_ir_concat(NULL, &f->a, 1, 0)), -EINVAL);
	assert_string_equal(ipu_ir_errmsg(NULL), "no ir");
}

static void test_auto_names(void **state)
{
	struct fx *f = *state;
	ipu_tensor t = ipu_ir_matmul(f->ir, f->a, f->b);

	assert_non_null(strstr(ipu_ir_tensor_name(f->ir, t), "matmul."));
	assert_int_equal(ipu_ir_tensor_set_name(f->ir, t, "logits"), 0);
	assert_string_equal(ipu_ir_tensor_name(f->ir, t), "logits");
	assert_null(ipu_ir_tensor_name(f->ir, (ipu_tensor){ -1 }));
	assert_int_equal(ipu_ir_tensor_dtype(f->ir, (ipu_tensor){ 0 }),
			 IPU_DTYPE_INVALID);
	assert_int_equal(ipu_ir_tensor_shape(f->ir, (ipu_tensor){ 9999 }, NULL),
			 -EINVAL);
}

static void test_set_name_of_variable_refused(void **state)
{
	struct fx *f = *state;

	expect_error(f, ipu_ir_tensor_set_name(f->ir, f->w, "w2"), -EINVAL,
		     "set_name: 'w' is a variable: its name is its host key");
}

static void test_set_name_empty_refused(void **state)
{
	struct fx *f = *state;

	expect_error(f, ipu_ir_tensor_set_name(f->ir, ipu_ir_neg(f->ir, f->a),
					       ""),
		     -EINVAL, "set_name: a name is required");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, ir_fixture_teardown),
#define TABLE_CASE(name, call, err, what) T(test_##name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASES(TABLE_CASE)
		T(test_binary_ops_broadcast)
		T(test_unary_ops_keep_shape)
		T(test_matmul_shapes)
		T(test_matmul_broadcasts_batch_dimensions)
		T(test_shape_ops)
		T(test_reductions)
		T(test_cast_between_every_device_dtype)
		T(test_updates_and_collectives)
		T(test_chained_failure_reports_both)
		T(test_null_ir)
		T(test_auto_names)
		T(test_set_name_of_variable_refused)
		T(test_set_name_empty_refused)
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
