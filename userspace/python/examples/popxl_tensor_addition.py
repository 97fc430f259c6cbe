#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The three kinds of tensors, as in the PopXL user guide's tensor
addition example: a variable plus a constant, the sum streamed to the
host; then the variable read back and written. Plain PopXL, run with
this tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_tensor_addition.py
"""
import numpy as np
import popxl
import popxl.ops as ops

ir = popxl.Ir()
with ir.main_graph:
    a = popxl.variable(3, dtype=popxl.int8, name="variable_a")
    b = popxl.constant(1, dtype=popxl.int8, name="constant_b")
    o = a + b
    o_d2h = popxl.d2h_stream(o.shape, o.dtype, name="output_stream")
    ops.host_store(o_d2h, o)

ir.num_host_transfers = 1
with popxl.Session(ir, "ipu_model") as session:
    first = session.run()[o_d2h]
    session.write_variable_data(a, np.int8(10))
    second = session.run()[o_d2h]
    a_now = session.get_tensor_data(a)

assert first == 4 and first.dtype == np.int8, first
assert second == 11 and a_now == 10 and a_now.shape == (), (second, a_now)
print("result", int(first), "then", int(second))
