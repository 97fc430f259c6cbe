// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_shape.c - TRANSPOSE (every permutation of 2, 3 and 4 axes),
 * SLICE (starts and steps on every axis), CONCAT (along every axis), for
 * elements of 1, 2 and 4 bytes, against index arithmetic done here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
			   IPU_DTYPE_INT8, IPU_DTYPE_BOOL };

/* Coordinates of element @i of @shape. */
static void coords(unsigned int ndim, const uint64_t *shape, uint64_t i,
		   uint64_t *c)
{
	unsigned int d;

	for (d = ndim; d-- > 0;) {
		c[d] = i % shape[d];
		i /= shape[d];
	}
}

/* Element index of coordinates @c in @shape. */
static uint64_t index_of(unsigned int ndim, const uint64_t *shape,
			 const uint64_t *c)
{
	uint64_t i = 0;
	unsigned int d;

	for (d = 0; d < ndim; d++)
		i = i * shape[d] + c[d];
	return i;
}

/* Distinct-looking values; for bool, both 0 and 1. */
static void fill(struct eb *b, uint32_t t, uint32_t seed)
{
	bool isbool = b->tensors[t].dtype == IPU_DTYPE_BOOL;

	eb_fill(b, 0, t, seed, isbool ? 0 : -100, isbool ? 2 : 100);
}

static void assert_same_elem(struct eb *b, uint32_t to, uint64_t oi,
			     uint32_t tx, uint64_t xi)
{
	size_t sz = ipu_dtype_size((int)b->tensors[to].dtype);

	if (memcmp((uint8_t *)eb_ptr(b, 0, to) + oi * sz,
		   (uint8_t *)eb_ptr(b, 0, tx) + xi * sz, sz))
		fail_msg("%s: out[%llu] is not x[%llu]",
			 ipu_dtype_name((int)b->tensors[to].dtype),
			 (unsigned long long)oi, (unsigned long long)xi);
}

static void check_transpose(int dt, unsigned int ndim, const uint64_t *shape,
			    const int64_t *perm)
{
	struct eb *b = eb_new(1, 1);
	uint64_t oshape[4], c[4], xc[4], i;
	uint32_t x, o;
	unsigned int d;

	for (d = 0; d < ndim; d++)
		oshape[d] = shape[perm[d]];
	x = eb_tensor(b, dt, shape, ndim);
	o = eb_tensor(b, dt, oshape, ndim);
	eb_op(b, IPU_OP_TRANSPOSE, EB_U32(o, x), perm, ndim);
	eb_alloc(b);
	fill(b, x, 11);
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < b->tensors[o].nelems; i++) {
		coords(ndim, oshape, i, c);
		for (d = 0; d < ndim; d++)
			xc[perm[d]] = c[d];
		assert_same_elem(b, o, i, x, index_of(ndim, shape, xc));
	}
	eb_free(b);
}

static void test_transpose_every_permutation(void **state)
{
	static const uint64_t shape[4] = { 2, 3, 4, 5 };
	int64_t p[4];
	size_t d;
	int n;

	(void)state;
	for (d = 0; d < N(dts); d++) {
		check_transpose(dts[d], 2, (const uint64_t[]){ 33, 17 },
				(const int64_t[]){ 1, 0 });
		for (n = 2; n <= 4; n++) {
			/* Every permutation of n axes, by counting in base n
			 * and keeping those with distinct digits. */
			int code, total = 1, k;

			for (k = 0; k < n; k++)
				total *= n;
			for (code = 0; code < total; code++) {
				unsigned int seen = 0;
				int c = code;

				for (k = 0; k < n; k++) {
					p[k] = c % n;
					c /= n;
					seen |= 1u << p[k];
				}
				if (seen == (1u << n) - 1)
					check_transpose(dts[d], (unsigned int)n,
							shape + 4 - n, p);
			}
		}
	}
}

static void check_slice(int dt, unsigned int ndim, const uint64_t *shape,
			const int64_t *start, const int64_t *step,
			const uint64_t *count)
{
	struct eb *b = eb_new(1, 1);
	uint64_t c[4], xc[4], i;
	int64_t params[8];
	unsigned int d;
	uint32_t x, o;

	for (d = 0; d < ndim; d++) {
		params[d] = start[d];
		params[ndim + d] = step[d];
	}
	x = eb_tensor(b, dt, shape, ndim);
	o = eb_tensor(b, dt, count, ndim);
	eb_op(b, IPU_OP_SLICE, EB_U32(o, x), params, 2 * ndim);
	eb_alloc(b);
	fill(b, x, 5);
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < b->tensors[o].nelems; i++) {
		coords(ndim, count, i, c);
		for (d = 0; d < ndim; d++)
			xc[d] = (uint64_t)start[d] + c[d] * (uint64_t)step[d];
		assert_same_elem(b, o, i, x, index_of(ndim, shape, xc));
	}
	eb_free(b);
}

