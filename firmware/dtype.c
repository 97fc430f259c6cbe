// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * dtype.c - element types and conversions between them (include/ipu/dtype.h).
 *
 * Every conversion goes through one of two exact intermediates: a double for
 * floating sources (every float type of the stack, FP8 to float64, is exactly
 * representable in one) and an int64 for integer and bool sources. The small
 * float formats (float16, bfloat16, both FP8s) are then produced by a single
 * encoder, parameterised by the format, from the exact value written as
 * magnitude * 2^exponent, so that every result is rounded exactly once. That
 * matters: rounding an int64 to float32 and then to bfloat16 could land on a
 * tie that the exact value was not on and round the wrong way.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <ipu/dtype.h>

/* A small binary float format. */
struct fmt {
	unsigned int man;	/* explicit mantissa bits */
	unsigned int exp;	/* exponent bits */
	int bias;
	/*
	 * IEEE formats reserve the all-ones exponent for infinities and NaNs
	 * and have -0. The FP8 formats use every exponent for finite values,
	 * have no infinities, and their one NaN is the code of -0 (0x80).
	 */
	bool ieee;
};

static const struct fmt fmt_f16 = { 10, 5, 15, true };
static const struct fmt fmt_bf16 = { 7, 8, 127, true };
static const struct fmt fmt_143 = { 3, 4, 8, false };
static const struct fmt fmt_152 = { 2, 5, 16, false };

#define FP8_NAN 0x80u

static const struct {
	const char *name;
	size_t size;
} dtype_info[IPU_DTYPE_COUNT_] = {
	[IPU_DTYPE_INVALID] = { "invalid", 0 },
	[IPU_DTYPE_FLOAT32] = { "float32", 4 },
	[IPU_DTYPE_FLOAT16] = { "float16", 2 },
	[IPU_DTYPE_BFLOAT16] = { "bfloat16", 2 },
	[IPU_DTYPE_FLOAT8_143] = { "float8_143", 1 },
	[IPU_DTYPE_FLOAT8_152] = { "float8_152", 1 },
	[IPU_DTYPE_INT32] = { "int32", 4 },
	[IPU_DTYPE_INT8] = { "int8", 1 },
	[IPU_DTYPE_UINT8] = { "uint8", 1 },
	[IPU_DTYPE_BOOL] = { "bool", 1 },
	[IPU_DTYPE_FLOAT64] = { "float64", 8 },
	[IPU_DTYPE_INT64] = { "int64", 8 },
	[IPU_DTYPE_INT16] = { "int16", 2 },
	[IPU_DTYPE_UINT16] = { "uint16", 2 },
	[IPU_DTYPE_UINT32] = { "uint32", 4 },
};

bool ipu_dtype_valid(int dt)
{
	return dt > IPU_DTYPE_INVALID && dt < IPU_DTYPE_COUNT_;
}

bool ipu_dtype_on_device(int dt)
{
	/* The host-only types sit between the first and the later device
	 * types (codes are only appended). */
	return ipu_dtype_valid(dt) && dt != IPU_DTYPE_FLOAT64 &&
	       dt != IPU_DTYPE_INT64;
}

size_t ipu_dtype_size(int dt)
{
	return ipu_dtype_valid(dt) ? dtype_info[dt].size : 0;
}

const char *ipu_dtype_name(int dt)
{
	return ipu_dtype_valid(dt) ? dtype_info[dt].name : "invalid";
}

enum ipu_dtype ipu_dtype_from_name(const char *name)
{
	int dt;

	if (!name)
		return IPU_DTYPE_INVALID;
	for (dt = IPU_DTYPE_INVALID + 1; dt < IPU_DTYPE_COUNT_; dt++)
		if (!strcmp(name, dtype_info[dt].name))
			return dt;
	return IPU_DTYPE_INVALID;
}

bool ipu_dtype_is_float(int dt)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT32:
	case IPU_DTYPE_FLOAT16:
	case IPU_DTYPE_BFLOAT16:
	case IPU_DTYPE_FLOAT8_143:
	case IPU_DTYPE_FLOAT8_152:
	case IPU_DTYPE_FLOAT64:
		return true;
	default:
		return false;
	}
}

bool ipu_dtype_is_fp8(int dt)
{
	return dt == IPU_DTYPE_FLOAT8_143 || dt == IPU_DTYPE_FLOAT8_152;
}

