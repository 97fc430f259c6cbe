# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Exceptions of the ipu package.

Every failure of the C libraries becomes an :class:`Error` carrying the
library's message (which names the stream, tensor, shape or device at
fault) and its errno. Subclasses exist where a caller would branch; each
also derives from the built-in exception PopXL raises in that case, so
code written for PopXL (``except ValueError:``) keeps working.

A call that raises has changed nothing (libsession's S25): a rejected run
leaves the variables, the host copies and the device as they were.
"""
import errno as _errno


class Error(Exception):
    """An error of the IPU stack.

    Attributes:
        errno (int): the positive errno of the failed C call (0 when the
            Python layer refused the call before reaching C).
        message (str): the message, as libsession or libipuir wrote it.
    """

    def __init__(self, message, errno=0):
        super().__init__(message)
        self.message = message
        self.errno = errno


# The subclasses, one shape each: (name, parent in this module, the
# built-in exception PopXL raises in that case or None, docstring). Made
# by _subclass() below; the order puts a parent before its children.
_SUBCLASSES = (
    ("IrError", "Error", ValueError,
     """Building a program failed (libipuir's message: the op, the tensors
    and their shapes)."""),
    ("NoGraphError", "IrError", RuntimeError,
     """No graph is current: ``gcg()``, an op, a variable or a stream
    outside every ``with graph:`` scope (PopXL raises RuntimeError; an
    IrError too, as this package raised before)."""),
    ("IrTypeError", "IrError", TypeError,
     """An argument of the wrong kind where PopXL raises TypeError (an
    index that is no int, slice, integer or boolean data)."""),
    ("IrOverflowError", "IrError", OverflowError,
     """A number a tensor's dtype cannot hold (2**32 for an int32 tensor):
    NumPy raises OverflowError for it, where a conversion would wrap or
    saturate silently."""),
    ("NotAttachedError", "Error", ValueError,
     """A runtime call (run, weights_to_host, ...) on a detached session:
    put it inside ``with session:``."""),
    ("DeviceBusyError", "Error", RuntimeError,
     """The IPUs are held by another process or session and did not come
    free within the attach timeout (see ipu-info for device usage)."""),
    ("NoDeviceError", "Error", RuntimeError,
     """Not enough IPUs of the requested type exist (or none at all)."""),
    ("DeviceDescError", "Error", ValueError,
     """The device description names no device type, or one that cannot
    run the program ("cpu" with replication): PopXL's ValueError."""),
    ("DeviceError", "Error", RuntimeError,
     """The device failed a transfer or a launch; the session stays usable
    and its host copies of the variables count as out of sync."""),
    ("DeviceTimeoutError", "DeviceError", TimeoutError,
     """A call waited for the device past its bound; the IPUs were reset.
    Also a program split across instances whose peer instance died or
    hangs (docs/instances.md)."""),
    ("StreamError", "Error", ValueError,
     """The inputs or outputs of a run do not name exactly the program's
    streams (the message lists the unexpected and the missing ones)."""),
    ("ShapeError", "Error", ValueError,
     """An array's shape does not fit the stream or tensor it is for (the
    message gives the expected and the given shape)."""),
    ("DTypeError", "Error", TypeError,
     """An array's dtype does not fit the stream or tensor it is for."""),
    ("LayoutError", "Error", ValueError,
     """An output array the session must fill in place is not a writable,
    aligned, C-contiguous array."""),
    ("TensorTypeError", "Error", TypeError,
     """The tensor is of the wrong kind: get_tensor_data takes variables and
    constants, write_variable_data variables only."""),
    ("ReadOnlyError", "Error", None,
     """The program holds a read-only memory-mapped variable: the device's
    weights cannot be written back to the host."""),
    ("UnsupportedError", "Error", NotImplementedError,
     """Not supported (writing an "all_replicas" variable grouped in groups
    of more than one replica)."""),
    ("SessionClosedError", "Error", ValueError,
     """The session was closed; make a new one."""),
    ("ConversionError", "Error", RuntimeError,
     """A host conversion of :mod:`ipu.fp8_utils` was given a dtype or a
    scale it does not support (PopXL raises RuntimeError)."""),
)


def _subclass(name, parent, builtin, doc):
    """Define subclass @name of this module's @parent (and of @builtin)."""
    bases = (globals()[parent],) + ((builtin,) if builtin else ())
    cls = type(name, bases, {"__doc__": doc, "__module__": __name__,
                             "__qualname__": name})
    globals()[name] = cls


for _row in _SUBCLASSES:
    _subclass(*_row)
del _row


class NotFoundError(Error, KeyError):
    """No tensor or stream of that name in the program."""

    def __str__(self):
        # KeyError quotes its argument; a message reads better plain.
        return self.message


def _classify(err, msg):
    """The exception class for C error -@err whose message is @msg."""
    e = -err
    if e == _errno.EPERM:
        return NotAttachedError
    if e == _errno.EBUSY:
        return DeviceBusyError
    if e == _errno.ENODEV:
        return NoDeviceError
    if e == _errno.ETIMEDOUT:
        return DeviceTimeoutError
    if e == _errno.EROFS:
        return ReadOnlyError
    if e == _errno.ENOTSUP:
        return TensorTypeError
    if e == _errno.ENOENT:
        return NotFoundError
    if e in (_errno.EIO, _errno.EFAULT, _errno.ECANCELED, _errno.ENOSPC):
        return DeviceError
    if e == _errno.EINVAL:
        # libsession's messages say what was wrong in stable words
        # (userspace/session/buffers.c, shape.c, weights.c).
        if "unexpected/missing" in msg or "no stream" in msg:
            return StreamError
        if ("unknown device" in msg or "is not a device type" in msg or
                msg.startswith('device "cpu"')):
            return DeviceDescError
        if "not yet supported" in msg:
            return UnsupportedError
        if ("must be passed in as an array" in msg or "dtype" in msg or
                "NO_DOWNCAST" in msg):
            return DTypeError
        if "shape" in msg or "dimension" in msg:
            return ShapeError
    return Error


def prefixed(what, msg):
    """@msg said as the failure of @what: "what: msg", unless the C
    library's message already starts so (libipuir's name the op)."""
    if msg.startswith(what + ":"):
        return msg
    return "%s: %s" % (what, msg)


def check(err, msg):
    """Raise the :class:`Error` for a negative C return @err with message
    @msg (a callable giving it, read only on failure); return @err else."""
    if err < 0:
        m = msg() if callable(msg) else msg
        if not m:
            m = "%s (errno %d)" % (_errno.errorcode.get(-err, "?"), -err)
        raise _classify(err, m)(m, -err)
    return err
