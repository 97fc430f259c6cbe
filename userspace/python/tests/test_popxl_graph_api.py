# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's ``Graph.tensors``, ``variables``, ``constants``, ``inputs``
and ``outputs`` (tuples, in creation order), and ``ReplicaGrouping``'s
``assignment``, equality and ``transpose``, as PopXL's API reference
gives them (its assignment and transpose examples, on 8 and 4
replicas)."""
import numpy as np
import pytest

import ipu


def test_graph_lists_what_was_made_in_it():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.ones(3, np.float32), name="w")
        c = ipu.constant(np.ones(3, np.float32), name="c")
        y = w + c
    g = ir.create_graph(lambda a: a * 2.0, ipu.TensorSpec((3,), ipu.float32))
    main = ir.main_graph
    assert main.variables == (w,)
    assert main.constants == (c,)
    assert main.tensors[:3] == (w, c, y)
    assert isinstance(g.inputs, tuple) and isinstance(g.outputs, tuple)
    assert len(g.inputs) == 1 and len(g.outputs) == 1
    assert g.inputs[0] in g.tensors and g.outputs[0] in g.tensors
    # The subgraph's tensors are its own: none of the main graph's.
    assert not set(g.tensors) & set(main.tensors)
    assert g.variables == () and g.constants == ()


def _ir(n):
    ir = ipu.Ir()
    ir.replication_factor = n
    return ir


@pytest.mark.parametrize("stride, size, want", [
    (1, 8, [0] * 8),
    (1, 1, list(range(8))),
    (1, 2, [0, 0, 1, 1, 2, 2, 3, 3]),
    (2, 2, [0, 1, 0, 1, 2, 3, 2, 3]),
    (1, 4, [0, 0, 0, 0, 1, 1, 1, 1]),
    (2, 4, [0, 1, 0, 1, 0, 1, 0, 1]),
])
def test_assignment_is_each_replicas_group(stride, size, want):
    assert _ir(8).replica_grouping(stride, size).assignment == want


def test_assignment_of_a_grouping_from_assignments():
    ir = _ir(4)
    assert ir.replica_grouping_from_assignments(
        [0, 1, 1, 0]).assignment == [0, 1, 1, 0]


def test_groupings_are_equal_when_their_assignments_are():
    ir = _ir(4)
    assert ir.replica_grouping(2, 2) == \
        ir.replica_grouping_from_assignments([0, 1, 0, 1])
    assert ir.replica_grouping(1, 2) != ir.replica_grouping(2, 2)
    # Of another Ir: not equal, whatever the assignment.
    assert ir.replica_grouping(1, 2) != _ir(4).replica_grouping(1, 2)
    with pytest.raises(TypeError):
        ir.replica_grouping() == 3


@pytest.mark.parametrize("assignment, want", [
    ([0, 0, 0, 0], [0, 1, 2, 3]),
    ([0, 1, 0, 1], [0, 0, 1, 1]),
    ([0, 0, 1, 1], [0, 1, 0, 1]),
    ([0, 1, 2, 3], [0, 0, 0, 0]),
])
def test_transpose_as_popxl_examples(assignment, want):
    ir = _ir(4)
    rg = ir.replica_grouping_from_assignments(assignment)
    t = rg.transpose()
    assert t.assignment == want
    assert t.transpose().assignment == assignment


def test_transpose_with_no_constant_stride():
    # PopXL's example: groups [[0, 2], [1, 3], [4, 6], [5, 7]].
    ir = _ir(8)
    t = ir.replica_grouping(2, 2).transpose()
    assert t.assignment == [0, 0, 1, 1, 0, 0, 1, 1]
    assert not t.is_const


def test_transpose_of_a_constant_grouping_is_constant():
    t = _ir(8).replica_grouping(1, 2).transpose()
    assert t.is_const and (t.stride, t.group_size) == (2, 4) and \
        t.assignment == [0, 1, 0, 1, 0, 1, 0, 1]
