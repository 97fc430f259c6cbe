# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Weights (S17-S19, S21), as tests/unit/test_session_weights.c."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session
from hooks import hooks


def two_vars():
    """w (float32[2]) accumulates x; v (int32[3]) is only read; c is a
    constant."""
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.array([1, 2], np.float32), name="w")
        v = ipu.variable(np.array([7, 8, 9], np.int32), name="v")
        c = ipu.constant(np.array([5, 6], np.float32), name="c")
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        t = ipu.ops.host_load(x)
        ipu.ops.scaled_add_(w, t)
        ipu.ops.host_store(y, w + c)
    return ir, x, y, w, v, c


def test_S17_weights_from_host_sends_the_host_copies():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})       # device w = [2, 3]
        s.weights_from_host()                    # back to the host's [1, 2]
        out = s.run({x: np.ones(2, np.float32)})[y]
    np.testing.assert_array_equal(out, [2, 3])


def test_S18_weights_to_host_fetches_every_variable():
    ir, x, y, w, v, c = two_vars()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        assert not hooks.in_sync(s)
        s.weights_to_host()
        assert hooks.in_sync(s)
    vals = s.get_tensors_data([w, v])
    np.testing.assert_array_equal(vals[w], [2, 3])
    np.testing.assert_array_equal(vals[v], [7, 8, 9])
    assert vals[v].dtype == np.int32


def test_S19_a_variable_is_fetched_once():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        a = s.get_tensor_data(w)
        assert hooks.in_sync(s)
        b = s.get_tensor_data(w)
    np.testing.assert_array_equal(a, [2, 3])
    np.testing.assert_array_equal(b, [2, 3])
    # Each is a new array that owns its memory.
    assert a is not b and a.flags.owndata


def test_S19_constants_never_fetch():
    ir, x, y, w, v, c = two_vars()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        np.testing.assert_array_equal(s.get_tensor_data(c), [5, 6])
        assert not hooks.in_sync(s)


def test_S19_several_tensors_fetch_once():
    ir, x, y, w, v, c = two_vars()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        got = s.get_tensors_data([w, v, c])
        assert hooks.in_sync(s)
    assert set(got) == {w, v, c}
    np.testing.assert_array_equal(got[w], [2, 3])


def test_S19_detached_reads_the_host_copy():
    ir, x, y, w = acc_ir()
    s = session(ir, weights_to_host_on_exit=False)
    with s:
        s.run({x: np.ones(2, np.float32)})
    np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])


def test_S19_only_variables_and_constants():
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        t = ipu.ops.host_load(x)
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        ipu.ops.host_store(y, t)
    with session(ir) as s:
        for bad in (t, x, "x", 3):
            with pytest.raises(ipu.TensorTypeError,
                               match="not of type Variable or Constant") as e:
                s.get_tensor_data(bad)
            assert isinstance(e.value, TypeError)


def test_S21_write_detached_changes_the_host_copy():
    ir, x, y, w = acc_ir()
    s = session(ir)
    s.write_variable_data(w, np.array([5, 6], np.float32))
    np.testing.assert_array_equal(s.get_tensor_data(w), [5, 6])


def test_S21_write_reaches_the_device_when_attached():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.write_variable_data(w, np.array([5, 6], np.float32))
        out = s.run({x: np.ones(2, np.float32)})[y]
    np.testing.assert_array_equal(out, [6, 7])


def test_S21_write_keeps_the_other_variables():
    ir, x, y, w, v, c = two_vars()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})        # device w = [2, 3]
        s.write_variable_data(v, np.array([1, 1, 1], np.int32))
        np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S21_scalar_is_cast_and_broadcast():
    ir, x, y, w, v, c = two_vars()
    s = session(ir)
    s.write_variables_data({w: 4, v: 2.75})
    np.testing.assert_array_equal(s.get_tensor_data(w), [4, 4])
    np.testing.assert_array_equal(s.get_tensor_data(v), [2, 2, 2])


def test_S21_dtype_must_match():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with pytest.raises(ipu.DTypeError, match="float64.*'w'.*float32") as e:
        s.write_variable_data(w, np.array([5, 6], np.float64))
    assert isinstance(e.value, TypeError)
    np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])


def test_S21_shape_must_match():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with pytest.raises(ipu.ShapeError, match=r"\(3,\).*'w'.*\(2,\)") as e:
        s.write_variable_data(w, np.array([5, 6, 7], np.float32))
    assert isinstance(e.value, ValueError)
    np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])


def test_S21_only_variables():
    ir, x, y, w, v, c = two_vars()
    s = session(ir)
    with pytest.raises(ipu.TensorTypeError, match="not of type Variable"):
        s.write_variable_data(c, np.array([1, 1], np.float32))


def test_S21_batch_is_checked_before_any_write():
    ir, x, y, w, v, c = two_vars()
    s = session(ir)
    with pytest.raises(ipu.ShapeError):
        s.write_variables_data({w: np.array([9, 9], np.float32),
                                v: np.array([1, 2], np.int32)})
    np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])


def test_S21_non_contiguous_data_is_copied_once():
    ir, x, y, w = acc_ir()
    s = session(ir)
    data = np.array([5, 0, 6, 0], np.float32)[::2]
    s.write_variable_data(w, data)
    np.testing.assert_array_equal(s.get_tensor_data(w), [5, 6])
