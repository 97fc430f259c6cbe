# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Repeated names (issue 26): PopXL makes a tensor's or a stream's name
unique in its graph by appending ``__t<N>`` (PopART's intermediate-id
counter) rather than refusing it."""
import re

import numpy as np

import ipu
from conftest import session


def test_a_repeated_variable_name_is_made_unique():
    ir = ipu.Ir()
    with ir.main_graph:
        a = ipu.variable(np.float32([1, 2]), name="w")
        b = ipu.variable(np.float32([3, 4]), name="w")
        c = ipu.variable(np.float32([5, 6]), name="w")
        y = ipu.d2h_stream((2,), ipu.float32, name="y")
        ipu.ops.host_store(y, a + b + c)
    assert a.name == "w"
    assert re.fullmatch(r"w__t\d+", b.name)
    assert re.fullmatch(r"w__t\d+", c.name)
    assert len({a.name, b.name, c.name}) == 3
    with session(ir) as s:
        np.testing.assert_array_equal(s.run()[y], [9, 12])
        got = s.get_tensors_data([a, b, c])
    np.testing.assert_array_equal(got[b], [3, 4])
    np.testing.assert_array_equal(got[c], [5, 6])


def test_constants_share_the_names_of_variables():
    ir = ipu.Ir()
    with ir.main_graph:
        v = ipu.variable(np.float32([1]), name="k")
        k = ipu.constant(np.float32([2]), name="k")
        y = ipu.d2h_stream((1,), ipu.float32, name="y")
        ipu.ops.host_store(y, v + k)
    assert v.name == "k" and re.fullmatch(r"k__t\d+", k.name)
    with session(ir) as s:
        np.testing.assert_array_equal(s.run()[y], [3])


def test_a_repeated_stream_name_is_made_unique():
    ir = ipu.Ir()
    with ir.main_graph:
        x0 = ipu.h2d_stream((2,), ipu.float32, name="x")
        x1 = ipu.h2d_stream((2,), ipu.float32, name="x")
        y = ipu.d2h_stream((2,), ipu.float32, name="x")
        ipu.ops.host_store(y, ipu.ops.host_load(x0) - ipu.ops.host_load(x1))
    names = [x0.name, x1.name, y.name]
    assert names[0] == "x" and len(set(names)) == 3
    assert all(re.fullmatch(r"x__t\d+", n) for n in names[1:])
    assert x1.tensor_id == x1.name
    with session(ir) as s:
        out = s.run({x0: np.float32([5, 5]), x1: np.float32([1, 2])})
    np.testing.assert_array_equal(out[y], [4, 3])


def test_streams_and_variables_share_one_namespace_as_in_popxl():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(np.float32([1]), name="a")
        x = ipu.h2d_stream((1,), ipu.float32, name="a")
    assert w.name == "a" and re.fullmatch(r"a__t\d+", x.name)


def test_default_names_stay_unique_beside_given_ones():
    ir = ipu.Ir()
    with ir.main_graph:
        first = ipu.variable(np.float32([1]))
        clash = ipu.variable(np.float32([2]), name=first.name)
        again = ipu.variable(np.float32([3]))
        c = ipu.constant(np.float32([4]))
        c2 = ipu.constant(np.float32([5]), name=c.name)
    names = [t.name for t in (first, clash, again, c, c2)]
    assert len(set(names)) == 5, names
