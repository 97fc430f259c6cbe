# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Ctrl-C during a libsession call that waits for the device.

Python runs its SIGINT handler (KeyboardInterrupt) only between bytecodes,
so not while the main thread waits inside a C call: a run would go on
until the device is done. While such a call is in progress, this module
makes SIGINT cancel it (libsession's ipu_session_cancel()), so that the
call returns at once and Python raises KeyboardInterrupt.

How: Python's own C-level handler writes the signal's number to the
"wakeup fd" (signal.set_wakeup_fd()); during the call that fd is a pipe a
thread of this module reads, and on a SIGINT byte it cancels the session
the call is on. The bytes are passed on to the wakeup fd set before (an
asyncio loop's, say), which is put back after the call. Nothing else
changes: Python's handler still runs and raises KeyboardInterrupt.

Only calls from the main thread (the one Python runs signal handlers in),
and only while SIGINT has Python's default handler
(signal.default_int_handler): a program that installed its own handler
keeps it running once the call returns, as before.
"""
import ctypes
import os
import signal
import threading

from . import _lib

try:
    # signal.getsignal() wraps the C module's answer in an enum lookup
    # that costs more than the rest of arming: the C module's own.
    from _signal import getsignal as _getsignal
except ImportError:  # not CPython
    _getsignal = signal.getsignal

_cancel = _lib.session.ipu_session_cancel
_cancel.restype = None
_cancel.argtypes = [ctypes.c_void_p]
_cancel_clear = _lib.session.ipu_session_cancel_clear
_cancel_clear.restype = ctypes.c_bool
_cancel_clear.argtypes = [ctypes.c_void_p]

_SIGINT = bytes([signal.SIGINT])
# How often a SIGINT's cancel is made again while its call is armed.
_RECANCEL_S = 0.05


class _Canceller:
    def __init__(self):
        # @_lock orders the reader's cancel against disarm(): once the
        # call is disarmed, no cancel of it is made afterwards (it would
        # fail the session's next call).
        self._lock = threading.Lock()
        self._armed = None
        self._arms = 0          # calls armed so far: which call is armed
        self._cancelled = False
        self._chain = -1
        self._rfd = self._wfd = -1
        self._disarmed = threading.Event()
        self._main = threading.main_thread().ident

    def _start(self):
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._wfd, False)
        threading.Thread(target=self._read, name="ipu-sigint",
                         daemon=True).start()

    def _read(self):
        while True:
            data = os.read(self._rfd, 256)
            with self._lock:
                if self._chain >= 0:
                    try:
                        os.write(self._chain, data)
                    except OSError:
                        pass
                s = self._armed if _SIGINT in data else None
                arms = self._arms
                if s:
                    _cancel(s)
                    self._cancelled = True
            # A cancel ends only the call in progress (docs/session.md
            # S27): one that came between arm() and libsession's start of
            # the call names the call before and is dropped. So it is made
            # again every _RECANCEL_S until the call is disarmed (bytes
            # for the chained wakeup fd that come meanwhile wait for that:
            # the call ends within a fraction of a second).
            while s and not self._disarmed.wait(_RECANCEL_S) and \
                    self._repeat_cancel(s, arms):
                pass

    def _repeat_cancel(self, s, arms):
        """Cancel @s's call again if the call armed as number @arms is
        still the armed one; whether it was (a call disarmed and the next
        armed on the same session is another call, never to cancel)."""
        with self._lock:
            if self._armed is not s or self._arms != arms:
                return False
            _cancel(s)
            return True

    def _after_fork(self):
        # The reader thread is not in the child: make another if needed
        # (closing the pipe only the parent's reader reads).
        for fd in (self._rfd, self._wfd):
            if fd >= 0:
                os.close(fd)
        self.__init__()

    def arm(self, s):
        """Make SIGINT cancel session @s's call about to be made; returns
        whether it did (see the module's doc)."""
        if threading.get_ident() != self._main or \
                _getsignal(signal.SIGINT) is not signal.default_int_handler:
            return False
        if self._rfd < 0:
            self._start()
        with self._lock:
            self._armed = s
            self._arms += 1
            self._disarmed.clear()
            self._chain = signal.set_wakeup_fd(self._wfd)
        return True

    def disarm(self, s):
        """After the call on @s: the wakeup fd as it was, and no cancel
        left pending for the session's next call."""
        with self._lock:
            signal.set_wakeup_fd(self._chain)
            self._chain = -1
            self._armed = None
            self._disarmed.set()
            cancelled, self._cancelled = self._cancelled, False
        if cancelled:
            _cancel_clear(s)


canceller = _Canceller()
os.register_at_fork(after_in_child=canceller._after_fork)
