// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_elementwise.c - the executor's elementwise ops, cast, reshape
 * and copy, against a plain reference computed here: floats in float32
 * rounded to the output dtype, integers in int64 wrapped to the output
 * width, NumPy broadcasting.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

static const int float_dts[] = { IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT16,
				 IPU_DTYPE_BFLOAT16, IPU_DTYPE_FLOAT8_143,
				 IPU_DTYPE_FLOAT8_152 };
static const int int_dts[] = { IPU_DTYPE_INT32, IPU_DTYPE_INT8,
			       IPU_DTYPE_UINT8, IPU_DTYPE_INT16,
			       IPU_DTYPE_UINT16, IPU_DTYPE_UINT32 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Input shapes a, b and the output shape they broadcast to. */
static const struct {
	unsigned int na, nb, no;
	uint64_t a[4], b[4], o[4];
} shapes[] = {
	{ 2, 2, 2, { 3, 5 }, { 3, 5 }, { 3, 5 } },	    /* same */
	{ 3, 2, 3, { 2, 3, 4 }, { 3, 1 }, { 2, 3, 4 } },    /* b inner 1 */
	{ 2, 0, 2, { 4, 3 }, { 0 }, { 4, 3 } },	    /* b scalar */
	{ 2, 2, 2, { 1, 4 }, { 3, 1 }, { 3, 4 } },	    /* both */
	{ 3, 1, 3, { 2, 1, 1500 }, { 1500 }, { 2, 1, 1500 } }, /* > a chunk */
	{ 1, 3, 3, { 1 }, { 2, 2, 2 }, { 2, 2, 2 } },	    /* a broadcast */
};

static float ref_f32(uint32_t op, float x, float y)
{
	switch (op) {
	case IPU_OP_ADD: return x + y;
	case IPU_OP_SUB: return x - y;
	case IPU_OP_MUL: return x * y;
	case IPU_OP_DIV: return x / y;
	case IPU_OP_NEG: return -x;
	case IPU_OP_ABS: return fabsf(x);
	case IPU_OP_RELU: return x < 0 ? 0.0f : x;
	}
	return NAN;
}

/* Integer reference: exact in int64 (inputs are at most 32 bits), the
 * output wraps; division truncates and x / 0 is 0. */
static int64_t ref_i64(uint32_t op, int64_t x, int64_t y)
{
	switch (op) {
	case IPU_OP_ADD: return x + y;
	case IPU_OP_SUB: return x - y;
	case IPU_OP_MUL: return x * y;
	case IPU_OP_DIV: return y ? x / y : 0;
	case IPU_OP_NEG: return -x;
	case IPU_OP_ABS: return x < 0 ? -x : x;
	case IPU_OP_RELU: return x < 0 ? 0 : x;
	}
	return 0;
}

/* Transcendental ops: reference in double, compared with a tolerance
 * (libm's float and double functions differ in the last bits). */
static double ref_math(uint32_t op, double x)
{
	switch (op) {
	case IPU_OP_GELU:
		return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) *
					     (x + 0.044715 * x * x * x)));
	case IPU_OP_TANH: return tanh(x);
	case IPU_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
	case IPU_OP_EXP: return exp(x);
	case IPU_OP_LOG: return log(x);
	case IPU_OP_SQRT: return sqrt(x);
	}
	return NAN;
}

/* How far a float32 result rounded to @dt may be from the exact @want:
 * relative precision, and the smallest subnormal near zero. */
static double tolerance(int dt, double want)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT16: return 0x1p-10 * fabs(want) + 0x1p-24;
	case IPU_DTYPE_BFLOAT16: return 0x1p-7 * fabs(want) + 0x1p-126;
	case IPU_DTYPE_FLOAT8_143: return 0x1p-3 * fabs(want) + 0x1p-10;
	case IPU_DTYPE_FLOAT8_152: return 0x1p-2 * fabs(want) + 0x1p-17;
	default: return 0x1p-17 * fabs(want) + 1e-30;
	}
}

