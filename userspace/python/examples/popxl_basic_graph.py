#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""A subgraph made from a Python function and called from the main graph,
as in the PopXL user guide's basic graph example; plain PopXL, run with
this tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_basic_graph.py
"""
import numpy as np
import popxl
import popxl.ops as ops

ir = popxl.Ir()


def plus_one(x: popxl.Tensor):
    """The subgraph: its input plus a host array of ones."""
    return x + np.ones(x.shape, x.dtype.as_numpy())


with ir.main_graph:
    in_h2d = popxl.h2d_stream([2, 2], popxl.float32, name="in_stream")
    x = ops.host_load(in_h2d, "x")
    graph = ir.create_graph(plus_one, x)
    (y,) = ops.call(graph, x)
    out_d2h = popxl.d2h_stream(y.shape, y.dtype, name="out_stream")
    ops.host_store(out_d2h, y)

data = np.random.default_rng(0).random((2, 2), np.float32)
with popxl.Session(ir, "ipu_model") as session:
    out = session.run({in_h2d: data})[out_d2h]

np.testing.assert_allclose(out, data + 1, rtol=1e-6)
print("input", data.tolist())
print("result", out.tolist())
