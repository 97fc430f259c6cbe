// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_dtype.c - dtypes and conversions (include/ipu/dtype.h): FP8 as S23
 * defines it, float16 and bfloat16, PopXL's pow2scale helpers, and
 * ipu_dtype_convert() between every pair of dtypes.
 *
 * FP8 rounding is checked against a brute-force reference: the nearest of
 * all 255 finite values of the format, ties to the even code, each value
 * computed from its bits by S23's formula (not by the decoder under test).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ipu/dtype.h>

static const int fp8s[] = { IPU_DTYPE_FLOAT8_143, IPU_DTYPE_FLOAT8_152 };

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* ---------------------------------------------------------------------- */
/* Names and sizes                                                         */
/* ---------------------------------------------------------------------- */

static void test_names_sizes_from_name(void **state)
{
	static const struct {
		int dt;
		const char *name;
		size_t size;
		bool dev, flt, fp8;
	} t[] = {
		{ IPU_DTYPE_FLOAT32, "float32", 4, true, true, false },
		{ IPU_DTYPE_FLOAT16, "float16", 2, true, true, false },
		{ IPU_DTYPE_BFLOAT16, "bfloat16", 2, true, true, false },
		{ IPU_DTYPE_FLOAT8_143, "float8_143", 1, true, true, true },
		{ IPU_DTYPE_FLOAT8_152, "float8_152", 1, true, true, true },
		{ IPU_DTYPE_INT32, "int32", 4, true, false, false },
		{ IPU_DTYPE_INT8, "int8", 1, true, false, false },
		{ IPU_DTYPE_UINT8, "uint8", 1, true, false, false },
		{ IPU_DTYPE_BOOL, "bool", 1, true, false, false },
		{ IPU_DTYPE_FLOAT64, "float64", 8, false, true, false },
		{ IPU_DTYPE_INT64, "int64", 8, false, false, false },
		{ IPU_DTYPE_INT16, "int16", 2, true, false, false },
		{ IPU_DTYPE_UINT16, "uint16", 2, true, false, false },
		{ IPU_DTYPE_UINT32, "uint32", 4, true, false, false },
	};
	static const int bad[] = { IPU_DTYPE_INVALID, IPU_DTYPE_COUNT_, -1, 1000 };
	size_t i;

	(void)state;
	assert_int_equal(sizeof(t) / sizeof(t[0]), IPU_DTYPE_COUNT_ - 1);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_true(ipu_dtype_valid(t[i].dt));
		assert_string_equal(ipu_dtype_name(t[i].dt), t[i].name);
		assert_int_equal(ipu_dtype_size(t[i].dt), t[i].size);
		assert_int_equal(ipu_dtype_from_name(t[i].name), t[i].dt);
		assert_int_equal(ipu_dtype_on_device(t[i].dt), t[i].dev);
		assert_int_equal(ipu_dtype_is_float(t[i].dt), t[i].flt);
		assert_int_equal(ipu_dtype_is_fp8(t[i].dt), t[i].fp8);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(ipu_dtype_valid(bad[i]));
		assert_false(ipu_dtype_on_device(bad[i]));
		assert_false(ipu_dtype_is_float(bad[i]));
		assert_false(ipu_dtype_is_fp8(bad[i]));
		assert_int_equal(ipu_dtype_size(bad[i]), 0);
		assert_string_equal(ipu_dtype_name(bad[i]), "invalid");
	}
	assert_int_equal(ipu_dtype_from_name("invalid"), IPU_DTYPE_INVALID);
	assert_int_equal(ipu_dtype_from_name("float"), IPU_DTYPE_INVALID);
	assert_int_equal(ipu_dtype_from_name("Float32"), IPU_DTYPE_INVALID);
	assert_int_equal(ipu_dtype_from_name(""), IPU_DTYPE_INVALID);
	assert_int_equal(ipu_dtype_from_name(NULL), IPU_DTYPE_INVALID);
}

/* ---------------------------------------------------------------------- */
/* FP8                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S23_fp8_known_values(void **state)
{
	(void)state;
	/* The example of S23 and the header. */
	assert_int_equal(ipu_f32_to_fp8(0.75f, IPU_DTYPE_FLOAT8_143, false),
			 0x3C);
	assert_int_equal(ipu_f32_to_fp8(0.75f, IPU_DTYPE_FLOAT8_143, true),
			 0x3C);
	/* Largest and smallest magnitudes, 1.0, smallest normals. */
	assert_true(ipu_fp8_to_f32(0x7F, IPU_DTYPE_FLOAT8_143) == 240.0f);
	assert_true(ipu_fp8_to_f32(0xFF, IPU_DTYPE_FLOAT8_143) == -240.0f);
	assert_true(ipu_fp8_to_f32(0x01, IPU_DTYPE_FLOAT8_143) == 0x1p-10f);
	assert_true(ipu_fp8_to_f32(0x08, IPU_DTYPE_FLOAT8_143) == 0x1p-7f);
	assert_true(ipu_fp8_to_f32(0x40, IPU_DTYPE_FLOAT8_143) == 1.0f);
	assert_true(ipu_fp8_to_f32(0x7F, IPU_DTYPE_FLOAT8_152) == 57344.0f);
	assert_true(ipu_fp8_to_f32(0xFF, IPU_DTYPE_FLOAT8_152) == -57344.0f);
	assert_true(ipu_fp8_to_f32(0x01, IPU_DTYPE_FLOAT8_152) == 0x1p-17f);
	assert_true(ipu_fp8_to_f32(0x04, IPU_DTYPE_FLOAT8_152) == 0x1p-15f);
	assert_true(ipu_fp8_to_f32(0x40, IPU_DTYPE_FLOAT8_152) == 1.0f);
	assert_int_equal(ipu_f32_to_fp8(240.0f, IPU_DTYPE_FLOAT8_143, true),
			 0x7F);
	assert_int_equal(ipu_f32_to_fp8(57344.0f, IPU_DTYPE_FLOAT8_152, true),
			 0x7F);
	assert_int_equal(ipu_f32_to_fp8(-1.0f, IPU_DTYPE_FLOAT8_152, false),
			 0xC0);
	/* 0x80 is NaN, both zeros are 0x00; no value is negative zero. */
	assert_true(isnan(ipu_fp8_to_f32(0x80, IPU_DTYPE_FLOAT8_143)));
	assert_true(isnan(ipu_fp8_to_f32(0x80, IPU_DTYPE_FLOAT8_152)));
	assert_int_equal(ipu_f32_to_fp8(-0.0f, IPU_DTYPE_FLOAT8_143, true), 0);
	assert_int_equal(ipu_f32_to_fp8(-0.0f, IPU_DTYPE_FLOAT8_152, true), 0);
	assert_int_equal(ipu_f32_to_fp8(-1e-30f, IPU_DTYPE_FLOAT8_143, true), 0);
	assert_int_equal(ipu_f32_to_fp8(-1e-30f, IPU_DTYPE_FLOAT8_152, true), 0);
	/* Not an FP8 dtype. */
	assert_int_equal(ipu_f32_to_fp8(1.0f, IPU_DTYPE_FLOAT16, false), 0x80);
	assert_true(isnan(ipu_fp8_to_f32(0x40, IPU_DTYPE_INT8)));
}

