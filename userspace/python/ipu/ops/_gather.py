# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Gathering and placing elements, shared by indexing (ipu/_indexing.py),
slices with negative steps (ops.slice) and dynamic_update.

libipuir has no gather, no select and no dynamic slice, so:

- indices known when the program is built become single-element slices
  and a concat (:func:`take`): exact for every dtype;
- indices computed on the device become a one-hot matrix (:func:`onehot`)
  multiplied with the data (:func:`onehot_matmul`), in the data's dtype:
  integers exactly; floats too, infinities included: a matmul would make
  NaN of 0 * inf, so infinities are multiplied as the float's largest
  finite value, with a flag that turns them back into infinities after.
  A NaN still spreads along the axis it is moved on: no op of libipuir
  turns a NaN into a number while keeping other values (a cast to an
  integer, which does, loses fractions).
"""
import numpy as np

from .. import dtypes
from ..tensor import constant
from . import reduce as _reduce
from .cast import cast
from .elementwise import abs as _abs, add, mul, neg, relu, sub
from .matmul import matmul
from .shape import concat, reshape, slice

_F32_MAX = float(np.finfo(np.float32).max)


def take(t, idx, axis=0):
    """Elements @idx (host integers in range, 0..n-1) of @t along @axis,
    in that order: slices and a concat."""
    parts = [slice(t, [int(i)], [int(i) + 1], [1], [axis]) for i in idx]
    return parts[0] if len(parts) == 1 else concat(parts, axis)


def onehot(at, n):
    """The float32 matrix ``relu(1 - |p - at|)`` for p in 0..n-1: 1 where
    @at (a float32 column, one row per wanted position) equals p, 0 for
    other integers; shape (rows of @at, @n)."""
    pos = constant(np.arange(n, dtype=np.float32))
    return relu(sub(1.0, _abs(sub(pos, at))))


def _finite(x):
    """(c, k) of float32 @x: @x with infinities as +-the largest float32
    (finite values as they are, NaN as NaN), and 1.0 where @x is not
    finite, else 0.0 (libipuir casts NaN to an integer as 0)."""
    shape = tuple(x.shape) + (1,)
    lo = constant(np.full(shape, -_F32_MAX, np.float32))

    last = len(shape) - 1

    def at_least_lo(v):
        return _reduce.max(concat([reshape(v, shape), lo], last), [last])
    c = neg(at_least_lo(neg(at_least_lo(x))))
    ones = cast(cast(add(mul(x, 0.0), 1.0), dtypes.int32), dtypes.float32)
    return c, sub(1.0, ones)


def _infinite(c, k):
    """The inverse of :func:`_finite` for @c and @k gathered alike: the
    largest float doubled is infinity."""
    return mul(c, add(k, 1.0))


def onehot_matmul(a, b, hot_left):
    """matmul(@a, @b), one of them (@a if @hot_left) a one-hot matrix of
    :func:`onehot` (float32), the other data of any dtype: the result in
    the data's dtype, each element one element of the data (or 0 where
    the one-hot has no 1), exactly."""
    data = b if hot_left else a
    dt = data.dtype
    if dt is dtypes.bool:
        i = cast(data, dtypes.int32)
        return cast(onehot_matmul(a, i, True) if hot_left else
                    onehot_matmul(i, b, False), dt)
    if dt.is_int:
        hot = cast(a if hot_left else b, dt)
        return matmul(hot, b) if hot_left else matmul(a, hot)
    f = data if dt is dtypes.float32 else cast(data, dtypes.float32)
    c, k = _finite(f)
    if hot_left:
        out = _infinite(matmul(a, c), matmul(a, k))
    else:
        out = _infinite(matmul(c, b), matmul(k, b))
    return out if dt is dtypes.float32 else cast(out, dt)


def finite_parts(x):
    """:func:`_finite` of @x (a float tensor of any float dtype), for
    arithmetic that must not meet an infinity (0 * inf); the parts are
    float32. See :func:`from_finite_parts`."""
    return _finite(x if x.dtype is dtypes.float32 else
                   cast(x, dtypes.float32))


def from_finite_parts(c, k, dt):
    """The tensor of dtype @dt whose :func:`finite_parts` @c and @k are
    (after the same exact moves of both)."""
    out = _infinite(c, k)
    return out if dt is dtypes.float32 else cast(out, dt)
