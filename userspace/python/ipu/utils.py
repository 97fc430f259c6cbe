# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``popxl.utils``: the NumPy dtypes of FP8 host data and the FP8
host conversions, where PopXL programs import them from."""
from .dtypes import np_dtype_float8_143, np_dtype_float8_152
from .fp8_utils import host_pow2scale_cast_from_fp8, host_pow2scale_cast_to_fp8

__all__ = ["np_dtype_float8_143", "np_dtype_float8_152",
           "host_pow2scale_cast_to_fp8", "host_pow2scale_cast_from_fp8"]
