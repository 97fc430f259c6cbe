# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Subgraphs as PopXL's user guide uses them: ``TensorByRef`` (an input
updated in place updates the caller's tensor), ``ops.call_with_info`` and
``CallSiteInfo``, ``inputs_dict=`` for ``call`` and ``repeat``,
``Ir.create_empty_graph`` and ``popxl.Module``; checked against NumPy."""
import numpy as np
import pytest

import ipu
from conftest import session

W0 = np.array([1.0, 2.0, 3.0], np.float32)
X = np.array([0.5, -1.0, 4.0], np.float32)


def _increment(w, x):
    ipu.ops.add_(w, x)


def _outputs(ir, names, ts):
    """Store tensors @ts of @ir's main graph to streams @names and run:
    the values, in order."""
    with ir.main_graph:
        streams = [ipu.d2h_stream(t.shape, t.dtype, name=n)
                   for n, t in zip(names, ts)]
        for st, t in zip(streams, ts):
            ipu.ops.host_store(st, t)
    with session(ir) as s:
        got = s.run({})
    return [got[st] for st in streams]


def _weights(ir, *vs):
    with session(ir) as s:
        s.run({})
        s.weights_to_host()
        return [s.get_tensor_data(v) for v in vs]


def test_tensor_by_ref_updates_the_callers_variable():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        v = ipu.variable(W0, name="v")
        x = ipu.constant(X)
        by_ref = ir.create_graph(_increment, ipu.TensorByRef(w), x)
        by_val = ir.create_graph(_increment, w, x)
        ipu.ops.call(by_ref, w, x)
        ipu.ops.call(by_ref, w, x)
        ipu.ops.call(by_val, v, x)
    got_w, got_v = _weights(ir, w, v)
    np.testing.assert_array_equal(got_w, W0 + 2 * X)
    np.testing.assert_array_equal(got_v, W0)


def _increment_by_ref(t: ipu.TensorByRef, x: ipu.Tensor):
    ipu.ops.add_(t, x)


def test_a_tensor_by_ref_type_hint_passes_by_reference():
    """PopXL's form: the parameter annotated TensorByRef, the argument a
    plain tensor (was passed by value here: the variable stayed)."""
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        x = ipu.constant(X)
        g = ir.create_graph(_increment_by_ref, w, x)
        ipu.ops.call(g, w, x)
    got_w, = _weights(ir, w)
    np.testing.assert_array_equal(got_w, W0 + X)


def test_tensor_by_ref_in_a_repeat_accumulates():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        x = ipu.constant(X)
        g = ir.create_graph(_increment, ipu.TensorByRef(w), x)
        ipu.ops.repeat(g, 5, w, x)
    np.testing.assert_allclose(_weights(ir, w)[0], W0 + 5 * X, rtol=1e-6)


def test_tensor_by_ref_on_a_value_updates_it():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.constant(W0) * 1.0
        x = ipu.constant(X)
        g = ir.create_graph(_increment, ipu.TensorByRef(t), x)
        ipu.ops.call(g, t, x)
    np.testing.assert_array_equal(_outputs(ir, ["o"], [t])[0], W0 + X)


def test_tensor_by_ref_refuses_a_constant():
    ir = ipu.Ir()
    with ir.main_graph:
        c = ipu.constant(W0)
        g = ir.create_graph(_increment, ipu.TensorByRef(c), c)
        with pytest.raises(ipu.IrError, match="constant"):
            ipu.ops.call(g, c, c)


def test_call_with_info_returns_the_call_site():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.constant(W0, name="a")
        b = ipu.constant(X, name="b")

        def f(p, q):
            return p * q, p + q
        g = ir.create_graph(f, a, b)
        info = ipu.ops.call_with_info(g, a, b)
        assert isinstance(info, ipu.ops.CallSiteInfo)
        assert info.called_graph is g
        assert info.parent_graph is ir.main_graph
        assert info.parent_input(1) == b
        assert info.graph_to_parent(g.inputs[0]) == a
        assert info.graph_to_parent(g.outputs[1]) == info.parent_output(1)
        assert info.graph_to_parent_input_index_map() == {0: 0, 1: 1}
    prod, sum_ = _outputs(ir, ("prod", "sum"), info.outputs)
    np.testing.assert_array_equal(prod, W0 * X)
    np.testing.assert_array_equal(sum_, W0 + X)


def test_inputs_dict_for_call_and_repeat():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.constant(W0, name="a")
        b = ipu.constant(X, name="b")

        def f(acc, step):
            return acc + step
        g = ir.create_graph(f, a, b)
        (c,) = ipu.ops.call(g, a, inputs_dict={g.inputs[1]: b})
        (d,) = ipu.ops.call(g, inputs_dict={g.inputs[0]: a,
                                            g.inputs[1]: b})
        (r,) = ipu.ops.repeat(g, 3, inputs_dict={g.inputs[1]: b,
                                                 g.inputs[0]: a})
        with pytest.raises(ipu.IrError, match="given twice"):
            ipu.ops.call(g, a, b, inputs_dict={g.inputs[1]: b})
        with pytest.raises(ValueError, match="not given"):
            ipu.ops.call(g, inputs_dict={g.inputs[0]: a})
    got_c, got_d, got_r = _outputs(ir, ("c", "d", "r"), (c, d, r))
    np.testing.assert_array_equal(got_c, W0 + X)
    np.testing.assert_array_equal(got_d, W0 + X)
    np.testing.assert_allclose(got_r, W0 + 3 * X, rtol=1e-6)


def test_create_empty_graph():
    ir = ipu.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("double")
        g2 = ir.create_empty_graph("double")
        assert g.name == "double" and g2.name != g.name
        with g:
            i = ipu.graph_input((3,), ipu.float32, "i")
            ipu.graph_output(i * 2.0)
        (y,) = ipu.ops.call(g, ipu.constant(X))
    np.testing.assert_array_equal(_outputs(ir, ["o"], [y])[0], 2 * X)


class Scale(ipu.Module):
    def __init__(self, k):
        self.k = k

    def build(self, x, w):
        ipu.ops.mul_(w, self.k)
        return x * w


def test_module_builds_a_graph():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        x = ipu.constant(X, name="x")
        m = Scale(2.0)
        g = ir.create_graph(m, x, ipu.TensorByRef(w))
        assert [t.name for t in g.inputs] == ["x", "w"]
        g2 = m.create_graph(x, w)
        (y,) = ipu.ops.call(g, x, w)
        ipu.ops.call(g2, x, w)     # by value: w stays
        o = ipu.d2h_stream((3,), ipu.float32, name="o")
        ipu.ops.host_store(o, y)
    with session(ir) as s:
        out = s.run({})[o]
        s.weights_to_host()
        np.testing.assert_array_equal(out, X * W0 * 2)
        np.testing.assert_array_equal(s.get_tensor_data(w), W0 * 2)
