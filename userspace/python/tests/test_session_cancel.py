# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Ctrl-C during Session.run (issue 27.6): SIGINT ends the run at once
with KeyboardInterrupt, as it would any Python code, instead of once the
device is done; the session stays usable (libsession's
ipu_session_cancel(): the device was reset, the host copies are out of
sync).

The runs interrupted here would never end by themselves: their launch
hangs (the model's fault "hang"). The session's wait bound (SAFETY_MS)
only turns a broken cancel into a DeviceTimeoutError instead of a hang.
SIGINT is sent once the run surely waits: libsession's test hook
__ipu_session_on_wait tells a helper thread, which sends it."""
import contextlib
import ctypes
import os
import signal
import threading
import time

import numpy as np
import pytest

from conftest import acc_ir, session
from hooks import hooks

import ipu
from ipu import _lib

SAFETY_MS = 30000

_WAIT_HOOK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_on_wait = _lib.session.__ipu_session_on_wait
_on_wait.restype = None
_on_wait.argtypes = [ctypes.c_void_p, _WAIT_HOOK, ctypes.c_void_p]


class _SigintWhenWaiting:
    """SIGINT to this process once the session's next call waits for the
    device. The hook runs in the calling thread; the signal comes from
    another, so that Python handles it while the call waits in C."""

    def __init__(self, s):
        self._s = s
        self._waiting = threading.Event()
        self._hook = _WAIT_HOOK(lambda arg: self._waiting.set())
        self._thread = threading.Thread(target=self._send, daemon=True)

    def _send(self):
        if self._waiting.wait(SAFETY_MS / 1000):
            os.kill(os.getpid(), signal.SIGINT)

    def __enter__(self):
        _on_wait(self._s._s, self._hook, None)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        _on_wait(self._s._s, _WAIT_HOOK(), None)
        self._thread.join()
        return False


def test_sigint_interrupts_a_hung_run_with_keyboard_interrupt():
    ir, x, y, w = acc_ir()
    with session(ir, wait_timeout_ms=SAFETY_MS) as s:
        out = np.full(2, -1, np.float32)
        hooks.faults_set("hang:1")
        t0 = time.monotonic()
        with _SigintWhenWaiting(s):
            with pytest.raises(KeyboardInterrupt):
                s.run_with_outputs({x: np.full(2, 7, np.float32)}, {y: out})
        hooks.faults_set(None)
        # A safety bound, not a measure: it took far less than the wait.
        assert time.monotonic() - t0 < SAFETY_MS / 1000 / 2
        # The output never came; the session is usable, nothing pending.
        np.testing.assert_array_equal(out, [-1, -1])
        assert s.is_attached and not hooks.in_sync(s)
        np.testing.assert_array_equal(
            s.run({x: np.ones(2, np.float32)})[y], [2, 3])
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_sigint_interrupts_session_run_and_leaves_the_context():
    ir, x, y, w = acc_ir()
    s = session(ir, wait_timeout_ms=SAFETY_MS)
    hooks.faults_set("hang:1")
    with pytest.raises(KeyboardInterrupt):
        with s, _SigintWhenWaiting(s):
            s.run({x: np.full(2, 7, np.float32)})
    hooks.faults_set(None)
    # Leaving with the exception gave the IPUs up without a fetch.
    assert not s.is_attached
    with s:
        np.testing.assert_array_equal(
            s.run({x: np.ones(2, np.float32)})[y], [2, 3])


@contextlib.contextmanager
def _wakeup_pipe(set_it=True):
    """A pipe (r, w) whose w is made the wakeup fd if @set_it; the wakeup
    fd as it was, and the pipe closed (if still open), after."""
    r, wfd = os.pipe()
    os.set_blocking(wfd, False)
    old = signal.set_wakeup_fd(wfd) if set_it else None
    try:
        yield r, wfd
    finally:
        if old is not None:
            signal.set_wakeup_fd(old)
        for fd in (r, wfd):
            try:
                os.close(fd)
            except OSError:
                pass


def test_runs_leave_signal_handling_as_they_found_it():
    ir, x, y, w = acc_ir()
    with _wakeup_pipe() as (r, wfd):
        with session(ir) as s:
            s.run({x: np.ones(2, np.float32)})
        assert signal.set_wakeup_fd(wfd) == wfd
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_sigint_just_before_the_call_begins_still_cancels_it(monkeypatch):
    # The window between arming and libsession's start of the call: a
    # cancel made there names the previous call, which libsession drops
    # (a cancel ends only the call in progress, docs/session.md S27). The
    # signal's byte is written the way Python's C handler writes it, and
    # the call made once the reader has cancelled.
    from ipu._sigint import canceller
    ir, x, y, w = acc_ir()
    real = _lib.ipu_session_run_with_outputs

    def late_call(*args):
        os.write(canceller._wfd, bytes([signal.SIGINT]))
        deadline = time.monotonic() + SAFETY_MS / 1000
        while not canceller._cancelled and time.monotonic() < deadline:
            time.sleep(0.001)
        return real(*args)

    with session(ir, wait_timeout_ms=SAFETY_MS) as s:
        hooks.faults_set("hang:1")
        monkeypatch.setattr(_lib, "ipu_session_run_with_outputs", late_call)
        try:
            with pytest.raises(KeyboardInterrupt):
                s.run({x: np.full(2, 7, np.float32)})
        finally:
            monkeypatch.setattr(_lib, "ipu_session_run_with_outputs", real)
            hooks.faults_set(None)
        np.testing.assert_array_equal(
            s.run({x: np.ones(2, np.float32)})[y], [2, 3])


def test_a_repeated_cancel_never_reaches_the_next_call(monkeypatch):
    # The reader repeats a SIGINT's cancel while its call is armed. A call
    # disarmed and another armed on the same session (a context's exit
    # fetching weights after Ctrl-C) before the reader's next repeat is a
    # new call: the repeat must not cancel it (libsession would, as the
    # new call is the one in progress).
    from ipu import _sigint
    from ipu._sigint import canceller
    made = []
    monkeypatch.setattr(_sigint, "_cancel", lambda s: made.append(s))
    s = ctypes.c_void_p(1234)  # never passed to libsession here
    assert canceller.arm(s)
    try:
        first = canceller._arms
        assert canceller._repeat_cancel(s, first)
        canceller.disarm(s)
        assert canceller.arm(s)
        assert not canceller._repeat_cancel(s, first)
        assert made == [s]
    finally:
        canceller.disarm(s, attached=False)


def test_runs_set_the_wakeup_fd_once_per_session(monkeypatch):
    # Setting it costs system calls, most of the binding's cost of a
    # small run when made per call (issue 29): once when the session's
    # first call is armed, once when the session is left.
    from ipu import _sigint
    real = _sigint._set_wakeup_fd
    calls = []

    def counted(fd, **kw):
        calls.append(fd)
        return real(fd, **kw)
    monkeypatch.setattr(_sigint, "_set_wakeup_fd", counted)
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        for _ in range(20):
            s.run({x: np.ones(2, np.float32)})
        assert len(calls) == 1
    assert len(calls) == 2
    assert calls[1] == -1 or calls[1] != calls[0]


def test_a_wakeup_fd_set_during_a_session_is_chained_and_kept():
    # An asyncio loop made inside a session's context sets its wakeup fd:
    # it gets the signal bytes, Ctrl-C still cancels a run, and it is the
    # wakeup fd once the session is left.
    ir, x, y, w = acc_ir()
    with _wakeup_pipe(set_it=False) as (r, wfd):
        with session(ir, wait_timeout_ms=SAFETY_MS) as s:
            s.run({x: np.ones(2, np.float32)})
            old = signal.set_wakeup_fd(wfd)
            hooks.faults_set("hang:1")
            with _SigintWhenWaiting(s):
                with pytest.raises(KeyboardInterrupt):
                    s.run({x: np.ones(2, np.float32)})
            hooks.faults_set(None)
            assert os.read(r, 1) == bytes([signal.SIGINT])
        assert signal.set_wakeup_fd(old) == wfd


def test_a_sigint_between_calls_cancels_no_later_call(monkeypatch):
    # Its byte may still be in the pipe when the next call is armed (the
    # KeyboardInterrupt caught, a run made at once): it names no call.
    from ipu import _sigint
    from ipu._sigint import canceller
    made = []
    monkeypatch.setattr(_sigint, "_cancel", lambda s: made.append(s))
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        os.write(canceller._wfd, bytes([signal.SIGINT]))
        for _ in range(3):
            s.run({x: np.ones(2, np.float32)})
        deadline = time.monotonic() + SAFETY_MS / 1000
        while canceller._poll.poll(0) and time.monotonic() < deadline:
            time.sleep(0.001)
        with canceller._lock:   # the reader is done with the byte
            pass
        assert made == []


def test_a_child_forked_in_a_session_has_the_wakeup_fd_before_it():
    # The pipe and its reader are the parent's: the child gets the wakeup
    # fd as it was before the session, and Python's own set_wakeup_fd.
    from ipu import _sigint
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
        assert signal.set_wakeup_fd is not _sigint._set_wakeup_fd
        pid = os.fork()
        if pid == 0:
            ok = signal.set_wakeup_fd is _sigint._set_wakeup_fd and \
                signal.set_wakeup_fd(-1) == -1
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        s.run({x: np.ones(2, np.float32)})


def test_a_chained_wakeup_fd_closed_during_a_session_is_dropped():
    # Its owner closed it without unsetting it: leaving the session must
    # not fail on it; no wakeup fd is left set.
    ir, x, y, w = acc_ir()
    with _wakeup_pipe() as (r, wfd):
        with session(ir) as s:
            s.run({x: np.ones(2, np.float32)})
            os.close(r)
            os.close(wfd)
        assert signal.set_wakeup_fd(-1) == -1