/* Run @op on inputs of @dt in shape set @s; check every element. */
static void check_op(int dt, uint32_t op, unsigned int nin, size_t s)
{
	struct eb *b = eb_new(1, 1);
	bool isf = ipu_dtype_is_float(dt);
	uint32_t x, y = 0, out;
	double lo, hi;
	uint64_t i;

	x = eb_tensor(b, dt, shapes[s].a, shapes[s].na);
	if (nin == 2)
		y = eb_tensor(b, dt, shapes[s].b, shapes[s].nb);
	out = eb_tensor(b, dt, nin == 2 ? shapes[s].o : shapes[s].a,
			nin == 2 ? shapes[s].no : shapes[s].na);
	if (nin == 2)
		eb_op(b, op, EB_U32(out, x, y), EB_NONE);
	else
		eb_op(b, op, EB_U32(out, x), EB_NONE);
	eb_alloc(b);
	if (dt == IPU_DTYPE_UINT8 || dt == IPU_DTYPE_UINT16 ||
	    dt == IPU_DTYPE_UINT32) {
		lo = 0;
		hi = 256;
	} else if (isf) {
		lo = op == IPU_OP_LOG || op == IPU_OP_SQRT ? 0.01 : -4;
		hi = 4;
	} else {
		lo = -120;
		hi = 120;
	}
	eb_fill(b, 0, x, 1 + (uint32_t)s, lo, hi);
	if (nin == 2)
		eb_fill(b, 0, y, 2 + (uint32_t)s, lo, hi);
	assert_int_equal(eb_run(b), 0);

	for (i = 0; i < b->tensors[out].nelems; i++) {
		const struct ipu_exe_tensor *to = &b->tensors[out];
		uint64_t ia = eb_bcast(&b->tensors[x], to->ndim, to->shape, i);
		uint64_t ib = nin == 2 ?
			eb_bcast(&b->tensors[y], to->ndim, to->shape, i) : 0;

		if (!isf) {
			int64_t r = ref_i64(op, eb_geti(b, 0, x, ia),
					    nin == 2 ? eb_geti(b, 0, y, ib) : 0);

			if (!eb_same(b, 0, out, i, &r, IPU_DTYPE_INT64))
				fail_msg("%s %s element %llu: got %lld, want %lld (wrapped)",
					 ipu_dtype_name(dt), ipu_exe_op_name(op),
					 (unsigned long long)i,
					 (long long)eb_geti(b, 0, out, i),
					 (long long)r);
		} else if (op >= IPU_OP_GELU) {
			double want = ref_math(op, eb_get(b, 0, x, ia));
			double got = eb_get(b, 0, out, i);

			if (!(fabs(got - want) <= tolerance(dt, want)))
				fail_msg("%s %s element %llu: got %g, want %g",
					 ipu_dtype_name(dt), ipu_exe_op_name(op),
					 (unsigned long long)i, got, want);
		} else {
			float r = ref_f32(op, (float)eb_get(b, 0, x, ia),
					  nin == 2 ? (float)eb_get(b, 0, y, ib) : 0);

			if (!eb_same(b, 0, out, i, &r, IPU_DTYPE_FLOAT32))
				fail_msg("%s %s element %llu: got %g, want %g",
					 ipu_dtype_name(dt), ipu_exe_op_name(op),
					 (unsigned long long)i,
					 eb_get(b, 0, out, i), (double)r);
		}
	}
	eb_free(b);
}

static void test_binary_ops_broadcast_every_dtype(void **state)
{
	static const uint32_t ops[] = { IPU_OP_ADD, IPU_OP_SUB, IPU_OP_MUL,
					IPU_OP_DIV };
	size_t o, d, s;

	(void)state;
	for (o = 0; o < N(ops); o++)
		for (s = 0; s < N(shapes); s++) {
			for (d = 0; d < N(float_dts); d++)
				check_op(float_dts[d], ops[o], 2, s);
			for (d = 0; d < N(int_dts); d++)
				check_op(int_dts[d], ops[o], 2, s);
		}
}

