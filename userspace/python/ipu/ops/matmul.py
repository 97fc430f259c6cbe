# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Matrix product."""
from .. import _lib
from ._util import current_ir, result, tensor_of


def matmul(lhs, rhs):
    """[..., m, k] @ [..., k, n] -> [..., m, n]; both at least 2-D, batch
    dimensions broadcast."""
    ir = current_ir()
    a = tensor_of(ir, lhs, None, "matmul")
    b = tensor_of(ir, rhs, a, "matmul")
    return result(ir, _lib.ipu_ir_matmul(ir._c(), a._h, b._h), "matmul")
