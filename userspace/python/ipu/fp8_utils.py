# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's FP8 host conversions (S23), over libipufw's (the ones the device
uses, so the host and the device agree bit for bit), with PopXL's
signatures and semantics:

- ``host_pow2scale_cast_to_fp8(src, dtype, log2_scale=0,
  nan_on_overflow=True)``: cast(src * 2^log2_scale, dtype), an array of
  :data:`ipu.dtypes.np_dtype_float8_143` or ``_152``;
- ``host_pow2scale_cast_from_fp8(src, dtype, log2_scale=0)``:
  cast(src, dtype) * 2^log2_scale, for such an array and dtype float16,
  float32 or float64.

Both raise :class:`ipu.ConversionError` (a RuntimeError, as PopXL raises)
for what they do not support.

float8_143: 1 sign, 4 exponent, 3 mantissa bits, bias 8, largest 240;
float8_152: 1-5-2, bias 16, largest 57344. Both have subnormals, no
infinities and one NaN, 0x80.
"""
import numpy as np

from . import _lib
from .dtypes import (float8_143, float8_152, float16, float32, float64,
                     np_dtype_float8_143, np_dtype_float8_152)
from .errors import ConversionError, DTypeError

_FORMATS = {np_dtype_float8_143: float8_143, np_dtype_float8_152: float8_152}
_FLOATS = (float16, float32, float64)


def _scale(log2_scale, what):
    s = int(log2_scale)
    if not -32 <= s < 32:
        raise ConversionError("%s: log2_scale %d is not in [-32, 32)" %
                              (what, s))
    return s


def _to_float32_odd(x):
    """float64 @x in float32 for libipufw's float32-to-FP8 cast, rounded to
    odd: toward zero, and an inexact result gets its last bit set. With
    float32's 24 bits against FP8's 4 at most, the cast then rounds as one
    rounding of @x would (no double rounding at a tie), and a finite value
    past float32's range stays finite (FP8 saturates it or makes it NaN as
    asked; only an infinite input is an infinity)."""
    with np.errstate(over="ignore"):
        f = np.require(x, np.float32, "C")
    wide = f.astype(np.float64)
    inexact = np.isfinite(x) & (wide != x)
    away = inexact & (np.abs(wide) > np.abs(x))
    f[away] = np.nextafter(f[away], np.float32(0))
    f.view(np.uint32)[inexact] |= np.uint32(1)
    return f


def host_pow2scale_cast_to_fp8(src, dtype=None, log2_scale=0,
                               nan_on_overflow=True):
    """Cast ``src * 2**log2_scale`` to FP8 on the host.

    Args:
        src (np.ndarray): float16, float32 or float64 values (array-like is
            made an array first).
        dtype (ipu.dtype): ipu.float8_143 or ipu.float8_152.
        log2_scale (int): in [-32, 32).
        nan_on_overflow (bool): overflow gives NaN (0x80) rather than the
            largest value of the sign (0x7F / 0xFF); an infinite input is
            NaN either way.

    Returns:
        np.ndarray: the codes, of dtype np_dtype_float8_143 or _152, @src's
        shape.

    Raises:
        ipu.ConversionError: another dtype, source dtype or scale.

    Example: 0.75 is 0b00111100 in float8_143.
    """
    what = "host_pow2scale_cast_to_fp8"
    if dtype not in (float8_143, float8_152):
        raise ConversionError("%s: dtype %r is not supported (ipu.float8_143 "
                              "or ipu.float8_152)" % (what, dtype))
    a = np.asarray(src)
    if a.dtype not in (np.float16, np.float32, np.float64):
        raise ConversionError("%s: source dtype %s is not supported "
                              "(float16, float32 or float64)" %
                              (what, a.dtype))
    s = _scale(log2_scale, what)
    # The scale is exact in float64; then one rounding, to FP8.
    f32 = _to_float32_odd(np.asarray(a, np.float64) * 2.0 ** s)
    out = np.empty(a.shape, np.uint8)
    _lib.host_pow2scale_cast_to_fp8(out.ctypes.data, f32.ctypes.data,
                                    f32.size, dtype._code, 0,
                                    bool(nan_on_overflow))
    return out.view(dtype.as_numpy())


def host_pow2scale_cast_from_fp8(src, dtype=None, log2_scale=0):
    """The values of FP8 codes, times ``2**log2_scale``, on the host.

    Args:
        src (np.ndarray): codes of dtype np_dtype_float8_143 or _152 (what
            host_pow2scale_cast_to_fp8, get_tensor_data and FP8 streams
            give); the format is the dtype's.
        dtype (ipu.dtype): ipu.float16, ipu.float32 or ipu.float64, the
            result's.
        log2_scale (int): in [-32, 32); applied after the cast.

    Returns:
        np.ndarray: of @dtype's NumPy dtype, @src's shape.

    Raises:
        ipu.ConversionError: another source dtype (plain uint8 codes do not
            say their format: ``codes.view(np_dtype_float8_143)``), dtype
            or scale.
    """
    what = "host_pow2scale_cast_from_fp8"
    a = np.asarray(src)
    fmt = _FORMATS.get(a.dtype)
    if fmt is None:
        raise ConversionError("%s: source dtype %s is not supported "
                              "(np_dtype_float8_143 or np_dtype_float8_152)" %
                              (what, a.dtype))
    if dtype not in _FLOATS:
        raise ConversionError("%s: dtype %r is not supported (ipu.float16, "
                              "ipu.float32 or ipu.float64)" % (what, dtype))
    s = _scale(log2_scale, what)
    codes = np.require(a, requirements="C").view(np.uint8)
    vals = np.empty(a.shape, np.float32)
    _lib.host_pow2scale_cast_from_fp8(vals.ctypes.data, codes.ctypes.data,
                                      codes.size, fmt._code, 0)
    # FP8 values are exact in float32, and so are they times 2^s in
    # float64; the one rounding is to @dtype.
    return (vals.astype(np.float64) * 2.0 ** s).astype(dtype.as_numpy())


def initial_data(data, dtype, log2_scale, nan_on_overflow, what):
    """The host data of a new variable or constant of @dtype, as PopXL's
    ``variable``/``constant`` take it: for an FP8 @dtype, float16/32/64
    data is cast with :func:`host_pow2scale_cast_to_fp8` (scale 0 and NaN
    on overflow unless given), data already of @dtype's structured dtype
    (or plain uint8 codes) is taken as it is; for any other dtype the two
    options must be left None. Returns None when the caller converts
    (@dtype is not FP8).

    Raises:
        ipu.ConversionError: an option for a dtype other than FP8, a scale
            out of range (RuntimeError, as PopXL).
        ipu.DTypeError: FP8 from data that is neither float nor of @dtype's
            format (TypeError, as PopXL).
    """
    if dtype not in (float8_143, float8_152):
        for opt, v in (("log2_scale", log2_scale),
                       ("nan_on_overflow", nan_on_overflow)):
            if v is not None:
                raise ConversionError(
                    "%s: %s is for float8_143 and float8_152 data, not %s" %
                    (what, opt, getattr(dtype, "name", dtype)))
        return None
    a = np.asarray(data)
    if a.dtype == dtype.as_numpy():
        return np.require(a, requirements="C")
    if a.dtype == np.uint8:
        return np.require(a, requirements="C").view(dtype.as_numpy())
    if a.dtype not in (np.float16, np.float32, np.float64):
        raise DTypeError("%s: %s data cannot become %s: give float16, "
                         "float32 or float64 values (or %s data)" %
                         (what, a.dtype, dtype.name, dtype.name))
    return host_pow2scale_cast_to_fp8(
        a, dtype, 0 if log2_scale is None else log2_scale,
        True if nan_on_overflow is None else nan_on_overflow)
