# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The Ir (PopXL's ``popxl.Ir``): a program being built, over libipuir."""
import ctypes
import inspect
import numbers
import os

from . import _lib, context
from .errors import IrError, UnsupportedError
from .graph import Graph, TensorByRef
from .replica_grouping import ReplicaGrouping
from .streams import DeviceToHostStream, HostToDeviceStream
from .tensor import (Tensor, TensorSpec, _check_handle, check_ir,
                     graph_input, graph_output)


class IrArgumentTypeError(IrError, TypeError):
    """A setting of the Ir given as something other than an int (PopXL's
    TypeError)."""


class IrFrozenError(IrError, RuntimeError):
    """A setting changed after a Session took the Ir (PopXL's
    RuntimeError)."""


def _count(value, what):
    """@value as a positive int setting @what, refused as PopXL refuses it:
    TypeError for no integer (a bool included), ValueError below 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise IrArgumentTypeError("%s must be an int, not %r" %
                                  (what, value))
    v = int(value)
    if v < 1:
        raise IrError("%s must be at least 1, not %d" % (what, v))
    return v


class Ir:
    """A program: a main graph, subgraphs, variables, constants and host
    streams, with its replication factor and host transfers per run.

    Build it in graph scopes, then hand it to :class:`ipu.Session`, which
    takes it over: afterwards it can no longer be changed (S01), though its
    tensors and streams stay usable as keys.

    Example::

        ir = ipu.Ir()
        ir.replication_factor = 2
        with ir.main_graph:
            x_h2d = ipu.h2d_stream((4,), ipu.float32, name="x")
            w = ipu.variable(np.zeros(4, np.float32), name="w")
            x = ipu.ops.host_load(x_h2d)
            ipu.ops.scaled_add_(w, x)

    Args:
        replication (int): the replication factor (PopXL's
            ``Ir(replication=1)``). PopXL's ``"popdist"`` (settings from
            poprun) is :class:`ipu.UnsupportedError`: split a program
            across processes with :mod:`ipu.instances`.
        name (str, keyword only): the program's name, for messages and the
            executable.

    Raises:
        TypeError: @replication is no int (an :class:`ipu.IrError` too).
        ValueError: @replication is below 1 (:class:`ipu.IrError`).
    """

    def __init__(self, replication=1, *, name=""):
        if isinstance(replication, str) and replication == "popdist":
            raise UnsupportedError(
                "Ir(replication='popdist'): there is no popdist/poprun "
                "here; set replication_factor and "
                "instance_replication_factor and call ipu.instances.init() "
                "under mpirun (docs/instances.md)")
        replication = _count(replication, "Ir(replication=...)")
        p = ctypes.c_void_p()
        err = _lib.ipu_ir_create(_lib.cstr(name), ctypes.byref(p))
        if err < 0:
            raise IrError("Ir(%r): cannot create (errno %d)" % (name, -err),
                          -err)
        self._ptr = p.value
        self._owner = None
        self.name = name
        self._variables = []
        self._constants = []
        self._streams = []
        self._graphs = []
        self._names = {}
        # Host-visible names (variables, constants, streams) and PopART's
        # intermediate-id counter, for _host_name().
        self._taken = set()
        self._tcount = 0
        self._main = Graph(self, _lib.ipu_ir_main_graph(self._ptr), "main")
        if replication != 1:
            self.replication_factor = replication

    def __del__(self):
        # An Ir a Session took is the session's to free.
        if getattr(self, "_ptr", None) and self._owner is None:
            p, self._ptr = self._ptr, None
            try:
                _lib.ipu_ir_destroy(p)
            except Exception:  # noqa: BLE001 (interpreter exit)
                pass

    def _c(self):
        """The C ir, while the Ir may still change."""
        if not self._ptr:
            raise IrError("the Ir belongs to a Session and can no longer be "
                          "changed (S01)")
        return self._ptr

    def _give_to(self, owner):
        """Hand the C ir to a Session, which destroys it."""
        p = self._c()
        self._ptr = None
        self._owner = owner
        return p

    def _unique_name(self, prefix):
        n = self._names.get(prefix, 0)
        self._names[prefix] = n + 1
        return "%s.%d" % (prefix, n)

    def _host_name(self, name, prefix):
        """A name for a new variable, constant or stream: @name, or a new
        "@prefix.N" when None, made unique among those of the Ir as PopXL
        makes a tensor id unique (PopART's createIntermediateTensorId):
        "name__tN", N from one counter of the Ir. A None @prefix leaves a
        None @name to libipuir (a constant's "const.<id>")."""
        if name is None:
            if prefix is None:
                return None
            name = self._unique_name(prefix)
        base = name
        while name in self._taken:
            name = "%s__t%d" % (base, self._tcount)
            self._tcount += 1
        return name

    # -- settings ------------------------------------------------------

    def _setting(self, what):
        return int(getattr(_lib, "ipu_ir_" + what)(self._c()))

    def _set(self, what, value):
        v = _count(value, what)
        if not self._ptr:
            raise IrFrozenError("%s: the Ir belongs to a Session and can no "
                                "longer be changed (S01)" % what)
        check_ir(self, getattr(_lib, "ipu_ir_set_" + what)(self._c(), v),
                 what)

    @property
    def replication_factor(self):
        """Replicas the program runs on (default 1); set it before making
        replica groupings."""
        return self._settings_cache("replication_factor")

    @replication_factor.setter
    def replication_factor(self, v):
        self._set("replication_factor", v)

    @property
    def instance_replication_factor(self):
        """Replicas of each instance (PopXL's ``instance_replication_factor``):
        the replication factor by default, when one process runs the whole
        program.

        A divisor below it splits the program across
        ``replication_factor / instance_replication_factor`` processes,
        PopXL's instances (docs/instances.md): instance i runs replicas
        ``i * irf`` to ``i * irf + irf - 1``, its streams carry only those
        replicas' data (the replica dimension of its arrays is irf, S11),
        all-reduces span every replica of every instance with the one-host
        bits, and ``weights_to_host`` / ``get_tensor_data`` gather what
        other instances hold. Each process must be its instance before the
        Session is made: under ``mpirun -np N python3 prog.py``, call
        :func:`ipu.instances.init` first (it loads libipu-mpi, the only
        code that links MPI); without it, a split Ir's Session fails with
        a message saying the process is no instance."""
        return self._settings_cache("instance_replication_factor")

    @instance_replication_factor.setter
    def instance_replication_factor(self, v):
        self._set("instance_replication_factor", v)

    @property
    def num_host_transfers(self):
        """Transfers per stream per run (default 1): the program's loop
        over them is ``ops.repeat`` (PopXL's num_host_transfers)."""
        return self._settings_cache("num_host_transfers")

    @num_host_transfers.setter
    def num_host_transfers(self, v):
        self._set("num_host_transfers", v)

    def _settings_cache(self, what):
        if self._ptr:
            return self._setting(what)
        # Taken over by a Session: the values it was compiled with.
        return self._frozen[what]

    def _freeze(self):
        self._frozen = {w: self._setting(w) for w in (
            "replication_factor", "instance_replication_factor",
            "num_host_transfers", "ipus_per_replica")}

    # -- graphs ----------------------------------------------------------

    @property
    def main_graph(self):
        """The main graph: what a run executes."""
        return self._main

    def create_graph(self, fn, *args, **kwargs):
        """Create a subgraph, as PopXL does, by calling @fn inside it.

        Each positional argument (an :class:`ipu.TensorSpec`, a tensor,
        whose shape and dtype are used, or an :class:`ipu.TensorByRef` of
        one: an input passed by reference) becomes a graph input, named after
        @fn's parameter, and @fn is called with those inputs (and
        @kwargs). The tensor or tuple of tensors it returns become the
        graph's outputs.

        With a string instead of a function, the graph is created empty,
        named so: give it inputs and outputs with ``ipu.graph_input`` and
        ``ipu.graph_output`` inside ``with graph:``.

        Returns:
            ipu.Graph: to run with ``ops.call`` or ``ops.repeat``.
        """
        if isinstance(fn, str):
            return self._new_graph(fn)
        g = self.create_empty_graph(getattr(fn, "__name__", "graph"))
        name = g.name
        try:
            sig = inspect.signature(fn).parameters
            params = list(sig)
            # PopXL's own form: a parameter annotated TensorByRef.
            by_ref_hint = [sig[p].annotation is TensorByRef for p in params]
        except (TypeError, ValueError):
            params, by_ref_hint = [], []
        with g:
            inputs = []
            for i, a in enumerate(args):
                if not isinstance(a, (Tensor, TensorSpec, TensorByRef)):
                    raise IrError("create_graph(%s): argument %d is %r, "
                                  "not a TensorSpec, a tensor or a "
                                  "TensorByRef" % (name, i, a))
                pname = params[i] if i < len(params) else "input%d" % i
                by_ref = isinstance(a, TensorByRef) or \
                    (i < len(by_ref_hint) and by_ref_hint[i])
                inputs.append(graph_input(a.shape, a.dtype, pname,
                                          by_ref=by_ref))
            out = fn(*inputs, **kwargs)
            if out is None:
                outs = ()
            elif isinstance(out, Tensor):
                outs = (out,)
            else:
                outs = tuple(out)
            for t in outs:
                graph_output(t)
        return g

    def create_empty_graph(self, name=None):
        """A new subgraph without inputs, ops or outputs (PopXL's
        ``Ir.create_empty_graph``), named @name (made unique) or
        "graph"."""
        base = name or "graph"
        name, n = base, 0
        while any(g.name == name for g in self._graphs):
            n += 1
            name = "%s.%d" % (base, n)
        return self._new_graph(name)

    def _new_graph(self, name):
        h = _lib.ipu_ir_create_graph(self._c(), _lib.cstr(name))
        _check_handle(self, h, "create_graph '%s'" % name)
        g = Graph(self, h, name)
        self._graphs.append(g)
        return g

    # -- groupings -------------------------------------------------------

    def replica_grouping(self, stride=1, group_size=None):
        """A grouping of the replicas (PopXL's ``ir.replica_grouping``):
        groups of @group_size (default: replication_factor / @stride)
        whose members are @stride apart."""
        c = _lib.ReplicaGrouping()
        check_ir(self, _lib.ipu_ir_replica_grouping(
            self._c(), int(stride), int(group_size or 0), ctypes.byref(c)),
            "replica_grouping")
        return ReplicaGrouping(self, c)

    def replica_grouping_from_assignments(self, assignment):
        """A grouping with no constant stride (PopXL's
        ``ir.replica_grouping_from_assignments``): @assignment[r] is the
        group of replica r; groups 0..G-1, all the same size."""
        vals = [int(a) for a in assignment]
        arr = (ctypes.c_uint32 * max(len(vals), 1))(*vals)
        c = _lib.ReplicaGrouping()
        check_ir(self, _lib.ipu_ir_replica_grouping_from_assignments(
            self._c(), arr, len(vals), ctypes.byref(c)),
            "replica_grouping_from_assignments")
        return ReplicaGrouping(self, c, vals)

    # -- what the program holds -------------------------------------------

    def get_all_h2d_streams(self):
        """The host-to-device streams, in creation order."""
        return [s for s in self._streams if isinstance(s, HostToDeviceStream)]

    def get_all_d2h_streams(self):
        """The device-to-host streams, in creation order."""
        return [s for s in self._streams if isinstance(s, DeviceToHostStream)]

    @property
    def variables(self):
        """The variables, in creation order."""
        return list(self._variables)

    @property
    def constants(self):
        """The constants, in creation order."""
        return list(self._constants)

    # -- an executable for ipu-run ---------------------------------------

    def save(self, path):
        """Compile the program and write it to ``path`` as an executable
        (a ``.ipux``, include/ipu/exe.h): what ``ipu-run`` runs (and
        ``ipu-run --instances`` for a split program). Not in PopXL, whose
        programs only a Session runs. The Ir is unchanged: it may still be
        changed, saved again or given to a Session. The file is written
        whole or not at all (a temporary file renamed over ``path``).

        Args:
            path (str or os.PathLike): the file to write; one that exists
                is replaced.

        Raises:
            IrError: the program does not compile (the reason a Session
                would give), or the file cannot be written (the path and
                the system's reason).
        """
        exe = ctypes.c_void_p()
        ret = _lib.ipu_ir_compile(self._c(), ctypes.byref(exe))
        if ret:
            raise IrError("save: %s" % _lib.pystr(_lib.ipu_ir_errmsg(
                self._c())), -ret)
        err = ctypes.create_string_buffer(512)
        try:
            ret = _lib.ipu_exe_write_file(exe, os.fsencode(path),
                                          err, len(err))
        finally:
            _lib.ipu_exe_free(exe)
        if ret:
            raise IrError("save: %s" % _lib.pystr(err.value), -ret)

    @property
    def _has_read_only_memmap(self):
        return any(v.mmap_path and v.mmap_readonly for v in self._variables)

    def __repr__(self):
        return "Ir(%r)" % self.name


def get_current_graph():
    """The current graph (PopXL's ``popxl.gcg()``)."""
    return context.get_current_graph()
