// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_run.c - runs: buffers filled in place (S09), the set of
 * streams (S10), buffer shapes (S11), dtypes and downcasts (S12), the
 * sync state (S13), allocated outputs (S14, S15), expected inputs (S16),
 * one submission per run (S26), and runs that fail changing nothing
 * (S25).
 */
#include "session_helpers.h"

/* y = w (float32[2], 1 2) + x after x was added to w, per transfer. */
static struct ipu_session *acc(uint32_t replicas, uint32_t transfers)
{
	struct ipu_session *s = sh_session(sh_acc_ir(replicas, transfers, 2,
						     NULL));

	sh_attach(s);
	return s;
}

static int run_xy(struct ipu_session *s, struct ipu_host_buffer x,
		  struct ipu_host_buffer y)
{
	struct ipu_stream_buffer in = sh_sb("x", x), out = sh_sb("y", y);

	return ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0);
}

static void fill(float *p, size_t n, float first)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = first + (float)i;
}

/* ---------------------------------------------------------------------- */
/* S09                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S09_outputs_are_filled_in_place(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 10, 20 }, y[2] = { -1, -1 };
	const float want[2] = { 11, 22 };

	(void)state;
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

/* Slice (i, r) of a buffer is iteration i of replica r. */
static void test_S09_slices_go_to_their_replica_and_iteration(void **state)
{
	struct ipu_session *s = acc(4, 3);
	float x[3][4][2], y[3][4][2], want[3][4][2], w[4][2];
	uint32_t i, r, k;

	(void)state;
	fill(&x[0][0][0], 24, 0);
	for (r = 0; r < 4; r++)
		for (k = 0; k < 2; k++)
			w[r][k] = (float)k + 1;
	for (i = 0; i < 3; i++)
		for (r = 0; r < 4; r++)
			for (k = 0; k < 2; k++)
				want[i][r][k] = w[r][k] += x[i][r][k];
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 3ull, 4ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 3, 3ull, 4ull, 2ull));
	sh_assert_floats(&y[0][0][0], &want[0][0][0], 24);
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S10                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S10_unexpected_and_missing_inputs(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_stream_buffer in[2] = {
		sh_sb("z", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
		sh_sb("q", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
	};
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, in, 2, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "unexpected/missing inputs: unexpected: {'z', 'q'}, missing: {'x'}");
	assert_int_equal(ipu_session_run_with_outputs(s, NULL, 0, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "unexpected: {}, missing: {'x'}");
	ipu_session_destroy(s);
}

static void test_S10_unexpected_and_missing_outputs(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_stream_buffer in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1,
						       2ull));
	struct ipu_stream_buffer out = sh_sb("x", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "unexpected/missing outputs: unexpected: {'x'}, missing: {'y'}");
	ipu_session_destroy(s);
}

static void test_S10_stream_given_twice(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_stream_buffer in[2] = {
		sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
		sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
	};
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, in, 2, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "unexpected: {'x' (given twice)}, missing: {}");
	ipu_session_destroy(s);
}

static void test_S10_stream_without_a_name(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_stream_buffer in[2] = {
		sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
		sh_sb(NULL, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull)),
	};
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, in, 2, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "unexpected: {'(null)'}");
	ipu_session_destroy(s);
}

static void test_S10_inputs_array_missing(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float y[2];
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, NULL, 1, &out, 1, 0),
			 -EINVAL);
	sh_assert_msg(s, "1 inputs at NULL");
	ipu_session_destroy(s);
}

/*
 * Three inputs: y = a + 10 b + 100 c (float32[1] each), so that y says
 * which buffer went to which stream.
 */
static struct ipu_session *abc(void)
{
	struct ipu_ir *ir = sh_ir(1, 1);
	const char *names[3] = { "a", "b", "c" };
	uint64_t one = 1;
	ipu_tensor t, sum = { 0 };
	ipu_stream y;
	struct ipu_session *s;
	int k;

