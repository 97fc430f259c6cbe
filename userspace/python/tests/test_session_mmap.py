# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Memory-mapped variables (S05, S22), as tests/unit/test_session_mmap.c:
the file of a variable is opened beneath the data directory the Session
grants."""
import os

import numpy as np
import pytest

import ipu
from conftest import acc_ir, session


def mapped(tmp_path, readonly=False, values=(3, 4)):
    np.array(values, np.float32).tofile(tmp_path / "w.bin")
    return acc_ir(mmap_path="w.bin", mmap_readonly=readonly)


def test_S22_file_is_the_initial_value(tmp_path):
    ir, x, y, w = mapped(tmp_path)
    with session(ir, data_dir=tmp_path) as s:
        out = s.run({x: np.zeros(2, np.float32)})[y]
    np.testing.assert_array_equal(out, [3, 4])


def test_S22_weights_to_host_writes_the_file(tmp_path):
    ir, x, y, w = mapped(tmp_path)
    with session(ir, data_dir=str(tmp_path)) as s:
        s.run({x: np.ones(2, np.float32)})
    np.testing.assert_array_equal(np.fromfile(tmp_path / "w.bin", np.float32),
                                  [4, 5])


def test_S22_writes_go_to_the_file(tmp_path):
    ir, x, y, w = mapped(tmp_path)
    s = session(ir, data_dir=tmp_path)
    s.write_variable_data(w, np.array([8, 9], np.float32))
    np.testing.assert_array_equal(np.fromfile(tmp_path / "w.bin", np.float32),
                                  [8, 9])


def test_S22_grouped_file_holds_a_value_per_group(tmp_path):
    np.array([[1, 2], [101, 102]], np.float32).tofile(tmp_path / "w.bin")
    ir, x, y, w = acc_ir(replicas=4, mmap_path="w.bin",
                         grouping=lambda ir: ir.replica_grouping(1, 2))
    with session(ir, data_dir=tmp_path) as s:
        out = s.run({x: np.ones((4, 2), np.float32)})[y]
    np.testing.assert_array_equal(out, [[2, 3], [2, 3], [102, 103],
                                        [102, 103]])
    # Each group's first replica went back to the file.
    np.testing.assert_array_equal(
        np.fromfile(tmp_path / "w.bin", np.float32).reshape(2, 2),
        [[2, 3], [102, 103]])


def test_S22_file_needs_a_granted_dir(tmp_path):
    ir, *_ = mapped(tmp_path)
    with pytest.raises(ipu.Error, match="'w'.*w.bin") as e:
        session(ir)
    assert e.value.errno == 13  # EACCES


def test_S22_cannot_follow_a_symlink_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    np.array([1, 2], np.float32).tofile(outside / "secret.bin")
    granted = tmp_path / "granted"
    granted.mkdir()
    os.symlink(outside / "secret.bin", granted / "w.bin")
    ir, *_ = acc_ir(mmap_path="w.bin")
    with pytest.raises(ipu.Error, match="w.bin"):
        session(ir, data_dir=granted)


def test_S22_short_file(tmp_path):
    np.array([1], np.float32).tofile(tmp_path / "w.bin")
    ir, *_ = acc_ir(mmap_path="w.bin")
    with pytest.raises(ipu.Error, match="w.bin.*bytes"):
        session(ir, data_dir=tmp_path)


def test_S05_read_only_mapping_disables_weights_to_host(tmp_path):
    ir, x, y, w = mapped(tmp_path, readonly=True)
    s = session(ir, data_dir=tmp_path)
    assert not s.weights_to_host_on_exit
    s.weights_to_host_on_exit = True       # stays off
    assert not s.weights_to_host_on_exit
    with s:
        s.run({x: np.ones(2, np.float32)})
        with pytest.raises(ipu.ReadOnlyError, match="read-only"):
            s.weights_to_host()
    np.testing.assert_array_equal(np.fromfile(tmp_path / "w.bin", np.float32),
                                  [3, 4])


def test_S05_read_only_mapping_cannot_be_written(tmp_path):
    ir, x, y, w = mapped(tmp_path, readonly=True)
    s = session(ir, data_dir=tmp_path)
    with pytest.raises(ipu.ReadOnlyError):
        s.write_variable_data(w, np.zeros(2, np.float32))
