"""NumPy versions of the C semantics the CUDA renderings have.

Integer division follows SuiteSparse:GraphBLAS: ``x / 0`` is 0 when x is 0, the
type's maximum when x > 0 and its minimum when x < 0; float-to-integer casts
truncate toward zero, saturate at the type's limits and send NaN to 0.  Both
backends use these rules, so their results are identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DataType


def cast_array(x: Any, t: DataType, xp: Any = np) -> Any:
    """Cast an array to ``t`` C-style (saturating float -> int, NaN -> 0, nonzero -> true)."""
    if x.dtype == t.np_type:
        return x
    if x.dtype.kind == "f" and t.is_integer:
        info = np.iinfo(t.np_type)
        lo, hi = float(info.min), float(info.max)
        tr = xp.trunc(xp.nan_to_num(x, nan=0.0, posinf=hi, neginf=lo))
        with np.errstate(all="ignore"):
            out = xp.clip(tr, lo, hi).astype(t.np_type)
        # float(hi) rounds up for 64-bit types: values at or above it saturate explicitly.
        return xp.where(tr >= hi, xp.asarray(info.max, dtype=t.np_type), out)
    with np.errstate(all="ignore"):
        return x.astype(t.np_type)


def int_cdiv(x: Any, y: Any, t: DataType) -> Any:
    """C integer division (truncating), with the GraphBLAS rule for division by zero."""
    zero = y == 0
    ys = np.where(zero, 1, y).astype(t.np_type)
    with np.errstate(all="ignore"):
        q = x // ys
        if t.is_signed:
            r = x - q * ys
            q = np.where((r != 0) & ((x < 0) != (ys < 0)), q + 1, q)
    return np.where(zero, _div_by_zero(x, t), q).astype(t.np_type)


def int_floordiv(x: Any, y: Any, t: DataType) -> Any:
    """Floor integer division with the GraphBLAS rule for division by zero."""
    zero = y == 0
    ys = np.where(zero, 1, y).astype(t.np_type)
    with np.errstate(all="ignore"):
        q = x // ys
    return np.where(zero, _div_by_zero(x, t), q).astype(t.np_type)


def _div_by_zero(x: Any, t: DataType) -> Any:
    info = np.iinfo(t.np_type)
    lo, hi, zero = (np.array(v, dtype=t.np_type) for v in (info.min, info.max, 0))
    return np.where(x == 0, zero, np.where(x > 0, hi, lo)).astype(t.np_type)


def c_round(x: Any) -> Any:
    """C ``round``: halves away from zero (NumPy's ``round`` goes to even)."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def c_sign(x: Any) -> Any:
    """-1, 0 or 1 by sign; NaN stays NaN."""
    return np.sign(x)


def int_pow(x: Any, y: Any, t: DataType) -> Any:
    """Integer power computed in double and cast back C-style (as SuiteSparse does).

    With a non-negative exponent the exact result is an integer, so the double is
    rounded to nearest first: CUDA's ``pow`` may land an ulp below it.
    """
    with np.errstate(all="ignore"):
        yf = np.asarray(y).astype(np.float64)
        p = np.power(np.asarray(x).astype(np.float64), yf)
        return cast_array(np.asarray(np.where(yf >= 0, np.rint(p), p)), t)


def c_pow(x: Any, y: Any) -> Any:
    """SuiteSparse's ``pow`` of floats (``GB_pow``): NaN where either operand is NaN (C gives
    ``pow(1, nan) = pow(nan, 0) = 1``), else C's ``pow``.  NumPy takes ``x ** 0.5`` of a scalar
    (or repeated) exponent as ``sqrt(x)``, which gives NaN for ``-inf`` and ``-0.0`` for
    ``-0.0`` where C gives ``inf`` and ``0.0``: the exponent is made a contiguous array, which
    NumPy's ``power`` computes by ``pow`` itself."""
    x, y = np.asarray(x), np.asarray(y)
    shape = np.broadcast(x, y).shape
    if y.shape != shape or not y.flags.c_contiguous or not shape:
        y = np.ascontiguousarray(np.broadcast_to(y, shape)).reshape(shape or (1,))
    with np.errstate(all="ignore"):
        z = np.power(x, y)
        return np.where(np.isnan(x) | np.isnan(y), x + y, z).reshape(shape)


def binom(n: Any, k: Any) -> Any:
    """The binomial coefficient C(n, k) in int64, 0 where ``k`` is outside ``[0, n]`` or the
    result overflows (python-graphblas's ``binary.binom``).  The loop runs at most about 67
    times: C(n, i) passes 2**63 by i = 67 for every n >= 2i."""
    n, k = np.broadcast_arrays(np.asarray(n).astype(np.int64), np.asarray(k).astype(np.int64))
    ok = (k >= 0) & (k <= n)
    m = np.where(ok, np.minimum(k, n - k), 0)
    val = np.where(ok, 1, 0).astype(np.int64)
    i = 0
    while True:
        step = ok & (i < m)
        if not step.any():
            return val
        top = np.where(step, n - i, 1)
        over = step & (val > np.iinfo(np.int64).max // top)
        ok &= ~over
        val = np.where(over, 0, np.where(step & ~over, val * top // (i + 1), val))
        i += 1


def bool_pow(x: Any, y: Any) -> Any:
    """x ** y on booleans: x**0 is true, x**1 is x."""
    return np.logical_or(x, np.logical_not(y))


# ------------------------------------------------------------------------------- CUDA side

CUDA_HELPERS = r"""
template <typename T> __device__ __forceinline__ T gb_idiv(T x, T y, T mn, T mx) {
    if (y == 0) return x == 0 ? (T)0 : (x > 0 ? mx : mn);
    if ((T)(y + 1) == 0 && mn != 0) return (T)(0 - x);
    return (T)(x / y);
}
template <typename T> __device__ __forceinline__ T gb_ifloordiv(T x, T y, T mn, T mx) {
    if (y == 0) return x == 0 ? (T)0 : (x > 0 ? mx : mn);
    if ((T)(y + 1) == 0 && mn != 0) return (T)(0 - x);
    T q = (T)(x / y);
    if (mn != 0 && (T)(x - q * y) != 0 && ((x < 0) != (y < 0))) q = (T)(q - 1);
    return q;
}
template <typename T> __device__ __forceinline__ T gb_from_double(double v, T mn, T mx) {
    if (v != v) return (T)0;
    v = trunc(v);
    if (v <= (double)mn) return mn;
    if (v >= (double)mx) return mx;
    return (T)v;
}
template <typename T, typename Y> __device__ __forceinline__ T gb_ipow(T x, Y y, T mn, T mx) {
    double p = pow((double)x, (double)y);
    if ((double)y >= 0.0) p = rint(p);
    return gb_from_double<T>(p, mn, mx);
}
__device__ __forceinline__ int64_t gb_binom(int64_t n, int64_t k) {
    if (k > n || k < 0) return 0;
    int64_t m = k < n - k ? k : n - k, val = 1;
    for (int64_t i = 0; i < m; i++) {
        if (val > 9223372036854775807LL / (n - i)) return 0;  // overflow: 0, as python-graphblas
        val = val * (n - i) / (i + 1);
    }
    return val;
}
template <typename T> __device__ __forceinline__ T gb_round(T x) { return round(x); }
template <typename T> __device__ __forceinline__ T gb_sign(T x) {
    return x > 0 ? (T)1 : (x < 0 ? (T)-1 : x);
}
// NumPy's ufuncs (operators/ufuncs.py)
// gcd and lcm of the magnitudes in uint64 (|INT64_MIN| fits), cast back: NumPy's npy_gcdu.
__device__ __forceinline__ uint64_t gb_gcdu(uint64_t a, uint64_t b) {
    while (b != 0) { uint64_t r = a % b; a = b; b = r; }
    return a;
}
template <typename T> __device__ __forceinline__ uint64_t gb_magnitude(T x) {
    return x < 0 ? (uint64_t)0 - (uint64_t)(int64_t)x : (uint64_t)x;
}
template <typename T> __device__ __forceinline__ T gb_gcd(T x, T y) {
    return (T)gb_gcdu(gb_magnitude<T>(x), gb_magnitude<T>(y));
}
template <typename T> __device__ __forceinline__ T gb_lcm(T x, T y) {
    uint64_t a = gb_magnitude<T>(x), b = gb_magnitude<T>(y), g = gb_gcdu(a, b);
    return g == 0 ? (T)0 : (T)(a / g * b);
}
template <typename T> __device__ __forceinline__ T gb_logaddexp(T x, T y) {
    if (x == y) return x + (T)0.6931471805599453;  // also +-inf with itself
    T d = x - y;
    if (d > 0) return x + log1p(exp(-d));
    if (d <= 0) return y + log1p(exp(d));
    return d;  // NaN
}
template <typename T> __device__ __forceinline__ T gb_logaddexp2(T x, T y) {
    if (x == y) return x + (T)1;
    T d = x - y;
    if (d > 0) return x + log1p(exp2(-d)) * (T)1.4426950408889634;
    if (d <= 0) return y + log1p(exp2(d)) * (T)1.4426950408889634;
    return d;
}
// nextafter by the bits, subnormals included (CUDA's nextafterf gives FLT_MIN after 0).
__device__ __forceinline__ float gb_nextafter(float x, float y) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    if (x == 0.0f) return __int_as_float(y > 0.0f ? 1 : (int)0x80000001u);
    return __int_as_float(__float_as_int(x) + (((x < y) == (x > 0.0f)) ? 1 : -1));
}
__device__ __forceinline__ double gb_nextafter(double x, double y) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    if (x == 0.0) return __longlong_as_double(y > 0.0 ? 1LL : (long long)0x8000000000000001ULL);
    return __longlong_as_double(__double_as_longlong(x) + (((x < y) == (x > 0.0)) ? 1LL : -1LL));
}
// NumPy's spacing from the bits alone: the unit in the last place at x, signed as x (-0.0 gives
// +0's), with no arithmetic on subnormals (which a flush-to-zero build would lose).
__device__ __forceinline__ float gb_spacing(float x) {
    if (!(x - x == 0.0f)) return x - x;  // NaN for +-inf and NaN
    int s = __float_as_int(x), b = s & 0x7fffffff;
    if (b == 0x7f7fffff) return __int_as_float(s < 0 ? (int)0xff800000u : 0x7f800000);
    int e = b >> 23 < 1 ? 1 : b >> 23;
    int u = e > 23 ? (e - 23) << 23 : 1 << (e - 1);
    return __int_as_float(s < 0 && b != 0 ? (int)((unsigned)u | 0x80000000u) : u);
}
__device__ __forceinline__ double gb_spacing(double x) {
    if (!(x - x == 0.0)) return x - x;
    long long s = __double_as_longlong(x), b = s & 0x7fffffffffffffffLL;
    if (b == 0x7fefffffffffffffLL) return __longlong_as_double(s < 0 ? (long long)0xfff0000000000000ULL : 0x7ff0000000000000LL);
    long long e = b >> 52 < 1 ? 1 : b >> 52;
    long long u = e > 52 ? (e - 52) << 52 : 1LL << (e - 1);
    return __longlong_as_double(s < 0 && b != 0 ? (long long)((unsigned long long)u | 0x8000000000000000ULL) : u);
}
template <typename T, typename Y> __device__ __forceinline__ T gb_shl(T x, Y y) {
    return (uint64_t)y < sizeof(T) * 8 ? (T)((uint64_t)x << (uint64_t)y) : (T)0;
}
template <typename T, typename Y> __device__ __forceinline__ T gb_shr(T x, Y y) {
    return (uint64_t)y < sizeof(T) * 8 ? (T)(x >> (uint64_t)y) : (T)(x < 0 ? -1 : 0);
}
"""


def c_literal(value: Any, t: DataType) -> str:
    """A CUDA C literal of type ``t`` for ``value`` (inf, NaN and the integer limits included)."""
    if t.is_bool:
        return "true" if bool(value) else "false"
    if t.is_float:
        v = float(value)
        cast = "float" if t.np_type == np.float32 else "double"
        if np.isnan(v):
            return f"(({cast})__longlong_as_double(0x7ff8000000000000LL))"
        if np.isinf(v):
            sign = "" if v > 0 else "-"
            return f"({sign}({cast})__longlong_as_double(0x7ff0000000000000LL))"
        return f"(({cast}){float(np.asarray(v, dtype=t.np_type))!r})"
    v = int(value)
    if t.np_type == np.int64 and v == -(2**63):
        return "((int64_t)(-9223372036854775807LL - 1))"
    suffix = "ULL" if t.is_unsigned else "LL"
    return f"(({t.c_type}){v}{suffix})"