static void test_unary_ops_every_dtype(void **state)
{
	static const uint32_t int_ops[] = { IPU_OP_NEG, IPU_OP_ABS, IPU_OP_RELU };
	static const uint32_t float_ops[] = { IPU_OP_GELU, IPU_OP_TANH,
					      IPU_OP_SIGMOID, IPU_OP_EXP,
					      IPU_OP_LOG, IPU_OP_SQRT };
	size_t o, d, s;

	(void)state;
	for (s = 0; s < N(shapes); s++) {
		for (o = 0; o < N(int_ops); o++) {
			for (d = 0; d < N(float_dts); d++)
				check_op(float_dts[d], int_ops[o], 1, s);
			for (d = 0; d < N(int_dts); d++)
				check_op(int_dts[d], int_ops[o], 1, s);
		}
		for (o = 0; o < N(float_ops); o++)
			for (d = 0; d < N(float_dts); d++)
				check_op(float_dts[d], float_ops[o], 1, s);
	}
}

/* One binary op on two 1-element int32 or float tensors. */
static void binary_values(int dt, uint32_t op, const double *a,
			  const double *c, size_t n, double *out)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, dt, EB_SHAPE(n));
	uint32_t y = eb_tensor(b, dt, EB_SHAPE(n));
	uint32_t o = eb_tensor(b, dt, EB_SHAPE(n));
	size_t i;

	eb_op(b, op, EB_U32(o, x, y), EB_NONE);
	eb_alloc(b);
	for (i = 0; i < n; i++) {
		eb_set(b, 0, x, i, a[i]);
		eb_set(b, 0, y, i, c[i]);
	}
	assert_int_equal(eb_run(b), 0);
	for (i = 0; i < n; i++)
		out[i] = eb_get(b, 0, o, i);
	eb_free(b);
}

static void test_integer_wrap_and_division(void **state)
{
	const double a[] = { 2147483647, -7, 7, -7, 5, -2147483648.0 };
	const double c[] = { 1, 2, -2, 0, 0, -1 };
	double r[6];

	(void)state;
	binary_values(IPU_DTYPE_INT32, IPU_OP_ADD, a, c, 1, r);
	assert_true(r[0] == -2147483648.0); /* wraps */
	binary_values(IPU_DTYPE_INT32, IPU_OP_DIV, a, c, 6, r);
	assert_true(r[1] == -3 && r[2] == -3 && r[3] == 0 && r[4] == 0);
	assert_true(r[5] == -2147483648.0); /* INT_MIN / -1 wraps, no trap */
	binary_values(IPU_DTYPE_INT32, IPU_OP_MUL, a, a, 1, r);
	assert_true(r[0] == 1); /* (2^31 - 1)^2 mod 2^32 */
	{
		const double x[] = { 100, 3, 200 }, y[] = { 3, 5, 100 };

		binary_values(IPU_DTYPE_INT8, IPU_OP_MUL, x, y, 1, r);
		assert_true(r[0] == 44); /* 300 wraps */
		binary_values(IPU_DTYPE_UINT8, IPU_OP_SUB, x + 1, y + 1, 1, r);
		assert_true(r[0] == 254); /* 3 - 5 wraps */
		binary_values(IPU_DTYPE_UINT8, IPU_OP_ADD, x + 2, y + 2, 1, r);
		assert_true(r[0] == 44); /* 300 wraps */
	}
	{
		const double x[] = { 30000, 3, 4294967295.0 };
		const double y[] = { 30000, 5, 2 };

		binary_values(IPU_DTYPE_INT16, IPU_OP_ADD, x, y, 1, r);
		assert_true(r[0] == 60000 - 65536); /* wraps */
		binary_values(IPU_DTYPE_UINT16, IPU_OP_SUB, x + 1, y + 1, 1, r);
		assert_true(r[0] == 65534);
		binary_values(IPU_DTYPE_UINT32, IPU_OP_SUB, x + 1, y + 1, 1, r);
		assert_true(r[0] == 4294967294.0);
		binary_values(IPU_DTYPE_UINT32, IPU_OP_ADD, x + 2, y + 2, 1, r);
		assert_true(r[0] == 1); /* 2^32 + 1 wraps */
		binary_values(IPU_DTYPE_UINT32, IPU_OP_DIV, x + 2, y + 2, 1, r);
		assert_true(r[0] == 2147483647.0); /* unsigned, not -1 / 2 */
	}
}

