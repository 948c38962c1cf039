"""The CuPy backend's bitmap writes: fills, scatters into a bitmap, mask evaluation, selection
and in-place sets."""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import BOOL, DataType, cast_scalar, lookup_dtype
from ...limits import require_bytes
from . import codegen, signatures
from .common import (
    _BLOCK,
    _ELEMENTWISE_BLOCKS_PER_SM,
    _FLAGS32,
    _NULL,
    _bounded_blocks,
    _contiguous,
    _is_scalar,
    _map_out_of_memory,
)
from .core import CupyCore
from .counts import DeviceCount
from .launch import scalar_word

__all__ = ["BitmapOps"]

_ALLOWED, _SET_WHERE = signatures.MASK_ALLOWED, signatures.SET_WHERE
_FILL, _SCATTER = signatures.BITMAP["fill"], signatures.BITMAP["scatter"]
_SELECT, _SELECT_SCALAR = signatures.BITMAP["select"], signatures.BITMAP["select_scalar"]


class BitmapOps(CupyCore):
    """Bitmaps (a bool presence array beside dense values) made and written in one pass."""

    @_map_out_of_memory
    def full(self, size: int, value: Any, t: DataType) -> cupy.ndarray:
        """An array of ``size`` elements of type ``t``, each ``value``."""
        require_bytes(size * t.itemsize, "cupy", f"an array of {size} {t} values")
        out = cupy.empty(size, dtype=t.np_type)
        if t.is_bool:  # a byte per flag: a memset
            if size:
                out.data.memset_async(int(bool(cast_scalar(value, t))), size)
        elif size:
            self._launch_changing(codegen.bitmap_module(t), "fill", _bounded_blocks(size, _ELEMENTWISE_BLOCKS_PER_SM),
                                  _BLOCK, _FILL.pack(a=cast_scalar(value, t), z=out, n=np.int64(size)))
        return out

    @_map_out_of_memory
    def bitmap_of(self, idx: Any, vals: Any, size: int) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(presence, dense values) of ``size`` positions holding the entries ``idx`` (int64),
        ``vals``: a memset and one scatter pass (values elsewhere are left unset: never read)."""
        require_bytes(size * (1 + vals.dtype.itemsize), "cupy", f"a bitmap of {size} positions")
        bits = cupy.zeros(size, dtype=np.bool_)
        dense = cupy.empty(size, dtype=vals.dtype)
        n = int(idx.shape[0])
        if n:
            self._launch_changing(codegen.bitmap_module(lookup_dtype(vals.dtype)), "scatter",
                                  _bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM), _BLOCK,
                                  _SCATTER.pack(idx=_contiguous(idx), vals=_contiguous(vals), bits=bits, values=dense,
                                                n=np.int64(n)))
        return bits, dense

    @_map_out_of_memory
    def mask_allowed(self, bits: Any, values: Any, complement: bool, within: Any = None) -> cupy.ndarray:
        """The positions a mask allows, in one pass: ``bits`` (and ``values`` as bools, for a
        value mask; None for a structural one), inverted where ``complement``, and-ed with
        ``within`` where given."""
        return self._allowed(bits, values, complement, within, False)[0]

    @_map_out_of_memory
    def mask_allowed_counted(self, bits: Any, values: Any, complement: bool,
                             within: Any = None) -> tuple[cupy.ndarray, DeviceCount | int | None]:
        """:meth:`mask_allowed` and the number of positions it allows, counted in the same
        pass: a :class:`DeviceCount` (None where every count word of the stream is lent)."""
        return self._allowed(bits, values, complement, within, True)

    def _allowed(self, bits: Any, values: Any, complement: bool, within: Any,
                 counted: bool) -> tuple[cupy.ndarray, DeviceCount | int | None]:
        flags = self._flag_array(bits)
        t = BOOL if values is None else lookup_dtype(values.dtype)
        n = flags.size
        z = cupy.empty(n, dtype=np.bool_)
        if not n:
            return z, 0 if counted else None
        count, counting = self._pending_count() if counted else (None, (_NULL, _NULL))
        complement = bool(complement)
        args = _ALLOWED.pack(bits=flags, values=_NULL if values is None else _contiguous(values),
                             complement=_FLAGS32[complement], within=self._flag_array(within), z=z, n=np.int64(n),
                             state=counting[0], counted=counting[1])
        self._launch_kept_elementwise(codegen.bitmap_module(t), "allowed", n, args, _ALLOWED.changing, (complement,))
        return z, count

    @_map_out_of_memory
    def select_bitmap(self, where: Any, a_bits: Any, a_vals: Any, c_bits: Any,
                      c_vals: Any) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(presence, values), in one pass: where ``where``, presence ``a_bits`` (everywhere
        when None) and values ``a_vals`` (an array of ``c_vals``' type, or one scalar);
        elsewhere ``c_bits`` and ``c_vals``."""
        m = self._flag_array(where)
        t = lookup_dtype(c_vals.dtype)
        n = m.size
        z_bits, z_vals = cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=t.np_type)
        c_flags, c_values, size = self._flag_array(c_bits), _contiguous(c_vals), np.int64(n)
        module = codegen.bitmap_module(t)
        if _is_scalar(a_vals):
            self._launch_elementwise(self._function(module, "select_scalar"), n, _SELECT_SCALAR.pack(
                m=m, a=cast_scalar(a_vals, t), c_bits=c_flags, c_vals=c_values, z_bits=z_bits, z_vals=z_vals, n=size))
        else:
            self._launch_elementwise(self._function(module, "select"), n, _SELECT.pack(
                m=m, a_bits=self._flag_array(a_bits), a_vals=_contiguous(self._cast(a_vals, t)), c_bits=c_flags,
                c_vals=c_values, z_bits=z_bits, z_vals=z_vals, n=size))
        return z_bits, z_vals

    @staticmethod
    def owns_block(a: cupy.ndarray) -> bool:
        """Whether ``a`` owns its memory as one C-ordered block (not a view of another array):
        what the in-place writes take."""
        return a.base is None and bool(a._c_contiguous)

    def set_where(self, where: Any, value: Any, bits: cupy.ndarray, vals: cupy.ndarray) -> None:
        """In place: ``bits`` true and ``vals`` ``value`` (of their type) wherever ``where``."""
        t = lookup_dtype(vals.dtype)
        n = int(bits.size)
        # The value is written at each launch, as the pointers are: it often changes from call to
        # call (BFS's level number), and keyed it would pack a launch per value.
        self._launch_kept_elementwise(codegen.bitmap_module(t), "set_where", n, _SET_WHERE.pack(
            m=self._flag_array(where), a=scalar_word(cast_scalar(value, t)), bits=bits, values=vals, n=np.int64(n)),
            _SET_WHERE.changing)
