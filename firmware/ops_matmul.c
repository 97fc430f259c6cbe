// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ops_matmul.c - MATMUL: out[..., m, n] = a[..., m, k] x b[..., k, n], the
 * batch dimensions broadcast NumPy-style.
 *
 * Float32 goes straight to cblas_sgemm on the arena, one call per batch
 * element, or one call for the whole batch when b is shared by every batch
 * element and a's matrices follow each other (then they are one tall
 * matrix). Other float types are converted to float32 temporaries and their
 * result rounded once. Integers are exact: int64 products and sums (wrapping
 * like the other integer ops), wrapped to the output's width.
 */
#include <cblas.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fw_internal.h"

typedef void (*gemm_fn)(uint64_t m, uint64_t n, uint64_t k, const void *a,
			const void *b, void *c);

static void gemm_f32(uint64_t m, uint64_t n, uint64_t k, const void *a,
		     const void *b, void *c)
{
	if (!m || !n)
		return;
	/* BLAS rejects a leading dimension of 0; an empty sum is 0. */
	if (!k) {
		memset(c, 0, m * n * sizeof(float));
		return;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m,
		    (blasint)n, (blasint)k, 1.0f, a, (blasint)k, b, (blasint)n,
		    0.0f, c, (blasint)n);
}

static void gemm_i64(uint64_t m, uint64_t n, uint64_t k, const void *av,
		     const void *bv, void *cv)
{
	const int64_t *a = av, *b = bv;
	uint64_t *c = cv;
	uint64_t i, j, l;

	memset(c, 0, m * n * sizeof(*c));
	/* i-k-j order: rows of b and c are walked contiguously. */
	for (i = 0; i < m; i++)
		for (l = 0; l < k; l++) {
			uint64_t x = (uint64_t)a[i * k + l];

			for (j = 0; j < n; j++)
				c[i * n + j] += x * (uint64_t)b[l * n + j];
		}
}

/* @t's elements as type @dt: @t itself, or a converted copy in @slot. */
static void *as_type(struct fw_replica *rep, const struct fw_tensor *t,
		     int dt, unsigned int slot)
{
	void *p;

	if (t->dtype == dt)
		return t->p;
	p = fw_scratch(rep, slot, t->nelems * ipu_dtype_size(dt));
	if (p)
		ipu_dtype_convert(p, dt, t->p, t->dtype, t->nelems);
	return p;
}

static int shape_fail(struct fw_replica *rep, const struct fw_tensor *t,
		      const char *why)
{
	char s[3][__IPU_EXE_SHAPE_STRLEN];
	unsigned int i;

	for (i = 0; i < 3; i++)
		__ipu_exe_fmt_shape(s[i], sizeof(s[i]), t[i].ndim, t[i].shape);
	return fw_fail(rep, -EINVAL, "%s x %s into %s: %s", s[1], s[2], s[0],
		       why);
}

/* out, a, b: the matrix dimensions agree (BLAS takes them as ints). */
static bool matrix_dims(const struct fw_tensor *t, uint64_t *m, uint64_t *n,
			uint64_t *k)
{
	const struct fw_tensor *out = &t[0], *a = &t[1], *b = &t[2];

	if (out->ndim < 2 || a->ndim < 2 || b->ndim < 2)
		return false;
	*m = a->shape[a->ndim - 2];
	*k = a->shape[a->ndim - 1];
	*n = b->shape[b->ndim - 1];
	return b->shape[b->ndim - 2] == *k &&
	       out->shape[out->ndim - 2] == *m &&
	       out->shape[out->ndim - 1] == *n && *m <= INT_MAX &&
	       *n <= INT_MAX && *k <= INT_MAX;
}

int fw_op_matmul(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	int64_t strides[FW_ITER_MAX_OPS][IPU_EXE_MAX_DIMS];
	struct fw_tensor t[3];
	uint64_t m, n, k, j, mat[3];
	uint8_t *p[3];
	struct fw_iter it;
	unsigned int nb, i;
	gemm_fn gemm;
	size_t csz;
	bool isf;
	int cdt, err;

	err = fw_args(rep, in, 3, t, 0, NULL);
	if (err)
		return err;
	if (!matrix_dims(t, &m, &n, &k))
		return shape_fail(rep, t, "matrix dimensions do not agree");
	if (t[0].dtype == IPU_DTYPE_BOOL)
		return fw_fail(rep, -EINVAL, "not defined on bool tensors");

	/* Batch strides, in matrices. */
	nb = t[0].ndim - 2;
	fw_contig_strides(nb, t[0].shape, strides[0]);
	for (i = 1; i < 3; i++)
		if (fw_broadcast_strides(t[i].ndim - 2, t[i].shape, nb,
					 t[0].shape, strides[i]))
			return shape_fail(rep, t,
					  "batch dimensions do not broadcast");

	isf = ipu_dtype_is_float(t[0].dtype);
	cdt = isf ? IPU_DTYPE_FLOAT32 : IPU_DTYPE_INT64;
	csz = ipu_dtype_size(cdt);
	gemm = isf ? gemm_f32 : gemm_i64;
	for (i = 0; i < 3; i++) {
		p[i] = i ? as_type(rep, &t[i], cdt, i) :
			   t[0].dtype == cdt ? t[0].p :
			   fw_scratch(rep, 0, t[0].nelems * csz);
		if (!p[i])
			return fw_fail(rep, -ENOMEM, "no memory for temporaries");
	}
	mat[0] = m * n * csz;
	mat[1] = m * k * csz;
	mat[2] = k * n * csz;

	if (fw_iter_init(&it, nb, t[0].shape, 3,
			 (const int64_t (*)[IPU_EXE_MAX_DIMS])strides)) {
		do {
			if (it.n > 1 && it.step[1] == 1 && it.step[2] == 0 &&
			    m * it.n <= INT_MAX) {
				gemm(m * it.n, n, k, p[1] + it.off[1] * mat[1],
				     p[2] + it.off[2] * mat[2],
				     p[0] + it.off[0] * mat[0]);
				continue;
			}
			for (j = 0; j < it.n; j++)
				gemm(m, n, k,
				     p[1] + (it.off[1] + (int64_t)j * it.step[1]) * mat[1],
				     p[2] + (it.off[2] + (int64_t)j * it.step[2]) * mat[2],
				     p[0] + (it.off[0] + (int64_t)j * it.step[0]) * mat[0]);
		} while (fw_iter_next(&it));
	}
	if (p[0] != t[0].p)
		ipu_dtype_convert(t[0].p, t[0].dtype, p[0], cdt, t[0].nelems);
	return 0;
}
