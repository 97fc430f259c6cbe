# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""What every op needs: the current Ir, its tensors, and libipuir's
message when an op is refused."""
import numbers

import numpy as np

from .. import _lib
from ..context import get_current_graph
from ..errors import IrError, IrOverflowError, IrTypeError
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
        check_range(x, like.dtype, what)
        h = _lib.ipu_ir_scalar(ir._c(), like.dtype._code, float(x))
        return Tensor(ir, _check_handle(ir, h, what))
    if isinstance(x, (numbers.Number, np.ndarray, list, tuple)):
        if like is not None:
            check_range(x, like.dtype, what)
        return constant(x, dtype=like.dtype if like is not None else None)
    # A TypeError as PopXL's (an IrError as this package's always was).
    raise IrTypeError("%s: %r is not a tensor" % (what, x))


def check_range(x, dt, what):
    """Refuse numbers of @x (a number or array-like) that integer dtype @dt
    cannot hold, as NumPy refuses np.array(2**32, np.int32): libipuir
    converts from a double, which would wrap or saturate them silently
    (and rounds integers past 2^53). Floats are truncated as NumPy casts
    them; only their integer part must fit.

    Raises:
        ipu.IrOverflowError (an OverflowError and a ValueError): a number
            out of range, or not finite, named with the range.
    """
    if not dt.is_int:
        return
    arr = np.asarray(x)
    if arr.dtype.kind == "O":
        # Python ints past int64: NumPy keeps them as objects.
        arr = np.array([float(max(min(v, 2 ** 64), -2 ** 64))
                        for v in arr.ravel().tolist()
                        if isinstance(v, numbers.Real)], np.float64)
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        return
    lim = np.iinfo(dt.as_numpy())
    if arr.dtype.kind == "f":
        # Truncated toward zero, as NumPy's cast: the integer part fits.
        # Both bounds are 0 or powers of two, exact as doubles (lim.min - 1
        # is not: it would round to lim.min and refuse it).
        t = np.trunc(arr)
        bad = ~((t >= float(lim.min)) & (t < float(lim.max + 1)))
    else:
        bad = (arr < lim.min) | (arr > lim.max)
    if bad.any():
        v = arr.ravel()[np.argmax(bad.ravel())] if arr.ndim else arr[()]
        v = x if isinstance(x, numbers.Number) else v.item()
        raise IrOverflowError("%s: %r is out of bounds for %s [%d, %d]" %
                              (what, v, dt.name, lim.min, lim.max))


def result(ir, h, what):
    """The tensor of handle @h returned by op @what."""
    return Tensor(ir, _check_handle(ir, h, what))


def ints(values, ctype):
    """A C array of @values (None for None)."""
    if values is None:
        return None, 0
    vals = [int(v) for v in values]
    return (ctype * max(len(vals), 1))(*vals), len(vals)
