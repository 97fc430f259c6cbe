// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ops_reduce.c - reductions over a set of axes (sum, mean, max) and
 * softmax / log_softmax along one axis.
 *
 * Reductions walk x in row-major order and accumulate each element into its
 * output slot, so every output is a sum in index order: deterministic, the
 * same bits on every backend. Floats accumulate in double and are rounded
 * once; integers in int64, wrapped to the output's width. max propagates
 * NaN, as NumPy does.
 *
 * softmax subtracts the maximum before exponentiating, so large inputs do
 * not overflow: softmax(x) = exp(x - m) / sum(exp(x - m)) and
 * log_softmax(x) = (x - m) - log(sum(exp(x - m))), with the sum in double.
 */
#include <errno.h>
#include <math.h>

#include "fw_internal.h"

static void accumulate_f64(double *a, int64_t as, const double *v, int64_t vs,
			   size_t n, bool max)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double x = v[i * vs], *p = &a[i * as];

		if (!max)
			*p += x;
		else if (x > *p || isnan(x))
			*p = x;
	}
}

static void accumulate_i64(int64_t *a, int64_t as, const int64_t *v,
			   int64_t vs, size_t n, bool max)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t x = v[i * vs], *p = &a[i * as];

		if (!max)
			*p = (int64_t)((uint64_t)*p + (uint64_t)x);
		else if (x > *p)
			*p = x;
	}
}

/*
 * Check that @out has @x's shape with the axes of @mask removed (or kept as
 * 1), and set @astrides to the strides of x's axes into out (0 on the
 * reduced ones).
 */
static int reduce_shape(struct fw_replica *rep, const struct fw_tensor *out,
			const struct fw_tensor *x, int64_t mask, bool keepdims,
			int64_t *astrides)
{
	uint64_t kshape[IPU_EXE_MAX_DIMS];
	unsigned int d, od = 0;
	char s1[__IPU_EXE_SHAPE_STRLEN], s2[__IPU_EXE_SHAPE_STRLEN];

	if (mask < 0 || mask >> x->ndim)
		return fw_fail(rep, -EINVAL, "axes %#llx of a rank %u tensor",
			       (unsigned long long)mask, x->ndim);
	for (d = 0; d < x->ndim; d++) {
		bool red = mask >> d & 1;

		kshape[d] = red ? 1 : x->shape[d];
		if (red && !keepdims)
			continue;
		if (od >= out->ndim || out->shape[od] != kshape[d])
			break;
		od++;
	}
	if (d < x->ndim || od != out->ndim)
		return fw_fail(rep, -EINVAL,
			       "%s reduced over axes %#llx%s is not %s",
			       __ipu_exe_fmt_shape(s1, sizeof(s1), x->ndim, x->shape),
			       (unsigned long long)mask,
			       keepdims ? " (keepdims)" : "",
			       __ipu_exe_fmt_shape(s2, sizeof(s2), out->ndim,
					    out->shape));
	fw_contig_strides(x->ndim, kshape, astrides);
	for (d = 0; d < x->ndim; d++)
		if (mask >> d & 1)
			astrides[d] = 0;
	return 0;
}

