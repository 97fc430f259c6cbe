# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's in-place ops (``ops.add_`` ..., ``t += x`` on any tensor) and
in-place views (``slice_``, ``transpose_``, ``reshape_``, ``flatten_``,
``Tensor.T_``): an update is seen by every op made after it, and by the
tensors that share memory with the updated one, as in PopXL; each checked
against NumPy."""
import numpy as np
import pytest

import ipu
from conftest import session

X = np.array([[0.5, -1.5, 2.0], [-0.25, 3.0, -4.0]], np.float32)
Y = np.array([[2.0, 0.5, -1.0], [4.0, -2.0, 0.25]], np.float32)


def _run(build):
    """Run @build(x, y) -> {name: tensor} in a fresh Ir (x, y loaded from
    streams, so neither is a constant) and return {name: value}."""
    ir = ipu.Ir()
    with ir.main_graph:
        xs = ipu.h2d_stream(X.shape, ipu.float32, name="xs")
        ys = ipu.h2d_stream(Y.shape, ipu.float32, name="ys")
        x = ipu.ops.host_load(xs, "x")
        y = ipu.ops.host_load(ys, "y")
        outs = build(x, y)
        streams = {}
        for k, t in outs.items():
            streams[k] = ipu.d2h_stream(t.shape, t.dtype, name="o_" + k)
            ipu.ops.host_store(streams[k], t)
    with session(ir) as s:
        got = s.run({xs: X, ys: Y})
    return {k: got[st] for k, st in streams.items()}


BINARY = [("add_", np.add), ("sub_", np.subtract), ("mul_", np.multiply),
          ("div_", np.divide)]


@pytest.mark.parametrize("name,ref", BINARY)
def test_binary_inplace_op_updates_its_first_input(name, ref):
    def build(x, y):
        before = x * 1.0
        r = getattr(ipu.ops, name)(x, y)
        assert r is x
        return {"x": x, "before": before, "after": x + 0.0}
    got = _run(build)
    np.testing.assert_allclose(got["x"], ref(X, Y), rtol=1e-6)
    np.testing.assert_allclose(got["after"], ref(X, Y), rtol=1e-6)
    np.testing.assert_array_equal(got["before"], X)


def _gelu(v):
    # The tanh form, as PopXL's (and libipufw's) GELU.
    v = v.astype(np.float64)
    return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) *
                                  (v + 0.044715 * v ** 3)))


UNARY = [("neg_", np.negative, X), ("abs_", np.abs, X),
         ("relu_", lambda v: np.maximum(v, 0), X),
         ("gelu_", _gelu, X), ("tanh_", np.tanh, X),
         ("sigmoid_", lambda v: 1 / (1 + np.exp(-v)), X),
         ("exp_", np.exp, X), ("log_", np.log, np.abs(X)),
         ("sqrt_", np.sqrt, np.abs(X))]


@pytest.mark.parametrize("name,ref,data", UNARY)
def test_unary_inplace_op_updates_its_input(name, ref, data):
    def build(x, y):
        t = ipu.ops.abs(x) if data is not X else x * 1.0
        before = t + 0.0
        assert getattr(ipu.ops, name)(t) is t
        return {"t": t, "before": before, "after": t * 2.0}
    got = _run(build)
    np.testing.assert_allclose(got["t"], ref(data), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got["after"], 2 * ref(data), rtol=2e-6,
                               atol=1e-6)
    np.testing.assert_array_equal(got["before"], data)


# PopXL's Tensor has only __iadd__ in place: ``-=`` ... rebind the name
# (test_popxl_source_checked.py).
@pytest.mark.parametrize("op,ref", [("+=", np.add)])
def test_inplace_operator_on_a_tensor_updates_it(op, ref):
    def build(x, y):
        keep = x
        exec("x " + op + " y", {}, loc := {"x": x, "y": y})
        assert loc["x"] is keep
        return {"x": keep}
    np.testing.assert_allclose(_run(build)["x"], ref(X, Y), rtol=1e-6)


def test_inplace_op_on_a_constant_is_refused():
    ir = ipu.Ir()
    with ir.main_graph:
        c = ipu.constant(X)
        with pytest.raises(ipu.IrError, match="constant"):
            ipu.ops.relu_(c)
        with pytest.raises(ValueError, match="constant"):
            c += 1.0


def test_inplace_op_in_a_repeat_accumulates():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.zeros(3, np.float32), name="w")

        def body(t):
            ipu.ops.mul_(t, 2.0)
            ipu.ops.add_(t, 1.0)
            return t
        g = ir.create_graph(body, ipu.TensorSpec((3,), ipu.float32))
        (out,) = ipu.ops.repeat(g, 4, ipu.constant(np.ones(3, np.float32)))
        ipu.ops.var_updates.copy_var_update_(w, out)
    with session(ir) as s:
        s.run({})
        s.weights_to_host()
        v = np.ones(3, np.float32)
        for _ in range(4):
            v = v * 2 + 1
        np.testing.assert_array_equal(s.get_tensor_data(w), v)


# --- views -----------------------------------------------------------------

def test_reshape_view_writes_through_both_ways():
    def build(x, y):
        v = ipu.ops.reshape_(x, (3, 2))
        ipu.ops.add_(v, 1.0)                  # x sees it
        x_after_view_update = x * 1.0
        ipu.ops.mul_(x, 2.0)                  # v sees it
        return {"x": x, "v": v, "mid": x_after_view_update}
    got = _run(build)
    np.testing.assert_array_equal(got["mid"], X + 1)
    np.testing.assert_array_equal(got["x"], (X + 1) * 2)
    np.testing.assert_array_equal(got["v"], ((X + 1) * 2).reshape(3, 2))


def test_flatten_view_and_T_view():
    def build(x, y):
        f = x.flatten_()
        ipu.ops.sub_(f, 0.5)
        t = x.T_
        ipu.ops.mul_(t, ipu.constant(np.arange(6, dtype=np.float32)
                                     .reshape(3, 2)))
        return {"x": x, "f": f, "t": t}
    got = _run(build)
    want = (X - 0.5) * np.arange(6, dtype=np.float32).reshape(3, 2).T
    np.testing.assert_array_equal(got["x"], want)
    np.testing.assert_array_equal(got["f"], want.reshape(-1))
    np.testing.assert_array_equal(got["t"], want.T)


def test_transpose_view_with_a_permutation():
    def build(x, y):
        x3 = ipu.ops.reshape(x, (1, 2, 3)) * 1.0
        v = ipu.ops.transpose_(x3, [2, 0, 1])
        ipu.ops.neg_(v)
        return {"x3": x3, "v": v}
    got = _run(build)
    np.testing.assert_array_equal(got["x3"], -X.reshape(1, 2, 3))
    np.testing.assert_array_equal(got["v"], -X.reshape(1, 2, 3)
                                  .transpose(2, 0, 1))


@pytest.mark.parametrize("args,index", [
    (dict(start=[1], stop=[3], axis=[1]), np.s_[:, 1:3]),
    (dict(start=[0, 0], stop=[2, 3], step=[1, 2]), np.s_[0:2, 0:3:2]),
    (dict(start=1, stop=2), np.s_[1:2]),
])
def test_slice_view_writes_through_to_its_base(args, index):
    def build(x, y):
        v = ipu.ops.slice_(x, **args)
        ipu.ops.mul_(v, 10.0)
        return {"x": x, "v": v}
    got = _run(build)
    want = X.copy()
    want[index] *= 10
    np.testing.assert_array_equal(got["x"], want)
    np.testing.assert_array_equal(got["v"], want[index])


def test_slice_view_sees_its_base_updated():
    def build(x, y):
        v = ipu.ops.slice_(x, [0], [1], axis=[0])
        w = ipu.ops.slice_(x, [1], [2], axis=[0])
        ipu.ops.add_(v, 1.0)           # x row 0; w (row 1) unchanged
        ipu.ops.add_(x, y)             # both views see it
        return {"x": x, "v": v, "w": w}
    got = _run(build)
    want = X.copy()
    want[0] += 1
    want += Y
    np.testing.assert_array_equal(got["x"], want)
    np.testing.assert_array_equal(got["v"], want[0:1])
    np.testing.assert_array_equal(got["w"], want[1:2])


def test_view_of_a_view_writes_through_to_the_root():
    def build(x, y):
        flat = ipu.ops.flatten_(x)
        part = ipu.ops.slice_(flat, [1], [5], [2])
        sib = ipu.ops.transpose_(x)
        ipu.ops.add_(part, 100.0)
        return {"x": x, "flat": flat, "part": part, "sib": sib}
    got = _run(build)
    want = X.copy().reshape(-1)
    want[1:5:2] += 100
    np.testing.assert_array_equal(got["x"], want.reshape(X.shape))
    np.testing.assert_array_equal(got["flat"], want)
    np.testing.assert_array_equal(got["part"], want[1:5:2])
    np.testing.assert_array_equal(got["sib"], want.reshape(X.shape).T)


# --- call outputs ----------------------------------------------------------

def test_call_outputs_do_not_share_memory():
    """A subgraph returning one tensor twice, its input unchanged, or a
    view with its base: the call's outputs are separate tensors, so an
    in-place update of one in the caller leaves the others alone."""
    spec = ipu.TensorSpec(X.shape, ipu.float32)

    def build(x, y):
        ir = ipu.gcg().ir
        twice = ir.create_graph(lambda t: (t * 2.0,) * 2, spec)
        same = ir.create_graph(lambda t: (t, t), spec)
        view = ir.create_graph(lambda t: (ipu.ops.reshape_(t, (3, 2)), t),
                               spec)
        a, b = ipu.ops.call(twice, x)
        a += 1.0
        c, d = ipu.ops.call(same, x)
        d += y
        e, f = ipu.ops.call(view, y)
        f += 1.0
        return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "x": x,
                "y": y}
    got = _run(build)
    np.testing.assert_array_equal(got["a"], X * 2 + 1)
    np.testing.assert_array_equal(got["b"], X * 2)
    np.testing.assert_array_equal(got["c"], X)
    np.testing.assert_array_equal(got["d"], X + Y)
    np.testing.assert_array_equal(got["x"], X)
    np.testing.assert_array_equal(got["e"], Y.reshape(3, 2))
    np.testing.assert_array_equal(got["f"], Y + 1)
    np.testing.assert_array_equal(got["y"], Y)
