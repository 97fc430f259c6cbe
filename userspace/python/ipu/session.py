# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``Session`` over libsession (include/ipu/session.h): run a
program built in an :class:`ipu.Ir` on IPUs (or the software model), with
NumPy arrays in and out, behaviour for behaviour (docs/session.md,
S01-S26).
"""
import ctypes
import errno
import os
import weakref

import numpy as np

from . import _lib, dtypes
from ._sigint import canceller
from .errors import (DTypeError, LayoutError, SessionClosedError,
                     ShapeError, StreamError, TensorTypeError, check)
from .ir import Ir
from .streams import DeviceToHostStream, HostToDeviceStream, _Stream
from .tensor import Constant, Variable, host_array


class DeviceInfo:
    """What a Session runs on (PopXL's ``session.device``).

    Attributes:
        type (str): "ipu_hw", "ipu_model" or "cpu" (what "auto" resolved
            to).
        num_ipus (int): IPUs the program needs (S03).
        is_attached (bool): whether the session holds them.
    """

    def __init__(self, session):
        self._session = session
        self.type = _lib.pystr(_lib.ipu_session_device_name(session._s))
        self.num_ipus = int(_lib.ipu_session_num_ipus(session._s))

    @property
    def is_attached(self):
        return self._session.is_attached

    def __repr__(self):
        return "DeviceInfo(type=%r, num_ipus=%d)" % (self.type, self.num_ipus)

    def __str__(self):
        return self.type


def _address(arr):
    """The address of @arr's first byte: through ctypes' view of its buffer,
    at half the cost of arr.ctypes.data, which only read-only and empty
    arrays (no writable byte to view) need."""
    try:
        return ctypes.addressof(_c_char_from_buffer(arr))
    except (TypeError, ValueError, BufferError):
        return arr.ctypes.data


_c_char_from_buffer = ctypes.c_char.from_buffer


class _StreamInfo:
    """A stream of the session: its Python object, dtype and host shape."""

    __slots__ = ("stream", "name", "cname", "dtype", "code", "np_dtype",
                 "host_shape")

    def __init__(self, stream, desc):
        self.stream = stream
        self.name = _lib.pystr(desc.name)
        # The name as bytes, made once for every run's buffers.
        self.cname = desc.name
        self.dtype = dtypes.from_code(desc.dtype)
        self.code = self.dtype._code
        self.np_dtype = self.dtype.as_numpy()
        self.host_shape = tuple(int(desc.host_shape[i])
                                for i in range(desc.host_ndim))


def _fill_buffer(buf, arr, code):
    """Point C host buffer @buf at NumPy array @arr (no copy)."""
    buf.data = arr.ctypes.data
    buf.dtype = code
    buf.ndim = arr.ndim
    for i, d in enumerate(arr.shape):
        buf.shape[i] = d


class Session:
    """A runtime session that executes an :class:`ipu.Ir` (PopXL's
    ``popxl.Session``).

    .. warning:: The session takes ownership of the Ir, which cannot be
       modified afterwards (S01), even when construction fails.

    One thread at a time may use a session (libsession's rule); sessions
    are independent of one another.

    Ctrl-C (SIGINT) during a call that waits for the device (a run,
    weights to or from the host, entering or leaving the context) ends it
    at once with ``KeyboardInterrupt`` (when made from the main thread and
    SIGINT has Python's default handler): the session resets the device,
    as after a timeout, and stays usable; outputs of an interrupted run
    are partly written or not at all, and the host copies of the variables
    count as out of sync.

    Use it as a context manager: ``with session:`` attaches to the device
    and writes the host's weights to it; leaving the context copies the
    weights back to the host (unless ``weights_to_host_on_exit`` is off,
    or an exception is leaving it) and detaches. Contexts nest: only the
    outermost attaches and detaches (S06, S07).

    Example::

        with ipu.Session(ir, "ipu_model") as session:
            outputs = session.run({x_h2d: np.ones((4,), np.float32)})
        print(outputs[y_d2h], session.get_tensor_data(w))

    Args:
        ir (ipu.Ir): the program.
        device_desc (str): "ipu_hw" (real IPUs through the kernel driver),
            "ipu_model" (the software model, any number of IPUs), "cpu"
            (the software model, one IPU, no replication) or "auto" (the
            default: hardware when an IPU can be attached, else the
            model). The environment variable IPU_OFFLINE_DEVICE overrides
            it (S04): the IPUs are then acquired on entering the context.
        weights_to_host_on_exit (bool): copy the weights to the host when
            leaving the context (default True). Off when the Ir holds a
            read-only memory-mapped variable (S05).
        data_dir (str, optional): the directory memory-mapped variables'
            files are opened in (S22); without it a program with such a
            variable is refused.
        attach_timeout_ms (int, optional): how long attaching waits for
            busy hardware (default 60000).
        wait_timeout_ms (int, optional): the longest a call waits for the
            device before resetting it (default: the launch deadline plus
            a margin).
        trace (str or os.PathLike, optional): write a timeline of the
            session to this file, as Chrome trace-event JSON (Perfetto,
            chrome://tracing, ``ipu-trace``; docs/trace.md), when the
            context is left and when the session is closed; default: the
            file the environment variable IPU_TRACE names, else none. An
            existing regular file is replaced; a symbolic link or anything
            else is refused (``ipu.Error``). Not a PopXL argument.

    Raises:
        ipu.Error: libsession's message: an unknown device (listing the
            valid ones) or "cpu" with replication (``ipu.DeviceDescError``,
            a ValueError as PopXL's), a program with no graph content, too
            few IPUs (``ipu.NoDeviceError``, a RuntimeError), ...
    """

    def __init__(self, ir, device_desc="auto", weights_to_host_on_exit=True,
                 data_dir=None, attach_timeout_ms=None, wait_timeout_ms=None,
                 trace=None):
        self._s = None
        if not isinstance(ir, Ir):
            raise TypeError("Session: %r is not an ipu.Ir" % (ir,))
        if not isinstance(device_desc, str):
            raise TypeError("Session: device_desc must be a str, not %r" %
                            (device_desc,))
        ir._freeze()
        self.ir_ = ir
        opts = _lib.SessionOpts(sz=ctypes.sizeof(_lib.SessionOpts))
        opts.device = _lib.cstr(device_desc)
        # weights_to_host_on_exit is PopXL's settable attribute, so the
        # exit decides (IPU_DETACH_ERROR skips the fetch), not a flag fixed
        # at creation; libsession still turns it off for read-only
        # memory-mapped variables (S05).
        opts.attach_timeout_ms = int(attach_timeout_ms or 0)
        opts.wait_timeout_ms = int(wait_timeout_ms or 0)
        opts.data_dir = _lib.cstr(None if data_dir is None else str(data_dir))
        opts.trace = None if trace is None else os.fsencode(trace)
        p = ctypes.c_void_p()
        # libsession takes the ir whatever the outcome (S01).
        err = _lib.ipu_session_create(ir._give_to(self), ctypes.byref(opts),
                                      ctypes.byref(p))
        check(err, lambda: _lib.pystr(_lib.ipu_session_errmsg(None)))
        self._s = p.value
        self._weights_to_host_on_exit = bool(weights_to_host_on_exit) and \
            not ir._has_read_only_memmap
        by_name = {s.name: s for s in ir._streams}
        self._inputs = self._streams(_lib.ipu_session_expected_inputs,
                                     by_name)
        self._outputs = self._streams(_lib.ipu_session_expected_outputs,
                                      by_name)
        self._in_by_name = {i.name: i for i in self._inputs}
        self._out_by_name = {i.name: i for i in self._outputs}
        # run()'s outputs: the streams are the Ir's, frozen for good.
        self._out_specs = tuple((o.stream or o.name, o.host_shape,
                                 o.np_dtype) for o in self._outputs)
        self._by_stream = ({i.stream: i for i in self._inputs if i.stream},
                           {o.stream: o for o in self._outputs if o.stream})
        self._cbufs = [None, None]
        self._device = DeviceInfo(self)

    def _streams(self, fn, by_name):
        n = ctypes.c_size_t()
        descs = fn(self._s, ctypes.byref(n))
        return [_StreamInfo(by_name.get(_lib.pystr(descs[i].name)), descs[i])
                for i in range(n.value)]

    def __del__(self):
        # At interpreter exit the library handles may already be gone;
        # the process ending releases the IPUs then anyway.
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    def close(self):
        """Release the session: detach if still attached (without copying
        the weights to the host) and free it. Further calls raise
        :class:`ipu.SessionClosedError`. Idempotent."""
        s = getattr(self, "_s", None)
        if s:
            self._s = None
            _lib.ipu_session_destroy(s)
            canceller.release(s)

    def _c(self):
        if not self._s:
            raise SessionClosedError("the session is closed")
        return self._s

    def _check(self, err):
        if err < 0:
            check(err, lambda: _lib.pystr(_lib.ipu_session_errmsg(self._s)))

    @staticmethod
    def _wait(fn, s, *args):
        """@fn(@s, *@args), a libsession call that may wait for the
        device, which SIGINT cancels (ipu._sigint); its return value.

        Raises:
            KeyboardInterrupt: SIGINT cancelled the call (Python's handler
                raises it itself as soon as the call returns; this is for
                a SIGINT its handler ran for before the call waited).
        """
        armed = canceller.arm(s)
        err = -errno.EINTR
        try:
            err = fn(s, *args)
        finally:
            if armed:
                # A run that succeeded was attached and still is (the
                # common case, saved a call); otherwise ask.
                canceller.disarm(s, (fn is _lib.ipu_session_run_with_outputs
                                     and err >= 0) or
                                 bool(_lib.ipu_session_is_attached(s)))
        if armed and err == -errno.ECANCELED:
            raise KeyboardInterrupt
        return err

    # -- the context manager (S06-S08) --------------------------------------

    def __enter__(self):
        """Enter the session's context: if not attached, attach to the
        device (waiting for busy IPUs up to the attach timeout) and copy
        the host's weights to it. A failure leaves it detached.

        Raises:
            ipu.DeviceBusyError: the IPUs stayed held by others.
        """
        self._check(self._wait(_lib.ipu_session_attach, self._c()))
        return self

    def __exit__(self, exc_type, exc_value, exc_tb):
        """Exit the context: the exit matching the enter that attached
        copies the weights to the host (unless an exception is leaving the
        context or weights_to_host_on_exit is off), then detaches. Should
        that copy fail, the session stays attached and the error is raised
        (the device alone holds the weights)."""
        if not self._s:
            return False
        flags = 0
        if exc_type is not None or not self._weights_to_host_on_exit:
            flags = _lib.IPU_DETACH_ERROR
        err = self._wait(_lib.ipu_session_detach, self._s, flags)
        if exc_type is None:
            self._check(err)
        return False

    @property
    def is_attached(self):
        """Whether the session is attached to its device (S08)."""
        return bool(_lib.ipu_session_is_attached(self._c()))

    @property
    def weights_to_host_on_exit(self):
        """Whether leaving the context copies the weights to the host (S05);
        settable, but stays off for a read-only memory-mapped variable."""
        return self._weights_to_host_on_exit

    @weights_to_host_on_exit.setter
    def weights_to_host_on_exit(self, on):
        self._weights_to_host_on_exit = bool(on) and \
            not self.ir_._has_read_only_memmap

    @property
    def device(self):
        """The device the session runs on (:class:`DeviceInfo`)."""
        self._c()
        return self._device

    @property
    def ir(self):
        """The session's Ir. Read only."""
        return self.ir_

    # -- running (S09-S16) ---------------------------------------------------

    def _key(self, key, cls, what):
        """The stream name for dict key @key (a stream or its name)."""
        if isinstance(key, _Stream):
            if key._ir is not self.ir_:
                raise StreamError("%s stream '%s' belongs to another Ir" %
                                  (what, key.name))
            if not isinstance(key, cls):
                raise StreamError("%r is not an %s stream" % (key, what))
            return key.name
        if isinstance(key, str):
            return key
        raise StreamError("%s streams are keyed by stream or name, not %r" %
                          (what, key))

    def run_with_outputs(self, inputs=None, outputs=None,
                         downcast_inputs=True):
        """Run the program once, filling caller-owned output arrays in
        place (S09).

        Every host-to-device stream needs an array in @inputs and every
        device-to-host stream one in @outputs, exactly (S10), of shape
        ``(num_host_transfers, replication_factor) + stream.shape``, each
        leading dimension only when > 1 (S11).

        Inputs that are C-contiguous, aligned arrays of the stream's dtype
        (or of float64/int64, downcast by libsession) are passed by
        pointer, without a copy; others are converted once. FP8 streams
        take uint8 arrays of codes, bfloat16 streams uint16 ones. Outputs
        must be writable, aligned, C-contiguous arrays of the stream's
        dtype: they are filled where they are.

        Afterwards the host copies of variables are out of sync with the
        device (S13): get_tensor_data fetches them.

        Args:
            inputs (dict): stream (or name) -> array (or number).
            outputs (dict): stream (or name) -> array, filled in place.
            downcast_inputs (bool): accept float64/int64 inputs, converted
                to 32 bits (S12); with False they are refused.

        Raises:
            ipu.NotAttachedError: outside ``with session:``.
            ipu.StreamError: unexpected or missing streams.
            ipu.ShapeError, ipu.DTypeError: an array that does not fit its
                stream (the message names the stream and both shapes or
                dtypes).
            ipu.LayoutError: an output array that cannot be filled in place.
            ipu.DeviceError: the device failed; the session stays usable.
        """
        s = self._s
        if not s:
            raise SessionClosedError("the session is closed")
        inputs = inputs or {}
        outputs = outputs or {}
        nin, nout = len(inputs), len(outputs)
        # What follows is _stream_of(), _code() and _bind() inline for the
        # common case (a stream of this Ir, an array of its dtype, bound
        # as in the last run), each falling back to them otherwise: a
        # small run's time is mostly this binding's.
        cin = self._cbufs[0]
        if cin is None or len(cin[0]) < nin:
            cin = self._buffers(0, nin)
        cout = self._cbufs[1]
        if cout is None or len(cout[0]) < nout:
            cout = self._buffers(1, nout)
        keep = []
        by_stream, last, arrs = self._by_stream[0], cin[1], cin[2]
        for i, (key, data) in enumerate(inputs.items()):
            info = by_stream.get(key)
            info, name = (info, info.name) if info is not None else \
                self._stream_of(key, 0)
            arr = data if type(data) is np.ndarray else \
                self._from_list(data, info, name)
            code = info.code if info is not None and \
                arr.dtype == info.np_dtype else \
                self._code(arr, info, name, "input")
            flags = arr.flags
            if not (flags.c_contiguous and flags.aligned):
                # Converted once, as PopXL does.
                arr = np.require(arr, requirements=("C", "A"))
            # Alive until the call returns, whatever made it.
            keep.append(arr)
            ref = arrs[i]
            if ref is None or ref() is not arr or \
                    last[i] != (code, arr.shape, name):
                self._bind(cin, 0, i, info, name, arr, code)
        by_stream, last, arrs = self._by_stream[1], cout[1], cout[2]
        for i, (key, arr) in enumerate(outputs.items()):
            info = by_stream.get(key)
            info, name = (info, info.name) if info is not None else \
                self._stream_of(key, 1)
            if type(arr) is not np.ndarray and not isinstance(arr,
                                                               np.ndarray):
                raise LayoutError("output stream '%s': %r is not a NumPy "
                                  "array to fill" % (name, type(arr)))
            flags = arr.flags
            if not (flags.c_contiguous and flags.aligned and
                    flags.writeable):
                raise LayoutError(
                    "output stream '%s': the array must be writable, aligned "
                    "and C-contiguous to be filled in place (use "
                    "np.ascontiguousarray or create_host_outputs())" % name)
            code = info.code if info is not None and \
                arr.dtype == info.np_dtype else \
                self._code(arr, info, name, "output")
            ref = arrs[i]
            if ref is None or ref() is not arr or \
                    last[i] != (code, arr.shape, name):
                self._bind(cout, 1, i, info, name, arr, code)
        # _wait(), for a run: one that succeeded is still attached.
        armed = canceller.arm(s)
        err = -errno.EINTR
        try:
            err = _lib.ipu_session_run_with_outputs(
                s, cin[0], nin, cout[0], nout,
                0 if downcast_inputs else _lib.IPU_RUN_NO_DOWNCAST)
        finally:
            if armed:
                canceller.disarm(s, err >= 0 or
                                 bool(_lib.ipu_session_is_attached(s)))
        del keep
        if err:
            if armed and err == -errno.ECANCELED:
                raise KeyboardInterrupt
            self._check(err)

    @staticmethod
    def _from_list(data, info, name):
        """Input @data that is not an array (a list, a number) as one of
        stream @info's dtype, converted as the device converts (the
        array NumPy would make of it is int64 or float64 whatever the
        stream)."""
        arr = np.asarray(data)
        if info is None or arr.dtype == info.np_dtype or \
                dtypes.host_code(arr.dtype) is None:
            return arr  # refused (or passed) by the usual checks
        return host_array(arr, info.dtype, "input stream '%s'" % name)

    @staticmethod
    def _code(arr, info, name, what):
        """The C dtype to tag @arr with for stream @name (@info); the
        stream's own when the array has its NumPy dtype (the fast path).
        libsession checks that it fits; NumPy dtypes with no C equivalent
        are refused here."""
        if info is not None and arr.dtype == info.np_dtype:
            return info.dtype._code
        code = dtypes.host_code(arr.dtype, info and info.dtype)
        if code is None:
            raise DTypeError(
                "%s stream '%s': an array of NumPy dtype %s, which no stream "
                "takes%s" % (what, name, arr.dtype, (
                    "; the stream has dtype %s" % info.dtype.name)
                    if info else ""))
        return code

    def _stream_of(self, key, out):
        """(stream info or None, name) of run dict key @key: a stream of
        this Ir (the fast path) or a stream name."""
        info = self._by_stream[out].get(key)
        if info is not None:
            return info, info.name
        if out:
            name = self._key(key, DeviceToHostStream, "output")
            return self._out_by_name.get(name), name
        name = self._key(key, HostToDeviceStream, "input")
        return self._in_by_name.get(name), name

    def _buffers(self, out, n):
        """The C array of @n stream buffers for inputs (@out 0) or outputs,
        kept from run to run with what each slot was last given and (a
        weak reference to) the array, so that a run with the arrays of the
        last one sets nothing."""
        b = self._cbufs[out]
        if b is None or len(b[0]) < n:
            b = self._cbufs[out] = ((_lib.StreamBuffer * max(n, 1))(),
                                    [None] * max(n, 1), [None] * max(n, 1))
        return b

    @staticmethod
    def _bind(bufs, out, i, info, name, arr, code):
        """Point slot @i of @bufs at @arr for stream @name."""
        cbufs, last, arrs = bufs
        sb = cbufs[i]
        what = (code, arr.shape, name)
        ref = arrs[i]
        if last[i] == what and ref is not None and ref() is arr:
            # The same live array, of the same shape: its address has not
            # moved (only a resize moves it, and that changes the shape).
            # arr.ctypes.data costs more than the rest of a run's binding.
            return
        if last[i] != what:
            if arr.ndim > _lib.IPU_HOST_MAX_DIMS:
                raise ShapeError("%s stream '%s': an array of %d dimensions; "
                                 "at most %d" % ("output" if out else "input",
                                                 name, arr.ndim,
                                                 _lib.IPU_HOST_MAX_DIMS))
            # The name's bytes stay alive with the slot (ctypes keeps
            # them), as libsession reads them during the call.
            sb.stream = info.cname if info else _lib.cstr(name)
            sb.buf.dtype = code
            sb.buf.ndim = arr.ndim
            sb.buf.shape[:arr.ndim] = arr.shape
            last[i] = what
        sb.buf.data = _address(arr)
        arrs[i] = weakref.ref(arr)

    def run(self, inputs=None, downcast_inputs=True):
        """Run :meth:`run_with_outputs` with outputs it creates
        (:meth:`create_host_outputs`) and return them (S14).

        Args:
            inputs (dict): stream (or name) -> array.
            downcast_inputs (bool): as for run_with_outputs.

        Returns:
            dict: DeviceToHostStream -> a new NumPy array that owns its
            memory.

        Raises:
            as run_with_outputs.
        """
        if not self._s:
            raise SessionClosedError("the session is closed")
        # As create_host_outputs(), but not zeroed: the run's transfers
        # write every byte of them (an output's host buffer is its D2H
        # stream's, whole), and when it fails they are not returned.
        empty = np.empty
        outputs = {key: empty(shape, dt)
                   for key, shape, dt in self._out_specs}
        self.run_with_outputs(inputs, outputs, downcast_inputs)
        return outputs

    def create_host_outputs(self):
        """One zeroed array per device-to-host stream (S15), of its dtype
        and of shape ``(d, r) + s.shape`` where d = num_host_transfers and
        r = replication_factor, each only when > 1. For example with 4
        host transfers, 16 replicas and a stream of shape (2, 4):
        (4, 16, 2, 4); with 1 transfer: (16, 2, 4); with 1 replica:
        (4, 2, 4); with both 1: (2, 4).

        Returns:
            dict: DeviceToHostStream -> np.ndarray.
        """
        self._c()
        return {o.stream or o.name: np.zeros(o.host_shape, o.np_dtype)
                for o in self._outputs}

    def expected_inputs(self):
        """The host-to-device streams a run needs an array for (S16).

        Returns:
            list of ipu.HostToDeviceStream
        """
        self._c()
        return [i.stream or i.name for i in self._inputs]

    # -- weights (S17-S22) ---------------------------------------------------

    def weights_from_host(self):
        """Copy every variable's host value to the device (S17).

        Raises:
            ipu.NotAttachedError: outside ``with session:``.
        """
        self._check(self._wait(_lib.ipu_session_weights_from_host,
                               self._c()))

    def weights_to_host(self):
        """Copy the variables from the device to the host, then flush
        writable memory-mapped variables to their files (S18).

        Raises:
            ipu.NotAttachedError: outside ``with session:``.
            ipu.ReadOnlyError: the Ir holds a read-only memory-mapped
                variable.
        """
        self._check(self._wait(_lib.ipu_session_weights_to_host,
                               self._c()))

    def _tensors(self, tensors, kinds, what):
        names = []
        for t in tensors:
            if not isinstance(t, kinds):
                raise TensorTypeError(
                    "%s: %r is not of type %s; %s is not supported for this "
                    "type" % (what, t, " or ".join(k.__name__ for k in kinds),
                              what))
            if t._ir is not self.ir_:
                raise TensorTypeError("%s: %r belongs to another Ir" %
                                      (what, t))
            names.append(t.name)
        return names

    def get_tensor_data(self, tensor):
        """The value of a variable or constant (S19), as a new NumPy array
        of its dtype and host shape (see :meth:`get_tensors_data`).

        Raises:
            ipu.TensorTypeError: @tensor is neither a Variable nor a
                Constant.
        """
        return self.get_tensors_data([tensor])[tensor]

    def get_tensors_data(self, tensors):
        """The values of variables and constants, fetching from the device
        at most once (S19): only when a variable is asked for, the session
        is attached and the host copies are out of sync; otherwise (and
        detached) the host copies. Constants never cause a fetch.

        Host shapes (S20): ``(num_groups,) + shape`` for a variable grouped
        in several groups; for retrieval mode "all_replicas" with groups of
        more than one replica, one value per replica,
        ``(replication_factor,) + shape``.

        Returns:
            dict: tensor -> a new NumPy array that owns its memory (uint8
            codes for FP8).

        Raises:
            ipu.TensorTypeError: a tensor is neither a Variable nor a
                Constant.
            ipu.ReadOnlyError: a fetch with a read-only memory-mapped
                variable in the Ir.
        """
        s = self._c()
        tensors = list(tensors)
        names = self._tensors(tensors, (Variable, Constant),
                              "get_tensor_data")
        n = len(names)
        cnames = (ctypes.c_char_p * max(n, 1))(*[_lib.cstr(x) for x in names])
        bufs = (_lib.HostBuffer * max(n, 1))()
        out = {}
        desc = _lib.TensorDesc()
        for i, t in enumerate(tensors):
            self._check(_lib.ipu_session_tensor_desc(s, cnames[i],
                                                     ctypes.byref(desc)))
            dt = dtypes.from_code(desc.dtype)
            arr = np.empty(tuple(desc.shape[k] for k in range(desc.ndim)),
                           dt.as_numpy())
            _fill_buffer(bufs[i], arr, desc.dtype)
            out[t] = arr
        self._check(self._wait(_lib.ipu_session_get_tensors_data,
                               s, cnames, bufs, n))
        return out

    def write_variable_data(self, tensor, data):
        """Set a variable's value from a host array (S21); see
        :meth:`write_variables_data`."""
        self.write_variables_data({tensor: data})

    def write_variables_data(self, tensors):
        """Set the host values of variables, and if attached send them to
        the device with one weights_from_host for the batch (S21). Every
        array is checked before any is written.

        The array's dtype and host shape must match the variable's exactly
        (uint8 codes for FP8, uint16 codes for bfloat16); a number is
        accepted and cast, except for FP8 variables. Non-contiguous arrays
        are copied once.

        Args:
            tensors (dict): Variable -> array or number.

        Raises:
            ipu.TensorTypeError: a tensor that is not a Variable.
            ipu.DTypeError, ipu.ShapeError: an array that does not match.
            ipu.UnsupportedError: an "all_replicas" variable grouped in
                groups of more than one replica.
        """
        s = self._c()
        items = list(tensors.items())
        names = self._tensors([t for t, _ in items], (Variable,),
                              "write_variable_data")
        n = len(items)
        cnames = (ctypes.c_char_p * max(n, 1))(*[_lib.cstr(x) for x in names])
        bufs = (_lib.HostBuffer * max(n, 1))()
        keep = []
        for i, (t, data) in enumerate(items):
            # A number is a 0-d array: libsession casts and broadcasts it
            # (and refuses it for FP8 variables, in its words).
            arr = np.asarray(data)
            code = dtypes.host_code(arr.dtype, t.dtype)
            if code is None:
                raise DTypeError(
                    "write_variable_data: the dtype of the array %s must "
                    "match the equivalent type of the tensor '%s': %s" %
                    (arr.dtype, t.name, t.dtype.name))
            if arr.ndim > _lib.IPU_HOST_MAX_DIMS:
                raise ShapeError("write_variable_data: an array of %d "
                                 "dimensions for '%s'" % (arr.ndim, t.name))
            arr = np.require(arr, requirements=("C", "A"))
            _fill_buffer(bufs[i], arr, code)
            keep.append(arr)
        self._check(self._wait(_lib.ipu_session_write_variables_data,
                               s, cnames, bufs, n))
        del keep

    def __repr__(self):
        if not self._s:
            return "Session(closed)"
        return "Session(%r, device=%r, attached=%s)" % (
            self.ir_, self._device.type, self.is_attached)


__all__ = ["Session", "DeviceInfo"]
