"""The compiled strict parser (``_cparse``, built from ``_cparse.c`` where a C compiler was found).

It reads a chunk's fields as int64 / float64 columns.  It answers only where it is certain:
a malformed, overflowing or unusual token (anything outside its strict grammar, a subset of
the pure path's) makes it decline, and the caller goes on as without it (the
pure path then finds the error and names its line).  So the answers are the pure path's,
bit for bit; the test suite compares them on random files.

``COMPILED = False`` (or the environment variable ``GRBLAS_GPU_COMPILED_READERS=0``) turns it
off; ``GRBLAS_GPU_PURE_READERS=1`` turns off every fast path, this one included.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

try:  # (by name: the extension is no module of the package's source for its import checks)
    _cparse: Any = importlib.import_module("._cparse", __package__)
except ImportError:  # pragma: no cover - a build without a C compiler
    _cparse = None

__all__ = ["COMPILED", "available", "parse_columns", "count_newlines"]

#: Use the compiled parser where it was built (tests turn it off to cover the other paths).
COMPILED = True
_KIND_LETTERS = {"int": "i", "float": "f"}


def available() -> bool:
    """True when the extension is built and neither this module's switch nor the variables turned it
    off.  The readers ask ``_chunks.compiled_parser()``, which also honours the fast libraries' switch."""
    return (_cparse is not None and COMPILED and os.environ.get("GRBLAS_GPU_COMPILED_READERS", "") != "0"
            and os.environ.get("GRBLAS_GPU_PURE_READERS", "") != "1")


def parse_columns(buffer: Any, first: int, kinds: Sequence[str],
                  comments: tuple[str, ...]) -> tuple[list[np.ndarray], np.ndarray | None, int] | None:
    """The columns (int64 for ``"int"``, float64 for ``"float"``) of ``buffer``'s lines, the first
    being line ``first``; the line of each record where some line was blank or a comment (None
    where every line is a record); and the number of lines.  None where the compiled parser
    declines.

    The arrays are made for the most records the bytes can hold (a record takes two bytes a
    field: only the pages written are ever touched) and shrunk to the records found, so the
    lines need not be counted first."""
    most = (len(buffer) + 1) // (2 * len(kinds))
    columns = [np.empty(most, np.int64 if k == "int" else np.float64) for k in kinds]
    lines = np.empty(most, np.int64)
    letters = "".join(_KIND_LETTERS[k] for k in kinds).encode()
    found, line_count = _cparse.parse(buffer, letters, tuple(p.encode() for p in comments), columns, lines, first)
    if found < 0:
        return None
    for c in columns:
        c.resize(found, refcheck=False)  # (realloc: the pages past the records are given back)
    if found == line_count:
        return columns, None, line_count
    lines.resize(found, refcheck=False)
    return columns, lines, line_count


def count_newlines(buffer: Any) -> int:
    """The number of ``\\n`` bytes in ``buffer`` (the extension must be built)."""
    return int(_cparse.count_newlines(buffer))
