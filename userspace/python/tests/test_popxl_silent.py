# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Where the package once differed from PopXL without saying so (issue 26's
"silent differences"), each as PopXL's documentation has it: in-place
operator `+=` on a variable updates it (PopXL's only in-place operator;
`-=` ... rebind the name, as there), 0-d data stays 0-d, slice
arguments of different lengths are a ValueError, and a program whose
host transfers per run of a stream differ from num_host_transfers is
refused when the Session is made. (The FP8 conversions:
test_popxl_fp8_utils.py.)"""
import numpy as np
import pytest

import ipu
from conftest import session


# --- in-place operators ----------------------------------------------------

def _inplace_ir(op, start, x, dtype=ipu.float32):
    """w = variable(start); w <op>= x; and w read back after the run."""
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.array(start, dtype.as_numpy()), dtype, name="w")
        if isinstance(x, np.ndarray):
            x = ipu.constant(x)
        keep = w
        if op == "+":
            w += x
        elif op == "-":
            w -= x
        elif op == "*":
            w *= x
        elif op == "/":
            w /= x
        y = ipu.d2h_stream(keep.shape, dtype, name="y")
        ipu.ops.host_store(y, keep)
    return ir, keep, w, y


# PopXL's Tensor defines __iadd__ only (python/popxl/tensor.py): ``+=``
# updates the variable; ``-=``, ``*=``, ``/=`` fall back to __sub__ ... and
# rebind the name to a new tensor, the variable keeping its value.
@pytest.mark.parametrize("op,want,inplace", [
    ("+", [3.0, 6.0], True), ("-", [-1.0, -2.0], False),
    ("*", [2.0, 8.0], False), ("/", [0.5, 0.5], False)])
def test_inplace_operators_on_a_variable(op, want, inplace):
    ir, keep, w, y = _inplace_ir(op, [1.0, 2.0],
                                 np.array([2.0, 4.0], np.float32))
    assert (w is keep) == inplace
    with ir.main_graph:
        z = ipu.d2h_stream(w.shape, w.dtype, name="z")
        ipu.ops.host_store(z, w)
    with session(ir) as s:
        got = s.run({})
        s.weights_to_host()
        var = s.get_tensor_data(keep)
    np.testing.assert_array_equal(got[z], want)
    np.testing.assert_array_equal(var, want if inplace else [1.0, 2.0])
    np.testing.assert_array_equal(got[y], var)


def test_inplace_operator_with_a_number_on_an_int_variable():
    ir, keep, w, y = _inplace_ir("+", [1, 2], 5, ipu.int32)
    with session(ir) as s:
        s.run({})
        s.weights_to_host()
        np.testing.assert_array_equal(s.get_tensor_data(keep), [6, 7])


def test_inplace_operator_that_changes_the_shape_is_refused():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.zeros(2, np.float32), name="w")
        x = ipu.constant(np.ones((3, 2), np.float32))
        with pytest.raises(ipu.IrError):
            w += x


def test_inplace_operator_on_a_non_variable_updates_it():
    # As PopXL: any tensor is updated in place, the name stays bound to it
    # (test_popxl_inplace.py checks the numbers); a constant is refused.
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.constant(np.ones(2, np.float32)) * 2.0
        t0 = t
        t += 1.0
        assert t is t0
        with pytest.raises(ipu.IrError, match="constant"):
            c = ipu.constant(np.ones(2, np.float32))
            c += 1.0


# --- 0-d data --------------------------------------------------------------

@pytest.mark.parametrize("data", [np.float32(3.5), np.array(3.5, np.float32),
                                  3.5])
def test_0d_variables_and_constants_stay_0d(data):
    ir = ipu.Ir()
    with ir.main_graph:
        v = ipu.variable(data, ipu.float32, name="v")
        c = ipu.constant(data, ipu.float32, name="c")
        y = ipu.d2h_stream((), ipu.float32, name="y")
        ipu.ops.host_store(y, v * c)
    assert v.shape == () and c.shape == ()
    with session(ir) as s:
        got = s.get_tensor_data(v)
        assert got.shape == () and got == np.float32(3.5)
        out = s.run({})[y]
    assert out.shape == () and out == np.float32(3.5 * 3.5)


# --- ops.slice -------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(start=[0, 1], stop=[2]),
    dict(start=[0], stop=[2, 3], axis=[0]),
    dict(start=[0, 0], stop=[1, 1], step=[1]),
    dict(start=[0], stop=[1], axis=[0, 1]),
    dict(start=0, stop=[1, 2]),
])
def test_slice_arguments_of_different_lengths_are_a_value_error(kw):
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        with pytest.raises(ValueError, match="length"):
            ipu.ops.slice(t, **kw)


def test_slice_lists_of_one_length_still_slice():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        y = ipu.d2h_stream((2, 2), ipu.float32, name="y")
        ipu.ops.host_store(y, ipu.ops.slice(t, start=[1, 0], stop=[3, 4],
                                            step=[1, 2], axis=[0, 1]))
    with session(ir) as s:
        out = s.run({})[y]
    np.testing.assert_array_equal(
        out, np.arange(12, dtype=np.float32).reshape(3, 4)[1:3, 0:4:2])


# --- host transfers per run ------------------------------------------------

def _transfers_ir(loads, stores, n=4):
    """x loaded @loads and y stored @stores times in a run of @n transfers."""
    ir = ipu.Ir()
    ir.num_host_transfers = n
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        t = ipu.constant(np.zeros(2, np.float32))
        for _ in range(loads):
            t = t + ipu.ops.host_load(x)
        for _ in range(stores):
            ipu.ops.host_store(y, t)
    return ir


@pytest.mark.parametrize("loads,stores,stream,count", [
    (4, 1, "y", "stored 1 times"),      # the other 3 transfers: zeros
    (2, 4, "x", "loaded 2 times"),      # inputs of 2 transfers ignored
    (4, 0, "y", "stored 0 times"),      # a stream no op uses
    (0, 4, "x", "loaded 0 times"),
    (4, 5, "y", "stored 5 times"),      # more: refused before too
])
def test_stream_used_other_than_num_host_transfers_is_refused(
        loads, stores, stream, count):
    ir = _transfers_ir(loads, stores)
    with pytest.raises(ipu.Error) as e:
        ipu.Session(ir, "ipu_model")
    msg = str(e.value)
    assert f"'{stream}'" in msg and count in msg
    assert "num_host_transfers is 4" in msg


def test_stream_used_num_host_transfers_times_runs():
    ir = _transfers_ir(4, 4)
    with ipu.Session(ir, "ipu_model") as s:
        out = s.run({s.expected_inputs()[0]:
                     np.ones((4, 2), np.float32)})
    (y,) = out.values()
    # Each store sends the sum of the four loads, once per transfer.
    np.testing.assert_array_equal(y, np.full((4, 2), 4, np.float32))
