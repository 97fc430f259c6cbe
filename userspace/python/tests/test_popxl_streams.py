# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Streams as PopXL's (issue 27.9): a stream's dtype may be given as an
ipu dtype, a NumPy dtype or a string; lists fed to a run are converted to
the stream's dtype (userspace/python/README.md, "Data and errors"); a
negative dimension is refused in those words; and messages say their
prefix once."""
import numpy as np
import pytest

import ipu
from conftest import session


@pytest.mark.parametrize("given, want", [
    (np.float32, ipu.float32),
    (np.dtype("float16"), ipu.float16),
    ("float32", ipu.float32),
    ("int32", ipu.int32),
    (np.int8, ipu.int8),
    (np.bool_, ipu.bool),
    ("bfloat16", ipu.bfloat16),
    ("float8_143", ipu.float8_143),
    (ipu.uint8, ipu.uint8),
])
def test_stream_dtype_as_numpy_dtype_or_string(given, want):
    ir = ipu.Ir(name="t")
    with ir.main_graph:
        x = ipu.h2d_stream((3,), given, name="x")
        y = ipu.d2h_stream((3,), given, name="y")
    assert x.dtype is want and y.dtype is want


@pytest.mark.parametrize("bad", ["float128", "complex64", np.complex64,
                                 np.uint64, 3, None])
def test_stream_dtype_that_is_no_ipu_dtype_is_refused_by_name(bad):
    ir = ipu.Ir(name="t")
    with ir.main_graph:
        with pytest.raises(TypeError, match="h2d_stream 'x': .*dtype") as e:
            ipu.h2d_stream((3,), bad, name="x")
    assert isinstance(e.value, ipu.DTypeError)
    assert str(bad) in str(e.value) or repr(bad) in str(e.value)


def test_negative_dimension_says_so():
    ir = ipu.Ir(name="t")
    with ir.main_graph:
        with pytest.raises(ValueError, match=r"h2d_stream 'x': shape \(2, -1\) "
                           r"has a negative dimension") as e:
            ipu.h2d_stream((2, -1), ipu.float32, name="x")
        assert "overflow" not in str(e.value)
        with pytest.raises(ValueError, match="negative dimension"):
            ipu.d2h_stream((-3,), ipu.float32, name="y")


def _identity_ir(dtypes):
    ir = ipu.Ir(name="t")
    streams = []
    with ir.main_graph:
        for k, (dt, n) in enumerate(dtypes):
            x = ipu.h2d_stream((n,), dt, name="x%d" % k)
            y = ipu.d2h_stream((n,), dt, name="y%d" % k)
            ipu.ops.host_store(y, ipu.ops.host_load(x))
            streams.append((x, y))
    return ir, streams


def test_lists_are_converted_to_the_stream_dtype():
    ir, st = _identity_ir([(ipu.float32, 3), (ipu.int32, 2),
                           (ipu.float16, 2), (ipu.uint8, 2)])
    with session(ir) as s:
        out = s.run({st[0][0]: [1, 2, 3],       # ints for float32
                     st[1][0]: [1.0, -2.0],     # floats for int32
                     st[2][0]: [0.5, 1],        # a mix for float16
                     st[3][0]: (7, 250)})       # a tuple for uint8
    want = [(np.float32, [1, 2, 3]), (np.int32, [1, -2]),
            (np.float16, [0.5, 1]), (np.uint8, [7, 250])]
    for (x, y), (dt, vals) in zip(st, want):
        assert out[y].dtype == dt
        np.testing.assert_array_equal(out[y], np.array(vals, dt))


def test_list_that_does_not_fit_still_says_the_shape():
    ir, st = _identity_ir([(ipu.float32, 3)])
    with session(ir) as s:
        with pytest.raises(ipu.ShapeError, match="stream 'x0'"):
            s.run({st[0][0]: [1, 2]})


def test_host_store_error_says_host_store_once():
    ir = ipu.Ir(name="t")
    with ir.main_graph:
        z = ipu.h2d_stream((2,), ipu.float32, name="z")
        y = ipu.d2h_stream((3,), ipu.float32, name="y")
        with pytest.raises(ipu.IrError) as e:
            ipu.ops.host_store(y, ipu.ops.host_load(z))
    msg = str(e.value)
    assert msg.startswith("host_store: ") and msg.count("host_store:") == 1
    assert "'z'" in msg and "'y'" in msg


def test_stream_error_says_its_prefix_once():
    ir = ipu.Ir(name="t")
    with ir.main_graph:
        with pytest.raises(ipu.IrError) as e:
            ipu.h2d_stream((1,) * 9, ipu.float32, name="x")  # 9 dims
    msg = str(e.value)
    assert msg.count("h2d_stream") == 1, msg
