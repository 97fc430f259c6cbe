# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""This process as one instance of a program split across processes, over
Open MPI (docs/instances.md), PopXL's ``poprun`` way::

    # mpirun -np 2 python3 train.py
    import ipu
    import ipu.instances

    ipu.instances.init()          # instance i of n, from mpirun
    ir = ipu.Ir()
    ir.replication_factor = 4
    ir.instance_replication_factor = 4 // ipu.instances.count()
    ...                           # build, Session, run as on one host

It loads libipu-mpi.so.1 (the package libipu-mpi1; in a source tree,
``make mpi`` builds it next to the other libraries), the only code that links MPI: ``import ipu`` alone never
initialises MPI. Call :func:`init` before making the Session of a split
Ir; :func:`fini` runs at exit (or call it), after the sessions are closed.
"""
import atexit
import ctypes
import os

from . import _lib
from .errors import Error

_mpi = None


def _load():
    global _mpi
    if _mpi is None:
        d = _lib._lib_dir()
        name = "libipu-mpi.so." + _lib._SO_VERSION
        path = os.path.join(d, name) if d else name
        try:
            # Global: Open MPI's plugins resolve symbols of libmpi.
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise Error("ipu.instances: cannot load %s (%s): the package "
                        "libipu-mpi1 installs it (in a source tree, `make "
                        "mpi` builds it)" % (path, e)) from e
        lib.ipu_mpi_instances_init.restype = ctypes.c_int
        lib.ipu_mpi_instances_init.argtypes = (
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32,
            ctypes.c_char_p, ctypes.c_size_t)
        lib.ipu_mpi_instances_fini.restype = None
        lib.ipu_mpi_instances_fini.argtypes = ()
        lib.ipu_mpi_instance_index.restype = ctypes.c_uint32
        lib.ipu_mpi_instance_count.restype = ctypes.c_uint32
        _mpi = lib
    return _mpi


def init(timeout_ms=0):
    """Make this process an instance: initialise MPI and take the index and
    count from ``MPI_COMM_WORLD`` (what ``mpirun -np N`` sets).

    Args:
        timeout_ms (int): how long a collective waits for the other
            instances before failing (a dead or stuck peer); 0: the
            environment's IPU_INSTANCE_TIMEOUT_MS, else 60000.

    Raises:
        ipu.Error: libipu-mpi cannot be loaded, MPI fails, the timeout is
            bad, or the instances are initialised already.
    """
    lib = _load()
    msg = ctypes.create_string_buffer(512)
    err = lib.ipu_mpi_instances_init(None, None, int(timeout_ms), msg,
                                     len(msg))
    if err:
        raise Error("ipu.instances: " + msg.value.decode(errors="replace"),
                    -err)
    atexit.register(fini)


def fini():
    """Leave MPI (not after a collective timed out: a peer is gone and the
    process should exit with an error). A no-op when not initialised."""
    if _mpi is not None:
        _mpi.ipu_mpi_instances_fini()


def index():
    """This instance (0 before :func:`init`)."""
    return int(_load().ipu_mpi_instance_index())


def count():
    """The number of instances (1 before :func:`init`)."""
    return int(_load().ipu_mpi_instance_count())
