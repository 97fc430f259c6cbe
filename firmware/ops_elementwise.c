// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ops_elementwise.c - unary and binary elementwise ops, NumPy broadcasting.
 *
 * The output is walked a run at a time (layout.c); each input's run is
 * fetched as float32 (floating outputs) or int64 (integer outputs), the
 * kernel computes a run, and the result is rounded or wrapped to the output's
 * dtype. Float32 tensors are read and written in place, without copies.
 *
 * Float32 arithmetic for float16 and bfloat16 tensors gives the correctly
 * rounded result of +, -, *, / (24 bits of float32 are at least twice the
 * narrow formats' precision plus two, so the double rounding is harmless).
 *
 * GELU is the tanh approximation, as PopXL's default:
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), not the erf form.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fw_internal.h"

/* Never exp() of a large positive number: no overflow to inf / inf. */
static float sigmoid(float x)
{
	float e;

	if (x >= 0.0f)
		return 1.0f / (1.0f + expf(-x));
	e = expf(x);
	return e / (1.0f + e);
}

/*
 * 0.5 x (1 + tanh(u)) computed as x * sigmoid(2u), the same function:
 * for negative x, 1 + tanh(u) cancels almost to nothing and would lose
 * most of float32's bits.
 */
static float gelu(float x)
{
	const float k = 0.7978845608028654f; /* sqrt(2 / pi) */

	return x * sigmoid(2.0f * k * (x + 0.044715f * x * x * x));
}

/* Ops only defined on floating tensors. */
static bool float_only(uint32_t op)
{
	switch (op) {
	case IPU_OP_GELU:
	case IPU_OP_TANH:
	case IPU_OP_SIGMOID:
	case IPU_OP_EXP:
	case IPU_OP_LOG:
	case IPU_OP_SQRT:
	case IPU_OP_SCALED_ADD_INPLACE:
		return true;
	default:
		return false;
	}
}

/*
 * o[i] = expr, with x = a[i * sa] and (binary) y = b[i * sb]; sa and sb
 * are 0 (a broadcast element) or 1. Each case gets a loop of its own with
 * the broadcast element read once: a loop indexing by a stride known only
 * at run time is not vectorised, and ran x * 2 over 64 MiB at a quarter
 * of memcpy's speed. An input is the output exactly or shares no memory
 * with it (fw_elementwise() copies it first), so no element is read after
 * it was written.
 */
#define EW1(expr)                                                      \
	do {                                                           \
		if (sa) {                                              \
			for (i = 0; i < n; i++) {                      \
				const T x = a[i];                      \
				o[i] = (expr);                         \
			}                                              \
		} else {                                               \
			const T x = a[0];                              \
			for (i = 0; i < n; i++)                        \
				o[i] = (expr);                         \
		}                                                      \
	} while (0)
#define EW2(expr)                                                      \
	do {                                                           \
		if (sa && sb) {                                        \
			for (i = 0; i < n; i++) {                      \
				const T x = a[i], y = b[i];            \
				o[i] = (expr);                         \
			}                                              \
		} else if (sa) {                                       \
			const T y = b[0];                              \
			for (i = 0; i < n; i++) {                      \
				const T x = a[i];                      \
				o[i] = (expr);                         \
			}                                              \
		} else if (sb) {                                       \
			const T x = a[0];                              \
			for (i = 0; i < n; i++) {                      \
				const T y = b[i];                      \
				o[i] = (expr);                         \
			}                                              \
		} else {                                               \
			const T x = a[0], y = b[0];                    \
			for (i = 0; i < n; i++)                        \
				o[i] = (expr);                         \
		}                                                      \
	} while (0)

/* FW_VECTORISE (fw_internal.h): the kernels below are vectorised. */

#define T float
FW_VECTORISE
static void kernel_f32(uint32_t op, float *o, const float *a, int64_t sa,
		       const float *b, int64_t sb, size_t n, const float *fp)
{
	size_t i;

	switch (op) {
	case IPU_OP_ADD: EW2(x + y); break;
	case IPU_OP_SUB: EW2(x - y); break;
	case IPU_OP_MUL: EW2(x * y); break;
	case IPU_OP_DIV: EW2(x / y); break;
	case IPU_OP_SCALED_ADD_INPLACE: EW2(fp[0] * x + fp[1] * y); break;
	case IPU_OP_NEG: EW1(-x); break;
	case IPU_OP_ABS: EW1(fabsf(x)); break;
	case IPU_OP_RELU: EW1(x < 0.0f ? 0.0f : x); break; /* NaN stays */
	case IPU_OP_GELU: EW1(gelu(x)); break;
	case IPU_OP_TANH: EW1(tanhf(x)); break;
	case IPU_OP_SIGMOID: EW1(sigmoid(x)); break;
	case IPU_OP_EXP: EW1(expf(x)); break;
	case IPU_OP_LOG: EW1(logf(x)); break;
	case IPU_OP_SQRT: EW1(sqrtf(x)); break;
	}
}
#undef T

/*
 * Integers wrap: the arithmetic is done on uint64 (defined to wrap) and the
 * low bits, all the output keeps, are those of the exact result. Division
 * truncates toward zero and x / 0 is 0 (the device does not trap).
 */
