# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The C libraries' test hooks (include/ipu/testing.h), for the tests only:
not part of the package. They observe what an application cannot (whether
the host copies are in sync, submissions per run) and drive the model's
fault injection."""
import ctypes

from ipu import _lib


class _Hooks:
    def __init__(self):
        d, s = _lib.dev, _lib.session
        self.set_sysfs_root = self._f(d, "__ipu_set_sysfs_root", ctypes.c_int,
                                      ctypes.c_char_p)
        self.set_dev_root = self._f(d, "__ipu_set_dev_root", ctypes.c_int,
                                    ctypes.c_char_p)
        self._faults = self._f(d, "__ipu_model_faults_set", ctypes.c_int,
                               ctypes.c_char_p)
        self._in_sync = self._f(s, "__ipu_session_in_sync", ctypes.c_bool,
                                ctypes.c_void_p)
        self._subs = self._f(s, "__ipu_session_submissions", ctypes.c_uint64,
                             ctypes.c_void_p)
        self._wait = self._f(s, "__ipu_session_set_wait_timeout",
                             ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32)

    @staticmethod
    def _f(lib, name, res, *args):
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = list(args)
        return f

    def faults_set(self, spec):
        """Model fault injection, as IPU_MODEL_FAULTS ("dma:1", ...)."""
        assert self._faults(None if spec is None else spec.encode()) == 0

    def in_sync(self, session):
        """Whether the session's host copies hold the device's values."""
        return bool(self._in_sync(session._s))

    def submissions(self, session):
        """Batches the session submitted to its queue (S26)."""
        return int(self._subs(session._s))

    def set_wait_timeout(self, session, ms):
        """Bound the session's waits to @ms (0: the default); the bound
        it had."""
        return int(self._wait(session._s, ms))


hooks = _Hooks()