static const struct fmt *small_fmt(int dt)
{
	switch (dt) {
	case IPU_DTYPE_FLOAT16:
		return &fmt_f16;
	case IPU_DTYPE_BFLOAT16:
		return &fmt_bf16;
	case IPU_DTYPE_FLOAT8_143:
		return &fmt_143;
	case IPU_DTYPE_FLOAT8_152:
		return &fmt_152;
	default:
		return NULL;
	}
}

/* ---------------------------------------------------------------------- */
/* The encoder and decoder of the small formats                            */
/* ---------------------------------------------------------------------- */

/*
 * encode() - the code of (@neg ? -1 : 1) * @mag * 2^@e in format @f,
 * rounded to nearest, ties to even; @mag may be 0. Infinities and NaNs are
 * the callers' business.
 */
static uint32_t encode(const struct fmt *f, bool neg, uint64_t mag, int e,
		       bool nan_on_overflow)
{
	uint32_t sign = neg ? 1u << (f->man + f->exp) : 0;
	uint32_t maxfin, bits;
	int emin = 1 - f->bias;
	int top, lead, shift;
	uint64_t q;

	if (!mag)
		return f->ieee ? sign : 0;
	top = 63 - __builtin_clzll(mag);
	lead = top + e; /* unbiased exponent of the leading bit */
	/* The exponent of the last mantissa bit we keep, minus e. */
	shift = (lead < emin ? emin : lead) - (int)f->man - e;
	if (shift <= 0) {
		/* Exact: fewer significant bits than the format keeps
		 * (-shift <= man, so this cannot overflow). */
		q = mag << -shift;
	} else if (shift < 64) {
		uint64_t rem = mag & ((UINT64_C(1) << shift) - 1);
		uint64_t half = UINT64_C(1) << (shift - 1);

		q = mag >> shift;
		if (rem > half || (rem == half && (q & 1)))
			q++;
	} else {
		/* Everything is below the last bit: at most half of it. */
		q = shift == 64 && mag > (UINT64_C(1) << 63);
	}

	/*
	 * A normal q has its leading one at bit man; adding it on top of the
	 * exponent field minus one sets the field, and a carry out of the
	 * mantissa from rounding moves to the next exponent by itself. A
	 * subnormal q that rounds up to 1 << man becomes the smallest normal.
	 */
	if (lead < emin)
		bits = (uint32_t)q;
	else
		bits = ((uint32_t)(lead + f->bias - 1) << f->man) + (uint32_t)q;

	if (f->ieee) {
		maxfin = (((1u << f->exp) - 1) << f->man) - 1;
		if (bits > maxfin)
			bits = maxfin + 1; /* infinity */
		return sign | bits;
	}
	maxfin = (1u << (f->exp + f->man)) - 1;
	if (bits > maxfin)
		return nan_on_overflow ? FP8_NAN : sign | maxfin;
	return bits ? sign | bits : 0; /* -0 would be the NaN */
}

/* The code of a double in format @f (IEEE or FP8). */
static uint32_t encode_double(const struct fmt *f, double d,
			      bool nan_on_overflow)
{
	uint64_t u, mag;
	unsigned int ef;
	bool neg;

	memcpy(&u, &d, sizeof(u));
	neg = u >> 63;
	ef = (u >> 52) & 0x7ff;
	mag = u & ((UINT64_C(1) << 52) - 1);
	if (ef == 0x7ff) {
		if (!f->ieee)
			return FP8_NAN;
		/* Infinity, or a quiet NaN of the same sign. */
		return (neg ? 1u << (f->man + f->exp) : 0) |
		       (((1u << f->exp) - 1) << f->man) |
		       (mag ? 1u << (f->man - 1) : 0);
	}
	if (ef)
		mag |= UINT64_C(1) << 52;
	else
		ef = 1;
	return encode(f, neg, mag, (int)ef - 1075, nan_on_overflow);
}

/* The code of an int64 in format @f. */
static uint32_t encode_int(const struct fmt *f, int64_t v)
{
	/* The magnitude of INT64_MIN is 2^63, which fits a uint64. */
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	return encode(f, v < 0, mag, 0, false);
}