	for (k = 0; k < 3; k++) {
		t = sh_check(ir, ipu_ir_host_load(ir, sh_stream(ir, true,
				names[k], IPU_DTYPE_FLOAT32, 1, &one), NULL));
		t = sh_check(ir, ipu_ir_mul(ir, t, ipu_ir_scalar(ir,
				IPU_DTYPE_FLOAT32, k == 0 ? 1 : k == 1 ? 10 : 100)));
		sum = k ? sh_check(ir, ipu_ir_add(ir, sum, t)) : t;
	}
	y = sh_stream(ir, false, "y", IPU_DTYPE_FLOAT32, 1, &one);
	assert_int_equal(ipu_ir_host_store(ir, y, sum), 0);
	s = sh_session(ir);
	sh_attach(s);
	return s;
}

/* Run abc() with the inputs named @n0 @n1 @n2 holding 1, 2 and 3. */
static int run_abc(struct ipu_session *s, const char *n0, const char *n1,
		   const char *n2, float *y)
{
	float v[3] = { 1, 2, 3 };
	struct ipu_stream_buffer in[3] = {
		sh_sb(n0, sh_buf(&v[0], IPU_DTYPE_FLOAT32, 1, 1ull)),
		sh_sb(n1, sh_buf(&v[1], IPU_DTYPE_FLOAT32, 1, 1ull)),
		sh_sb(n2, sh_buf(&v[2], IPU_DTYPE_FLOAT32, 1, 1ull)),
	};
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 1ull));

	*y = -1;
	return ipu_session_run_with_outputs(s, in, 3, &out, 1, 0);
}

/* The buffers may come in any order: each goes to the stream it names
 * (the match starts where the program's order would put it). */
static void test_S10_buffers_in_any_order(void **state)
{
	static const char *const orders[6][3] = {
		{ "a", "b", "c" }, { "a", "c", "b" }, { "b", "a", "c" },
		{ "b", "c", "a" }, { "c", "a", "b" }, { "c", "b", "a" },
	};
	struct ipu_session *s = abc();
	float y;
	int k;

	(void)state;
	for (k = 0; k < 6; k++) {
		const char *const *o = orders[k];
		float want = 0;
		int i;

		assert_int_equal(run_abc(s, o[0], o[1], o[2], &y), 0);
		/* Buffer i holds i + 1, for the stream it names. */
		for (i = 0; i < 3; i++)
			want += (float)(i + 1) * (o[i][0] == 'a' ? 1 :
						  o[i][0] == 'b' ? 10 : 100);
		assert_true(y == want);
	}
	ipu_session_destroy(s);
}

/* As many buffers as streams is not every stream named: a buffer given
 * twice, or naming no stream, leaves one missing, and both are said. */
static void test_S10_as_many_buffers_as_streams_but_wrong(void **state)
{
	struct ipu_session *s = abc();
	float y;

	(void)state;
	assert_int_equal(run_abc(s, "a", "a", "c", &y), -EINVAL);
	sh_assert_msg(s, "unexpected/missing inputs: unexpected: {'a' (given twice)}, missing: {'b'}");
	assert_int_equal(run_abc(s, "c", "z", "a", &y), -EINVAL);
	sh_assert_msg(s, "unexpected/missing inputs: unexpected: {'z'}, missing: {'b'}");
	assert_int_equal(run_abc(s, "b", NULL, "c", &y), -EINVAL);
	sh_assert_msg(s, "unexpected: {'(null)'}, missing: {'a'}");
	assert_true(y == -1);
	/* The session is as it was: a run that names them all works. */
	assert_int_equal(run_abc(s, "c", "b", "a", &y), 0);
	assert_true(y == 3 + 20 + 100);
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S11                                                                     */
/* ---------------------------------------------------------------------- */

/* With d = 3 and r = 2: (3, 2, 2) is right, (5, 2, 2) too (3 used). */
static void test_S11_dim0_may_exceed_num_host_transfers(void **state)
{
	struct ipu_session *s = acc(2, 3);
	float x[5][2][2], y[5][2][2];
	uint32_t i;

	(void)state;
	fill(&x[0][0][0], 20, 1);
	for (i = 0; i < 20; i++)
		(&y[0][0][0])[i] = -7;
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 5ull, 2ull, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 3, 5ull, 2ull, 2ull)),
			 0);
	/* Iteration 2 of replica 1: w = (1, 2) + x[0][1] + x[1][1] + x[2][1] */
	assert_true(y[2][1][0] == 1 + 3 + 7 + 11);
	assert_true(y[2][1][1] == 2 + 4 + 8 + 12);
	/* Rows past d stay as they were. */
	for (i = 12; i < 20; i++)
		assert_true((&y[0][0][0])[i] == -7);
	ipu_session_destroy(s);
}

