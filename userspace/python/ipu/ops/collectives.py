# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Collectives across replicas (PopXL's ``ops.collectives``)."""
import ctypes
import enum

from .. import _lib
from ..errors import IrError
from ._util import current_ir, result, tensor_of


class CollectiveOperator(enum.Enum):
    """Reductions of :func:`replicated_all_reduce` (PopXL's names)."""
    Add = _lib.IPU_IR_ALL_REDUCE_SUM
    Mean = _lib.IPU_IR_ALL_REDUCE_MEAN


_OPS = {"add": CollectiveOperator.Add, "sum": CollectiveOperator.Add,
        "mean": CollectiveOperator.Mean}


def replicated_all_reduce(t, op=CollectiveOperator.Add, group=None):
    """Sum (or mean, floats only) of @t over the replicas of each replica's
    group (PopXL's ``ops.collectives.replicated_all_reduce``).

    Args:
        t (ipu.Tensor): the tensor.
        op (CollectiveOperator or str): Add ("add", "sum") or Mean
            ("mean").
        group (ipu.ReplicaGrouping, optional): constant-stride groups;
            default: all replicas.
    """
    ir = current_ir()
    x = tensor_of(ir, t, None, "replicated_all_reduce")
    if isinstance(op, str):
        if op.lower() not in _OPS:
            raise IrError("replicated_all_reduce: op %r: use 'add' or "
                          "'mean'" % (op,))
        op = _OPS[op.lower()]
    grp = ctypes.pointer(group._c) if group is not None else None
    return result(ir, _lib.ipu_ir_all_reduce(ir._c(), x._h, op.value, grp),
                  "replicated_all_reduce")
