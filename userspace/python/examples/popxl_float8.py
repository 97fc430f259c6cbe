#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""FP8 data, the PopXL way: weights stored as float8_143 with a power-of-2
scale (``popxl.variable(..., log2_scale=)``), inputs cast to float8_143 on
the host (``popxl.utils.host_pow2scale_then_cast``) and streamed as FP8,
both cast up on the device for a matmul whose result is unscaled; then
the weights read back as FP8 and converted on the host
(``popxl.fp8_utils.host_pow2scale_cast_from_fp8``). Plain PopXL, run with
this tree's package on the path:

    PYTHONPATH=userspace/python /usr/bin/python3 \
        userspace/python/examples/popxl_float8.py
"""
import numpy as np
import popxl
import popxl.ops as ops
from popxl.fp8_utils import host_pow2scale_cast_from_fp8
from popxl.utils import host_pow2scale_then_cast

LOG2_SCALE = 3      # the weights are small: scale them up into FP8's range
rng = np.random.default_rng(1)
weights = (rng.random((4, 3)) / 16).astype(np.float32)
inputs = rng.random((3, 2)).astype(np.float32)

ir = popxl.Ir()
with ir.main_graph:
    w = popxl.variable(weights, popxl.float8_143, name="w",
                       log2_scale=LOG2_SCALE)
    x_h2d = popxl.h2d_stream(inputs.shape, popxl.float8_143, name="x")
    x = ops.host_load(x_h2d)
    w32 = ops.cast(w, popxl.float32) * (2.0 ** -LOG2_SCALE)
    y = ops.matmul(w32, ops.cast(x, popxl.float32))
    y_d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
    ops.host_store(y_d2h, y)

x8 = host_pow2scale_then_cast(inputs, popxl.float8_143, 0, True)
with popxl.Session(ir, "ipu_model") as session:
    out = session.run({x_h2d: x8})[y_d2h]
    w8 = session.get_tensor_data(w)

# The same computation on the host, from the same FP8 values.
w_back = host_pow2scale_cast_from_fp8(w8, popxl.float32, -LOG2_SCALE)
x_back = host_pow2scale_cast_from_fp8(x8, popxl.float32)
assert w8.dtype == popxl.dtypes.np_dtype_float8_143
np.testing.assert_allclose(out, w_back @ x_back, rtol=1e-6)
# FP8 keeps 3 mantissa bits: within 1/16 of the float32 result.
np.testing.assert_allclose(out, weights @ inputs, rtol=1 / 16, atol=1e-3)
print("result", np.round(out, 4).tolist())