static void test_S11_dim0_must_be_at_least_num_host_transfers(void **state)
{
	struct ipu_session *s = acc(2, 3);
	float x[2][2][2] = { 0 }, y[3][2][2];

	(void)state;
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 3, 3ull, 2ull, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'x': dimension 0 (2) is not large enough: it should be at least num_host_transfers = 3");
	sh_assert_msg(s, "the full shape (3, 2, 2); got an array of shape (2, 2, 2)");
	ipu_session_destroy(s);
}

static void test_S11_replica_dim_must_match(void **state)
{
	struct ipu_session *s = acc(2, 3);
	float x[3][2][2] = { { { 0 } } }, y[3][4][2];

	(void)state;
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 3ull, 2ull, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 3, 3ull, 4ull, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "output stream 'y': dimension 1 (4) is the wrong size: it should be replication_factor = 2");
	sh_assert_msg(s, "got an array of shape (3, 4, 2)");
	ipu_session_destroy(s);
}

static void test_S11_replica_dim_missing(void **state)
{
	struct ipu_session *s = acc(2, 1);
	float x[2][2] = { { 0 } }, y[2][2];

	(void)state;
	/* d = 1: no iteration dim; the replica dim comes first. */
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull)),
			 0);
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 0),
				sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "dimension 0 (0) is the wrong size: it should be replication_factor = 2");
	ipu_session_destroy(s);
}

static void test_S11_stream_dims_must_match(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[4] = { 0 }, y[2];

	(void)state;
	/* d = r = 1: the buffer is the stream's shape, nothing more. */
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 1ull, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'x': shape mismatch: stream shape (2,), num_host_transfers 1 and replication_factor 1 give the full shape (2,); got an array of shape (1, 2)");
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 4ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "got an array of shape (4,)");
	ipu_session_destroy(s);
}

static void test_S11_too_many_dims(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_host_buffer b = sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	b.ndim = IPU_HOST_MAX_DIMS + 1;
	assert_int_equal(run_xy(s, b, sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "11 dimensions (at most 10)");
	ipu_session_destroy(s);
}

/* A one-element stream of shape (1, 1), d = 2. */
static struct ipu_session *one_elem_session(void)
{
	struct ipu_ir *ir = sh_ir(1, 2);
	const uint64_t shape[2] = { 1, 1 };
	ipu_stream x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 2, shape);
	ipu_stream y = sh_stream(ir, false, "y", IPU_DTYPE_FLOAT32, 2, shape);
	ipu_tensor t;
	int i;

	for (i = 0; i < 2; i++) {
		t = sh_check(ir, ipu_ir_host_load(ir, x, NULL));
		t = sh_check(ir, ipu_ir_neg(ir, t));
		assert_int_equal(ipu_ir_host_store(ir, y, t), 0);
	}
	return sh_session(ir);
}

static void test_S11_all_one_buffers_pass(void **state)
{
	struct ipu_session *s = one_elem_session();
	float x[2] = { 3, 4 }, y[2];

	(void)state;
	sh_attach(s);
	/* (2,) and (2, 1, 1, 1) both hold one element per transfer. */
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 4, 2ull, 1ull, 1ull,
				       1ull)),
			 0);
	assert_true(y[0] == -3 && y[1] == -4);
	ipu_session_destroy(s);
}

