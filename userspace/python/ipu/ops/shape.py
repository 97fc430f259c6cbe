# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Data movement: transpose, reshape, slice, concat (every dtype)."""
import ctypes

from .. import _lib
from ..errors import IrError
from ._util import current_ir, ints, result, tensor_of


def transpose(t, permutation=None):
    """Permute @t's axes: output axis i is input axis permutation[i]
    (negative values count from the end); None reverses them."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "transpose")
    perm, n = ints(permutation, ctypes.c_int)
    return result(ir, _lib.ipu_ir_transpose(ir._c(), x._h, perm, n),
                  "transpose")


def reshape(t, shape):
    """@t's elements in @shape; one entry may be -1 (inferred)."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "reshape")
    s, n = ints(shape, ctypes.c_int64)
    return result(ir, _lib.ipu_ir_reshape(ir._c(), x._h, s, n), "reshape")


def slice(t, start=None, stop=None, step=None, axis=None):  # noqa: A001
    """t[start:stop:step] along the given axes (PopXL's ``ops.slice``):
    Python's rules (negative bounds count from the end, out-of-range ones
    clamp), steps >= 1, not empty. Each of @start, @stop, @step, @axis is
    an int or a list; @axis defaults to 0, 1, ...

    Raises:
        ipu.IrError (a ValueError, as PopXL's): those given are not all
            of one length (an int counts as a list of one).
    """
    ir = current_ir()
    x = tensor_of(ir, t, None, "slice")

    def as_list(v):
        return None if v is None else (list(v) if hasattr(v, "__len__")
                                       else [v])
    lists = [as_list(v) for v in (start, stop, step, axis)]
    lens = {len(v) for v in lists if v is not None}
    if len(lens) > 1:
        raise IrError("slice: start, stop, step and axis must be of one "
                      "length; given %s" % ", ".join(
                          "%s of length %d" % (k, len(v)) for k, v in
                          zip(("start", "stop", "step", "axis"), lists)
                          if v is not None))
    n = max(lens, default=0)
    if n == 0:
        return x
    c = [ints(v, ct)[0] for v, ct in zip(lists, (ctypes.c_int64,) * 3 +
                                          (ctypes.c_int,))]
    return result(ir, _lib.ipu_ir_slice(ir._c(), x._h, n, *c), "slice")


def concat(ts, axis=0):
    """Join tensors of one dtype along @axis; other dimensions agree."""
    ir = current_ir()
    xs = [tensor_of(ir, t, None, "concat") for t in ts]
    arr = (_lib.Handle * max(len(xs), 1))(*[x._h for x in xs])
    return result(ir, _lib.ipu_ir_concat(ir._c(), arr, len(xs), int(axis)),
                  "concat")
