# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Reductions (PopXL's ``ops.sum``, ``ops.mean``, ``ops.max``)."""
import ctypes

from .. import _lib
from ._util import current_ir, ints, result, tensor_of


def _reduce(cname, t, axis, keepdims):
    ir = current_ir()
    x = tensor_of(ir, t, None, cname)
    if axis is not None and not hasattr(axis, "__len__"):
        axis = [axis]
    axes, n = ints(axis, ctypes.c_int)
    return result(ir, getattr(_lib, "ipu_ir_reduce_" + cname)(
        ir._c(), x._h, axes, n, bool(keepdims)), "reduce_" + cname)


def sum(t, axis=None, keepdims=False):  # noqa: A001 (PopXL's name)
    """Sum over @axis (an int, a list, or None for all axes); reduced axes
    stay as size 1 with @keepdims."""
    return _reduce("sum", t, axis, keepdims)


def mean(t, axis=None, keepdims=False):
    """Mean over @axis (floats), as :func:`sum`."""
    return _reduce("mean", t, axis, keepdims)


def max(t, axis=None, keepdims=False):  # noqa: A001 (PopXL's name)
    """Maximum over @axis, as :func:`sum`."""
    return _reduce("max", t, axis, keepdims)


reduce_sum = sum
reduce_mean = mean
reduce_max = max
