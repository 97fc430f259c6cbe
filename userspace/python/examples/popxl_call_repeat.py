#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Subgraphs, as in the PopXL user guide's call and repeat examples: one
graph made from a function and called twice with different inputs, one
made from a Module holding its own weight input, and a graph repeated
with its output fed back as its input each iteration. Plain PopXL, run
with this tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_call_repeat.py
"""
import numpy as np
import popxl
import popxl.ops as ops


def increment(x: popxl.Tensor, value: popxl.Tensor) -> popxl.Tensor:
    return x + value


class Scale(popxl.Module):
    """x * w, the weight w an input of the graph."""

    def build(self, x: popxl.Tensor) -> popxl.Tensor:
        w = popxl.graph_input(x.shape, x.dtype, "w")
        return x * w


ir = popxl.Ir()
with ir.main_graph:
    x = popxl.variable(np.array([1.0, 2.0], np.float32), name="x")
    one = popxl.constant(np.ones(2, np.float32), name="one")
    ten = popxl.constant(np.full(2, 10.0, np.float32), name="ten")

    # call: the graph is made once and called with different inputs.
    inc = ir.create_graph(increment, x, one)
    (y,) = ops.call(inc, x, one)
    (z,) = ops.call(inc, y, ten)

    # A Module's graph: its extra input given by name.
    w = popxl.variable(np.array([3.0, -1.0], np.float32), name="w")
    scale = Scale()
    scale_graph = ir.create_graph(scale, z)
    (s,) = ops.call(scale_graph, z, inputs_dict={scale_graph.inputs[1]: w})

    # repeat: the output of iteration i is the input of iteration i + 1.
    (r,) = ops.repeat(inc, 4, x, one)

    streams = {}
    for name, t in (("y", y), ("z", z), ("s", s), ("r", r)):
        streams[name] = popxl.d2h_stream(t.shape, t.dtype, name=name)
        ops.host_store(streams[name], t)

with popxl.Session(ir, "ipu_model") as session:
    out = session.run()

got = {name: out[st] for name, st in streams.items()}
np.testing.assert_array_equal(got["y"], [2.0, 3.0])
np.testing.assert_array_equal(got["z"], [12.0, 13.0])
np.testing.assert_array_equal(got["s"], [36.0, -13.0])
np.testing.assert_array_equal(got["r"], [5.0, 6.0])
print("result", got["s"].tolist(), got["r"].tolist())
