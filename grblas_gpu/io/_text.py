"""The pure path: validating tokenisation of line-oriented numeric text (shared by every reader).

A chunk of data is checked line by line with vectorised NumPy (every non-blank line
must hold the same number of fields, every character of a data line is ASCII and no
number holds ``_``), split once with ``str.split`` and converted column by column with
``np.array(tokens, dtype)``.  Only when something is wrong does a slow Python loop run,
to find the first bad token and report its line.  Numbers are what the formats allow:
ASCII digits, no ``_`` separators (Python's ``int`` and ``float`` accept both), and a
real literal that overflows is an error, not ``inf`` (``inf`` and ``nan`` written as such
are read).  :class:`FastRecords` holds the same columns when the compiled parser or pyarrow
parsed the chunk.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Union

import numpy as np

from ..dtypes import BOOL, UINT64, DataType
from ..operators.cmath import cast_array
from . import _compiled
from ._chunks import (
    Chunk,
    Data,
    LineMap,
    as_buffer,
    compiled_parser,
    fast_available,
    fast_columns,
    line_count_of,
    nonempty_lines,
    pick_delimiter,
)
from .errors import FileFormatError

__all__ = ["Source", "read_text", "Records", "FastRecords", "split_records", "line_iter", "NON_FINITE",
           "chunk_records", "concat_columns"]

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
#: The tokens that stand for a non-finite real (any case, with an optional sign).
NON_FINITE = ("inf", "infinity", "nan")


def source_name(source: Any) -> str:
    """The name used for ``source`` in error messages: its path, or ``"<stream>"``."""
    if hasattr(source, "read"):
        return str(getattr(source, "name", "<stream>"))
    return os.fspath(source)


def read_text(source: Source) -> tuple[str, str]:
    """Return ``(text, name)`` for a path (``.gz`` is decompressed) or an open file object.

    Bytes that are not UTF-8 are kept as lone surrogates (``surrogateescape``): a comment
    line may hold anything; :func:`split_records` rejects them on a data line, naming it.
    """
    name = source_name(source)
    if hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
    else:
        path = Path(os.fspath(source))
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as f:
            data = f.read()
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
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

    def int_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as int64 (an index)."""
        return parse_index_column(self, j, what)

    def id_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as non-negative ids (int64, uint64 past INT64_MAX)."""
        return parse_id_column(self, j, what)

    def float_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as float64."""
        return parse_float_column(self, j, what)

    def value_column(self, j: int, t: DataType, *, what: str = "value", note: str = "") -> np.ndarray:
        """Column ``j`` as values of type ``t`` (see :func:`parse_value_column`)."""
        return parse_value_column(self, j, t, what=what, note=note)


@dataclass
class FastRecords:
    """A chunk's columns as parsed by the compiled parser or pyarrow (``columns[j]``: int64 or
    float64; from pyarrow all finite, from the compiled parser ``inf``/``nan`` only where written so).

    Offers the column methods of :class:`Records`, with the same checks and messages.
    ``lines`` maps a record to its line (see ``_chunks.LineSpan``).
    """

    columns: list[np.ndarray]
    width: int
    span: Any
    name: str

    def __len__(self) -> int:
        return len(self.columns[0])

    def error(self, record: int, reason: str) -> FileFormatError:
        """A FileFormatError for record number ``record`` (0-based) of the chunk."""
        return FileFormatError(reason, self.name, self.span.line(record))

    def int_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as int64."""
        return self.columns[j]

    def id_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as non-negative ids."""
        ids = self.columns[j]
        if len(ids) and ids.min() < 0:
            i = int(np.flatnonzero(ids < 0)[0])
            raise self.error(i, f"{what} {ids[i]} is negative")
        return ids

    def float_column(self, j: int, what: str) -> np.ndarray:
        """Column ``j`` as float64."""
        return self.columns[j].astype(np.float64, copy=False)

    def value_column(self, j: int, t: DataType, *, what: str = "value", note: str = "") -> np.ndarray:
        """Column ``j`` as values of type ``t``; integer types were parsed as int64 and are range-checked."""
        values = self.columns[j]
        if t.is_float:
            return _narrow_float(self, values.astype(np.float64, copy=False), t, what, None)
        _check_range(self, values, t, what, note)  # the readers ask pyarrow for int64 here
        return values.astype(t.np_type)


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