static void test_slice_starts_and_steps(void **state)
{
	size_t d;

	(void)state;
	for (d = 0; d < N(dts); d++) {
		/* 1-D: every other element, from 1. */
		check_slice(dts[d], 1, (const uint64_t[]){ 10 },
			    (const int64_t[]){ 1 }, (const int64_t[]){ 2 },
			    (const uint64_t[]){ 5 });
		/* 2-D: a block, unit steps (runs stay contiguous). */
		check_slice(dts[d], 2, (const uint64_t[]){ 6, 7 },
			    (const int64_t[]){ 2, 1 }, (const int64_t[]){ 1, 1 },
			    (const uint64_t[]){ 3, 5 });
		/* 3-D: steps on every axis, the last element taken at the
		 * very end of each axis. */
		check_slice(dts[d], 3, (const uint64_t[]){ 5, 7, 9 },
			    (const int64_t[]){ 0, 1, 2 },
			    (const int64_t[]){ 2, 3, 3 },
			    (const uint64_t[]){ 3, 2, 3 });
		/* 4-D: a single element; and the whole tensor. */
		check_slice(dts[d], 4, (const uint64_t[]){ 2, 3, 4, 5 },
			    (const int64_t[]){ 1, 2, 3, 4 },
			    (const int64_t[]){ 5, 1, 7, 1 },
			    (const uint64_t[]){ 1, 1, 1, 1 });
		check_slice(dts[d], 4, (const uint64_t[]){ 2, 3, 4, 5 },
			    (const int64_t[]){ 0, 0, 0, 0 },
			    (const int64_t[]){ 1, 1, 1, 1 },
			    (const uint64_t[]){ 2, 3, 4, 5 });
	}
}

static void check_concat(int dt, unsigned int axis, unsigned int nin,
			 const uint64_t *sizes)
{
	static const uint64_t base[3] = { 2, 3, 4 };
	struct eb *b = eb_new(1, 1);
	uint64_t oshape[3], shape[3][3], c[3], i, at = 0;
	uint32_t ops[4];
	unsigned int k;

	memcpy(oshape, base, sizeof(oshape));
	oshape[axis] = 0;
	for (k = 0; k < nin; k++) {
		memcpy(shape[k], base, sizeof(base));
		shape[k][axis] = sizes[k];
		oshape[axis] += sizes[k];
		ops[1 + k] = eb_tensor(b, dt, shape[k], 3);
	}
	ops[0] = eb_tensor(b, dt, oshape, 3);
	eb_op(b, IPU_OP_CONCAT, ops, 1 + nin, EB_I64(axis));
	eb_alloc(b);
	for (k = 0; k < nin; k++)
		fill(b, ops[1 + k], 20 + k);
	assert_int_equal(eb_run(b), 0);
	for (k = 0; k < nin; k++) {
		for (i = 0; i < b->tensors[ops[1 + k]].nelems; i++) {
			coords(3, shape[k], i, c);
			c[axis] += at;
			assert_same_elem(b, ops[0], index_of(3, oshape, c),
					 ops[1 + k], i);
		}
		at += sizes[k];
	}
	eb_free(b);
}

static void test_concat_every_axis(void **state)
{
	unsigned int axis;
	size_t d;

	(void)state;
	for (d = 0; d < N(dts); d++)
		for (axis = 0; axis < 3; axis++) {
			check_concat(dts[d], axis, 2, (const uint64_t[]){ 1, 2 });
			check_concat(dts[d], axis, 3, (const uint64_t[]){ 3, 1, 2 });
			check_concat(dts[d], axis, 1, (const uint64_t[]){ 2 });
		}
}

static void test_shape_ops_defensive(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 4));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4, 3));
	uint32_t s = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 2));
	uint32_t c = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 5));

	(void)state;
	eb_alloc(b);
	/* Not a permutation; too few parameters. */
	eb_op(b, IPU_OP_TRANSPOSE, EB_U32(o, x), EB_I64(0, 0));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "perm"));
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_TRANSPOSE, EB_U32(o, x), EB_I64(1));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	/* A slice leaving x: 2 elements from 2 in steps of 2 on an axis of 4. */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_SLICE, EB_U32(s, x), EB_I64(0, 2, 1, 2));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "axis 1"));
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_SLICE, EB_U32(s, x), EB_I64(0, 0, 0, 1));
	assert_int_equal(eb_run_raw(b), -EINVAL); /* step 0 */
	/* Concat that does not fill the output, and one that overflows it. */
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_CONCAT, EB_U32(c, x), EB_I64(1));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_CONCAT, EB_U32(c, x, x), EB_I64(1));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	b->exe.num_instrs = 0;
	eb_op(b, IPU_OP_CONCAT, EB_U32(c, x), EB_I64(2));
	assert_int_equal(eb_run_raw(b), -EINVAL);
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transpose_every_permutation),
		cmocka_unit_test(test_slice_starts_and_steps),
		cmocka_unit_test(test_concat_every_axis),
		cmocka_unit_test(test_shape_ops_defensive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