#define W(v) ((int64_t)(uint64_t)(v))
#define T int64_t
FW_VECTORISE
static void kernel_i64(uint32_t op, int64_t *o, const int64_t *a, int64_t sa,
		       const int64_t *b, int64_t sb, size_t n)
{
	size_t i;

	switch (op) {
	case IPU_OP_ADD: EW2(W((uint64_t)x + (uint64_t)y)); break;
	case IPU_OP_SUB: EW2(W((uint64_t)x - (uint64_t)y)); break;
	case IPU_OP_MUL: EW2(W((uint64_t)x * (uint64_t)y)); break;
	case IPU_OP_DIV:
		EW2(y == 0 ? 0 : y == -1 ? W(0 - (uint64_t)x) : x / y);
		break;
	case IPU_OP_NEG: EW1(W(0 - (uint64_t)x)); break;
	case IPU_OP_ABS: EW1(x < 0 ? W(0 - (uint64_t)x) : x); break;
	case IPU_OP_RELU: EW1(x < 0 ? 0 : x); break;
	}
}
#undef T
#undef W

/*
 * Make @x, input @k of an op writing @out, safe to read while @out is
 * written: an input that shares memory with the output, but for being it
 * exactly (in place: each element read before it is written at the same
 * place), would be read after the loops wrote part of it, so it is read
 * from a copy taken first. Validated programs have none (exe.h: an out
 * shares no memory with its inputs, SCALED_ADD_INPLACE's variable aside),
 * and pay a comparison; the executor still owes any program the op's
 * result on the inputs' values before it ran.
 */
static int unalias(struct fw_replica *rep, const struct fw_tensor *out,
		   struct fw_tensor *x, unsigned int k)
{
	uintptr_t o = (uintptr_t)out->p, p = (uintptr_t)x->p;
	size_t ob = out->nelems * out->esz, nb = x->nelems * x->esz;
	void *copy;

	if (p + nb <= o || o + ob <= p)
		return 0;
	if (p == o && x->dtype == out->dtype && x->nelems == out->nelems)
		return 0;
	copy = fw_scratch(rep, 1 + k, nb);
	if (!copy)
		return fw_fail(rep, -ENOMEM,
			       "no memory for a copy of input %u, which shares the output's memory",
			       k);
	memcpy(copy, x->p, nb);
	x->p = copy;
	return 0;
}

int fw_elementwise(struct fw_replica *rep, uint32_t op,
		   const struct fw_tensor *out, const struct fw_tensor *in,
		   unsigned int nin, const float *fp)
{
	struct fw_tensor x[2];
	int64_t strides[FW_ITER_MAX_OPS][IPU_EXE_MAX_DIMS];
	union {
		float f[FW_CHUNK];
		int64_t i[FW_CHUNK];
	} tmp[FW_ITER_MAX_OPS];
	bool isf = ipu_dtype_is_float(out->dtype);
	int cdt = isf ? IPU_DTYPE_FLOAT32 : IPU_DTYPE_INT64;
	const void *src[2] = { NULL, NULL };
	int64_t step[2] = { 0, 0 };
	struct fw_iter it;
	char s1[__IPU_EXE_SHAPE_STRLEN], s2[__IPU_EXE_SHAPE_STRLEN];
	unsigned int k;
	uint64_t done;
	size_t c;
	int err;

	if (out->dtype == IPU_DTYPE_BOOL || (!isf && float_only(op)))
		return fw_fail(rep, -EINVAL, "not defined on %s tensors",
			       ipu_dtype_name(out->dtype));
	fw_contig_strides(out->ndim, out->shape, strides[0]);
	for (k = 0; k < nin; k++)
		if (fw_broadcast_strides(in[k].ndim, in[k].shape, out->ndim,
					 out->shape, strides[k + 1]))
			return fw_fail(rep, -EINVAL,
				       "input %u of shape %s does not broadcast to %s",
				       k,
				       __ipu_exe_fmt_shape(s1, sizeof(s1), in[k].ndim,
						    in[k].shape),
				       __ipu_exe_fmt_shape(s2, sizeof(s2), out->ndim,
						    out->shape));
	for (k = 0; k < nin; k++) {
		x[k] = in[k];
		err = unalias(rep, out, &x[k], k);
		if (err)
			return err;
	}
	if (!fw_iter_init(&it, out->ndim, out->shape, 1 + nin,
			  (const int64_t (*)[IPU_EXE_MAX_DIMS])strides))
		return 0;
	do {
		for (done = 0; done < it.n; done += c) {
			void *dst;

			c = it.n - done < FW_CHUNK ? it.n - done : FW_CHUNK;
			for (k = 0; k < nin; k++)
				src[k] = fw_fetch(&x[k],
						  it.off[k + 1] + (int64_t)done * it.step[k + 1],
						  it.step[k + 1], c, cdt, &tmp[k + 1],
						  &step[k]);
			/* The output is contiguous, so its run is too. */
			dst = out->dtype == cdt ? fw_elem(out, it.off[0] + done) :
						  (void *)&tmp[0];
			if (isf)
				kernel_f32(op, dst, src[0], step[0], src[1],
					   step[1], c, fp);
			else
				kernel_i64(op, dst, src[0], step[0], src[1],
					   step[1], c);
			if (dst == &tmp[0])
				ipu_dtype_convert(fw_elem(out, it.off[0] + done),
						  out->dtype, dst, cdt, c);
		}
	} while (fw_iter_next(&it));
	return 0;
}

/* ADD, SUB, MUL, DIV: out, a, b. NEG ... SQRT: out, x. */
static int elementwise_op(struct fw_replica *rep,
			  const struct ipu_exe_instr *in, unsigned int nin)
{
	struct fw_tensor t[3];
	int err = fw_args(rep, in, 1 + nin, t, 0, NULL);

	if (err)
		return err;
	return fw_elementwise(rep, in->op, &t[0], &t[1], nin, NULL);
}

int fw_op_binary(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	return elementwise_op(rep, in, 2);
}

int fw_op_unary(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	return elementwise_op(rep, in, 1);
}
