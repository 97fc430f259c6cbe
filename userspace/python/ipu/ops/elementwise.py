# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Elementwise ops. Binary ones broadcast NumPy-style; both inputs have
one dtype (a Python number takes the tensor's)."""


from .. import _lib, dtypes
from ..errors import IrError
from ..tensor import Tensor
from .cast import cast
from ._util import check_range, current_ir, result, tensor_of


def _binary(cname, a, b):
    ir = current_ir()
    what = cname
    # A number takes the dtype of the tensor on the other side.
    like = a if isinstance(a, Tensor) else b if isinstance(b, Tensor) \
        else None
    ta = tensor_of(ir, a, like, what)
    tb = tensor_of(ir, b, ta, what)
    return result(ir, getattr(_lib, "ipu_ir_" + cname)(ir._c(), ta._h, tb._h),
                  what)


def _unary(cname, x):
    ir = current_ir()
    t = tensor_of(ir, x, None, cname)
    return result(ir, getattr(_lib, "ipu_ir_" + cname)(ir._c(), t._h), cname)


def add(lhs, rhs):
    """lhs + rhs, broadcast."""
    return _binary("add", lhs, rhs)


def sub(lhs, rhs):
    """lhs - rhs, broadcast."""
    return _binary("sub", lhs, rhs)


def mul(lhs, rhs):
    """lhs * rhs, broadcast."""
    return _binary("mul", lhs, rhs)


def div(lhs, rhs):
    """lhs / rhs, broadcast."""
    return _binary("div", lhs, rhs)


def neg(t):
    """-t (numeric types)."""
    return _unary("neg", t)


def negate(t):
    """-t (PopXL's name of :func:`neg`)."""
    return neg(t)


def abs(t):  # noqa: A001 (PopXL's name)
    """|t| (numeric types)."""
    return _unary("abs", t)


def relu(t):
    """max(t, 0) (numeric types)."""
    return _unary("relu", t)


def gelu(t):
    """GELU of t (floating-point types)."""
    return _unary("gelu", t)


def tanh(t):
    """tanh(t) (floating-point types)."""
    return _unary("tanh", t)


def sigmoid(t):
    """1 / (1 + exp(-t)) (floating-point types)."""
    return _unary("sigmoid", t)


def exp(t):
    """e^t (floating-point types)."""
    return _unary("exp", t)


def log(t):
    """Natural logarithm (floating-point types)."""
    return _unary("log", t)


def sqrt(t):
    """Square root (floating-point types)."""
    return _unary("sqrt", t)


def swish(t):
    """t * sigmoid(t) (PopXL's ``ops.swish``; floating-point types)."""
    ir = current_ir()
    x = tensor_of(ir, t, None, "swish")
    return mul(x, sigmoid(x))


def increment_mod(t, increment, modulus):
    """(t + increment) % modulus, elementwise (PopXL's
    ``ops.increment_mod``): the remainder has the sign of t + increment,
    as C's fmod and %. Both numbers take @t's dtype (an integer tensor
    truncates them). libipuir has no remainder op, so it is
    y - trunc(y / modulus) * modulus: exact for integers, and for floats
    whose quotient float32 holds within one unit (counters below 2^24);
    past that, off by the rounding of the quotient, never saturated.

    Raises:
        ipu.IrError (a ValueError): @modulus is 0 in @t's dtype (PopXL's
            result is undefined there).
        ipu.IrOverflowError (an IrError and an OverflowError, as NumPy's):
            @t of an integer type, the increment or modulus is outside its
            range.
    """
    ir = current_ir()
    x = tensor_of(ir, t, None, "increment_mod")
    for v in (increment, modulus):
        # Before int(): a number the dtype cannot hold is refused, not
        # wrapped (ops made of it would check it too, after the first op).
        check_range(v, x.dtype, "increment_mod")
    m = int(modulus) if x.dtype.is_int else float(modulus)
    if m == 0:
        raise IrError("increment_mod: modulus %r of '%s' (%s) is 0" %
                      (modulus, x.name, x.dtype.name))
    y = add(x, increment)
    q = div(y, m)
    if not x.dtype.is_int:
        q = _trunc(q)
    return sub(y, mul(q, m))


# Every float of magnitude 2^23 or more is an integer (float32's 24-bit
# significand; fewer bits in the smaller float types).
_INTEGRAL = float(2 ** 23)


def _trunc(q):
    """@q (a float tensor) rounded toward zero. The float to int32 cast
    truncates as C's, but saturates past 2^31: so only the part of @q
    within +-2^23 is cast, and the rest, an integer already, added back."""
    c = add(sub(q, relu(sub(q, _INTEGRAL))), relu(sub(neg(q), _INTEGRAL)))
    return add(cast(cast(c, dtypes.int32), q.dtype), sub(q, c))


# In-place variants (PopXL's ``ops.add_`` ...): the result is written into
# the first input, which keeps its dtype and shape (a binary op's other
# input broadcasts to it), and returned; ops made afterwards, and tensors
# that share its memory (views), see the new value.
def _inplace(name):
    out_of_place = globals()[name]

    def op(t, *args):
        from ._inplace import check_writable, update
        if isinstance(t, Tensor):
            # Before the value's ops are made.
            check_writable(t, name + "_")
        return update(t, out_of_place(t, *args), name + "_")
    op.__name__ = op.__qualname__ = name + "_"
    op.__doc__ = "ops.%s, in place on the first input, which it returns." \
        % name
    return op


add_ = _inplace("add")
sub_ = _inplace("sub")
mul_ = _inplace("mul")
div_ = _inplace("div")
neg_ = _inplace("neg")
abs_ = _inplace("abs")
relu_ = _inplace("relu")
gelu_ = _inplace("gelu")
tanh_ = _inplace("tanh")
sigmoid_ = _inplace("sigmoid")
exp_ = _inplace("exp")
log_ = _inplace("log")
sqrt_ = _inplace("sqrt")
swish_ = _inplace("swish")
increment_mod_ = _inplace("increment_mod")
