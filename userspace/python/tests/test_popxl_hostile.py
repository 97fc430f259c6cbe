# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Inputs a careless or hostile caller gives the ops added late (call and
repeat's list flattening, increment_mod): each is either done right or
refused with the package's error naming the bad value, never a stray
TypeError from inside nor a silently wrong result."""
import numpy as np
import pytest

import ipu
from test_popxl_more_ops import _run


def test_call_takes_a_zero_dim_array_as_one_input():
    # A 0-d array is a TensorLike, not an iterable of inputs: NumPy
    # cannot iterate it.
    def build(t):
        ir = t._ir

        def f(a, b):
            return a * b
        g = ir.create_graph(f, t, ipu.constant(np.float32(2.0)))
        y, = ipu.ops.call(g, t, np.array(3.0, np.float32))
        z, = ipu.ops.repeat(g, 1, t, np.array(3.0, np.float32))
        return {"y": y, "z": z}
    x = np.array([1.0, -2.0, 4.0], np.float32)
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], x * 3)
    np.testing.assert_array_equal(got["z"], x * 3)


@pytest.mark.parametrize("inc, mod", [(2 ** 32, 5), (1, 2 ** 32 + 3),
                                      (-2 ** 31 - 1, 7), (1, -2 ** 40)])
def test_increment_mod_refuses_numbers_the_dtype_cannot_hold(inc, mod):
    # int32 cannot hold them: made constants they would wrap or saturate
    # and the result would be silently wrong.
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros(3, np.int32), name="c")
        with pytest.raises(ipu.IrError, match=str(inc if abs(inc) >= 2 ** 31
                                                  else mod)):
            ipu.ops.increment_mod(t, inc, mod)
        with pytest.raises(ipu.IrError):
            ipu.ops.increment_mod_(t, inc, mod)


def test_increment_mod_takes_the_int32_extremes():
    x = np.array([0, 5, -5], np.int32)
    got, _ = _run(lambda t: {
        "a": ipu.ops.increment_mod(t, 0, 2 ** 31 - 1),
        "b": ipu.ops.increment_mod(t, -2 ** 31 + 10, 3)}, x=x)
    np.testing.assert_array_equal(got["a"], x)
    y = x.astype(np.int64) - 2 ** 31 + 10
    np.testing.assert_array_equal(got["b"], np.fmod(y, 3))


def test_concat_inplace_of_one_tensor_twice_stays_one_memory():
    # PopXL's concat_([w, w]) aliases w twice: both halves are w's memory,
    # so after a write through the view they hold the same values (the
    # later half's write wins), and equal w.
    x = np.array([1.0, 2.0, 3.0], np.float32)

    def build(t, w):
        v = ipu.ops.concat_([w, w], 0)
        v += ipu.constant(np.array([1, 1, 1, 10, 10, 10], np.float32))
        return {"v": v + 0.0, "w": w + 0.0}
    got, wv = _run(build, x=x, var=x)
    np.testing.assert_array_equal(wv, x + 10)
    np.testing.assert_array_equal(got["w"], x + 10)
    np.testing.assert_array_equal(got["v"], np.concatenate([x + 10] * 2))


def test_concat_inplace_of_one_tensor_twice_through_a_slice_view():
    # The same through a view of the view: the write reaches w, and both
    # halves of the concat show it.
    x = np.array([1.0, 2.0, 3.0], np.float32)

    def build(t, w):
        v = ipu.ops.concat_([w, w], 0)
        s = ipu.ops.slice_(v, [3], [5], [1], [0])
        s += 100.0
        return {"v": v + 0.0}
    got, wv = _run(build, x=x, var=x)
    want = x + np.array([100, 100, 0], np.float32)
    np.testing.assert_array_equal(wv, want)
    np.testing.assert_array_equal(got["v"], np.concatenate([want] * 2))


def test_concat_inplace_of_a_tensor_and_its_view_ends_and_agrees():
    # w and slice_(w) concatenated alias one another in a cycle: an
    # update through the concat must end (it recursed without end), and
    # leave every tensor agreeing with w.
    x = np.array([1.0, 2.0, 3.0], np.float32)

    def build(t, w):
        s = ipu.ops.slice_(w, [0], [2], [1], [0])
        v = ipu.ops.concat_([w, s], 0)
        v += ipu.constant(np.array([1, 1, 1, 10, 10], np.float32))
        return {"v": v + 0.0, "s": s + 0.0}
    got, wv = _run(build, x=x, var=x)
    np.testing.assert_array_equal(got["s"], wv[0:2])
    np.testing.assert_array_equal(got["v"], np.concatenate([wv, wv[0:2]]))
    assert wv[2] == 4.0