def _check_characters(text: str, name: str, first_line: int) -> None:
    """Reject a data line with a non-ASCII character (a non-UTF-8 byte included) or a ``_``."""
    if text.isascii() and "_" not in text:
        return
    for i, line in enumerate(text.split("\n")):
        bad = next((ch for ch in line if ord(ch) > 127 or ch == "_"), None)
        if bad is None:
            continue
        if "\udc80" <= bad <= "\udcff":
            reason = f"byte 0x{ord(bad) - 0xDC00:02x} is not UTF-8 text"
        elif bad == "_":
            token = next(t for t in line.split() if "_" in t)
            reason = f"{token!r} is not a number ('_' is not allowed in numbers)"
        else:
            reason = f"unexpected character {bad!r} (U+{ord(bad):04X}): numbers are ASCII digits"
        raise FileFormatError(reason, name, first_line + i)


def split_records(
    text: str,
    *,
    name: str,
    first_line: int = 1,
    widths: tuple[int, ...] | int,
    comments: tuple[str, ...] = (),
) -> Records:
    """Split ``text`` (whose first line is line ``first_line`` of the file) into records.

    Blank lines and lines starting with one of ``comments`` are skipped (whatever bytes
    they hold).  Every other line must hold the same number of fields, one of ``widths``
    (the first record decides), and only ASCII characters.
    """
    allowed = (widths,) if isinstance(widths, int) else widths
    text = blank_comment_lines(text, comments)
    _check_characters(text, name, first_line)
    counts = _tokens_per_line(text)
    nonempty = np.flatnonzero(counts)
    end_line = first_line + len(counts) - (2 if text.endswith("\n") or not text else 1)
    if len(nonempty) == 0:
        if text.split():  # a control character the byte scan took for a space
            raise _first_split_mismatch(text, counts, name, first_line)
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


def _is_non_finite_token(token: str) -> bool:
    return token.lstrip("+-").lower() in NON_FINITE


def parse_float_column(records: Records, j: int, what: str = "value") -> np.ndarray:
    """Column ``j`` as float64 (accepts ``inf``, ``-inf``, ``nan``, ``Infinity``; rejects an overflowing literal)."""
    col = records.column(j)
    try:
        values = np.array(col, dtype=np.float64)
    except ValueError:
        i = _first_failure(col, float)
        raise records.error(i, f"{what} {col[i]!r} is not a number") from None
    infinite = np.isinf(values)
    if infinite.any():
        for i in np.flatnonzero(infinite).tolist():
            if not _is_non_finite_token(col[i]):
                raise records.error(i, f"{what} {col[i]} is out of range for FP64 (it overflows to inf)")
    return values


def _narrow_float(records: Any, values: np.ndarray, t: DataType, what: str, col: list[str] | None) -> np.ndarray:
    """``values`` as ``t``; a finite value that overflows FP32 is an error."""
    with np.errstate(over="ignore"):  # an overflow is reported below, as an error naming the line
        # (a chunk's own column is not copied when already of the type: only a read-only one is)
        out = values.astype(t.np_type, copy=not values.flags.writeable)
    if t.np_type != np.float64:
        grown = np.isinf(out) & np.isfinite(values)
        if grown.any():
            i = int(np.flatnonzero(grown)[0])
            shown = col[i] if col is not None else repr(float(values[i]))
            raise records.error(i, f"{what} {shown} is out of range for {t} (it overflows to inf)")
    return out