static void test_float_specials(void **state)
{
	const double a[] = { 1, -1, 0, INFINITY, NAN };
	const double c[] = { 0, 0, 0, INFINITY, 1 };
	double r[5];

	(void)state;
	binary_values(IPU_DTYPE_FLOAT32, IPU_OP_DIV, a, c, 5, r);
	assert_true(r[0] == INFINITY && r[1] == -INFINITY && isnan(r[2]) &&
		    isnan(r[3]) && isnan(r[4]));
	/* float16 overflows to infinity, FP8 saturates. */
	{
		const double x[] = { 60000 }, y[] = { 60000 };

		binary_values(IPU_DTYPE_FLOAT16, IPU_OP_ADD, x, y, 1, r);
		assert_true(r[0] == INFINITY);
		binary_values(IPU_DTYPE_FLOAT8_143, IPU_OP_ADD, x, y, 1, r);
		assert_true(r[0] == 240);
	}
}

/* Unary op on a few float32 values. */
static void unary_values(uint32_t op, const float *v, size_t n, float *out)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n));

	eb_op(b, op, EB_U32(o, x), EB_NONE);
	eb_alloc(b);
	memcpy(eb_ptr(b, 0, x), v, n * sizeof(*v));
	assert_int_equal(eb_run(b), 0);
	memcpy(out, eb_ptr(b, 0, o), n * sizeof(*out));
	eb_free(b);
}

static void test_unary_stability_and_nan(void **state)
{
	const float v[] = { 100.0f, -100.0f, -1e30f, NAN, 0.0f };
	float r[5];

	(void)state;
	unary_values(IPU_OP_SIGMOID, v, 5, r);
	assert_true(r[0] == 1.0f && r[1] >= 0.0f && r[1] < 1e-40f && r[2] == 0.0f);
	assert_true(isnan(r[3]) && r[4] == 0.5f);
	unary_values(IPU_OP_GELU, v, 5, r);
	assert_true(r[0] == 100.0f && r[1] == 0.0f && r[2] == 0.0f);
	assert_true(isnan(r[3]) && r[4] == 0.0f);
	unary_values(IPU_OP_RELU, v, 5, r);
	assert_true(r[0] == 100.0f && r[1] == 0.0f && isnan(r[3]));
	unary_values(IPU_OP_TANH, v, 5, r);
	assert_true(r[0] == 1.0f && r[1] == -1.0f);
	unary_values(IPU_OP_LOG, v, 5, r);
	assert_true(isnan(r[1]) && r[4] == -INFINITY);
	/* The tanh approximation, not the erf one: gelu(1) = 0.841192. */
	{
		const float one = 1.0f;

		unary_values(IPU_OP_GELU, &one, 1, r);
		assert_true(fabsf(r[0] - 0.8411920f) < 1e-6f);
	}
}

/* CAST between every pair of device dtypes is ipu_dtype_convert(). */
static void test_cast_every_pair(void **state)
{
	int s, d;

	(void)state;
	for (s = IPU_DTYPE_FLOAT32; s < IPU_DTYPE_COUNT_; s++) {
		for (d = IPU_DTYPE_FLOAT32; d < IPU_DTYPE_COUNT_; d++) {
			struct eb *b;
			uint32_t x, o;
			uint8_t want[20 * 4];

			if (!ipu_dtype_on_device(s) || !ipu_dtype_on_device(d))
				continue;
			b = eb_new(1, 1);
			x = eb_tensor(b, s, EB_SHAPE(4, 5));
			o = eb_tensor(b, d, EB_SHAPE(4, 5));

			eb_op(b, IPU_OP_CAST, EB_U32(o, x), EB_NONE);
			eb_alloc(b);
			eb_fill(b, 0, x, (uint32_t)(s * 16 + d), -300, 300);
			assert_int_equal(eb_run(b), 0);
			ipu_dtype_convert(want, d, eb_ptr(b, 0, x), s, 20);
			assert_memory_equal(eb_ptr(b, 0, o), want,
					    20 * ipu_dtype_size(d));
			eb_free(b);
		}
	}
}

