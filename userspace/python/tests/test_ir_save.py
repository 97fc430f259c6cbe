# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Ir.save(): a program built in Python, written as an executable that
ipu-run runs (issue 27 item 12), with the bits a Session gives; its
errors (a program that does not compile, a path that cannot be written)
raised as IrError naming the reason; the Ir unchanged by it."""
import os
import subprocess

import numpy as np
import pytest

import ipu

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
IPU_RUN = os.environ.get("IPU_RUN", os.path.join(ROOT, "build", "tools", "ipu-run"))


def double_ir():
    """y = 2 * x + w, with variable w; float32[4]."""
    ir = ipu.Ir(name="double")
    with ir.main_graph:
        x_s = ipu.h2d_stream((4,), ipu.float32, name="x")
        y_s = ipu.d2h_stream((4,), ipu.float32, name="y")
        w = ipu.variable(np.arange(4, dtype=np.float32), name="w")
        x = ipu.ops.host_load(x_s)
        ipu.ops.host_store(y_s, x * 2.0 + w)
    return ir, x_s, y_s


def test_ipu_run_runs_a_saved_program_with_the_session_s_bits(tmp_path):
    if not os.access(IPU_RUN, os.X_OK):
        pytest.fail("no ipu-run at %s (make python-check builds it)" % IPU_RUN)
    ir, x_s, y_s = double_ir()
    exe = tmp_path / "double.ipux"
    ir.save(exe)
    x = np.array([1.5, -2.0, 3.25, 0.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    out = subprocess.run([IPU_RUN, "-q", "-i", "x=%s" % (tmp_path / "x.npy"),
                          "-o", "y=%s" % (tmp_path / "y.npy"),
                          "--device", "ipu_model", str(exe)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    y = np.load(tmp_path / "y.npy")
    # The Ir is unchanged: a Session runs it after the save.
    with ipu.Session(ir, "ipu_model") as s:
        want = s.run({x_s: x})[y_s]
    assert y.dtype == np.float32 and y.shape == (4,)
    assert np.array_equal(y, want)
    assert np.array_equal(y, x * 2 + np.arange(4, dtype=np.float32))


def test_save_replaces_a_file_and_takes_a_path_object(tmp_path):
    ir, _, _ = double_ir()
    exe = tmp_path / "p.ipux"
    exe.write_bytes(b"old")
    ir.save(exe)
    ir.save(str(exe))
    assert exe.read_bytes()[:4] != b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["p.ipux"]


def test_a_program_that_does_not_compile_is_refused_naming_why(tmp_path):
    ir = ipu.Ir(name="bad")
    ir.num_host_transfers = 2
    with ir.main_graph:
        x_s = ipu.h2d_stream((4,), ipu.float32, name="x")
        ipu.ops.host_load(x_s)  # once per run, where 2 are declared
    with pytest.raises(ipu.IrError) as e:
        ir.save(tmp_path / "bad.ipux")
    assert "save: " in str(e.value) and "'x'" in str(e.value)
    assert not (tmp_path / "bad.ipux").exists()


def test_a_path_that_cannot_be_written_is_refused_naming_it(tmp_path):
    ir, _, _ = double_ir()
    bad = tmp_path / "no-such-dir" / "p.ipux"
    with pytest.raises(ipu.IrError) as e:
        ir.save(bad)
    assert str(bad.parent) in str(e.value)
    assert e.value.errno != 0
