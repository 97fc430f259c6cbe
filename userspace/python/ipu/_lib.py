# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The C libraries, loaded with ctypes: libipufw, libipu, libipuir and
libsession (the .so.1 files `make shared` builds), and the prototypes of
every function the package calls.

Why ctypes: it is in every Python, so the package works with Debian's
/usr/bin/python3 and python3-numpy alone, with nothing to compile (no
python3-dev, no cffi) and nothing tied to one interpreter's ABI; the
libraries' symbol maps already give a stable C interface to bind. A call
costs a few microseconds more than from C (tests/bench/bench_python.py
measures it); the data itself never goes through Python: NumPy arrays are
handed over by pointer.

Where the libraries come from: $IPU_LIB_DIR if set, else the build tree's
build/lib next to this package's source (userspace/python/ipu -> ../../../build/lib),
else the dynamic loader's search path (installed libraries).
"""
import ctypes
import os

_SO_VERSION = "1"
# Bottom up: each library's DT_NEEDED are then already loaded, by soname,
# so the libraries need no rpath to find one another.
_LIBS = ("ipufw", "ipu", "ipuir", "session")

IPU_EXE_MAX_DIMS = 8
IPU_HOST_MAX_DIMS = IPU_EXE_MAX_DIMS + 2
IPU_EXE_MAX_NAME = 255


def _lib_dir():
    env = os.environ.get("IPU_LIB_DIR")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "lib"))
    if os.path.exists(os.path.join(tree, "libsession.so." + _SO_VERSION)):
        return tree
    return None


def _load():
    d = _lib_dir()
    libs = {}
    for name in _LIBS:
        fname = "lib%s.so.%s" % (name, _SO_VERSION)
        path = os.path.join(d, fname) if d else fname
        try:
            libs[name] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise ImportError(
                "ipu: cannot load %s (%s); build the shared libraries with "
                "`make python` (or `make shared`) or point IPU_LIB_DIR at "
                "them" % (path, e)) from e
    return libs


_libs = _load()
fw = _libs["ipufw"]
dev = _libs["ipu"]
ir = _libs["ipuir"]
session = _libs["session"]


# -- handles and structs (include/ipu/ir.h, session.h) ----------------------

class Handle(ctypes.Structure):
    """ipu_tensor, ipu_graph and ipu_stream: an int32 id, > 0 for a
    handle, else the -errno of the call that failed to make it."""
    _fields_ = [("id", ctypes.c_int32)]


class ReplicaGrouping(ctypes.Structure):
    _fields_ = [("stride", ctypes.c_uint32),
                ("group_size", ctypes.c_uint32),
                ("assignment", ctypes.POINTER(ctypes.c_uint32))]


class VariableOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t),
                ("grouping", ctypes.POINTER(ReplicaGrouping)),
                ("retrieval", ctypes.c_uint32),
                ("mmap_path", ctypes.c_char_p),
                ("mmap_readonly", ctypes.c_bool)]


class HostBuffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("dtype", ctypes.c_uint32),
                ("ndim", ctypes.c_uint32),
                ("shape", ctypes.c_uint64 * IPU_HOST_MAX_DIMS)]


class StreamBuffer(ctypes.Structure):
    _fields_ = [("stream", ctypes.c_char_p), ("buf", HostBuffer)]


class StreamDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("dtype", ctypes.c_uint32),
                ("ndim", ctypes.c_uint32),
                ("shape", ctypes.c_uint64 * IPU_EXE_MAX_DIMS),
                ("host_ndim", ctypes.c_uint32),
                ("host_shape", ctypes.c_uint64 * IPU_HOST_MAX_DIMS)]


class SessionOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t),
                ("device", ctypes.c_char_p),
                ("flags", ctypes.c_uint32),
                ("attach_timeout_ms", ctypes.c_uint32),
                ("data_dir", ctypes.c_char_p),
                ("wait_timeout_ms", ctypes.c_uint32),
                ("trace", ctypes.c_char_p)]


class TensorDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("is_variable", ctypes.c_bool),
                ("dtype", ctypes.c_uint32),
                ("ndim", ctypes.c_uint32),
                ("shape", ctypes.c_uint64 * IPU_HOST_MAX_DIMS)]


IPU_DETACH_ERROR = 1 << 0
IPU_RUN_NO_DOWNCAST = 1 << 0
IPU_EXE_RETRIEVE_ONE_PER_GROUP = 0
IPU_EXE_RETRIEVE_ALL_REPLICAS = 1
IPU_IR_ALL_REDUCE_SUM = 0
IPU_IR_ALL_REDUCE_MEAN = 1

# -- prototypes ---------------------------------------------------------------

_p = ctypes.POINTER
_vp = ctypes.c_void_p
_cp = ctypes.c_char_p
_int = ctypes.c_int
_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64
_i64 = ctypes.c_int64
_sz = ctypes.c_size_t
_bool = ctypes.c_bool
_H = Handle


def _proto(lib, name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    globals()[name] = f


# libipufw: dtypes (include/ipu/dtype.h)
_proto(fw, "ipu_dtype_size", _sz, _int)
_proto(fw, "ipu_dtype_name", _cp, _int)
_proto(fw, "host_pow2scale_cast_to_fp8", _int, _vp, _vp, _sz, _int, _int,
       _bool)
_proto(fw, "host_pow2scale_cast_from_fp8", _int, _vp, _vp, _sz, _int, _int)

# libipufw: executables (include/ipu/exe.h), for Ir.save()
_proto(fw, "ipu_exe_write_file", _int, _vp, _cp, _cp, _sz)
_proto(fw, "ipu_exe_free", None, _vp)

# libipuir (include/ipu/ir.h)
_proto(ir, "ipu_ir_create", _int, _cp, _p(_vp))
_proto(ir, "ipu_ir_compile", _int, _vp, _p(_vp))
_proto(ir, "ipu_ir_destroy", None, _vp)
_proto(ir, "ipu_ir_errmsg", _cp, _vp)
for _n in ("num_host_transfers", "replication_factor",
           "instance_replication_factor"):
    _proto(ir, "ipu_ir_set_" + _n, _int, _vp, _u32)
    _proto(ir, "ipu_ir_" + _n, _u32, _vp)
_proto(ir, "ipu_ir_ipus_per_replica", _u32, _vp)
_proto(ir, "ipu_ir_main_graph", _H, _vp)
_proto(ir, "ipu_ir_create_graph", _H, _vp, _cp)
_proto(ir, "ipu_ir_push_graph", _int, _vp, _H)
_proto(ir, "ipu_ir_pop_graph", _int, _vp)
_proto(ir, "ipu_ir_push_ipu", _int, _vp, _u32)
_proto(ir, "ipu_ir_pop_ipu", _int, _vp)
_proto(ir, "ipu_ir_set_ipu", _int, _vp, _H, _u32)
_proto(ir, "ipu_ir_graph_input", _H, _vp, _cp, _int, _sz, _p(_u64))
_proto(ir, "ipu_ir_graph_output", _int, _vp, _H)
_proto(ir, "ipu_ir_graph_input_by_ref", _int, _vp, _H)
_proto(ir, "ipu_ir_call", _int, _vp, _H, _p(_H), _sz, _p(_H), _sz)
_proto(ir, "ipu_ir_repeat", _int, _vp, _H, _u64, _p(_H), _sz, _p(_H), _sz)
_proto(ir, "ipu_ir_replica_grouping", _int, _vp, _u32, _u32,
       _p(ReplicaGrouping))
_proto(ir, "ipu_ir_replica_grouping_from_assignments", _int, _vp, _p(_u32),
       _sz, _p(ReplicaGrouping))
_proto(ir, "ipu_ir_variable", _H, _vp, _cp, _int, _sz, _p(_u64), _vp,
       _p(VariableOpts))
_proto(ir, "ipu_ir_constant", _H, _vp, _cp, _int, _sz, _p(_u64), _vp)
_proto(ir, "ipu_ir_scalar", _H, _vp, _int, ctypes.c_double)
_proto(ir, "ipu_ir_h2d_stream", _H, _vp, _cp, _int, _sz, _p(_u64))
_proto(ir, "ipu_ir_d2h_stream", _H, _vp, _cp, _int, _sz, _p(_u64))
_proto(ir, "ipu_ir_host_load", _H, _vp, _H, _cp)
_proto(ir, "ipu_ir_host_store", _int, _vp, _H, _H)
_proto(ir, "ipu_ir_tensor_name", _cp, _vp, _H)
_proto(ir, "ipu_ir_tensor_set_name", _int, _vp, _H, _cp)
_proto(ir, "ipu_ir_tensor_dtype", _int, _vp, _H)
_proto(ir, "ipu_ir_tensor_shape", _int, _vp, _H, _p(_u64))
for _n in ("add", "sub", "mul", "div", "matmul"):
    _proto(ir, "ipu_ir_" + _n, _H, _vp, _H, _H)
for _n in ("neg", "abs", "relu", "gelu", "tanh", "sigmoid", "exp", "log",
           "sqrt"):
    _proto(ir, "ipu_ir_" + _n, _H, _vp, _H)
_proto(ir, "ipu_ir_transpose", _H, _vp, _H, _p(_int), _sz)
_proto(ir, "ipu_ir_reshape", _H, _vp, _H, _p(_i64), _sz)
_proto(ir, "ipu_ir_slice", _H, _vp, _H, _sz, _p(_i64), _p(_i64), _p(_i64),
       _p(_int))
_proto(ir, "ipu_ir_concat", _H, _vp, _p(_H), _sz, _int)
for _n in ("sum", "mean", "max"):
    _proto(ir, "ipu_ir_reduce_" + _n, _H, _vp, _H, _p(_int), _sz, _bool)
_proto(ir, "ipu_ir_softmax", _H, _vp, _H, _int)
_proto(ir, "ipu_ir_log_softmax", _H, _vp, _H, _int)
_proto(ir, "ipu_ir_cast", _H, _vp, _H, _int)
_proto(ir, "ipu_ir_scaled_add_inplace", _int, _vp, _H, _H, ctypes.c_float,
       ctypes.c_float)
_proto(ir, "ipu_ir_assign", _int, _vp, _H, _H)
_proto(ir, "ipu_ir_all_reduce", _H, _vp, _H, _int, _p(ReplicaGrouping))

# libsession (include/ipu/session.h)
_proto(session, "ipu_session_errmsg", _cp, _vp)
_proto(session, "ipu_session_create", _int, _vp, _p(SessionOpts), _p(_vp))
_proto(session, "ipu_session_destroy", None, _vp)
_proto(session, "ipu_session_device_name", _cp, _vp)
_proto(session, "ipu_session_num_ipus", _u32, _vp)
_proto(session, "ipu_session_attach", _int, _vp)
_proto(session, "ipu_session_detach", _int, _vp, ctypes.c_uint)
_proto(session, "ipu_session_is_attached", _bool, _vp)
_proto(session, "ipu_session_run_with_outputs", _int, _vp, _p(StreamBuffer),
       _sz, _p(StreamBuffer), _sz, ctypes.c_uint)
_proto(session, "ipu_session_expected_inputs", _p(StreamDesc), _vp, _p(_sz))
_proto(session, "ipu_session_expected_outputs", _p(StreamDesc), _vp,
       _p(_sz))
_proto(session, "ipu_session_check_shape", _int, _vp, _cp, _u32, _p(_u64))
_proto(session, "ipu_session_weights_from_host", _int, _vp)
_proto(session, "ipu_session_weights_to_host", _int, _vp)
_proto(session, "ipu_session_tensor_desc", _int, _vp, _cp, _p(TensorDesc))
_proto(session, "ipu_session_get_tensors_data", _int, _vp, _p(_cp),
       _p(HostBuffer), _sz)
_proto(session, "ipu_session_write_variables_data", _int, _vp, _p(_cp),
       _p(HostBuffer), _sz)


def cstr(s):
    """A str for a C `const char *` (UTF-8), None for None."""
    return None if s is None else s.encode()


def pystr(b):
    """A C string from a library as a str."""
    return "" if b is None else b.decode(errors="replace")
_proto(fw, "ipu_dtype_convert", _int, _vp, _int, _vp, _int, _sz)
