// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_matmul.c - MATMUL: plain and batched, batch dimensions
 * broadcast either way, every numeric dtype, against a triple loop here.
 * Floats are compared with a tolerance (BLAS sums in its own order);
 * integers exactly, wrapped to the output width.
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

static const struct {
	unsigned int na, nb, no;
	uint64_t a[4], b[4], o[4];
} shapes[] = {
	{ 2, 2, 2, { 1, 1 }, { 1, 1 }, { 1, 1 } },
	{ 2, 2, 2, { 3, 4 }, { 4, 5 }, { 3, 5 } },
	{ 2, 2, 2, { 17, 33 }, { 33, 9 }, { 17, 9 } },
	{ 4, 2, 4, { 2, 3, 4, 5 }, { 5, 6 }, { 2, 3, 4, 6 } }, /* b shared */
	{ 2, 3, 3, { 4, 5 }, { 3, 5, 2 }, { 3, 4, 2 } },	/* a shared */
	{ 4, 4, 4, { 2, 1, 3, 4 }, { 1, 3, 4, 2 }, { 2, 3, 3, 2 } },
	{ 3, 3, 3, { 4, 2, 3 }, { 4, 3, 2 }, { 4, 2, 2 } },
	{ 3, 4, 4, { 3, 2, 7 }, { 2, 1, 7, 1 }, { 2, 3, 2, 1 } },
};

/* Offset of matrix @bi (a linear index over out's batch dims) in @t. */
static uint64_t mat_index(const struct ipu_exe_tensor *t,
			  const struct ipu_exe_tensor *out, uint64_t bi)
{
	struct ipu_exe_tensor batch = *t;

	/* A tensor of just t's batch dims, broadcast against out's. */
	batch.ndim = t->ndim - 2;
	return eb_bcast(&batch, out->ndim - 2, out->shape, bi);
}

static double tolerance(int dt, double want, double mag)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT32: return 1e-5 * mag + 1e-30;
	case IPU_DTYPE_FLOAT16: return 0x1p-10 * fabs(want) + 1e-5 * mag + 0x1p-24;
	case IPU_DTYPE_BFLOAT16: return 0x1p-7 * fabs(want) + 1e-5 * mag;
	case IPU_DTYPE_FLOAT8_143: return 0x1p-3 * fabs(want) + 1e-5 * mag + 0x1p-10;
	default: return 0x1p-2 * fabs(want) + 1e-5 * mag + 0x1p-17;
	}
}

static void check_matmul(int dt, size_t s)
{
	struct eb *b = eb_new(1, 1);
	uint32_t ta = eb_tensor(b, dt, shapes[s].a, shapes[s].na);
	uint32_t tb = eb_tensor(b, dt, shapes[s].b, shapes[s].nb);
	uint32_t to = eb_tensor(b, dt, shapes[s].o, shapes[s].no);
	const struct ipu_exe_tensor *A = &b->tensors[ta], *B = &b->tensors[tb];
	const struct ipu_exe_tensor *O = &b->tensors[to];
	uint64_t m = O->shape[O->ndim - 2], n = O->shape[O->ndim - 1];
	uint64_t k = A->shape[A->ndim - 1], nbat = O->nelems / (m * n);
	bool isf = ipu_dtype_is_float(dt);
	uint64_t bi, i, j, l;

	eb_op(b, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(b);
	if (!ipu_dtype_is_float(dt) && dt != IPU_DTYPE_INT32 &&
	    dt != IPU_DTYPE_INT8 && dt != IPU_DTYPE_INT16) { /* unsigned */
		eb_fill(b, 0, ta, 3 + (uint32_t)s, 0, 256);
		eb_fill(b, 0, tb, 4 + (uint32_t)s, 0, 256);
	} else {
		eb_fill(b, 0, ta, 3 + (uint32_t)s, isf ? -2 : -100, isf ? 2 : 100);
		eb_fill(b, 0, tb, 4 + (uint32_t)s, isf ? -2 : -100, isf ? 2 : 100);
	}
	assert_int_equal(eb_run(b), 0);

	for (bi = 0; bi < nbat; bi++) {
		uint64_t ao = mat_index(A, O, bi) * m * k;
		uint64_t bo = mat_index(B, O, bi) * k * n;

		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++) {
				uint64_t oi = bi * m * n + i * n + j;
				double want = 0, mag = 0;
				int64_t iwant = 0;

				for (l = 0; l < k; l++) {
					double x = eb_get(b, 0, ta, ao + i * k + l);
					double y = eb_get(b, 0, tb, bo + l * n + j);

					want += x * y;
					mag += fabs(x * y);
					iwant += eb_geti(b, 0, ta, ao + i * k + l) *
						 eb_geti(b, 0, tb, bo + l * n + j);
				}
				if (!isf) {
					if (!eb_same(b, 0, to, oi, &iwant, IPU_DTYPE_INT64))
						fail_msg("%s shapes %zu: out[%llu] = %lld, want %lld wrapped",
							 ipu_dtype_name(dt), s,
							 (unsigned long long)oi,
							 (long long)eb_geti(b, 0, to, oi),
							 (long long)iwant);
				} else if (!(fabs(eb_get(b, 0, to, oi) - want) <=
					     tolerance(dt, want, mag))) {
					fail_msg("%s shapes %zu: out[%llu] = %g, want %g",
						 ipu_dtype_name(dt), s,
						 (unsigned long long)oi,
						 eb_get(b, 0, to, oi), want);
				}
			}
	}
	eb_free(b);
}

