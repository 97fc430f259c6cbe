# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The current graph: where ``with graph:`` scopes put new ops (PopXL's
``popxl.gcg()``), one stack per thread, like PopXL's."""
import contextlib
import threading

from .errors import NoGraphError

_local = threading.local()


def _stack():
    s = getattr(_local, "graphs", None)
    if s is None:
        s = _local.graphs = []
    return s


def push(graph):
    _stack().append(graph)


def pop():
    _stack().pop()


def get_current_graph():
    """The graph new ops go into: the innermost ``with graph:`` scope.

    Raises:
        ipu.errors.NoGraphError (a RuntimeError, as PopXL's, and an
            ipu.IrError): outside every graph scope.
    """
    s = _stack()
    if not s:
        raise NoGraphError("no current graph: create ops, variables and "
                           "streams inside `with ir.main_graph:` (or "
                           "another graph)")
    return s[-1]


gcg = get_current_graph


def get_main_graph():
    """The main graph of the current graph's Ir (PopXL's ``popxl.gmg()``).

    Raises:
        ipu.errors.NoGraphError: outside every graph scope.
    """
    return get_current_graph().ir.main_graph


gmg = get_main_graph


def __getattr__(name):
    # PopXL's ``popxl.context.ipu``: the class lives in graph.py, which
    # imports this module, so it is looked up when first asked for.
    if name == "ipu":
        from .graph import ipu
        return ipu
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def current_ir():
    """The Ir of the current graph."""
    return get_current_graph().ir


class in_sequence(contextlib.ContextDecorator):  # noqa: N801 (PopXL's)
    """``with ipu.in_sequence():`` (or ``@ipu.in_sequence()`` on a
    function): the ops made inside run in the order they are made (PopXL's
    ``popxl.in_sequence``).

    libipuir never reorders ops: every graph runs its ops in the order
    they were made, which is a valid schedule whatever the scope says. So
    ``in_sequence(True)`` holds everywhere, scopes nest freely, and
    ``in_sequence(False)`` (PopXL: the scheduler may reorder) runs in
    program order too.

    Args:
        enabled (bool): as PopXL's; a non-bool raises TypeError.

    Needs no graph scope, as PopXL's; ``with in_sequence() as e`` gives
    ``enabled``.
    """

    def __init__(self, enabled=True):
        if not isinstance(enabled, bool):
            raise TypeError("in_sequence: enabled must be a bool, not %r" %
                            (enabled,))
        self.enabled = enabled

    def __enter__(self):
        return self.enabled

    def __exit__(self, *exc):
        return False
