/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * session_helpers.h - shared setup of libsession's tests: a model of
 * small IPUs with the host's hardware hidden, programs built with the IR,
 * sessions on them, and host buffers. Header-only; everything static
 * inline. Public headers only (include/ipu/, test hooks from testing.h):
 * what a session test shows, an application could see.
 */
#ifndef IPU_TESTS_SESSION_HELPERS_H
#define IPU_TESTS_SESSION_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/ir.h>
#include <ipu/session.h>
#include <ipu/testing.h>

#include "model_helpers.h"

/* 16 IPUs: the largest programs here are 16 replicas. */
#define SH_DEVICES "16"

/*
 * Group setup: model_helpers.h's (small model IPUs, no IPU_DEVICE, the
 * machine's devices hidden) with SH_DEVICES IPUs and no
 * IPU_OFFLINE_DEVICE either.
 */
static inline int sh_group_setup(void **state)
{
	if (mh_group_setup(state))
		return -1;
	setenv("IPU_MODEL_DEVICES", SH_DEVICES, 1);
	unsetenv("IPU_OFFLINE_DEVICE");
	return __ipu_model_reinit();
}

#define sh_group_teardown mh_group_teardown

/* An ir with @replicas replicas and @transfers host transfers. */
static inline struct ipu_ir *sh_ir(uint32_t replicas, uint32_t transfers)
{
	struct ipu_ir *ir = NULL;

	assert_int_equal(ipu_ir_create("test", &ir), 0);
	assert_int_equal(ipu_ir_set_replication_factor(ir, replicas), 0);
	assert_int_equal(ipu_ir_set_num_host_transfers(ir, transfers), 0);
	return ir;
}

static inline ipu_tensor sh_check(struct ipu_ir *ir, ipu_tensor t)
{
	if (ipu_tensor_error(t))
		fail_msg("building the program: %s", ipu_ir_errmsg(ir));
	return t;
}

/* A float32 variable of @n elements, @init[i] (NULL: zeros). */
static inline ipu_tensor sh_var(struct ipu_ir *ir, const char *name,
				uint64_t n, const float *init,
				const struct ipu_ir_variable_opts *opts)
{
	return sh_check(ir, ipu_ir_variable(ir, name, IPU_DTYPE_FLOAT32, 1, &n,
					    init, opts));
}

static inline ipu_stream sh_stream(struct ipu_ir *ir, bool h2d,
				   const char *name, enum ipu_dtype dt,
				   size_t ndim, const uint64_t *shape)
{
	ipu_stream s = h2d ? ipu_ir_h2d_stream(ir, name, dt, ndim, shape) :
			     ipu_ir_d2h_stream(ir, name, dt, ndim, shape);

	if (ipu_stream_error(s))
		fail_msg("stream %s: %s", name, ipu_ir_errmsg(ir));
	return s;
}

/*
 * The accumulator: variable "w" (float32[@n], w[i] = 100 * g + i + 1 at
 * first in group g, one value per group of @opts->grouping or for all
 * replicas), and per host transfer, in a repeated subgraph:
 * x = host_load("x"); w += x; host_store("y", w + 0).
 */
static inline struct ipu_ir *
sh_acc_ir(uint32_t replicas, uint32_t transfers, uint64_t n,
	  const struct ipu_ir_variable_opts *opts)
{
	struct ipu_ir *ir = sh_ir(replicas, transfers);
	uint32_t groups = 1, i, k;
	ipu_stream x, y;
	ipu_tensor w, t;
	ipu_graph step;
	float *init;

	if (opts && opts->grouping)
		groups = replicas / opts->grouping->group_size;
	init = calloc(groups * n, sizeof(*init));
	assert_non_null(init);
	for (k = 0; k < groups; k++)
		for (i = 0; i < n; i++)
			init[k * n + i] = (float)(k * 100 + i + 1);
	w = sh_var(ir, "w", n, opts && opts->mmap_path ? NULL : init, opts);
	free(init);
	x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 1, &n);
	y = sh_stream(ir, false, "y", IPU_DTYPE_FLOAT32, 1, &n);
	step = ipu_ir_create_graph(ir, "step");
	assert_int_equal(ipu_graph_error(step), 0);
	assert_int_equal(ipu_ir_push_graph(ir, step), 0);
	t = sh_check(ir, ipu_ir_host_load(ir, x, NULL));
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, w, t, 1, 1), 0);
	t = sh_check(ir, ipu_ir_add(ir, w,
				    ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 0)));
	assert_int_equal(ipu_ir_host_store(ir, y, t), 0);
	assert_int_equal(ipu_ir_pop_graph(ir), 0);
	if (ipu_ir_repeat(ir, step, transfers, NULL, 0, NULL, 0))
		fail_msg("repeat: %s", ipu_ir_errmsg(ir));
	return ir;
}

