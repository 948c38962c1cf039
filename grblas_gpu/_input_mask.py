"""``input_mask=``: python-graphblas's mask on the input of an extract.

``v[idx].new(input_mask=m.S)`` and ``w(input_mask=m.S) << v[idx]`` extract from ``v`` masked
by ``m`` (same shape as ``v``). For a row or column of a Matrix, ``A[i, cols]``, the mask may
also be a Vector the size of that row (or column)."""

from __future__ import annotations

from typing import Any

from .mask import Mask


def check_input_mask(input_mask: Any, mask: Any) -> None:
    """What can be checked before the input is known: a Mask (``M.S``, ``M.V``), no ``mask=``."""
    if mask is not None:
        raise TypeError("mask and input_mask arguments cannot both be given")
    if not isinstance(input_mask, Mask):
        raise TypeError(f"Mask must be indicated by the .S or .V of a Vector or Matrix (input_mask=M.S), "
                        f"not {type(input_mask).__name__}")


def with_input_mask(expr: Any, input_mask: Any) -> Any:
    """The extract ``expr`` redone on its input masked by ``input_mask``."""
    target = getattr(expr, "_assign_target", None)
    check_input_mask(input_mask, None)
    if target is None:
        raise TypeError("`input_mask` argument may only be used for extract (x[index]), "
                        f"not {getattr(expr, 'name', expr)!r}")
    obj, key = target
    parent = input_mask.parent
    if expr.kind == "Scalar":
        raise ValueError("input_mask is not allowed when extracting a single element")
    if obj.kind == "Vector" and parent.kind != "Vector":
        raise TypeError(f"Mask object must be type Vector for a Vector's input, not {parent.kind}")
    if parent.shape == obj.shape:
        return obj.dup(mask=input_mask)[key]
    line = _line(obj, key)
    if obj.kind == "Matrix" and expr.kind == "Matrix" and parent.kind == "Vector":
        raise TypeError("Got Vector `input_mask` when extracting a submatrix from a Matrix: "
                        "use a Matrix mask of the input's shape")
    if line is None or parent.kind != "Vector":
        what = "size" if obj.kind == "Vector" else "shape"
        raise ValueError(f"{what.capitalize()} of `input_mask` does not match {what} of input: "
                         f"{parent.shape} and {obj.shape}")
    if parent.size != line[1]:
        raise ValueError(f"Size of `input_mask` Vector does not match {'ncols' if line[0] == 0 else 'nrows'} "
                         f"of Matrix: {parent.size} and {line[1]}")
    axis, _, fixed, rest = line
    masked = (obj[fixed, :] if axis == 0 else obj[:, fixed]).new(mask=input_mask)
    return masked[rest]


def _line(obj: Any, key: Any) -> tuple[int, int, Any, Any] | None:
    """(axis, length, fixed index, the other key) of a row ``A[i, cols]`` or column
    ``A[rows, j]`` extract; None otherwise."""
    if obj.kind != "Matrix" or not isinstance(key, tuple) or len(key) != 2:
        return None
    rows, cols = key
    if _is_int(rows) and not _is_int(cols):
        return 0, obj.ncols, rows, cols
    if _is_int(cols) and not _is_int(rows):
        return 1, obj.nrows, cols, rows
    return None


def _is_int(x: Any) -> bool:
    import numpy as np

    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)
