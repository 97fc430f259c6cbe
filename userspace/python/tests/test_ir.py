# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The IR from Python: every op of libipuir, run on the model and compared
with NumPy; graphs, calls and repeats; libipuir's messages."""
import numpy as np
import pytest

import ipu
from conftest import session

RNG = np.random.default_rng(7)


def run1(build, *arrays):
    """Run a one-shot program: each array in @arrays is an input stream
    (its shape and dtype); @build(*loaded tensors) returns the tensor to
    store. Returns the output array."""
    ir = ipu.Ir()
    with ir.main_graph:
        ins = [ipu.h2d_stream(a.shape, ipu.dtypes.from_numpy(a.dtype),
                              name="in%d" % i) for i, a in enumerate(arrays)]
        out = build(*[ipu.ops.host_load(s) for s in ins])
        y = ipu.d2h_stream(out.shape, out.dtype, name="out")
        ipu.ops.host_store(y, out)
    with session(ir) as s:
        return s.run(dict(zip(ins, arrays)))[y]


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_elementwise_ops_match_numpy():
    a, b = f32(3, 4), f32(4)
    pos = np.abs(f32(3, 4)) + 0.5
    ops = ipu.ops
    cases = [
        (lambda x, y: ops.add(x, y), a + b),
        (lambda x, y: x - y, a - b),
        (lambda x, y: x * y, a * b),
        (lambda x, y: x / y, a / b),
        (lambda x, y: -x, -a),
        (lambda x, y: abs(x), np.abs(a)),
        (lambda x, y: ops.relu(x), np.maximum(a, 0)),
        (lambda x, y: x * 2.0 + 1.0, a * 2 + 1),
        (lambda x, y: 1.0 - x, 1 - a),
    ]
    for build, want in cases:
        np.testing.assert_allclose(run1(build, a, b), want, rtol=1e-6)
    for op, fn in ((ops.tanh, np.tanh), (ops.exp, np.exp),
                   (ops.sigmoid, lambda v: 1 / (1 + np.exp(-v)))):
        np.testing.assert_allclose(run1(op, a), fn(a), rtol=1e-5, atol=1e-6)
    for op, fn in ((ops.log, np.log), (ops.sqrt, np.sqrt)):
        np.testing.assert_allclose(run1(op, pos), fn(pos), rtol=1e-5)
    g = run1(ops.gelu, a)
    assert g.shape == a.shape and np.all(np.abs(g - a * (a > 0)) < 0.2)


