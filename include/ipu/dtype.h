/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * dtype.h - element types of IPU tensors and host buffers, and conversions
 *
 * Shared by every layer: the IR builder checks dtypes, the firmware executes
 * casts, libsession converts host buffers (S12 downcast) and offers PopXL's
 * FP8 helpers (S23). One implementation (firmware/dtype.c), so a value
 * converts to the same bits on every backend.
 *
 * FP8, as docs/session.md S23 describes it:
 *  - float8_143: 1 sign, 4 exponent, 3 mantissa bits, bias 8, largest 240,
 *    smallest subnormal 2^-10;
 *  - float8_152: 1 sign, 5 exponent, 2 mantissa bits, bias 16, largest
 *    57344, smallest subnormal 2^-17;
 *  - both have subnormals, no infinities, and a single NaN, 0x80 (the code
 *    that would be negative zero). Conversions round to nearest, ties to
 *    even. Overflow gives NaN when nan_on_overflow, else saturates to the
 *    largest magnitude of the value's sign (0x7F / 0xFF). An infinite or NaN
 *    input gives NaN. -0.0 converts to 0x00.
 *
 * float16 is IEEE binary16 and bfloat16 the top half of binary32, both with
 * round to nearest even; NaNs stay NaNs.
 */
#ifndef IPU_DTYPE_H
#define IPU_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Element types. The numbering is part of the executable format
 * (include/ipu/exe.h): never renumber, only append.
 */
enum ipu_dtype {
	IPU_DTYPE_INVALID = 0,
	IPU_DTYPE_FLOAT32 = 1,
	IPU_DTYPE_FLOAT16 = 2,
	IPU_DTYPE_BFLOAT16 = 3,
	IPU_DTYPE_FLOAT8_143 = 4,
	IPU_DTYPE_FLOAT8_152 = 5,
	IPU_DTYPE_INT32 = 6,
	IPU_DTYPE_INT8 = 7,
	IPU_DTYPE_UINT8 = 8,
	IPU_DTYPE_BOOL = 9,	/* one byte, 0 or 1 */
	/* Host-only types: host buffers may hold them (S12 downcasts them to
	 * FLOAT32 and INT32); device tensors never do. */
	IPU_DTYPE_FLOAT64 = 10,
	IPU_DTYPE_INT64 = 11,
	/* Device types again, added after the host-only ones (PopXL has
	 * them). A reader of an older format version refuses them as it
	 * refuses any code it does not know. */
	IPU_DTYPE_INT16 = 12,
	IPU_DTYPE_UINT16 = 13,
	IPU_DTYPE_UINT32 = 14,
	IPU_DTYPE_COUNT_
};

/** ipu_dtype_valid() - whether @dt is one of the values above. */
bool ipu_dtype_valid(int dt);

/** ipu_dtype_on_device() - whether device tensors may have type @dt. */
bool ipu_dtype_on_device(int dt);

/** ipu_dtype_size() - bytes per element of @dt; 0 if @dt is not valid. */
size_t ipu_dtype_size(int dt);

/**
 * ipu_dtype_name() - the PopXL name of @dt ("float32", "float8_143", ...);
 * "invalid" for a value that is not valid. Never NULL.
 */
const char *ipu_dtype_name(int dt);

/**
 * ipu_dtype_from_name() - the dtype named @name (as ipu_dtype_name()
 * prints it), or IPU_DTYPE_INVALID.
 */
enum ipu_dtype ipu_dtype_from_name(const char *name);

/** ipu_dtype_is_float() - float32, float16, bfloat16, both FP8s, float64. */
bool ipu_dtype_is_float(int dt);

/** ipu_dtype_is_fp8() - float8_143 or float8_152. */
bool ipu_dtype_is_fp8(int dt);

/* Scalar conversions. */
uint16_t ipu_f32_to_f16(float f);
float ipu_f16_to_f32(uint16_t h);
uint16_t ipu_f32_to_bf16(float f);
float ipu_bf16_to_f32(uint16_t b);

/**
 * ipu_f32_to_fp8() - convert @f to FP8 of type @dt (float8_143 or
 * float8_152) as the header comment says; @dt of another type gives 0x80.
 */
uint8_t ipu_f32_to_fp8(float f, int dt, bool nan_on_overflow);

/** ipu_fp8_to_f32() - the value of FP8 code @v of type @dt (NaN for 0x80). */
float ipu_fp8_to_f32(uint8_t v, int dt);

/**
 * ipu_dtype_convert() - convert @n elements from @src (type @src_dt) to
 * @dst (type @dst_dt). @src and @dst must not overlap unless they are the
 * same pointer with the same element size.
 *
 * Floats to integers truncate toward zero and saturate at the integer
 * type's range; NaN becomes 0. Integers to narrower integers wrap (two's
 * complement, as C and NumPy's astype do). Anything to bool is (x != 0);
 * bool to anything is 0 or 1. Floats to FP8 saturate (nan_on_overflow off).
 *
 * Each element is rounded once, from its exact value (no double rounding
 * through float32). Arrays are accessed as their element types, so they
 * must be aligned to their element sizes.
 *
 * Return: 0, or -EINVAL when a dtype is not valid or a pointer is NULL
 * with @n > 0.
 */
int ipu_dtype_convert(void *dst, int dst_dt, const void *src, int src_dt,
		      size_t n);

/**
 * host_pow2scale_cast_to_fp8() - PopXL's helper: cast @src * 2^@log2_scale
 * to FP8.
 * @dst: out: @n FP8 codes.
 * @src: @n floats.
 * @dt: IPU_DTYPE_FLOAT8_143 or IPU_DTYPE_FLOAT8_152.
 * @log2_scale: in [-32, 32).
 * @nan_on_overflow: overflow gives NaN rather than saturating.
 *
 * Example: 0.75 with scale 0 is 0b00111100 in float8_143.
 *
 * Return: 0; -EINVAL for NULL pointers (with @n > 0), a @dt that is not
 * FP8, or @log2_scale out of range.
 */
int host_pow2scale_cast_to_fp8(uint8_t *dst, const float *src, size_t n,
			       int dt, int log2_scale, bool nan_on_overflow);

/**
 * host_pow2scale_cast_from_fp8() - the inverse: @dst[i] = value(@src[i]) *
 * 2^-@log2_scale.
 *
 * Return: as host_pow2scale_cast_to_fp8().
 */
int host_pow2scale_cast_from_fp8(float *dst, const uint8_t *src, size_t n,
				 int dt, int log2_scale);

#ifdef __cplusplus
}
#endif

#endif /* IPU_DTYPE_H */