/* A session on "ipu_model" (or @device) for @ir, which must work. */
static inline struct ipu_session *sh_session_on(struct ipu_ir *ir,
						const char *device)
{
	IPU_OPTS(ipu_session_opts, opts, .device = device,
		 .attach_timeout_ms = 1);
	struct ipu_session *s = NULL;

	if (ipu_session_create(ir, &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	return s;
}

static inline struct ipu_session *sh_session(struct ipu_ir *ir)
{
	return sh_session_on(ir, "ipu_model");
}

/* The device sh_session_in() uses: the guest's copies make it "ipu_hw". */
#ifndef SH_DEVICE
#define SH_DEVICE "ipu_model"
#endif

/*
 * A session_create() of a test's own that failed with @err: the guest's
 * PCI runs skip the test when there are too few IPUs for its program
 * (ksession.h); here nothing: the test fails as it would.
 */
#ifndef sh_too_few
#define sh_too_few(err) ((void)(err))
#endif

/* sh_session() whose memory-mapped variables' files are in @data_dir. */
static inline struct ipu_session *sh_session_in(struct ipu_ir *ir,
						const char *data_dir)
{
	IPU_OPTS(ipu_session_opts, opts, .device = SH_DEVICE,
		 .attach_timeout_ms = 1, .data_dir = data_dir);
	struct ipu_session *s = NULL;

	if (ipu_session_create(ir, &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	return s;
}

static inline void sh_attach(struct ipu_session *s)
{
	if (ipu_session_attach(s))
		fail_msg("attach: %s", ipu_session_errmsg(s));
}

static inline struct ipu_host_buffer sh_buf(void *data, enum ipu_dtype dt,
					    uint32_t ndim, ...)
{
	struct ipu_host_buffer b = { .data = data, .dtype = dt, .ndim = ndim };
	va_list ap;
	uint32_t i;

	va_start(ap, ndim);
	for (i = 0; i < ndim; i++)
		b.shape[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return b;
}

/* A buffer at @data of stream @d's dtype and full host shape (S11). */
static inline struct ipu_host_buffer
sh_buf_for(const struct ipu_stream_desc *d, void *data)
{
	struct ipu_host_buffer b = { .data = data, .dtype = d->dtype,
				     .ndim = d->host_ndim };

	memcpy(b.shape, d->host_shape, sizeof(b.shape));
	return b;
}

static inline struct ipu_stream_buffer sh_sb(const char *stream,
					     struct ipu_host_buffer b)
{
	struct ipu_stream_buffer sb = { .stream = stream, .buf = b };

	return sb;
}

/* Run with the one input "x" and the one output "y"; must work. */
static inline void sh_run_xy(struct ipu_session *s, struct ipu_host_buffer x,
			     struct ipu_host_buffer y)
{
	struct ipu_stream_buffer in = sh_sb("x", x), out = sh_sb("y", y);

	if (ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0))
		fail_msg("run: %s", ipu_session_errmsg(s));
}

/*
 * Run the accumulator of sh_acc_ir(1, 1, 2, ...) with x = {@x0, @x0},
 * its output into @y (2 floats), set to @fill first so that a test sees
 * whether the output came. Return: the run's error code.
 */
static inline int sh_run_acc(struct ipu_session *s, float x0, float *y,
			     float fill)
{
	float x[2] = { x0, x0 };
	struct ipu_stream_buffer in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32,
							1, 2ull)),
				 out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							 1, 2ull));

	y[0] = y[1] = fill;
	return ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0);
}

/* Resets of model:@n so far, through a handle of our own. */
static inline uint64_t sh_model_resets(unsigned int n)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_device *dev = mh_open(n, false);

	assert_int_equal(ipu_device_query(dev, &info), 0);
	ipu_device_close(dev);
	return info.reset_count;
}

/* Read float32 tensor @name (@n elements of host data) into @dst. */
static inline void sh_get_f32(struct ipu_session *s, const char *name,
			      float *dst, uint32_t ndim, const uint64_t *shape)
{
	struct ipu_host_buffer b = { .data = dst, .dtype = IPU_DTYPE_FLOAT32,
				     .ndim = ndim };

	memcpy(b.shape, shape, ndim * sizeof(*shape));
	if (ipu_session_get_tensor_data(s, name, &b))
		fail_msg("get_tensor_data(%s): %s", name,
			 ipu_session_errmsg(s));
}

/*
 * The host copy of float32 tensor @name, @n floats, as @s holds it
 * without fetching (with @per_replica, the per-replica values, S20).
 */
static inline void sh_host_f32(const struct ipu_session *s, const char *name,
			       bool per_replica, float *dst, size_t n)
{
	const void *p;
	size_t len;
	int err = __ipu_session_host_copy(s, name, per_replica, &p, &len);

	if (err)
		fail_msg("host copy of %s: %d", name, err);
	assert_int_equal(len, n * sizeof(float));
	memcpy(dst, p, len);
}

static inline void sh_assert_floats(const float *got, const float *want,
				    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("element %zu: got %g, want %g", i,
				 (double)got[i], (double)want[i]);
}

/* The message of the last failure on @s contains @needle. */
#define sh_assert_msg(s, needle)                                            \
	do {                                                                \
		const char *m_ = ipu_session_errmsg(s);                     \
		if (!strstr(m_, (needle)))                                  \
			fail_msg("message \"%s\" lacks \"%s\"", m_, (needle)); \
	} while (0)

#endif /* IPU_TESTS_SESSION_HELPERS_H */
