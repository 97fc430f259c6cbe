# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Running (S09-S16, S26), as tests/unit/test_session_run.c."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session
from hooks import hooks


def test_S09_outputs_are_filled_in_place():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        out = np.full(2, -1, np.float32)
        before = out.ctypes.data
        assert s.run_with_outputs({x: np.ones(2, np.float32)},
                                  {y: out}) is None
        assert out.ctypes.data == before
        np.testing.assert_array_equal(out, [2, 3])


def test_S09_slices_go_to_their_replica_and_iteration():
    d, r, n = 3, 2, 2
    ir, x, y, w = acc_ir(replicas=r, transfers=d, n=n)
    xs = np.arange(d * r * n, dtype=np.float32).reshape(d, r, n)
    with session(ir) as s:
        out = s.run({x: xs})[y]
    # Each replica accumulates its own slices onto w = [1, 2].
    want = np.cumsum(xs, axis=0) + np.array([1, 2], np.float32)
    np.testing.assert_array_equal(out, want)


def test_S09_streams_keyed_by_name():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        out = {"y": np.zeros(2, np.float32)}
        s.run_with_outputs({"x": np.ones(2, np.float32)}, out)
    np.testing.assert_array_equal(out["y"], [2, 3])


def test_S09_contiguous_inputs_are_passed_without_a_copy(monkeypatch):
    # Whatever would copy an array must not be called for arrays of the
    # stream's dtype or of a 64-bit type libsession downcasts itself.
    import ipu.session as mod

    def no_copy(*a, **kw):
        raise AssertionError("the input was copied")
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        monkeypatch.setattr(mod.np, "require", no_copy)
        monkeypatch.setattr(mod.np, "ascontiguousarray", no_copy)
        monkeypatch.setattr(mod.np, "array", no_copy)
        out = s.run({x: np.ones(2, np.float32)})[y]
        out64 = s.run({x: np.ones(2, np.float64)})[y]
    np.testing.assert_array_equal(out, [2, 3])
    np.testing.assert_array_equal(out64, [3, 4])


def test_S09_runs_with_new_arrays_and_keys_each_time():
    # The C buffers are kept from run to run: every run must still see
    # its own arrays, shapes and keys.
    ir, x, y, w = acc_ir(transfers=2)
    with session(ir) as s:
        a = s.run({x: np.ones((2, 2), np.float32)})[y]
        b = s.run({"x": np.full((3, 2), 2, np.float32)})[y]
        out = np.zeros((2, 2), np.float32)
        s.run_with_outputs({x: np.zeros((2, 2))}, {"y": out})
        with pytest.raises(ipu.ShapeError):
            s.run({x: np.ones((1, 2), np.float32)})
        c = s.run({x: np.ones((2, 2), np.float32)})[y]
    np.testing.assert_array_equal(a, [[2, 3], [3, 4]])
    np.testing.assert_array_equal(b, [[5, 6], [7, 8]])
    np.testing.assert_array_equal(out, [[7, 8], [7, 8]])
    np.testing.assert_array_equal(c, [[8, 9], [9, 10]])


def test_S10_unexpected_and_missing_inputs():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.StreamError) as e:
            s.run({"z": np.ones(2, np.float32)})
        assert "unexpected" in str(e.value) and "'z'" in str(e.value)
        assert "missing" in str(e.value) and "'x'" in str(e.value)
        assert isinstance(e.value, ValueError)
        with pytest.raises(ipu.StreamError, match="missing: {'x'}"):
            s.run({})


def test_S10_unexpected_and_missing_outputs():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.StreamError, match="output.*missing: {'y'}"):
            s.run_with_outputs({x: np.ones(2, np.float32)}, {})


def test_S10_stream_given_twice():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.StreamError, match="given twice"):
            s.run({x: np.ones(2, np.float32), "x": np.ones(2, np.float32)})


def test_S10_stream_of_another_ir():
    ir, x, y, w = acc_ir()
    _, x2, _, _ = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.StreamError, match="another Ir"):
            s.run({x2: np.ones(2, np.float32)})


def test_S11_dim0_may_exceed_num_host_transfers():
    ir, x, y, w = acc_ir(transfers=2)
    with session(ir) as s:
        out = s.run({x: np.ones((5, 2), np.float32)})[y]
    np.testing.assert_array_equal(out, [[2, 3], [3, 4]])


