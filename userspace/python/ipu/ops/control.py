# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Running subgraphs: ``ops.call``, ``ops.call_with_info``, ``ops.repeat``
and ``ops.repeat_with_info``."""
import operator
from collections.abc import Iterable

import numpy as np

from .. import _lib
from ..context import get_current_graph
from ..errors import IrError, IrTypeError, UnsupportedError
from ..tensor import Tensor, check_ir
from ._util import current_ir, tensor_of


def _flatten(inputs):
    """@inputs with each iterable among them (a list, a tuple, ...; not a
    string) replaced by its elements, one level deep, as PopXL's call and
    repeat take ``*inputs: Union[TensorLike, Iterable[TensorLike]]``. A
    NumPy array is iterable too: its rows become inputs, as in PopXL; a
    0-d array, which NumPy cannot iterate, is one input."""
    flat = []
    for x in inputs:
        if (isinstance(x, Iterable) and not isinstance(x, str) and
                not (isinstance(x, np.ndarray) and x.ndim == 0)):
            flat.extend(x)
        else:
            flat.append(x)
    return flat


def _merge(graph, ins, inputs_dict, what):
    """The caller's tensor for each input of @graph, in order: @ins (the
    inputs flattened) for the first ones, @inputs_dict (graph input ->
    tensor) for others."""
    ins = list(ins)
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


def _unchecked(graph, ins, inputs_dict, what):
    """PopXL's check_inputs=False: inputs may be left out, and its call op
    leaves them unconnected. libipuir connects every input of a call, so
    leaving one out is refused as unsupported (rather than as a mistake,
    the ValueError of check_inputs=True)."""
    given = len(ins) + len(inputs_dict or {})
    if given < len(graph._inputs):
        raise UnsupportedError(
            "%s: graph '%s' takes %d inputs, %d given: with "
            "check_inputs=False PopXL leaves the others unconnected; "
            "libipuir connects every input" %
            (what, graph.name, len(graph._inputs), given))


def _args(ir, graph, inputs, inputs_dict, what, check_inputs=True):
    if graph._ir is not ir:
        raise IrError("%s: graph '%s' belongs to another Ir" %
                      (what, graph.name))
    # Flattened once: an input may be a generator, empty after one pass.
    ins = _flatten(inputs)
    if not check_inputs:
        _unchecked(graph, ins, inputs_dict, what)
    gins = graph._inputs
    # A number or an array is made a constant of the graph input's dtype,
    # as PopXL's call does.
    xs = [tensor_of(ir, t, gins[i] if i < len(gins) else None, what)
          for i, t in enumerate(_merge(graph, ins, inputs_dict, what))]
    arr = (_lib.Handle * max(len(xs), 1))(*[x._h for x in xs])
    nout = len(graph._outputs)
    outs = (_lib.Handle * max(nout, 1))()
    return xs, arr, outs, nout


class CallSiteInfo:
    """Where a graph was called or repeated (PopXL's
    ``popxl.ops.CallSiteInfo``), from :func:`call_with_info` and
    :func:`repeat_with_info`. Input i of the called graph is input i of
    the call site, output i its output i: the index maps are identities.

    Attributes:
        called_graph (ipu.Graph): the graph called or repeated.
        parent_graph (ipu.Graph): the graph the call site is in.
        inputs (tuple of ipu.Tensor): the caller's tensors, one per input
            of the called graph.
        outputs (tuple of ipu.Tensor): the call site's outputs.
    """

    def __init__(self, called, parent, inputs, outputs):
        self.called_graph = called
        self.parent_graph = parent
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)

    @staticmethod
    def _index(idx, n, what):
        if not 0 <= idx < n:
            raise IndexError("%s: index %d is out of range (%d)" %
                             (what, idx, n))
        return idx

    def graph_to_parent_input_index(self, idx):
        """The call site's input index of the called graph's input @idx."""
        return self._index(idx, len(self.inputs), "graph input")

    def parent_to_graph_input_index(self, idx):
        """The called graph's input index of the call site's input @idx."""
        return self._index(idx, len(self.inputs), "parent input")

    def graph_to_parent_output_index(self, idx):
        """The call site's output index of the called graph's output
        @idx."""
        return self._index(idx, len(self.outputs), "graph output")

    def parent_to_graph_output_index(self, idx):
        """The called graph's output index of the call site's output
        @idx."""
        return self._index(idx, len(self.outputs), "parent output")

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
        """Output @idx of the call site."""
        return self.outputs[idx]

    def graph_to_parent(self, graph_tensor):
        """The caller's tensor passed for @graph_tensor, an input of the
        called graph, or the call site's output for one of its outputs.

        Raises:
            ipu.IrError (a ValueError, as PopXL's): @graph_tensor is
                neither.
        """
        for g, p in zip(self.called_graph._inputs, self.inputs):
            if g == graph_tensor:
                return p
        for g, p in zip(self.called_graph._outputs, self.outputs):
            if g == graph_tensor:
                return p
        raise IrError("graph_to_parent: %r is no input or output of graph "
                      "'%s'" % (graph_tensor, self.called_graph.name))

    def parent_to_graph(self, parent_tensor):
        """The called graph's input that @parent_tensor is passed to (the
        first, if passed to several).

        Raises:
            ipu.IrError (a ValueError, as PopXL's): @parent_tensor is no
                input of the call site.
        """
        for g, p in zip(self.called_graph._inputs, self.inputs):
            if p == parent_tensor:
                return g
        raise IrError("parent_to_graph: %r is no input of the call site of "
                      "graph '%s'" % (parent_tensor,
                                      self.called_graph.name))

    def set_parent_input_modified(self, parent_tensor,
                                  infer_modified_regions=True):
        """Have the call site update @parent_tensor as its graph updates
        the input it is passed to (PopXL's). libipuir decides that when
        the graph is made, not at the call site: an input taken by
        reference (:class:`ipu.TensorByRef`) is already so, which this
        accepts; for one taken by value it raises.

        Raises:
            ipu.IrError: @parent_tensor is no input of the call site.
            ipu.UnsupportedError (a NotImplementedError): its input is
                taken by value.
        """
        g = self.parent_to_graph(parent_tensor)
        if g._h.id not in self.called_graph._by_ref_ids:
            raise UnsupportedError(
                "set_parent_input_modified: input '%s' of graph '%s' is "
                "taken by value; libipuir cannot pass it by reference once "
                "the graph is made: make the graph with TensorByRef for it"
                % (g.name, self.called_graph.name))

    def __repr__(self):
        return "CallSiteInfo(%r)" % self.called_graph.name


def call_with_info(graph, *inputs, inputs_dict=None, check_inputs=True):
    """:func:`call`, returning a :class:`CallSiteInfo` (PopXL's
    ``ops.call_with_info``). @check_inputs=False lets PopXL leave inputs
    unconnected, which libipuir cannot: ipu.UnsupportedError (a
    NotImplementedError) if an input is left out then; other inputs are
    always checked."""
    ir = current_ir()
    xs, arr, outs, nout = _args(ir, graph, inputs, inputs_dict, "call",
                                check_inputs)
    check_ir(ir, _lib.ipu_ir_call(ir._c(), graph._h, arr, len(xs), outs,
                                  nout), "call '%s'" % graph.name)
    return CallSiteInfo(graph, get_current_graph(), xs,
                        [Tensor(ir, outs[i]) for i in range(nout)])


def call(graph, *inputs, inputs_dict=None):
    """Call subgraph @graph with one tensor per input (PopXL's
    ``ops.call``): positional @inputs for its first inputs (an iterable
    among them, a list say, gives its elements, as PopXL's), @inputs_dict
    (graph input -> tensor) for the others. A number or an array is made
    a constant of its graph input's dtype. An input the graph takes by
    reference (:class:`ipu.TensorByRef`) and updates in place updates the
    tensor passed. The graph is frozen from now on.

    Returns:
        tuple of ipu.Tensor: the call's outputs, one per graph output.
    """
    return call_with_info(graph, *inputs, inputs_dict=inputs_dict).outputs


def repeat_with_info(graph, repeat_count, *inputs, inputs_dict=None,
                     check_inputs=True):
    """:func:`repeat`, returning a :class:`CallSiteInfo` (PopXL's
    ``ops.repeat_with_info``) whose called graph is @graph.
    @check_inputs as in :func:`call_with_info`.

    Raises:
        ipu.IrTypeError (a TypeError, as PopXL's binding raises):
            @repeat_count is not an integer (2.5, and 3.0 too: a count is
            counted, and rounding one would run a loop a time more or less
            than written).
        ipu.IrError (a ValueError, as PopXL's): @repeat_count < 0, or
            libipuir's refusal (fewer inputs than outputs, ...).
        ipu.UnsupportedError: an input left out with check_inputs=False.
    """
    try:
        count = operator.index(repeat_count)
    except TypeError:
        raise IrTypeError("repeat: repeat_count must be an integer, not %r "
                          "(graph '%s')" % (repeat_count, graph.name)) \
            from None
    if count < 0:
        raise IrError("repeat: repeat_count must be >= 0, not %d (graph "
                      "'%s')" % (count, graph.name))
    ir = current_ir()
    xs, arr, outs, nout = _args(ir, graph, inputs, inputs_dict, "repeat",
                                check_inputs)
    check_ir(ir, _lib.ipu_ir_repeat(ir._c(), graph._h, count,
                                    arr, len(xs), outs, nout),
             "repeat '%s'" % graph.name)
    return CallSiteInfo(graph, get_current_graph(), xs,
                        [Tensor(ir, outs[i]) for i in range(nout)])


def repeat(graph, repeat_count, *inputs, inputs_dict=None,
           check_inputs=True):
    """Run subgraph @graph @repeat_count times (PopXL's ``ops.repeat``).
    Its N outputs are loop-carried: output i becomes input i of the next
    iteration; the other inputs are as given in each iteration, unless
    taken by reference (:class:`ipu.TensorByRef`): then the iterations'
    in-place updates accumulate in the tensor passed. @inputs and
    @inputs_dict as in :func:`call`; @check_inputs as in
    :func:`call_with_info` (PopXL's API reference lists it among
    repeat's arguments, though its own repeat takes it only in
    repeat_with_info).

    Returns:
        tuple of ipu.Tensor: the outputs of the last iteration (the carried
        inputs when @repeat_count is 0).
    """
    return repeat_with_info(graph, repeat_count, *inputs,
                            inputs_dict=inputs_dict,
                            check_inputs=check_inputs).outputs
