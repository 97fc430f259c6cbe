# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Host streams (PopXL's ``popxl.h2d_stream`` / ``popxl.d2h_stream``): the
data of a run. Each transfer moves one tensor of the stream's shape per
replica; a run moves ``num_host_transfers`` of them, so its arrays have
shape ``(num_host_transfers, replication_factor) + shape`` (each leading
dimension only when > 1, S11)."""
import numpy as np

from . import _lib, dtypes
from .context import get_current_graph
from .errors import DTypeError, IrError
from .tensor import _check_handle, _shape_array


class _Stream:
    def __init__(self, ir, handle, name, shape, dtype):
        self._ir = ir
        self._h = handle
        self.name = name
        self.shape = shape
        self.dtype = dtype

    @property
    def tensor_id(self):
        """The stream's name (PopXL's key of a run's arrays)."""
        return self.name

    @property
    def ir(self):
        return self._ir

    def __repr__(self):
        return "%s(%r, %s, %r)" % (type(self).__name__, self.name,
                                   self.dtype.name, self.shape)

    def __str__(self):
        return self.name


class HostToDeviceStream(_Stream):
    """A host-to-device stream: an input of a run (``ops.host_load``
    reads its next transfer).

    Attributes:
        name (str), tensor_id (str): its name.
        shape (tuple of int): one transfer's shape, per replica.
        dtype (ipu.dtype): its element type.
    """


class DeviceToHostStream(_Stream):
    """A device-to-host stream: an output of a run (``ops.host_store``
    writes its next transfer). Attributes as HostToDeviceStream."""


def _as_dtype(dtype, what):
    """A stream's dtype as PopXL takes it: an ipu dtype, a NumPy dtype (or
    scalar type, np.float32) or a name ("float32", and PopXL's names of the
    types NumPy lacks, "bfloat16", "float8_143", "float8_152")."""
    if isinstance(dtype, dtypes.dtype):
        return dtype
    if isinstance(dtype, str) and dtype in dtypes.dtype._by_name:
        return dtypes.from_name(dtype)
    try:
        # np.dtype(None) is float64: None is no dtype here.
        if dtype is None:
            raise TypeError
        return dtypes.from_numpy(np.dtype(dtype))
    except TypeError:
        raise DTypeError(
            "%s: dtype %r is not an ipu dtype: give one (ipu.float32, ...), "
            "its name or a NumPy dtype that has one" % (what, dtype)) \
            from None


def _stream(cls, cfn, prefix, shape, dtype, name):
    ir = get_current_graph().ir
    name = ir._host_name(name, prefix)
    what = "%s '%s'" % (prefix, name)
    dtype = _as_dtype(dtype, what)
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise IrError("%s: shape %r has a negative dimension" % (what, shape))
    shape, cshape = _shape_array(shape)
    h = cfn(ir._c(), _lib.cstr(name), dtype._code, len(shape), cshape)
    # libipuir's messages start with the op's name ("h2d_stream: ...").
    _check_handle(ir, h, prefix)
    s = cls(ir, h, name, shape, dtype)
    ir._taken.add(name)
    ir._streams.append(s)
    return s


def h2d_stream(shape, dtype, name=None):
    """Create a host-to-device stream in the current graph's Ir.

    Args:
        shape (tuple of int): one transfer's shape, per replica.
        dtype (ipu.dtype): a device dtype; or a NumPy dtype, or a name
            ("float32", "bfloat16", ...), as PopXL takes them.
        name (str, optional): made unique among the Ir's streams,
            variables and constants as PopXL does ("name__tN", the
            stream's ``name`` says which); "h2d_stream.N" by
            default.

    Returns:
        ipu.HostToDeviceStream
    """
    return _stream(HostToDeviceStream, _lib.ipu_ir_h2d_stream, "h2d_stream",
                   shape, dtype, name)


def d2h_stream(shape, dtype, name=None):
    """Create a device-to-host stream in the current graph's Ir; as
    :func:`h2d_stream`.

    Returns:
        ipu.DeviceToHostStream
    """
    return _stream(DeviceToHostStream, _lib.ipu_ir_d2h_stream, "d2h_stream",
                   shape, dtype, name)
