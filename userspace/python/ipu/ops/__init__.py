# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Ops of the IR (PopXL's ``popxl.ops``): each adds one op to the current
graph (``with graph:``) and returns its output tensor.

Every op of libipuir is here: host_load, host_store; add, sub, mul, div,
neg (also as PopXL's negate), abs, relu, gelu, tanh, sigmoid, exp, log,
sqrt; matmul; transpose, reshape, slice, concat; sum, mean, max (also as
reduce_*); softmax, log_softmax; cast; call, repeat;
collectives.replicated_all_reduce; var_updates.scaled_add_ / accumulate_
/ copy_var_update_ (also here). In place (the first input updated,
PopXL's trailing ``_``): add_, sub_, mul_, div_, neg_, abs_, relu_, gelu_,
tanh_, sigmoid_, exp_, log_, sqrt_; swish(_), increment_mod(_),
dynamic_update(_) and detach (made of those ops); views: slice_,
transpose_, reshape_, flatten_ (and flatten), detach_, concat_;
call_with_info, repeat_with_info and
CallSiteInfo. A refused op raises :class:`ipu.IrError` with libipuir's
message, naming the op, the tensors and their shapes, and leaves the Ir as
it was.
"""
from . import collectives, var_updates
from .cast import cast
from .collectives import CollectiveOperator, replicated_all_reduce
from .control import (CallSiteInfo, call, call_with_info, repeat,
                      repeat_with_info)
from .dynamic import dynamic_update, dynamic_update_
from .elementwise import (abs, abs_, add, add_, div, div_, exp, exp_, gelu,
                          gelu_, increment_mod, increment_mod_, log, log_,
                          mul, mul_, neg, neg_, negate, relu, relu_, sigmoid,
                          sigmoid_, sqrt, sqrt_, sub, sub_, swish, swish_,
                          tanh, tanh_)
from .host import host_load, host_store
from .matmul import matmul
from .reduce import max, mean, reduce_max, reduce_mean, reduce_sum, sum
from .shape import (concat, concat_, detach, detach_, flatten, flatten_,
                    reshape, reshape_, slice, slice_, transpose, transpose_)
from .softmax import log_softmax, softmax
from .var_updates import accumulate_, copy_var_update_, scaled_add_

__all__ = [
    "abs", "add", "call", "cast", "collectives", "concat", "div", "exp",
    "gelu", "host_load", "host_store", "log", "log_softmax", "matmul", "max",
    "mean", "mul", "neg", "reduce_max", "reduce_mean", "reduce_sum", "relu",
    "repeat", "replicated_all_reduce", "reshape", "scaled_add_", "sigmoid",
    "slice", "softmax", "sqrt", "sub", "sum", "tanh", "transpose",
    "var_updates", "CollectiveOperator", "CallSiteInfo", "call_with_info",
    "repeat_with_info", "negate",
    "add_", "sub_", "mul_", "div_", "neg_", "abs_", "relu_", "gelu_",
    "tanh_", "sigmoid_", "exp_", "log_", "sqrt_", "flatten", "flatten_",
    "reshape_", "slice_", "transpose_", "accumulate_", "copy_var_update_",
    "swish", "swish_", "detach", "detach_", "concat_", "increment_mod",
    "increment_mod_", "dynamic_update", "dynamic_update_",
]
