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


def _spread(t, came_from, what, seen=None):
    """Make the tensors sharing memory with @t agree with its new value
    (all but @came_from, which already does). @seen: the tensors (handle
    ids) this update made agree already; each is made so once, so views
    that alias one another in a cycle (concat_([w, slice_(w)])) end."""
    if seen is None:
        seen = {t._h.id}
    parents, children = _registry(t._ir)
    graph = get_current_graph()
    mine = [v for v in parents.get(t._h.id, ()) if v.graph is graph]
    # Per base, its views' write-backs one after another (one base twice,
    # concat_([w, w]): the later part wins, as the later write to one
    # memory), then one update of the base.
    groups = {}
    for v in mine:
        if v.base != came_from:
            groups.setdefault(v.base._h.id, []).append(v)
    remake = False
    for vs in groups.values():
        base = vs[0].base
        if base._h.id in seen:
            # Reached already through another view (a base aliasing
            # another, concat_([w, slice_(w)])): it decided.
            remake = True
            continue
        value = base
        for v in vs:
            value = v.back(value, t)
        seen.add(base._h.id)
        _assign(base, value, what)
        _spread(base, t, what, seen)
        remake |= len(vs) > 1
    if remake:
        # @t's parts of one memory now agree with it: @t made again.
        _assign(t, mine[0].forth(mine[0].base), what)
    for child in children.get(t._h.id, ()):
        if child == came_from or child._h.id in seen:
            continue
        for c in parents[child._h.id]:
            if c.base == t and c.graph is graph:
                seen.add(child._h.id)
                _assign(child, c.forth(t), what)
                _spread(child, t, what, seen)
                break


def _aliases(t):
    """The tensors sharing memory with @t in the current graph (its bases,
    its views, theirs, ...), @t among them: those _spread() updates."""
    parents, children = _registry(t._ir)
    graph = get_current_graph()
    seen, todo, out = {t._h.id}, [t], [t]
    while todo:
        x = todo.pop()
        near = [v.base for v in parents.get(x._h.id, ()) if v.graph is graph]
        near += [c for c in children.get(x._h.id, ())
                 if any(v.base == x and v.graph is graph
                        for v in parents[c._h.id])]
        for y in near:
            if y._h.id not in seen:
                seen.add(y._h.id)
                todo.append(y)
                out.append(y)
    return out


def check_writable(t, what):
    """Refuse an in-place update of @t by op @what before anything is
    made, if @t or a tensor sharing its memory is a constant (the update
    would stop half way, at the constant, with the others updated).

    Raises:
        ipu.IrError: naming the constant.
    """
    for x in _aliases(t):
        if isinstance(x, Constant):
            shared = "" if x is t else " (it shares the memory of '%s')" % \
                t.name
            raise IrError("%s: '%s' is a constant: constants are not "
                          "updated in place%s" % (what, x.name, shared))


def updated(t, what):
    """@t was just updated in place by op @what: update what shares its
    memory. Returns @t."""
    _spread(t, None, what)
    return t


def update(t, value, what):
    """t = value, in place (same dtype and shape), then what shares its
    memory. Returns @t.

    Raises:
        ipu.IrError: @t, or a tensor sharing its memory, is a constant;
            or dtype or shape differ.
    """
    check_writable(t, what)
    _assign(t, value, what)
    return updated(t, what)
