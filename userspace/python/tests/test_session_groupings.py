# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Replica groupings (S20), as tests/unit/test_session_groupings.c."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session


def xs_per_replica(r, n):
    """One input per replica: replica k adds 10 * (k + 1) to each value."""
    return np.repeat(10 * np.arange(1, r + 1, dtype=np.float32), n) \
        .reshape(r, n)


def test_S20_host_shape_is_one_value_per_group():
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(1, 2))
    assert w.replica_grouping.num_groups == 2
    assert w.shape == (2,) and w.shape_on_host == (2, 2)
    s = session(ir)
    np.testing.assert_array_equal(s.get_tensor_data(w), [[1, 2], [101, 102]])


def test_S20_replicas_get_their_group_value():
    # Groups {0, 1} and {2, 3}: each replica starts from its group's value.
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(1, 2))
    with session(ir) as s:
        out = s.run({x: np.zeros((4, 2), np.float32)})[y]
    np.testing.assert_array_equal(out, [[1, 2], [1, 2], [101, 102],
                                        [101, 102]])


def test_S20_one_per_group_reads_each_groups_first():
    # Stride 2: groups {0, 2} and {1, 3}; the first of each is 0 and 1.
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(2, 2))
    assert w.replica_grouping.assignment_list == [0, 1, 0, 1]
    with session(ir) as s:
        s.run({x: xs_per_replica(4, 2)})
        got = s.get_tensor_data(w)
    np.testing.assert_array_equal(got, [[11, 12], [121, 122]])


def test_S20_all_replicas_returns_every_replica():
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(1, 2),
                         retrieval_mode="all_replicas")
    with session(ir) as s:
        s.run({x: xs_per_replica(4, 2)})
        got = s.get_tensor_data(w)
    np.testing.assert_array_equal(got, [[11, 12], [21, 22], [131, 132],
                                        [141, 142]])


def test_S20_all_replicas_cannot_be_written():
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(1, 2),
                         retrieval_mode="all_replicas")
    s = session(ir)
    with pytest.raises(ipu.UnsupportedError, match="all_replicas") as e:
        s.write_variable_data(w, np.zeros((4, 2), np.float32))
    assert isinstance(e.value, NotImplementedError)


def test_S20_grouped_write_reaches_each_group():
    ir, x, y, w = acc_ir(replicas=4, n=2,
                         grouping=lambda ir: ir.replica_grouping(1, 2))
    with session(ir) as s:
        s.write_variable_data(w, np.array([[5, 6], [7, 8]], np.float32))
        out = s.run({x: np.zeros((4, 2), np.float32)})[y]
    np.testing.assert_array_equal(out, [[5, 6], [5, 6], [7, 8], [7, 8]])


def test_S20_non_constant_stride_grouping_replicas_get_their_group_value():
    # Replicas 0 and 3 in group 0, 1 and 2 in group 1.
    ir, x, y, w = acc_ir(
        replicas=4, n=2,
        grouping=lambda ir: ir.replica_grouping_from_assignments([0, 1, 1,
                                                                  0]))
    assert not w.replica_grouping.is_const
    assert w.replica_grouping.assignment_list == [0, 1, 1, 0]
    assert w.shape_on_host == (2, 2)
    with session(ir) as s:
        out = s.run({x: np.zeros((4, 2), np.float32)})[y]
        np.testing.assert_array_equal(out, [[1, 2], [101, 102], [101, 102],
                                            [1, 2]])
        s.run({x: xs_per_replica(4, 2)})
        # one_per_group: group 0's first replica is 0, group 1's is 1.
        np.testing.assert_array_equal(s.get_tensor_data(w),
                                      [[11, 12], [121, 122]])


def test_S20_non_constant_stride_grouping_all_replicas_in_replica_order():
    ir, x, y, w = acc_ir(
        replicas=4, n=2, retrieval_mode="all_replicas",
        grouping=lambda ir: ir.replica_grouping_from_assignments([0, 1, 1,
                                                                  0]))
    with session(ir) as s:
        s.run({x: xs_per_replica(4, 2)})
        got = s.get_tensor_data(w)
    np.testing.assert_array_equal(got, [[11, 12], [121, 122], [131, 132],
                                        [41, 42]])


def test_S20_grouping_must_divide_the_replicas():
    ir = ipu.Ir()
    ir.replication_factor = 4
    with pytest.raises(ipu.IrError, match="replica"):
        ir.replica_grouping(1, 3)
    with pytest.raises(ipu.IrError):
        ir.replica_grouping_from_assignments([0, 0, 0, 1])
