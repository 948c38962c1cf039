"""Fast, validating tokenisation of line-oriented numeric text (shared by every reader).

A data section is read whole, checked line by line with vectorised NumPy (every
non-blank line must hold the same number of fields), split once with
``str.split`` and converted column by column with ``np.array(tokens, dtype)``,
which parses millions of tokens per second.  Only when something is wrong does a
slow Python loop run, to find the first bad token and report its line.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Union

import numpy as np

from ..dtypes import BOOL, UINT64, DataType
from ..operators.cmath import cast_array
from .errors import FileFormatError

__all__ = ["Source", "read_text", "Records", "split_records", "line_iter"]

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def source_name(source: Any) -> str:
    """The name used for ``source`` in error messages: its path, or ``"<stream>"``."""
    if hasattr(source, "read"):
        return str(getattr(source, "name", "<stream>"))
    return os.fspath(source)


def read_text(source: Source) -> tuple[str, str]:
    """Return ``(text, name)`` for a path (``.gz`` is decompressed) or an open file object."""
    name = source_name(source)
    if hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
    else:
        path = Path(os.fspath(source))
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as f:
            data = f.read()
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FileFormatError(f"not a UTF-8 text file (bad byte at offset {e.start})", name) from None
    if "\r" in data:
        data = data.replace("\r\n", "\n").replace("\r", "\n")
    return data, name


def line_iter(text: str, start: int = 0, first_line: int = 1) -> Iterable[tuple[int, int, str]]:
    """Yield ``(line_number, offset_after_line, line)`` from ``text[start:]`` without splitting it all."""
    pos, lineno, n = start, first_line, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        yield lineno, end + 1, text[pos:end]
        pos, lineno = end + 1, lineno + 1


def blank_comment_lines(text: str, prefixes: tuple[str, ...]) -> str:
    """Replace every line whose first non-blank characters are a comment prefix by an empty line.

    Line numbers are unchanged.  Does nothing (and costs nothing) when no prefix occurs.
    """
    present = [p for p in prefixes if p and p in text]
    if not present:
        return text
    alternatives = "|".join(re.escape(p) for p in present)
    return re.sub(rf"(?m)^[ \t\f\v]*(?:{alternatives})[^\n]*", "", text)


@dataclass
class Records:
    """The whitespace-separated fields of a data section: ``len(lines)`` records of ``width`` fields.

    ``tokens`` holds them record by record; ``lines`` the 1-based line number of each record;
    ``end_line`` is the section's last line (the line before it when the section is empty).
    """

    tokens: list[str]
    width: int
    lines: np.ndarray
    name: str
    end_line: int

    def __len__(self) -> int:
        return len(self.lines)

    def column(self, j: int) -> list[str]:
        """The ``j``-th field of every record, as strings."""
        return self.tokens[j :: self.width]

    def error(self, record: int, reason: str) -> FileFormatError:
        """A FileFormatError for record number ``record`` (0-based)."""
        return FileFormatError(reason, self.name, int(self.lines[record]))


def _tokens_per_line(text: str) -> np.ndarray:
    """The number of whitespace-separated tokens on each line of ``text`` (vectorised)."""
    b = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if b.size == 0:
        return np.zeros(1, np.int64)
    space = b <= 32
    start = ~space
    start[1:] &= space[:-1]
    starts = np.flatnonzero(start)
    line_starts = np.concatenate(([0], np.flatnonzero(b == 10) + 1))
    return np.diff(np.searchsorted(starts, np.append(line_starts, b.size)))


def _first_split_mismatch(text: str, counts: np.ndarray, name: str, first_line: int) -> FileFormatError:
    """The error for a line that ``str.split`` splits differently from the byte scan (odd whitespace)."""
    for i, line in enumerate(text.split("\n")):
        if len(line.split()) != (counts[i] if i < len(counts) else 0):
            return FileFormatError("unexpected whitespace or control character", name, first_line + i)
    return FileFormatError("unexpected whitespace or control character", name)


def split_records(
    text: str,
    *,
    name: str,
    first_line: int = 1,
    widths: tuple[int, ...] | int,
    comments: tuple[str, ...] = (),
) -> Records:
    """Split ``text`` (whose first line is line ``first_line`` of the file) into records.

    Blank lines and lines starting with one of ``comments`` are skipped.  Every other line
    must hold the same number of fields, one of ``widths`` (the first record decides).
    """
    allowed = (widths,) if isinstance(widths, int) else widths
    text = blank_comment_lines(text, comments)
    counts = _tokens_per_line(text)
    nonempty = np.flatnonzero(counts)
    end_line = first_line + len(counts) - (2 if text.endswith("\n") or not text else 1)
    if len(nonempty) == 0:
        return Records([], allowed[0], np.empty(0, np.int64), name, end_line)
    found = counts[nonempty]
    width = int(found[0])
    if width not in allowed:
        raise FileFormatError(_width_message(allowed, width), name, first_line + int(nonempty[0]))
    bad = np.flatnonzero(found != width)
    if len(bad):
        raise FileFormatError(_width_message((width,), int(found[bad[0]])), name, first_line + int(nonempty[bad[0]]))
    tokens = text.split()
    if len(tokens) != width * len(nonempty):
        raise _first_split_mismatch(text, counts, name, first_line)
    return Records(tokens, width, nonempty.astype(np.int64) + first_line, name, end_line)


def _width_message(allowed: tuple[int, ...], found: int) -> str:
    expected = " or ".join(str(w) for w in allowed)
    return f"expected {expected} fields on each line, found {found}"


# ----------------------------------------------------------------------------- columns


def _first_failure(tokens: list[str], convert: Any) -> int:
    """Index of the first token that ``convert`` rejects (there must be one)."""
    for i, tok in enumerate(tokens):
        try:
            convert(tok)
        except (ValueError, OverflowError):
            return i
    return len(tokens) - 1


def parse_index_column(records: Records, j: int, what: str) -> np.ndarray:
    """Column ``j`` as int64 integers (an index or a vertex id); reject anything else."""
    col = records.column(j)
    try:
        return np.array(col, dtype=np.int64)
    except OverflowError:
        i = _first_failure(col, lambda t: np.int64(int(t)))
        raise records.error(i, f"{what} {col[i]!r} is too large") from None
    except ValueError:
        i = _first_failure(col, int)
        raise records.error(i, f"{what} {col[i]!r} is not an integer") from None


def parse_id_column(records: Records, j: int, what: str) -> np.ndarray:
    """Column ``j`` as non-negative integer ids (int64, or uint64 when some exceed INT64_MAX)."""
    col = records.column(j)
    try:
        ids = np.array(col, dtype=np.int64)
    except OverflowError:
        ids = _parse_uint64(records, col, what)
    except ValueError:
        i = _first_failure(col, int)
        raise records.error(i, f"{what} {col[i]!r} is not an integer") from None
    if ids.dtype.kind == "i" and len(ids) and ids.min() < 0:
        i = int(np.flatnonzero(ids < 0)[0])
        raise records.error(i, f"{what} {col[i]} is negative")
    return ids


def _as_uint64(tok: str) -> np.uint64:
    """``tok`` as a uint64; ValueError or OverflowError if it is not one."""
    v = int(tok)
    if v < 0:
        raise OverflowError(tok)
    return np.uint64(v)


def _parse_uint64(records: Records, col: list[str], what: str) -> np.ndarray:
    try:
        return np.array(col, dtype=np.uint64)
    except (OverflowError, ValueError):
        i = _first_failure(col, _as_uint64)
        raise records.error(i, f"{what} {col[i]!r} is not an integer in 0..2**64-1") from None


def parse_float_column(records: Records, j: int, what: str = "value") -> np.ndarray:
    """Column ``j`` as float64 (accepts ``inf``, ``-inf``, ``nan``, ``Infinity``)."""
    col = records.column(j)
    try:
        return np.array(col, dtype=np.float64)
    except ValueError:
        i = _first_failure(col, float)
        raise records.error(i, f"{what} {col[i]!r} is not a number") from None


def parse_value_column(records: Records, j: int, t: DataType, *, what: str = "value", note: str = "") -> np.ndarray:
    """Column ``j`` as values of type ``t``, range-checked (integers and BOOL) so nothing wraps.

    Integer and BOOL types parse integer tokens exactly (uint64 beyond INT64_MAX when ``t``
    is UINT64); an integral real token such as ``3.0`` is accepted too.  BOOL takes 0 and 1.
    Floating types parse reals; FP32 rounds.  ``note`` is appended to range errors.
    """
    if t.is_float:
        return parse_float_column(records, j, what).astype(t.np_type)
    values = _parse_integral(records, j, t, what)
    _check_range(records, j, values, t, what, note)
    return values.astype(t.np_type)


def _parse_integral(records: Records, j: int, t: DataType, what: str) -> np.ndarray:
    col = records.column(j)
    try:
        return np.array(col, dtype=np.int64)
    except OverflowError:
        if t == UINT64:
            return _parse_uint64(records, col, what)
        i = _first_failure(col, lambda t_: np.int64(int(t_)))
        raise records.error(i, f"{what} {col[i]} is out of range for {t}") from None
    except ValueError:
        pass
    floats = parse_float_column(records, j, what)
    integral = np.isfinite(floats) & (floats == np.trunc(floats))
    if not integral.all():
        i = int(np.flatnonzero(~integral)[0])
        raise records.error(i, f"{what} {col[i]!r} is not an integer (type {t})")
    outside = (floats < -(2.0**63)) | (floats >= (2.0**64 if t == UINT64 else 2.0**63))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise records.error(i, f"{what} {col[i]} is out of range for {t}")
    if t == UINT64 and len(floats) and floats.max() >= 2.0**63:
        return floats.astype(np.uint64)
    return floats.astype(np.int64)


def _check_range(records: Records, j: int, values: np.ndarray, t: DataType, what: str, note: str) -> None:
    lo, hi = (0, 1) if t == BOOL else (int(t.min), int(t.max))
    if values.dtype.kind == "u":
        bad = values > np.uint64(min(hi, 2**64 - 1))
    else:
        bad = (values < max(lo, _INT64_MIN)) | (values > min(hi, _INT64_MAX))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        allowed = "0 or 1" if t == BOOL else f"{lo}..{hi}"
        raise records.error(i, f"{what} {records.column(j)[i]} is out of range for {t} ({allowed}){note}")


def cast_values(values: np.ndarray, t: DataType) -> np.ndarray:
    """``values`` cast C-style to ``t`` (a no-op when already of that type)."""
    return cast_array(np.asarray(values), t, np)
