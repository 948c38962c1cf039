"""The CuPy backend's element-wise kernels: unary, binary (bound operands and positional
operators included), index-unary, and the eWise unions and adds of two bitmaps."""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import DataType, cast_scalar
from ...exceptions import InvalidValue
from ...operators.base import Positions, TypedBinaryOp, TypedIndexUnaryOp, TypedUnaryOp
from . import codegen, signatures
from .common import _NULL, _contiguous, _is_scalar, _map_out_of_memory
from .core import CupyCore
from .launch import scalar_word

__all__ = ["ElementwiseOps"]

_ADD_INTO_CHANGING = signatures.ADD_INTO.changing
_ADD_CHANGES_CHANGING = signatures.ADD_CHANGES.changing
_BINARY_CHANGING = {role: s.changing for role, s in signatures.BINARY.items()}
_TWO_BITMAPS_CHANGING = {"union": signatures.EWISE_UNION.changing, "add": signatures.EWISE_ADD.changing}
_UNARY, _INDEXUNARY, _BINARY = signatures.UNARY["main"], signatures.INDEXUNARY["main"], signatures.BINARY
_NO_POSITIONS = (_NULL, np.int64(0)) * 4  # the positional arguments of an operator that reads none


class ElementwiseOps(CupyCore):
    """Operators applied per element, in kernels generated from them."""

    @_map_out_of_memory
    def unary(self, op: TypedUnaryOp, x: Any) -> cupy.ndarray:
        """``op(x)`` per element; ``x`` is of ``op.in_type`` (other types are cast first)."""
        xc = self._operand(x, op.in_type)
        out = cupy.empty(xc.shape, dtype=op.out_type.np_type)
        self._launch_elementwise(self._function(codegen.unary_module(op)), xc.size,
                                 _UNARY.pack(x=xc, z=out, n=np.int64(xc.size)))
        return out

    @_map_out_of_memory
    def binary(self, op: TypedBinaryOp, x: Any, y: Any, pos: Positions | None = None) -> cupy.ndarray:
        """``op(x, y)`` per element; either side may be a scalar (a bound operand)."""
        if op.positional and pos is None:
            raise InvalidValue(f"{op!r} is positional: it needs the operands' positions")
        module = codegen.binary_module(op)
        x_scalar, y_scalar = _is_scalar(x), _is_scalar(y)
        if x_scalar and y_scalar:
            out = self.binary(op, self._operand(cupy.asarray(x).reshape(1), op.x_type), y, pos)
            return out.reshape(())
        if x_scalar:
            ya = self._operand(y, op.y_type)
            on_device, bound = self._bound(x, op.x_type)
            role, args, shape = "dv" if on_device else "sv", (bound, ya), ya.shape
        elif y_scalar:
            xa = self._operand(x, op.x_type)
            on_device, bound = self._bound(y, op.y_type)
            role, args, shape = "vd" if on_device else "vs", (xa, bound), xa.shape
        else:
            xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
            if xa.shape != ya.shape:
                xa, ya = (_contiguous(a) for a in cupy.broadcast_arrays(xa, ya))
            role, args, shape = "vv", (xa, ya), xa.shape
        out = cupy.empty(shape, dtype=op.out_type.np_type)
        n = out.size
        if op.positional:
            self._launch_elementwise(self._function(module, role), n,
                                     _binary_arguments(role, *args, out, np.int64(n), self._positions(pos, shape)))
            return out
        if role in ("vs", "sv"):  # the host scalar is written at each launch, as the pointers are
            args = (args[0], scalar_word(args[1])) if role == "vs" else (scalar_word(args[0]), args[1])
        self._launch_kept_elementwise(module, role, n, _binary_arguments(role, *args, out, np.int64(n), _NO_POSITIONS),
                                      _BINARY_CHANGING[role])
        return out

    def _bound(self, v: Any, t: DataType) -> tuple[bool, Any]:
        """A bound scalar operand of type ``t``: (True, a 1-element device array) for a 0-d
        CuPy array, read by the kernel where it lies; (False, the host value) otherwise."""
        if isinstance(v, cupy.ndarray):
            return True, self._operand(v, t).reshape(1)
        return False, cast_scalar(v, t)

    @_map_out_of_memory
    def ewise_union(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any, x_default: Any,
                    y_default: Any, out: tuple[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """eWiseUnion of two bitmaps (presence, dense values) in one kernel: ``op`` where both
        hold an entry, ``op`` with the other side's default where one does.  Returns (values,
        presence), written into ``out`` (values, presence: arrays of ``op``'s output type and
        bool, neither an operand) where given; ``op`` must not be positional."""
        if op.positional:
            raise InvalidValue(f"{op!r} is positional: ewise_union takes no positions")
        defaults = (cast_scalar(x_default, op.x_type), cast_scalar(y_default, op.y_type))
        return self._two_bitmaps(op, "union", x_bits, x, y_bits, y, defaults, out)

    @_map_out_of_memory
    def ewise_add(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any) -> tuple[cupy.ndarray, cupy.ndarray]:
        """eWiseAdd of two bitmaps in one kernel: ``op`` where both hold an entry, the lone
        value where one does.  Returns (values, presence).  ``op`` must not be positional, and
        its inputs and output must share one type (the lone values pass through uncast)."""
        self.check_adds_in_one_pass(op)
        return self._two_bitmaps(op, "add", x_bits, x, y_bits, y, ())

    @_map_out_of_memory
    def ewise_add_into(self, op: TypedBinaryOp, x_bits: cupy.ndarray, x: cupy.ndarray, y_bits: Any, y: Any) -> None:
        """:meth:`ewise_add` written into ``x_bits`` and ``x`` (arrays of ``op``'s type that the
        caller owns): only the positions where y holds an entry are read and written."""
        self.check_adds_in_one_pass(op)
        ya = self._operand(y, op.y_type)
        n = int(x.size)
        self._launch_kept_elementwise(codegen.binary_module(op), "add_into", n, signatures.ADD_INTO.pack(
            x_bits=x_bits, x=x, y_bits=self._flag_array(y_bits), y=ya, n=np.int64(n)), _ADD_INTO_CHANGING)

    @_map_out_of_memory
    def ewise_add_changes(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any,
                          z: tuple[Any, Any] | None = None,
                          d: tuple[Any, Any] | None = None) -> tuple[Any, ...]:
        """:meth:`ewise_add` of y into x, reporting what it changes, in one kernel.  The result
        goes to ``z`` (presence, values: x's own arrays, written in place, or None for new
        arrays), and the entries it makes new or different from x's (a NaN matching a NaN)
        to ``d`` (presence, values of op's type, neither an operand; None for new arrays).
        Returns (z_bits, z, d_bits, d, their count: a :class:`DeviceCount`, or None where
        every count word of the stream is lent)."""
        self.check_adds_in_one_pass(op)
        xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
        x_flags = self._flag_array(x_bits)
        n = xa.size
        z_bits, z_vals = z if z is not None else (cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=xa.dtype))
        d_bits, d_vals = d if d is not None else (cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=xa.dtype))
        if not n:
            return z_bits, z_vals, d_bits, d_vals, 0
        count, counting = self._pending_count()
        state, counted = counting
        args = signatures.ADD_CHANGES.pack(x_bits=x_flags, x=xa, y_bits=self._flag_array(y_bits), y=ya, z_bits=z_bits,
                                           z=z_vals, d_bits=d_bits, d=d_vals, n=np.int64(n), state=state,
                                           counted=counted)
        self._launch_kept_elementwise(codegen.binary_module(op), "add_changes", n, args, _ADD_CHANGES_CHANGING)
        return z_bits, z_vals, d_bits, d_vals, count

    def _two_bitmaps(self, op: TypedBinaryOp, role: str, x_bits: Any, x: Any, y_bits: Any, y: Any,
                     extra: tuple[Any, ...], out: tuple[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """Entry ``role`` of ``op``'s binary module over two bitmaps (``extra``: its arguments
        after the operands): returns (values, presence), new arrays or ``out``."""
        xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
        n = xa.size
        if out is None:
            z, z_bits = cupy.empty(n, dtype=op.out_type.np_type), cupy.empty(n, dtype=np.bool_)
        else:
            z, z_bits = out
        if extra:  # union: the defaults
            args = signatures.EWISE_UNION.pack(x_bits=self._flag_array(x_bits), x=xa, y_bits=self._flag_array(y_bits),
                                               y=ya, x_default=extra[0], y_default=extra[1], z=z, z_bits=z_bits,
                                               n=np.int64(n))
        else:
            args = signatures.EWISE_ADD.pack(x_bits=self._flag_array(x_bits), x=xa, y_bits=self._flag_array(y_bits),
                                             y=ya, z=z, z_bits=z_bits, n=np.int64(n))
        self._launch_kept_elementwise(codegen.binary_module(op), role, n, args, _TWO_BITMAPS_CHANGING[role],
                                      tuple(_scalar_key(e) for e in extra))
        return z, z_bits

    def _position(self, p: Any, shape: tuple[int, ...]) -> tuple[Any, np.int64]:
        """One position operand as (pointer or null, constant)."""
        if _is_scalar(p):
            return _NULL, np.int64(_host_scalar(p))
        arr = cupy.asarray(p, dtype=np.int64)
        if arr.shape != shape:
            arr = cupy.broadcast_to(arr, shape)
        return _contiguous(arr), np.int64(0)

    def _positions(self, pos: Positions | None, shape: tuple[int, ...]) -> tuple[Any, ...]:
        """Kernel arguments ``xi, xi0, xj, xj0, yi, yi0, yj, yj0``."""
        if pos is None:
            return _NO_POSITIONS
        return sum((self._position(p, shape) for p in (pos.xi, pos.xj, pos.yi, pos.yj)), ())

    @_map_out_of_memory
    def indexunary(self, op: TypedIndexUnaryOp, x: Any, i: Any, j: Any, thunk: Any) -> cupy.ndarray:
        """``op(x, i, j, thunk)`` per element; ``i``/``j`` are int64 arrays or ints."""
        xc = self._operand(x, op.in_type)
        out = cupy.empty(xc.shape, dtype=op.out_type.np_type)
        (i_at, i0), (j_at, j0) = self._position(i, xc.shape), self._position(j, xc.shape)
        self._launch_elementwise(self._function(codegen.indexunary_module(op)), xc.size, _INDEXUNARY.pack(
            x=xc, z=out, n=np.int64(xc.size), i=i_at, i0=i0, j=j_at, j0=j0,
            thunk=cast_scalar(_host_scalar(thunk), op.thunk_type)))
        return out


def _binary_arguments(role: str, x: Any, y: Any, z: Any, n: np.int64, positions: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments of entry ``role`` of a binary module by name (``vd`` reads y, ``dv`` x,
    from a one-element device array: ``y_at``, ``x_at``), ``positions`` the operator's
    ``xi, xi0, xj, xj0, yi, yi0, yj, yj0``."""
    xi, xi0, xj, xj0, yi, yi0, yj, yj0 = positions
    sig = _BINARY[role]
    if role == "vd":
        return sig.pack(x=x, y_at=y, z=z, n=n, xi=xi, xi0=xi0, xj=xj, xj0=xj0, yi=yi, yi0=yi0, yj=yj, yj0=yj0)
    if role == "dv":
        return sig.pack(x_at=x, y=y, z=z, n=n, xi=xi, xi0=xi0, xj=xj, xj0=xj0, yi=yi, yi0=yi0, yj=yj, yj0=yj0)
    return sig.pack(x=x, y=y, z=z, n=n, xi=xi, xi0=xi0, xj=xj, xj0=xj0, yi=yi, yi0=yi0, yj=yj, yj0=yj0)


def _host_scalar(x: Any) -> Any:
    """A scalar on the host (a 0-d CuPy array is copied back)."""
    return x.get()[()] if isinstance(x, cupy.ndarray) else x


def _scalar_key(value: Any) -> tuple[Any, bytes]:
    """A NumPy scalar as a key that tells apart what its launch would (its type and bytes:
    NaN equals itself, -0.0 differs from 0.0)."""
    return value.dtype.char, value.tobytes()
