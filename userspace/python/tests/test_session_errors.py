# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Failures (S25) and bad input: every failure is an exception carrying
libsession's message, and a rejected call changes nothing (the variables,
the host copies and their sync state, the caller's arrays)."""
import contextlib

import numpy as np
import pytest

import ipu
from conftest import acc_ir, session
from hooks import hooks


@pytest.fixture
def ran():
    """An attached session that has run once: device w = [2, 3], the host
    copy [1, 2] and out of sync."""
    ir, x, y, w = acc_ir()
    s = session(ir)
    s.__enter__()
    s.run({x: np.ones(2, np.float32)})
    yield s, x, y, w
    if s._s and s.is_attached:
        s.__exit__(None, None, None)


def unchanged(s, x, y, w):
    """The session is as `ran` left it, and still runs."""
    assert s.is_attached
    assert not hooks.in_sync(s)
    out = s.run({x: np.ones(2, np.float32)})[y]
    np.testing.assert_array_equal(out, [3, 4])


def test_S25_rejected_run_changes_nothing(ran):
    s, x, y, w = ran
    out = np.full(2, 7, np.float32)
    with pytest.raises(ipu.ShapeError):
        s.run_with_outputs({x: np.ones(3, np.float32)}, {y: out})
    np.testing.assert_array_equal(out, [7, 7])
    unchanged(s, x, y, w)


def test_S25_device_error_leaves_the_session_usable(ran):
    s, x, y, w = ran
    hooks.faults_set("launch:1")
    with pytest.raises(ipu.DeviceError, match="launch") as e:
        s.run({x: np.ones(2, np.float32)})
    assert e.value.errno == 5 and isinstance(e.value, RuntimeError)
    hooks.faults_set(None)
    assert s.is_attached and not hooks.in_sync(s)
    s.run({x: np.zeros(2, np.float32)})


@contextlib.contextmanager
def bounded(s, ms):
    """The session's waits bounded to `ms` around the one call that must
    time out, and lifted again after it (the C twin's bounded(),
    tests/unit/test_session_timeout.c): no other call (attaching, the
    normal run after the hang, the exit) races `ms` on a slow machine."""
    hooks.set_wait_timeout(s, ms)
    try:
        yield
    finally:
        hooks.set_wait_timeout(s, 0)


def test_S25_hung_launch_times_out_and_resets():
    ir, x, y, w = acc_ir()
    s = session(ir, wait_timeout_ms=300)
    # The option reached the session; lifted until the call that hangs.
    assert hooks.set_wait_timeout(s, 0) == 300
    with s:
        hooks.faults_set("hang:1")
        out = np.full(2, -1, np.float32)
        with pytest.raises(ipu.DeviceTimeoutError,
                           match="did not complete within 300 ms.*reset") \
                as e:
            with bounded(s, 300):
                s.run_with_outputs({x: np.full(2, 7, np.float32)}, {y: out})
        hooks.faults_set(None)
        assert isinstance(e.value, TimeoutError) and e.value.errno == 110
        # The output never came; the session runs again.
        np.testing.assert_array_equal(out, [-1, -1])
        np.testing.assert_array_equal(
            s.run({x: np.ones(2, np.float32)})[y], [2, 3])


def test_S25_write_the_device_rejects_changes_nothing(ran):
    s, x, y, w = ran
    hooks.faults_set("dma:1")
    with pytest.raises(ipu.DeviceError, match="injected fault"):
        s.write_variable_data(w, np.array([9, 9], np.float32))
    hooks.faults_set(None)
    # The device's [2, 3] stays; the new value went nowhere.
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S25_messages_are_per_session():
    ir1, x1, _, _ = acc_ir()
    ir2, *_ = acc_ir()
    a, b = session(ir1), session(ir2)
    with pytest.raises(ipu.NotAttachedError) as e:
        a.run({x1: np.ones(2, np.float32)})
    with a, b:
        pass
    assert "run" in e.value.message


def test_S25_errors_carry_errno_and_message():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with pytest.raises(ipu.Error) as e:
        s.weights_to_host()
    assert e.value.errno == 1  # EPERM
    assert str(e.value) == e.value.message


# -- bad input: wrong dtype, shape, stream name, layout, closed session --

def test_bad_input_wrong_dtype(ran):
    s, x, y, w = ran
    with pytest.raises(ipu.DTypeError, match="input stream 'x'"):
        s.run({x: np.ones(2, np.int8)})
    with pytest.raises(ipu.DTypeError, match="'w'"):
        s.write_variable_data(w, np.ones(2, np.int32))
    unchanged(s, x, y, w)


def test_bad_input_wrong_shape(ran):
    s, x, y, w = ran
    with pytest.raises(ipu.ShapeError, match="input stream 'x'"):
        s.run({x: np.ones((2, 2), np.float32)})
    with pytest.raises(ipu.ShapeError, match="output stream 'y'"):
        s.run_with_outputs({x: np.ones(2, np.float32)},
                           {y: np.zeros(3, np.float32)})
    with pytest.raises(ipu.ShapeError, match="11 dimensions"):
        s.run({x: np.ones((1,) * 11, np.float32)})
    unchanged(s, x, y, w)


def test_bad_input_wrong_stream_name(ran):
    s, x, y, w = ran
    with pytest.raises(ipu.StreamError, match="unexpected: {'X'}"):
        s.run({"X": np.ones(2, np.float32)})
    with pytest.raises(ipu.StreamError):
        s.run({y: np.ones(2, np.float32)})   # an output as an input
    with pytest.raises(ipu.StreamError):
        s.run({1: np.ones(2, np.float32)})
    unchanged(s, x, y, w)


def test_bad_input_non_contiguous_output(ran):
    s, x, y, w = ran
    backing = np.zeros(4, np.float32)
    with pytest.raises(ipu.LayoutError, match="'y'.*C-contiguous"):
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: backing[::2]})
    ro = np.zeros(2, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ipu.LayoutError, match="writable"):
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: ro})
    with pytest.raises(ipu.LayoutError, match="not a NumPy array"):
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: [0.0, 0.0]})
    assert not backing.any()
    unchanged(s, x, y, w)


def test_bad_input_non_contiguous_input_is_converted_once(ran):
    s, x, y, w = ran
    strided = np.array([1, 99, 1, 99], np.float32)[::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(s.run({x: strided})[y], [3, 4])
    # Misaligned data (a view one byte into a buffer) is copied too.
    raw = np.zeros(9, np.uint8)
    mis = raw[1:].view(np.float32)
    mis[:] = 1
    assert not mis.flags.aligned
    np.testing.assert_array_equal(s.run({x: mis})[y], [4, 5])


def test_bad_input_closed_session():
    ir, x, y, w = acc_ir()
    s = session(ir)
    s.close()
    s.close()  # idempotent
    calls = (lambda: s.run({x: np.ones(2, np.float32)}),
             s.weights_to_host, s.weights_from_host,
             lambda: s.get_tensor_data(w),
             lambda: s.write_variable_data(w, np.ones(2, np.float32)),
             s.create_host_outputs, s.expected_inputs,
             lambda: s.is_attached, lambda: s.device, s.__enter__)
    for call in calls:
        with pytest.raises(ipu.SessionClosedError, match="closed"):
            call()
    assert repr(s) == "Session(closed)"


def test_bad_input_closing_an_attached_session_releases_its_ipus():
    ir, *_ = acc_ir(replicas=16)
    s = session(ir)
    s.__enter__()
    s.close()
    ir2, *_ = acc_ir(replicas=16)
    with session(ir2) as s2:
        assert s2.is_attached
