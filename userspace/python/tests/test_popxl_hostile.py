# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Inputs a careless or hostile caller gives the ops added late (call and
repeat's list flattening, increment_mod): each is either done right or
refused with the package's error naming the bad value, never a stray
TypeError from inside nor a silently wrong result."""
import numpy as np
import pytest

import ipu
from test_popxl_more_ops import _run


def test_call_takes_a_zero_dim_array_as_one_input():
    # A 0-d array is a TensorLike, not an iterable of inputs: NumPy
    # cannot iterate it.
    def build(t):
        ir = t._ir

        def f(a, b):
            return a * b
        g = ir.create_graph(f, t, ipu.constant(np.float32(2.0)))
        y, = ipu.ops.call(g, t, np.array(3.0, np.float32))
        z, = ipu.ops.repeat(g, 1, t, np.array(3.0, np.float32))
        return {"y": y, "z": z}
    x = np.array([1.0, -2.0, 4.0], np.float32)
    got, _ = _run(build, x=x)
    np.testing.assert_array_equal(got["y"], x * 3)
    np.testing.assert_array_equal(got["z"], x * 3)
