// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_check_shape.c - ipu_session_check_shape(), S11's one shape
 * checker (userspace/session/shape.c): what it accepts and refuses, and
 * that a run gives the same verdict in the same words, so that a tool
 * asking it first (ipu-run) accepts exactly what a run accepts.
 *
 * Public headers only: this runs against the shared libraries too.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ipu/ir.h>
#include <ipu/session.h>

#define T 3	/* num_host_transfers */
#define R 2	/* replicas */

/*
 * y = x * s on T transfers and R replicas: x [2, 3] and s [] in, y [2, 3]
 * out, on the model, attached.
 */
static int setup(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model");
	const uint64_t xs[2] = { 2, 3 };
	struct ipu_session *s = NULL;
	struct ipu_ir *ir = NULL;
	ipu_stream x, sc, y;
	ipu_graph body;
	int err;

	if (ipu_ir_create("check_shape", &ir) ||
	    ipu_ir_set_num_host_transfers(ir, T) ||
	    ipu_ir_set_replication_factor(ir, R))
		return -1;
	x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 2, xs);
	sc = ipu_ir_h2d_stream(ir, "s", IPU_DTYPE_FLOAT32, 0, NULL);
	y = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 2, xs);
	/* Each stream once per transfer: a body repeated T times. */
	body = ipu_ir_create_graph(ir, "body");
	ipu_ir_push_graph(ir, body);
	err = ipu_ir_host_store(ir, y, ipu_ir_mul(ir, ipu_ir_host_load(ir, x, NULL),
						  ipu_ir_host_load(ir, sc, NULL)));
	ipu_ir_pop_graph(ir);
	if (err || ipu_ir_repeat(ir, body, T, NULL, 0, NULL, 0)) {
		fprintf(stderr, "%s\n", ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
		return -1;
	}
	if (ipu_session_create(ir, &opts, &s)) {
		fprintf(stderr, "%s\n", ipu_session_errmsg(NULL));
		return -1;
	}
	if (ipu_session_attach(s)) {
		fprintf(stderr, "%s\n", ipu_session_errmsg(s));
		ipu_session_destroy(s);
		return -1;
	}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	ipu_session_destroy(*state);
	return 0;
}

#define SHAPE(...) ((const uint64_t[]){ __VA_ARGS__ })
#define NDIM(...) (sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static char msg[1024];

/* ipu_session_check_shape(), its message kept in msg. */
static int check(struct ipu_session *s, const char *stream, uint32_t ndim,
		 const uint64_t *shape)
{
	int ret = ipu_session_check_shape(s, stream, ndim, shape);

	snprintf(msg, sizeof(msg), "%s", ret ? ipu_session_errmsg(s) : "");
	return ret;
}

/*
 * A run with x of shape (@ndim, @shape), s and y well shaped: its return
 * value, its message compared with @want (the checker's) when it fails.
 */
static int run_with_x(struct ipu_session *s, uint32_t ndim,
		      const uint64_t *shape, const char *want)
{
	static float xbuf[5 * R * 2 * 3], sbuf[T * R], ybuf[T * R * 2 * 3];
	struct ipu_stream_buffer in[2] = {
		{ .stream = "x", .buf = { .data = xbuf,
					  .dtype = IPU_DTYPE_FLOAT32,
					  .ndim = ndim } },
		{ .stream = "s", .buf = { .data = sbuf,
					  .dtype = IPU_DTYPE_FLOAT32,
					  .ndim = 2, .shape = { T, R } } },
	};
	struct ipu_stream_buffer out = {
		.stream = "y", .buf = { .data = ybuf,
					.dtype = IPU_DTYPE_FLOAT32, .ndim = 4,
					.shape = { T, R, 2, 3 } },
	};
	uint64_t n = 1;
	int ret;

	for (uint32_t i = 0; i < ndim; i++) {
		in[0].buf.shape[i] = shape[i];
		n *= shape[i];
	}
	assert_true(n <= sizeof(xbuf) / sizeof(xbuf[0]));
	ret = ipu_session_run_with_outputs(s, in, 2, &out, 1, 0);
	if (ret)
		assert_string_equal(ipu_session_errmsg(s), want);
	return ret;
}

