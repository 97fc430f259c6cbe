# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""PopXL's tensor and dtype API (issue 26): ``dtype.as_dtype``,
``Tensor.spec``, ``len(tensor)``, and indexing a tensor with a tensor, a
list or a host array (integer indexing gathers along axis 0, boolean
indexing zeroes where the mask is False), as PopXL's API reference says;
values checked against NumPy."""
import numpy as np
import pytest

import ipu
from conftest import session

X = np.arange(12, dtype=np.float32).reshape(4, 3) - 5.5


def _run(build):
    """Build @build(x) in a fresh Ir's main graph, x a variable holding X,
    store what it returns and run: the value."""
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.variable(X, name="x")
        t = build(x)
        out = ipu.d2h_stream(t.shape, t.dtype, name="out")
        ipu.ops.host_store(out, t)
    with session(ir) as s:
        return s.run({})[out]


@pytest.mark.parametrize("value, want", [
    (np.float32, ipu.float32), (np.dtype("int8"), ipu.int8),
    ("float16", ipu.float16), (ipu.bfloat16, ipu.bfloat16),
    (float, ipu.float32), (bool, ipu.bool),
    (np.zeros(2, np.int32), ipu.int32), (np.float64, ipu.float64),
])
def test_dtype_as_dtype_converts_as_popxl(value, want):
    assert ipu.dtype.as_dtype(value) is want
    assert ipu.dtypes.dtype.as_dtype(value) is want


@pytest.mark.parametrize("value", ["no_such_type", np.complex64, object()])
def test_dtype_as_dtype_refuses_with_value_error(value):
    with pytest.raises(ValueError):
        ipu.dtype.as_dtype(value)


def test_dtype_from_name_refuses_with_value_error():
    with pytest.raises(ValueError):
        ipu.dtype.from_name("float7")
    assert ipu.dtype.from_name("int32") is ipu.int32


def test_tensor_spec_gives_shape_and_dtype():
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.variable(X, name="x")
        spec = x.spec
    assert isinstance(spec, ipu.TensorSpec)
    assert spec.shape == (4, 3) and spec.dtype is ipu.float32
    # A spec makes a subgraph input like the tensor.
    g = ir.create_graph(lambda a: a + 1.0, spec)
    assert g.inputs[0].shape == (4, 3)


def test_len_is_the_first_dimension_and_a_scalar_has_none():
    ir = ipu.Ir()
    with ir.main_graph:
        assert len(ipu.variable(X, name="x")) == 4
        s = ipu.variable(np.float32(1.0), name="s")
        with pytest.raises(ValueError):
            len(s)


@pytest.mark.parametrize("key", [[2, 0, 3], np.array([[1], [3]], np.int32),
                                 [-1, 1]])
def test_index_with_host_integers_gathers_rows(key):
    got = _run(lambda x: x[key])
    np.testing.assert_array_equal(got, X[np.asarray(key)])


def test_index_with_a_constant_integer_tensor_gathers_rows():
    got = _run(lambda x: x[ipu.constant(np.array([3, 3, 0], np.int32))])
    np.testing.assert_array_equal(got, X[[3, 3, 0]])


def test_index_with_a_computed_integer_tensor_gathers_rows():
    # An index only known on the device (a variable, cast): the gather
    # must happen on the device.
    def build(x):
        i = ipu.variable(np.array([1.0, 3.0], np.float32), name="i")
        return x[ipu.ops.cast(i, ipu.int32)]
    np.testing.assert_array_equal(_run(build), X[[1, 3]])


def test_index_an_int32_tensor_with_a_computed_index():
    def build(x):
        xi = ipu.ops.cast(x, ipu.int32)
        i = ipu.ops.cast(ipu.variable(np.array(2.0, np.float32),
                                      name="i"), ipu.int32)
        return xi[i]
    np.testing.assert_array_equal(_run(build), X.astype(np.int32)[2])


@pytest.mark.parametrize("mask", [
    np.array([[True], [False], [True], [False]]),
    [[True, False, True]] * 4,
])
def test_index_with_a_host_boolean_mask_zeroes_the_false(mask):
    got = _run(lambda x: x[mask])
    np.testing.assert_array_equal(got, np.where(np.asarray(mask), X, 0))


def test_index_with_a_boolean_tensor_zeroes_the_false():
    m = np.array([True, False, False])

    def build(x):
        return x[ipu.variable(m, name="m")]
    np.testing.assert_array_equal(_run(build), np.where(m, X, 0))


@pytest.mark.parametrize("key", [True, "a", 1.5, (0, [1])])
def test_index_of_another_kind_raises_type_error(key):
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.variable(X, name="x")
        with pytest.raises(TypeError):
            x[key]


def test_index_out_of_range_raises_index_error():
    ir = ipu.Ir()
    with ir.main_graph:
        x = ipu.variable(X, name="x")
        with pytest.raises(IndexError):
            x[[0, 4]]
