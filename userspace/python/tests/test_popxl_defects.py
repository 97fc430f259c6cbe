# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Defects of the ops found after they landed (issue 26's review): each
test was seen failing on the code before its fix.

Numbers outside an integer dtype's range, device-index dynamic_update of
integers and infinities, generators given to call/repeat unchecked,
slice's out-of-range axis, concat_ of a constant, repeat's count."""
import numpy as np
import pytest

import ipu
from test_popxl_more_ops import _run


# --- numbers outside an integer dtype's range ---------------------------

@pytest.mark.parametrize("n", [2 ** 32, 2 ** 31, -2 ** 31 - 1, 2 ** 53 + 1,
                               2 ** 64, 1e10, float("inf")])
def test_number_outside_int32_is_an_overflow_error(n):
    # NumPy (1.24+) refuses np.array(n, np.int32) with OverflowError; made
    # a constant through a double, n would wrap or saturate silently.
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros(3, np.int32), name="t")
        with pytest.raises(OverflowError, match=str(n)[:6]):
            ipu.ops.add(t, n)
        with pytest.raises(OverflowError):
            t * n
        with pytest.raises(OverflowError):
            ipu.ops.add(t, [n, 1, 2])
        # And it is the package's error (a ValueError) too.
        with pytest.raises(ipu.IrError):
            ipu.ops.sub(t, n)


def test_number_below_an_unsigned_dtype_is_an_overflow_error():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros(3, np.uint32), name="t")
        with pytest.raises(OverflowError, match="-1"):
            ipu.ops.add(t, -1)
        ipu.ops.add(t, 2 ** 32 - 1)


def test_int32_extremes_are_exact():
    x = np.array([0, 1, -1], np.int32)
    got, _ = _run(lambda t: {"a": t + (2 ** 31 - 2), "b": t - (2 ** 31 - 1),
                             "c": ipu.ops.mul(t, -2 ** 31)}, x=x)
    np.testing.assert_array_equal(got["a"], x.astype(np.int64) + 2 ** 31 - 2)
    np.testing.assert_array_equal(got["b"], x.astype(np.int64) - 2 ** 31 + 1)
    np.testing.assert_array_equal(got["c"][0], 0)


def test_increment_mod_of_a_float_past_int32_quotients():
    # The quotient 3e10 / 7 is past int32: its truncation saturated, and
    # the result was y - (2^31 - 1) * 7, about 1.5e10.
    x = np.array([3e10, -3e10, 5.5], np.float32)
    got, _ = _run(lambda t: {"y": ipu.ops.increment_mod(t, 1.0, 7.0)}, x=x)
    y = got["y"]
    assert abs(float(y[0])) < 8192 and abs(float(y[1])) < 8192, y
    assert y[2] == np.float32(np.fmod(np.float32(6.5), np.float32(7.0)))


def test_increment_mod_out_of_range_is_an_overflow_error():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros(3, np.int32), name="c")
        with pytest.raises(OverflowError, match=str(2 ** 32)):
            ipu.ops.increment_mod(t, 2 ** 32, 5)


# --- dynamic_update with an index on the device, in the dtype ------------

def _check_device_update(x, u, axis, at):
    """dynamic_update of variable @x by @u at offset @at along @axis, the
    offset a variable (so computed on the device), against NumPy's."""
    def build(t):
        w = ipu.variable(x, name="w")
        i = ipu.variable(np.array([at], np.int32), name="i")
        return {"y": ipu.ops.dynamic_update(w, i, ipu.constant(u), [axis],
                                            [u.shape[axis]], False)}
    got, _ = _run(build)
    want = x.copy()
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(at, at + u.shape[axis])
    want[tuple(idx)] = u
    np.testing.assert_array_equal(got["y"], want)


def test_dynamic_update_device_index_int32_is_exact():
    # Values past 2^24 outside the block were rounded through float32.
    x = np.array([2 ** 24 + 1, 2 ** 30 + 3, -2 ** 31, 2 ** 31 - 1, 7],
                 np.int32)
    u = np.array([2 ** 31 - 1, -2 ** 24 - 1], np.int32)
    _check_device_update(x, u, 0, 1)


def test_dynamic_update_device_index_keeps_infinities_in_place():
    # An inf in the block went through a one-hot matmul: 0 * inf = NaN in
    # every other element along the axis; an inf of the tensor inside the
    # block became NaN too.
    x = np.array([[1.0, np.inf, 3.0, 4.0], [5.0, 6.0, -np.inf, 8.0]],
                 np.float32)
    u = np.array([[np.inf, -2.0], [-np.inf, 0.5]], np.float32)
    _check_device_update(x, u, 1, 1)


@pytest.mark.parametrize("np_dt", [np.uint32, np.int8, np.float16, np.bool_])
def test_dynamic_update_device_index_in_other_dtypes(np_dt):
    big = {np.uint32: 2 ** 32 - 3, np.int8: -128, np.float16: np.inf,
           np.bool_: True}[np_dt]
    _check_device_update(np.array([big, 0, big, 1, big], np_dt),
                         np.array([1, big], np_dt), 0, 2)


# --- call and repeat with check_inputs=False take a generator ------------

