# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The exception types PopXL's API reference gives, each caught both as
the built-in exception PopXL raises and as ``ipu.Error`` (the package's
own class is a subclass of both)."""
import numpy as np
import pytest

import ipu
from conftest import acc_ir, session


def _raises(builtin, fn, *args):
    """@fn(*args) raises an ipu.Error that is also @builtin."""
    with pytest.raises(builtin) as e:
        fn(*args)
    assert isinstance(e.value, ipu.Error), type(e.value)


def test_runtime_calls_on_a_detached_session_raise_value_error():
    ir, x, _, _ = acc_ir()
    s = session(ir)
    _raises(ValueError, s.run, {x: np.ones(2, np.float32)})
    _raises(ValueError, s.weights_to_host)
    _raises(ValueError, s.weights_from_host)


def test_missing_or_unexpected_streams_raise_value_error():
    ir, x, y, _ = acc_ir()
    with session(ir) as s:
        _raises(ValueError, s.run, {})
        _raises(ValueError, s.run, {x: np.ones(2, np.float32),
                                    y: np.ones(2, np.float32)})


def test_an_input_of_the_wrong_shape_raises_value_error():
    ir, x, _, _ = acc_ir()
    with session(ir) as s:
        _raises(ValueError, s.run, {x: np.ones(3, np.float32)})


def test_get_tensor_data_of_no_variable_or_constant_raises_type_error():
    ir, x, _, w = acc_ir()
    with ir.main_graph:
        t = w + 1.0
    with session(ir) as s:
        _raises(TypeError, s.get_tensor_data, t)


def test_write_variable_data_raises_as_popxl():
    ir, _, _, w = acc_ir()
    with ir.main_graph:
        c = ipu.constant(np.ones(2, np.float32), name="c")
    s = session(ir)
    _raises(TypeError, s.write_variable_data, c, np.ones(2, np.float32))
    _raises(TypeError, s.write_variable_data, w, np.ones(2, np.int32))
    _raises(ValueError, s.write_variable_data, w, np.ones(3, np.float32))


def test_write_all_replicas_grouped_raises_not_implemented_error():
    ir, _, _, w = acc_ir(replicas=2, grouping=lambda ir: ir.replica_grouping(
        1, 2), retrieval_mode="all_replicas")
    s = session(ir)
    _raises(NotImplementedError, s.write_variable_data, w,
            np.ones((2, 2), np.float32))


def test_an_unknown_device_type_raises_value_error():
    ir, _, _, _ = acc_ir()
    _raises(ValueError, ipu.Session, ir, "ipu_nonsense")


def test_cpu_with_replication_raises_value_error():
    ir, _, _, _ = acc_ir(replicas=2)
    _raises(ValueError, ipu.Session, ir, "cpu")


def test_too_few_ipus_raise_runtime_error():
    ir, _, _, _ = acc_ir(replicas=32)
    _raises(RuntimeError, session, ir)


def test_an_op_on_tensors_of_another_ir_raises_value_error():
    a, b = ipu.Ir(), ipu.Ir()
    with a.main_graph:
        x = ipu.variable(np.ones(2, np.float32), name="x")
    with b.main_graph:
        _raises(ValueError, ipu.ops.add, x, x)
