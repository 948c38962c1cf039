"""Operators of NumPy ufuncs that python-graphblas offers only as ``op.numpy.<name>`` (it
compiles them with Numba): ``gcd``, ``lcm``, ``ldexp``, ``logaddexp``, ``logaddexp2``,
``nextafter``, ``copysign``, ``float_power``, ``left_shift``, ``right_shift``, the inverse
hyperbolic functions, ``deg2rad``, ``rad2deg``, ``rint``, ``signbit``, ``spacing``,
``square``, and the monoids ``gcd``, ``hypot``, ``logaddexp`` and ``logaddexp2``.

Each has a NumPy implementation (the ufunc itself) and a CUDA C expression with NumPy's
meaning at the edges (``gcd`` of negatives is positive, shifts past the width give 0 or -1,
``nextafter`` toward infinities).  Integer operands of the float ones compute in FP64, as
the rest of the catalog does; BOOL operands of the integer ones in INT8, as python-graphblas.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import BOOL, FP32, FP64, INT8, INT32, INT64, DataType
from ..exceptions import DomainMismatch
from .base import BinaryOp, TypedBinaryOp
from .catalog import BINARY, _binary, _dom_all, _dom_float, _float_unary, _monoid, _plain, _unary


def _dom_integer(t: DataType) -> DataType:
    """Integer ufuncs: BOOL computes in INT8 (NumPy's and python-graphblas's type), floats raise."""
    if t.is_float:
        raise DomainMismatch(f"this NumPy operator needs integer types, not {t}")
    return INT8 if t.is_bool else t


def _dom_int_or_float(t: DataType) -> DataType:
    return INT8 if t.is_bool else t


def _shift(name: str, np_func: Any, helper: str) -> None:
    def impl(t: DataType) -> Any:
        def f(x: Any, y: Any) -> Any:
            y = np.asarray(y)
            inside = (y >= 0) & (y < t.itemsize * 8)
            with np.errstate(all="ignore"):
                shifted = np_func(x, np.where(inside, y, 0).astype(t.np_type))
            past = np.zeros_like(shifted)  # shifted past the width; -1 for a negative shifted right
            if name == "right_shift" and t.is_signed:
                past[np.asarray(x) < 0] = -1
            return np.where(inside, shifted, past)
        return lambda x, y, pos: f(x, y)

    _binary(name, _dom_integer, impl, lambda t: f"{helper}<Z>(x, y)")


def _ldexp() -> None:
    """``ldexp(x, n)``: x float (FP64 for integers), n an integer (INT32 with FP32, else INT64)."""
    def build(t: DataType) -> TypedBinaryOp:
        x = t if t.is_float else FP64
        n = INT32 if x == FP32 else INT64
        bound = "(y > 100000 ? 100000 : (y < -100000 ? -100000 : (int)y))"  # past every exponent range

        def f(a: Any, b: Any, pos: Any) -> Any:
            return np.ldexp(a, np.clip(b, -100000, 100000).astype(np.int32))
        return TypedBinaryOp("ldexp", x, n, x, f, f"ldexp(x, {bound})")

    BINARY["ldexp"] = BinaryOp("ldexp", builder=build)


# ------------------------------------------------------------------------------ binary
_binary("gcd", _dom_integer, _plain(np.gcd), lambda t: "gb_gcd<Z>(x, y)", commutative=True)
_binary("lcm", _dom_integer, _plain(np.lcm), lambda t: "gb_lcm<Z>(x, y)", commutative=True)
_shift("left_shift", np.left_shift, "gb_shl")
_shift("right_shift", np.right_shift, "gb_shr")
_ldexp()
_binary("logaddexp", _dom_float, _plain(np.logaddexp), lambda t: "gb_logaddexp<Z>(x, y)", commutative=True)
_binary("logaddexp2", _dom_float, _plain(np.logaddexp2), lambda t: "gb_logaddexp2<Z>(x, y)", commutative=True)
_binary("nextafter", _dom_float, _plain(np.nextafter), lambda t: "gb_nextafter(x, y)")
_binary("copysign", _dom_float, _plain(np.copysign), lambda t: "copysign(x, y)")
_binary("float_power", _dom_float, _plain(np.float_power), lambda t: "pow(x, y)")  # C's pow: (-inf) ** 0.5 is inf

# ------------------------------------------------------------------------------ unary
_float_unary("asinh", np.arcsinh)
_float_unary("acosh", np.arccosh)
_float_unary("atanh", np.arctanh)
_float_unary("rint", np.rint)
_unary("deg2rad", _dom_float, lambda t: np.deg2rad, lambda t: "(x * (Z)0.017453292519943295)")
_unary("rad2deg", _dom_float, lambda t: np.rad2deg, lambda t: "(x * (Z)57.29577951308232)")
_unary("spacing", _dom_float, lambda t: np.spacing, lambda t: "gb_spacing((Z)x)")
_unary("signbit", _dom_all,
       lambda t: np.signbit if t.is_float else (lambda x: np.zeros(np.shape(x), bool) if t.is_bool else x < 0),
       lambda t: "signbit(x)" if t.is_float else ("false" if t.is_bool else "(x < 0)"), out=lambda t: BOOL)
_unary("square", _dom_int_or_float, lambda t: np.square, lambda t: "(Z)(x * x)")

# ------------------------------------------------------------------------------ monoids
_monoid("gcd", lambda t: 0, lambda t: 1, lambda t: np.gcd)
_monoid("hypot", lambda t: 0.0, None, lambda t: np.hypot)
_monoid("logaddexp", lambda t: -np.inf, None, lambda t: np.logaddexp)
_monoid("logaddexp2", lambda t: -np.inf, None, lambda t: np.logaddexp2)

# NumPy's names of these (op.numpy.<name> -> catalog name)
UFUNC_UNARY = {"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "rint": "rint", "deg2rad": "deg2rad",
               "radians": "deg2rad", "rad2deg": "rad2deg", "degrees": "rad2deg", "spacing": "spacing",
               "signbit": "signbit", "square": "square", "abs": "abs"}
UFUNC_BINARY = {n: n for n in ("fmod", "gcd", "lcm", "ldexp", "logaddexp", "logaddexp2", "nextafter", "copysign",
                               "float_power", "left_shift", "right_shift")}
UFUNC_MONOID = {n: n for n in ("gcd", "hypot", "logaddexp", "logaddexp2")}
