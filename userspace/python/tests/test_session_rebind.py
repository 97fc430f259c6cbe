# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""A run's arrays from run to run: the binding remembers the arrays of the
last run (ipu/session.py, _bind) and must never fill or read one it no
longer holds, whatever the caller passes next."""
import gc

import numpy as np
import pytest

import ipu

from conftest import acc_ir, session


def test_each_run_fills_the_array_it_is_given():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        a, b = np.zeros(2, np.float32), np.zeros(2, np.float32)
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: a})
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: b})
        # w accumulates: [1, 2] + 1, then + 1 again.
        np.testing.assert_array_equal(a, [2, 3])
        np.testing.assert_array_equal(b, [3, 4])
        s.run_with_outputs({x: np.ones(2, np.float32)}, {y: a})
        np.testing.assert_array_equal(a, [4, 5])
        np.testing.assert_array_equal(b, [3, 4])


def test_an_input_changed_in_place_is_read_again():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        xs = np.ones(2, np.float32)
        out = np.zeros(2, np.float32)
        s.run_with_outputs({x: xs}, {y: out})
        xs[:] = [10, 20]
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [12, 23])


def test_a_new_array_where_a_freed_one_was():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run_with_outputs({x: np.ones(2, np.float32)},
                           {y: np.zeros(2, np.float32)})
        gc.collect()
        # Likely at the freed arrays' addresses, and still their own.
        xs = np.full(2, 5, np.float32)
        out = np.zeros(2, np.float32)
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [7, 8])


def test_read_only_and_view_inputs():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        xs = np.ones(2, np.float32)
        xs.flags.writeable = False
        out = np.zeros(2, np.float32)
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [2, 3])
        big = np.arange(4, dtype=np.float32)
        s.run_with_outputs({x: big[2:]}, {y: out})
        np.testing.assert_array_equal(out, [4, 6])


def test_run_returns_fresh_arrays_each_time():
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        first = s.run({x: np.ones(2, np.float32)})[y]
        second = s.run({x: np.ones(2, np.float32)})[y]
        assert first is not second
        np.testing.assert_array_equal(first, [2, 3])
        np.testing.assert_array_equal(second, [3, 4])


def test_the_same_array_resized_dtype_changed_or_keyed_by_name():
    """What the last run bound is reused only for the same array of the
    same shape, dtype and stream. An array it bound cannot be resized in
    place (NumPy refuses while the binding's weak reference to it lives:
    that is what keeps its address); an array of another dtype in the
    slot, or the stream's name as the key, each bind again."""
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        xs = np.ones(2, np.float32)
        out = np.zeros(2, np.float32)
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [2, 3])
        with pytest.raises(ValueError):
            xs.resize(64, refcheck=False)
        with pytest.raises(ValueError):
            out.resize(64, refcheck=False)
        xs[:] = [10, 20]
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [12, 23])
        # float64: downcast by libsession into its scratch, then float32
        # again in the same slot.
        s.run_with_outputs({x: np.array([1, 1], np.float64)}, {y: out})
        np.testing.assert_array_equal(out, [13, 24])
        with pytest.raises(ipu.DTypeError):
            s.run_with_outputs({x: np.array([1, 1], np.float64)}, {y: out},
                               downcast_inputs=False)
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [23, 44])
        # A view of another shape of the same memory: bound again.
        with pytest.raises(ipu.ShapeError):
            s.run_with_outputs({x: xs.reshape(1, 2)}, {y: out})
        # By name, then by stream, the same arrays.
        s.run_with_outputs({x.name: xs}, {y.name: out})
        np.testing.assert_array_equal(out, [33, 64])
        with pytest.raises(ipu.StreamError):
            s.run_with_outputs({"nope": xs}, {y: out})
        s.run_with_outputs({x: xs}, {y: out})
        np.testing.assert_array_equal(out, [43, 84])
