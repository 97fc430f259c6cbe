# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ops the package gained late: swish(_), detach(_), concat_,
increment_mod(_), dynamic_update(_), and slices with negative steps; each
checked against NumPy, the in-place ones through the updated variable."""
import numpy as np
import pytest

import ipu
from conftest import session

X = np.array([[0.5, -1.5, 2.0, 7.0], [-0.25, 3.0, -4.0, 1.0],
              [6.0, -2.0, 0.0, 5.5]], np.float32)


def _run(build, x=X, var=None):
    """Run @build(x[, w]) -> {name: tensor} in a fresh Ir (x loaded from a
    stream, w a variable of @var when given); return ({name: value}, the
    variable's value after the run or None)."""
    ir = ipu.Ir()
    with ir.main_graph:
        xs = ipu.h2d_stream(x.shape, ipu.dtypes.dtype.as_dtype(x.dtype),
                            name="xs")
        t = ipu.ops.host_load(xs, "x")
        args = (t,)
        if var is not None:
            w = ipu.variable(var, name="w")
            args += (w,)
        outs = build(*args)
        streams = {}
        for k, o in outs.items():
            streams[k] = ipu.d2h_stream(o.shape, o.dtype, name="o_" + k)
            ipu.ops.host_store(streams[k], o)
    with session(ir) as s:
        got = s.run({xs: x})
        wv = s.get_tensor_data(w) if var is not None else None
    return {k: got[st] for k, st in streams.items()}, wv


def _swish(v):
    v = v.astype(np.float64)
    return v / (1 + np.exp(-v))


# --- swish --------------------------------------------------------------

def test_swish_is_x_sigmoid_x():
    got, _ = _run(lambda x: {"y": ipu.ops.swish(x)})
    np.testing.assert_allclose(got["y"], _swish(X), rtol=1e-5, atol=1e-6)


def test_swish_inplace_updates_the_variable():
    def build(x, w):
        r = ipu.ops.swish_(w)
        assert r is w
        return {"after": w + 0.0}
    got, wv = _run(build, var=X)
    np.testing.assert_allclose(wv, _swish(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["after"], _swish(X), rtol=1e-5,
                               atol=1e-6)


def test_swish_of_an_integer_tensor_is_refused():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.arange(3, dtype=np.int32))
        with pytest.raises(ValueError):
            ipu.ops.swish(t)


# --- detach -------------------------------------------------------------

def test_detach_is_the_identity_in_a_new_tensor():
    def build(x):
        d = ipu.ops.detach(x)
        assert d is not x and d.shape == x.shape and d.dtype == x.dtype
        ipu.ops.add_(d, 1.0)            # a copy: x does not change
        return {"d": d, "x": x + 0.0}
    got, _ = _run(build)
    np.testing.assert_array_equal(got["d"], X + 1)
    np.testing.assert_array_equal(got["x"], X)


def test_detach_inplace_aliases_its_input():
    def build(x, w):
        d = ipu.ops.detach_(w)
        ipu.ops.add_(d, 1.0)            # seen through w
        ipu.ops.mul_(w, 2.0)            # seen through d
        return {"d": d + 0.0}
    got, wv = _run(build, var=X)
    np.testing.assert_array_equal(wv, (X + 1) * 2)
    np.testing.assert_array_equal(got["d"], (X + 1) * 2)


# --- concat_ ------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_inplace_values_and_aliases(axis):
    parts = np.split(X, [1], axis=0) if axis == 0 else \
        np.split(X, [1, 3], axis=1)

    def build(x, w):
        pieces = [w] + [ipu.variable(p) for p in parts[1:]]
        c = ipu.ops.concat_(pieces, axis)
        first = c + 0.0
        ipu.ops.add_(c, 1.0)            # writes back into w
        return {"first": first, "c": c + 0.0}
    got, wv = _run(build, var=parts[0])
    np.testing.assert_array_equal(got["first"], np.concatenate(parts, axis))
    np.testing.assert_array_equal(got["c"], np.concatenate(parts, axis) + 1)
    np.testing.assert_array_equal(wv, parts[0] + 1)


def test_concat_inplace_sees_updates_of_its_inputs():
    def build(x, w):
        c = ipu.ops.concat_([x, w], 0)
        ipu.ops.neg_(w)
        return {"c": c + 0.0}
    got, wv = _run(build, var=X)
    np.testing.assert_array_equal(got["c"], np.concatenate([X, -X]))
    np.testing.assert_array_equal(wv, -X)


def test_concat_inplace_refuses_mismatched_inputs():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.variable(np.zeros((2, 3), np.float32))
        b = ipu.variable(np.zeros((2, 4), np.float32))
        with pytest.raises(ValueError):
            ipu.ops.concat_([a, b], 0)


# --- increment_mod ------------------------------------------------------

@pytest.mark.parametrize("inc,mod", [(1.0, 3.0), (2.5, 1.5), (-1.0, 4.0)])
def test_increment_mod_float_is_fmod(inc, mod):
    got, _ = _run(lambda x: {"y": ipu.ops.increment_mod(x, inc, mod)})
    np.testing.assert_allclose(got["y"], np.fmod(X + np.float32(inc),
                                                 np.float32(mod)),
                               rtol=1e-6, atol=1e-6)


def test_increment_mod_int_truncates_as_c():
    x = np.array([-7, -1, 0, 1, 4, 5, 11], np.int32)
    got, _ = _run(lambda t: {"y": ipu.ops.increment_mod(t, 2, 5)}, x=x)
    np.testing.assert_array_equal(got["y"], np.fmod(x + 2, 5))
    assert got["y"].dtype == np.int32


def test_increment_mod_inplace_counts_round_a_variable():
    w0 = np.array([0, 1, 2, 3], np.int32)

    def build(x, w):
        for _ in range(3):
            assert ipu.ops.increment_mod_(w, 1, 4) is w
        return {"w": w + 0}
    got, wv = _run(build, var=w0)
    np.testing.assert_array_equal(wv, (w0 + 3) % 4)
    np.testing.assert_array_equal(got["w"], (w0 + 3) % 4)


def test_increment_mod_by_zero_is_refused():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros(3, np.float32))
        with pytest.raises(ValueError):
            ipu.ops.increment_mod(t, 1.0, 0.0)
        with pytest.raises(ValueError):
            ipu.ops.increment_mod_(t, 1.0, 0.0)


