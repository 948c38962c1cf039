"""fast_matrix_market for Matrix Market files of integers only (pattern and integer fields).

fast_matrix_market (in the ``readers`` extra) parses in C++ at scipy's speed (scipy's
``mmread`` is it), but it is lax: it stops a number at the first character it cannot take and
skips the rest of the line, so ``1 1 1.5abc``, ``1 1-2 3`` and extra fields pass
(docs/readers.md).  Where every byte of the data is a digit, the one separator or a line
break, and the tokens number exactly ``width`` times the lines, none of that can arise: each
token is a whole run of digits, which it parses exactly or rejects (past int64), and it
rejects a short line.  Only such files are given to it, and only where their data fits one
chunk (progress is reported once, as for any file of one chunk); anything it rejects, or any
value outside the type, sends the file to the usual path, which names the line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import BOOL, DataType

__all__ = ["FMM", "integers_only", "read_integers"]

#: Use fast_matrix_market where it is installed (tests turn it off to cover pyarrow's path).
FMM = True
_NOT_LOADED: Any = object()
_fmm: Any = _NOT_LOADED


def _module() -> Any:
    global _fmm
    if _fmm is _NOT_LOADED:
        try:
            import fast_matrix_market
        except ImportError:  # pragma: no cover - exercised where it is absent
            fast_matrix_market = None
        _fmm = fast_matrix_market
    return _fmm


def integers_only(data: Any, width: int) -> bool:
    """True when ``data`` (a buffer) is lines of exactly ``width`` runs of ASCII digits, split by
    one kind of separator (a space or a tab), each line ended by ``\\n``: four NumPy passes."""
    b = np.frombuffer(data, dtype=np.uint8)
    if len(b) == 0 or b[-1] != 10 or int(b.max()) > 57:  # (57: "9")
        return False
    lines = int(np.count_nonzero(b == 10))
    below = int(np.count_nonzero(b < 48))  # (48: "0") separators and line breaks, nothing else
    if below != lines + max(int(np.count_nonzero(b == 32)), int(np.count_nonzero(b == 9))):
        return False
    digit = b >= 48
    tokens = int(np.count_nonzero(digit[1:] & ~digit[:-1])) + int(digit[0])
    return tokens == width * lines


def read_integers(path: str, data: Any, h: Any, t: DataType, threads: bool) -> list[np.ndarray] | None:
    """``[rows, cols, values]`` (0-based int64 indices, values of ``t``) of the Matrix Market file
    ``path`` whose header ``h`` was read and whose data is ``data``; None where fast_matrix_market
    is absent or turned off, the file is not of integers only, or it or ``t`` rejects a value."""
    fmm = _module() if FMM else None
    if fmm is None or h.format != "coordinate" or h.field not in ("pattern", "integer") \
            or h.symmetry not in ("general", "symmetric") or (h.field == "integer" and t.is_float):
        return None  # (integers read as a float type: the usual path rounds them as it always has)
    width = 2 if h.field == "pattern" else 3
    if not integers_only(data, width):
        return None
    try:
        (values, (rows, cols)), shape = fmm.read_coo(path, parallelism=0 if threads else 1,
                                                    generalize_symmetry=False)
    except Exception:  # noqa: BLE001 - whatever it rejects, the usual path reads and reports
        return None
    if len(rows) != h.nentries or tuple(shape) != (h.nrows, h.ncols):
        return None
    if h.field == "pattern":
        values = np.ones(len(rows), dtype=h.dtype.np_type)
    else:
        lo, hi = (0, 1) if t == BOOL else (int(t.min), int(t.max))
        if len(values) and (int(values.min()) < lo or int(values.max()) > hi):
            return None
        values = values.astype(t.np_type, copy=False)
    return [rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False), values]