static void test_S23_fp8_every_code_round_trips(void **state)
{
	size_t f;
	int c;

	(void)state;
	for (f = 0; f < 2; f++) {
		float prev = -1.0f;

		for (c = 0; c < 256; c++) {
			float v = ipu_fp8_to_f32((uint8_t)c, fp8s[f]);

			if (c == 0x80) {
				assert_true(isnan(v));
				continue;
			}
			assert_false(isnan(v) || isinf(v));
			assert_int_equal(ipu_f32_to_fp8(v, fp8s[f], false), c);
			assert_int_equal(ipu_f32_to_fp8(v, fp8s[f], true), c);
			/* Positive codes increase, negative ones mirror them. */
			if (c < 0x80) {
				assert_true(v > prev);
				prev = v;
			} else {
				assert_true(v == -ipu_fp8_to_f32((uint8_t)(c - 0x80),
								 fp8s[f]));
			}
		}
	}
}

/*
 * The formats as S23 spells them, and the value of a code computed from
 * its bits by the textbook formula: nothing here calls the decoder under
 * test, so a wrong bias, width or subnormal scale in firmware/dtype.c
 * (shared by its encoder and decoder) cannot agree with itself here.
 */
struct fp8_spec {
	int dt;
	unsigned int man;	/* mantissa bits; exponent bits: 7 - man */
	int bias;
};

static const struct fp8_spec fp8_specs[] = {
	{ IPU_DTYPE_FLOAT8_143, 3, 8 },
	{ IPU_DTYPE_FLOAT8_152, 2, 16 },
};

static const struct fp8_spec *fp8_spec(int dt)
{
	for (size_t i = 0; i < sizeof(fp8_specs) / sizeof(fp8_specs[0]); i++)
		if (fp8_specs[i].dt == dt)
			return &fp8_specs[i];
	fail_msg("not an FP8 dtype: %d", dt);
	return NULL;
}

/* sign * 0.mant * 2^(1 - bias) for exponent field 0 (subnormals),
 * sign * 1.mant * 2^(e - bias) otherwise; 0x80 is NaN. */
static double fp8_bits_value(uint8_t c, int dt)
{
	const struct fp8_spec *sp = fp8_spec(dt);
	unsigned int e = (c & 0x7F) >> sp->man;
	unsigned int m = c & ((1u << sp->man) - 1);
	double frac = (double)m / (double)(1u << sp->man);
	double v;

	if (c == 0x80)
		return NAN;
	v = e ? ldexp(1.0 + frac, (int)e - sp->bias) :
		ldexp(frac, 1 - sp->bias);
	return c & 0x80 ? -v : v;
}

static void test_S23_fp8_decoder_matches_bit_formula(void **state)
{
	size_t f;
	int c;

	(void)state;
	for (f = 0; f < 2; f++) {
		for (c = 0; c < 256; c++) {
			double want = fp8_bits_value((uint8_t)c, fp8s[f]);
			float got = ipu_fp8_to_f32((uint8_t)c, fp8s[f]);

			if (c == 0x80) {
				assert_true(isnan(got));
				continue;
			}
			if (!((double)got == want))
				fail_msg("dtype %d code 0x%02x: decoder %.9g, bit formula %.9g",
					 fp8s[f], c, (double)got, want);
		}
	}
}

/* The reference: nearest finite value, ties to the even code; overflow at
 * or past half an ulp above the largest value (the tie goes to the even,
 * nonexistent next code). -1 for overflow. Candidates come from the bit
 * formula, not from ipu_fp8_to_f32(). */
static int fp8_reference(float x, int dt)
{
	double max = fp8_bits_value(0x7F, dt);
	double ulp = max - fp8_bits_value(0x7E, dt);
	double ax = fabs((double)x);
	int c, best = 0;
	double bestd = INFINITY;

	if (ax >= max + ulp / 2)
		return -1;
	for (c = 0; c < 0x80; c++) {
		double d = fabs(ax - fp8_bits_value((uint8_t)c, dt));

		if (d < bestd || (d == bestd && !(c & 1))) {
			best = c;
			bestd = d;
		}
	}
	return best && x < 0 ? best | 0x80 : best;
}

