# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""In-place updates, and the views PopXL's in-place view ops make.

libipuir updates a tensor in place with ``ipu_ir_assign`` (every op made
afterwards reads the new value). A view (``slice_``, ``transpose_``,
``reshape_``, ``flatten_``) shares its base's memory in PopXL; libipuir
has no aliasing, so a view is its own tensor, and an update of either is
followed here by updates that make the other agree: the base takes the
view's new elements back (``back``), each view of an updated tensor is
made again from it (``forth``). The update therefore reaches every tensor
that shares memory in PopXL, in the graph of the update.
"""
from .. import _lib
from ..context import get_current_graph
from ..errors import IrError
from ..tensor import Constant, check_ir


class _View:
    def __init__(self, base, graph, forth, back):
        self.base = base
        self.graph = graph
        self.forth = forth
        self.back = back


def _registry(ir):
    # Per Ir: view handle id -> _View, base handle id -> [view tensors].
    reg = ir.__dict__.get("_inplace_views")
    if reg is None:
        reg = ir.__dict__["_inplace_views"] = ({}, {})
    return reg


def make_view(base, view, forth, back):
    """Record @view as a view of @base: ``forth(base)`` makes it,
    ``back(base, view)`` is @base with @view's elements put back. A view
    may have several bases (``concat_``): one call per base."""
    parents, children = _registry(base._ir)
    parents.setdefault(view._h.id, []).append(
        _View(base, get_current_graph(), forth, back))
    children.setdefault(base._h.id, []).append(view)
    return view


def _assign(t, value, what):
    ir = t._ir
    check_ir(ir, _lib.ipu_ir_assign(ir._c(), t._h, value._h),
             "%s '%s'" % (what, t.name))


def _spread(t, came_from, what):
    """Make the tensors sharing memory with @t agree with its new value
    (all but @came_from, which already does)."""
    parents, children = _registry(t._ir)
    graph = get_current_graph()
    mine = [v for v in parents.get(t._h.id, ()) if v.graph is graph]
    for v in mine:
        if v.base != came_from:
            _assign(v.base, v.back(v.base, t), what)
            _spread(v.base, t, what)
    # One base twice (concat_([w, w])): its parts of @t are one memory in
    # PopXL, which the last write-back decided; @t is made again from it
    # (unless the update came from that base: then it was).
    bases = [v.base._h.id for v in mine]
    if len(set(bases)) < len(bases) and \
            (came_from is None or came_from._h.id not in bases):
        _assign(t, mine[0].forth(mine[0].base), what)
    for child in children.get(t._h.id, ()):
        if child == came_from:
            continue
        for c in parents[child._h.id]:
            if c.base == t and c.graph is graph:
                _assign(child, c.forth(t), what)
                _spread(child, t, what)


def updated(t, what):
    """@t was just updated in place by op @what: update what shares its
    memory. Returns @t."""
    _spread(t, None, what)
    return t


def update(t, value, what):
    """t = value, in place (same dtype and shape), then what shares its
    memory. Returns @t.

    Raises:
        ipu.IrError: @t is a constant, or dtype or shape differ.
    """
    if isinstance(t, Constant):
        raise IrError("%s: '%s' is a constant: constants are not updated "
                      "in place" % (what, t.name))
    _assign(t, value, what)
    return updated(t, what)