def test_S11_dim0_must_be_at_least_num_host_transfers():
    ir, x, y, w = acc_ir(transfers=4)
    with session(ir) as s:
        with pytest.raises(ipu.ShapeError) as e:
            s.run({x: np.ones((3, 2), np.float32)})
    msg = str(e.value)
    assert "'x'" in msg and "(4, 2)" in msg and "(3, 2)" in msg


def test_S11_replica_dim_must_match():
    ir, x, y, w = acc_ir(replicas=4)
    with session(ir) as s:
        with pytest.raises(ipu.ShapeError, match="'x'.*(4, 2).*(2, 2)"):
            s.run({x: np.ones((2, 2), np.float32)})


def test_S11_stream_dims_must_match():
    ir, x, y, w = acc_ir(n=3)
    with session(ir) as s:
        with pytest.raises(ipu.ShapeError, match=r"'x'.*\(3,\).*\(4,\)"):
            s.run({x: np.ones(4, np.float32)})


def test_S11_all_one_buffers_pass():
    ir, x, y, w = acc_ir(n=1)
    with session(ir) as s:
        out = s.run({x: np.ones((1, 1, 1), np.float32)})[y]
    np.testing.assert_array_equal(out, [2])


def test_S12_64_bit_inputs_are_downcast():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        out = s.run({x: np.array([0.5, 1.5])})[y]  # float64
        np.testing.assert_array_equal(out, [1.5, 3.5])
        # Python lists are arrays too (float64 after np.asarray).
        out = s.run({x: [1.0, 1.0]})[y]
        np.testing.assert_array_equal(out, [2.5, 4.5])


def test_S12_no_downcast_refuses_64_bit_inputs():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.DTypeError, match="'x'.*float64"):
            s.run({x: np.ones(2)}, downcast_inputs=False)


def test_S12_input_of_another_dtype():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        with pytest.raises(ipu.DTypeError, match="'x'.*int32.*float32") as e:
            s.run({x: np.ones(2, np.int32)})
        assert isinstance(e.value, TypeError)
        with pytest.raises(ipu.DTypeError, match="'x'.*complex"):
            s.run({x: np.ones(2, np.complex64)})


def test_S12_output_of_another_dtype():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        out = np.zeros(2, np.float64)
        with pytest.raises(ipu.DTypeError, match="'y'.*float64.*float32"):
            s.run_with_outputs({x: np.ones(2, np.float32)}, {y: out})
        np.testing.assert_array_equal(out, [0, 0])


def test_S13_run_puts_host_weights_out_of_sync():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        assert hooks.in_sync(s)
        s.run({x: np.ones(2, np.float32)})
        assert not hooks.in_sync(s)


def test_S14_run_allocates_the_outputs():
    ir, x, y, w = acc_ir(transfers=2)
    with session(ir) as s:
        out = s.run({x: np.ones((2, 2), np.float32)})
    assert list(out) == [y]
    assert out[y].flags.owndata and out[y].flags.c_contiguous
    assert out[y].dtype == np.float32 and out[y].shape == (2, 2)


def test_S15_host_outputs_are_shaped_and_zeroed():
    for d, r, want in ((4, 16, (4, 16, 3)), (1, 16, (16, 3)),
                       (4, 1, (4, 3)), (1, 1, (3,))):
        ir, x, y, w = acc_ir(replicas=r, transfers=d, n=3)
        s = session(ir)
        out = s.create_host_outputs()
        assert list(out) == [y]
        assert out[y].shape == want and out[y].dtype == np.float32
        assert not out[y].any()
        s.close()


def test_S16_expected_inputs():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.h2d_stream((2,), ipu.float32, name="a")
        b = ipu.h2d_stream((1,), ipu.int32, name="b")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        ipu.ops.host_load(b)
        ipu.ops.host_store(y, ipu.ops.host_load(a))
    s = session(ir)
    assert s.expected_inputs() == [a, b]
    assert ir.get_all_h2d_streams() == [a, b]
    assert ir.get_all_d2h_streams() == [y]


def test_S26_one_submission_whatever_the_streams():
    for r, d, n in ((1, 1, 1), (16, 1, 1), (16, 4, 3)):
        ir, x, y, w = acc_ir(replicas=r, transfers=d, n=n)
        with session(ir) as s:
            shape = s.create_host_outputs()[y].shape
            before = hooks.submissions(s)
            s.run({x: np.ones(shape, np.float32)})
            assert hooks.submissions(s) - before == 1