static void test_S23_fp8_rne_ties_between_every_pair(void **state)
{
	size_t f;
	int c, s;

	(void)state;
	for (f = 0; f < 2; f++) {
		for (c = 0; c < 0x7F; c++) {
			float lo = (float)fp8_bits_value((uint8_t)c, fp8s[f]);
			float hi = (float)fp8_bits_value((uint8_t)(c + 1),
							 fp8s[f]);
			float mid = (lo + hi) / 2; /* exact in float32 */
			int even = c & 1 ? c + 1 : c;

			for (s = 0; s < 2; s++) {
				float sg = s ? -1.0f : 1.0f;
				int neg = s && even ? 0x80 : 0;
				int neg_lo = s && c ? 0x80 : 0;

				/* The tie (c = 0: 0 and the smallest
				 * subnormal; the even one is 0, never 0x80). */
				assert_int_equal(ipu_f32_to_fp8(sg * mid, fp8s[f], false),
						 even | neg);
				/* Just below and above it. */
				assert_int_equal(ipu_f32_to_fp8(sg * nextafterf(mid, 0),
								fp8s[f], false),
						 c | neg_lo);
				assert_int_equal(ipu_f32_to_fp8(sg * nextafterf(mid, INFINITY),
								fp8s[f], false),
						 (c + 1) | (s ? 0x80 : 0));
			}
		}
	}
}

static void test_S23_fp8_matches_brute_force_reference(void **state)
{
	uint32_t seed = 12345;
	size_t f;
	int i;

	(void)state;
	for (f = 0; f < 2; f++) {
		for (i = 0; i < 200000; i++) {
			/* Random sign, exponent around the format's range,
			 * random mantissa. */
			float x;
			int ref;

			seed = seed * 1664525u + 1013904223u;
			x = ldexpf(1.0f + (float)(seed >> 9) * 0x1p-23f,
				   (int)(seed % 48) - 28);
			seed = seed * 1664525u + 1013904223u;
			if (seed & 1)
				x = -x;
			ref = fp8_reference(x, fp8s[f]);
			assert_int_equal(ipu_f32_to_fp8(x, fp8s[f], true),
					 ref < 0 ? 0x80 : ref);
			assert_int_equal(ipu_f32_to_fp8(x, fp8s[f], false),
					 ref >= 0 ? ref : x < 0 ? 0xFF : 0x7F);
		}
	}
}

static void test_S23_fp8_overflow_saturates_or_nans(void **state)
{
	static const float big[] = { 1e6f, 3.0e38f, FLT_MAX };
	size_t f, i;

	(void)state;
	for (f = 0; f < 2; f++) {
		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			assert_int_equal(ipu_f32_to_fp8(big[i], fp8s[f], false), 0x7F);
			assert_int_equal(ipu_f32_to_fp8(-big[i], fp8s[f], false), 0xFF);
			assert_int_equal(ipu_f32_to_fp8(big[i], fp8s[f], true), 0x80);
			assert_int_equal(ipu_f32_to_fp8(-big[i], fp8s[f], true), 0x80);
		}
		/* Infinite and NaN inputs are NaN whatever the mode. */
		assert_int_equal(ipu_f32_to_fp8(INFINITY, fp8s[f], false), 0x80);
		assert_int_equal(ipu_f32_to_fp8(-INFINITY, fp8s[f], false), 0x80);
		assert_int_equal(ipu_f32_to_fp8(INFINITY, fp8s[f], true), 0x80);
		assert_int_equal(ipu_f32_to_fp8(NAN, fp8s[f], false), 0x80);
		assert_int_equal(ipu_f32_to_fp8(-NAN, fp8s[f], true), 0x80);
	}
	/* The boundary: half an ulp above the largest value overflows (the
	 * tie rounds to the even code, which is past the end); below it
	 * rounds down to the largest. */
	assert_int_equal(ipu_f32_to_fp8(248.0f, IPU_DTYPE_FLOAT8_143, true), 0x80);
	assert_int_equal(ipu_f32_to_fp8(248.0f, IPU_DTYPE_FLOAT8_143, false), 0x7F);
	assert_int_equal(ipu_f32_to_fp8(nextafterf(248.0f, 0), IPU_DTYPE_FLOAT8_143,
				       true), 0x7F);
	assert_int_equal(ipu_f32_to_fp8(61440.0f, IPU_DTYPE_FLOAT8_152, true), 0x80);
	assert_int_equal(ipu_f32_to_fp8(-61439.0f, IPU_DTYPE_FLOAT8_152, true), 0xFF);
}

static void test_S23_pow2scale_every_scale_and_code(void **state)
{
	uint8_t codes[256], back[256];
	float vals[256];
	size_t f;
	int c, scale;

	(void)state;
	for (c = 0; c < 256; c++)
		codes[c] = (uint8_t)c;
	for (f = 0; f < 2; f++) {
		for (scale = -32; scale < 32; scale++) {
			assert_int_equal(host_pow2scale_cast_from_fp8(vals, codes, 256,
								      fp8s[f], scale), 0);
			assert_int_equal(host_pow2scale_cast_to_fp8(back, vals, 256,
								    fp8s[f], scale, true), 0);
			for (c = 0; c < 256; c++) {
				float v = ipu_fp8_to_f32((uint8_t)c, fp8s[f]);

				if (c == 0x80) {
					assert_true(isnan(vals[c]));
				} else {
					/* Exact: value * 2^-scale. */
					assert_true(vals[c] == ldexpf(v, -scale));
				}
				assert_int_equal(back[c], c);
			}
		}
	}
	/* The example with a scale: 0.375 * 2^1 is 0.75. */
	vals[0] = 0.375f;
	assert_int_equal(host_pow2scale_cast_to_fp8(back, vals, 1,
						    IPU_DTYPE_FLOAT8_143, 1, false), 0);
	assert_int_equal(back[0], 0x3C);
}

