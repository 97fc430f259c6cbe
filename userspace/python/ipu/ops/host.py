# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Host transfers: the ops that read and write a run's streams."""
from .. import _lib
from ..errors import IrError
from ..streams import DeviceToHostStream, HostToDeviceStream
from ..tensor import check_ir
from ._util import current_ir, result, tensor_of


def _own(ir, s, cls, what):
    if not isinstance(s, cls):
        raise IrError("%s: %r is not a %s" % (what, s, cls.__name__))
    if s._ir is not ir:
        raise IrError("%s: stream '%s' belongs to another Ir" % (what, s.name))


def host_load(h2d_stream, name=None):
    """The next transfer of @h2d_stream, as a new tensor of the current
    graph (PopXL's ``ops.host_load``); named after the stream unless
    @name is given."""
    ir = current_ir()
    _own(ir, h2d_stream, HostToDeviceStream, "host_load")
    return result(ir, _lib.ipu_ir_host_load(ir._c(), h2d_stream._h,
                                            _lib.cstr(name)), "host_load")


def host_store(d2h_stream, t):
    """Send @t as the next transfer of @d2h_stream (PopXL's
    ``ops.host_store``); dtype and shape must match the stream's."""
    ir = current_ir()
    _own(ir, d2h_stream, DeviceToHostStream, "host_store")
    x = tensor_of(ir, t, None, "host_store")
    check_ir(ir, _lib.ipu_ir_host_store(ir._c(), d2h_stream._h, x._h),
             "host_store")