static void test_matmul_every_dtype_and_batch_broadcast(void **state)
{
	static const int dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				   IPU_DTYPE_BFLOAT16, IPU_DTYPE_FLOAT8_143,
				   IPU_DTYPE_FLOAT8_152, IPU_DTYPE_INT32,
				   IPU_DTYPE_INT8, IPU_DTYPE_UINT8,
				   IPU_DTYPE_INT16, IPU_DTYPE_UINT16,
				   IPU_DTYPE_UINT32 };
	size_t d, s;

	(void)state;
	for (d = 0; d < N(dts); d++)
		for (s = 0; s < N(shapes); s++)
			check_matmul(dts[d], s);
}

/* int32 products past 2^31 and sums past 2^63 wrap, exactly. */
static void test_matmul_int32_wraps_exactly(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t ta = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(1, 4));
	uint32_t tb = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(4, 1));
	uint32_t to = eb_tensor(b, IPU_DTYPE_INT32, EB_SHAPE(1, 1));
	int32_t *a, *c;
	uint64_t want = 0;
	int i;

	(void)state;
	eb_op(b, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(b);
	a = eb_ptr(b, 0, ta);
	c = eb_ptr(b, 0, tb);
	for (i = 0; i < 4; i++) {
		a[i] = INT32_MAX - i;
		c[i] = INT32_MIN + 3 * i;
		want += (uint64_t)((int64_t)a[i] * c[i]);
	}
	assert_int_equal(eb_run(b), 0);
	assert_int_equal(*(int32_t *)eb_ptr(b, 0, to), (int32_t)(uint32_t)want);
	eb_free(b);
}

/* Float32 runs on the arena in place: the same bits as sgemm over the
 * same memory would give, and a second run gives the same bits. */
static void test_matmul_f32_deterministic(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t ta = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 64, 70));
	uint32_t tb = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(70, 50));
	uint32_t to = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 64, 50));
	float *first = malloc(3 * 64 * 50 * sizeof(float));

	(void)state;
	eb_op(b, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(b);
	eb_fill(b, 0, ta, 1, -1, 1);
	eb_fill(b, 0, tb, 2, -1, 1);
	assert_int_equal(eb_run(b), 0);
	memcpy(first, eb_ptr(b, 0, to), 3 * 64 * 50 * sizeof(float));
	memset(eb_ptr(b, 0, to), 0, 3 * 64 * 50 * sizeof(float));
	assert_int_equal(eb_run(b), 0);
	assert_memory_equal(first, eb_ptr(b, 0, to), 3 * 64 * 50 * sizeof(float));
	free(first);
	eb_free(b);
}

/* Replicas call BLAS from their threads at the same time: each gets its
 * own product, the one a single replica computes. */
static void test_matmul_concurrent_replicas(void **state)
{
	const uint32_t reps = 4;
	struct eb *b = eb_new(reps, 1);
	uint32_t ta = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(96, 80));
	uint32_t tb = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(80, 112));
	uint32_t to = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(96, 112));
	struct eb *one = eb_new(1, 1);
	uint32_t r;

	(void)state;
	eb_op(b, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(b);
	/* The same program on one replica, for the expected bits. */
	eb_tensor(one, IPU_DTYPE_FLOAT32, EB_SHAPE(96, 80));
	eb_tensor(one, IPU_DTYPE_FLOAT32, EB_SHAPE(80, 112));
	eb_tensor(one, IPU_DTYPE_FLOAT32, EB_SHAPE(96, 112));
	eb_op(one, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(one);
	for (r = 0; r < reps; r++) {
		eb_fill(b, r, ta, 10 + r, -1, 1);
		eb_fill(b, r, tb, 20 + r, -1, 1);
	}
	assert_int_equal(eb_run(b), 0);
	for (r = 0; r < reps; r++) {
		memcpy(eb_ptr(one, 0, ta), eb_ptr(b, r, ta), b->tensors[ta].nbytes);
		memcpy(eb_ptr(one, 0, tb), eb_ptr(b, r, tb), b->tensors[tb].nbytes);
		assert_int_equal(eb_run(one), 0);
		assert_memory_equal(eb_ptr(one, 0, to), eb_ptr(b, r, to),
				    b->tensors[to].nbytes);
	}
	eb_free(one);
	eb_free(b);
}

static void test_matmul_defensive_shapes(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t ta = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 4));
	uint32_t tb = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5, 2));
	uint32_t to = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 2));
	uint32_t v = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	(void)state;
	eb_op(b, IPU_OP_MATMUL, EB_U32(to, ta, tb), EB_NONE);
	eb_alloc(b);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "[3, 4] x [5, 2] into [3, 2]"));
	/* A vector is not a matrix. */
	b->instrs[0].op = IPU_OP_MATMUL;
	b->operands[1] = v;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matmul_every_dtype_and_batch_broadcast),
		cmocka_unit_test(test_matmul_int32_wraps_exactly),
		cmocka_unit_test(test_matmul_f32_deterministic),
		cmocka_unit_test(test_matmul_concurrent_replicas),
		cmocka_unit_test(test_matmul_defensive_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
