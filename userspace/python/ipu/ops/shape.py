# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Data movement: transpose, reshape, slice, concat, detach (every
dtype)."""
import builtins
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
    clamp; a stop of None in a list is the end the step goes to), steps
    not 0, not empty. Each of @start, @stop, @step, @axis is an int or a
    list; @axis defaults to 0, 1, ...

    libipuir's slice takes steps >= 1 (so does the executable's); an axis
    with a negative step is sliced with the positive step over the same
    elements, then reversed: one single-element slice per element and a
    concat, exact for every dtype.

    With no @start, @stop or @step it returns @t, as PopXL's.

    Raises:
        ipu.IrError (a ValueError, as PopXL's): those given are not all
            of one length (an int counts as a list of one); an axis out
            of range (PopXL's is PopART's error).
    """
    ir = current_ir()
    x = tensor_of(ir, t, None, "slice")
    if start is None and stop is None and step is None:
        return x                        # whatever @axis, as PopXL's

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
    flip = _negative_steps(x, lists, n)
    c = [ints(v, ct)[0] for v, ct in zip(lists, (ctypes.c_int64,) * 3 +
                                          (ctypes.c_int,))]
    out = result(ir, _lib.ipu_ir_slice(ir._c(), x._h, n, *c), "slice")
    for a in flip:
        out = _reverse(out, a)
    return out


def _negative_steps(x, lists, n):
    """If an axis of @lists (start, stop, step, axis; changed in place) is
    sliced with a negative step or has a None bound, give every axis
    Python's bounds, with the positive step over the same elements where
    the step is negative; return the axes so turned, to be reversed."""
    def at(lst, i):
        return None if lst is None else lst[i]
    if not any((at(lists[2], i) or 1) < 0 or
               (lists[0] is not None and lists[0][i] is None) or
               (lists[1] is not None and lists[1][i] is None)
               for i in range(n)):
        return []
    bounds, flip = ([], [], []), []
    for i in range(n):
        a = int(at(lists[3], i) if lists[3] is not None else i)
        if not -x.rank <= a < x.rank:
            # Before the None bounds reach the C arrays (int(None)).
            raise IrError("slice: axis %d of '%s' %s is out of range" %
                          (a, x.name, list(x.shape)))
        a %= x.rank
        dim, st = x.shape[a], at(lists[2], i)
        st = 1 if st is None else int(st)
        s, e = at(lists[0], i), at(lists[1], i)
        if st < 0:
            r = range(*builtins.slice(s, e, st).indices(dim))
            if not r:
                raise IrError("slice: axis %d of '%s' (size %d): [%s:%s:%d]"
                              " is empty" % (a, x.name, dim, s, e, st))
            lo, hi, st = r[-1], r[0] + 1, -st
            flip.append(a)
        else:
            lo = 0 if s is None else s
            hi = dim if e is None else e
        for lst, v in zip(bounds, (lo, hi, st)):
            lst.append(v)
    lists[0], lists[1], lists[2] = bounds
    return flip


def _reverse(t, axis):
    """@t with @axis in reverse order."""
    from ._gather import take
    return take(t, range(t.shape[axis] - 1, -1, -1), axis)


def concat(ts, axis=0):
    """Join tensors of one dtype along @axis; other dimensions agree."""
    ir = current_ir()
    xs = [tensor_of(ir, t, None, "concat") for t in ts]
    arr = (_lib.Handle * max(len(xs), 1))(*[x._h for x in xs])
    return result(ir, _lib.ipu_ir_concat(ir._c(), arr, len(xs), int(axis)),
                  "concat")


def detach(t):
    """@t, copied (PopXL's ``ops.detach``: the identity that stops
    gradients; the package has no autodiff, so it is a copy)."""
    x = tensor_of(current_ir(), t, None, "detach")
    return reshape(x, x.shape)


def flatten(t):
    """@t as one dimension (PopXL's ``ops.flatten``)."""
    return reshape(t, [-1])


