# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Integer and boolean indexing of a tensor (``t[key]`` with a tensor or
host data as the key), as PopXL's ``Tensor.__getitem__`` does it: integers
gather along axis 0, booleans mask.

libipuir has no gather and no select op, so both are made of the ops it
has. An index known when the program is built (host data or a constant)
becomes slices and a concat: exact for every dtype. An index computed on
the device becomes a one-hot matrix, ``relu(1 - |index - position|)``
(1 where they are equal, 0 elsewhere, for integers), multiplied with the
rows in their dtype (ops/_gather.py): exact, infinities included (a NaN
spreads to the other rows), and an index out of range gives a row of
zeros (PopXL's is undefined there unless ``zero_OOR``). A mask
multiplies by itself cast to the tensor's dtype, so an inf or NaN under a
False stays NaN (PopXL's ``where`` gives 0).
"""
import numpy as np

from . import dtypes, ops
from .errors import IrError, IrTypeError
from .ops._gather import onehot, onehot_matmul, take
from .tensor import Constant, Tensor, constant


def index(t, key):
    """t[key] for a @key that is a tensor or host data (not ints and
    slices, which Tensor.__getitem__ slices)."""
    if isinstance(key, Tensor):
        data = key._data if isinstance(key, Constant) else None
        kind = key.dtype
    else:
        try:
            data = np.asarray(key)
        except (TypeError, ValueError):
            data = np.asarray(None)  # ragged: refused below
        if data.dtype == np.bool_:
            kind = dtypes.bool
        elif np.issubdtype(data.dtype, np.integer):
            kind = dtypes.int32
        else:
            raise IrTypeError("%r: index %r: only ints, slices, and integer "
                              "or boolean tensors index a tensor" % (t, key))
    if kind is dtypes.bool:
        mask = key if isinstance(key, Tensor) else constant(data)
        return ops.mul(t, ops.cast(mask, t.dtype))
    if kind.is_int:
        if not t.shape:
            raise IrError("%r: a scalar cannot be indexed" % (t,))
        if data is not None:
            return _gather_static(t, np.asarray(data))
        return _gather_device(t, key)
    raise IrTypeError("%r: index %r of dtype %s: only integer or boolean "
                      "tensors index a tensor" % (t, key, kind.name))


def _gather_static(t, idx):
    """Rows @idx (host integers, negative from the end) of @t."""
    n = t.shape[0]
    flat = idx.astype(np.int64).ravel()
    if flat.size == 0:
        raise IrError("%r: an empty index: the result may not be empty" %
                      (t,))
    bad = flat[(flat < -n) | (flat >= n)]
    if bad.size:
        raise IndexError("index %d out of range for axis 0 of %r" %
                         (int(bad[0]), t))
    out = take(t, [int(i) % n for i in flat], 0)
    return ops.reshape(out, tuple(idx.shape) + t.shape[1:])


def _gather_device(t, key):
    """Rows @key (an integer tensor) of @t, by a one-hot matmul."""
    n = t.shape[0]
    at = ops.reshape(ops.cast(key, dtypes.float32), (-1, 1))
    rows = onehot_matmul(onehot(at, n), ops.reshape(t, (n, -1)), True)
    return ops.reshape(rows, tuple(key.shape) + t.shape[1:])
