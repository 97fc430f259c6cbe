/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * bench_prog.h - the benchmarks' program: y = op(x) over @n floats, in a
 * session on the model, attached (header-only). Public headers only.
 */
#ifndef IPU_BENCH_PROG_H
#define IPU_BENCH_PROG_H

#include <stdio.h>

#include <ipu/ir.h>
#include <ipu/session.h>

/* What bench_prog_session() puts between the load and the store. */
enum bench_prog { IDENTITY, ADD_SELF, TIMES_TWO };

/*
 * bench_prog_session() - the session, traced to @trace (NULL: not
 * traced); NULL on failure, said on stderr after "@who: ".
 */
static inline struct ipu_session *bench_prog_session(const char *who,
						     uint64_t n,
						     enum bench_prog op,
						     const char *trace)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .trace = trace);
	struct ipu_session *s = NULL;
	struct ipu_ir *ir = NULL;
	ipu_stream x, y;
	ipu_tensor t;

	if (ipu_ir_create("bench", &ir))
		return NULL;
	x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, &n);
	y = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, &n);
	t = ipu_ir_host_load(ir, x, NULL);
	if (op == ADD_SELF)
		t = ipu_ir_add(ir, t, t);
	else if (op == TIMES_TWO)
		t = ipu_ir_mul(ir, t, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 2));
	if (ipu_ir_host_store(ir, y, t)) {
		fprintf(stderr, "%s: %s\n", who, ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
		return NULL;
	}
	if (ipu_session_create(ir, &opts, &s)) {
		fprintf(stderr, "%s: create: %s\n", who,
			ipu_session_errmsg(NULL));
		return NULL;
	}
	if (ipu_session_attach(s)) {
		fprintf(stderr, "%s: attach: %s\n", who, ipu_session_errmsg(s));
		ipu_session_destroy(s);
		return NULL;
	}
	return s;
}

#endif /* IPU_BENCH_PROG_H */