/* REDUCE_SUM, REDUCE_MEAN, REDUCE_MAX: out, x; axes bitmask, keepdims. */
int fw_op_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	int64_t strides[2][IPU_EXE_MAX_DIMS];
	union {
		double f[FW_CHUNK];
		int64_t i[FW_CHUNK];
	} tmp;
	bool max = in->op == IPU_OP_REDUCE_MAX;
	bool isf, mean = in->op == IPU_OP_REDUCE_MEAN;
	struct fw_tensor t[2], out, x;
	int64_t p[2], vs;
	struct fw_iter it;
	uint64_t i, done;
	const void *v;
	void *acc;
	int cdt, err;
	size_t c;

	err = fw_args(rep, in, 2, t, 2, p);
	if (err)
		return err;
	out = t[0];
	x = t[1];
	err = reduce_shape(rep, &out, &x, p[0], p[1], strides[0]);
	if (err)
		return err;
	isf = ipu_dtype_is_float(out.dtype);
	if (out.dtype == IPU_DTYPE_BOOL || x.dtype == IPU_DTYPE_BOOL ||
	    (mean && !(isf && ipu_dtype_is_float(x.dtype))))
		return fw_fail(rep, -EINVAL, "not defined on %s tensors",
			       ipu_dtype_name(isf ? x.dtype : out.dtype));
	cdt = isf ? IPU_DTYPE_FLOAT64 : IPU_DTYPE_INT64;
	acc = fw_scratch(rep, 0, out.nelems * sizeof(double));
	if (!acc)
		return fw_fail(rep, -ENOMEM, "no memory for the accumulators");
	for (i = 0; i < out.nelems; i++) {
		if (isf)
			((double *)acc)[i] = max ? -INFINITY : 0.0;
		else
			((int64_t *)acc)[i] = max ? INT64_MIN : 0;
	}

	fw_contig_strides(x.ndim, x.shape, strides[1]);
	if (fw_iter_init(&it, x.ndim, x.shape, 2,
			 (const int64_t (*)[IPU_EXE_MAX_DIMS])strides)) {
		do {
			for (done = 0; done < it.n; done += c) {
				int64_t ao = it.off[0] + (int64_t)done * it.step[0];

				c = it.n - done < FW_CHUNK ? it.n - done : FW_CHUNK;
				v = fw_fetch(&x, it.off[1] + (int64_t)done * it.step[1],
					     it.step[1], c, cdt, &tmp, &vs);
				if (isf)
					accumulate_f64((double *)acc + ao,
						       it.step[0], v, vs, c, max);
				else
					accumulate_i64((int64_t *)acc + ao,
						       it.step[0], v, vs, c, max);
			}
		} while (fw_iter_next(&it));
	}
	if (mean) {
		/* Elements per output; 0 / 0 is NaN, as NumPy's mean of nothing. */
		double count = out.nelems ? (double)(x.nelems / out.nelems) : 0.0;

		for (i = 0; i < out.nelems; i++)
			((double *)acc)[i] /= count;
	}
	return ipu_dtype_convert(out.p, out.dtype, acc, cdt, out.nelems);
}

/* Softmax (or, @take_log, log_softmax) of the @len elements at @v,
 * @stride apart, in place. */
static void softmax_line(float *v, uint64_t stride, uint64_t len,
			 bool take_log)
{
	float m = -INFINITY;
	double s = 0.0, ls;
	uint64_t l;

	for (l = 0; l < len; l++)
		if (v[l * stride] > m || isnan(v[l * stride]))
			m = v[l * stride];
	for (l = 0; l < len; l++) {
		float d = v[l * stride] - m, e = expf(d);

		s += e;
		v[l * stride] = take_log ? d : e;
	}
	ls = take_log ? log(s) : 0.0;
	for (l = 0; l < len; l++)
		v[l * stride] = take_log ? (float)(v[l * stride] - ls) :
					   (float)(v[l * stride] / s);
}

/* SOFTMAX, LOG_SOFTMAX: out, x; axis. */
int fw_op_softmax(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	uint64_t inner = 1, len, slab, o, j;
	struct fw_tensor t[2], out, x;
	unsigned int d;
	int64_t axis;
	float *buf;
	int err;

	err = fw_args(rep, in, 2, t, 1, &axis);
	if (err)
		return err;
	out = t[0];
	x = t[1];
	if (!ipu_dtype_is_float(out.dtype) || !ipu_dtype_is_float(x.dtype))
		return fw_fail(rep, -EINVAL, "not defined on %s tensors",
			       ipu_dtype_name(out.dtype));
	if (axis < 0 || axis >= x.ndim || out.ndim != x.ndim)
		return fw_fail(rep, -EINVAL, "axis %lld of a rank %u tensor",
			       (long long)axis, x.ndim);
	for (d = 0; d < x.ndim; d++) {
		if (out.shape[d] != x.shape[d])
			return fw_fail(rep, -EINVAL, "out's shape is not x's");
		if (d > axis)
			inner *= x.shape[d];
	}
	if (!x.nelems)
		return 0;
	len = x.shape[axis];
	slab = len * inner;
	buf = fw_scratch(rep, 0, slab * sizeof(float));
	if (!buf)
		return fw_fail(rep, -ENOMEM, "no memory for a slab");
	/* One slab (all of axis and what is inside it) at a time. */
	for (o = 0; o < x.nelems / slab; o++) {
		ipu_dtype_convert(buf, IPU_DTYPE_FLOAT32, fw_elem(&x, o * slab),
				  x.dtype, slab);
		for (j = 0; j < inner; j++)
			softmax_line(buf + j, inner, len,
				     in->op == IPU_OP_LOG_SOFTMAX);
		ipu_dtype_convert(fw_elem(&out, o * slab), out.dtype, buf,
				  IPU_DTYPE_FLOAT32, slab);
	}
	return 0;
}
