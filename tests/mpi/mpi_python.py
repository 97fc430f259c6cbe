# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""A Python program as an instance under mpirun (userspace/python/ipu/
instances.py, docs/instances.md); tests/mpi/test_mpi.sh runs it as 1x4,
2x2 and 4x1 and compares what every instance prints.

Four replicas; replica g feeds x = a vector seeded by g, then
total += replicated_all_reduce(x) and every += x, "every" retrieved from
all replicas. Each instance feeds its replicas only (S11 with its count)
and fetches both variables, which gathers the replicas of the others; it
prints their checksum (FNV-1a 64 of the float32 bytes), which must be
1x4's on every instance.
"""
import sys

import numpy as np

import ipu
import ipu.instances

REPLICAS = 4
N = 1031


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def main():
    ipu.instances.init()
    index, count = ipu.instances.index(), ipu.instances.count()
    irf = REPLICAS // count
    ir = ipu.Ir(name="python_instances")
    ir.replication_factor = REPLICAS
    ir.instance_replication_factor = irf
    with ir.main_graph:
        x_h2d = ipu.h2d_stream((N,), ipu.float32, name="x")
        total = ipu.variable(np.zeros(N, np.float32), name="total")
        every = ipu.variable(np.zeros(N, np.float32), name="every",
                             retrieval_mode="all_replicas")
        x = ipu.ops.host_load(x_h2d)
        ipu.ops.scaled_add_(total, ipu.ops.replicated_all_reduce(x))
        ipu.ops.scaled_add_(every, x)
    # Global replica g's x: magnitudes 1e-2 to 1e1, so that the order of
    # the all-reduce's sum shows in its bits.
    xs = np.stack([
        np.random.default_rng(g).standard_normal(N).astype(np.float32) *
        np.float32(10.0 ** (g - 2))
        for g in range(index * irf, index * irf + irf)])
    with ipu.Session(ir, "ipu_model") as s:
        s.run({x_h2d: xs if irf > 1 else xs[0]})
        got = [s.get_tensor_data(total), s.get_tensor_data(every)]
    h = fnv1a(b"".join(np.ascontiguousarray(a, np.float32).tobytes()
                       for a in got))
    print("instance %d: python weights checksum (FNV-1a 64): %016x"
          % (index, h))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
