// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_weights.c - variables and constants between host and
 * device: weights_from_host (S17), weights_to_host (S18), reading them
 * (S19), writing them (S21), and what tensor_desc reports.
 */
#include "session_helpers.h"

/*
 * w (float32[2], 1 2) += x; v (float32[3], 10 20 30) += 1; constant c
 * (7 8); y = mid = w + c.
 */
static struct ipu_session *two_vars(bool attach)
{
	static const float v0[3] = { 10, 20, 30 }, c0[2] = { 7, 8 },
			   ones[3] = { 1, 1, 1 };
	static const float w0[2] = { 1, 2 };
	struct ipu_ir *ir = sh_ir(1, 1);
	uint64_t two = 2, three = 3;
	ipu_tensor w = sh_var(ir, "w", 2, w0, NULL);
	ipu_tensor v = sh_var(ir, "v", 3, v0, NULL);
	ipu_tensor c = sh_check(ir, ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32,
						    1, &two, c0));
	ipu_tensor one = sh_check(ir, ipu_ir_constant(ir, "ones",
						      IPU_DTYPE_FLOAT32, 1,
						      &three, ones));
	ipu_stream x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 1, &two);
	ipu_stream y = sh_stream(ir, false, "y", IPU_DTYPE_FLOAT32, 1, &two);
	ipu_tensor t = sh_check(ir, ipu_ir_host_load(ir, x, NULL));
	struct ipu_session *s;

	assert_int_equal(ipu_ir_scaled_add_inplace(ir, w, t, 1, 1), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, v, one, 1, 1), 0);
	t = sh_check(ir, ipu_ir_add(ir, w, c));
	assert_int_equal(ipu_ir_tensor_set_name(ir, t, "mid"), 0);
	assert_int_equal(ipu_ir_host_store(ir, y, t), 0);
	s = sh_session(ir);
	if (attach)
		sh_attach(s);
	return s;
}

static void run_x(struct ipu_session *s, float x0, float *y)
{
	float x[2] = { x0, x0 };

	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
}

static const uint64_t shape2 = 2, shape3 = 3;

/* ---------------------------------------------------------------------- */
/* S17, S18                                                                */
/* ---------------------------------------------------------------------- */

