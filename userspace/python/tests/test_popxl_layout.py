# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's module layout (issue 26): each name importable from the
submodule PopXL programs import it from, the same object as the top-level
one; ``ipu.__version__``; and the ``popxl`` alias of the package."""
import importlib
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import ipu

TREE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                    ".."))

# Submodule -> names PopXL defines there (its API reference and sources).
LAYOUT = {
    "tensor": ["Tensor", "Variable", "Constant", "TensorSpec", "variable",
               "constant", "graph_input", "graph_output", "HostTensor",
               "HostScalarTensor", "ScalarType", "TensorLike"],
    "dtypes": ["dtype", "bool", "int8", "int32", "int64", "uint8",
               "float8_143", "float8_152", "float16", "float32", "float64",
               "bfloat16", "half", "float", "double", "np_dtype_float8_143",
               "np_dtype_float8_152"],
    "streams": ["HostToDeviceStream", "DeviceToHostStream", "h2d_stream",
                "d2h_stream"],
    "context": ["get_current_graph", "gcg", "get_main_graph", "gmg", "ipu"],
    "graph": ["Graph"],
    "ir": ["Ir"],
    "session": ["Session"],
    "replica_grouping": ["ReplicaGrouping"],
    "utils": ["to_numpy", "host_pow2scale_then_cast",
              "host_cast_then_pow2scale"],
    "fp8_utils": ["host_pow2scale_cast_to_fp8",
                  "host_pow2scale_cast_from_fp8"],
    "ops": ["add", "host_load", "host_store", "call", "repeat"],
    "ops.collectives": ["replicated_all_reduce", "CollectiveOperator"],
    "ops.var_updates": ["accumulate_", "copy_var_update_"],
}

# Names PopXL also has at the top level (``popxl.X``).
TOP = {"Tensor", "Variable", "Constant", "TensorSpec", "variable", "constant",
       "graph_input", "graph_output", "HostTensor", "HostScalarTensor",
       "ScalarType", "TensorLike", "dtype", "bool", "int8", "int32", "int64",
       "uint8", "float8_143", "float8_152", "float16", "float32", "float64",
       "bfloat16", "half", "float", "double", "HostToDeviceStream",
       "DeviceToHostStream", "h2d_stream", "d2h_stream", "get_current_graph",
       "gcg", "get_main_graph", "gmg", "ipu", "Graph", "Ir", "Session",
       "ReplicaGrouping"}


@pytest.mark.parametrize("mod", sorted(LAYOUT))
def test_each_name_is_in_popxl_s_submodule(mod):
    m = importlib.import_module("ipu." + mod)
    for name in LAYOUT[mod]:
        assert hasattr(m, name), "ipu.%s has no %s" % (mod, name)
        if name in TOP:
            assert getattr(ipu, name) is getattr(m, name), name


def test_dtype_aliases_are_popxl_s():
    assert ipu.half is ipu.float16
    assert ipu.float is ipu.float32
    assert ipu.double is ipu.float64


def test_version_is_the_stack_s():
    with open(os.path.join(TREE, "packaging", "install.mk")) as f:
        want = re.search(r"^IPU_VERSION := (\S+)$", f.read(), re.M).group(1)
    assert ipu.__version__ == want


def test_get_main_graph_from_a_subgraph():
    ir = ipu.Ir()
    with ir.main_graph:
        assert ipu.gmg() is ir.main_graph

        def body():
            assert ipu.get_main_graph() is ir.main_graph
            assert ipu.gcg() is not ir.main_graph
        ir.create_graph(body)


def test_utils_to_numpy_and_the_older_fp8_names():
    from ipu import utils
    a = utils.to_numpy([1.0, 2.0])
    assert a.dtype == np.float32
    assert utils.to_numpy([1, 2], downcast=False).dtype == np.int64
    codes = utils.to_numpy([0.75], ipu.float8_143, log2_scale=2)
    np.testing.assert_array_equal(
        codes, ipu.fp8_utils.host_pow2scale_cast_to_fp8(
            np.array([0.75]), ipu.float8_143, 2))
    assert utils.host_pow2scale_then_cast is \
        ipu.fp8_utils.host_pow2scale_cast_to_fp8
    assert utils.host_cast_then_pow2scale is \
        ipu.fp8_utils.host_pow2scale_cast_from_fp8
    with pytest.raises(RuntimeError, match="log2_scale"):
        utils.to_numpy([1.0], ipu.float32, log2_scale=1)


def test_popxl_is_the_package():
    import popxl
    import popxl.ops as ops
    import popxl.ops.collectives
    from popxl.dtypes import float32
    from popxl.tensor import graph_input
    from popxl.utils import host_pow2scale_then_cast  # noqa: F401
    assert popxl is ipu
    assert ops is ipu.ops
    assert popxl.ops.collectives is ipu.ops.collectives
    assert float32 is ipu.float32 and graph_input is ipu.graph_input
    assert sys.modules["popxl.dtypes"] is ipu.dtypes


def test_popxl_alone_runs_a_program():
    # A fresh interpreter with nothing but `import popxl`: its classes are
    # the package's (no second copy of any module).
    code = "\n".join([
        "import numpy as np, popxl, popxl.ops as ops, sys",
        "ir = popxl.Ir()",
        "with ir.main_graph:",
        "    x = popxl.h2d_stream((2,), popxl.float32, name='x')",
        "    y = popxl.d2h_stream((2,), popxl.float32, name='y')",
        "    ops.host_store(y, ops.host_load(x) * 2.0)",
        "with popxl.Session(ir, 'ipu_model') as s:",
        "    out = s.run({x: np.float32([1, 2])})[y]",
        "assert isinstance(x, popxl.streams.HostToDeviceStream)",
        "assert not [m for m in sys.modules if m.startswith('popxl.') and",
        "            sys.modules[m] is not sys.modules['ipu' + m[5:]]]",
        "print(out.tolist())",
    ])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(TREE, "userspace", "python")
    r = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[2.0, 4.0]"
