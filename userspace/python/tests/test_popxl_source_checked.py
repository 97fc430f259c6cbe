# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Where the package differed from PopXL's own source (graphcore/popart,
python/popxl/): the in-place operators (only ``+=`` is in place,
``Tensor.__iadd__``), ``CallSiteInfo`` and ``ops.repeat_with_info``
(ops/call.py, ops/repeat.py), inputs given as lists to ``call`` and
``repeat`` (flattened, ops/call.py), ``dtype.as_dtype`` of NumPy's names
(dtypes.py) and ``gcg()`` outside every graph (RuntimeError,
context.py). Each checked by running the program on the model."""
import numpy as np
import pytest

import ipu
from conftest import session

W0 = np.array([1.0, 2.0, 3.0], np.float32)
X = np.array([0.5, -1.0, 4.0], np.float32)


def _run(ir, ts, weights=()):
    """Store tensors @ts of @ir's main graph and run once: their values,
    then those of variables @weights."""
    with ir.main_graph:
        streams = [ipu.d2h_stream(t.shape, t.dtype, name="out%d" % i)
                   for i, t in enumerate(ts)]
        for st, t in zip(streams, ts):
            ipu.ops.host_store(st, t)
    with session(ir) as s:
        got = s.run({})
        s.weights_to_host()
        return ([got[st] for st in streams] +
                [s.get_tensor_data(w) for w in weights])


# --- 1. in-place operators: PopXL's Tensor has __iadd__ only -------------

def test_only_plus_equals_is_in_place():
    ir = ipu.Ir()
    with ir.main_graph:
        w = ipu.variable(W0, name="w")
        keep = w
        w += ipu.constant(X)
        assert w is keep
        results = {}
        for op in ("-=", "*=", "/="):
            t = ipu.variable(W0, name="t")
            loc = {"t": t, "x": ipu.constant(X)}
            exec("t " + op + " x", {}, loc)
            # PopXL falls back to __sub__ ...: the name is rebound to a
            # new tensor, the variable keeps its value.
            assert loc["t"] is not t
            results[op] = (t, loc["t"])
    ts = [r for pair in results.values() for r in pair]
    got = _run(ir, ts, weights=[keep] + [p[0] for p in results.values()])
    vals = dict(zip(results, zip(got[0::2], got[1::2])))
    np.testing.assert_array_equal(vals["-="][0], W0)
    np.testing.assert_array_equal(vals["-="][1], W0 - X)
    np.testing.assert_array_equal(vals["*="][1], W0 * X)
    np.testing.assert_allclose(vals["/="][1], W0 / X, rtol=1e-6)
    weights = got[len(ts):]
    np.testing.assert_array_equal(weights[0], W0 + X)
    for v in weights[1:]:
        np.testing.assert_array_equal(v, W0)