static void test_S17_weights_from_host_sends_the_host_copies(void **state)
{
	struct ipu_session *s = two_vars(true);
	const float want[2] = { 8, 10 };
	float y[2];

	(void)state;
	run_x(s, 5, y); /* w = 6 7 on the device, 1 2 on the host */
	assert_int_equal(ipu_session_weights_from_host(s), 0);
	assert_true(__ipu_session_in_sync(s));
	run_x(s, 0, y); /* back to 1 2 */
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

static void test_S17_weights_from_host_detached(void **state)
{
	struct ipu_session *s = two_vars(false);

	(void)state;
	assert_int_equal(ipu_session_weights_from_host(s), -EPERM);
	sh_assert_msg(s, "attach first");
	assert_int_equal(ipu_session_weights_from_host(NULL), -EINVAL);
	ipu_session_destroy(s);
}

static void test_S18_weights_to_host_fetches_every_variable(void **state)
{
	struct ipu_session *s = two_vars(true);
	const float want_w[2] = { 4, 5 }, want_v[3] = { 11, 21, 31 };
	float y[2], w[2], v[3];

	(void)state;
	run_x(s, 3, y);
	assert_false(__ipu_session_in_sync(s));
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	assert_true(__ipu_session_in_sync(s));
	/* Left without a fetch: the host copies are what was fetched. */
	assert_int_equal(ipu_session_detach(s, IPU_DETACH_ERROR), 0);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_get_f32(s, "v", v, 1, &shape3);
	sh_assert_floats(w, want_w, 2);
	sh_assert_floats(v, want_v, 3);
	ipu_session_destroy(s);
}

static void test_S18_weights_to_host_detached(void **state)
{
	struct ipu_session *s = two_vars(false);

	(void)state;
	assert_int_equal(ipu_session_weights_to_host(s), -EPERM);
	sh_assert_msg(s, "weights_to_host: the session is not attached");
	assert_int_equal(ipu_session_weights_to_host(NULL), -EINVAL);
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S19                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S19_a_variable_is_fetched_once(void **state)
{
	struct ipu_session *s = two_vars(true);
	const float want[2] = { 3, 4 };
	float y[2], w[2];
	uint64_t subs;

	(void)state;
	run_x(s, 2, y);
	subs = __ipu_session_submissions(s);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_assert_floats(w, want, 2);
	assert_int_equal(__ipu_session_submissions(s), subs + 1);
	/* In sync now: no fetch. */
	sh_get_f32(s, "w", w, 1, &shape2);
	assert_int_equal(__ipu_session_submissions(s), subs + 1);
	ipu_session_destroy(s);
}

static void test_S19_constants_never_fetch(void **state)
{
	struct ipu_session *s = two_vars(true);
	const float want[2] = { 7, 8 };
	float y[2], c[2];
	uint64_t subs;

	(void)state;
	run_x(s, 2, y);
	subs = __ipu_session_submissions(s);
	sh_get_f32(s, "c", c, 1, &shape2);
	sh_assert_floats(c, want, 2);
	assert_int_equal(__ipu_session_submissions(s), subs);
	assert_false(__ipu_session_in_sync(s));
	ipu_session_destroy(s);
}

static void test_S19_detached_reads_the_host_copy(void **state)
{
	struct ipu_session *s = two_vars(false);
	const float want[3] = { 10, 20, 30 };
	float v[3];

	(void)state;
	sh_get_f32(s, "v", v, 1, &shape3);
	sh_assert_floats(v, want, 3);
	assert_int_equal(__ipu_session_submissions(s), 0);
	ipu_session_destroy(s);
}

static void test_S19_several_tensors_fetch_once(void **state)
{
	struct ipu_session *s = two_vars(true);
	const char *const names[3] = { "w", "c", "v" };
	const float want_w[2] = { 2, 3 }, want_c[2] = { 7, 8 },
		    want_v[3] = { 11, 21, 31 };
	float y[2], w[2], c[2], v[3];
	struct ipu_host_buffer dst[3] = {
		sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull),
		sh_buf(c, IPU_DTYPE_FLOAT32, 1, 2ull),
		sh_buf(v, IPU_DTYPE_FLOAT32, 1, 3ull),
	};
	uint64_t subs;

	(void)state;
	run_x(s, 1, y);
	subs = __ipu_session_submissions(s);
	assert_int_equal(ipu_session_get_tensors_data(s, names, dst, 3), 0);
	assert_int_equal(__ipu_session_submissions(s), subs + 1);
	sh_assert_floats(w, want_w, 2);
	sh_assert_floats(c, want_c, 2);
	sh_assert_floats(v, want_v, 3);
	ipu_session_destroy(s);
}

static void test_S19_only_variables_and_constants(void **state)
{
	struct ipu_session *s = two_vars(true);
	float m[2];
	struct ipu_host_buffer b = sh_buf(m, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_get_tensor_data(s, "mid", &b), -ENOTSUP);
	sh_assert_msg(s, "'mid' is not of type Constant or Variable");
	ipu_session_destroy(s);
}

static void test_S19_unknown_tensor(void **state)
{
	struct ipu_session *s = two_vars(true);
	float m[2];
	struct ipu_host_buffer b = sh_buf(m, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_get_tensor_data(s, "nope", &b), -ENOENT);
	sh_assert_msg(s, "get_tensor_data: the program has no tensor 'nope'");
	assert_int_equal(ipu_session_get_tensor_data(s, NULL, &b), -EINVAL);
	sh_assert_msg(s, "the tensor name is NULL");
	ipu_session_destroy(s);
}

static void test_S19_wrong_dtype(void **state)
{
	struct ipu_session *s = two_vars(true);
	int32_t m[2];
	struct ipu_host_buffer b = sh_buf(m, IPU_DTYPE_INT32, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_get_tensor_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the dtype of the array int32 must match the equivalent type of the tensor 'w': float32");
	ipu_session_destroy(s);
}

static void test_S19_wrong_shape(void **state)
{
	struct ipu_session *s = two_vars(true);
	float m[2][2];
	struct ipu_host_buffer b = sh_buf(m, IPU_DTYPE_FLOAT32, 2, 1ull, 2ull);

	(void)state;
	assert_int_equal(ipu_session_get_tensor_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the shape of the array (1, 2) must match the shape of the tensor 'w' on the host: (2,)");
	ipu_session_destroy(s);
}

static void test_S19_null_destination(void **state)
{
	struct ipu_session *s = two_vars(true);
	struct ipu_host_buffer b = sh_buf(NULL, IPU_DTYPE_FLOAT32, 1, 2ull);
	const char *name = "w";

	(void)state;
	assert_int_equal(ipu_session_get_tensor_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the array for 'w' has NULL data");
	assert_int_equal(ipu_session_get_tensor_data(s, "w", NULL), -EINVAL);
	sh_assert_msg(s, "dst is NULL");
	assert_int_equal(ipu_session_get_tensors_data(s, &name, NULL, 1),
			 -EINVAL);
	sh_assert_msg(s, "dsts is NULL");
	ipu_session_destroy(s);
}

static void test_S19_tensor_desc(void **state)
{
	struct ipu_session *s = two_vars(false);
	struct ipu_tensor_desc d;

	(void)state;
	assert_int_equal(ipu_session_tensor_desc(s, "v", &d), 0);
	assert_string_equal(d.name, "v");
	assert_true(d.is_variable);
	assert_int_equal(d.dtype, IPU_DTYPE_FLOAT32);
	assert_int_equal(d.ndim, 1);
	assert_int_equal(d.shape[0], 3);
	assert_int_equal(ipu_session_tensor_desc(s, "c", &d), 0);
	assert_false(d.is_variable);
	assert_int_equal(ipu_session_tensor_desc(s, "mid", &d), -ENOTSUP);
	assert_int_equal(ipu_session_tensor_desc(s, "nope", &d), -ENOENT);
	sh_assert_msg(s, "tensor_desc: the program has no tensor 'nope'");
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* S21                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S21_write_reaches_the_device_when_attached(void **state)
{
	struct ipu_session *s = two_vars(true);
	float w[2] = { 100, 200 }, y[2];
	const float want[2] = { 107, 208 };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull);
	uint64_t subs = __ipu_session_submissions(s);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	/* In sync before: one weights_from_host, no fetch. */
	assert_int_equal(__ipu_session_submissions(s), subs + 1);
	run_x(s, 0, y);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

static void test_S21_write_detached_changes_the_host_copy(void **state)
{
	struct ipu_session *s = two_vars(false);
	float v[3] = { -1, -2, -3 }, got[3];
	struct ipu_host_buffer b = sh_buf(v, IPU_DTYPE_FLOAT32, 1, 3ull);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "v", &b), 0);
	assert_int_equal(__ipu_session_submissions(s), 0);
	sh_get_f32(s, "v", got, 1, &shape3);
	sh_assert_floats(got, v, 3);
	ipu_session_destroy(s);
}

static void test_S21_scalar_is_cast_and_broadcast(void **state)
{
	struct ipu_session *s = two_vars(false);
	double d = 2.5;
	int64_t i = -4;
	const float want_w[2] = { 2.5, 2.5 }, want_v[3] = { -4, -4, -4 };
	float got[3];
	struct ipu_host_buffer b = sh_buf(&d, IPU_DTYPE_FLOAT64, 0);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	b = sh_buf(&i, IPU_DTYPE_INT64, 0);
	assert_int_equal(ipu_session_write_variable_data(s, "v", &b), 0);
	sh_get_f32(s, "w", got, 1, &shape2);
	sh_assert_floats(got, want_w, 2);
	sh_get_f32(s, "v", got, 1, &shape3);
	sh_assert_floats(got, want_v, 3);
	ipu_session_destroy(s);
}

static void test_S21_batch_is_one_weights_from_host(void **state)
{
	struct ipu_session *s = two_vars(true);
	const char *const names[2] = { "w", "v" };
	float w[2] = { 0, 0 }, v[3] = { 5, 5, 5 }, y[2];
	const float want[2] = { 7, 8 };
	struct ipu_host_buffer src[2] = {
		sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull),
		sh_buf(v, IPU_DTYPE_FLOAT32, 1, 3ull),
	};
	uint64_t subs = __ipu_session_submissions(s);

	(void)state;
	assert_int_equal(ipu_session_write_variables_data(s, names, src, 2), 0);
	assert_int_equal(__ipu_session_submissions(s), subs + 1);
	run_x(s, 0, y);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

/* Writing w after a run must not roll v back to its stale host copy. */
static void test_S21_write_keeps_the_other_variables(void **state)
{
	struct ipu_session *s = two_vars(true);
	float w[2] = { 0, 0 }, y[2], v[3];
	const float want_v[3] = { 12, 22, 32 };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	run_x(s, 1, y); /* v = 11 21 31 on the device */
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	run_x(s, 1, y); /* v = 12 22 32 */
	sh_get_f32(s, "v", v, 1, &shape3);
	sh_assert_floats(v, want_v, 3);
	ipu_session_destroy(s);
}

static void test_S21_batch_is_checked_before_any_write(void **state)
{
	struct ipu_session *s = two_vars(false);
	const char *const names[2] = { "w", "v" };
	float w[2] = { 9, 9 }, v[2] = { 5, 5 }, got[2];
	const float want[2] = { 1, 2 };
	struct ipu_host_buffer src[2] = {
		sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull),
		sh_buf(v, IPU_DTYPE_FLOAT32, 1, 2ull), /* v has 3 */
	};

	(void)state;
	assert_int_equal(ipu_session_write_variables_data(s, names, src, 2),
			 -EINVAL);
	sh_get_f32(s, "w", got, 1, &shape2);
	sh_assert_floats(got, want, 2);
	ipu_session_destroy(s);
}

static void test_S21_only_variables(void **state)
{
	struct ipu_session *s = two_vars(false);
	float c[2] = { 0 };
	struct ipu_host_buffer b = sh_buf(c, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "c", &b), -ENOTSUP);
	sh_assert_msg(s, "tensor 'c' is not of type Variable");
	assert_int_equal(ipu_session_write_variable_data(s, "mid", &b),
			 -ENOTSUP);
	sh_assert_msg(s, "'mid' is not of type Constant or Variable");
	assert_int_equal(ipu_session_write_variable_data(s, "nope", &b),
			 -ENOENT);
	ipu_session_destroy(s);
}

static void test_S21_dtype_must_match(void **state)
{
	struct ipu_session *s = two_vars(false);
	double w[2] = { 0 };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT64, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "write_variable_data: the dtype of the array float64 must match the equivalent type of the tensor 'w': float32");
	b = sh_buf(w, 0, 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the dtype of the array invalid");
	ipu_session_destroy(s);
}

static void test_S21_shape_must_match(void **state)
{
	struct ipu_session *s = two_vars(false);
	float w[3] = { 0 };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 1, 3ull);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the shape of the array (3,) must match the shape of the tensor 'w' on the host: (2,)");
	ipu_session_destroy(s);
}

