# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Softmax and log-softmax along an axis."""
from .. import _lib
from ._util import current_ir, result, tensor_of


def softmax(t, axis=-1):
    """Softmax along @axis (floats)."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "softmax")
    return result(ir, _lib.ipu_ir_softmax(ir._c(), x._h, int(axis)),
                  "softmax")


def log_softmax(t, axis=-1):
    """log(softmax(t)) along @axis, computed without log(0) (floats)."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "log_softmax")
    return result(ir, _lib.ipu_ir_log_softmax(ir._c(), x._h, int(axis)),
                  "log_softmax")