static void test_reshape_and_copy_keep_bytes(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_BFLOAT16, EB_SHAPE(2, 3, 4));
	uint32_t r = eb_tensor(b, IPU_DTYPE_BFLOAT16, EB_SHAPE(6, 4));
	uint32_t c = eb_tensor(b, IPU_DTYPE_BFLOAT16, EB_SHAPE(6, 4));
	uint32_t s = eb_tensor(b, IPU_DTYPE_BOOL, EB_SCALAR);
	uint32_t s2 = eb_tensor(b, IPU_DTYPE_BOOL, EB_SHAPE(1, 1));

	(void)state;
	eb_op(b, IPU_OP_RESHAPE, EB_U32(r, x), EB_NONE);
	eb_op(b, IPU_OP_COPY, EB_U32(c, r), EB_NONE);
	eb_op(b, IPU_OP_RESHAPE, EB_U32(s2, s), EB_NONE);
	eb_alloc(b);
	eb_fill(b, 0, x, 7, -10, 10);
	*(uint8_t *)eb_ptr(b, 0, s) = 1;
	assert_int_equal(eb_run(b), 0);
	assert_memory_equal(eb_ptr(b, 0, r), eb_ptr(b, 0, x), 48);
	assert_memory_equal(eb_ptr(b, 0, c), eb_ptr(b, 0, x), 48);
	assert_int_equal(*(uint8_t *)eb_ptr(b, 0, s2), 1);
	eb_free(b);
}

/*
 * Run, without validating, one @op over fresh tensors: @nin inputs of
 * dtype @dx and @nx elements (all the same tensor), into @dout of @nout
 * elements. Returns ipufw_run()'s result; the message goes to @msg.
 */
static int run_raw(uint32_t op, unsigned int nin, int dx, uint64_t nx,
		   int dout, uint64_t nout, char *msg, size_t len)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, dx, EB_SHAPE(nx));
	uint32_t o = eb_tensor(b, dout, EB_SHAPE(nout));
	int err;

	eb_op(b, op, EB_U32(o, x, x), EB_NONE);
	b->instrs[0].num_operands = 1 + nin;
	eb_alloc(b);
	err = eb_run_raw(b);
	snprintf(msg, len, "%s", b->err);
	eb_free(b);
	return err;
}

/* The executor's own checks, for executables that did not validate. */
static void test_defensive_rejects(void **state)
{
	const int f32 = IPU_DTYPE_FLOAT32;
	char msg[512];

	(void)state;
	/* Shapes that do not broadcast. */
	assert_int_equal(run_raw(IPU_OP_ADD, 2, f32, 4, f32, 3, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "instruction 0 (add)"));
	assert_non_null(strstr(msg, "[4] does not broadcast to [3]"));
	/* Arithmetic on bool; maths on integers. */
	assert_int_equal(run_raw(IPU_OP_NEG, 1, IPU_DTYPE_BOOL, 3, IPU_DTYPE_BOOL, 3,
				 msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "bool"));
	assert_int_equal(run_raw(IPU_OP_EXP, 1, IPU_DTYPE_INT32, 3, IPU_DTYPE_INT32, 3,
				 msg, sizeof(msg)), -EINVAL);
	/* Too few operands; copy between dtypes; reshape changing size. */
	assert_int_equal(run_raw(IPU_OP_ADD, 1, f32, 3, f32, 3, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "operand 2"));
	assert_int_equal(run_raw(IPU_OP_COPY, 1, f32, 3, IPU_DTYPE_INT32, 3,
				 msg, sizeof(msg)), -EINVAL);
	assert_int_equal(run_raw(IPU_OP_RESHAPE, 1, f32, 3, f32, 4, msg, sizeof(msg)), -EINVAL);
	/* And the same helper with something valid. */
	assert_int_equal(run_raw(IPU_OP_ADD, 2, f32, 3, f32, 3, msg, sizeof(msg)), 0);
}

