# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""What every op needs: the current Ir, its tensors, and libipuir's
message when an op is refused."""
import numbers

import numpy as np

from .. import _lib
from ..context import get_current_graph
from ..errors import IrError, IrTypeError
from ..tensor import Tensor, _check_handle, constant


def current_ir():
    return get_current_graph().ir


def tensor_of(ir, x, like=None, what="op"):
    """@x as a tensor of @ir: a tensor (which must be of @ir), or a number
    or array made a constant, of @like's dtype when given (as PopXL
    does)."""
    if isinstance(x, Tensor):
        if x._ir is not ir:
            raise IrError("%s: %r belongs to another Ir" % (what, x))
        return x
    if isinstance(x, numbers.Number) and like is not None:
        h = _lib.ipu_ir_scalar(ir._c(), like.dtype._code, float(x))
        return Tensor(ir, _check_handle(ir, h, what))
    if isinstance(x, (numbers.Number, np.ndarray, list, tuple)):
        return constant(x, dtype=like.dtype if like is not None else None)
    # A TypeError as PopXL's (an IrError as this package's always was).
    raise IrTypeError("%s: %r is not a tensor" % (what, x))


def result(ir, h, what):
    """The tensor of handle @h returned by op @what."""
    return Tensor(ir, _check_handle(ir, h, what))


def ints(values, ctype):
    """A C array of @values (None for None)."""
    if values is None:
        return None, 0
    vals = [int(v) for v in values]
    return (ctype * max(len(vals), 1))(*vals), len(vals)