# In-place views (PopXL's ``slice_``, ``transpose_``, ``reshape_``,
# ``flatten_``): the result shares memory with @t in PopXL, so an in-place
# update of either is seen by the other (ops/_inplace.py says how).

def transpose_(t, permutation=None):
    """ops.transpose, as a view of @t."""
    from ._inplace import make_view
    x = tensor_of(current_ir(), t, None, "transpose_")
    perm = list(range(x.rank))[::-1] if permutation is None else \
        [int(p) % x.rank if x.rank else 0 for p in permutation]
    inv = [perm.index(i) for i in range(len(perm))]
    return make_view(x, transpose(x, perm), lambda b: transpose(b, perm),
                     lambda b, v: transpose(v, inv))


def reshape_(t, shape):
    """ops.reshape, as a view of @t."""
    from ._inplace import make_view
    x = tensor_of(current_ir(), t, None, "reshape_")
    v = reshape(x, shape)
    return make_view(x, v, lambda b: reshape(b, v.shape),
                     lambda b, w: reshape(w, b.shape))


def flatten_(t):
    """ops.flatten, as a view of @t."""
    return reshape_(t, [-1])


def _put(base, v, regions):
    """@base with @v in place of the elements @regions select: a list of
    (axis, range of indices), made of slices and concats."""
    if not regions:
        return v
    (ax, r), rest = regions[0], regions[1:]
    pieces, at = [], 0

    def part(x, lo, hi):
        return slice(x, [lo], [hi], [1], [ax])
    if r.step == 1:
        groups = [(r.start, r.stop, 0, len(r))]
    else:
        # Ascending in @base (a negative step's range descends).
        groups = sorted((i, i + 1, j, j + 1) for j, i in enumerate(r))
    for lo, hi, vlo, vhi in groups:
        if lo > at:
            pieces.append(part(base, at, lo))
        pieces.append(_put(part(base, lo, hi), part(v, vlo, vhi), rest))
        at = hi
    if at < base.shape[ax]:
        pieces.append(part(base, at, base.shape[ax]))
    return pieces[0] if len(pieces) == 1 else concat(pieces, ax)


def slice_(t, start=None, stop=None, step=None, axis=None):
    """ops.slice, as a view of @t: an in-place update of the result
    writes through to the elements of @t it came from."""
    from ._inplace import make_view
    x = tensor_of(current_ir(), t, None, "slice_")
    v = slice(x, start, stop, step, axis)
    if v is x:
        return x

    def as_list(a, n, dflt):
        if a is None:
            return [dflt(i) for i in range(n)]
        return list(a) if hasattr(a, "__len__") else [a]
    n = max(len(a) if hasattr(a, "__len__") else 1
            for a in (start, stop, step, axis) if a is not None)
    axes = [int(a) % x.rank for a in as_list(axis, n, lambda i: i)]
    starts = as_list(start, n, lambda i: None)
    stops = as_list(stop, n, lambda i: None)
    steps = as_list(step, n, lambda i: None)
    regions = [(a, range(*builtins.slice(s, e, k).indices(x.shape[a])))
               for a, s, e, k in zip(axes, starts, stops, steps)]
    return make_view(x, v, lambda b: slice(b, start, stop, step, axis),
                     lambda b, w: _put(b, w, regions))


def detach_(t):
    """ops.detach, as a view of @t (PopXL's ``detach_``, which aliases its
    input)."""
    return reshape_(t, tensor_of(current_ir(), t, None, "detach_").shape)


def concat_(ts, axis=0):
    """ops.concat, as a view of every tensor of @ts (PopXL's ``concat_``,
    whose output aliases each input): an in-place update of the result
    writes back into the inputs, and one of an input is seen in the
    result."""
    from ._inplace import make_view
    ir = current_ir()
    xs = [tensor_of(ir, t, None, "concat_") for t in ts]
    v = concat(xs, axis)
    a = int(axis) % v.rank
    at = 0
    for x in xs:
        lo, at = at, at + x.shape[a]
        make_view(x, v, lambda b: concat(xs, a),
                  lambda b, w, lo=lo, hi=at: slice(w, [lo], [hi], [1], [a]))
    return v
