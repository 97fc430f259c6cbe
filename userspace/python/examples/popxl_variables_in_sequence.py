#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Variables and in_sequence, as in the PopXL user guide: a weight
updated in place by an SGD step each run, read back with
get_tensor_data and overwritten with write_variable_data between runs;
inside ``popxl.in_sequence()``, reads and in-place updates of a variable
happen in the order the program gives them. Plain PopXL, run with this
tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_variables_in_sequence.py
"""
import numpy as np
import popxl
import popxl.ops as ops

ir = popxl.Ir()
with ir.main_graph:
    w = popxl.variable(np.array([1.0, -2.0, 4.0], np.float32), name="w")
    grad = popxl.constant(np.array([0.5, 0.5, -1.0], np.float32),
                          name="grad")
    counter = popxl.variable(np.float32(0), name="counter")

    with popxl.in_sequence():
        before = w * 1.0                       # w as the run found it
        ops.var_updates.scaled_add_(w, grad, b=-0.5)  # w -= 0.5 * grad
        after = w * 1.0                        # w after the step
        counter += 1.0

    streams = {}
    for name, t in (("before", before), ("after", after)):
        streams[name] = popxl.d2h_stream(t.shape, t.dtype, name=name)
        ops.host_store(streams[name], t)

with popxl.Session(ir, "ipu_model") as session:
    first = session.run()
    w1 = session.get_tensor_data(w)
    session.write_variable_data(w, np.zeros(3, np.float32))
    second = session.run()
    runs = session.get_tensor_data(counter)

step = np.array([-0.25, -0.25, 0.5], np.float32)
np.testing.assert_array_equal(first[streams["before"]], [1.0, -2.0, 4.0])
np.testing.assert_array_equal(first[streams["after"]], [1.0, -2.0, 4.0] + step)
np.testing.assert_array_equal(w1, [1.0, -2.0, 4.0] + step)
np.testing.assert_array_equal(second[streams["before"]], [0.0, 0.0, 0.0])
np.testing.assert_array_equal(second[streams["after"]], step)
assert runs == 2 and runs.shape == (), runs
print("result", w1.tolist(), int(runs))