static void test_S11_all_one_buffer_of_a_bigger_stream(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[1] = { 0 }, y[2];

	(void)state;
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 1ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'x': the array holds 1 element per transfer, the stream 2");
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S12                                                                     */
/* ---------------------------------------------------------------------- */

/* f (float32[3]) and i (int32[3]) in; f + f and i + i out. */
static struct ipu_session *types_session(void)
{
	struct ipu_ir *ir = sh_ir(1, 1);
	uint64_t n = 3;
	ipu_stream f = sh_stream(ir, true, "f", IPU_DTYPE_FLOAT32, 1, &n);
	ipu_stream i = sh_stream(ir, true, "i", IPU_DTYPE_INT32, 1, &n);
	ipu_stream fo = sh_stream(ir, false, "fo", IPU_DTYPE_FLOAT32, 1, &n);
	ipu_stream io = sh_stream(ir, false, "io", IPU_DTYPE_INT32, 1, &n);
	ipu_tensor t;
	struct ipu_session *s;

	t = sh_check(ir, ipu_ir_host_load(ir, f, NULL));
	assert_int_equal(ipu_ir_host_store(ir, fo, sh_check(ir, ipu_ir_add(ir, t, t))),
			 0);
	t = sh_check(ir, ipu_ir_host_load(ir, i, NULL));
	assert_int_equal(ipu_ir_host_store(ir, io, sh_check(ir, ipu_ir_add(ir, t, t))),
			 0);
	s = sh_session(ir);
	sh_attach(s);
	return s;
}

static int run_types(struct ipu_session *s, struct ipu_host_buffer f,
		     struct ipu_host_buffer i, float *fo, int32_t *io,
		     unsigned int flags)
{
	struct ipu_stream_buffer in[2] = { sh_sb("f", f), sh_sb("i", i) };
	struct ipu_stream_buffer out[2] = {
		sh_sb("fo", sh_buf(fo, IPU_DTYPE_FLOAT32, 1, 3ull)),
		sh_sb("io", sh_buf(io, IPU_DTYPE_INT32, 1, 3ull)),
	};

	return ipu_session_run_with_outputs(s, in, 2, out, 2, flags);
}

static void test_S12_64_bit_inputs_are_downcast(void **state)
{
	struct ipu_session *s = types_session();
	double f[3] = { 0.5, -1.25, 1e10 };
	int64_t i[3] = { 7, -8, (1ll << 32) + 5 };
	const double f_was[3] = { 0.5, -1.25, 1e10 };
	float fo[3];
	int32_t io[3];

	(void)state;
	assert_int_equal(run_types(s, sh_buf(f, IPU_DTYPE_FLOAT64, 1, 3ull),
				   sh_buf(i, IPU_DTYPE_INT64, 1, 3ull), fo, io, 0),
			 0);
	assert_true(fo[0] == 1.0f && fo[1] == -2.5f && fo[2] == 2e10f);
	/* int64 -> int32 wraps, as NumPy's astype does. */
	assert_int_equal(io[0], 14);
	assert_int_equal(io[1], -16);
	assert_int_equal(io[2], 10);
	/* The caller's arrays are left alone. */
	assert_memory_equal(f, f_was, sizeof(f));
	assert_true(i[2] == (1ll << 32) + 5);
	ipu_session_destroy(s);
}

static void test_S12_no_downcast_refuses_64_bit_inputs(void **state)
{
	struct ipu_session *s = types_session();
	double f[3] = { 0 };
	int32_t i[3] = { 0 }, io[3];
	float fo[3];

	(void)state;
	assert_int_equal(run_types(s, sh_buf(f, IPU_DTYPE_FLOAT64, 1, 3ull),
				   sh_buf(i, IPU_DTYPE_INT32, 1, 3ull), fo, io,
				   IPU_RUN_NO_DOWNCAST),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'f': float64 data and IPU_RUN_NO_DOWNCAST: the stream takes float32");
	ipu_session_destroy(s);
}

static void test_S12_misaligned_64_bit_input(void **state)
{
	struct ipu_session *s = types_session();
	double f[4] = { 0 };
	int32_t i[3] = { 0 }, io[3];
	float fo[3];

	(void)state;
	assert_int_equal(run_types(s, sh_buf((char *)f + 4, IPU_DTYPE_FLOAT64, 1,
					     3ull),
				   sh_buf(i, IPU_DTYPE_INT32, 1, 3ull), fo, io, 0),
			 -EINVAL);
	sh_assert_msg(s, "is not aligned to its 8-byte elements");
	ipu_session_destroy(s);
}

static void test_S12_input_of_another_dtype(void **state)
{
	struct ipu_session *s = types_session();
	double f[3] = { 0 };
	int32_t i[3] = { 0 }, io[3];
	float fo[3];

	(void)state;
	/* float64 becomes float32, which the int32 stream does not take. */
	assert_int_equal(run_types(s, sh_buf(i, IPU_DTYPE_INT32, 1, 3ull),
				   sh_buf(f, IPU_DTYPE_FLOAT64, 1, 3ull), fo, io, 0),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'f': an array of dtype int32, the stream has dtype float32");
	assert_int_equal(run_types(s, sh_buf(fo, IPU_DTYPE_FLOAT32, 1, 3ull),
				   sh_buf(f, IPU_DTYPE_FLOAT64, 1, 3ull), fo, io, 0),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'i': an array of dtype float32 (downcast from float64), the stream has dtype int32");
	ipu_session_destroy(s);
}

static void test_S12_output_of_another_dtype(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 };
	double y[2];

	(void)state;
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT64, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "output stream 'y': an array of dtype float64, the stream has dtype float32");
	ipu_session_destroy(s);
}

static void test_S12_null_data(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float y[2];

	(void)state;
	assert_int_equal(run_xy(s, sh_buf(NULL, IPU_DTYPE_FLOAT32, 1, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'x': the array's data is NULL");
	ipu_session_destroy(s);
}

static void test_S12_unknown_run_flags(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 0 }, y[2];
	struct ipu_stream_buffer in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1,
						       2ull));
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							1, 2ull));

	(void)state;
	assert_int_equal(ipu_session_run_with_outputs(s, &in, 1, &out, 1, 1u << 9),
			 -EINVAL);
	sh_assert_msg(s, "run: unknown flags 0x200");
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S13-S16                                                                 */
/* ---------------------------------------------------------------------- */

static void test_S13_run_puts_host_weights_out_of_sync(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 5, 5 }, y[2], w[2];
	const float want[2] = { 6, 7 };
	uint64_t shape = 2;

	(void)state;
	assert_true(__ipu_session_in_sync(s));
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	assert_false(__ipu_session_in_sync(s));
	/* So reading w fetches it. */
	sh_get_f32(s, "w", w, 1, &shape);
	sh_assert_floats(w, want, 2);
	assert_true(__ipu_session_in_sync(s));
	ipu_session_destroy(s);
}

