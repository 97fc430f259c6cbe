# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Ctrl-C during a libsession call that waits for the device.

Python runs its SIGINT handler (KeyboardInterrupt) only between bytecodes,
so not while the main thread waits inside a C call: a run would go on
until the device is done. While such a call is in progress, this module
makes SIGINT cancel it (libsession's ipu_session_cancel()), so that the
call returns at once and Python raises KeyboardInterrupt.

How: Python's own C-level handler writes the signal's number to the
"wakeup fd" (signal.set_wakeup_fd()); that fd is a pipe a thread of this
module reads, and on a SIGINT byte while a call is armed it cancels the
session the call is on (a SIGINT between calls cancels nothing). The bytes
are passed on to the wakeup fd set before (an asyncio loop's, say).
Nothing else changes: Python's handler still runs and raises
KeyboardInterrupt.

The pipe is made the wakeup fd at the first armed call and stays so while
a session that made one is attached (setting the wakeup fd costs two
system calls, most of the binding's cost of a small run had it been done
per call); the wakeup fd is put back once none is (Session's detach and
close release it). Meanwhile signal.set_wakeup_fd() is wrapped: a wakeup
fd set then (an asyncio loop made inside a session's context) becomes the
one the bytes are passed on to, and is the wakeup fd again afterwards, as
if set directly.

Only calls from the main thread (the one Python runs signal handlers in),
and only while SIGINT has Python's default handler
(signal.default_int_handler): a program that installed its own handler
keeps it running once the call returns, as before.
"""
import ctypes
import os
import select
import signal
import threading
import time

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

# Python's own, the wrapper installed in its place calls.
_set_wakeup_fd = signal.set_wakeup_fd

_SIGINT = bytes([signal.SIGINT])
# arm()'s, once per call: a plain int (the enum converts on every call).
_SIGINT_NUM = int(signal.SIGINT)
_default_int_handler = signal.default_int_handler
_get_ident = threading.get_ident
# How often a SIGINT's cancel is made again while its call is armed.
_RECANCEL_S = 0.05


def _key(s):
    """Session pointer @s (an int or a c_void_p) as a set's key."""
    return s.value if isinstance(s, ctypes.c_void_p) else s


class _Canceller:
    def __init__(self):
        # @_lock orders the reader's cancel against arm() and disarm():
        # once the call is disarmed, no cancel of it is made afterwards
        # (it would fail the session's next call); and the pipe is read
        # under it only, so arm() sees every byte not yet acted upon.
        self._lock = threading.Lock()
        self._armed = None
        self._arms = 0          # calls armed so far: which call is armed
        self._cancelled = False
        self._chain = -1
        self._rfd = self._wfd = -1
        self._poll = None
        self._main = threading.main_thread().ident
        self._held = False      # the pipe is the wakeup fd
        self._holders = set()   # sessions (pointers) that armed a call

    def _start(self):
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._rfd, False)
        os.set_blocking(self._wfd, False)
        self._poll = _poller(self._rfd)
        threading.Thread(target=self._read, name="ipu-sigint",
                         daemon=True).start()

    def _take(self):
        """The bytes in the pipe (b"" if none), passed on to the chained
        wakeup fd. Under @_lock."""
        try:
            data = os.read(self._rfd, 256)
        except BlockingIOError:
            return b""
        if self._chain >= 0:
            try:
                os.write(self._chain, data)
            except OSError:
                pass
        return data

    def _read(self):
        # Waits for bytes without taking them: they are taken under the
        # lock, where arm() may have taken them first.
        poll = _poller(self._rfd)
        while True:
            poll.poll()
            with self._lock:
                data = self._take()
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
            while s:
                time.sleep(_RECANCEL_S)
                if not self._repeat_cancel(s, arms):
                    break

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
        # (closing the pipe only the parent's reader reads), and the
        # wakeup fd as it was before the parent's sessions. Not through
        # _uninstall(): the reader may have held the lock at the fork,
        # which no thread of the child would ever release.
        if self._held:
            if signal.set_wakeup_fd == self._set_wakeup_fd:
                signal.set_wakeup_fd = _set_wakeup_fd
            try:
                _set_wakeup_fd(self._chain)
            except (OSError, ValueError):
                pass
        for fd in (self._rfd, self._wfd):
            if fd >= 0:
                os.close(fd)
        self.__init__()

    def _install(self):
        """Make the pipe the wakeup fd (main thread), the one before
        chained; wrap signal.set_wakeup_fd meanwhile."""
        if self._rfd < 0:
            self._start()
        with self._lock:
            self._chain = _set_wakeup_fd(self._wfd)
        self._held = True
        signal.set_wakeup_fd = self._set_wakeup_fd

    def _set_wakeup_fd(self, fd, *, warn_on_full_buffer=True):
        """signal.set_wakeup_fd while the pipe is the wakeup fd: @fd is
        checked as Python's own checks it (same errors), then chained;
        returns the wakeup fd chained before, as if it had been set."""
        if not self._held or threading.get_ident() != self._main:
            return _set_wakeup_fd(fd, warn_on_full_buffer=warn_on_full_buffer)
        _set_wakeup_fd(fd, warn_on_full_buffer=warn_on_full_buffer)
        with self._lock:
            _set_wakeup_fd(self._wfd)
            self._take()        # bytes of the fd chained so far, to it
            old, self._chain = self._chain, fd
        return old

    def _uninstall(self):
        """The wakeup fd as it was (or as set meanwhile)."""
        self._held = False
        if signal.set_wakeup_fd == self._set_wakeup_fd:
            signal.set_wakeup_fd = _set_wakeup_fd
        with self._lock:
            try:
                prev = _set_wakeup_fd(self._chain)
            except (OSError, ValueError):
                # Closed meanwhile by its owner, who never unset it.
                prev = _set_wakeup_fd(-1)
            if prev != self._wfd:
                # Set by a caller that bypassed the wrapper: theirs stays.
                _set_wakeup_fd(prev)
            self._take()
            self._chain = -1

    def arm(self, s):
        """Make SIGINT cancel session @s's call about to be made; returns
        whether it did (see the module's doc)."""
        # Once per call: the names are bound ahead (_get_ident,
        # _SIGINT_NUM, _default_int_handler), and the lock taken without
        # a with block, which costs as much again as the lock.
        if _get_ident() != self._main or \
                _getsignal(_SIGINT_NUM) is not _default_int_handler:
            return False
        if not self._held:
            self._install()
        key = s.value if isinstance(s, ctypes.c_void_p) else s  # _key()
        if key not in self._holders:
            self._holders.add(key)
        lock = self._lock
        lock.acquire()
        try:
            if self._poll.poll(0):
                # Signals that came before this call (their handler ran:
                # a KeyboardInterrupt caught, and a call made again before
                # the reader took them): passed on, cancelling nothing.
                self._take()
            self._armed = s
            self._arms += 1
        finally:
            lock.release()
        return True

    def disarm(self, s, attached=True):
        """After the call on @s: no cancel left pending for the session's
        next call; the wakeup fd as it was if no session is left attached
        (@attached: whether @s still is)."""
        lock = self._lock
        lock.acquire()
        self._armed = None
        cancelled = self._cancelled
        self._cancelled = False
        lock.release()
        if cancelled:
            _cancel_clear(s)
        if not attached:
            self.release(s)

    def release(self, s):
        """Session @s is detached or gone: once no session that armed a
        call is left, the wakeup fd the pipe replaced is put back."""
        self._holders.discard(_key(s))
        if self._held and not self._holders and \
                threading.get_ident() == self._main:
            self._uninstall()


def _poller(fd):
    p = select.poll()
    p.register(fd, select.POLLIN)
    return p


canceller = _Canceller()
os.register_at_fork(after_in_child=canceller._after_fork)
