#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Inputs passed by reference, as in the PopXL user guide's TensorByRef
example: a subgraph adds to its input in place; given the variable by
reference, each call updates the variable, given it by value, the
variable stays as it was. Repeated, the by-reference update accumulates
over the iterations. Plain PopXL, run with this tree's package on the
path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_tensor_by_ref.py
"""
import numpy as np
import popxl
import popxl.ops as ops


def increment_in_place(x: popxl.Tensor, value: popxl.Tensor):
    ops.add_(x, value)


# PopXL's way of asking for a reference: the parameter's type hint.
def increment_by_ref(x: popxl.TensorByRef, value: popxl.Tensor):
    ops.add_(x, value)


ir = popxl.Ir()
with ir.main_graph:
    by_ref = popxl.variable(np.array([1.0, 2.0], np.float32), name="by_ref")
    by_value = popxl.variable(np.array([1.0, 2.0], np.float32),
                              name="by_value")
    repeated = popxl.variable(np.zeros(2, np.float32), name="repeated")
    value = popxl.constant(np.array([0.5, 0.25], np.float32), name="value")

    ref_graph = ir.create_graph(increment_by_ref, by_ref, value)
    value_graph = ir.create_graph(increment_in_place, by_value, value)

    ops.call(ref_graph, by_ref, value)
    ops.call(ref_graph, by_ref, value)
    ops.call(value_graph, by_value, value)
    ops.repeat(ref_graph, 4, repeated, value)

with popxl.Session(ir, "ipu_model") as session:
    session.run()

got = {v.name: session.get_tensor_data(v)
       for v in (by_ref, by_value, repeated)}
np.testing.assert_array_equal(got["by_ref"], [2.0, 2.5])
np.testing.assert_array_equal(got["by_value"], [1.0, 2.0])
np.testing.assert_array_equal(got["repeated"], [2.0, 1.0])
print("result", got["by_ref"].tolist(), got["repeated"].tolist())
