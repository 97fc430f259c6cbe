# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Running subgraphs: ``ops.call`` and ``ops.repeat``."""
from .. import _lib
from ..errors import IrError
from ..tensor import Tensor, check_ir
from ._util import current_ir, tensor_of


def _args(ir, graph, inputs, what):
    if graph._ir is not ir:
        raise IrError("%s: graph '%s' belongs to another Ir" %
                      (what, graph.name))
    xs = [tensor_of(ir, t, None, what) for t in inputs]
    arr = (_lib.Handle * max(len(xs), 1))(*[x._h for x in xs])
    nout = len(graph._outputs)
    outs = (_lib.Handle * max(nout, 1))()
    return arr, len(xs), outs, nout


def call(graph, *inputs):
    """Call subgraph @graph with one tensor per input (PopXL's
    ``ops.call``). The graph is frozen from now on.

    Returns:
        tuple of ipu.Tensor: the call's outputs, one per graph output.
    """
    ir = current_ir()
    arr, n, outs, nout = _args(ir, graph, inputs, "call")
    check_ir(ir, _lib.ipu_ir_call(ir._c(), graph._h, arr, n, outs, nout),
             "call '%s'" % graph.name)
    return tuple(Tensor(ir, outs[i]) for i in range(nout))


def repeat(graph, repeat_count, *inputs):
    """Run subgraph @graph @repeat_count times (PopXL's ``ops.repeat``).
    Its N outputs are loop-carried: output i becomes input i of the next
    iteration; the other inputs stay as given.

    Returns:
        tuple of ipu.Tensor: the outputs of the last iteration (the carried
        inputs when @repeat_count is 0).
    """
    ir = current_ir()
    arr, n, outs, nout = _args(ir, graph, inputs, "repeat")
    check_ir(ir, _lib.ipu_ir_repeat(ir._c(), graph._h, int(repeat_count),
                                    arr, n, outs, nout),
             "repeat '%s'" % graph.name)
    return tuple(Tensor(ir, outs[i]) for i in range(nout))
