# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``popxl.utils``: the NumPy dtypes of FP8 host data, the FP8 host
conversions (also under PopXL's older names ``host_pow2scale_then_cast``
and ``host_cast_then_pow2scale``) and ``to_numpy``, where PopXL programs
import them from."""
import numpy as np

from .dtypes import np_dtype_float8_143, np_dtype_float8_152
from .fp8_utils import host_pow2scale_cast_from_fp8, host_pow2scale_cast_to_fp8
from .tensor import _default_dtype, _initial

host_pow2scale_then_cast = host_pow2scale_cast_to_fp8
host_cast_then_pow2scale = host_pow2scale_cast_from_fp8


def to_numpy(x, dtype=None, downcast=True, copy=True, log2_scale=None,
             nan_on_overflow=None):
    """@x as the host array a tensor of @dtype made from it holds (PopXL's
    ``popxl.utils.to_numpy``): what ``ipu.variable(x, dtype, ...)`` would
    store.

    Args:
        x (array-like or number): the data.
        dtype (ipu.dtype, optional): defaults to @x's, 64-bit types
            downcast to 32 bits when @downcast.
        downcast (bool): as for :func:`ipu.variable`; with False, 64-bit
            data without a dtype stays 64-bit.
        copy (bool): always return a new array (else @x itself may be
            returned when it already is the result).
        log2_scale (int, optional), nan_on_overflow (bool, optional): for
            FP8 dtypes, as for :func:`ipu.variable`.

    Raises:
        RuntimeError: @log2_scale or @nan_on_overflow for a dtype that is
            not FP8, or a scale out of range (:class:`ipu.ConversionError`).
        TypeError: FP8 from data that is neither float nor of that format
            (:class:`ipu.DTypeError`).
    """
    raw = np.asarray(x)
    if dtype is None and not downcast and \
            raw.dtype in (np.float64, np.int64):
        out = raw
    else:
        dt = dtype or _default_dtype(raw, True, "to_numpy")
        out = _initial(raw, dt, log2_scale, nan_on_overflow, "to_numpy")
    if copy and (out is x or np.may_share_memory(out, raw)):
        out = out.copy()
    return out


__all__ = ["np_dtype_float8_143", "np_dtype_float8_152",
           "host_pow2scale_cast_to_fp8", "host_pow2scale_cast_from_fp8",
           "host_pow2scale_then_cast", "host_cast_then_pow2scale",
           "to_numpy"]
