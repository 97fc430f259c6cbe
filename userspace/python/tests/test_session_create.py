# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Construction (S01-S05, S24), as tests/unit/test_session_create.c."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session
from hooks import hooks


def test_S01_session_takes_the_ir():
    ir, x, y, w = acc_ir()
    s = session(ir)
    # The Ir can no longer change, but its tensors and streams stay usable.
    with pytest.raises(ipu.IrError, match="belongs to a Session"):
        with ir.main_graph:
            ipu.variable(np.zeros(2, np.float32), name="late")
    assert w.shape == (2,) and w.dtype is ipu.float32 and x.name == "x"
    assert s.ir is ir
    assert ir.replication_factor == 1 and ir.num_host_transfers == 1
    s.close()


def test_S01_ir_taken_even_when_create_fails():
    ir, *_ = acc_ir()
    with pytest.raises(ipu.Error):
        ipu.Session(ir, "no_such_device")
    with pytest.raises(ipu.IrError, match="belongs to a Session"):
        ir.num_host_transfers = 2


def test_S01_program_that_does_not_compile():
    # A stream loaded more often than num_host_transfers: the compiler's
    # message.
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        ipu.ops.host_store(y, ipu.ops.host_load(x) + ipu.ops.host_load(x))
    with pytest.raises(ipu.Error, match="'x'") as e:
        session(ir)
    assert e.value.errno != 0


def test_S02_unknown_device_lists_the_valid_ones():
    ir, *_ = acc_ir()
    with pytest.raises(ipu.Error) as e:
        ipu.Session(ir, "gpu")
    for valid in ("ipu_hw", "ipu_model", "cpu", "auto"):
        assert valid in str(e.value)


def test_S02_cpu_rejects_replication():
    ir, *_ = acc_ir(replicas=2)
    with pytest.raises(ipu.Error, match="cpu"):
        ipu.Session(ir, "cpu")


def test_S02_model_and_cpu_run_programs():
    for dev in ("ipu_model", "cpu"):
        ir, x, y, w = acc_ir()
        with session(ir, dev) as s:
            out = s.run({x: np.array([1, 1], np.float32)})
        assert s.device.type == dev
        np.testing.assert_array_equal(out[y], [2, 3])


def test_S03_ipus_are_a_power_of_two():
    ir, *_ = acc_ir(replicas=3)
    s = session(ir)
    assert s.device.num_ipus == 4
    ir = ipu.Ir()
    ir.replication_factor = 3
    with ir.main_graph:
        x = ipu.h2d_stream((2,), ipu.float32, name="x")
        with ipu.ipu(1):
            t = ipu.ops.host_load(x) * 2.0
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        ipu.ops.host_store(y, t)
    # 2 IPUs per replica, 3 replicas: 6, rounded up to 8.
    assert session(ir).device.num_ipus == 8


def test_S03_no_graphs():
    with pytest.raises(ipu.Error, match="no graphs.*adding more operations"):
        session(ipu.Ir())


def test_S04_offline_device_is_acquired_on_enter(monkeypatch):
    monkeypatch.setenv("IPU_OFFLINE_DEVICE", "ipu_model")
    ir, x, y, w = acc_ir()
    s = session(ir, "cpu")
    monkeypatch.delenv("IPU_OFFLINE_DEVICE")
    assert s.device.type == "ipu_model"
    assert not s.is_attached
    with s:
        out = s.run({x: np.ones(2, np.float32)})
    np.testing.assert_array_equal(out[y], [2, 3])


def test_S04_offline_hardware_cannot_be_entered_without_ipus(monkeypatch):
    monkeypatch.setenv("IPU_OFFLINE_DEVICE", "ipu_hw")
    ir, *_ = acc_ir()
    s = session(ir)
    monkeypatch.delenv("IPU_OFFLINE_DEVICE")
    assert s.device.type == "ipu_hw"
    with pytest.raises(ipu.NoDeviceError,
                       match="could not attach to device 0.*ipu-info"):
        with s:
            pass
    assert not s.is_attached


def test_S05_weights_to_host_on_exit_by_default():
    ir, x, y, w = acc_ir()
    s = session(ir)
    assert s.weights_to_host_on_exit
    with s:
        s.run({x: np.ones(2, np.float32)})
    # Detached: the host copy, fetched on exit.
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S05_weights_to_host_on_exit_can_be_disabled():
    for how in ("constructor", "attribute"):
        ir, x, y, w = acc_ir()
        if how == "constructor":
            s = session(ir, weights_to_host_on_exit=False)
        else:
            s = session(ir)
            s.weights_to_host_on_exit = False
        with s:
            s.run({x: np.ones(2, np.float32)})
        np.testing.assert_array_equal(s.get_tensor_data(w), [1, 2])
        assert not hooks.in_sync(s)


def test_S05_weights_to_host_on_exit_can_be_turned_back_on():
    ir, x, y, w = acc_ir()
    s = session(ir, weights_to_host_on_exit=False)
    s.weights_to_host_on_exit = True
    with s:
        s.run({x: np.ones(2, np.float32)})
    assert hooks.in_sync(s)
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 3])


def test_S24_auto_is_the_model_without_hardware():
    ir, x, y, w = acc_ir()
    s = ipu.Session(ir)
    assert s.device.type == "ipu_model"
    assert str(s.device) == "ipu_model"


def test_S24_auto_follows_IPU_DEVICE(monkeypatch):
    monkeypatch.setenv("IPU_DEVICE", "model")
    ir, *_ = acc_ir()
    assert ipu.Session(ir, "auto").device.type == "ipu_model"


def test_split_ir_needs_its_instance():
    """instance_replication_factor below replication_factor: the process
    must be the instance (docs/instances.md; ipu.instances.init() under
    mpirun, which tests/mpi/mpi_python.py shows)."""
    ir, _, _, _ = acc_ir(replicas=4)
    ir.instance_replication_factor = 2
    assert ir.instance_replication_factor == 2
    with pytest.raises(ipu.Error, match="runs 2 of its 4 replicas per "
                       "instance, as 2 instances; this process is not split"):
        session(ir)


def test_instances_without_libipu_mpi_names_the_package(monkeypatch, tmp_path):
    """No libipu-mpi.so.1 where the libraries are: the error says which
    package brings it."""
    import ipu.instances
    monkeypatch.setattr(ipu.instances, "_mpi", None)
    monkeypatch.setattr(ipu._lib, "_lib_dir", lambda: str(tmp_path))
    with pytest.raises(ipu.Error, match="package libipu-mpi1 installs it"):
        ipu.instances.init()
