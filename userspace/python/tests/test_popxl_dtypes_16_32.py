# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's int16, uint16 and uint32 on the device: variables, constants
and streams of them run through the model, arithmetic wraps as NumPy's,
casts from floats truncate and saturate; checked against NumPy."""
import numpy as np
import pytest

import ipu
from conftest import session

CASES = [
    (ipu.int16, np.int16, [30000, -30000, 7, -1]),
    (ipu.uint16, np.uint16, [65535, 1, 40000, 0]),
    (ipu.uint32, np.uint32, [4294967295, 1, 3000000000, 0]),
]


@pytest.mark.parametrize("dt, npt, vals", CASES)
def test_dtype_names_and_numpy(dt, npt, vals):
    assert ipu.dtype.as_dtype(npt) is dt
    assert ipu.dtype.from_name(dt.name) is dt
    assert dt.as_numpy() == npt and dt.itemsize == np.dtype(npt).itemsize
    assert dt.is_int and not dt.is_floating_point
    assert dt.is_signed == (dt is ipu.int16)


@pytest.mark.parametrize("dt, npt, vals", CASES)
def test_stream_add_and_variable_wrap_as_numpy(dt, npt, vals):
    a = np.array(vals, npt)
    b = np.array(vals[::-1], npt)
    ir = ipu.Ir()
    with ir.main_graph:
        x_h2d = ipu.h2d_stream(a.shape, dt, name="x")
        w = ipu.variable(b, name="w")
        c = ipu.constant(np.array(vals[1:3] * 2, npt), name="c")
        assert w.dtype is dt and c.dtype is dt
        x = ipu.ops.host_load(x_h2d)
        s = x + w
        d = s - c
        ipu.ops.add_(w, x)
        outs = [ipu.d2h_stream(t.shape, t.dtype, name=n)
                for n, t in (("s", s), ("d", d))]
        for st, t in zip(outs, (s, d)):
            ipu.ops.host_store(st, t)
    with session(ir) as sess:
        got = sess.run({x_h2d: a})
        w_now = sess.get_tensor_data(w)
    with np.errstate(over="ignore"):
        want_s = a + b
        want_d = want_s - np.array(vals[1:3] * 2, npt)
    for st, want in zip(outs, (want_s, want_d)):
        assert got[st].dtype == npt
        np.testing.assert_array_equal(got[st], want)
    assert w_now.dtype == npt
    np.testing.assert_array_equal(w_now, want_s)


@pytest.mark.parametrize("dt, npt, lo, hi", [
    (ipu.int16, np.int16, -32768, 32767),
    (ipu.uint16, np.uint16, 0, 65535),
    (ipu.uint32, np.uint32, 0, 4294967295),
])
def test_cast_from_float_truncates_and_saturates(dt, npt, lo, hi):
    f = np.array([1e10, -1e10, 3.9, -3.9, np.nan], np.float32)
    ir = ipu.Ir()
    with ir.main_graph:
        v = ipu.variable(f, name="f")
        t = ipu.ops.cast(v, dt)
        out = ipu.d2h_stream(t.shape, t.dtype, name="out")
        ipu.ops.host_store(out, t)
    with session(ir) as sess:
        got = sess.run({})[out]
    want = [hi, lo, 3, -3 if lo < 0 else 0, 0]
    np.testing.assert_array_equal(got, np.array(want, npt))


def test_bfloat16_takes_uint16_codes_still():
    codes = (np.array([1.0, -2.0], np.float32).view(np.uint32) >> 16) \
        .astype(np.uint16)
    ir = ipu.Ir()
    with ir.main_graph:
        v = ipu.variable(codes, ipu.bfloat16, name="v")
        out = ipu.d2h_stream(v.shape, v.dtype, name="out")
        ipu.ops.host_store(out, v)
    with session(ir) as sess:
        got = sess.get_tensor_data(v)
        streamed = sess.run({})[out]
    np.testing.assert_array_equal(got, codes)
    np.testing.assert_array_equal(streamed, codes)
    assert v.dtype is ipu.bfloat16
