// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_reduce.c - REDUCE_SUM/MEAN/MAX over every set of axes of a 4-D
 * tensor, keepdims on and off, and SOFTMAX/LOG_SOFTMAX along every axis,
 * including inputs large enough to overflow a naive exp().
 *
 * Reductions are checked bit for bit: the reference sums in the order the
 * firmware promises (x's elements in row-major order, in double for
 * floats, int64 for integers) and rounds once.
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

static const uint64_t xshape[4] = { 2, 3, 4, 5 };

/* Output element that x's element @i reduces into, under @mask. */
static uint64_t out_index(uint64_t i, unsigned int mask)
{
	uint64_t c[4], o = 0;
	int d;

	for (d = 3; d >= 0; d--) {
		c[d] = i % xshape[d];
		i /= xshape[d];
	}
	for (d = 0; d < 4; d++)
		if (!(mask >> d & 1))
			o = o * xshape[d] + c[d];
	return o;
}

static void check_reduce(int dt, uint32_t op, unsigned int mask, bool keep)
{
	struct eb *b = eb_new(1, 1);
	uint64_t oshape[4], count = 1, i;
	double facc[120];
	int64_t iacc[120];
	unsigned int d, on = 0;
	bool isf = ipu_dtype_is_float(dt), unsig;
	uint32_t x, o;

	for (d = 0; d < 4; d++) {
		if (mask >> d & 1) {
			count *= xshape[d];
			if (keep)
				oshape[on++] = 1;
		} else {
			oshape[on++] = xshape[d];
		}
	}
	x = eb_tensor(b, dt, xshape, 4);
	o = eb_tensor(b, dt, oshape, on);
	eb_op(b, op, EB_U32(o, x), EB_I64(mask, keep));
	eb_alloc(b);
	unsig = dt == IPU_DTYPE_UINT8 || dt == IPU_DTYPE_UINT16 ||
		dt == IPU_DTYPE_UINT32;
	eb_fill(b, 0, x, mask * 2 + keep, unsig ? 0 : -100, unsig ? 256 : 100);
	assert_int_equal(eb_run(b), 0);

	for (i = 0; i < 120; i++) {
		facc[i] = op == IPU_OP_REDUCE_MAX ? -INFINITY : 0;
		iacc[i] = op == IPU_OP_REDUCE_MAX ? INT64_MIN : 0;
	}
	for (i = 0; i < 120; i++) {
		uint64_t oi = out_index(i, mask);
		double v = eb_get(b, 0, x, i);
		int64_t iv = eb_geti(b, 0, x, i);

		if (op == IPU_OP_REDUCE_MAX) {
			facc[oi] = v > facc[oi] ? v : facc[oi];
			iacc[oi] = iv > iacc[oi] ? iv : iacc[oi];
		} else {
			facc[oi] += v;
			iacc[oi] += iv;
		}
	}
	for (i = 0; i < b->tensors[o].nelems; i++) {
		if (op == IPU_OP_REDUCE_MEAN)
			facc[i] /= (double)count;
		if (isf ? !eb_same(b, 0, o, i, &facc[i], IPU_DTYPE_FLOAT64) :
			  !eb_same(b, 0, o, i, &iacc[i], IPU_DTYPE_INT64))
			fail_msg("%s %s mask %#x keepdims %d: out[%llu] = %g, want %g",
				 ipu_dtype_name(dt), ipu_exe_op_name(op), mask,
				 keep, (unsigned long long)i,
				 eb_get(b, 0, o, i), isf ? facc[i] : (double)iacc[i]);
	}
	eb_free(b);
}

static void test_reduce_every_axis_set_keepdims(void **state)
{
	static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				   IPU_DTYPE_BFLOAT16, IPU_DTYPE_INT32,
				   IPU_DTYPE_INT8, IPU_DTYPE_UINT8,
				   IPU_DTYPE_INT16, IPU_DTYPE_UINT16,
				   IPU_DTYPE_UINT32 };
	static const uint32_t ops[] = { IPU_OP_REDUCE_SUM, IPU_OP_REDUCE_MEAN,
					IPU_OP_REDUCE_MAX };
	unsigned int mask, keep;
	size_t d, o;

	(void)state;
	for (d = 0; d < N(dts); d++)
		for (o = 0; o < N(ops); o++) {
			if (ops[o] == IPU_OP_REDUCE_MEAN &&
			    !ipu_dtype_is_float(dts[d]))
				continue; /* float-only */
			for (mask = 0; mask < 16; mask++)
				for (keep = 0; keep < 2; keep++)
					check_reduce(dts[d], ops[o], mask, keep);
		}
}

/* max propagates NaN; a sum of float16 past 65504 is infinite. */
static void test_reduce_nan_and_overflow(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 3));
	uint32_t m = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2));
	uint32_t h = eb_tensor(b, IPU_DTYPE_FLOAT16, EB_SHAPE(3));
	uint32_t hs = eb_tensor(b, IPU_DTYPE_FLOAT16, EB_SCALAR);
	float *xv;
	int i;

	(void)state;
	eb_op(b, IPU_OP_REDUCE_MAX, EB_U32(m, x), EB_I64(2, 0));
	eb_op(b, IPU_OP_REDUCE_SUM, EB_U32(hs, h), EB_I64(1, 0));
	eb_alloc(b);
	xv = eb_ptr(b, 0, x);
	for (i = 0; i < 6; i++)
		xv[i] = (float)i;
	xv[1] = NAN;
	for (i = 0; i < 3; i++)
		eb_set(b, 0, h, (uint64_t)i, 30000);
	assert_int_equal(eb_run(b), 0);
	assert_true(isnan(eb_get(b, 0, m, 0)));
	assert_true(eb_get(b, 0, m, 1) == 5);
	assert_true(eb_get(b, 0, hs, 0) == INFINITY);
	eb_free(b);
}

