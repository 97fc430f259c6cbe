// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ops_shape.c - data movement: cast, reshape, copy, assign, transpose,
 * slice, concat.
 *
 * Transpose, slice and concat are one strided copy each: the source (or,
 * for concat, the destination) is described by strides over the shape
 * being copied, and layout.c walks it.
 */
#include <errno.h>
#include <string.h>

#include "fw_internal.h"

int fw_move(struct fw_replica *rep, const struct fw_tensor *out,
	    const struct fw_tensor *x)
{
	if (out->nelems != x->nelems)
		return fw_fail(rep, -EINVAL, "%llu elements into %llu",
			       (unsigned long long)x->nelems,
			       (unsigned long long)out->nelems);
	/* Same dtype: a memmove. */
	return ipu_dtype_convert(out->p, out->dtype, x->p, x->dtype,
				 out->nelems);
}

/* CAST, RESHAPE, COPY, ASSIGN: out, x; all but CAST keep the dtype. */
int fw_op_move(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	struct fw_tensor t[2];
	int err;

	err = fw_args(rep, in, 2, t, 0, NULL);
	if (err)
		return err;
	if (in->op != IPU_OP_CAST && t[0].dtype != t[1].dtype)
		return fw_fail(rep, -EINVAL, "%s into %s: use a cast",
			       ipu_dtype_name(t[1].dtype),
			       ipu_dtype_name(t[0].dtype));
	return fw_move(rep, &t[0], &t[1]);
}

/* Copy @n elements of @esz bytes, @ds and @ss elements apart. */
static void copy_run(uint8_t *dst, int64_t ds, const uint8_t *src, int64_t ss,
		     uint64_t n, size_t esz)
{
	uint64_t i;

	if (ds == 1 && ss == 1) {
		memmove(dst, src, n * esz);
		return;
	}
#define STRIDED(type)                                                       \
	for (i = 0; i < n; i++)                                             \
		((type *)dst)[(int64_t)i * ds] =                            \
			((const type *)src)[(int64_t)i * ss];               \
	break
	switch (esz) {
	case 1: STRIDED(uint8_t);
	case 2: STRIDED(uint16_t);
	case 4: STRIDED(uint32_t);
	default: STRIDED(uint64_t);
	}
#undef STRIDED
}

/*
 * Copy the elements of @shape from @src (element strides @ss, first element
 * at @src_off) to @dst (strides @ds, from @dst_off). Both tensors must have
 * one dtype.
 */
static int copy_strided(struct fw_replica *rep, const struct fw_tensor *dst,
			uint64_t dst_off, const int64_t *ds,
			const struct fw_tensor *src, uint64_t src_off,
			const int64_t *ss, unsigned int ndim,
			const uint64_t *shape)
{
	int64_t strides[2][IPU_EXE_MAX_DIMS];
	struct fw_iter it;

	if (dst->dtype != src->dtype)
		return fw_fail(rep, -EINVAL, "%s into %s",
			       ipu_dtype_name(src->dtype),
			       ipu_dtype_name(dst->dtype));
	memcpy(strides[0], ds, ndim * sizeof(*ds));
	memcpy(strides[1], ss, ndim * sizeof(*ss));
	if (!fw_iter_init(&it, ndim, shape, 2,
			  (const int64_t (*)[IPU_EXE_MAX_DIMS])strides))
		return 0;
	do {
		copy_run(fw_elem(dst, dst_off + it.off[0]), it.step[0],
			 fw_elem(src, src_off + it.off[1]), it.step[1], it.n,
			 dst->esz);
	} while (fw_iter_next(&it));
	return 0;
}

/*
 * Operands out and x of the same rank, @per_axis parameters per axis of x
 * into @p (transpose: perm; slice: start, then step), and x's strides.
 */
static int same_rank_args(struct fw_replica *rep,
			  const struct ipu_exe_instr *in, struct fw_tensor *t,
			  unsigned int per_axis, int64_t *p, int64_t *xs)
{
	int err = fw_args(rep, in, 2, t, 0, NULL);

	if (!err)
		err = fw_args(rep, in, 2, t, per_axis * t[1].ndim, p);
	if (err)
		return err;
	if (t[0].ndim != t[1].ndim)
		return fw_fail(rep, -EINVAL, "rank %u into rank %u", t[1].ndim,
			       t[0].ndim);
	fw_contig_strides(t[1].ndim, t[1].shape, xs);
	return 0;
}

/* out (contiguous) = the elements of x at @base + sum(c[d] * @ss[d]), c
 * out's coordinates. */
