# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Integer and boolean indexing of a tensor (``t[key]`` with a tensor or
host data as the key), as PopXL's ``Tensor.__getitem__`` does it: integers
gather along axis 0, booleans mask.

libipuir has no gather and no select op, so both are made of the ops it
has. An index known when the program is built (host data or a constant)
becomes slices and a concat: exact for every dtype. An index computed on
the device becomes a one-hot matrix, ``relu(1 - |index - position|)``
(1 where they are equal, 0 elsewhere, for integers), multiplied with the
rows: exact for finite values that float32 holds exactly (integers up to
2^24), and an index out of range gives a row of zeros (PopXL's is
undefined there unless ``zero_OOR``). A mask multiplies by itself cast to
the tensor's dtype, so an inf or NaN under a False stays NaN (PopXL's
``where`` gives 0).
"""
import numpy as np

from . import dtypes, ops
from .errors import IrError, IrTypeError
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
    rows = [ops.slice(t, [int(i) % n], [int(i) % n + 1], [1], [0])
            for i in flat]
    out = rows[0] if len(rows) == 1 else ops.concat(rows, 0)
    return ops.reshape(out, tuple(idx.shape) + t.shape[1:])


def _gather_device(t, key):
    """Rows @key (an integer tensor) of @t, by a one-hot matmul."""
    n = t.shape[0]
    idx = ops.reshape(ops.cast(key, dtypes.float32), (-1, 1))
    pos = constant(np.arange(n, dtype=np.float32))
    onehot = ops.relu(1.0 - ops.abs(idx - pos))
    x = t if t.dtype is dtypes.float32 else ops.cast(t, dtypes.float32)
    rows = ops.matmul(onehot, ops.reshape(x, (n, -1)))
    out = ops.reshape(rows, tuple(key.shape) + t.shape[1:])
    return out if t.dtype is dtypes.float32 else ops.cast(out, t.dtype)
