# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""``popxl.in_sequence``: ops made inside run in the order they are made,
as a context manager and as a decorator; checked against NumPy with reads
and in-place updates of one tensor interleaved, where another order would
give other numbers."""
import numpy as np
import pytest

import ipu
from conftest import session

X = np.array([1.0, -2.0, 3.0], np.float32)


def _interleaved(x):
    """Reads of x between in-place updates of it: each read must see the
    updates before it and none after."""
    r1 = x * 1.0
    ipu.ops.add_(x, 1.0)
    r2 = x * 1.0
    ipu.ops.mul_(x, 3.0)
    r3 = x * 1.0
    ipu.ops.relu_(x)
    return r1, r2, r3


def _want():
    return X, X + 1, (X + 1) * 3, np.maximum((X + 1) * 3, 0)


def _run_and_check(ir, xs, outs):
    """Store @outs (r1, r2, r3, x) after building them in @ir's main graph,
    run with x = X, and compare with _want()."""
    with ir.main_graph:
        streams = [ipu.d2h_stream((3,), ipu.float32, name="o%d" % i)
                   for i in range(len(outs))]
        for s, t in zip(streams, outs):
            ipu.ops.host_store(s, t)
    with session(ir) as s:
        got = s.run({xs: X})
    for st, want in zip(streams, _want()):
        np.testing.assert_array_equal(got[st], want)


@pytest.mark.parametrize("enabled", [True, False])
def test_in_sequence_context_runs_ops_in_program_order(enabled):
    ir = ipu.Ir()
    with ir.main_graph:
        xs = ipu.h2d_stream((3,), ipu.float32, name="xs")
        x = ipu.ops.host_load(xs)
        with ipu.in_sequence(enabled):
            r1, r2, r3 = _interleaved(x)
    _run_and_check(ir, xs, [r1, r2, r3, x])


def test_in_sequence_decorates_a_subgraph_function():
    ir = ipu.Ir()

    @ipu.in_sequence()
    def body(x):
        r1, r2, r3 = _interleaved(x)
        return r1, r2, r3, x

    with ir.main_graph:
        xs = ipu.h2d_stream((3,), ipu.float32, name="xs")
        g = ir.create_graph(body, ipu.TensorSpec((3,), ipu.float32))
        outs = ipu.ops.call(g, ipu.ops.host_load(xs))
    _run_and_check(ir, xs, list(outs))


def test_in_sequence_nests_and_takes_a_bool_only():
    ir = ipu.Ir()
    with ir.main_graph:
        with ipu.in_sequence():
            with ipu.in_sequence(False):
                pass
    with pytest.raises(TypeError):
        ipu.in_sequence("yes")


def test_in_sequence_needs_no_graph_scope_and_gives_enabled():
    """As PopXL's: outside any graph, and ``as`` gives ``enabled``."""
    with ipu.in_sequence(False) as e:
        assert e is False
    with ipu.in_sequence() as e:
        assert e is True
