# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Tensors of an Ir: the values ops produce, variables (device memory the
host writes before a run and reads after, ``ipu.variable``) and constants
(``ipu.constant``), as PopXL has them.

A tensor's name, dtype and shape are read from libipuir when it is made and
kept, so they stay readable after a Session has taken the Ir over.
"""
import ctypes
import errno
from typing import Iterable, Union

import numpy as np

from . import _lib, dtypes, fp8_utils
from .context import get_current_graph
from .errors import IrError, IrTypeError, prefixed

#: PopXL's type hints of what becomes a tensor: Python scalars, host arrays
#: (NumPy arrays or iterables of scalars), and those or tensors.
ScalarType = Union[int, float, bool]
HostTensor = Union[np.ndarray, Iterable[ScalarType]]
HostScalarTensor = Union[ScalarType, HostTensor]
TensorLike = Union["Tensor", HostScalarTensor]


class Tensor:
    """A tensor of an Ir (PopXL's ``popxl.Tensor``).

    Tensors support the arithmetic operators of the ops they stand for:
    ``a + b``, ``a - b``, ``a * b``, ``a / b``, ``a @ b``, ``-a``,
    ``abs(a)``, ``a.T``, ``a.reshape(shape)`` and slicing with ``a[i:j]``;
    Python numbers are made constants of the tensor's dtype. ``a += b`` is
    ``ops.add_(a, b)``: in place. ``a -= b``, ``*=`` and ``/=`` are
    ``a = a - b`` ...: a new tensor, as PopXL's (whose Tensor defines
    ``__iadd__`` only).

    Attributes:
        id (str): its name (PopXL's tensor id).
        name (str): the same.
        dtype (ipu.dtype): its element type.
        shape (tuple of int): its shape.
        ir (ipu.Ir): the Ir it belongs to.
    """

    def __init__(self, ir, handle):
        self._ir = ir
        self._h = handle
        c = ir._c()
        self.name = _lib.pystr(_lib.ipu_ir_tensor_name(c, handle))
        self.dtype = dtypes.from_code(_lib.ipu_ir_tensor_dtype(c, handle))
        shape = (ctypes.c_uint64 * _lib.IPU_EXE_MAX_DIMS)()
        nd = _lib.ipu_ir_tensor_shape(c, handle, shape)
        self.shape = tuple(int(shape[i]) for i in range(nd))
        # Graph.tensors: each tensor once, in the graph current when it
        # was made (a handle may be wrapped again, as by in-place ops).
        try:
            g = get_current_graph()
        except IrError:
            return
        if g.ir is ir and handle.id not in g._tensor_ids:
            g._tensor_ids.add(handle.id)
            g._tensors.append(self)

    @property
    def id(self):
        return self.name

    @property
    def ir(self):
        return self._ir

    @property
    def rank(self):
        """Number of dimensions."""
        return len(self.shape)

    @property
    def nelms(self):
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def spec(self):
        """A TensorSpec of its shape and dtype (PopXL's
        ``Tensor.spec``)."""
        return TensorSpec(self.shape, self.dtype)

    def __len__(self):
        """The size of the first dimension; ValueError for a scalar (as
        PopXL)."""
        if not self.shape:
            raise IrError("%r is a scalar: it has no length" % (self,))
        return self.shape[0]

    # As PopXL's: no iteration or `in` through __getitem__, and NumPy
    # leaves `array op tensor` to the tensor's reflected operators.
    __iter__ = None
    __contains__ = None
    __array_ufunc__ = None

    def __repr__(self):
        return "%s(%r, %s, %r)" % (type(self).__name__, self.name,
                                   self.dtype.name, self.shape)

    def __hash__(self):
        return hash((id(self._ir), self._h.id))

    def __eq__(self, other):
        # Identity of the tensor in its Ir (dict keys), not an elementwise
        # comparison: the IR has no comparison op.
        return (isinstance(other, Tensor) and other._ir is self._ir and
                other._h.id == self._h.id)

    def __ne__(self, other):
        return not self.__eq__(other)

    # Operators: the ops module imports this one, so import it late.
    def __add__(self, o):
        from . import ops
        return ops.add(self, o)

    def __radd__(self, o):
        from . import ops
        return ops.add(o, self)

    def __sub__(self, o):
        from . import ops
        return ops.sub(self, o)

    def __rsub__(self, o):
        from . import ops
        return ops.sub(o, self)

    def __mul__(self, o):
        from . import ops
        return ops.mul(self, o)

    def __rmul__(self, o):
        from . import ops
        return ops.mul(o, self)

    def __truediv__(self, o):
        from . import ops
        return ops.div(self, o)

    def __rtruediv__(self, o):
        from . import ops
        return ops.div(o, self)

    def __matmul__(self, o):
        from . import ops
        return ops.matmul(self, o)

    def __rmatmul__(self, o):
        from . import ops
        return ops.matmul(o, self)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __abs__(self):
        from . import ops
        return ops.abs(self)

    @property
    def T(self):
        """The transpose (axes reversed)."""
        from . import ops
        return ops.transpose(self)

    def transpose(self, permutation=None):
        """ops.transpose(self, permutation)."""
        from . import ops
        return ops.transpose(self, permutation)

    def reshape(self, shape):
        """ops.reshape(self, shape)."""
        from . import ops
        return ops.reshape(self, shape)

    # In-place: PopXL's ``t += x`` is ``ops.add_(t, x)``: the tensor itself
    # (a variable or not) is updated and the name stays bound to it.
    # PopXL's Tensor defines no other in-place operator, so ``t -= x``,
    # ``*=`` and ``/=`` are ``t = t - x`` ...: a new tensor, as there.
    def __iadd__(self, o):
        from . import ops
        return ops.add_(self, o)

    @property
    def T_(self):  # noqa: N802 (PopXL's name)
        """The transpose, as a view (ops.transpose_)."""
        from . import ops
        return ops.transpose_(self)

    def transpose_(self, permutation=None):
        """ops.transpose_(self, permutation)."""
        from . import ops
        return ops.transpose_(self, permutation)

    def reshape_(self, shape):
        """ops.reshape_(self, shape)."""
        from . import ops
        return ops.reshape_(self, shape)

    def flatten(self):
        """ops.flatten(self)."""
        from . import ops
        return ops.flatten(self)

    def flatten_(self):
        """ops.flatten_(self)."""
        from . import ops
        return ops.flatten_(self)

    def __getitem__(self, key):
        """As PopXL's ``Tensor.__getitem__``:

        - slicing, with ints, slices or a tuple of them: ``t[1:3]``,
          ``t[:, ::2]``, ``t[::-1]``; an int takes that element and drops
          the axis;
        - integer indexing, with a tensor, list or array of integers:
          ``ops.gather`` along axis 0, the result of shape
          ``key.shape + t.shape[1:]``;
        - boolean indexing, with a tensor, list or array of bools: a
          mask, broadcast NumPy-style, that keeps the elements where it
          is True and zeroes the others (the shape is kept).

        Raises:
            TypeError: a key of another kind (a bool, a string, a float
                ...).
            IndexError: an int or a host integer index out of range.
        """
        from . import _indexing
        if isinstance(key, (bool, np.bool_, str)):
            raise IrTypeError("%r: index %r: only ints, slices, and integer "
                              "or boolean tensors index a tensor" %
                              (self, key))
        basic = (slice, int, np.integer)
        if isinstance(key, basic) or (isinstance(key, tuple) and all(
                isinstance(k, basic) for k in key)):
            return self._slice_with(key if isinstance(key, tuple)
                                    else (key,))
        return _indexing.index(self, key)

    def _slice_with(self, key):
        """Basic slicing by a tuple of ints and slices."""
        from . import ops
        if len(key) > self.rank:
            raise IrError("%r: %d indices for %d dimensions" %
                          (self, len(key), self.rank))
        start, stop, step, axes, drop = [], [], [], [], []
        for ax, k in enumerate(key):
            if isinstance(k, slice):
                if k == slice(None):
                    continue
                # None bounds are Python's (ops.slice takes them).
                start.append(k.start)
                stop.append(k.stop)
                step.append(1 if k.step is None else k.step)
            else:
                i = int(k) + (self.shape[ax] if k < 0 else 0)
                if not 0 <= i < self.shape[ax]:
                    raise IndexError("index %d out of range for axis %d of "
                                     "%r" % (k, ax, self))
                start.append(i)
                stop.append(i + 1)
                step.append(1)
                drop.append(ax)
            axes.append(ax)
        t = ops.slice(self, start, stop, step, axes) if axes else self
        if drop:
            t = ops.reshape(t, [d for i, d in enumerate(t.shape)
                                if i not in drop])
        return t


class Variable(Tensor):
    """A variable (PopXL's ``popxl.Variable``): device memory whose value
    the host sets (the initial data, ``Session.write_variable_data``) and
    reads (``Session.get_tensor_data``).

    Attributes:
        replica_grouping (ipu.ReplicaGrouping): which replicas share a
            value (all of them by default).
        retrieval_mode (str): "one_per_group" or "all_replicas".
        shape_on_host (tuple of int): the shape of its host value:
            ``(num_groups,) + shape`` when grouped, else ``shape``.
        mmap_path (str or None), mmap_readonly (bool): a variable backed
            by a file (S22).
    """

    def __init__(self, ir, handle, grouping, retrieval_mode, mmap_path,
                 mmap_readonly):
        super().__init__(ir, handle)
        self.replica_grouping = grouping
        self.retrieval_mode = retrieval_mode
        self.mmap_path = mmap_path
        self.mmap_readonly = mmap_readonly

    @property
    def shape_on_host(self):
        g = self.replica_grouping.num_groups
        return ((g,) if g > 1 else ()) + self.shape


class Constant(Tensor):
    """A constant (PopXL's ``popxl.Constant``): a value fixed when the
    program is built."""

    _data = None  # its host value, set by constant()


def _check_handle(ir, h, what):
    """Raise libipuir's message when handle @h is a failure (its id is the
    -errno; a zeroed handle, which no call returns, is EINVAL)."""
    if h.id > 0:
        return h
    err = -h.id if h.id < 0 else errno.EINVAL
    raise IrError(prefixed(what, _lib.pystr(_lib.ipu_ir_errmsg(ir._c()))),
                  err)


def check_ir(ir, err, what):
    """Raise libipuir's message for a negative return @err."""
    if err < 0:
        raise IrError(prefixed(what, _lib.pystr(_lib.ipu_ir_errmsg(
            ir._c()))), -err)
    return err


def _shape_array(shape):
    shape = tuple(int(d) for d in shape)
    return shape, (ctypes.c_uint64 * max(len(shape), 1))(*shape)


def host_array(data, dt, what):
    """@data (array-like or number) as a C-contiguous NumPy array of ipu
    dtype @dt's host representation, converted as the device converts
    (ipu_dtype_convert: saturating, FP8 and bfloat16 from floats)."""
    # np.require, not np.ascontiguousarray: that makes 0-d data 1-d.
    arr = np.asarray(data)
    want = dt.as_numpy()
    if arr.dtype == want:
        return np.require(arr, requirements="C")
    if dt.is_fp8 and arr.dtype == np.uint8:
        # Codes of the tensor's format (dtypes.host_code()).
        return np.require(arr, requirements="C").view(want)
    src = dtypes.host_code(arr.dtype)
    if src is None:
        raise IrError("%s: data of NumPy dtype %s cannot become %s" %
                      (what, arr.dtype, dt.name))
    src_arr = np.require(arr, requirements="C")
    out = np.empty(arr.shape, want)
    _lib.ipu_dtype_convert(out.ctypes.data, dt._code, src_arr.ctypes.data,
                           src, src_arr.size)
    return out


def _initial(raw, dt, log2_scale, nan_on_overflow, what):
    """Host data @raw for a new tensor of dtype @dt: FP8 as PopXL makes it
    (fp8_utils.initial_data), other types by host_array."""
    arr = fp8_utils.initial_data(raw, dt, log2_scale, nan_on_overflow, what)
    return host_array(raw, dt, what) if arr is None else arr


def _default_dtype(arr, downcast, what):
    """PopXL's default: the data's dtype, 64-bit downcast to 32-bit (with
    @downcast; without, 64-bit data is an error: no device type holds
    it)."""
    if not downcast and arr.dtype in (np.float64, np.int64):
        raise IrError("%s: %s data and downcast=False: the device has no "
                      "64-bit types (give dtype= or 32-bit data)" %
                      (what, arr.dtype))
    if arr.dtype == np.float64:
        return dtypes.float32
    if arr.dtype == np.int64:
        return dtypes.int32
    return dtypes.from_numpy(arr.dtype)


def _name(ir, name, prefix):
    return ir._host_name(name, prefix)


def variable(data=None, dtype=None, name=None, downcast=True,
             replica_grouping=None, retrieval_mode=None, shape=None,
             mmap_path=None, mmap_readonly=False, log2_scale=None,
             nan_on_overflow=None):
    """Create a variable in the current graph's Ir (PopXL's
    ``popxl.variable``).

    Args:
        data (array-like or number): the initial value; with a replica
            grouping of more than one group, ``(num_groups,) + shape``
            values, one per group. None for zeros (give ``shape`` and
            ``dtype``), or with ``mmap_path``.
        dtype (ipu.dtype, optional): defaults to the data's, 64-bit types
            downcast to 32 bits.
        name (str, optional): defaults to "variable.N"; a name a
            variable, constant or stream of the Ir has is made unique as
            PopXL does, "name__tN" (the tensor's ``name`` says which).
        downcast (bool): without a dtype, store float64 and int64 data as
            float32 and int32 (default); with False such data is an error,
            the device having no 64-bit types.
        replica_grouping (ipu.ReplicaGrouping, optional): one value per
            group of replicas (S20); default: one value for all replicas.
        retrieval_mode (str, optional): "one_per_group" (default) or
            "all_replicas": what weights_to_host and get_tensor_data
            return.
        shape (tuple of int, optional): the shape, when ``data`` is None.
        mmap_path (str, optional): back the variable by this file, relative
            to the Session's ``data_dir`` (S22); ``data`` must then be None.
        mmap_readonly (bool): the file mapping is read-only (S05).
        log2_scale (int, optional), nan_on_overflow (bool, optional): for
            float8_143 and float8_152 only, as PopXL's: float data is cast
            with ``fp8_utils.host_pow2scale_cast_to_fp8(data, dtype,
            log2_scale or 0, nan_on_overflow in (None, True))``; data
            already FP8 is taken as it is.

    Returns:
        ipu.Variable

    Raises:
        ipu.IrError: libipuir's message (a duplicate name, a grouping that
            does not divide the replication factor, ...).
    """
    ir = get_current_graph().ir
    c = ir._c()
    if retrieval_mode not in (None, "one_per_group", "all_replicas"):
        raise IrError("variable: retrieval_mode %r: use 'one_per_group' or "
                      "'all_replicas'" % (retrieval_mode,))
    grouping = replica_grouping or ir.replica_grouping()
    if grouping._ir is not ir:
        raise IrError("variable: the replica grouping is of another Ir")
    arr = None
    if data is not None:
        if mmap_path is not None:
            raise IrError("variable: give data or mmap_path, not both")
        raw = np.asarray(data)
        dt = dtype or _default_dtype(raw, downcast, "variable")
        arr = _initial(raw, dt, log2_scale, nan_on_overflow, "variable")
        if shape is None:
            shape = arr.shape[1:] if grouping.num_groups > 1 else arr.shape
        elif arr.size != int(np.prod(shape, dtype=np.int64)) * \
                grouping.num_groups:
            raise IrError("variable: data of shape %s for shape %s" %
                          (arr.shape, tuple(shape)))
        want = ((grouping.num_groups,) if grouping.num_groups > 1 else ()) \
            + tuple(shape)
        if arr.shape != want and arr.size == int(np.prod(want)):
            arr = arr.reshape(want)
        elif arr.shape != want:
            raise IrError("variable: data of shape %s; with %d group(s) of "
                          "replicas the host shape is %s" %
                          (arr.shape, grouping.num_groups, want))
    else:
        if shape is None or dtype is None:
            raise IrError("variable: without data, give shape and dtype")
        dt = dtype
        _initial(np.zeros(0, np.float32), dt, log2_scale, nan_on_overflow,
                 "variable")
    shape, cshape = _shape_array(shape)
    opts = _lib.VariableOpts(sz=ctypes.sizeof(_lib.VariableOpts))
    if replica_grouping is not None:
        opts.grouping = replica_grouping._pointer()
    mode = retrieval_mode or "one_per_group"
    opts.retrieval = (_lib.IPU_EXE_RETRIEVE_ALL_REPLICAS
                      if mode == "all_replicas"
                      else _lib.IPU_EXE_RETRIEVE_ONE_PER_GROUP)
    opts.mmap_path = _lib.cstr(mmap_path)
    opts.mmap_readonly = bool(mmap_readonly)
    name = _name(ir, name, "variable")
    h = _lib.ipu_ir_variable(c, _lib.cstr(name), dt._code, len(shape),
                             cshape, None if arr is None else arr.ctypes.data,
                             ctypes.byref(opts))
    _check_handle(ir, h, "variable '%s'" % name)
    v = Variable(ir, h, grouping, mode, mmap_path, bool(mmap_readonly))
    ir._taken.add(v.name)
    ir._variables.append(v)
    return v


def constant(data, dtype=None, name=None, downcast=True, log2_scale=None,
             nan_on_overflow=None):
    """Create a constant in the current graph's Ir (PopXL's
    ``popxl.constant``).

    Args:
        data (array-like or number): the value.
        dtype (ipu.dtype, optional): defaults to the data's, 64-bit types
            downcast to 32 bits.
        name (str, optional): defaults to "const.N" (libipuir's); made
            unique as :func:`variable` makes it.
        downcast (bool): as for :func:`variable`.
        log2_scale (int, optional), nan_on_overflow (bool, optional): as
            for :func:`variable`.

    Returns:
        ipu.Constant
    """
    ir = get_current_graph().ir
    raw = np.asarray(data)
    dt = dtype or _default_dtype(raw, downcast, "constant")
    arr = _initial(raw, dt, log2_scale, nan_on_overflow, "constant")
    shape, cshape = _shape_array(arr.shape)
    name = _name(ir, name, None)
    h = _lib.ipu_ir_constant(ir._c(), _lib.cstr(name), dt._code, len(shape),
                             cshape, arr.ctypes.data)
    _check_handle(ir, h, "constant")
    t = Constant(ir, h)
    t._data = arr
    ir._taken.add(t.name)
    ir._constants.append(t)
    return t


def graph_input(shape, dtype, name=None, by_ref=False):
    """Add an input to the current graph, a subgraph not yet called
    (PopXL's ``popxl.graph_input``); passed by reference with @by_ref
    (see :class:`ipu.TensorByRef`).

    Returns:
        ipu.Tensor: the input, to use in the subgraph's ops.
    """
    g = get_current_graph()
    ir = g.ir
    shape, cshape = _shape_array(shape)
    name = name or ir._unique_name("input")
    h = _lib.ipu_ir_graph_input(ir._c(), _lib.cstr(name), dtype._code,
                                len(shape), cshape)
    _check_handle(ir, h, "graph_input '%s'" % name)
    if by_ref:
        check_ir(ir, _lib.ipu_ir_graph_input_by_ref(ir._c(), h),
                 "graph_input '%s'" % name)
        g._by_ref_ids.add(h.id)
    t = Tensor(ir, h)
    g._inputs.append(t)
    return t


def graph_output(t):
    """Make @t the next output of the current graph (PopXL's
    ``popxl.graph_output``)."""
    g = get_current_graph()
    ir = g.ir
    check_ir(ir, _lib.ipu_ir_graph_output(ir._c(), t._h), "graph_output")
    g._outputs.append(t)


class TensorSpec:
    """Shape and dtype of a subgraph input (PopXL's ``popxl.TensorSpec``),
    for :meth:`ipu.Ir.create_graph`."""

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    def __repr__(self):
        return "TensorSpec(%r, %s)" % (self.shape, self.dtype)
