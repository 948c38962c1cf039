"""The compiled strict parser (``_cparse``, built from ``_cparse.c`` where a C compiler was found).

It reads a chunk's fields as int64 / float64 columns and sorts entries into row order by a
counting sort.  It answers only where it is certain: a malformed, overflowing or unusual
token (anything outside its strict grammar, a subset of the pure path's), or a repeated
entry where repeats are errors, makes it decline, and the caller goes on as without it (the
pure path then finds the error and names its line).  So the answers are the pure path's,
bit for bit; the test suite compares them on random files.

``COMPILED = False`` (or the environment variable ``GRBLAS_GPU_COMPILED_READERS=0``) turns it
off; ``GRBLAS_GPU_PURE_READERS=1`` turns off every fast path, this one included.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from . import _cparse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a build without a C compiler
    _cparse = None

__all__ = ["COMPILED", "available", "parse_columns", "sort_rows"]

#: Use the compiled parser where it was built (tests turn it off to cover the other paths).
COMPILED = True
_KIND_LETTERS = {"int": "i", "float": "f"}


def available() -> bool:
    """True when the extension is built and neither this module's switch nor the variables turned it off."""
    from ._chunks import fast_allowed

    return (_cparse is not None and COMPILED and os.environ.get("GRBLAS_GPU_COMPILED_READERS", "") != "0"
            and fast_allowed())


def parse_columns(buffer: Any, count: int, first: int, kinds: Sequence[str],
                  comments: tuple[str, ...]) -> tuple[list[np.ndarray], np.ndarray | None] | None:
    """The columns (int64 for ``"int"``, float64 for ``"float"``) of ``buffer``'s ``count`` lines,
    the first being line ``first``, and the line of each record where some line was blank or a
    comment (None where every line is a record); None where the compiled parser declines."""
    columns = [np.empty(count, np.int64 if k == "int" else np.float64) for k in kinds]
    lines = np.empty(count, np.int64)
    letters = "".join(_KIND_LETTERS[k] for k in kinds).encode()
    found = _cparse.parse(buffer, letters, tuple(p.encode() for p in comments), columns, lines, first)
    if found < 0:
        return None
    if found == count:
        return columns, None
    return [c[:found] for c in columns], lines[:found]


def sort_rows(rows: np.ndarray, cols: np.ndarray, order: np.ndarray | None, nrows: int, ncols: int, *,
              keep_first: bool, narrow: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(ptr, cols, src)``: the entries in row-major order as row pointers, their columns (int32
    where ``narrow`` and ``ncols`` fits, else int64) and each one's ``order`` (default: its
    position), equal entries by ``order``; with ``keep_first`` a repeat is dropped, else it makes
    the answer None.  None too where the extension is off or declines (columns and order wider
    than 64 bits together)."""
    if not available():
        return None
    n = len(rows)
    ptr = np.empty(nrows + 1, np.int64)
    out_cols = np.empty(n, np.int32 if narrow and ncols < 2**31 else np.int64)
    src = np.empty(n, np.int64)
    rows, cols = _index_array(rows), _index_array(cols)
    order = None if order is None else np.ascontiguousarray(order, dtype=np.int64)
    kept = _cparse.sort_rows(rows, cols, order, nrows, ncols, keep_first, ptr, out_cols, src)
    if kept == -3:
        raise MemoryError("sorting the entries by row")
    if kept < 0:
        return None
    if kept < n:
        return ptr, out_cols[:kept].copy(), src[:kept].copy()
    return ptr, out_cols, src


def _index_array(a: np.ndarray) -> np.ndarray:
    if a.dtype in (np.int32, np.int64) and a.flags.c_contiguous:
        return a
    return np.ascontiguousarray(a, dtype=np.int64)
