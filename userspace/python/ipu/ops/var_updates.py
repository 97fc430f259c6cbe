# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""In-place updates (PopXL's ``ops.var_updates``), of variables and of any
other tensor but a constant."""
from .. import _lib
from ..errors import IrError
from ..tensor import Constant, Tensor, check_ir
from ._inplace import check_writable, update, updated
from ._util import current_ir, tensor_of


def _var(ir, v, what):
    if not isinstance(v, Tensor) or v._ir is not ir:
        raise IrError("%s: %r is not a tensor of this Ir" % (what, v))
    if isinstance(v, Constant):
        raise IrError("%s: '%s' is a constant: constants are not updated "
                      "in place" % (what, v.name))
    return v


def scaled_add_(X, Y, a=1.0, b=1.0):  # noqa: N803 (PopXL's names)
    """X = a * X + b * Y, in place, for a floating-point tensor @X (a
    variable or not; PopXL's ``ops.scaled_add_``); @Y has its dtype and
    shape. @a and @b are numbers or scalar tensors. An SGD step is
    ``scaled_add_(w, grad, b=-lr)``.

    Returns:
        ipu.Tensor: @X.
    """
    ir = current_ir()
    v = _var(ir, X, "scaled_add_")
    t = tensor_of(ir, Y, v, "scaled_add_")
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        # Factors known only on the device: libipuir's scaled add takes
        # numbers, so the update is made of ops.
        return update(v, v * a + t * b, "scaled_add_")
    check_writable(v, "scaled_add_")
    check_ir(ir, _lib.ipu_ir_scaled_add_inplace(ir._c(), v._h, t._h,
                                                float(a), float(b)),
             "scaled_add_ '%s'" % v.name)
    return updated(v, "scaled_add_")


def copy_var_update_(t, X):  # noqa: N803 (PopXL's names)
    """t = X, in place; same dtype and shape.

    Returns:
        ipu.Tensor: @t.
    """
    ir = current_ir()
    v = _var(ir, t, "copy_var_update_")
    return update(v, tensor_of(ir, X, v, "copy_var_update_"),
                  "copy_var_update_")


def accumulate_(t, X, f=None):  # noqa: N803 (PopXL's names)
    """t = t + f * X, in place (PopXL's ``ops.var_updates.accumulate_``);
    @f a number or a scalar tensor, None for 1.

    Returns:
        ipu.Tensor: @t.
    """
    return scaled_add_(t, X, 1.0, 1.0 if f is None else f)