def test_matmul_and_data_movement_match_numpy():
    a, b = f32(3, 4), f32(4, 5)
    np.testing.assert_allclose(run1(lambda x, y: x @ y, a, b), a @ b,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(run1(lambda x: x.T, a), a.T)
    c = f32(2, 3, 4)
    np.testing.assert_array_equal(
        run1(lambda x: ipu.ops.transpose(x, [1, 0, 2]), c),
        c.transpose(1, 0, 2))
    np.testing.assert_array_equal(run1(lambda x: x.reshape([4, -1]), a),
                                  a.reshape(4, -1))
    np.testing.assert_array_equal(run1(lambda x: x[1:3, ::2], a), a[1:3, ::2])
    np.testing.assert_array_equal(run1(lambda x: x[-1], a), a[-1])
    np.testing.assert_array_equal(
        run1(lambda x: ipu.ops.slice(x, start=1, stop=3, axis=1), a),
        a[:, 1:3])
    np.testing.assert_array_equal(
        run1(lambda x, y: ipu.ops.concat([x, y], axis=1), a, a),
        np.concatenate([a, a], axis=1))


def test_reductions_softmax_and_cast_match_numpy():
    a = f32(3, 4)
    ops = ipu.ops
    np.testing.assert_allclose(run1(lambda x: ops.sum(x, 0), a), a.sum(0),
                               rtol=1e-5)
    np.testing.assert_allclose(run1(lambda x: ops.mean(x), a), a.mean(),
                               rtol=1e-5)
    np.testing.assert_array_equal(run1(lambda x: ops.max(x, [1], True), a),
                                  a.max(1, keepdims=True))
    e = np.exp(a - a.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    np.testing.assert_allclose(run1(ops.softmax, a), sm, rtol=1e-5)
    np.testing.assert_allclose(run1(ops.log_softmax, a), np.log(sm),
                               rtol=1e-5, atol=1e-6)
    got = run1(lambda x: ops.cast(x, ipu.int32), a * 10)
    np.testing.assert_array_equal(got, (a * 10).astype(np.int32))
    h = run1(lambda x: ops.cast(x, ipu.float16), a)
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h, a.astype(np.float16))


def test_call_and_repeat_carry_values():
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        z = ipu.d2h_stream((2,), ipu.float32, name="z")

        def double_add(acc, inc):
            return acc * 2.0 + inc

        t = ipu.ops.host_load(x)
        g = ir.create_graph(double_add, t, ipu.TensorSpec((2,), ipu.float32))
        assert [i.name for i in g.inputs] == ["acc", "inc"]
        (called,) = ipu.ops.call(g, t, t)
        (looped,) = ipu.ops.repeat(g, 3, t, ipu.constant(np.ones(2,
                                                                 np.float32)))
        ipu.ops.host_store(y, called)
        ipu.ops.host_store(z, looped)
    with session(ir) as s:
        out = s.run({x: np.array([1, 2], np.float32)})
    np.testing.assert_array_equal(out[y], [3, 6])
    # acc -> 2 acc + 1, three times from [1, 2]: [15, 23].
    np.testing.assert_array_equal(out[z], [15, 23])


def test_replicated_all_reduce():
    ir = ipu.Ir()
    ir.replication_factor = 4
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        s_ = ipu.d2h_stream((2,), ipu.float32, name="sum")
        m = ipu.d2h_stream((2,), ipu.float32, name="mean")
        g = ipu.d2h_stream((2,), ipu.float32, name="grouped")
        t = ipu.ops.host_load(x)
        ar = ipu.ops.collectives.replicated_all_reduce
        ipu.ops.host_store(s_, ar(t))
        ipu.ops.host_store(m, ipu.ops.replicated_all_reduce(t, "mean"))
        ipu.ops.host_store(g, ar(t, ipu.ops.CollectiveOperator.Add,
                                 ir.replica_grouping(1, 2)))
    xs = np.arange(8, dtype=np.float32).reshape(4, 2)
    with session(ir) as sess:
        out = sess.run({x: xs})
    np.testing.assert_array_equal(out[s_], np.tile(xs.sum(0), (4, 1)))
    np.testing.assert_array_equal(out[m], np.tile(xs.mean(0), (4, 1)))
    np.testing.assert_array_equal(out[g], [xs[:2].sum(0), xs[:2].sum(0),
                                           xs[2:].sum(0), xs[2:].sum(0)])


def test_var_updates():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.variable(np.array([1, 2], np.float32), name="a")
        b = ipu.variable(np.array([0, 0], np.float32), name="b")
        c = ipu.variable(np.array([5, 5], np.float32), name="c")
        ipu.ops.scaled_add_(a, ipu.constant(np.ones(2, np.float32)), 2.0,
                            -0.5)
        ipu.ops.var_updates.copy_var_update_(b, a)
        ipu.ops.var_updates.accumulate_(c, a)
    with session(ir) as s:
        s.run({})
        got = s.get_tensors_data([a, b, c])
    np.testing.assert_array_equal(got[a], [1.5, 3.5])
    np.testing.assert_array_equal(got[b], [1.5, 3.5])
    np.testing.assert_array_equal(got[c], [6.5, 8.5])


def test_ir_errors_carry_libipuirs_message():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.variable(np.zeros((4, 3), np.float32), name="a")
        b = ipu.variable(np.zeros((4, 5), np.float32), name="b")
        with pytest.raises(ipu.IrError,
                           match=r"matmul.*'a'.*\[4, 3\].*'b'.*\[4, 5\]"):
            a @ b
        with pytest.raises(ipu.IrError, match="'a'"):
            ipu.ops.reshape(a, (5,))
        # A repeated name is made unique, as PopXL does (test_popxl_names).
        assert ipu.variable(np.zeros(2, np.float32), name="a").name != "a"
        i = ipu.variable(np.zeros(2, np.int32), name="i")
        with pytest.raises(ipu.IrError):
            ipu.ops.tanh(i)
    other = ipu.Ir()
    with other.main_graph:
        with pytest.raises(ipu.IrError, match="another Ir"):
            ipu.ops.add(a, a)
    with ir.main_graph:
        with pytest.raises(ipu.IrError, match="ipu\\(4096\\)"):
            with ipu.ipu(4096):
                pass
        with ipu.ipu(1):
            t = b + 1.0
        assert t.shape == (4, 5)
        g = ir.create_graph(lambda v: v * 2.0, ipu.TensorSpec((2,),
                                                               ipu.float32))
        with pytest.raises(ipu.IrError, match="call"):
            ipu.ops.call(g)                 # one input missing
    with pytest.raises(ipu.IrError, match="no current graph"):
        ipu.variable(np.zeros(2, np.float32))
    with pytest.raises(ipu.IrError):
        ir.replication_factor = 0


def test_dtypes_and_variables():
    assert ipu.float32.as_numpy() == np.float32
    assert ipu.float8_152.itemsize == 1 and ipu.float8_152.is_fp8
    assert ipu.bfloat16.as_numpy() == np.uint16
    assert not ipu.int64.on_device
    ir = ipu.Ir()
    with ir.main_graph:
        v = ipu.variable(np.arange(3.0))           # float64 -> float32
        c = ipu.constant(7)                        # int64 -> int32
        z = ipu.variable(None, ipu.float16, shape=(2, 2))
        bf = ipu.variable([1.0, -2.0], ipu.bfloat16, name="bf")
        ipu.ops.scaled_add_(z, z, 1.0, 0.0)  # a program needs an op (S03)
        with pytest.raises(ipu.IrError, match="downcast=False"):
            ipu.constant(np.arange(2), downcast=False)
    assert v.dtype is ipu.float32 and c.dtype is ipu.int32
    assert z.shape == (2, 2) and v.name.startswith("variable")
    assert ir.variables == [v, z, bf] and ir.constants == [c]
    s = session(ir)
    np.testing.assert_array_equal(s.get_tensor_data(z), np.zeros((2, 2)))
    # bfloat16 host values are codes: the top halves of float32s.
    want = np.array([1.0, -2.0], np.float32).view(np.uint32) >> 16
    np.testing.assert_array_equal(s.get_tensor_data(bf), want)


def test_help_reads_like_popxls_docs():
    for obj in (ipu, ipu.Session, ipu.Session.run, ipu.Session.__enter__,
                ipu.Session.get_tensors_data, ipu.Ir, ipu.Ir.create_graph,
                ipu.variable, ipu.h2d_stream, ipu.ops, ipu.ops.matmul,
                ipu.ops.repeat, ipu.ops.collectives.replicated_all_reduce,
                ipu.Error, ipu.ShapeError, ipu.fp8_utils):
        assert obj.__doc__ and len(obj.__doc__.strip()) > 20, obj
    for name in ipu.ops.__all__:
        assert getattr(ipu.ops, name).__doc__, name
