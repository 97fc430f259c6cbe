# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""A run's arrays from run to run: the binding remembers the arrays of the
last run (ipu/session.py, _bind) and must never fill or read one it no
longer holds, whatever the caller passes next."""
import gc

import numpy as np

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