static void test_S21_null_data(void **state)
{
	struct ipu_session *s = two_vars(false);
	struct ipu_host_buffer b = sh_buf(NULL, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "the array for 'w' has NULL data");
	assert_int_equal(ipu_session_write_variable_data(s, "w", NULL), -EINVAL);
	sh_assert_msg(s, "src is NULL");
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S17_weights_from_host_sends_the_host_copies),
		cmocka_unit_test(test_S17_weights_from_host_detached),
		cmocka_unit_test(test_S18_weights_to_host_fetches_every_variable),
		cmocka_unit_test(test_S18_weights_to_host_detached),
		cmocka_unit_test(test_S19_a_variable_is_fetched_once),
		cmocka_unit_test(test_S19_constants_never_fetch),
		cmocka_unit_test(test_S19_detached_reads_the_host_copy),
		cmocka_unit_test(test_S19_several_tensors_fetch_once),
		cmocka_unit_test(test_S19_only_variables_and_constants),
		cmocka_unit_test(test_S19_unknown_tensor),
		cmocka_unit_test(test_S19_wrong_dtype),
		cmocka_unit_test(test_S19_wrong_shape),
		cmocka_unit_test(test_S19_null_destination),
		cmocka_unit_test(test_S19_tensor_desc),
		cmocka_unit_test(test_S21_write_reaches_the_device_when_attached),
		cmocka_unit_test(test_S21_write_detached_changes_the_host_copy),
		cmocka_unit_test(test_S21_scalar_is_cast_and_broadcast),
		cmocka_unit_test(test_S21_batch_is_one_weights_from_host),
		cmocka_unit_test(test_S21_write_keeps_the_other_variables),
		cmocka_unit_test(test_S21_batch_is_checked_before_any_write),
		cmocka_unit_test(test_S21_only_variables),
		cmocka_unit_test(test_S21_dtype_must_match),
		cmocka_unit_test(test_S21_shape_must_match),
		cmocka_unit_test(test_S21_null_data),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
