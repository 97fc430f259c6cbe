# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's FP8 helpers (S23), over libipufw's conversions (the ones the
device uses, so the host and the device agree bit for bit).

float8_143: 1 sign, 4 exponent, 3 mantissa bits, bias 8, largest 240;
float8_152: 1-5-2, bias 16, largest 57344. Both have subnormals, no
infinities and one NaN, 0x80. Host arrays of FP8 hold the codes as uint8.
"""
import numpy as np

from . import _lib
from .dtypes import float8_143, float8_152
from .errors import check


def _fp8(dtype):
    if dtype not in (float8_143, float8_152):
        raise TypeError("%r is not an FP8 dtype (ipu.float8_143 or "
                        "ipu.float8_152)" % (dtype,))
    return dtype._code


def host_pow2scale_cast_to_fp8(src, dtype=float8_143, log2_scale=0,
                               nan_on_overflow=True):
    """Cast ``src * 2**log2_scale`` to FP8 codes.

    Args:
        src (array-like): values, converted to float32 first.
        dtype (ipu.dtype): ipu.float8_143 or ipu.float8_152.
        log2_scale (int): in [-32, 32).
        nan_on_overflow (bool): overflow gives NaN (0x80) rather than the
            largest value of the sign (0x7F / 0xFF).

    Returns:
        np.ndarray: uint8 codes, @src's shape.

    Example: 0.75 is 0b00111100 in float8_143.
    """
    code = _fp8(dtype)
    a = np.ascontiguousarray(src, np.float32)
    out = np.empty(a.shape, np.uint8)
    check(_lib.host_pow2scale_cast_to_fp8(out.ctypes.data, a.ctypes.data,
                                          a.size, code, int(log2_scale),
                                          bool(nan_on_overflow)),
          "host_pow2scale_cast_to_fp8: log2_scale %d is not in [-32, 32)" %
          int(log2_scale))
    return out


def host_pow2scale_cast_from_fp8(src, dtype=float8_143, log2_scale=0):
    """The inverse: the float32 values of FP8 codes @src, times
    ``2**-log2_scale``."""
    code = _fp8(dtype)
    a = np.ascontiguousarray(src, np.uint8)
    out = np.empty(a.shape, np.float32)
    check(_lib.host_pow2scale_cast_from_fp8(out.ctypes.data, a.ctypes.data,
                                            a.size, code, int(log2_scale)),
          "host_pow2scale_cast_from_fp8: log2_scale %d is not in [-32, 32)" %
          int(log2_scale))
    return out
