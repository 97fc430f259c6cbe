// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_matmul.c - MATMUL through the firmware executor against a direct
 * cblas_sgemm on the same shapes and the same memory (square float32 of
 * 256, 1024, 2048): the executor's overhead on top of BLAS.
 *
 * The two are timed alternately and each keeps its best time, so that a
 * noisy neighbour or frequency scaling hits both alike. Prints, per size:
 *
 *	bench model.matmul_<n>.gflops <x> GFLOP/s
 *	bench model.matmul_<n>.cblas_gflops <x> GFLOP/s
 *	bench model.matmul_<n>.ratio_vs_cblas <x> x
 *
 * No timing is asserted; the exit status says only whether it ran.
 */
#include <cblas.h>
#include <stdio.h>
#include <time.h>

#include "unit/exe_builder.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(uint64_t n, int reps)
{
	struct eb *b = eb_new(1, 1);
	uint32_t ta = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n, n));
	uint32_t tb = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n, n));
	uint32_t tc = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n, n));
	double best_exe = 1e30, best_blas = 1e30, t, flops = 2.0 * n * n * n;
	float *A, *B, *C;
	int i;

	eb_op(b, IPU_OP_MATMUL, EB_U32(tc, ta, tb), EB_NONE);
	eb_alloc(b);
	eb_fill(b, 0, ta, 1, -1, 1);
	eb_fill(b, 0, tb, 2, -1, 1);
	A = eb_ptr(b, 0, ta);
	B = eb_ptr(b, 0, tb);
	C = eb_ptr(b, 0, tc);
	/* Validated once, as a loaded executable is; warm both paths up. */
	if (eb_run(b)) {
		eb_free(b);
		return 1;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n,
		    (int)n, 1.0f, A, (int)n, B, (int)n, 0.0f, C, (int)n);
	for (i = 0; i < reps; i++) {
		t = now();
		if (eb_run_raw(b)) {
			fprintf(stderr, "bench_matmul: %s\n", b->err);
			eb_free(b);
			return 1;
		}
		t = now() - t;
		best_exe = t < best_exe ? t : best_exe;

		t = now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n,
			    (int)n, (int)n, 1.0f, A, (int)n, B, (int)n, 0.0f, C,
			    (int)n);
		t = now() - t;
		best_blas = t < best_blas ? t : best_blas;
	}
	printf("bench model.matmul_%llu.gflops %.2f GFLOP/s\n",
	       (unsigned long long)n, flops / best_exe * 1e-9);
	printf("bench model.matmul_%llu.cblas_gflops %.2f GFLOP/s\n",
	       (unsigned long long)n, flops / best_blas * 1e-9);
	printf("bench model.matmul_%llu.ratio_vs_cblas %.3f x\n",
	       (unsigned long long)n, best_blas / best_exe);
	eb_free(b);
	return 0;
}

int main(void)
{
	return bench(256, 200) || bench(1024, 10) || bench(2048, 4);
}