static void test_S23_pow2scale_overflow_is_not_an_infinite_input(void **state)
{
	float src[2] = { FLT_MAX, -1e30f };
	uint8_t dst[2];

	(void)state;
	/* FLT_MAX * 2^31 is past float32 but the scaling is exact: a finite
	 * overflow, so it saturates (or is NaN when asked). */
	assert_int_equal(host_pow2scale_cast_to_fp8(dst, src, 2,
						    IPU_DTYPE_FLOAT8_152, 31, false), 0);
	assert_int_equal(dst[0], 0x7F);
	assert_int_equal(dst[1], 0xFF);
	assert_int_equal(host_pow2scale_cast_to_fp8(dst, src, 2,
						    IPU_DTYPE_FLOAT8_152, 31, true), 0);
	assert_int_equal(dst[0], 0x80);
	assert_int_equal(dst[1], 0x80);
	/* A tiny value scaled up into range. */
	src[0] = 0x1p-40f;
	assert_int_equal(host_pow2scale_cast_to_fp8(dst, src, 1,
						    IPU_DTYPE_FLOAT8_143, 31, false), 0);
	assert_int_equal(dst[0], ipu_f32_to_fp8(0x1p-9f, IPU_DTYPE_FLOAT8_143, false));
}

static void test_S23_pow2scale_argument_errors(void **state)
{
	float f[1] = { 1.0f };
	uint8_t u[1] = { 0x40 };

	(void)state;
	assert_int_equal(host_pow2scale_cast_to_fp8(NULL, f, 1, IPU_DTYPE_FLOAT8_143, 0, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, NULL, 1, IPU_DTYPE_FLOAT8_143, 0, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(NULL, NULL, 0, IPU_DTYPE_FLOAT8_143, 0, false), 0);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_FLOAT16, 0, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_INVALID, 0, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_FLOAT8_143, -33, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_FLOAT8_143, 32, false), -EINVAL);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_FLOAT8_152, -32, false), 0);
	assert_int_equal(host_pow2scale_cast_to_fp8(u, f, 1, IPU_DTYPE_FLOAT8_152, 31, false), 0);

	assert_int_equal(host_pow2scale_cast_from_fp8(NULL, u, 1, IPU_DTYPE_FLOAT8_143, 0), -EINVAL);
	assert_int_equal(host_pow2scale_cast_from_fp8(f, NULL, 1, IPU_DTYPE_FLOAT8_143, 0), -EINVAL);
	assert_int_equal(host_pow2scale_cast_from_fp8(NULL, NULL, 0, IPU_DTYPE_FLOAT8_143, 0), 0);
	assert_int_equal(host_pow2scale_cast_from_fp8(f, u, 1, IPU_DTYPE_BFLOAT16, 0), -EINVAL);
	assert_int_equal(host_pow2scale_cast_from_fp8(f, u, 1, IPU_DTYPE_FLOAT8_143, -33), -EINVAL);
	assert_int_equal(host_pow2scale_cast_from_fp8(f, u, 1, IPU_DTYPE_FLOAT8_143, 32), -EINVAL);
	u[0] = 0x40; /* 1.0 */
	assert_int_equal(host_pow2scale_cast_from_fp8(f, u, 1, IPU_DTYPE_FLOAT8_143, 31), 0);
	assert_true(f[0] == 0x1p-31f);
}

/* ---------------------------------------------------------------------- */
/* float16 and bfloat16                                                    */
/* ---------------------------------------------------------------------- */

static void test_f16_known_values_and_rne(void **state)
{
	(void)state;
	assert_int_equal(ipu_f32_to_f16(1.0f), 0x3C00);
	assert_int_equal(ipu_f32_to_f16(-2.0f), 0xC000);
	assert_int_equal(ipu_f32_to_f16(0.0f), 0x0000);
	assert_int_equal(ipu_f32_to_f16(-0.0f), 0x8000);
	assert_int_equal(ipu_f32_to_f16(65504.0f), 0x7BFF);
	assert_int_equal(ipu_f32_to_f16(65519.0f), 0x7BFF);
	assert_int_equal(ipu_f32_to_f16(65520.0f), 0x7C00); /* tie: to inf */
	assert_int_equal(ipu_f32_to_f16(1e9f), 0x7C00);
	assert_int_equal(ipu_f32_to_f16(-INFINITY), 0xFC00);
	assert_int_equal(ipu_f32_to_f16(0x1p-14f), 0x0400); /* smallest normal */
	assert_int_equal(ipu_f32_to_f16(0x1p-24f), 0x0001); /* smallest subnormal */
	assert_int_equal(ipu_f32_to_f16(0x1p-25f), 0x0000); /* tie: to even 0 */
	assert_int_equal(ipu_f32_to_f16(0x1.000002p-25f), 0x0001);
	assert_int_equal(ipu_f32_to_f16(0x3p-25f), 0x0002);  /* tie 1|2: 2 */
	assert_int_equal(ipu_f32_to_f16(1.0f + 0x1p-11f), 0x3C00); /* tie: even */
	assert_int_equal(ipu_f32_to_f16(1.0f + 0x3p-11f), 0x3C02); /* tie: even */
	assert_int_equal(ipu_f32_to_f16(1.0f + 0x1p-11f + 0x1p-22f), 0x3C01);
	assert_int_equal(ipu_f32_to_f16(0.1f), 0x2E66);
	assert_true(ipu_f16_to_f32(0x3555) == 0x1.554p-2f);
	assert_true(ipu_f16_to_f32(0x7C00) == INFINITY);
	assert_true(isnan(ipu_f16_to_f32(0x7E00)));
	assert_int_equal(ipu_f32_to_f16(NAN) & 0x7C00, 0x7C00);
	assert_true(ipu_f32_to_f16(NAN) & 0x03FF);
}

