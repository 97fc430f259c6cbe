# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""FP8 (S23), as tests/unit/test_session_fp8.c and test_dtype.c."""
import numpy as np
import pytest

import ipu
from ipu.fp8_utils import (host_pow2scale_cast_from_fp8,
                           host_pow2scale_cast_to_fp8)
from conftest import session


def to_codes(x, fmt=ipu.float8_143, **kw):
    """host_pow2scale_cast_to_fp8's codes, as uint8."""
    return host_pow2scale_cast_to_fp8(np.asarray(x, np.float32), fmt,
                                      **kw).view(np.uint8)


def from_codes(codes, fmt=ipu.float8_143):
    return host_pow2scale_cast_from_fp8(
        np.asarray(codes, np.uint8).view(fmt.as_numpy()), ipu.float32)


def test_S23_the_documented_example():
    assert to_codes([0.75])[0] == 0b00111100
    np.testing.assert_array_equal(from_codes([0b00111100]), [0.75])


def test_S23_ranges_overflow_and_nan():
    big = [240, 241, 1e6, -1e6, np.inf]
    sat = to_codes(big, nan_on_overflow=False)
    # 240 is the largest float8_143 (0x7F); beyond it saturates.
    np.testing.assert_array_equal(sat[:4], [0x7F, 0x7F, 0x7F, 0xFF])
    assert sat[4] == 0x80    # an infinite input is NaN either way
    nan = to_codes([1e6], nan_on_overflow=True)
    assert nan[0] == 0x80
    assert from_codes(to_codes([57344.0], ipu.float8_152),
                      ipu.float8_152)[0] == 57344
    # The scale: 3 * 2^-2 = 0.75.
    assert to_codes([3.0], log2_scale=-2)[0] == 0b00111100
    with pytest.raises(ipu.Error, match="log2_scale"):
        to_codes([1.0], log2_scale=32)
    with pytest.raises(RuntimeError):
        to_codes([1.0], ipu.float32)


def fp8_ir():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(host_pow2scale_cast_to_fp8(np.array([1.0, 2.0]),
                                                    ipu.float8_143),
                         ipu.float8_143, name="w")
        x = ipu.h2d_stream((2,), ipu.float8_143, name="x")
        y = ipu.d2h_stream((2,), ipu.float8_143, name="y")
        t = ipu.ops.host_load(x)
        ipu.ops.host_store(y, t)
    return ir, x, y, w


def test_S23_fp8_streams_take_codes():
    ir, x, y, w = fp8_ir()
    with session(ir) as s:
        codes = host_pow2scale_cast_to_fp8(np.array([0.75, -2.0]),
                                           ipu.float8_143)
        out = s.run({x: codes})[y]
        # Plain uint8 codes are of the stream's format.
        again = s.run({x: codes.view(np.uint8)})[y]
    assert out.dtype == ipu.dtypes.np_dtype_float8_143
    np.testing.assert_array_equal(out, codes)
    np.testing.assert_array_equal(again, codes)


def test_S23_fp8_variables_take_arrays():
    ir, x, y, w = fp8_ir()
    s = session(ir)
    assert w.dtype is ipu.float8_143
    assert w.dtype.as_numpy() == ipu.dtypes.np_dtype_float8_143
    np.testing.assert_array_equal(
        host_pow2scale_cast_from_fp8(s.get_tensor_data(w), ipu.float32),
        [1, 2])
    s.write_variable_data(w, host_pow2scale_cast_to_fp8(np.array([0.5, 4.0]),
                                                        ipu.float8_143))
    np.testing.assert_array_equal(
        host_pow2scale_cast_from_fp8(s.get_tensor_data(w), ipu.float32),
        [0.5, 4])
    s.write_variable_data(w, to_codes([2.0, 8.0]))
    np.testing.assert_array_equal(
        host_pow2scale_cast_from_fp8(s.get_tensor_data(w), ipu.float32),
        [2, 8])
    # Codes of the other format are refused, not reinterpreted.
    with pytest.raises(ipu.DTypeError):
        s.write_variable_data(w, host_pow2scale_cast_to_fp8(
            np.array([0.5, 4.0]), ipu.float8_152))


def test_S23_fp8_variables_refuse_scalars():
    ir, x, y, w = fp8_ir()
    s = session(ir)
    with pytest.raises(ipu.DTypeError, match="host_pow2scale_cast_to_fp8") \
            as e:
        s.write_variable_data(w, 1.0)
    assert isinstance(e.value, TypeError)
