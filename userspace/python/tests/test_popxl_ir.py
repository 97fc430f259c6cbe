# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``Ir(replication=1)`` constructor (issue 26): the replication
factor given when the Ir is made, and PopXL's errors for bad values."""
import numpy as np
import pytest

import ipu
from conftest import session


@pytest.mark.parametrize("make, want", [
    (lambda: ipu.Ir(), 1),
    (lambda: ipu.Ir(4), 4),
    (lambda: ipu.Ir(replication=2), 2),
    (lambda: ipu.Ir(np.int64(8)), 8),
])
def test_replication_sets_the_replication_factor(make, want):
    ir = make()
    assert ir.replication_factor == want
    # One process runs every replica unless told otherwise.
    assert ir.instance_replication_factor == want


def test_a_replicated_ir_runs_on_that_many_replicas():
    ir = ipu.Ir(replication=2)
    with ir.main_graph:
        x = ipu.h2d_stream((3,), ipu.float32, name="x")
        y = ipu.d2h_stream((3,), ipu.float32, name="y")
        t = ipu.ops.host_load(x)
        ipu.ops.host_store(
            y, ipu.ops.collectives.replicated_all_reduce(t))
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with session(ir) as s:
        out = s.run({x: data})[y]
    np.testing.assert_array_equal(out, [data.sum(0)] * 2)


@pytest.mark.parametrize("bad", [0, -2])
def test_a_replication_below_one_is_a_value_error(bad):
    with pytest.raises(ValueError, match=str(bad)):
        ipu.Ir(bad)


@pytest.mark.parametrize("bad", [2.5, "two", None, True])
def test_a_replication_that_is_no_int_is_a_type_error(bad):
    with pytest.raises(TypeError, match="replication"):
        ipu.Ir(bad)


def test_popdist_is_not_supported_and_says_what_to_use():
    # PopXL's 'popdist' reads poprun's settings; this stack splits a
    # program across processes with ipu.instances instead.
    with pytest.raises(NotImplementedError, match="ipu.instances"):
        ipu.Ir("popdist")


def test_the_name_is_a_keyword():
    ir = ipu.Ir(2, name="prog")
    assert ir.name == "prog" and ir.replication_factor == 2


def test_replication_cannot_change_once_a_session_has_the_ir():
    ir = ipu.Ir(2)
    with ir.main_graph:
        y = ipu.d2h_stream((1,), ipu.float32, name="y")
        ipu.ops.host_store(y, ipu.constant(np.float32([1])))
    session(ir)
    assert ir.replication_factor == 2
    with pytest.raises(RuntimeError, match="Session"):
        ir.replication_factor = 4