static int gather(struct fw_replica *rep, const struct fw_tensor *out,
		  const struct fw_tensor *x, uint64_t base, const int64_t *ss)
{
	int64_t os[IPU_EXE_MAX_DIMS];

	fw_contig_strides(out->ndim, out->shape, os);
	return copy_strided(rep, out, 0, os, x, base, ss, out->ndim,
			    out->shape);
}

/* TRANSPOSE: out, x; perm[ndim]: out's axis i is x's axis perm[i]. */
int fw_op_transpose(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	int64_t perm[IPU_EXE_MAX_DIMS], xs[IPU_EXE_MAX_DIMS];
	int64_t ss[IPU_EXE_MAX_DIMS];
	struct fw_tensor t[2];
	unsigned int seen = 0, d;
	int err;

	err = same_rank_args(rep, in, t, 1, perm, xs);
	if (err)
		return err;
	for (d = 0; d < t[1].ndim; d++) {
		if (perm[d] < 0 || perm[d] >= t[1].ndim ||
		    (seen >> perm[d] & 1) || t[0].shape[d] != t[1].shape[perm[d]])
			return fw_fail(rep, -EINVAL,
				       "perm[%u] = %lld is not a permutation of x's axes onto out's shape",
				       d, (long long)perm[d]);
		seen |= 1u << perm[d];
		ss[d] = xs[perm[d]];
	}
	return gather(rep, &t[0], &t[1], 0, ss);
}

/* SLICE: out, x; start[ndim], step[ndim]; out's shape is the count. */
int fw_op_slice(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	int64_t p[2 * IPU_EXE_MAX_DIMS], xs[IPU_EXE_MAX_DIMS];
	int64_t ss[IPU_EXE_MAX_DIMS];
	struct fw_tensor t[2];
	uint64_t base = 0;
	unsigned int d;
	int err;

	err = same_rank_args(rep, in, t, 2, p, xs);
	if (err)
		return err;
	for (d = 0; d < t[1].ndim; d++) {
		int64_t start = p[d], step = p[t[1].ndim + d];
		uint64_t cnt = t[0].shape[d], dim = t[1].shape[d];

		/* The last element taken, start + (cnt - 1) * step, must be
		 * inside x; divide rather than multiply to avoid overflow. */
		if (start < 0 || step < 1 ||
		    (cnt && ((uint64_t)start >= dim ||
			     cnt - 1 > (dim - 1 - (uint64_t)start) / (uint64_t)step)))
			return fw_fail(rep, -EINVAL,
				       "axis %u: %llu elements from %lld step %lld leave x's %llu",
				       d, (unsigned long long)cnt,
				       (long long)start, (long long)step,
				       (unsigned long long)dim);
		base += (uint64_t)start * (uint64_t)xs[d];
		ss[d] = xs[d] * step;
	}
	return gather(rep, &t[0], &t[1], base, ss);
}

/* CONCAT: out, x0, x1, ...; axis. Each input goes to its place in out. */
int fw_op_concat(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	int64_t os[IPU_EXE_MAX_DIMS], xs[IPU_EXE_MAX_DIMS];
	struct fw_tensor out, x;
	uint64_t at = 0;
	unsigned int k, d;
	int64_t axis;
	int err;

	err = fw_args(rep, in, 1, &out, 1, &axis);
	if (err)
		return err;
	if (axis < 0 || axis >= out.ndim)
		return fw_fail(rep, -EINVAL, "axis %lld of a rank %u output",
			       (long long)axis, out.ndim);
	fw_contig_strides(out.ndim, out.shape, os);
	for (k = 1; k < in->num_operands; k++) {
		fw_operand(rep, in, k, &x); /* k < num_operands: cannot fail */
		for (d = 0; d < out.ndim; d++)
			if (x.ndim != out.ndim ||
			    (d != axis && x.shape[d] != out.shape[d]))
				break;
		if (d < out.ndim ||
		    x.shape[axis] > out.shape[axis] - at)
			return fw_fail(rep, -EINVAL,
				       "input %u does not fit the output along axis %lld",
				       k - 1, (long long)axis);
		fw_contig_strides(x.ndim, x.shape, xs);
		err = copy_strided(rep, &out, at * (uint64_t)os[axis], os, &x, 0,
				   xs, x.ndim, x.shape);
		if (err)
			return err;
		at += x.shape[axis];
	}
	if (at != out.shape[axis])
		return fw_fail(rep, -EINVAL,
			       "inputs fill %llu of the output's %llu along axis %lld",
			       (unsigned long long)at,
			       (unsigned long long)out.shape[axis],
			       (long long)axis);
	return 0;
}
