# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""In-place updates (PopXL's ``ops.var_updates``), of variables and of any
other tensor but a constant."""
from .. import _lib
from ..errors import IrError
from ..tensor import Constant, Tensor, check_ir
from ._inplace import update, updated
from ._util import current_ir, tensor_of


def _var(ir, v, what):
    if not isinstance(v, Tensor) or v._ir is not ir:
        raise IrError("%s: %r is not a tensor of this Ir" % (what, v))
    if isinstance(v, Constant):
        raise IrError("%s: '%s' is a constant: constants are not updated "
                      "in place" % (what, v.name))
    return v


def scaled_add_(var, x, a=1.0, b=1.0):
    """var = a * var + b * x, in place, for a floating-point tensor (a
    variable or not); @x has its dtype and shape. An SGD step is
    ``scaled_add_(w, grad, b=-lr)``.

    Returns:
        ipu.Tensor: @var.
    """
    ir = current_ir()
    v = _var(ir, var, "scaled_add_")
    t = tensor_of(ir, x, v, "scaled_add_")
    check_ir(ir, _lib.ipu_ir_scaled_add_inplace(ir._c(), v._h, t._h,
                                                float(a), float(b)),
             "scaled_add_ '%s'" % v.name)
    return updated(v, "scaled_add_")


def copy_var_update_(var, x):
    """var = x, in place; same dtype and shape.

    Returns:
        ipu.Tensor: @var.
    """
    ir = current_ir()
    v = _var(ir, var, "copy_var_update_")
    return update(v, tensor_of(ir, x, v, "copy_var_update_"),
                  "copy_var_update_")


def accumulate_(var, x):
    """var += x (PopXL's ``ops.var_updates.accumulate_``)."""
    return scaled_add_(var, x, 1.0, 1.0)