def parse_value_column(records: Records, j: int, t: DataType, *, what: str = "value", note: str = "") -> np.ndarray:
    """Column ``j`` as values of type ``t``, range-checked (integers and BOOL) so nothing wraps.

    Integer and BOOL types parse integer tokens exactly (uint64 beyond INT64_MAX when ``t``
    is UINT64); an integral real token such as ``3.0`` is accepted too.  BOOL takes 0 and 1.
    Floating types parse reals; FP32 rounds, and a value beyond its range is an error.
    ``note`` is appended to range errors.
    """
    if t.is_float:
        return _narrow_float(records, parse_float_column(records, j, what), t, what, records.column(j))
    values = _parse_integral(records, j, t, what)
    _check_range(records, values, t, what, note)
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


def _check_range(records: Any, values: np.ndarray, t: DataType, what: str, note: str) -> None:
    lo, hi = (0, 1) if t == BOOL else (int(t.min), int(t.max))
    if values.dtype.kind == "u":
        bad = values > np.uint64(min(hi, 2**64 - 1))
    else:
        bad = (values < max(lo, _INT64_MIN)) | (values > min(hi, _INT64_MAX))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        allowed = "0 or 1" if t == BOOL else f"{lo}..{hi}"
        raise records.error(i, f"{what} {values[i]} is out of range for {t} ({allowed}){note}")


def cast_values(values: np.ndarray, t: DataType) -> np.ndarray:
    """``values`` cast C-style to ``t`` (a no-op when already of that type)."""
    return cast_array(np.asarray(values), t, np)


# ----------------------------------------------------------------------------- chunks


def chunk_records(
    data: Data,
    first: int,
    count: int | None,
    name: str,
    lines: LineMap,
    *,
    kinds: Sequence[str] | None,
    widths: tuple[int, ...] | int,
    comments: tuple[str, ...] = (),
    delimiter: str | None = None,
    prepare: Callable[[str], str] | None = None,
) -> Records | FastRecords:
    """The records of one chunk (``count`` lines from line ``first``; None: not counted yet, see
    :meth:`~._chunks.ByteReader.chunks`), added to ``lines``.

    The compiled parser (``_compiled``) reads the chunk where it is built and the fields are
    split by blanks; else pyarrow parses it when it can (``kinds`` says int or float per
    field; None asks for the pure path) and no comment prefix occurs in it.  Where both
    decline or are unsure, the pure path reads the chunk and names the line of any error.  ``prepare`` rewrites the chunk's text for the pure path (a delimiter).
    """
    if kinds is not None and compiled_parser() and (delimiter is None or delimiter.isspace()):
        found = _compiled.parse_columns(as_buffer(data), first, kinds, comments)
        if found is not None:
            parsed, exact, line_count = found
            if isinstance(data, Chunk):
                data.lines = line_count
            return FastRecords(parsed, len(kinds), lines.add(len(parsed[0]), first, exact), name)
    if count is None:
        count = line_count_of(data)
    if kinds is not None and fast_available() and not any(p.encode() in data for p in comments):
        d = pick_delimiter(data, delimiter)
        columns = fast_columns(data, kinds, d) if d else None
        if columns is not None:
            n = len(columns[0])
            exact = None if n == count else nonempty_lines(data, first)
            if exact is None or len(exact) == n:
                return FastRecords(columns, len(kinds), lines.add(n, first, exact), name)
    text = data.decode("utf-8", "surrogateescape")
    if prepare is not None:
        text = prepare(text)
    records = split_records(text, name=name, first_line=first, widths=widths, comments=comments)
    lines.add(len(records), first, records.lines)
    return records


def concat_columns(arrays: list[np.ndarray], dtype: Any) -> np.ndarray:
    """One array from the chunks' columns; int64 and uint64 chunks (ids past INT64_MAX) join as uint64."""
    if not arrays:
        return np.empty(0, dtype=dtype)
    kinds = {a.dtype for a in arrays}
    if len(kinds) > 1:
        target = np.uint64 if kinds <= {np.dtype(np.int64), np.dtype(np.uint64)} else dtype
        arrays = [a.astype(target) for a in arrays]
    return np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
