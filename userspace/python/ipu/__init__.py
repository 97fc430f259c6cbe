# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""ipu: build IPU programs and run them from Python, the PopXL way.

A PopXL program ports by changing its imports (``import ipu`` for
``import popxl``, ``ipu.ops`` for ``popxl.ops``)::

    import numpy as np
    import ipu

    ir = ipu.Ir()
    ir.num_host_transfers = 2
    with ir.main_graph:
        x_h2d = ipu.h2d_stream((3,), ipu.float32, name="x")
        y_d2h = ipu.d2h_stream((3,), ipu.float32, name="y")
        w = ipu.variable(np.ones(3, np.float32), name="w")

        def step():
            x = ipu.ops.host_load(x_h2d)
            ipu.ops.scaled_add_(w, x)       # w += x, on the device
            ipu.ops.host_store(y_d2h, w + 0.0)

        ipu.ops.repeat(ir.create_graph(step), 2)  # once per transfer

    with ipu.Session(ir, "ipu_model") as session:
        out = session.run({x_h2d: np.ones((2, 3), np.float32)})
    print(out[y_d2h], session.get_tensor_data(w))

It is a binding, with ctypes, of the stack's C libraries: libipuir (the
IR builder and compiler, include/ipu/ir.h) and libsession (PopXL's Session
in C, include/ipu/session.h), loaded from the build tree's build/lib
(``make python``), $IPU_LIB_DIR, or the system. Data moves without copies:
C-contiguous arrays of a stream's dtype are handed to libsession by
pointer, outputs are NumPy arrays the session fills in place. Errors are
:class:`ipu.Error` exceptions carrying libsession's (or libipuir's)
message.

Needs Debian's /usr/bin/python3 with python3-numpy (another ``python3``
first on PATH may lack NumPy).
"""
from . import dtypes, fp8_utils, ops, utils
from .context import gcg, get_current_graph, get_main_graph, gmg, in_sequence
from .dtypes import (bfloat16, bool, double, dtype, float, float8_143,
                     float8_152, float16, float32, float64, half, int8, int16,
                     int32, int64, uint8, uint16, uint32)
from .errors import (ConversionError, DeviceBusyError, DeviceDescError,
                     DeviceError,
                     DeviceTimeoutError,
                     DTypeError, Error, IrError, IrOverflowError,
                     LayoutError, NoDeviceError,
                     NotAttachedError, NotFoundError, ReadOnlyError,
                     SessionClosedError, ShapeError, StreamError,
                     TensorTypeError, UnsupportedError)
from .graph import Graph, Module, TensorByRef, ipu
from .ir import Ir
from .replica_grouping import ReplicaGrouping
from .session import DeviceInfo, Session
from .streams import DeviceToHostStream, HostToDeviceStream, d2h_stream, \
    h2d_stream
from .tensor import (Constant, HostScalarTensor, HostTensor, ScalarType,
                     Tensor, TensorLike, TensorSpec, Variable, constant,
                     graph_input, graph_output, variable)

#: The stack's version (packaging/install.mk's IPU_VERSION).
__version__ = "1.0.0"

__all__ = [
    "Ir", "Graph", "Session", "DeviceInfo", "Tensor", "Variable", "Constant",
    "TensorSpec", "HostToDeviceStream", "DeviceToHostStream",
    "ReplicaGrouping", "variable", "constant", "h2d_stream", "d2h_stream",
    "graph_input", "graph_output", "get_current_graph", "gcg",
    "get_main_graph", "gmg", "ipu", "ops", "half", "float", "double",
    "HostTensor", "HostScalarTensor", "ScalarType", "TensorLike",
    "dtypes", "fp8_utils", "utils", "dtype", "float32", "float16", "bfloat16",
    "float8_143", "float8_152", "int32", "int8", "uint8", "bool", "float64",
    "int64", "Error", "IrError", "NotAttachedError", "DeviceBusyError",
    "NoDeviceError", "DeviceError", "DeviceTimeoutError", "StreamError",
    "ShapeError", "DTypeError", "LayoutError", "TensorTypeError",
    "ReadOnlyError", "UnsupportedError", "SessionClosedError",
    "ConversionError", "NotFoundError", "in_sequence", "TensorByRef",
    "Module", "DeviceDescError", "int16", "uint16", "uint32",
    "IrOverflowError",
]
