// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_fp8.c - FP8 through a session (S23, S12): PopXL's host
 * helpers (from firmware/dtype.c, not rewritten) make the codes, streams
 * take them as uint8 or FP8 arrays, FP8 variables take arrays only.
 */
#include <math.h>

#include "session_helpers.h"

static void test_S23_the_documented_example(void **state)
{
	const float src = 0.75f;
	uint8_t code;

	(void)state;
	assert_int_equal(host_pow2scale_cast_to_fp8(&code, &src, 1,
						    IPU_DTYPE_FLOAT8_143, 0,
						    false),
			 0);
	assert_int_equal(code, 0x3c); /* 0b00111100 */
}

static void test_S23_ranges_overflow_and_nan(void **state)
{
	const float src[6] = { 240, 1000, -1000, INFINITY, 0x1p-10f, 57344 };
	uint8_t sat[6], nan[6], e5[6];
	float back[6];

	(void)state;
	assert_int_equal(host_pow2scale_cast_to_fp8(sat, src, 6,
						    IPU_DTYPE_FLOAT8_143, 0,
						    false),
			 0);
	assert_int_equal(host_pow2scale_cast_to_fp8(nan, src, 6,
						    IPU_DTYPE_FLOAT8_143, 0,
						    true),
			 0);
	assert_int_equal(sat[0], 0x7f);		/* largest: 240 */
	assert_int_equal(sat[1], 0x7f);		/* saturates */
	assert_int_equal(sat[2], 0xff);		/* by sign */
	assert_int_equal(sat[3], 0x80);		/* infinity: NaN */
	assert_int_equal(sat[4], 0x01);		/* smallest: 2^-10 */
	assert_int_equal(nan[1], 0x80);		/* nan_on_overflow */
	assert_int_equal(host_pow2scale_cast_to_fp8(e5, src, 6,
						    IPU_DTYPE_FLOAT8_152, 0,
						    false),
			 0);
	assert_int_equal(e5[5], 0x7f);		/* largest: 57344 */
	assert_int_equal(host_pow2scale_cast_from_fp8(back, e5, 6,
						      IPU_DTYPE_FLOAT8_152, 0),
			 0);
	assert_true(back[5] == 57344);
	assert_true(back[0] == 256); /* 240 is a tie in 1-5-2: to even */
	/* Scaled: 240 * 2^-8 = 0.9375, and back. */
	assert_int_equal(host_pow2scale_cast_to_fp8(sat, src, 1,
						    IPU_DTYPE_FLOAT8_143, -8,
						    false),
			 0);
	assert_int_equal(host_pow2scale_cast_from_fp8(back, sat, 1,
						      IPU_DTYPE_FLOAT8_143, -8),
			 0);
	assert_true(back[0] == 240);
	assert_int_equal(host_pow2scale_cast_to_fp8(sat, src, 1,
						    IPU_DTYPE_FLOAT8_143, 32,
						    false),
			 -EINVAL);
}

/* q (float8_143[4]) in, as float32 out (f); v (float8_152[2]) as float32. */
static struct ipu_session *fp8_session(void)
{
	static const uint8_t v0[2] = { 0x42, 0xc2 }; /* 1.5, -1.5 in 152 */
	struct ipu_ir *ir = sh_ir(1, 1);
	uint64_t four = 4, two = 2;
	ipu_stream q = sh_stream(ir, true, "q", IPU_DTYPE_FLOAT8_143, 1, &four);
	ipu_stream f = sh_stream(ir, false, "f", IPU_DTYPE_FLOAT32, 1, &four);
	ipu_stream vf = sh_stream(ir, false, "vf", IPU_DTYPE_FLOAT32, 1, &two);
	ipu_tensor v = sh_check(ir, ipu_ir_variable(ir, "v",
						    IPU_DTYPE_FLOAT8_152, 1,
						    &two, v0, NULL));
	ipu_tensor t = sh_check(ir, ipu_ir_host_load(ir, q, NULL));
	struct ipu_session *s;