# --- dynamic_update -----------------------------------------------------

def _np_update(t, index, u, axes):
    out = t.copy()
    key = [slice(None)] * t.ndim
    for a, i in zip(axes, index):
        key[a] = slice(int(i), int(i) + u.shape[a])
    out[tuple(key)] = u
    return out


UPDATES = [([0], [2], [1]), ([1], [2], [2]), ([0, 1], [2, 3], [1, 1]),
           ([-1], [1], [3]), ([1, 0], [1, 3], [2, 0])]


def _update_of(axes, sizes):
    shape = list(X.shape)
    for a, s in zip(axes, sizes):
        shape[a] = s
    return (np.arange(np.prod(shape), dtype=np.float32) + 100).reshape(shape)


@pytest.mark.parametrize("axes,sizes,index", UPDATES)
@pytest.mark.parametrize("on_device", [True, False])
def test_dynamic_update_values(axes, sizes, index, on_device):
    u = _update_of(axes, sizes)

    def build(x):
        if on_device:
            i = ipu.ops.cast(ipu.variable(np.array(index, np.uint32)) + 0,
                             ipu.uint32)
        else:
            i = ipu.constant(np.array(index, np.uint32))
        y = ipu.ops.dynamic_update(x, i, ipu.constant(u), axes, sizes, False)
        return {"y": y, "x": x + 0.0}
    got, _ = _run(build)
    np.testing.assert_array_equal(got["y"], _np_update(X, index, u, axes))
    np.testing.assert_array_equal(got["x"], X)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8])
def test_dynamic_update_of_integers(dtype):
    x = np.arange(12, dtype=dtype).reshape(3, 4)
    u = np.full((3, 2), 200, dtype)

    def build(t):
        i = ipu.variable(np.array([1], np.uint32))
        return {"y": ipu.ops.dynamic_update(t, i, ipu.constant(u), [1], [2],
                                            True)}
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], _np_update(x, [1], u, [1]))
    assert got["y"].dtype == dtype


def test_dynamic_update_inplace_updates_the_variable():
    u = np.full((1, 4), 9.0, np.float32)

    def build(x, w):
        i = ipu.variable(np.array([2], np.uint32))
        r = ipu.ops.dynamic_update_(w, i, ipu.constant(u), [0], [1], True)
        assert r is w
        return {"w": w + 0.0}
    got, wv = _run(build, var=X)
    np.testing.assert_array_equal(wv, _np_update(X, [2], u, [0]))
    np.testing.assert_array_equal(got["w"], _np_update(X, [2], u, [0]))