static void test_S14_run_allocates_the_outputs(void **state)
{
	struct ipu_session *s = acc(2, 2);
	float x[2][2][2];
	struct ipu_stream_buffer in, *out = NULL;
	size_t n = 0;

	(void)state;
	fill(&x[0][0][0], 8, 1);
	in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull));
	assert_int_equal(ipu_session_run(s, &in, 1, &out, &n, 0), 0);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].stream, "y");
	assert_int_equal(out[0].buf.ndim, 3);
	assert_int_equal(out[0].buf.shape[0], 2);
	assert_int_equal(out[0].buf.shape[1], 2);
	assert_int_equal(out[0].buf.shape[2], 2);
	/* Iteration 1 of replica 1: (1, 2) + (3, 4) + (7, 8). */
	assert_true(((float *)out[0].buf.data)[6] == 11);
	assert_true(((float *)out[0].buf.data)[7] == 14);
	ipu_session_free_buffers(out, n);
	ipu_session_destroy(s);
}

static void test_S14_failed_run_returns_no_outputs(void **state)
{
	struct ipu_session *s = acc(1, 1);
	struct ipu_stream_buffer in, *out = NULL;
	float x[3] = { 0 };
	size_t n = 9;

	(void)state;
	in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 3ull));
	assert_int_equal(ipu_session_run(s, &in, 1, &out, &n, 0), -EINVAL);
	assert_null(out);
	assert_int_equal(n, 9);
	assert_int_equal(ipu_session_run(s, &in, 1, NULL, &n, 0), -EINVAL);
	sh_assert_msg(s, "run: an out pointer is NULL");
	ipu_session_destroy(s);
}