static void test_S11_fitting_shapes_pass_as_in_a_run(void **state)
{
	struct ipu_session *s = *state;

	/* Exactly (d, r) + shape; dim 0 larger than d. */
	assert_int_equal(check(s, "x", 4, SHAPE(T, R, 2, 3)), 0);
	assert_int_equal(run_with_x(s, 4, SHAPE(T, R, 2, 3), ""), 0);
	assert_int_equal(check(s, "x", 4, SHAPE(5, R, 2, 3)), 0);
	assert_int_equal(run_with_x(s, 4, SHAPE(5, R, 2, 3), ""), 0);
	/* A scalar stream: (d, r), or data dims all 1, however many. */
	assert_int_equal(check(s, "s", 2, SHAPE(T, R)), 0);
	assert_int_equal(check(s, "s", 3, SHAPE(T, R, 1)), 0);
	assert_int_equal(check(s, "s", 4, SHAPE(T, R, 1, 1)), 0);
	/* Outputs too. */
	assert_int_equal(check(s, "y", 4, SHAPE(T, R, 2, 3)), 0);
}

static void test_S11_misfits_are_refused_in_a_runs_words(void **state)
{
	static const struct {
		uint32_t ndim;
		uint64_t shape[5];
		const char *says;
	} bad[] = {
		{ 4, { 2, R, 2, 3 }, "dimension 0 (2) is not large enough: it should be at least num_host_transfers = 3" },
		{ 4, { T, 1, 2, 3 }, "dimension 1 (1) is the wrong size: it should be replication_factor = 2" },
		{ 4, { T, R, 3, 2 }, "shape mismatch" },
		{ 3, { T, R, 6 }, "shape mismatch" },
		{ 2, { T, R }, "the array holds 1 element per transfer, the stream 6" },
		{ 3, { R, 2, 3 }, "dimension 0 (2) is not large enough" },
		{ 0, { 0 }, "dimension 0 (0) is not large enough" },
	};
	struct ipu_session *s = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(check(s, "x", bad[i].ndim, bad[i].shape),
				 -EINVAL);
		if (!strstr(msg, "input stream 'x': ") ||
		    !strstr(msg, bad[i].says) ||
		    !strstr(msg, "give the full shape (3, 2, 2, 3)"))
			fail_msg("case %zu: '%s' does not say '%s'", i, msg,
				 bad[i].says);
		/* A run refuses it with the very same message. */
		assert_int_equal(run_with_x(s, bad[i].ndim, bad[i].shape, msg),
				 -EINVAL);
	}
	assert_int_equal(check(s, "y", 4, SHAPE(T, R, 2, 2)), -EINVAL);
	assert_non_null(strstr(msg, "output stream 'y': "));
}

static void test_S11_bad_arguments_are_errors(void **state)
{
	struct ipu_session *s = *state;

	assert_int_equal(check(s, "nope", 4, SHAPE(T, R, 2, 3)), -EINVAL);
	assert_non_null(strstr(msg, "no stream 'nope'"));
	assert_int_equal(check(s, NULL, 4, SHAPE(T, R, 2, 3)), -EINVAL);
	assert_int_equal(check(s, "x", 4, NULL), -EINVAL);
	assert_int_equal(check(s, "x", 100, SHAPE(T, R, 2, 3)), -EINVAL);
	assert_non_null(strstr(msg, "100 dimensions"));
	assert_int_equal(ipu_session_check_shape(NULL, "x", 0, NULL), -EINVAL);
	/* The session is still usable, and in sync as before. */
	assert_int_equal(run_with_x(s, 4, SHAPE(T, R, 2, 3), ""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S11_fitting_shapes_pass_as_in_a_run),
		cmocka_unit_test(test_S11_misfits_are_refused_in_a_runs_words),
		cmocka_unit_test(test_S11_bad_arguments_are_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
