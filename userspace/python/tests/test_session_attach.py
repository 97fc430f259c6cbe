# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The context manager (S06-S08), as tests/unit/test_session_attach.c."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session
from hooks import hooks


def test_S06_enter_sends_the_host_weights():
    ir, x, y, w = acc_ir()
    s = session(ir)
    s.write_variable_data(w, np.array([10, 20], np.float32))
    with s:
        out = s.run({x: np.zeros(2, np.float32)})
    np.testing.assert_array_equal(out[y], [10, 20])


def test_S06_busy_ipus_fail_the_enter():
    # The first session holds all 16 model IPUs.
    big, *_ = acc_ir(replicas=16)
    other, x, y, w = acc_ir()
    a, b = session(big), session(other)
    with a:
        with pytest.raises(ipu.DeviceBusyError,
                           match="could not attach.*ipu-info") as e:
            with b:
                pytest.fail("entered a session whose IPUs are busy")
        assert isinstance(e.value, RuntimeError)
        assert not b.is_attached
    # Once they are free, it enters.
    with b:
        assert b.is_attached


def test_S06_sessions_share_the_machine():
    ir1, x1, y1, _ = acc_ir()
    ir2, x2, y2, _ = acc_ir()
    with session(ir1) as a, session(ir2) as b:
        np.testing.assert_array_equal(
            a.run({x1: np.ones(2, np.float32)})[y1], [2, 3])
        np.testing.assert_array_equal(
            b.run({x2: np.full(2, 2, np.float32)})[y2], [3, 4])


def test_S06_failed_enter_is_undone():
    ir, x, y, w = acc_ir()
    s = session(ir)
    hooks.faults_set("dma:1")  # the weights_from_host of the enter fails
    with pytest.raises(ipu.Error):
        with s:
            pass
    assert not s.is_attached
    hooks.faults_set(None)
    with s:
        np.testing.assert_array_equal(
            s.run({x: np.zeros(2, np.float32)})[y], [1, 2])


def test_S07_exit_fetches_the_weights_and_detaches():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with s:
        s.run({x: np.ones(2, np.float32)})
    assert not s.is_attached
    assert hooks.in_sync(s)
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S07_enters_nest():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with s:
        with s:
            s.run({x: np.ones(2, np.float32)})
        # The inner exit leaves the device attached and fetches nothing.
        assert s.is_attached
        assert not hooks.in_sync(s)
    assert not s.is_attached
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S07_exit_with_an_error_does_not_fetch():
    ir, x, y, w = acc_ir()
    s = session(ir)
    with pytest.raises(KeyError):
        with s:
            s.run({x: np.ones(2, np.float32)})
            raise KeyError("in flight")
    assert not s.is_attached
    assert not hooks.in_sync(s)
    np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])


def test_S08_is_attached_follows_the_context():
    ir, *_ = acc_ir()
    s = session(ir)
    assert not s.is_attached
    with s as entered:
        assert entered is s
        assert s.is_attached and s.device.is_attached
    assert not s.is_attached


def test_S08_runtime_calls_need_attachment():
    ir, x, y, w = acc_ir()
    s = session(ir)
    calls = (lambda: s.run({x: np.ones(2, np.float32)}),
             lambda: s.run_with_outputs({x: np.ones(2, np.float32)},
                                        s.create_host_outputs()),
             s.weights_to_host, s.weights_from_host)
    for call in calls:
        with pytest.raises(ipu.NotAttachedError, match="attach") as e:
            call()
        # PopXL raises ValueError here: code written for it still works.
        assert isinstance(e.value, ValueError)
