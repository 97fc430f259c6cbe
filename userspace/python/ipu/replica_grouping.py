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

    Attributes:
        stride (int), group_size (int), num_groups (int),
        assignment (list of int or None), is_const (bool).
    """

    def __init__(self, ir, c_grouping, assignment=None):
        self._ir = ir
        self._c = c_grouping
        # The C grouping points into the ir's copy of the assignment: keep
        # the values here for Python readers.
        self.assignment = list(assignment) if assignment is not None else None
        self.stride = int(c_grouping.stride)
        self.group_size = int(c_grouping.group_size)
        self.num_groups = ir.replication_factor // self.group_size
        self.is_const = assignment is None

    @property
    def assignment_list(self):
        """The group of each replica, in replica order."""
        if self.assignment is not None:
            return list(self.assignment)
        r = self._ir.replication_factor
        block = self.stride * self.group_size
        out = []
        for i in range(r):
            out.append((i // block) * self.stride + i % self.stride)
        return out

    def _pointer(self):
        return ctypes.pointer(self._c)

    def __repr__(self):
        if self.is_const:
            return ("ReplicaGrouping(num_replicas=%d, stride=%d, "
                    "group_size=%d)" % (self._ir.replication_factor,
                                        self.stride, self.group_size))
        return "ReplicaGrouping(assignment=%r)" % (self.assignment,)