@pytest.mark.parametrize("op", ["call_with_info", "repeat_with_info"])
def test_unchecked_inputs_from_a_generator(op):
    x = np.array([1.0, 2.0], np.float32)

    def build(t):
        ir = t._ir
        g = ir.create_graph(lambda a, b: a + b, t, t)
        args = (g,) if op == "call_with_info" else (g, 1)
        info = getattr(ipu.ops, op)(*args, (v for v in (t, t)),
                                    check_inputs=False)
        return {"y": info.outputs[0]}
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], x + x)


# --- slice: an axis out of range -----------------------------------------

@pytest.mark.parametrize("kw", [dict(start=[None], stop=[None], axis=[5]),
                                dict(start=[0], stop=[None], axis=[-4]),
                                dict(start=None, stop=[2], step=[-1],
                                     axis=[3])])
def test_slice_axis_out_of_range_is_the_library_error(kw):
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros((2, 3), np.float32), name="t")
        with pytest.raises(ipu.IrError, match="axis"):
            ipu.ops.slice(t, **kw)


def test_slice_of_no_bounds_is_the_tensor_as_popxl():
    # PopXL returns t when start, stop and step are all None, whatever the
    # axis.
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros((2, 3), np.float32), name="t")
        assert ipu.ops.slice(t, axis=1) is t


# --- concat_ of a constant: refused before the Ir changes ----------------

def test_concat_inplace_of_a_constant_changes_nothing():
    # A write through concat_([w, c]) updated the view and w, then failed
    # on the constant c: the program went on with w changed.
    x = np.array([1.0, 2.0], np.float32)

    def build(t, w):
        c = ipu.constant(np.zeros(2, np.float32), name="c")
        v = ipu.ops.concat_([w, c], 0)
        with pytest.raises(ipu.IrError, match="'c'"):
            v += 1.0
        with pytest.raises(ipu.IrError, match="'c'"):
            ipu.ops.add_(v, 1.0)
        s = ipu.ops.slice_(c, [0], [1], [1], [0])
        with pytest.raises(ipu.IrError, match="'c'"):
            ipu.ops.mul_(s, 3.0)
        return {"v": v + 0.0, "w": w + 0.0, "s": s + 0.0}
    got, wv = _run(build, x=x, var=x)
    np.testing.assert_array_equal(wv, x)
    np.testing.assert_array_equal(got["w"], x)
    np.testing.assert_array_equal(got["v"], [1.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(got["s"], [0.0])


# --- repeat: check_inputs, and the count ---------------------------------

def test_repeat_takes_check_inputs():
    # PopXL's API reference lists check_inputs among repeat's arguments.
    x = np.array([1.0, 2.0], np.float32)

    def build(t):
        g = t._ir.create_graph(lambda a: a * 2.0, t)
        y, = ipu.ops.repeat(g, 3, t, check_inputs=True)
        z, = ipu.ops.repeat(g, 2, [t], check_inputs=False)
        return {"y": y, "z": z}
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], x * 8)
    np.testing.assert_array_equal(got["z"], x * 4)


@pytest.mark.parametrize("count", [2.5, "3", None, 3.0])
def test_repeat_count_must_be_an_integer(count):
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.ones(2, np.float32), name="t")
        g = ir.create_graph(lambda a: a * 2.0, t)
        with pytest.raises(TypeError, match="repeat_count"):
            ipu.ops.repeat(g, count, t)


def test_repeat_count_takes_numpy_integers():
    x = np.array([1.0, 2.0], np.float32)

    def build(t):
        g = t._ir.create_graph(lambda a: a * 2.0, t)
        y, = ipu.ops.repeat(g, np.int64(2), t)
        return {"y": y}
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], x * 4)



def test_indexing_with_a_device_index_is_exact_in_the_dtype():
    # The one-hot gather went through float32 too.
    x = np.array([[2 ** 24 + 1, -7], [2 ** 31 - 1, -2 ** 31]], np.int32)
    f = np.array([[np.inf, 1.5], [-2.0, -np.inf]], np.float32)

    def build(t):
        k = ipu.variable(np.array([1, 0, 1], np.int32), name="k")
        return {"i": ipu.variable(x, name="x")[k],
                "f": ipu.variable(f, name="f")[k]}
    got, _ = _run(build)
    np.testing.assert_array_equal(got["i"], x[[1, 0, 1]])
    np.testing.assert_array_equal(got["f"], f[[1, 0, 1]])


def test_range_bounds_are_exact_as_doubles():
    # A float at an int dtype's lowest value fits; one at its highest + 1
    # does not. The bounds are compared as exact doubles (min - 1 rounds
    # to min under NumPy 2's casting, which refused the lowest value).
    from ipu.ops._util import check_range
    i64, u8 = ipu.dtypes.int64, ipu.dtypes.uint8
    check_range(np.array([-2.0 ** 63, 2.0 ** 62]), i64, "t")
    check_range(np.array([255.9, -0.9]), u8, "t")
    for v, dt in ((2.0 ** 63, i64), (256.0, u8), (-1.0, u8), (np.nan, u8)):
        with pytest.raises(ipu.IrOverflowError):
            check_range(np.array([v]), dt, "t")