static void test_bf16_known_values_and_rne(void **state)
{
	(void)state;
	assert_int_equal(ipu_f32_to_bf16(1.0f), 0x3F80);
	assert_int_equal(ipu_f32_to_bf16(-0.0f), 0x8000);
	assert_int_equal(ipu_f32_to_bf16(u2f(0x3F808000)), 0x3F80); /* tie */
	assert_int_equal(ipu_f32_to_bf16(u2f(0x3F818000)), 0x3F82); /* tie */
	assert_int_equal(ipu_f32_to_bf16(u2f(0x3F808001)), 0x3F81);
	assert_int_equal(ipu_f32_to_bf16(u2f(0x3F807FFF)), 0x3F80);
	assert_int_equal(ipu_f32_to_bf16(FLT_MAX), 0x7F80); /* rounds to inf */
	assert_int_equal(ipu_f32_to_bf16(u2f(0x7F7F7FFF)), 0x7F7F);
	assert_int_equal(ipu_f32_to_bf16(u2f(0x00000001)), 0x0000); /* tiny */
	assert_int_equal(ipu_f32_to_bf16(u2f(0x00008000)), 0x0000); /* tie */
	assert_int_equal(ipu_f32_to_bf16(u2f(0x00018000)), 0x0002); /* tie */
	assert_int_equal(ipu_f32_to_bf16(INFINITY), 0x7F80);
	assert_true(isnan(ipu_bf16_to_f32(ipu_f32_to_bf16(NAN))));
	assert_true(ipu_bf16_to_f32(0x4049) == 3.140625f);
	assert_int_equal(f2u(ipu_bf16_to_f32(0x7FC1)), 0x7FC10000);
}

static void test_f16_bf16_every_code_round_trips(void **state)
{
	uint32_t c;

	(void)state;
	for (c = 0; c < 65536; c++) {
		float h = ipu_f16_to_f32((uint16_t)c);
		float b = ipu_bf16_to_f32((uint16_t)c);

		if (isnan(h))
			assert_true(isnan(ipu_f16_to_f32(ipu_f32_to_f16(h))));
		else
			assert_int_equal(ipu_f32_to_f16(h), c);
		if (isnan(b))
			assert_true(isnan(ipu_bf16_to_f32(ipu_f32_to_bf16(b))));
		else
			assert_int_equal(ipu_f32_to_bf16(b), c);
	}
}

/* ---------------------------------------------------------------------- */
/* ipu_dtype_convert                                                       */
/* ---------------------------------------------------------------------- */

/* Write @v (exactly representable) as element @i of a @dt array. */
static void put(void *p, int dt, size_t i, double v)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
	case IPU_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
	case IPU_DTYPE_FLOAT16: ((uint16_t *)p)[i] = ipu_f32_to_f16((float)v); break;
	case IPU_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = ipu_f32_to_bf16((float)v); break;
	case IPU_DTYPE_FLOAT8_143:
	case IPU_DTYPE_FLOAT8_152:
		((uint8_t *)p)[i] = ipu_f32_to_fp8((float)v, dt, false);
		break;
	case IPU_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
	case IPU_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
	case IPU_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case IPU_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	case IPU_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
	case IPU_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
	case IPU_DTYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case IPU_DTYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	}
}

/* Element @i of a @dt array as a double. */
static double get(const void *p, int dt, size_t i)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT32: return ((const float *)p)[i];
	case IPU_DTYPE_FLOAT64: return ((const double *)p)[i];
	case IPU_DTYPE_FLOAT16: return ipu_f16_to_f32(((const uint16_t *)p)[i]);
	case IPU_DTYPE_BFLOAT16: return ipu_bf16_to_f32(((const uint16_t *)p)[i]);
	case IPU_DTYPE_FLOAT8_143:
	case IPU_DTYPE_FLOAT8_152:
		return ipu_fp8_to_f32(((const uint8_t *)p)[i], dt);
	case IPU_DTYPE_INT32: return ((const int32_t *)p)[i];
	case IPU_DTYPE_INT8: return ((const int8_t *)p)[i];
	case IPU_DTYPE_UINT8: return ((const uint8_t *)p)[i];
	case IPU_DTYPE_BOOL: return ((const uint8_t *)p)[i];
	case IPU_DTYPE_INT64: return (double)((const int64_t *)p)[i];
	case IPU_DTYPE_INT16: return ((const int16_t *)p)[i];
	case IPU_DTYPE_UINT16: return ((const uint16_t *)p)[i];
	case IPU_DTYPE_UINT32: return ((const uint32_t *)p)[i];
	}
	return NAN;
}

/* 2^bits for an unsigned type (bool: 1, it has no negatives), else 0. */
static double unsigned_range(int dt)
{
	switch (dt) {
	case IPU_DTYPE_BOOL: return 1;
	case IPU_DTYPE_UINT8: return 256.0;
	case IPU_DTYPE_UINT16: return 65536.0;
	case IPU_DTYPE_UINT32: return 4294967296.0;
	default: return 0;
	}
}

/*
 * Every pair of dtypes, on values every type holds exactly (those that
 * the source can hold): the value arrives, except where the header says
 * otherwise: negatives into uint8 wrap from integers and saturate to 0 from
 * floats, and anything into bool is (x != 0).
 */
