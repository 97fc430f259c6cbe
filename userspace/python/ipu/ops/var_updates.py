# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""In-place updates of variables (PopXL's ``ops.var_updates``)."""
from .. import _lib
from ..errors import IrError
from ..tensor import Variable, check_ir
from ._util import current_ir, tensor_of


def _var(ir, v, what):
    if not isinstance(v, Variable) or v._ir is not ir:
        raise IrError("%s: %r is not a variable of this Ir" % (what, v))
    return v


def scaled_add_(var, x, a=1.0, b=1.0):
    """var = a * var + b * x, in place, for a floating-point variable; @x
    has its dtype and shape. An SGD step is ``scaled_add_(w, grad,
    b=-lr)``.

    Returns:
        ipu.Variable: @var.
    """
    ir = current_ir()
    v = _var(ir, var, "scaled_add_")
    t = tensor_of(ir, x, v, "scaled_add_")
    check_ir(ir, _lib.ipu_ir_scaled_add_inplace(ir._c(), v._h, t._h,
                                                float(a), float(b)),
             "scaled_add_ '%s'" % v.name)
    return v


def copy_var_update_(var, x):
    """var = x, in place; same dtype and shape.

    Returns:
        ipu.Variable: @var.
    """
    ir = current_ir()
    v = _var(ir, var, "copy_var_update_")
    t = tensor_of(ir, x, v, "copy_var_update_")
    check_ir(ir, _lib.ipu_ir_assign(ir._c(), v._h, t._h),
             "copy_var_update_ '%s'" % v.name)
    return v


def accumulate_(var, x):
    """var += x (PopXL's ``ops.var_updates.accumulate_``)."""
    return scaled_add_(var, x, 1.0, 1.0)