static void test_S15_host_outputs_are_shaped_and_zeroed(void **state)
{
	static const struct {
		uint32_t replicas, transfers, ndim;
		uint64_t shape[4];
	} cases[] = {
		{ 1, 1, 1, { 2 } },	     { 4, 1, 2, { 4, 2 } },
		{ 1, 4, 2, { 4, 2 } },	     { 2, 4, 3, { 4, 2, 2 } },
	};
	struct ipu_stream_buffer *out;
	struct ipu_session *s;
	size_t i, n, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = sh_session(sh_acc_ir(cases[i].replicas, cases[i].transfers,
					 2, NULL));
		/* Detached is fine: nothing runs. */
		assert_int_equal(ipu_session_create_host_outputs(s, &out, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(out[0].stream, "y");
		assert_int_equal(out[0].buf.dtype, IPU_DTYPE_FLOAT32);
		assert_int_equal(out[0].buf.ndim, cases[i].ndim);
		assert_memory_equal(out[0].buf.shape, cases[i].shape,
				    cases[i].ndim * sizeof(uint64_t));
		for (k = 0; k < cases[i].replicas * cases[i].transfers * 2; k++)
			assert_true(((float *)out[0].buf.data)[k] == 0);
		ipu_session_free_buffers(out, n);
		ipu_session_destroy(s);
	}
}

static void test_S16_expected_inputs_and_outputs(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(2, 3, 2, NULL));
	const struct ipu_stream_desc *d;
	size_t n;

	(void)state;
	d = ipu_session_expected_inputs(s, &n);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "x");
	assert_int_equal(d[0].dtype, IPU_DTYPE_FLOAT32);
	assert_int_equal(d[0].ndim, 1);
	assert_int_equal(d[0].shape[0], 2);
	assert_int_equal(d[0].host_ndim, 3);
	assert_int_equal(d[0].host_shape[0], 3);
	assert_int_equal(d[0].host_shape[1], 2);
	assert_int_equal(d[0].host_shape[2], 2);
	d = ipu_session_expected_outputs(s, &n);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "y");
	assert_null(ipu_session_expected_inputs(NULL, &n));
	assert_int_equal(n, 0);
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S26                                                                     */
/* ---------------------------------------------------------------------- */

/* @n streams in ("x0".."), each out again negated ("y0"..). */
static struct ipu_session *streams_session(int n, uint32_t replicas,
					   uint32_t transfers)
{
	struct ipu_ir *ir = sh_ir(replicas, transfers);
	struct ipu_session *s;
	uint64_t len = 3;
	char name[16];
	int k;
	uint32_t i;

	for (k = 0; k < n; k++) {
		ipu_stream x, y;

		snprintf(name, sizeof(name), "x%d", k);
		x = sh_stream(ir, true, name, IPU_DTYPE_FLOAT32, 1, &len);
		snprintf(name, sizeof(name), "y%d", k);
		y = sh_stream(ir, false, name, IPU_DTYPE_FLOAT32, 1, &len);
		for (i = 0; i < transfers; i++)
			assert_int_equal(ipu_ir_host_store(ir, y,
							   sh_check(ir, ipu_ir_neg(ir,
									    sh_check(ir, ipu_ir_host_load(ir, x, NULL))))),
					 0);
	}
	s = sh_session(ir);
	sh_attach(s);
	return s;
}

