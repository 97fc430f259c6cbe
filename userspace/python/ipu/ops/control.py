# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Running subgraphs: ``ops.call``, ``ops.call_with_info`` and
``ops.repeat``."""
from .. import _lib
from ..context import get_current_graph
from ..errors import IrError
from ..tensor import Tensor, check_ir
from ._util import current_ir, tensor_of


def _merge(graph, inputs, inputs_dict, what):
    """The caller's tensor for each input of @graph, in order: @inputs
    for the first ones, @inputs_dict (graph input -> tensor) for others."""
    ins = list(inputs)
    if not inputs_dict:
        return ins
    gins = graph._inputs
    if len(ins) > len(gins):
        return ins  # libipuir names the count that is wrong
    ins += [None] * (len(gins) - len(ins))
    for gt, t in inputs_dict.items():
        idx = next((i for i, g in enumerate(gins) if g == gt), None)
        if idx is None:
            raise IrError("%s: inputs_dict key %r is not an input of graph "
                          "'%s'" % (what, gt, graph.name))
        if ins[idx] is not None:
            raise IrError("%s: input %d '%s' of graph '%s' is given twice"
                          % (what, idx + 1, gt.name, graph.name))
        ins[idx] = t
    missing = [g.name for g, t in zip(gins, ins) if t is None]
    if missing:
        raise IrError("%s: graph '%s' inputs %s are not given" %
                      (what, graph.name, ", ".join(missing)))
    return ins


def _args(ir, graph, inputs, inputs_dict, what):
    if graph._ir is not ir:
        raise IrError("%s: graph '%s' belongs to another Ir" %
                      (what, graph.name))
    xs = [tensor_of(ir, t, None, what)
          for t in _merge(graph, inputs, inputs_dict, what)]
    arr = (_lib.Handle * max(len(xs), 1))(*[x._h for x in xs])
    nout = len(graph._outputs)
    outs = (_lib.Handle * max(nout, 1))()
    return xs, arr, outs, nout


class CallSiteInfo:
    """Where a call happened (PopXL's ``popxl.ops.CallSiteInfo``), from
    :func:`call_with_info`.

    Attributes:
        called_graph (ipu.Graph): the graph called.
        parent_graph (ipu.Graph): the graph the call is in.
        inputs (tuple of ipu.Tensor): the caller's tensors, one per input
            of the called graph.
        outputs (tuple of ipu.Tensor): the call's outputs.
    """

    def __init__(self, called, parent, inputs, outputs):
        self.called_graph = called
        self.parent_graph = parent
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)

    def graph_to_parent_input_index_map(self):
        """{i: i}: input i of the called graph is the call's input i."""
        return {i: i for i in range(len(self.inputs))}

    def parent_to_graph_input_index_map(self):
        """The inverse of :meth:`graph_to_parent_input_index_map`."""
        return {i: i for i in range(len(self.inputs))}

    def parent_input(self, idx):
        """The caller's tensor for input @idx."""
        return self.inputs[idx]

    def parent_output(self, idx):
        """Output @idx of the call."""
        return self.outputs[idx]

    def graph_to_parent(self, graph_tensor):
        """The caller's tensor passed for @graph_tensor, an input of the
        called graph, or the call's output for one of its outputs."""
        for g, p in zip(self.called_graph._inputs, self.inputs):
            if g == graph_tensor:
                return p
        for g, p in zip(self.called_graph._outputs, self.outputs):
            if g == graph_tensor:
                return p
        raise IrError("graph_to_parent: %r is no input or output of graph "
                      "'%s'" % (graph_tensor, self.called_graph.name))

    def __repr__(self):
        return "CallSiteInfo(%r)" % self.called_graph.name


def call_with_info(graph, *inputs, inputs_dict=None, check_inputs=True):
    """:func:`call`, returning a :class:`CallSiteInfo` (PopXL's
    ``ops.call_with_info``). @check_inputs is accepted; libipuir always
    checks them."""
    ir = current_ir()
    xs, arr, outs, nout = _args(ir, graph, inputs, inputs_dict, "call")
    check_ir(ir, _lib.ipu_ir_call(ir._c(), graph._h, arr, len(xs), outs,
                                  nout), "call '%s'" % graph.name)
    return CallSiteInfo(graph, get_current_graph(), xs,
                        [Tensor(ir, outs[i]) for i in range(nout)])


def call(graph, *inputs, inputs_dict=None):
    """Call subgraph @graph with one tensor per input (PopXL's
    ``ops.call``): positional @inputs for its first inputs, @inputs_dict
    (graph input -> tensor) for the others. An input the graph takes by
    reference (:class:`ipu.TensorByRef`) and updates in place updates the
    tensor passed. The graph is frozen from now on.

    Returns:
        tuple of ipu.Tensor: the call's outputs, one per graph output.
    """
    return call_with_info(graph, *inputs, inputs_dict=inputs_dict).outputs


def repeat(graph, repeat_count, *inputs, inputs_dict=None):
    """Run subgraph @graph @repeat_count times (PopXL's ``ops.repeat``).
    Its N outputs are loop-carried: output i becomes input i of the next
    iteration; the other inputs are as given in each iteration, unless
    taken by reference (:class:`ipu.TensorByRef`): then the iterations'
    in-place updates accumulate in the tensor passed. @inputs_dict as in
    :func:`call`.

    Returns:
        tuple of ipu.Tensor: the outputs of the last iteration (the carried
        inputs when @repeat_count is 0).
    """
    ir = current_ir()
    xs, arr, outs, nout = _args(ir, graph, inputs, inputs_dict, "repeat")
    check_ir(ir, _lib.ipu_ir_repeat(ir._c(), graph._h, int(repeat_count),
                                    arr, len(xs), outs, nout),
             "repeat '%s'" % graph.name)
    return tuple(Tensor(ir, outs[i]) for i in range(nout))