static void test_convert_every_pair(void **state)
{
	static const double vals[] = { 0, 1, 2, 3, 5, 7, 8, 10, 12, -1, -3, -12 };
	const size_t n = sizeof(vals) / sizeof(vals[0]);
	int s, d;
	size_t i;

	(void)state;
	for (s = 1; s < IPU_DTYPE_COUNT_; s++) {
		for (d = 1; d < IPU_DTYPE_COUNT_; d++) {
			uint8_t src[8 * 16], dst[8 * 16];
			bool sneg = unsigned_range(s) == 0;

			/* Negatives are not values of an unsigned source. */
			for (i = 0; i < n; i++)
				put(src, s, i, !sneg && vals[i] < 0 ? 0 : vals[i]);
			memset(dst, 0xAA, sizeof(dst));
			assert_int_equal(ipu_dtype_convert(dst, d, src, s, n), 0);
			for (i = 0; i < n; i++) {
				double v = get(src, s, i), want = v;

				if (!sneg && vals[i] < 0)
					continue; /* not a value of s */
				assert_true(v == (s == IPU_DTYPE_BOOL ? vals[i] != 0 :
							       vals[i]));
				if (d == IPU_DTYPE_BOOL)
					want = v != 0;
				else if (unsigned_range(d) && v < 0)
					want = ipu_dtype_is_float(s) ? 0 :
						unsigned_range(d) + v;
				if (get(dst, d, i) != want)
					fail_msg("%s -> %s: %g gave %g, want %g",
						 ipu_dtype_name(s), ipu_dtype_name(d),
						 v, get(dst, d, i), want);
			}
			/* Nothing written past n elements. */
			assert_int_equal(dst[n * ipu_dtype_size(d)], 0xAA);
		}
	}
}

static void test_convert_int_wrap(void **state)
{
	int32_t i32[] = { 300, -129, 255, 256, -1, INT32_MIN, INT32_MAX };
	int64_t i64[] = { (1ll << 40) + 5, -(1ll << 40) - 1, INT64_MIN };
	int8_t i8[7];
	uint8_t u8[7];
	int32_t o32[3];

	(void)state;
	assert_int_equal(ipu_dtype_convert(i8, IPU_DTYPE_INT8, i32, IPU_DTYPE_INT32, 7), 0);
	assert_int_equal(i8[0], 44);
	assert_int_equal(i8[1], 127);
	assert_int_equal(i8[2], -1);
	assert_int_equal(i8[3], 0);
	assert_int_equal(i8[4], -1);
	assert_int_equal(i8[5], 0);
	assert_int_equal(i8[6], -1);
	assert_int_equal(ipu_dtype_convert(u8, IPU_DTYPE_UINT8, i32, IPU_DTYPE_INT32, 7), 0);
	assert_int_equal(u8[0], 44);
	assert_int_equal(u8[1], 127);
	assert_int_equal(u8[4], 255);
	assert_int_equal(ipu_dtype_convert(o32, IPU_DTYPE_INT32, i64, IPU_DTYPE_INT64, 3), 0);
	assert_int_equal(o32[0], 5);
	assert_int_equal(o32[1], -1);
	assert_int_equal(o32[2], 0);
	/* int8 -1 into uint8 and back into int32. */
	i8[0] = -1;
	assert_int_equal(ipu_dtype_convert(u8, IPU_DTYPE_UINT8, i8, IPU_DTYPE_INT8, 1), 0);
	assert_int_equal(u8[0], 255);
	assert_int_equal(ipu_dtype_convert(o32, IPU_DTYPE_INT32, u8, IPU_DTYPE_UINT8, 1), 0);
	assert_int_equal(o32[0], 255);
}

/* int16, uint16 and uint32: integers wrap, floats truncate and saturate. */
static void test_convert_16_and_unsigned_32_bit(void **state)
{
	int64_t i64[] = { 40000, -40000, -1, 70000, (1ll << 32) + 7,
			  4294967295ll };
	double f[] = { 1e10, -1e10, 40000.9, -3.9, NAN, 65535.5,
		       4294967295.0 };
	int16_t i16[7];
	uint16_t u16[7];
	uint32_t u32[7];
	int32_t i32[1];

	(void)state;
	assert_int_equal(ipu_dtype_convert(i16, IPU_DTYPE_INT16, i64, IPU_DTYPE_INT64, 6), 0);
	assert_int_equal(i16[0], 40000 - 65536);
	assert_int_equal(i16[1], 65536 - 40000);
	assert_int_equal(i16[2], -1);
	assert_int_equal(ipu_dtype_convert(u16, IPU_DTYPE_UINT16, i64, IPU_DTYPE_INT64, 6), 0);
	assert_int_equal(u16[0], 40000);
	assert_int_equal(u16[2], 65535);
	assert_int_equal(u16[3], 70000 - 65536);
	assert_int_equal(ipu_dtype_convert(u32, IPU_DTYPE_UINT32, i64, IPU_DTYPE_INT64, 6), 0);
	assert_true(u32[2] == 4294967295u);
	assert_true(u32[4] == 7);
	assert_true(u32[5] == 4294967295u);
	assert_int_equal(ipu_dtype_convert(i16, IPU_DTYPE_INT16, f, IPU_DTYPE_FLOAT64, 7), 0);
	assert_int_equal(i16[0], INT16_MAX);
	assert_int_equal(i16[1], INT16_MIN);
	assert_int_equal(i16[2], INT16_MAX);
	assert_int_equal(i16[3], -3);
	assert_int_equal(i16[4], 0);
	assert_int_equal(ipu_dtype_convert(u16, IPU_DTYPE_UINT16, f, IPU_DTYPE_FLOAT64, 7), 0);
	assert_int_equal(u16[0], UINT16_MAX);
	assert_int_equal(u16[1], 0);
	assert_int_equal(u16[2], 40000);
	assert_int_equal(u16[3], 0);
	assert_int_equal(u16[5], 65535);
	assert_int_equal(ipu_dtype_convert(u32, IPU_DTYPE_UINT32, f, IPU_DTYPE_FLOAT64, 7), 0);
	assert_true(u32[0] == 4294967295u);
	assert_true(u32[1] == 0);
	assert_true(u32[2] == 40000);
	assert_true(u32[6] == 4294967295u);
	/* A uint32 above INT32_MAX is read as itself, not negative. */
	u32[0] = 3000000000u;
	assert_int_equal(ipu_dtype_convert(f, IPU_DTYPE_FLOAT64, u32, IPU_DTYPE_UINT32, 1), 0);
	assert_true(f[0] == 3000000000.0);
	assert_int_equal(ipu_dtype_convert(i32, IPU_DTYPE_INT32, u32, IPU_DTYPE_UINT32, 1), 0);
	assert_int_equal(i32[0], (int32_t)(3000000000u - 4294967296ll));
}