/* Run it with x<k> = k + element; check y and count submissions. */
static uint64_t submissions_of_a_run(int n, uint32_t replicas,
				     uint32_t transfers)
{
	struct ipu_session *s = streams_session(n, replicas, transfers);
	const struct ipu_stream_desc *inputs = ipu_session_expected_inputs(s, NULL);
	size_t per = (size_t)replicas * transfers * 3;
	struct ipu_stream_buffer in[16], *out = NULL;
	float *x = calloc((size_t)n * per, sizeof(float));
	uint64_t before, used;
	char names[16][8];
	size_t nout;
	int k;

	assert_non_null(x);
	for (k = 0; k < n; k++) {
		snprintf(names[k], sizeof(names[k]), "x%d", k);
		fill(x + k * per, per, (float)k);
		in[k] = sh_sb(names[k], sh_buf_for(&inputs[k], x + k * per));
	}
	before = __ipu_session_submissions(s);
	assert_int_equal(ipu_session_run(s, in, (size_t)n, &out, &nout, 0), 0);
	used = __ipu_session_submissions(s) - before;
	for (k = 0; k < n; k++) {
		float *y = out[k].buf.data;
		size_t e;

		for (e = 0; e < per; e++)
			assert_true(y[e] == -x[k * per + e]);
	}
	ipu_session_free_buffers(out, nout);
	free(x);
	ipu_session_destroy(s);
	return used;
}

static void test_S26_one_submission_whatever_the_streams(void **state)
{
	(void)state;
	assert_int_equal(submissions_of_a_run(1, 1, 1), 1);
	assert_int_equal(submissions_of_a_run(16, 1, 1), 1);
	assert_int_equal(submissions_of_a_run(16, 4, 3), 1);
}

/* A run of more commands than a queue takes goes in three steps. */
static void test_S26_runs_beyond_a_queue_still_work(void **state)
{
	const uint32_t d = 2100, r = 16; /* 16 * (2 * 2100 + 1) commands */
	struct ipu_session *s = acc(r, d);
	float *x = malloc((size_t)d * r * 2 * sizeof(float));
	float *y = malloc((size_t)d * r * 2 * sizeof(float));
	uint64_t before;
	uint32_t i;

	(void)state;
	assert_non_null(x);
	assert_non_null(y);
	assert_true(__ipu_session_run_cmds(s) > IPU_QUEUE_MAX_ENTRIES);
	for (i = 0; i < d * r * 2; i++)
		x[i] = 1;
	before = __ipu_session_submissions(s);
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, (uint64_t)d,
					  (uint64_t)r, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 3, (uint64_t)d,
				       (uint64_t)r, 2ull)),
			 0);
	assert_true(__ipu_session_submissions(s) - before > 1);
	/* The last iteration of the last replica: (1, 2) + d. */
	assert_true(y[(size_t)d * r * 2 - 2] == 1 + (float)d);
	assert_true(y[(size_t)d * r * 2 - 1] == 2 + (float)d);
	free(x);
	free(y);
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S25                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S25_rejected_run_changes_nothing(void **state)
{
	struct ipu_session *s = acc(2, 2);
	float x[2][2][2], y[2][2][2], bad[2][3][2] = { { { 0 } } };
	float w[2];
	uint64_t subs, shape = 2;
	uint32_t i;

	(void)state;
	fill(&x[0][0][0], 8, 1);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull));
	sh_get_f32(s, "w", w, 1, &shape); /* in sync again */
	for (i = 0; i < 8; i++)
		(&y[0][0][0])[i] = -1;
	subs = __ipu_session_submissions(s);
	assert_int_equal(run_xy(s, sh_buf(bad, IPU_DTYPE_FLOAT32, 3, 2ull, 3ull,
					  2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull)),
			 -EINVAL);
	/* Nothing moved, nothing was written, the sync state stands. */
	assert_int_equal(__ipu_session_submissions(s), subs);
	for (i = 0; i < 8; i++)
		assert_true((&y[0][0][0])[i] == -1);
	assert_true(__ipu_session_in_sync(s));
	/* Replica 0's w was (1, 2) + (1, 2) + (5, 6); the next run goes on
	 * from there. */
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 3, 2ull, 2ull, 2ull));
	assert_true(y[0][0][0] == 7 + 1 && y[0][0][1] == 10 + 2);
	ipu_session_destroy(s);
}

