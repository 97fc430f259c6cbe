# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Graphs of an Ir (PopXL's ``popxl.Graph``) and the virtual-graph scope
``ipu.ipu(n)``."""
from . import _lib, context
from .tensor import check_ir


class Graph:
    """A graph of an Ir: the main graph (what a run executes) or a
    subgraph made by :meth:`ipu.Ir.create_graph`, run with ``ops.call`` or
    ``ops.repeat``.

    ``with graph:`` makes it the current graph: ops, variables and streams
    created inside go into it (scopes nest).

    Attributes:
        name (str): the graph's name ("main" for the main graph).
        ir (ipu.Ir): its Ir.
        inputs (tuple of ipu.Tensor), outputs (tuple of ipu.Tensor): a
            subgraph's inputs and outputs, in order.
    """

    def __init__(self, ir, handle, name):
        self._ir = ir
        self._h = handle
        self.name = name
        self._inputs = []
        self._outputs = []
        self._tensors = []
        self._tensor_ids = set()
        # Handle ids of the inputs taken by reference (TensorByRef).
        self._by_ref_ids = set()

    @property
    def ir(self):
        return self._ir

    @property
    def inputs(self):
        """Its inputs, in order (a tuple, as PopXL's)."""
        return tuple(self._inputs)

    @property
    def outputs(self):
        """Its outputs, in order (a tuple, as PopXL's)."""
        return tuple(self._outputs)

    @property
    def tensors(self):
        """Every tensor made in it (inputs, op outputs, and the variables
        and constants made while it was the current graph), in creation
        order (PopXL's ``Graph.tensors``)."""
        return tuple(self._tensors)

    @property
    def variables(self):
        """The variables made in it (PopXL's ``Graph.variables``): those
        of the main graph are all of the Ir's."""
        from .tensor import Variable
        return tuple(t for t in self._tensors if isinstance(t, Variable))

    @property
    def constants(self):
        """The constants made in it (PopXL's ``Graph.constants``)."""
        from .tensor import Constant
        return tuple(t for t in self._tensors if isinstance(t, Constant))

    def __enter__(self):
        ir = self._ir
        check_ir(ir, _lib.ipu_ir_push_graph(ir._c(), self._h),
                 "entering graph '%s'" % self.name)
        context.push(self)
        return self

    def __exit__(self, *exc):
        context.pop()
        # The Ir may have gone to a Session inside the scope.
        if self._ir._ptr:
            _lib.ipu_ir_pop_graph(self._ir._ptr)
        return False

    def __repr__(self):
        return "Graph(%r)" % self.name


class ipu:  # noqa: N801 (PopXL's name: `with popxl.ipu(1):`)
    """``with ipu.ipu(n):``: ops created inside run on virtual graph (IPU)
    ``n`` of each replica. The number of IPUs a program needs follows from
    the highest one used (S03)."""

    def __init__(self, vgid):
        self.vgid = int(vgid)
        self._ir = None

    def __enter__(self):
        self._ir = context.current_ir()
        check_ir(self._ir, _lib.ipu_ir_push_ipu(self._ir._c(), self.vgid),
                 "ipu(%d)" % self.vgid)
        return self

    def __exit__(self, *exc):
        if self._ir._ptr:
            _lib.ipu_ir_pop_ipu(self._ir._ptr)
        return False


class TensorByRef:
    """An argument of :meth:`ipu.Ir.create_graph` whose graph input is
    passed by reference (PopXL's ``popxl.TensorByRef``): an in-place
    update of the input inside the graph updates the tensor each call or
    repeat passes. Other inputs are passed by value.

    Attributes:
        tensor (ipu.Tensor or ipu.TensorSpec): gives the input's shape and
            dtype.
    """

    def __init__(self, tensor):
        self.tensor = tensor
        self.shape = tensor.shape
        self.dtype = tensor.dtype

    def __repr__(self):
        return "TensorByRef(%r)" % (self.tensor,)


class Module:
    """A reusable piece of a program (PopXL's ``popxl.Module``): subclass
    it, define ``build(self, ...)`` (the graph's body, taking its inputs and
    returning its outputs), and make a graph of it with
    ``ir.create_graph(module, *args)`` or ``module.create_graph(*args)``.
    Calling the module calls ``build``."""

    def build(self, *args, **kwargs):
        raise NotImplementedError("%s.build: a Module subclass defines "
                                  "build()" % type(self).__name__)

    def __call__(self, *args, **kwargs):
        return self.build(*args, **kwargs)

    @property
    def __signature__(self):
        # create_graph names the graph's inputs after build's parameters.
        import inspect
        return inspect.signature(self.build)

    @property
    def __name__(self):
        return type(self).__name__

    def create_graph(self, *args, **kwargs):
        """``gcg().ir.create_graph(self, *args, **kwargs)``."""
        return context.current_ir().create_graph(self, *args, **kwargs)
