// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * layout.c - shapes and strides: broadcasting, walking a shape over several
 * operands at once, fetching runs of elements as the type an op computes in.
 *
 * Every op that is not a plain byte copy walks its operands through these,
 * so that broadcasting, transposition and slicing are just strides, and
 * conversions happen a run at a time with one dispatch on the dtype.
 */
#include <errno.h>
#include <string.h>

#include "fw_internal.h"

void fw_contig_strides(unsigned int ndim, const uint64_t *shape,
		       int64_t *strides)
{
	int64_t s = 1;
	unsigned int d;

	for (d = ndim; d-- > 0;) {
		strides[d] = s;
		s *= (int64_t)shape[d];
	}
}

int fw_broadcast_strides(unsigned int ndim, const uint64_t *shape,
			 unsigned int out_ndim, const uint64_t *out_shape,
			 int64_t *strides)
{
	int64_t own[IPU_EXE_MAX_DIMS];
	unsigned int d, lead;

	if (ndim > out_ndim)
		return -EINVAL;
	lead = out_ndim - ndim;
	fw_contig_strides(ndim, shape, own);
	for (d = 0; d < out_ndim; d++) {
		if (d < lead) {
			strides[d] = 0;
		} else if (shape[d - lead] == out_shape[d]) {
			strides[d] = out_shape[d] == 1 ? 0 : own[d - lead];
		} else if (shape[d - lead] == 1) {
			strides[d] = 0;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

bool fw_iter_init(struct fw_iter *it, unsigned int ndim, const uint64_t *shape,
		  unsigned int nops,
		  const int64_t (*strides)[IPU_EXE_MAX_DIMS])
{
	unsigned int d, k, nd = 0;

	it->nops = nops;
	for (d = 0; d < ndim; d++) {
		if (shape[d] == 0)
			return false;
		if (shape[d] == 1)
			continue;
		/* Merge into the previous kept dimension when it is just the
		 * continuation of this one in every operand. */
		if (nd) {
			bool merge = true;

			for (k = 0; k < nops; k++)
				if (it->stride[k][nd - 1] !=
				    strides[k][d] * (int64_t)shape[d])
					merge = false;
			if (merge) {
				it->shape[nd - 1] *= shape[d];
				for (k = 0; k < nops; k++)
					it->stride[k][nd - 1] = strides[k][d];
				continue;
			}
		}
		it->shape[nd] = shape[d];
		for (k = 0; k < nops; k++)
			it->stride[k][nd] = strides[k][d];
		nd++;
	}
	if (!nd) {
		/* A scalar, or all ones: one run of one element. */
		it->shape[0] = 1;
		for (k = 0; k < nops; k++)
			it->stride[k][0] = 0;
		nd = 1;
	}
	it->ndim = nd;
	memset(it->idx, 0, sizeof(it->idx));
	it->n = it->shape[nd - 1];
	for (k = 0; k < nops; k++) {
		it->off[k] = 0;
		it->step[k] = it->stride[k][nd - 1];
	}
	return true;
}

bool fw_iter_next(struct fw_iter *it)
{
	unsigned int d, k;

	/* An odometer over every dimension but the innermost. */
	for (d = it->ndim - 1; d-- > 0;) {
		if (++it->idx[d] < it->shape[d]) {
			for (k = 0; k < it->nops; k++)
				it->off[k] += it->stride[k][d];
			return true;
		}
		it->idx[d] = 0;
		for (k = 0; k < it->nops; k++)
			it->off[k] -= it->stride[k][d] *
				      (int64_t)(it->shape[d] - 1);
	}
	return false;
}

const void *fw_fetch(const struct fw_tensor *t, int64_t off, int64_t step,
		     size_t n, int dt, void *tmp, int64_t *stepp)
{
	const uint8_t *p = fw_elem(t, (uint64_t)off);
	size_t tsz = ipu_dtype_size(dt);
	size_t i;

	if (step == 0 || n == 1) {
		*stepp = 0;
		if (t->dtype == dt)
			return p;
		ipu_dtype_convert(tmp, dt, p, t->dtype, 1);
		return tmp;
	}
	*stepp = 1;
	if (step == 1) {
		if (t->dtype == dt)
			return p;
		ipu_dtype_convert(tmp, dt, p, t->dtype, n);
		return tmp;
	}
	for (i = 0; i < n; i++)
		ipu_dtype_convert((uint8_t *)tmp + i * tsz, dt,
				  p + (int64_t)i * step * (int64_t)t->esz,
				  t->dtype, 1);
	return tmp;
}