static void check_softmax(int dt, uint32_t op, unsigned int axis, double scale)
{
	static const uint64_t shape[3] = { 3, 4, 5 };
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, dt, shape, 3);
	uint32_t o = eb_tensor(b, dt, shape, 3);
	uint64_t i, l, stride = 1, len = shape[axis];
	double tol = dt == IPU_DTYPE_FLOAT32 ? 1e-5 :
		     dt == IPU_DTYPE_FLOAT16 ? 2e-3 : 2e-2;
	unsigned int d;

	for (d = axis + 1; d < 3; d++)
		stride *= shape[d];
	eb_op(b, op, EB_U32(o, x), EB_I64(axis));
	eb_alloc(b);
	eb_fill(b, 0, x, 9 + axis, -scale, scale);
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < 60; i++) {
		/* The first element of i's line along the axis. */
		uint64_t first = i - (i / stride % len) * stride;
		double m = -INFINITY, s = 0, v = eb_get(b, 0, x, i), want;
		double got = eb_get(b, 0, o, i);

		for (l = 0; l < len; l++)
			m = fmax(m, eb_get(b, 0, x, first + l * stride));
		for (l = 0; l < len; l++)
			s += exp(eb_get(b, 0, x, first + l * stride) - m);
		want = op == IPU_OP_SOFTMAX ? exp(v - m) / s : v - m - log(s);
		if (!isfinite(got) || fabs(got - want) > tol * (1 + fabs(want)))
			fail_msg("%s %s axis %u scale %g: out[%llu] = %g, want %g",
				 ipu_dtype_name(dt), ipu_exe_op_name(op), axis,
				 scale, (unsigned long long)i, got, want);
	}
	eb_free(b);
}

static void test_softmax_every_axis_large_inputs(void **state)
{
	static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				   IPU_DTYPE_BFLOAT16 };
	unsigned int axis;
	size_t d;

	(void)state;
	for (d = 0; d < N(dts); d++)
		for (axis = 0; axis < 3; axis++) {
			check_softmax(dts[d], IPU_OP_SOFTMAX, axis, 3);
			check_softmax(dts[d], IPU_OP_LOG_SOFTMAX, axis, 3);
			/* exp(1000) overflows float and double alike. */
			check_softmax(dts[d], IPU_OP_SOFTMAX, axis,
				      dts[d] == IPU_DTYPE_FLOAT16 ? 30000 : 1000);
			check_softmax(dts[d], IPU_OP_LOG_SOFTMAX, axis,
				      dts[d] == IPU_DTYPE_FLOAT16 ? 30000 : 1000);
		}
}

/* All equal and huge: a uniform distribution, not NaN. */
static void test_softmax_saturated_rows(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 4));
	uint32_t p = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 4));
	uint32_t lp = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 4));
	float *xv;
	int i;

	(void)state;
	eb_op(b, IPU_OP_SOFTMAX, EB_U32(p, x), EB_I64(1));
	eb_op(b, IPU_OP_LOG_SOFTMAX, EB_U32(lp, x), EB_I64(1));
	eb_alloc(b);
	xv = eb_ptr(b, 0, x);
	for (i = 0; i < 4; i++) {
		xv[i] = 3e38f;
		xv[4 + i] = i == 2 ? 1e30f : -1e30f;
	}
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < 4; i++) {
		assert_true(((float *)eb_ptr(b, 0, p))[i] == 0.25f);
		assert_true(((float *)eb_ptr(b, 0, p))[4 + i] == (i == 2 ? 1.0f : 0.0f));
		assert_true(fabsf(((float *)eb_ptr(b, 0, lp))[i] + logf(4)) < 1e-6f);
	}
	assert_true(((float *)eb_ptr(b, 0, lp))[6] == 0.0f);
	assert_true(((float *)eb_ptr(b, 0, lp))[4] == -2e30f);
	eb_free(b);
}

static void test_reduce_defensive(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 4));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t i = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(3, 4));

	(void)state;
	eb_alloc(b);
	/* Axis 2 of a rank-2 tensor; an output of the wrong shape. */
	eb_op(b, IPU_OP_REDUCE_SUM, EB_U32(o, x), EB_I64(4, 0));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_REDUCE_SUM, EB_U32(o, x), EB_I64(2, 0));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "[3, 4] reduced over axes 0x2 is not [4]"));
	/* Mean of integers; softmax of integers; softmax axis out of range. */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_REDUCE_MEAN, EB_U32(o, i), EB_I64(1, 0));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_SOFTMAX, EB_U32(i, i), EB_I64(1));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_SOFTMAX, EB_U32(x, x), EB_I64(2));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reduce_every_axis_set_keepdims),
		cmocka_unit_test(test_reduce_nan_and_overflow),
		cmocka_unit_test(test_softmax_every_axis_large_inputs),
		cmocka_unit_test(test_softmax_saturated_rows),
		cmocka_unit_test(test_reduce_defensive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