static void test_convert_float_to_int_saturates_truncates_nan_zero(void **state)
{
	float f[] = { 1e10f, -1e10f, 300.7f, -3.9f, 3.9f, NAN, INFINITY,
		      -INFINITY, 2147483520.0f, -2147483648.0f, 127.99f,
		      -128.5f, -0.0f };
	double g[] = { 1e30, -1e30, 9.3e18, -9.3e18, 9223372036854774784.0, NAN };
	int32_t i32[13];
	int8_t i8[13];
	uint8_t u8[13];
	int64_t i64[6];

	(void)state;
	assert_int_equal(ipu_dtype_convert(i32, IPU_DTYPE_INT32, f, IPU_DTYPE_FLOAT32, 13), 0);
	assert_int_equal(i32[0], INT32_MAX);
	assert_int_equal(i32[1], INT32_MIN);
	assert_int_equal(i32[2], 300);
	assert_int_equal(i32[3], -3);
	assert_int_equal(i32[4], 3);
	assert_int_equal(i32[5], 0);
	assert_int_equal(i32[6], INT32_MAX);
	assert_int_equal(i32[7], INT32_MIN);
	assert_int_equal(i32[8], 2147483520);
	assert_int_equal(i32[9], INT32_MIN);
	assert_int_equal(i32[12], 0);
	assert_int_equal(ipu_dtype_convert(i8, IPU_DTYPE_INT8, f, IPU_DTYPE_FLOAT32, 13), 0);
	assert_int_equal(i8[0], 127);
	assert_int_equal(i8[1], -128);
	assert_int_equal(i8[2], 127);
	assert_int_equal(i8[3], -3);
	assert_int_equal(i8[5], 0);
	assert_int_equal(i8[10], 127);
	assert_int_equal(i8[11], -128);
	assert_int_equal(ipu_dtype_convert(u8, IPU_DTYPE_UINT8, f, IPU_DTYPE_FLOAT32, 13), 0);
	assert_int_equal(u8[0], 255);
	assert_int_equal(u8[1], 0);
	assert_int_equal(u8[2], 255);
	assert_int_equal(u8[3], 0);
	assert_int_equal(u8[4], 3);
	assert_int_equal(u8[5], 0);
	assert_int_equal(u8[6], 255);
	assert_int_equal(u8[7], 0);
	assert_int_equal(ipu_dtype_convert(i64, IPU_DTYPE_INT64, g, IPU_DTYPE_FLOAT64, 6), 0);
	assert_true(i64[0] == INT64_MAX);
	assert_true(i64[1] == INT64_MIN);
	assert_true(i64[2] == INT64_MAX);
	assert_true(i64[3] == INT64_MIN);
	assert_true(i64[4] == 9223372036854774784ll);
	assert_true(i64[5] == 0);
}

static void test_convert_bool(void **state)
{
	float f[] = { 2.5f, NAN, -0.0f, 0.0f, -1e-30f };
	uint8_t b[5], raw[3] = { 0, 1, 7 };
	float back[3];
	int32_t i[3];

	(void)state;
	assert_int_equal(ipu_dtype_convert(b, IPU_DTYPE_BOOL, f, IPU_DTYPE_FLOAT32, 5), 0);
	assert_int_equal(b[0], 1);
	assert_int_equal(b[1], 1); /* NaN != 0, as NumPy */
	assert_int_equal(b[2], 0);
	assert_int_equal(b[3], 0);
	assert_int_equal(b[4], 1);
	/* A bool byte other than 0 or 1 still reads as true, 1. */
	assert_int_equal(ipu_dtype_convert(back, IPU_DTYPE_FLOAT32, raw, IPU_DTYPE_BOOL, 3), 0);
	assert_true(back[0] == 0.0f && back[1] == 1.0f && back[2] == 1.0f);
	assert_int_equal(ipu_dtype_convert(i, IPU_DTYPE_INT32, raw, IPU_DTYPE_BOOL, 3), 0);
	assert_true(i[0] == 0 && i[1] == 1 && i[2] == 1);
	i[0] = 256;
	assert_int_equal(ipu_dtype_convert(b, IPU_DTYPE_BOOL, i, IPU_DTYPE_INT32, 1), 0);
	assert_int_equal(b[0], 1); /* not the low byte */
}

/* Each result is rounded once from the exact value: no double rounding
 * through float32 or double. */
