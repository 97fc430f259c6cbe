# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""FP8 data as PopXL takes it (issue 26): ``variable`` and ``constant`` with
``log2_scale=`` and ``nan_on_overflow=``, float host data cast to FP8 as
``host_pow2scale_cast_to_fp8`` casts it, FP8 host data (PopXL's structured
dtypes) taken as it is, and those dtypes through get_tensor_data,
write_variable_data and streams."""
import numpy as np
import pytest

import ipu
from ipu.dtypes import np_dtype_float8_143, np_dtype_float8_152
from ipu.fp8_utils import (host_pow2scale_cast_from_fp8,
                           host_pow2scale_cast_to_fp8)
from conftest import session

DATA = np.array([0.75, -3.0, 10.0, 0.01], np.float32)


def build(make):
    """An Ir whose main graph holds what @make(ipu) returns (variables and
    constants) and one op, so that it compiles; and its session."""
    ir = ipu.Ir()
    with ir.main_graph:
        ts = make()
        y = ipu.d2h_stream((1,), ipu.float32, name="y")
        ipu.ops.host_store(y, ipu.constant(np.float32([0]), name="zero"))
    return ts, session(ir)


@pytest.mark.parametrize("fmt", [ipu.float8_143, ipu.float8_152])
@pytest.mark.parametrize("scale", [-2, 0, 3])
def test_variable_casts_float_data_with_the_scale(fmt, scale):
    (w, c), s = build(lambda: (
        ipu.variable(DATA, fmt, log2_scale=scale),
        ipu.constant(DATA, fmt, log2_scale=scale)))
    want = host_pow2scale_cast_to_fp8(DATA, fmt, scale)
    for t in (w, c):
        got = s.get_tensor_data(t)
        assert got.dtype == fmt.as_numpy()
        np.testing.assert_array_equal(got, want)


def test_overflow_is_nan_by_default_and_saturates_when_asked():
    big = np.array([1000.0, -1000.0], np.float32)
    (nan, sat, csat), s = build(lambda: (
        ipu.variable(big, ipu.float8_143),
        ipu.variable(big, ipu.float8_143, nan_on_overflow=False),
        ipu.constant(big, ipu.float8_143, nan_on_overflow=False)))
    np.testing.assert_array_equal(s.get_tensor_data(nan).view(np.uint8),
                                  [0x80, 0x80])
    for t in (sat, csat):
        np.testing.assert_array_equal(s.get_tensor_data(t).view(np.uint8),
                                      [0x7F, 0xFF])


def test_python_numbers_and_float16_data_are_cast_too():
    (a, b), s = build(lambda: (
        ipu.variable(3.0, ipu.float8_152, log2_scale=-1),
        ipu.variable(np.float16([1.5, 2.0]), ipu.float8_143)))
    assert s.get_tensor_data(a).shape == ()
    assert host_pow2scale_cast_from_fp8(s.get_tensor_data(a),
                                        ipu.float32) == 1.5
    np.testing.assert_array_equal(
        host_pow2scale_cast_from_fp8(s.get_tensor_data(b), ipu.float32),
        [1.5, 2.0])


def test_fp8_host_data_is_taken_as_it_is():
    codes = host_pow2scale_cast_to_fp8(DATA, ipu.float8_152)
    # The scale is for float data: FP8 data is not scaled again.
    (w, inferred), s = build(lambda: (
        ipu.variable(codes, ipu.float8_152, log2_scale=4),
        ipu.variable(codes)))
    assert inferred.dtype is ipu.float8_152
    np.testing.assert_array_equal(s.get_tensor_data(w), codes)
    np.testing.assert_array_equal(s.get_tensor_data(inferred), codes)


def test_data_that_is_not_float_or_of_the_format_is_a_type_error():
    ir = ipu.Ir()
    with ir.main_graph:
        with pytest.raises(TypeError):
            ipu.variable(np.int32([1, 2]), ipu.float8_143)
        with pytest.raises(TypeError):
            ipu.constant([1, 2], ipu.float8_143)
        with pytest.raises(TypeError):
            ipu.variable(host_pow2scale_cast_to_fp8(DATA, ipu.float8_152),
                         ipu.float8_143)


def test_scale_options_for_other_dtypes_are_a_runtime_error():
    ir = ipu.Ir()
    with ir.main_graph:
        with pytest.raises(RuntimeError, match="log2_scale"):
            ipu.variable(DATA, ipu.float32, log2_scale=1)
        with pytest.raises(RuntimeError, match="nan_on_overflow"):
            ipu.constant(DATA, nan_on_overflow=False)
        with pytest.raises(RuntimeError, match="log2_scale"):
            ipu.variable(DATA, ipu.float8_143, log2_scale=32)
        # Nothing was created.
        assert ir.variables == [] and ir.constants == []


def test_fp8_arrays_through_write_get_and_streams():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(DATA, ipu.float8_143, name="w")
        x = ipu.h2d_stream((4,), ipu.float8_152, name="x")
        y = ipu.d2h_stream((4,), ipu.float8_152, name="y")
        ipu.ops.host_store(y, ipu.ops.host_load(x))
    s = session(ir)
    new = host_pow2scale_cast_to_fp8(DATA * 2, ipu.float8_143)
    s.write_variable_data(w, new)
    np.testing.assert_array_equal(s.get_tensor_data(w), new)
    codes = host_pow2scale_cast_to_fp8(DATA, ipu.float8_152, 2)
    with s:
        out = s.run({x: codes})[y]
        assert out.dtype == np_dtype_float8_152
        np.testing.assert_array_equal(out, codes)
        # Data of the other format is refused, not reinterpreted.
        with pytest.raises(ipu.Error):
            s.run({x: codes.view(np.uint8).view(np_dtype_float8_143)})