/* The value of code @bits in format @f, exactly. */
static double decode(const struct fmt *f, uint32_t bits)
{
	uint32_t ef = (bits >> f->man) & ((1u << f->exp) - 1);
	uint32_t mant = bits & ((1u << f->man) - 1);
	bool neg = bits >> (f->man + f->exp) & 1;
	double v;

	uint64_t u;

	if (!f->ieee && bits == FP8_NAN)
		return NAN;
	if (f->ieee && ef == (1u << f->exp) - 1) {
		v = mant ? NAN : INFINITY;
	} else if (ef == 0) {
		v = ldexp(mant, 1 - f->bias - (int)f->man);
	} else {
		/* A normal number is a normal double with the same mantissa
		 * bits: assemble it. */
		u = (uint64_t)((int)ef - f->bias + 1023) << 52 |
		    (uint64_t)mant << (52 - f->man);
		memcpy(&v, &u, sizeof(v));
	}
	return neg ? -v : v;
}

uint16_t ipu_f32_to_f16(float f)
{
	return (uint16_t)encode_double(&fmt_f16, f, false);
}

float ipu_f16_to_f32(uint16_t h)
{
	return (float)decode(&fmt_f16, h);
}

uint16_t ipu_f32_to_bf16(float f)
{
	return (uint16_t)encode_double(&fmt_bf16, f, false);
}

