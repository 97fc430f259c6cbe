# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Replica groupings (PopXL's ``ReplicaGrouping``, S20): which replicas
share one value of a variable, or reduce together in an all-reduce."""
import ctypes


class ReplicaGrouping:
    """A split of an Ir's replicas into groups. Make one with
    :meth:`ipu.Ir.replica_grouping` or
    :meth:`ipu.Ir.replica_grouping_from_assignments`.

    The replicas are split into ``num_groups`` groups of ``group_size``;
    with a constant stride, members are ``stride`` apart within blocks of
    ``stride * group_size`` replicas. A grouping from assignments has no
    constant stride (``is_const`` False, ``stride`` 0) and gives each
    replica's group explicitly.

    Groupings are equal (``==``) when they are of one Ir and put each
    replica in the same group, as PopXL's; comparing with anything else
    raises TypeError, as PopXL's does.

    Attributes:
        stride (int), group_size (int), num_groups (int), is_const (bool).
    """

    def __init__(self, ir, c_grouping, assignment=None):
        self._ir = ir
        self._c = c_grouping
        # The C grouping points into the ir's copy of the assignment: keep
        # the values here for Python readers.
        self._assignment = (list(assignment) if assignment is not None
                            else None)
        self.stride = int(c_grouping.stride)
        self.group_size = int(c_grouping.group_size)
        self.num_groups = ir.replication_factor // self.group_size
        self.is_const = assignment is None

    @property
    def assignment(self):
        """The group of each replica, in replica order (PopXL's
        ``ReplicaGrouping.assignment``): stride 2 and groups of 2 on 8
        replicas are [0, 1, 0, 1, 2, 3, 2, 3]."""
        if self._assignment is not None:
            return list(self._assignment)
        return _const_assignment(self._ir.replication_factor, self.stride,
                                 self.group_size)

    #: The same (this package's older name).
    assignment_list = assignment

    def transpose(self):
        """The grouping whose group k holds the k-th replica of each of
        this one's groups (PopXL's ``ReplicaGrouping.transpose``): [0, 0,
        1, 1] gives [0, 1, 0, 1]. A constant-stride grouping when one has
        that assignment, else a grouping from assignments (stride 2,
        groups of 2 on 8 replicas give [0, 0, 1, 1, 0, 0, 1, 1]).

        Returns:
            ipu.ReplicaGrouping: of the same Ir, which must not yet belong
            to a Session.
        """
        assign = self.assignment
        position, seen = [], {}
        for g in assign:
            position.append(seen.get(g, 0))
            seen[g] = position[-1] + 1
        n = len(position)
        for size in range(1, n + 1):
            if n % size:
                continue
            for stride in range(1, n // size + 1):
                if (n // size) % stride == 0 and _const_assignment(
                        n, stride, size) == position:
                    return self._ir.replica_grouping(stride, size)
        return self._ir.replica_grouping_from_assignments(position)

    def __eq__(self, other):
        if not isinstance(other, ReplicaGrouping):
            raise TypeError("a ReplicaGrouping compares with a "
                            "ReplicaGrouping, not %r" % (other,))
        return self._ir is other._ir and self.assignment == other.assignment

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((id(self._ir), tuple(self.assignment)))

    def _pointer(self):
        return ctypes.pointer(self._c)

    def __repr__(self):
        if self.is_const:
            return ("ReplicaGrouping(num_replicas=%d, stride=%d, "
                    "group_size=%d)" % (self._ir.replication_factor,
                                        self.stride, self.group_size))
        return "ReplicaGrouping(assignment=%r)" % (self._assignment,)


def _const_assignment(replicas, stride, group_size):
    """The group of each of @replicas replicas in groups of @group_size
    whose members are @stride apart: blocks of stride * group_size
    replicas hold @stride groups each."""
    block = stride * group_size
    return [(i // block) * stride + i % stride for i in range(replicas)]