/*
 * An output that shares memory with an input at another place (which
 * ipu_exe_validate() rejects, but the executor must still compute right,
 * not crash): the kernels' loops read the input after they wrote part of
 * it. The result must be, bit for bit, the op's on the inputs' values
 * before it ran, as computed with every operand in a place of its own.
 *
 * The operands lie in one buffer of @span elements of @dt: the output,
 * [@n], at element @o_at; input a, [@n], at @a_at; input b (binary), of
 * shape (@bnd, @bshape), at @b_at. SCALED_ADD_INPLACE's variable is the
 * output (a is ignored).
 */
struct alias_case {
	uint32_t op;
	int dt;
	uint64_t n, span;
	uint64_t o_at, a_at, b_at;
	unsigned int bnd;
	uint64_t bshape[2];
};

static uint32_t alias_op(struct eb *b, const struct alias_case *c,
			 uint32_t o, uint32_t a, uint32_t bb)
{
	uint32_t i;

	if (c->op == IPU_OP_SCALED_ADD_INPLACE) {
		i = eb_op(b, c->op, EB_U32(o, bb), EB_NONE);
		b->instrs[i].fparams[0] = 0.75f;
		b->instrs[i].fparams[1] = -1.5f;
	} else if (c->op >= IPU_OP_NEG) {
		i = eb_op(b, c->op, EB_U32(o, a), EB_NONE);
	} else {
		i = eb_op(b, c->op, EB_U32(o, a, bb), EB_NONE);
	}
	return i;
}

/* Whether the result is the reference's; says where it is not. */
static bool check_aliased(const struct alias_case *c)
{
	struct eb *al = eb_new(1, 1), *ref = eb_new(1, 1);
	size_t esz = ipu_dtype_size(c->dt);
	uint32_t buf = eb_tensor(al, c->dt, EB_SHAPE(c->span));
	uint32_t o = eb_tensor(al, c->dt, EB_SHAPE(c->n));
	uint32_t a = eb_tensor(al, c->dt, EB_SHAPE(c->n));
	uint32_t bb = eb_tensor(al, c->dt, c->bshape, c->bnd);
	uint32_t ro = eb_tensor(ref, c->dt, EB_SHAPE(c->n));
	uint32_t ra = eb_tensor(ref, c->dt, EB_SHAPE(c->n));
	uint32_t rb = eb_tensor(ref, c->dt, c->bshape, c->bnd);
	uint64_t base = al->tensors[buf].offset;
	uint8_t *before;
	bool same;

	assert_true(c->o_at + c->n <= c->span && c->a_at + c->n <= c->span &&
		    c->b_at + al->tensors[bb].nelems <= c->span);
	al->tensors[o].offset = base + c->o_at * esz;
	al->tensors[a].offset = base + c->a_at * esz;
	al->tensors[bb].offset = base + c->b_at * esz;
	alias_op(al, c, o, a, bb);
	alias_op(ref, c, ro, ra, rb);
	eb_alloc(al);
	eb_alloc(ref);
	/* Integers kept small: division's and wrapping's cases are
	 * test_integer_wrap_and_division's. */
	eb_fill(al, 0, buf, 7, -50, 50);
	before = malloc(c->span * esz);
	assert_non_null(before);
	memcpy(before, eb_ptr(al, 0, buf), c->span * esz);
	memcpy(eb_ptr(ref, 0, ro), before + c->o_at * esz, c->n * esz);
	memcpy(eb_ptr(ref, 0, ra), before + c->a_at * esz, c->n * esz);
	memcpy(eb_ptr(ref, 0, rb), before + c->b_at * esz,
	       ref->tensors[rb].nbytes);
	assert_int_equal(eb_run_raw(ref), 0);
	assert_int_equal(eb_run_raw(al), 0);
	same = !memcmp(eb_ptr(al, 0, o), eb_ptr(ref, 0, ro), c->n * esz);
	if (!same) {
		uint64_t i;

		for (i = 0; i < c->n; i++)
			if (eb_get(al, 0, o, i) != eb_get(ref, 0, ro, i) &&
			    !(isnan(eb_get(al, 0, o, i)) &&
			      isnan(eb_get(ref, 0, ro, i))))
				break;
		print_message("%s %s, out at %llu, a at %llu, b at %llu: element %llu is %g, not %g\n",
			 ipu_exe_op_name(c->op), ipu_dtype_name(c->dt),
			 (unsigned long long)c->o_at,
			 (unsigned long long)c->a_at,
			 (unsigned long long)c->b_at, (unsigned long long)i,
			 i < c->n ? eb_get(al, 0, o, i) : 0.0,
			 i < c->n ? eb_get(ref, 0, ro, i) : 0.0);
	}
	free(before);
	eb_free(ref);
	eb_free(al);
	return same;
}