def test_dynamic_update_refuses_bad_arguments():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(np.zeros((3, 4), np.float32))
        i = ipu.variable(np.array([0], np.uint32))
        u = ipu.variable(np.zeros((1, 4), np.float32))
        ops = ipu.ops
        with pytest.raises(TypeError):      # a float index
            ops.dynamic_update(t, ipu.variable(np.zeros(1, np.float32)), u,
                               [0], [1], False)
        with pytest.raises(ValueError):     # axes and sizes differ
            ops.dynamic_update(t, i, u, [0], [1, 1], False)
        with pytest.raises(ValueError):     # index of the wrong length
            ops.dynamic_update(t, ipu.variable(np.zeros(2, np.uint32)), u,
                               [0], [1], False)
        with pytest.raises(ValueError):     # update of the wrong shape
            ops.dynamic_update(t, i, u, [0], [2], False)
        with pytest.raises(ValueError):     # an axis out of range
            ops.dynamic_update(t, i, u, [2], [1], False)
        with pytest.raises(ValueError):     # a size over the axis
            ops.dynamic_update(t, i, ipu.variable(
                np.zeros((4, 4), np.float32)), [0], [4], False)
        with pytest.raises(IndexError):     # a known index out of range
            ops.dynamic_update(t, ipu.constant(np.array([3], np.uint32)), u,
                               [0], [1], False)
        with pytest.raises(ValueError):     # a constant is not updated
            ops.dynamic_update_(ipu.constant(np.zeros((3, 4), np.float32)),
                                i, u, [0], [1], False)


# --- negative slice steps -----------------------------------------------

KEYS = [np.s_[::-1], np.s_[:, ::-1], np.s_[::-1, ::-2], np.s_[2:0:-1],
        np.s_[-1::-2, 1:], np.s_[:, 3:0:-2], np.s_[1, ::-1],
        np.s_[:, -2::-1]]


@pytest.mark.parametrize("key", KEYS)
def test_getitem_with_negative_steps(key):
    got, _ = _run(lambda x: {"y": x[key]})
    np.testing.assert_array_equal(got["y"], X[key])


def test_ops_slice_with_negative_steps():
    got, _ = _run(lambda x: {
        "a": ipu.ops.slice(x, start=[3], stop=[0], step=[-1], axis=[1]),
        "b": ipu.ops.slice(x, start=[-1, -1], stop=[-4, -5],
                           step=[-2, -3]),
    })
    np.testing.assert_array_equal(got["a"], X[:, 3:0:-1])
    np.testing.assert_array_equal(got["b"], X[-1:-4:-2, -1:-5:-3])


def test_slice_view_with_negative_steps_writes_back():
    def build(x, w):
        v = ipu.ops.slice_(w, start=[2], stop=[0], step=[-1], axis=[0])
        ipu.ops.add_(v, np.arange(2, dtype=np.float32).reshape(2, 1) * 10
                     + 10)
        return {"v": v + 0.0}
    got, wv = _run(build, var=X)
    want = X.copy()
    want[2] += 10
    want[1] += 20
    np.testing.assert_array_equal(wv, want)
    np.testing.assert_array_equal(got["v"], want[2:0:-1])


def test_an_empty_negative_slice_is_refused():
    ir = ipu.Ir()
    with ir.main_graph:
        t = ipu.variable(X)
        with pytest.raises(ValueError):
            t[0:2:-1]
        with pytest.raises(ValueError):
            ipu.ops.slice(t, start=[1], stop=[1], step=[0])


# --- check_inputs -------------------------------------------------------

def _graph_of_two(ir):
    g = ir.create_graph("two")
    with g:
        a = ipu.graph_input((2,), ipu.float32, "a")
        b = ipu.graph_input((2,), ipu.float32, "b")
        ipu.graph_output(a + b)
    return g


@pytest.mark.parametrize("op", ["call_with_info", "repeat_with_info"])
def test_missing_inputs_unchecked_are_unsupported(op):
    """PopXL's check_inputs=False leaves inputs unconnected; libipuir
    connects every input, so that is refused as unsupported, while the
    default (checked) is PopXL's ValueError."""
    ir = ipu.Ir()
    with ir.main_graph:
        g = _graph_of_two(ir)
        x = ipu.variable(np.ones(2, np.float32))
        args = (g,) if op == "call_with_info" else (g, 1)
        call = getattr(ipu.ops, op)
        with pytest.raises(ValueError):
            call(*args, x)
        with pytest.raises(NotImplementedError):
            call(*args, x, check_inputs=False)
        with pytest.raises(NotImplementedError):
            call(*args, inputs_dict={g.inputs[1]: x}, check_inputs=False)
        info = call(*args, x, x, check_inputs=False)
        assert len(info.outputs) == 1