static void test_convert_rounds_once(void **state)
{
	int64_t i64 = (1ll << 60) + (1ll << 52) + 1;
	double d[] = { 1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-50 };
	uint16_t h;
	float f[3];

	(void)state;
	/* Through double, 2^60 + 2^52 + 1 would be a tie, rounding down. */
	assert_int_equal(ipu_dtype_convert(&h, IPU_DTYPE_BFLOAT16, &i64, IPU_DTYPE_INT64, 1), 0);
	assert_int_equal(h, 0x5D81);
	/* Through float32, the 2^-40 would be lost and the tie go down. */
	assert_int_equal(ipu_dtype_convert(&h, IPU_DTYPE_FLOAT16, d, IPU_DTYPE_FLOAT64, 1), 0);
	assert_int_equal(h, 0x3C01);
	assert_int_equal(ipu_dtype_convert(f, IPU_DTYPE_FLOAT32, d, IPU_DTYPE_FLOAT64, 3), 0);
	assert_true(f[1] == 1.0f);
	assert_true(f[2] == 1.0f + 0x1p-23f);
	/* int32 into float32 rounds to nearest even too. */
	{
		int32_t i = 16777217; /* 2^24 + 1: a tie */
		float g;

		assert_int_equal(ipu_dtype_convert(&g, IPU_DTYPE_FLOAT32, &i, IPU_DTYPE_INT32, 1), 0);
		assert_true(g == 16777216.0f);
	}
}

static void test_convert_fp8_saturates_and_keeps_nan(void **state)
{
	float f[] = { 1000.0f, -1e9f, NAN, INFINITY, 0.75f };
	uint8_t q[5];
	uint16_t h[5];

	(void)state;
	assert_int_equal(ipu_dtype_convert(q, IPU_DTYPE_FLOAT8_143, f, IPU_DTYPE_FLOAT32, 5), 0);
	assert_int_equal(q[0], 0x7F);
	assert_int_equal(q[1], 0xFF);
	assert_int_equal(q[2], 0x80);
	assert_int_equal(q[3], 0x80);
	assert_int_equal(q[4], 0x3C);
	/* FP8 NaN into float16 is a NaN; 240 is exact there. */
	q[0] = 0x80;
	q[1] = 0x7F;
	assert_int_equal(ipu_dtype_convert(h, IPU_DTYPE_FLOAT16, q, IPU_DTYPE_FLOAT8_143, 2), 0);
	assert_true(isnan(ipu_f16_to_f32(h[0])));
	assert_true(ipu_f16_to_f32(h[1]) == 240.0f);
	/* FP8 to FP8: 57344 does not fit float8_143 and saturates. */
	q[0] = 0x7F;
	assert_int_equal(ipu_dtype_convert(q, IPU_DTYPE_FLOAT8_143, q, IPU_DTYPE_FLOAT8_152, 1), 0);
	assert_int_equal(q[0], 0x7F);
}

static void test_convert_in_place_and_errors(void **state)
{
	union {
		int32_t i[4];
		float f[4];
	} u = { .i = { 1, -2, 3, 1 << 24 } };
	float f[2] = { 1.0f, 2.0f };
	int32_t i32[2];

	(void)state;
	assert_int_equal(ipu_dtype_convert(u.f, IPU_DTYPE_FLOAT32, u.i, IPU_DTYPE_INT32, 4), 0);
	assert_true(u.f[0] == 1.0f && u.f[1] == -2.0f && u.f[2] == 3.0f &&
		    u.f[3] == 16777216.0f);
	/* Same dtype: a copy (overlapping is fine). */
	assert_int_equal(ipu_dtype_convert(&u.f[1], IPU_DTYPE_FLOAT32, &u.f[0], IPU_DTYPE_FLOAT32, 3), 0);
	assert_true(u.f[1] == 1.0f && u.f[2] == -2.0f && u.f[3] == 3.0f);

	assert_int_equal(ipu_dtype_convert(i32, IPU_DTYPE_INVALID, f, IPU_DTYPE_FLOAT32, 2), -EINVAL);
	assert_int_equal(ipu_dtype_convert(i32, IPU_DTYPE_INT32, f, IPU_DTYPE_COUNT_, 2), -EINVAL);
	assert_int_equal(ipu_dtype_convert(i32, -3, f, IPU_DTYPE_FLOAT32, 2), -EINVAL);
	assert_int_equal(ipu_dtype_convert(NULL, IPU_DTYPE_INT32, f, IPU_DTYPE_FLOAT32, 2), -EINVAL);
	assert_int_equal(ipu_dtype_convert(i32, IPU_DTYPE_INT32, NULL, IPU_DTYPE_FLOAT32, 2), -EINVAL);
	assert_int_equal(ipu_dtype_convert(NULL, IPU_DTYPE_INT32, NULL, IPU_DTYPE_FLOAT32, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_sizes_from_name),
		cmocka_unit_test(test_S23_fp8_known_values),
		cmocka_unit_test(test_S23_fp8_every_code_round_trips),
		cmocka_unit_test(test_S23_fp8_decoder_matches_bit_formula),
		cmocka_unit_test(test_S23_fp8_rne_ties_between_every_pair),
		cmocka_unit_test(test_S23_fp8_matches_brute_force_reference),
		cmocka_unit_test(test_S23_fp8_overflow_saturates_or_nans),
		cmocka_unit_test(test_S23_pow2scale_every_scale_and_code),
		cmocka_unit_test(test_S23_pow2scale_overflow_is_not_an_infinite_input),
		cmocka_unit_test(test_S23_pow2scale_argument_errors),
		cmocka_unit_test(test_f16_known_values_and_rne),
		cmocka_unit_test(test_bf16_known_values_and_rne),
		cmocka_unit_test(test_f16_bf16_every_code_round_trips),
		cmocka_unit_test(test_convert_every_pair),
		cmocka_unit_test(test_convert_int_wrap),
		cmocka_unit_test(test_convert_16_and_unsigned_32_bit),
		cmocka_unit_test(test_convert_float_to_int_saturates_truncates_nan_zero),
		cmocka_unit_test(test_convert_bool),
		cmocka_unit_test(test_convert_rounds_once),
		cmocka_unit_test(test_convert_fp8_saturates_and_keeps_nan),
		cmocka_unit_test(test_convert_in_place_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
