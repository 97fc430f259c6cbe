# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Element types, as PopXL names them: ``ipu.float32``, ``ipu.float16``,
``ipu.bfloat16``, ``ipu.float8_143``, ``ipu.float8_152``, ``ipu.int32``,
``ipu.int8``, ``ipu.uint8``, ``ipu.int16``, ``ipu.uint16``, ``ipu.uint32``,
``ipu.bool``, and the host-only
``ipu.float64`` and ``ipu.int64`` (inputs downcast to 32 bits, S12).

NumPy has no bfloat16 or FP8: host arrays of bfloat16 hold its codes as
uint16; those of FP8 hold its codes in PopXL's structured dtypes
:data:`np_dtype_float8_143` and :data:`np_dtype_float8_152` (one byte, the
format in the field's name; :mod:`ipu.fp8_utils` converts). Where FP8 data
goes in, plain uint8 codes are taken too, the format being the tensor's.
"""
import builtins

import numpy as np

from . import _lib


class UnknownDtypeError(KeyError, ValueError):
    """No dtype has that name or matches that value: PopXL raises
    ValueError (``dtype.from_name``, ``dtype.as_dtype``); this package's
    ``dtypes.from_name`` raised KeyError, which still catches it."""

    def __str__(self):
        # KeyError quotes its argument; a message reads better plain.
        return str(self.args[0]) if self.args else ""


class dtype:
    """An element type of IPU tensors and host arrays.

    Attributes:
        name (str): PopXL's name ("float32", "float8_143", ...).
        itemsize (int): bytes per element.
        is_floating_point (bool): a float type (the FP8s included).
        is_fp8 (bool): float8_143 or float8_152.
        on_device (bool): device tensors may have it (not float64, int64).
    """

    _by_code = {}
    _by_name = {}

    def __init__(self, name, code, np_dtype, is_float, on_device=True):
        self.name = name
        self._code = code
        self._np = np.dtype(np_dtype)
        self.is_floating_point = is_float
        self.is_fp8 = name.startswith("float8")
        self.on_device = on_device
        self.itemsize = int(_lib.ipu_dtype_size(code))
        dtype._by_code[code] = self
        dtype._by_name[name] = self

    def as_numpy(self):
        """The NumPy dtype of host arrays of this type (for FP8 PopXL's
        structured np_dtype_float8_143 / _152, uint16 for bfloat16: the
        codes)."""
        return self._np

    @property
    def is_int(self):
        """An integer type (PopXL's ``dtype.is_int``)."""
        return self.name.startswith(("int", "uint"))

    @property
    def is_signed(self):
        """A signed type (PopXL's ``dtype.is_signed``)."""
        return not self.name.startswith("uint") and self.name != "bool"

    @property
    def is_complex(self):
        """Always False: the stack has no complex types."""
        return False

    @classmethod
    def from_name(cls, name):
        """The dtype called @name (PopXL's ``dtype.from_name``).

        Raises:
            ValueError: no dtype has that name.
        """
        return from_name(name)

    @classmethod
    def as_dtype(cls, type_value):
        """@type_value as an ipu dtype (PopXL's ``dtype.as_dtype``): a
        dtype, its name, a NumPy dtype, scalar type or any name NumPy
        knows ("f4", "<i2", "float", which is NumPy's float64, ...), a
        NumPy array (its dtype), or Python's ``float`` (float32) or
        ``bool``. A name of an ipu dtype is that dtype; other strings
        mean what ``numpy.dtype`` makes of them, as in PopXL.

        Raises:
            ValueError: @type_value matches no dtype.
        """
        if isinstance(type_value, dtype):
            return type_value
        if isinstance(type_value, str) and type_value in dtype._by_name:
            return dtype._by_name[type_value]
        if type_value is builtins.float:
            return float32
        if type_value is builtins.bool:
            return bool
        code = None
        # A NumPy dtype or scalar type, else an array's dtype.
        for cand in (type_value, getattr(type_value, "dtype", None)):
            if cand is None:
                continue  # np.dtype(None) is float64
            try:
                code = _np_to_code.get(np.dtype(cand))
            except TypeError:
                continue
            break
        if code is None:
            raise UnknownDtypeError(
                "no ipu dtype matches %r (of type %s)" %
                (type_value, type(type_value).__name__))
        return dtype._by_code[code]

    def __repr__(self):
        return "ipu." + self.name

    __str__ = __repr__

    def __reduce__(self):
        # Pickle as the module's singleton.
        return (from_name, (self.name,))


float32 = dtype("float32", 1, np.float32, True)
float16 = dtype("float16", 2, np.float16, True)
bfloat16 = dtype("bfloat16", 3, np.uint16, True)
#: PopXL's NumPy dtypes of FP8 host data: the codes, one byte each, in a
#: field named for the format, so that an array says which format it holds.
np_dtype_float8_143 = np.dtype([("float8_143", "u1")])
np_dtype_float8_152 = np.dtype([("float8_152", "u1")])

float8_143 = dtype("float8_143", 4, np_dtype_float8_143, True)
float8_152 = dtype("float8_152", 5, np_dtype_float8_152, True)
int32 = dtype("int32", 6, np.int32, False)
int8 = dtype("int8", 7, np.int8, False)
uint8 = dtype("uint8", 8, np.uint8, False)
bool = dtype("bool", 9, np.bool_, False)  # noqa: A001 (PopXL's name)
float64 = dtype("float64", 10, np.float64, True, on_device=False)
int64 = dtype("int64", 11, np.int64, False, on_device=False)
int16 = dtype("int16", 12, np.int16, False)
uint16 = dtype("uint16", 13, np.uint16, False)
uint32 = dtype("uint32", 14, np.uint32, False)

# PopXL's other names of three of them (popxl.half, popxl.float,
# popxl.double).
half = float16
float = float32  # noqa: A001 (PopXL's name)
double = float64

# NumPy dtypes of host arrays and the C dtype a buffer of them is tagged
# with (the host representation of each type; uint16 arrays are uint16
# data, or bfloat16 codes where the target is bfloat16: host_code()).
_np_to_code = {np.dtype(d): c for d, c in (
    (np.float32, 1), (np.float16, 2), (np.int32, 6), (np.int8, 7),
    (np.uint8, 8), (np.bool_, 9), (np.float64, 10), (np.int64, 11),
    (np.int16, 12), (np.uint16, 13), (np.uint32, 14),
    (np_dtype_float8_143, 4), (np_dtype_float8_152, 5))}


def from_name(name):
    """The dtype called @name ("float32", ...).

    Raises:
        UnknownDtypeError: no dtype has that name (a ValueError, as
            PopXL's, and a KeyError).
    """
    try:
        return dtype._by_name[name]
    except (KeyError, TypeError):
        raise UnknownDtypeError("no ipu dtype is called %r" % (name,)) \
            from None


def from_code(code):
    """The dtype of C enum ipu_dtype value @code."""
    return dtype._by_code[code]


def from_numpy(np_dtype):
    """The ipu dtype of a NumPy dtype (float32 -> ipu.float32, ...); uint16
    is ipu.uint16 (bfloat16 codes are uint16 too: say
    ``dtype=ipu.bfloat16``).

    Raises:
        TypeError: for a NumPy dtype with no ipu equivalent.
    """
    code = _np_to_code.get(np.dtype(np_dtype))
    if code is None:
        raise TypeError("NumPy dtype %s has no ipu equivalent" %
                        np.dtype(np_dtype))
    return dtype._by_code[code]


def host_code(np_dtype, target=None):
    """The C dtype to tag a host buffer of NumPy dtype @np_dtype with when
    it is for a stream or tensor of ipu dtype @target: uint16 arrays hold
    bfloat16 codes, uint8 ones FP8 codes of @target's format; None if
    NumPy's type has no C equivalent."""
    np_dtype = np.dtype(np_dtype)
    if target is bfloat16 and np_dtype == np.uint16:
        return bfloat16._code
    if target is not None and target.is_fp8 and np_dtype == np.uint8:
        return target._code
    return _np_to_code.get(np_dtype)
