# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Conversion between device dtypes."""
from .. import _lib
from ._util import current_ir, result, tensor_of


def cast(t, data_type):
    """@t converted to device dtype @data_type (PopXL's parameter name;
    rounding to nearest, floats to integers truncating and saturating, to
    FP8 saturating)."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "cast")
    return result(ir, _lib.ipu_ir_cast(ir._c(), x._h, data_type._code),
                  "cast")