static void test_an_output_aliasing_an_input_elsewhere(void **state)
{
	const int f32 = IPU_DTYPE_FLOAT32, f16 = IPU_DTYPE_FLOAT16,
		  i32 = IPU_DTYPE_INT32;
	/* 3000 elements: past a chunk (FW_CHUNK, 1024), so that a chunk's
	 * output can land on the next chunk's input. */
	static const struct alias_case cases[] = {
		/* out one element past a, ahead of the reads */
		{ IPU_OP_ADD, f32, 3000, 9000, 1, 0, 6000, 1, { 3000 } },
		{ IPU_OP_MUL, f32, 3000, 9000, 5, 0, 6000, 1, { 3000 } },
		/* out a chunk and more past a */
		{ IPU_OP_SUB, f32, 3000, 9000, 1500, 0, 6000, 1, { 3000 } },
		/* out one element before a, behind the reads */
		{ IPU_OP_ADD, f32, 3000, 9000, 0, 1, 6000, 1, { 3000 } },
		/* out over both inputs */
		{ IPU_OP_DIV, f32, 3000, 9000, 2, 0, 4, 1, { 3000 } },
		/* a broadcast b inside the output, read after it is written */
		{ IPU_OP_ADD, f32, 3000, 9000, 0, 4000, 700, 0, { 0 } },
		{ IPU_OP_MUL, f32, 3000, 9000, 0, 4000, 10, 1, { 1 } },
		/* out exactly a: in place, as all-reduce's may be */
		{ IPU_OP_ADD, f32, 3000, 9000, 0, 0, 6000, 1, { 3000 } },
		/* dtypes converted a chunk at a time */
		{ IPU_OP_ADD, f16, 3000, 9000, 1, 0, 6000, 1, { 3000 } },
		{ IPU_OP_ADD, i32, 3000, 9000, 1, 0, 6000, 1, { 3000 } },
		{ IPU_OP_SUB, i32, 3000, 9000, 0, 1, 6000, 1, { 3000 } },
		/* unary ops */
		{ IPU_OP_NEG, f32, 3000, 9000, 3, 0, 0, 0, { 0 } },
		{ IPU_OP_RELU, i32, 3000, 9000, 1100, 0, 0, 0, { 0 } },
		{ IPU_OP_TANH, f16, 3000, 9000, 1, 0, 0, 0, { 0 } },
		/* the optimizer step: y inside the variable it updates */
		{ IPU_OP_SCALED_ADD_INPLACE, f32, 3000, 9000, 0, 0, 2, 1, { 3000 } },
		{ IPU_OP_SCALED_ADD_INPLACE, f32, 3000, 9000, 2, 0, 0, 1, { 3000 } },
		{ IPU_OP_SCALED_ADD_INPLACE, f32, 3000, 9000, 0, 0, 9, 0, { 0 } },
	};
	size_t k, bad = 0;

	(void)state;
	for (k = 0; k < N(cases); k++)
		bad += !check_aliased(&cases[k]);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_ops_broadcast_every_dtype),
		cmocka_unit_test(test_unary_ops_every_dtype),
		cmocka_unit_test(test_integer_wrap_and_division),
		cmocka_unit_test(test_float_specials),
		cmocka_unit_test(test_unary_stability_and_nan),
		cmocka_unit_test(test_cast_every_pair),
		cmocka_unit_test(test_reshape_and_copy_keep_bytes),
		cmocka_unit_test(test_defensive_rejects),
		cmocka_unit_test(test_an_output_aliasing_an_input_elsewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
