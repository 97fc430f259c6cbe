# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``dynamic_update`` and ``dynamic_update_``: write a block into a
tensor at offsets that may only be known on the device.

libipuir has no dynamic slice, so, as for indexing (ipu/_indexing.py): an
index known when the program is built (a constant) becomes slices and
concats, exact for every dtype, and out of range is an IndexError; an
index computed on the device becomes, per axis, a one-hot matrix
``relu(1 - |position - (index + j)|)`` that places the update by a matmul
and masks the old elements out: exact for finite values float32 holds
exactly (integers up to 2^24), and the part of a block that falls outside
the tensor is dropped (PopXL leaves that undefined).
"""
import numpy as np

from .. import dtypes
from ..errors import IrError, IrTypeError
from ..tensor import Constant, Tensor, constant
from . import reduce as _reduce
from .cast import cast
from .elementwise import add, mul, relu, abs as _abs, sub
from .matmul import matmul
from .shape import _put, reshape, slice, transpose
from ._util import current_ir, tensor_of


def _args(t, index, t_update, axes, sizes, what):
    ir = current_ir()
    x = tensor_of(ir, t, None, what)
    u = tensor_of(ir, t_update, x, what)
    i = tensor_of(ir, index, None, what)
    axes, sizes = [int(a) for a in axes], [int(s) for s in sizes]
    if not isinstance(i, Tensor) or not i.dtype.is_int:
        raise IrTypeError("%s: index %r is not an integer tensor" %
                          (what, index))
    if len(axes) != len(sizes) or not axes:
        raise IrError("%s: %d axes and %d sizes: one size per axis, at "
                      "least one" % (what, len(axes), len(sizes)))
    if i.shape not in ((len(axes),),) + (((),) if len(axes) == 1 else ()):
        raise IrError("%s: index '%s' %s: one offset per axis, %d" %
                      (what, i.name, list(i.shape), len(axes)))
    norm = []
    for a, s in zip(axes, sizes):
        if not -x.rank <= a < x.rank or a % x.rank in norm:
            raise IrError("%s: axis %d of '%s' %s is out of range or "
                          "repeated" % (what, a, x.name, list(x.shape)))
        a %= x.rank
        if not 1 <= s <= x.shape[a]:
            raise IrError("%s: size %d along axis %d of '%s' %s" %
                          (what, s, a, x.name, list(x.shape)))
        norm.append(a)
    want = list(x.shape)
    for a, s in zip(norm, sizes):
        want[a] = s
    if list(u.shape) != want or u.dtype != x.dtype:
        raise IrError("%s: update '%s' %s %s, the block is %s %s" %
                      (what, u.name, u.dtype.name, list(u.shape),
                       x.dtype.name, want))
    return x, i, u, norm, sizes


def _static(x, i, u, axes, sizes):
    """The update at offsets known now (constant @i): slices, exact."""
    offs = np.asarray(i._data).astype(np.int64).reshape(-1)
    regions = []
    for a, s, o in zip(axes, sizes, offs):
        if not 0 <= o <= x.shape[a] - s:
            raise IndexError("dynamic_update: offset %d of a block of %d "
                             "along axis %d of '%s' %s" %
                             (int(o), s, a, x.name, list(x.shape)))
        regions.append((a, range(int(o), int(o) + s)))
    return _put(x, u, regions)


def _device(x, i, u, axes, sizes):
    """The update at offsets computed on the device: one-hot matmuls."""
    f32 = dtypes.float32

    def f(t):
        return t if t.dtype == f32 else cast(t, f32)
    idx = reshape(f(i), (-1,))
    placed, mask = f(u), None
    for k, (a, s) in enumerate(zip(axes, sizes)):
        n = x.shape[a]
        at = slice(idx, [k], [k + 1], [1], [0])
        # onehot[j, p] = 1 where position p holds element j of the block.
        pos = constant(np.arange(n, dtype=np.float32))
        j = constant(np.arange(s, dtype=np.float32).reshape(s, 1))
        onehot = relu(sub(1.0, _abs(sub(pos, add(j, at)))))
        # Axis a of the block to the end, through the matmul, and back.
        perm = [d for d in range(x.rank) if d != a] + [a]
        moved = transpose(placed, perm)
        lead = list(moved.shape[:-1])
        moved = matmul(reshape(moved, (-1, s)), onehot)
        inv = [perm.index(d) for d in range(x.rank)]
        placed = transpose(reshape(moved, lead + [n]), inv)
        shape = [1] * x.rank
        shape[a] = n
        m = reshape(_reduce.sum(onehot, [0]), shape)
        mask = m if mask is None else mul(mask, m)
    out = add(mul(f(x), sub(1.0, mask)), placed)
    return out if out.dtype == x.dtype else cast(out, x.dtype)


def dynamic_update(t, index, t_update, axes, sizes, no_overlap):
    """@t with the block ``t[index[0]:index[0]+sizes[0], ...]`` along
    @axes replaced by @t_update (PopXL's ``ops.dynamic_update``; the
    index may be computed on the device). @no_overlap concerns gradients
    only, which the package does not make.

    Raises:
        ipu.IrTypeError (a TypeError): @index is not an integer tensor.
        ipu.IrError (a ValueError): axes and sizes of different lengths,
            an axis out of range or repeated, a size out of 1..dim, an
            index not of one offset per axis, or an update of a shape or
            dtype other than the block's.
        IndexError: a constant index puts the block outside @t.
    """
    what = "dynamic_update"
    x, i, u, axes, sizes = _args(t, index, t_update, axes, sizes, what)
    if isinstance(i, Constant):
        return _static(x, i, u, axes, sizes)
    return _device(x, i, u, axes, sizes)


def dynamic_update_(t, index, t_update, axes, sizes, no_overlap):
    """ops.dynamic_update, in place on @t, which it returns."""
    from ._inplace import update
    return update(t, dynamic_update(t, index, t_update, axes, sizes,
                                    no_overlap), "dynamic_update_")
