# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Where the package differed from PopXL's own source (graphcore/popart,
python/popxl/): the in-place operators (only ``+=`` is in place,
``Tensor.__iadd__``), ``CallSiteInfo`` and ``ops.repeat_with_info``
(ops/call.py, ops/repeat.py), inputs given as lists to ``call`` and
``repeat`` (flattened, ops/call.py), ``dtype.as_dtype`` of NumPy's names
(dtypes.py) and ``gcg()`` outside every graph (RuntimeError,
context.py). Each checked by running the program on the model."""
import numpy as np
import pytest

import ipu
from conftest import session

W0 = np.array([1.0, 2.0, 3.0], np.float32)
X = np.array([0.5, -1.0, 4.0], np.float32)


def _run(ir, ts, weights=()):
    """Store tensors @ts of @ir's main graph and run once: their values,
    then those of variables @weights."""
    with ir.main_graph:
        streams = [ipu.d2h_stream(t.shape, t.dtype, name="out%d" % i)
                   for i, t in enumerate(ts)]
        for st, t in zip(streams, ts):
            ipu.ops.host_store(st, t)
    with session(ir) as s:
        got = s.run({})
        s.weights_to_host()
        return ([got[st] for st in streams] +
                [s.get_tensor_data(w) for w in weights])


# --- 1. in-place operators: PopXL's Tensor has __iadd__ only -------------

def test_only_plus_equals_is_in_place():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        keep = w
        w += ipu.constant(X)
        assert w is keep
        results = {}
        for op in ("-=", "*=", "/="):
            t = ipu.variable(W0, name="t")
            loc = {"t": t, "x": ipu.constant(X)}
            exec("t " + op + " x", {}, loc)
            # PopXL falls back to __sub__ ...: the name is rebound to a
            # new tensor, the variable keeps its value.
            assert loc["t"] is not t
            results[op] = (t, loc["t"])
    ts = [r for pair in results.values() for r in pair]
    got = _run(ir, ts, weights=[keep] + [p[0] for p in results.values()])
    vals = dict(zip(results, zip(got[0::2], got[1::2])))
    np.testing.assert_array_equal(vals["-="][0], W0)
    np.testing.assert_array_equal(vals["-="][1], W0 - X)
    np.testing.assert_array_equal(vals["*="][1], W0 * X)
    np.testing.assert_allclose(vals["/="][1], W0 / X, rtol=1e-6)
    weights = got[len(ts):]
    np.testing.assert_array_equal(weights[0], W0 + X)
    for v in weights[1:]:
        np.testing.assert_array_equal(v, W0)


def test_negate_and_cast_as_popxl_names_them():
    # PopXL's ops/negate.py is ``negate(t)`` (Tensor.__neg__ calls it);
    # ops/cast.py is ``cast(t, data_type)``.
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.constant(X)
        n = ipu.ops.negate(x)
        c = ipu.ops.cast(x, data_type=ipu.int32)
        assert c.dtype == ipu.int32
    got = _run(ir, [n, c])
    np.testing.assert_array_equal(got[0], -X)
    np.testing.assert_array_equal(got[1], X.astype(np.int32))


def test_var_updates_take_popxls_arguments():
    # ops/var_updates.py: accumulate_(t, X, f=None) is t = t + f * X;
    # copy_var_update_(t, X); ops/scaled_add.py: scaled_add_(X, Y, a, b),
    # a and b floats or tensors.
    ir = ipu.Ir()
    with ir.main_graph:
        ws = [ipu.variable(W0, name="w%d" % i) for i in range(5)]
        x = ipu.constant(X)
        vu = ipu.ops.var_updates
        vu.accumulate_(ws[0], x, f=0.5)
        vu.accumulate_(t=ws[1], X=x, f=ipu.constant(np.float32(2.0)))
        vu.copy_var_update_(t=ws[2], X=x)
        ipu.ops.scaled_add_(X=ws[3], Y=x, a=2.0, b=-1.0)
        ipu.ops.scaled_add_(ws[4], x, a=ipu.constant(np.float32(3.0)),
                            b=ipu.constant(np.float32(0.5)))
    got = _run(ir, [], weights=ws)
    np.testing.assert_array_equal(got[0], W0 + 0.5 * X)
    np.testing.assert_array_equal(got[1], W0 + 2 * X)
    np.testing.assert_array_equal(got[2], X)
    np.testing.assert_array_equal(got[3], 2 * W0 - X)
    np.testing.assert_array_equal(got[4], 3 * W0 + 0.5 * X)


# --- 2. CallSiteInfo and repeat_with_info ---------------------------------

def _two_in_two_out(ir, a, b):
    def f(p, q):
        return p * q, p + q
    return ir.create_graph(f, a, b)


def _step(ir, a, b):
    """The graph acc, d -> acc + d, for repeats."""
    return ir.create_graph(lambda acc, d: acc + d, a, b)


def _ab():
    return ipu.constant(W0, name="a"), ipu.constant(X, name="b")


def test_call_site_info_has_popxls_methods():
    ir = ipu.Ir()
    with ir.main_graph:
        a, b = _ab()
        g = _two_in_two_out(ir, a, b)
        info = ipu.ops.call_with_info(g, a, b)
        assert info.called_graph is g
        assert info.inputs == (a, b)
        assert info.parent_input(0) == a
        for i in range(2):
            assert info.graph_to_parent_input_index(i) == i
            assert info.parent_to_graph_input_index(i) == i
            assert info.graph_to_parent_output_index(i) == i
            assert info.parent_to_graph_output_index(i) == i
        assert info.graph_to_parent(g.inputs[1]) == b
        assert info.graph_to_parent(g.outputs[0]) == info.parent_output(0)
        assert info.parent_to_graph(b) == g.inputs[1]
        other = ipu.constant(X, name="other")
        with pytest.raises(ValueError, match="other"):
            info.parent_to_graph(other)
        with pytest.raises(ValueError):
            info.graph_to_parent(other)
    prod, sum_ = _run(ir, info.outputs)
    np.testing.assert_array_equal(prod, W0 * X)
    np.testing.assert_array_equal(sum_, W0 + X)


def test_parent_to_graph_gives_the_first_input_a_tensor_is_passed_to():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.constant(W0, name="a")
        g = _two_in_two_out(ir, a, a)
        info = ipu.ops.call_with_info(g, a, a)
        assert info.parent_to_graph(a) == g.inputs[0]


def test_set_parent_input_modified():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        x = ipu.constant(X, name="x")

        def inc(t, d):
            ipu.ops.add_(t, d)
        by_ref = ir.create_graph(inc, ipu.TensorByRef(w), x)
        info = ipu.ops.call_with_info(by_ref, w, x)
        # Already by reference: nothing more to do, as PopXL's call does.
        info.set_parent_input_modified(w)
        by_val = ir.create_graph(inc, w, x)
        info2 = ipu.ops.call_with_info(by_val, w, x)
        # libipuir cannot make a call made by value update its input
        # afterwards: said, not ignored.
        with pytest.raises(NotImplementedError, match="TensorByRef"):
            info2.set_parent_input_modified(w)
    (got,) = _run(ir, [], weights=[w])
    np.testing.assert_array_equal(got, W0 + X)


def test_repeat_with_info():
    ir = ipu.Ir()
    with ir.main_graph:
        a, b = _ab()
        g = _step(ir, a, b)
        info = ipu.ops.repeat_with_info(g, 3, a, inputs_dict={g.inputs[1]: b})
        assert isinstance(info, ipu.ops.CallSiteInfo)
        assert info.inputs == (a, b)
        assert info.graph_to_parent(g.inputs[1]) == b
        assert len(info.outputs) == 1
        with pytest.raises(ValueError, match="-1"):
            ipu.ops.repeat_with_info(g, -1, a, b)
    (r,) = _run(ir, info.outputs)
    np.testing.assert_array_equal(r, W0 + 3 * X)


def test_repeat_with_info_is_exported_as_popxl_has_it():
    assert "repeat_with_info" in ipu.ops.__all__
    from ipu.ops import repeat_with_info  # noqa: F401


# --- 3. call and repeat flatten iterables of inputs ------------------------

def test_call_and_repeat_flatten_lists_of_inputs():
    ir = ipu.Ir()
    with ir.main_graph:
        a, b = _ab()
        g = _two_in_two_out(ir, a, b)
        prod, sum_ = ipu.ops.call(g, [a, b])
        (p2, s2) = ipu.ops.call_with_info(g, (a,), [b]).outputs
        h = _step(ir, a, b)
        (r,) = ipu.ops.repeat(h, 2, [a, b])
    got = _run(ir, [prod, sum_, p2, s2, r])
    np.testing.assert_array_equal(got[0], W0 * X)
    np.testing.assert_array_equal(got[1], W0 + X)
    np.testing.assert_array_equal(got[2], W0 * X)
    np.testing.assert_array_equal(got[3], W0 + X)
    np.testing.assert_array_equal(got[4], W0 + 2 * X)


def test_a_number_input_takes_the_graph_inputs_dtype():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.constant(np.array([1, 2], np.float16), name="a")
        g = ir.create_graph(lambda p, q: p + q, a,
                            ipu.TensorSpec((), ipu.float16))
        (y,) = ipu.ops.call(g, a, 0.5)
        assert y.dtype == ipu.float16
    (got,) = _run(ir, [y])
    np.testing.assert_array_equal(got, np.array([1.5, 2.5], np.float16))


def test_an_input_that_is_no_tensor_is_a_type_error():
    # ops/call.py _prep_inputs: an input that cannot be made a tensor
    # raises TypeError.
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.constant(W0, name="a")
        g = ir.create_graph(lambda p: p + 1.0, a)
        for bad in (object(), "text"):
            with pytest.raises(TypeError):
                ipu.ops.call(g, bad)
            with pytest.raises(TypeError):
                ipu.ops.repeat(g, 2, inputs_dict={g.inputs[0]: bad})


# --- 4. dtype.as_dtype takes what numpy.dtype takes ------------------------

@pytest.mark.parametrize("value,want", [
    ("f4", ipu.float32), ("float32", ipu.float32), (np.float32, ipu.float32),
    ("<f2", ipu.float16), ("i4", ipu.int32), ("u2", ipu.uint16),
    ("?", ipu.bool), ("int8", ipu.int8), ("f8", ipu.float64),
    # not a dtype's name: NumPy's meaning (float64, int64), as PopXL's
    ("float", ipu.float64), ("int", ipu.int64), ("double", ipu.float64),
    (float, ipu.float32), (bool, ipu.bool), (int, ipu.int64),
    (np.zeros(2, np.uint8), ipu.uint8),
    ("float8_143", ipu.float8_143), ("bfloat16", ipu.bfloat16),
])
def test_as_dtype_takes_numpy_names(value, want):
    assert ipu.dtype.as_dtype(value) is want


@pytest.mark.parametrize("value", ["nonsense", "c8", object()])
def test_as_dtype_refuses_with_value_error(value):
    with pytest.raises(ValueError):
        ipu.dtype.as_dtype(value)


# --- 5. gcg() outside every graph ------------------------------------------

def test_gcg_outside_a_graph_is_a_runtime_error():
    for fn in (ipu.gcg, ipu.gmg):
        with pytest.raises(RuntimeError, match="graph"):
            fn()
    # Still an IrError, as this package always raised it.
    with pytest.raises(ipu.IrError):
        ipu.gcg()