float ipu_bf16_to_f32(uint16_t b)
{
	/* bfloat16 is the top half of binary32: exact, NaN payloads kept. */
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

uint8_t ipu_f32_to_fp8(float f, int dt, bool nan_on_overflow)
{
	if (!ipu_dtype_is_fp8(dt))
		return FP8_NAN;
	return (uint8_t)encode_double(small_fmt(dt), f, nan_on_overflow);
}

float ipu_fp8_to_f32(uint8_t v, int dt)
{
	if (!ipu_dtype_is_fp8(dt))
		return NAN;
	return (float)decode(small_fmt(dt), v);
}

/* ---------------------------------------------------------------------- */
/* Arrays                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * Arrays convert a chunk at a time through the exact intermediate: the
 * source chunk into int64s or doubles, then those into the destination.
 * Each step dispatches on the dtype once per chunk, not per element, so
 * the inner loops are plain typed loops the compiler can vectorise.
 */
#define CHUNK 256

/* Loop @i over @n elements: @dst_t @d[i] = @expr, with s = @src_t @s[i]. */
#define EACH(dst_t, d, src_t, s, expr)                                       \
	do {                                                                 \
		const src_t *s_ = (const src_t *)(s);                        \
		dst_t *d_ = (dst_t *)(d);                                    \
		for (i = 0; i < n; i++) {                                    \
			src_t v = s_[i];                                     \
			d_[i] = (expr);                                      \
		}                                                            \
	} while (0)

static bool is_intlike(int dt)
{
	return !ipu_dtype_is_float(dt);
}

/* @n integers or bools of type @dt at @src into int64s. */
static void ints_in(int64_t *t, const void *src, int dt, size_t n)
{
	size_t i;

	switch (dt) {
	case IPU_DTYPE_INT32: EACH(int64_t, t, int32_t, src, v); break;
	case IPU_DTYPE_INT8: EACH(int64_t, t, int8_t, src, v); break;
	case IPU_DTYPE_UINT8: EACH(int64_t, t, uint8_t, src, v); break;
	case IPU_DTYPE_BOOL: EACH(int64_t, t, uint8_t, src, v != 0); break;
	case IPU_DTYPE_INT16: EACH(int64_t, t, int16_t, src, v); break;
	case IPU_DTYPE_UINT16: EACH(int64_t, t, uint16_t, src, v); break;
	case IPU_DTYPE_UINT32: EACH(int64_t, t, uint32_t, src, v); break;
	default: EACH(int64_t, t, int64_t, src, v); break; /* INT64 */
	}
}

/* @n floats of type @dt at @src into doubles (exactly). */
static void floats_in(double *t, const void *src, int dt, size_t n)
{
	const struct fmt *f = small_fmt(dt);
	size_t i;

	switch (dt) {
	case IPU_DTYPE_FLOAT32: EACH(double, t, float, src, v); break;
	case IPU_DTYPE_FLOAT64: EACH(double, t, double, src, v); break;
	case IPU_DTYPE_BFLOAT16:
		EACH(double, t, uint16_t, src, ipu_bf16_to_f32(v));
		break;
	case IPU_DTYPE_FLOAT16: EACH(double, t, uint16_t, src, decode(f, v)); break;
	default: EACH(double, t, uint8_t, src, decode(f, v)); break; /* FP8 */
	}
}

/* Saturating, truncating conversion of a float to integer type @dt. */
static int64_t float_to_int(double v, int dt)
{
	double t, lo, hi_excl;

	if (isnan(v))
		return 0;
	switch (dt) {
	case IPU_DTYPE_INT32:
		lo = -2147483648.0;
		break;
	case IPU_DTYPE_INT8:
		lo = -128.0;
		break;
	case IPU_DTYPE_INT16:
		lo = -32768.0;
		break;
	case IPU_DTYPE_UINT8:
	case IPU_DTYPE_UINT16:
	case IPU_DTYPE_UINT32:
		lo = 0.0;
		break;
	default: /* IPU_DTYPE_INT64 */
		lo = -9223372036854775808.0;
		break;
	}
	/* Both bounds are powers of two (or 0) and exact in a double. */
	switch (dt) {
	case IPU_DTYPE_UINT8:
		hi_excl = 256.0;
		break;
	case IPU_DTYPE_UINT16:
		hi_excl = 65536.0;
		break;
	case IPU_DTYPE_UINT32:
		hi_excl = 4294967296.0;
		break;
	default:
		hi_excl = -lo;
		break;
	}
	t = trunc(v);
	if (t >= hi_excl)
		return dt == IPU_DTYPE_INT64 ? INT64_MAX : (int64_t)hi_excl - 1;
	if (t < lo)
		return dt == IPU_DTYPE_INT64 ? INT64_MIN : (int64_t)lo;
	return (int64_t)t;
}

/*
 * @n int64s into type @dt at @dst: integers wrap (two's complement), bool
 * is (v != 0), floats round once from the exact value.
 */
static void ints_out(void *dst, int dt, const int64_t *t, size_t n)
{
	const struct fmt *f = small_fmt(dt);
	size_t i;

	switch (dt) {
	case IPU_DTYPE_INT32: EACH(int32_t, dst, int64_t, t, (int32_t)(uint32_t)v); break;
	case IPU_DTYPE_INT8: EACH(int8_t, dst, int64_t, t, (int8_t)(uint8_t)v); break;
	case IPU_DTYPE_UINT8: EACH(uint8_t, dst, int64_t, t, (uint8_t)v); break;
	case IPU_DTYPE_BOOL: EACH(uint8_t, dst, int64_t, t, v != 0); break;
	case IPU_DTYPE_INT64: EACH(int64_t, dst, int64_t, t, v); break;
	case IPU_DTYPE_INT16: EACH(int16_t, dst, int64_t, t, (int16_t)(uint16_t)v); break;
	case IPU_DTYPE_UINT16: EACH(uint16_t, dst, int64_t, t, (uint16_t)v); break;
	case IPU_DTYPE_UINT32: EACH(uint32_t, dst, int64_t, t, (uint32_t)v); break;
	case IPU_DTYPE_FLOAT32: EACH(float, dst, int64_t, t, (float)v); break;
	case IPU_DTYPE_FLOAT64: EACH(double, dst, int64_t, t, (double)v); break;
	case IPU_DTYPE_FLOAT16:
	case IPU_DTYPE_BFLOAT16:
		EACH(uint16_t, dst, int64_t, t, (uint16_t)encode_int(f, v));
		break;
	default: /* FP8 */
		EACH(uint8_t, dst, int64_t, t, (uint8_t)encode_int(f, v));
		break;
	}
}

/*
 * @n doubles into type @dt at @dst: floats round to nearest even (FP8
 * saturates), integers truncate and saturate (NaN: 0), bool is (v != 0),
 * NaN included, as NumPy.
 */
static void floats_out(void *dst, int dt, const double *t, size_t n)
{
	const struct fmt *f = small_fmt(dt);
	size_t i;

	switch (dt) {
	case IPU_DTYPE_FLOAT32: EACH(float, dst, double, t, (float)v); break;
	case IPU_DTYPE_FLOAT64: EACH(double, dst, double, t, v); break;
	case IPU_DTYPE_FLOAT16:
	case IPU_DTYPE_BFLOAT16:
		EACH(uint16_t, dst, double, t, (uint16_t)encode_double(f, v, false));
		break;
	case IPU_DTYPE_FLOAT8_143:
	case IPU_DTYPE_FLOAT8_152:
		EACH(uint8_t, dst, double, t, (uint8_t)encode_double(f, v, false));
		break;
	case IPU_DTYPE_BOOL: EACH(uint8_t, dst, double, t, v != 0); break;
	case IPU_DTYPE_INT32: EACH(int32_t, dst, double, t, (int32_t)float_to_int(v, dt)); break;
	case IPU_DTYPE_INT8: EACH(int8_t, dst, double, t, (int8_t)float_to_int(v, dt)); break;
	case IPU_DTYPE_UINT8: EACH(uint8_t, dst, double, t, (uint8_t)float_to_int(v, dt)); break;
	case IPU_DTYPE_INT16: EACH(int16_t, dst, double, t, (int16_t)float_to_int(v, dt)); break;
	case IPU_DTYPE_UINT16: EACH(uint16_t, dst, double, t, (uint16_t)float_to_int(v, dt)); break;
	case IPU_DTYPE_UINT32: EACH(uint32_t, dst, double, t, (uint32_t)float_to_int(v, dt)); break;
	default: EACH(int64_t, dst, double, t, float_to_int(v, dt)); break; /* INT64 */
	}
}

int ipu_dtype_convert(void *dst, int dst_dt, const void *src, int src_dt,
		      size_t n)
{
	size_t ssz = ipu_dtype_size(src_dt), dsz = ipu_dtype_size(dst_dt);
	union {
		int64_t i[CHUNK];
		double d[CHUNK];
	} t;
	size_t done, c;

	if (!ssz || !dsz)
		return -EINVAL;
	if (n && (!dst || !src))
		return -EINVAL;
	if (dst_dt == src_dt) {
		if (dst != src && n)
			memmove(dst, src, n * dsz);
		return 0;
	}
	/* A chunk is read whole before it is written: in place works when
	 * both element sizes are equal. */
	for (done = 0; done < n; done += c) {
		const uint8_t *s = (const uint8_t *)src + done * ssz;
		uint8_t *d = (uint8_t *)dst + done * dsz;

		c = n - done < CHUNK ? n - done : CHUNK;
		if (is_intlike(src_dt)) {
			ints_in(t.i, s, src_dt, c);
			ints_out(d, dst_dt, t.i, c);
		} else {
			floats_in(t.d, s, src_dt, c);
			floats_out(d, dst_dt, t.d, c);
		}
	}
	return 0;
}

#undef EACH

/* ---------------------------------------------------------------------- */
/* PopXL's FP8 helpers                                                     */
/* ---------------------------------------------------------------------- */

static int pow2scale_check(const void *dst, const void *src, size_t n, int dt,
			   int log2_scale)
{
	if (n && (!dst || !src))
		return -EINVAL;
	if (!ipu_dtype_is_fp8(dt) || log2_scale < -32 || log2_scale >= 32)
		return -EINVAL;
	return 0;
}

int host_pow2scale_cast_to_fp8(uint8_t *dst, const float *src, size_t n,
			       int dt, int log2_scale, bool nan_on_overflow)
{
	int err = pow2scale_check(dst, src, n, dt, log2_scale);
	size_t i;

	if (err)
		return err;
	/* Scale in double: exact for every float and every scale in range,
	 * so a finite value that a float32 product would overflow still
	 * counts as an overflow rather than as an infinite input. */
	for (i = 0; i < n; i++)
		dst[i] = (uint8_t)encode_double(small_fmt(dt),
						ldexp(src[i], log2_scale),
						nan_on_overflow);
	return 0;
}

int host_pow2scale_cast_from_fp8(float *dst, const uint8_t *src, size_t n,
				 int dt, int log2_scale)
{
	int err = pow2scale_check(dst, src, n, dt, log2_scale);
	size_t i;

	if (err)
		return err;
	/* Exact: FP8 values times 2^[-31, 32] are all normal float32s. */
	for (i = 0; i < n; i++)
		dst[i] = (float)ldexp(decode(small_fmt(dt), src[i]),
				      -log2_scale);
	return 0;
}
