#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Replication with replica groupings, as in the PopXL user guide: four
replicas, each streaming its own input; a weight with one value per group
of two replicas; an all-reduce over every replica and one within each
group; and the weight read back one value per group and for every
replica. Plain PopXL, run with this tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_replication.py
"""
import numpy as np
import popxl
import popxl.ops as ops

REPLICAS = 4
ir = popxl.Ir(replication=REPLICAS)
with ir.main_graph:
    pairs = ir.replica_grouping(group_size=2)       # replicas [0, 0, 1, 1]
    assert pairs.assignment == [0, 0, 1, 1]
    w = popxl.variable(np.array([[1.0, 2.0], [10.0, 20.0]], np.float32),
                       name="w", replica_grouping=pairs)
    w_all = popxl.variable(np.array([[1.0, 1.0], [2.0, 2.0]], np.float32),
                           name="w_all", replica_grouping=pairs,
                           retrieval_mode="all_replicas")

    x_h2d = popxl.h2d_stream((2,), popxl.float32, name="x")
    x = ops.host_load(x_h2d)
    y = x * w
    total = ops.collectives.replicated_all_reduce(y)
    in_pair = ops.collectives.replicated_all_reduce(y, group=pairs)

    outs = {}
    for name, t in (("y", y), ("total", total), ("in_pair", in_pair)):
        outs[name] = popxl.d2h_stream(t.shape, t.dtype, name=name)
        ops.host_store(outs[name], t)

x = np.arange(REPLICAS * 2, dtype=np.float32).reshape(REPLICAS, 2)
with popxl.Session(ir, "ipu_model") as session:
    out = session.run({x_h2d: x})
    w_host = session.get_tensor_data(w)
    w_all_host = session.get_tensor_data(w_all)

# What each replica holds: the weight of its group.
w_rep = np.array([[1.0, 2.0]] * 2 + [[10.0, 20.0]] * 2, np.float32)
y_want = x * w_rep
np.testing.assert_array_equal(out[outs["y"]], y_want)
np.testing.assert_array_equal(out[outs["total"]],
                              np.tile(y_want.sum(0), (REPLICAS, 1)))
pair_sums = [y_want[0:2].sum(0), y_want[2:4].sum(0)]
np.testing.assert_array_equal(out[outs["in_pair"]],
                              np.repeat(pair_sums, 2, axis=0))
np.testing.assert_array_equal(w_host, [[1.0, 2.0], [10.0, 20.0]])
np.testing.assert_array_equal(w_all_host,
                              [[1.0, 1.0], [1.0, 1.0], [2.0, 2.0],
                               [2.0, 2.0]])
print("result", out[outs["total"]][0].tolist())
