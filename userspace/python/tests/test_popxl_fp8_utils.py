# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's FP8 host conversions as its API reference gives them (issue 26,
silent difference 2): ``host_pow2scale_cast_to_fp8(src, dtype, log2_scale,
nan_on_overflow)`` is cast(src * 2^log2_scale, dtype) and returns an array of
the structured dtype ``np_dtype_float8_143`` / ``_152``;
``host_pow2scale_cast_from_fp8(src, dtype, log2_scale)`` takes such an array
and the float dtype to make (float16, float32 or float64) and is
cast(src, dtype) * 2^log2_scale. What it does not support is a
RuntimeError."""
import numpy as np
import pytest

import ipu
from ipu import dtypes, utils
from ipu.fp8_utils import (host_pow2scale_cast_from_fp8,
                           host_pow2scale_cast_to_fp8)


def test_the_structured_host_dtypes():
    assert dtypes.np_dtype_float8_143 == np.dtype([("float8_143", "u1")])
    assert dtypes.np_dtype_float8_152 == np.dtype([("float8_152", "u1")])
    assert utils.np_dtype_float8_143 is dtypes.np_dtype_float8_143
    assert utils.np_dtype_float8_152 is dtypes.np_dtype_float8_152


def test_to_fp8_returns_the_structured_dtype_of_the_format():
    a = host_pow2scale_cast_to_fp8(np.array([0.75], np.float32),
                                   ipu.float8_143)
    assert a.dtype == dtypes.np_dtype_float8_143
    assert a.view(np.uint8)[0] == 0b00111100
    b = host_pow2scale_cast_to_fp8(np.array([[1.0, 2.0]]), ipu.float8_152)
    assert b.dtype == dtypes.np_dtype_float8_152 and b.shape == (1, 2)


@pytest.mark.parametrize("dst", [ipu.float16, ipu.float32, ipu.float64])
def test_from_fp8_makes_the_float_dtype_it_is_given(dst):
    codes = host_pow2scale_cast_to_fp8(np.array([0.75, -2.0]), ipu.float8_143)
    out = host_pow2scale_cast_from_fp8(codes, dst)
    assert out.dtype == dst.as_numpy()
    np.testing.assert_array_equal(out, [0.75, -2.0])


@pytest.mark.parametrize("s", [-3, -1, 1, 2, 31, -32])
def test_from_fp8_multiplies_by_two_to_the_scale(s):
    # PopXL: cast(X, dtype) * pow2(log2_scale), after the cast.
    codes = host_pow2scale_cast_to_fp8(np.array([1.5, -0.25]),
                                       ipu.float8_152)
    out = host_pow2scale_cast_from_fp8(codes, ipu.float64, log2_scale=s)
    np.testing.assert_array_equal(out, np.array([1.5, -0.25]) * 2.0 ** s)


@pytest.mark.parametrize("s", [-2, 1, 3])
def test_to_fp8_multiplies_by_two_to_the_scale_before_the_cast(s):
    a = host_pow2scale_cast_to_fp8(np.array([3.0]), ipu.float8_143,
                                   log2_scale=s)
    b = host_pow2scale_cast_to_fp8(np.array([3.0 * 2.0 ** s]),
                                   ipu.float8_143)
    assert a.view(np.uint8)[0] == b.view(np.uint8)[0]


def test_the_format_comes_from_the_source_s_dtype():
    x = np.array([96.0, 0.125])
    for fmt in (ipu.float8_143, ipu.float8_152):
        codes = host_pow2scale_cast_to_fp8(x, fmt)
        np.testing.assert_array_equal(
            host_pow2scale_cast_from_fp8(codes, ipu.float32), x)


def test_what_popxl_does_not_support_is_a_runtime_error():
    codes = host_pow2scale_cast_to_fp8(np.array([1.0]), ipu.float8_143)
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_to_fp8(np.array([1.0]), ipu.float32)
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_to_fp8(np.array([1.0]))    # no dtype
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_to_fp8(np.array([1], np.int32), ipu.float8_143)
    with pytest.raises(RuntimeError, match="log2_scale"):
        host_pow2scale_cast_to_fp8(np.array([1.0]), ipu.float8_143,
                                   log2_scale=32)
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_from_fp8(codes, ipu.float8_143)
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_from_fp8(codes)             # no dtype
    with pytest.raises(RuntimeError):
        host_pow2scale_cast_from_fp8(codes.view(np.uint8), ipu.float32)
    with pytest.raises(RuntimeError, match="log2_scale"):
        host_pow2scale_cast_from_fp8(codes, ipu.float32, log2_scale=-33)


def test_float64_sources_round_once():
    # 1 + 2^-4 + 2^-40 is just above the midpoint of float8_143's 1 and
    # 1.125: it rounds up; through float32 rounded to nearest it would be
    # the midpoint, and round to even (down).
    x = np.array([1.0 + 2.0 ** -4 + 2.0 ** -40, -(1.0 + 2.0 ** -4 + 2.0 ** -40)])
    out = host_pow2scale_cast_from_fp8(
        host_pow2scale_cast_to_fp8(x, ipu.float8_143), ipu.float64)
    np.testing.assert_array_equal(out, [1.125, -1.125])


def test_finite_values_past_float32_saturate_unless_nan_on_overflow():
    big = np.array([1e300, -1e300, np.inf])
    sat = host_pow2scale_cast_to_fp8(big, ipu.float8_152,
                                     nan_on_overflow=False).view(np.uint8)
    np.testing.assert_array_equal(sat, [0x7F, 0xFF, 0x80])
    nan = host_pow2scale_cast_to_fp8(big, ipu.float8_152).view(np.uint8)
    np.testing.assert_array_equal(nan, [0x80, 0x80, 0x80])


def test_0d_values_stay_0d():
    c = host_pow2scale_cast_to_fp8(np.float32(0.75), ipu.float8_143)
    assert c.shape == () and c.view(np.uint8) == 0b00111100
    out = host_pow2scale_cast_from_fp8(c, ipu.float32)
    assert out.shape == () and out == np.float32(0.75)
