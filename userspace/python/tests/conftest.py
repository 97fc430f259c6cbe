# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Setup of the Python package's tests, as tests/unit/session_helpers.h
does for the C suite: 16 small model IPUs, no IPU_DEVICE or
IPU_OFFLINE_DEVICE, the machine's own devices hidden, so that no test
depends on the machine; and helpers that build the suite's programs."""
import os
import sys

import numpy as np
import pytest

# The package from this tree, whatever the working directory.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

os.environ["IPU_MODEL_DEVICES"] = "16"
os.environ["IPU_MODEL_MEM_MB"] = "64"
os.environ.pop("IPU_DEVICE", None)
os.environ.pop("IPU_OFFLINE_DEVICE", None)
os.environ.pop("IPU_MODEL_FAULTS", None)

import ipu  # noqa: E402
from hooks import hooks  # noqa: E402


@pytest.fixture(autouse=True)
def _model():
    """Every test starts on a fresh model with no faults and no hardware
    (the model is reinitialised so each reads the environment again)."""
    assert hooks.set_sysfs_root(b"/nonexistent-ipu-sysfs") == 0
    assert hooks.set_dev_root(b"/nonexistent-ipu-dev") == 0
    hooks.faults_set(None)
    yield
    hooks.faults_set(None)


def acc_ir(replicas=1, transfers=1, n=2, grouping=None, retrieval_mode=None,
           mmap_path=None, mmap_readonly=False):
    """The suite's accumulator (session_helpers.h's sh_acc_ir): variable
    "w" (float32[n], w[i] = 100 * g + i + 1 in group g) and, per host
    transfer in a repeated subgraph, x = host_load("x"); w += x;
    host_store("y", w + 0). @grouping(ir) makes the replica grouping.

    Returns:
        (ir, x stream, y stream, w)
    """
    ir = ipu.Ir(name="test")
    ir.replication_factor = replicas
    ir.num_host_transfers = transfers
    with ir.main_graph:
        g = grouping(ir) if grouping else None
        groups = g.num_groups if g else 1
        init = np.array([[k * 100 + i + 1 for i in range(n)]
                         for k in range(groups)], np.float32)
        if groups == 1:
            init = init[0]
        if mmap_path:
            w = ipu.variable(None, ipu.float32, "w", shape=(n,),
                             replica_grouping=g,
                             retrieval_mode=retrieval_mode,
                             mmap_path=mmap_path,
                             mmap_readonly=mmap_readonly)
        else:
            w = ipu.variable(init, ipu.float32, "w", replica_grouping=g,
                             retrieval_mode=retrieval_mode)
        x = ipu.h2d_stream((n,), ipu.float32, name="x")
        y = ipu.d2h_stream((n,), ipu.float32, name="y")

        def step():
            t = ipu.ops.host_load(x)
            ipu.ops.scaled_add_(w, t)
            ipu.ops.host_store(y, w + 0.0)

        ipu.ops.repeat(ir.create_graph(step), transfers)
    return ir, x, y, w


def session(ir, device="ipu_model", **kw):
    """A session on the model; attaching never waits for busy IPUs."""
    kw.setdefault("attach_timeout_ms", 1)
    return ipu.Session(ir, device, **kw)