static void test_S25_device_error_leaves_the_session_usable(void **state)
{
	struct ipu_session *s = acc(1, 1);
	float x[2] = { 1, 1 }, y[2];
	const float want[2] = { 2, 3 };

	(void)state;
	/* Someone takes the IPU from under the session. */
	assert_int_equal(ipu_device_detach(__ipu_session_replica_device(s, 0)), 0);
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 -EACCES);
	sh_assert_msg(s, "run: ");
	sh_assert_msg(s, ipu_device_name(__ipu_session_replica_device(s, 0)));
	sh_assert_msg(s, ": transfer (to device)");
	sh_assert_msg(s, "not attached");
	/* After a device error the session cannot know what the device
	 * holds: its host copies count as stale until a fetch (S25). */
	assert_false(__ipu_session_in_sync(s));
	assert_true(ipu_session_is_attached(s));
	assert_int_equal(ipu_device_attach(__ipu_session_replica_device(s, 0)), 0);
	assert_int_equal(run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
				sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull)),
			 0);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S09_outputs_are_filled_in_place),
		cmocka_unit_test(test_S09_slices_go_to_their_replica_and_iteration),
		cmocka_unit_test(test_S10_unexpected_and_missing_inputs),
		cmocka_unit_test(test_S10_unexpected_and_missing_outputs),
		cmocka_unit_test(test_S10_stream_given_twice),
		cmocka_unit_test(test_S10_stream_without_a_name),
		cmocka_unit_test(test_S10_inputs_array_missing),
		cmocka_unit_test(test_S10_buffers_in_any_order),
		cmocka_unit_test(test_S10_as_many_buffers_as_streams_but_wrong),
		cmocka_unit_test(test_S11_dim0_may_exceed_num_host_transfers),
		cmocka_unit_test(test_S11_dim0_must_be_at_least_num_host_transfers),
		cmocka_unit_test(test_S11_replica_dim_must_match),
		cmocka_unit_test(test_S11_replica_dim_missing),
		cmocka_unit_test(test_S11_stream_dims_must_match),
		cmocka_unit_test(test_S11_too_many_dims),
		cmocka_unit_test(test_S11_all_one_buffers_pass),
		cmocka_unit_test(test_S11_all_one_buffer_of_a_bigger_stream),
		cmocka_unit_test(test_S12_64_bit_inputs_are_downcast),
		cmocka_unit_test(test_S12_no_downcast_refuses_64_bit_inputs),
		cmocka_unit_test(test_S12_misaligned_64_bit_input),
		cmocka_unit_test(test_S12_input_of_another_dtype),
		cmocka_unit_test(test_S12_output_of_another_dtype),
		cmocka_unit_test(test_S12_null_data),
		cmocka_unit_test(test_S12_unknown_run_flags),
		cmocka_unit_test(test_S13_run_puts_host_weights_out_of_sync),
		cmocka_unit_test(test_S14_run_allocates_the_outputs),
		cmocka_unit_test(test_S14_failed_run_returns_no_outputs),
		cmocka_unit_test(test_S15_host_outputs_are_shaped_and_zeroed),
		cmocka_unit_test(test_S16_expected_inputs_and_outputs),
		cmocka_unit_test(test_S26_one_submission_whatever_the_streams),
		cmocka_unit_test(test_S26_runs_beyond_a_queue_still_work),
		cmocka_unit_test(test_S25_rejected_run_changes_nothing),
		cmocka_unit_test(test_S25_device_error_leaves_the_session_usable),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