	assert_int_equal(ipu_ir_host_store(ir, f, sh_check(ir, ipu_ir_cast(ir, t, IPU_DTYPE_FLOAT32))),
			 0);
	assert_int_equal(ipu_ir_host_store(ir, vf, sh_check(ir, ipu_ir_cast(ir, v, IPU_DTYPE_FLOAT32))),
			 0);
	s = sh_session(ir);
	sh_attach(s);
	return s;
}

static int run_fp8(struct ipu_session *s, uint8_t *codes, uint32_t dtype,
		   float *f, float *vf)
{
	struct ipu_stream_buffer in = sh_sb("q", sh_buf(codes, dtype, 1, 4ull));
	struct ipu_stream_buffer out[2] = {
		sh_sb("f", sh_buf(f, IPU_DTYPE_FLOAT32, 1, 4ull)),
		sh_sb("vf", sh_buf(vf, IPU_DTYPE_FLOAT32, 1, 2ull)),
	};

	return ipu_session_run_with_outputs(s, &in, 1, out, 2, 0);
}

static void test_S23_fp8_streams_take_codes(void **state)
{
	struct ipu_session *s = fp8_session();
	const float src[4] = { 0.75f, -2, 240, 0.125f };
	uint8_t codes[4];
	float f[4], vf[2];

	(void)state;
	assert_int_equal(host_pow2scale_cast_to_fp8(codes, src, 4,
						    IPU_DTYPE_FLOAT8_143, 0,
						    false),
			 0);
	/* As uint8 (what NumPy holds) and as the FP8 dtype itself. */
	assert_int_equal(run_fp8(s, codes, IPU_DTYPE_UINT8, f, vf), 0);
	sh_assert_floats(f, src, 4);
	assert_true(vf[0] == 1.5f && vf[1] == -1.5f);
	memset(f, 0, sizeof(f));
	assert_int_equal(run_fp8(s, codes, IPU_DTYPE_FLOAT8_143, f, vf), 0);
	sh_assert_floats(f, src, 4);
	/* Another FP8 type is not these codes. */
	assert_int_equal(run_fp8(s, codes, IPU_DTYPE_FLOAT8_152, f, vf),
			 -EINVAL);
	sh_assert_msg(s, "input stream 'q': an array of dtype float8_152, the stream has dtype float8_143");
	ipu_session_destroy(s);
}

static void test_S23_fp8_variables_take_arrays(void **state)
{
	struct ipu_session *s = fp8_session();
	const float src[2] = { 3, -0.5f };
	uint8_t codes[2], got[2], q[4] = { 0 };
	struct ipu_host_buffer b = sh_buf(codes, IPU_DTYPE_UINT8, 1, 2ull);
	float f[4], vf[2];

	(void)state;
	assert_int_equal(host_pow2scale_cast_to_fp8(codes, src, 2,
						    IPU_DTYPE_FLOAT8_152, 0,
						    false),
			 0);
	assert_int_equal(ipu_session_write_variable_data(s, "v", &b), 0);
	assert_int_equal(run_fp8(s, q, IPU_DTYPE_UINT8, f, vf), 0);
	sh_assert_floats(vf, src, 2);
	b = sh_buf(got, IPU_DTYPE_UINT8, 1, 2ull);
	assert_int_equal(ipu_session_get_tensor_data(s, "v", &b), 0);
	assert_memory_equal(got, codes, 2);
	ipu_session_destroy(s);
}

static void test_S23_fp8_variables_refuse_scalars(void **state)
{
	struct ipu_session *s = fp8_session();
	float one = 1;
	struct ipu_host_buffer b = sh_buf(&one, IPU_DTYPE_FLOAT32, 0);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "v", &b), -EINVAL);
	sh_assert_msg(s, "data for variable 'v' must be passed in as an array of dtype float8_152 or uint8 (see host_pow2scale_cast_to_fp8)");
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S23_the_documented_example),
		cmocka_unit_test(test_S23_ranges_overflow_and_nan),
		cmocka_unit_test(test_S23_fp8_streams_take_codes),
		cmocka_unit_test(test_S23_fp8_variables_take_arrays),
		cmocka_unit_test(test_S23_fp8_variables_refuse_scalars),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
