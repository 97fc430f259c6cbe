# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``dynamic_update`` and ``dynamic_update_``: write a block into a
tensor at offsets that may only be known on the device.

libipuir has no dynamic slice, so, as for indexing (ipu/_indexing.py): an
index known when the program is built (a constant) becomes slices and
concats, exact for every dtype, and out of range is an IndexError; an
index computed on the device becomes, per axis, a one-hot matrix
``relu(1 - |position - (index + j)|)`` that places the update by a matmul
and masks the old elements out, in the tensor's dtype (ops/_gather.py):
exact, infinities included; a NaN in the block, or in the tensor under
the block, spreads along the axes moved (libipuir has no select); the
part of a block that falls outside the tensor is dropped (PopXL leaves
that undefined).
"""
import numpy as np

from .. import dtypes
from ..errors import IrError, IrTypeError
from ..tensor import Constant, Tensor, constant
from . import reduce as _reduce
from .cast import cast
from .elementwise import add, mul, sub
from .shape import _put, reshape, slice, transpose
from ._gather import finite_parts, from_finite_parts, onehot, onehot_matmul
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
    """The update at offsets computed on the device: one-hot matmuls, in
    the dtype of @x (ops/_gather.py), a float's parts kept finite."""
    f32 = dtypes.float32
    idx = reshape(cast(i, f32), (-1,))
    if x.dtype.is_int or x.dtype is dtypes.bool:
        work = x.dtype if x.dtype.is_int else dtypes.int32
        xs = [x if x.dtype is work else cast(x, work)]
        us = [u if u.dtype is work else cast(u, work)]
    else:
        work = f32
        xs, us = finite_parts(x), finite_parts(u)
    placed, mask = list(us), None
    for k, (a, s) in enumerate(zip(axes, sizes)):
        n = x.shape[a]
        at = slice(idx, [k], [k + 1], [1], [0])
        # hot[j, p] = 1 where position p holds element j of the block.
        j = constant(np.arange(s, dtype=np.float32).reshape(s, 1))
        hot = onehot(add(j, at), n)
        # Axis a of the block to the end, through the matmul, and back.
        perm = [d for d in range(x.rank) if d != a] + [a]
        inv = [perm.index(d) for d in range(x.rank)]
        for m, p in enumerate(placed):
            moved = transpose(p, perm)
            lead = list(moved.shape[:-1])
            moved = onehot_matmul(reshape(moved, (-1, s)), hot, False)
            placed[m] = transpose(reshape(moved, lead + [n]), inv)
        shape = [1] * x.rank
        shape[a] = n
        m = reshape(_reduce.sum(hot, [0]), shape)
        mask = m if mask is None else mul(mask, m)
    # The old elements outside the block: 1 - mask, in the work dtype.
    keep = cast(sub(1.0, mask), work)
    out = [add(mul(o, keep), p) for o, p in zip(xs, placed)]
    if work is f32:
        return from_finite_parts(out[0], out[1], x.dtype)
    return out[0] if out[0].dtype == x.dtype else cast(out[0], x.dtype)


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
