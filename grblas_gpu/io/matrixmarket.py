"""Matrix Market files: read (coordinate and array) and write (coordinate).

Reading follows the NIST Matrix Market format and LAGraph's extension:

* The banner ``%%MatrixMarket matrix <format> <field> <symmetry>`` is required (its words
  are case-insensitive).  Formats: ``coordinate``, ``array``.  Fields: ``real``,
  ``integer``, ``pattern`` (``complex`` raises :class:`UnsupportedFormatError`: there is
  no complex type).  Symmetries: ``general``, ``symmetric``, ``skew-symmetric``
  (``hermitian`` raises :class:`UnsupportedFormatError`).  ``array pattern`` and
  ``pattern skew-symmetric`` are invalid combinations.
* A header comment ``%%GraphBLAS type <t>`` (``bool``, ``int8_t`` .. ``uint64_t``,
  ``float``, ``double``) selects the type and wins over the field: LAGraph's
  ``matrix_fp32.mtx`` says ``integer`` but holds ``inf``; it is read as FP32.  Values
  must fit the type (a ``bool`` file holds 0 and 1; an ``int8_t`` file -128..127);
  values above INT64_MAX are read when the type is ``uint64_t``.  Any other
  ``%%GraphBLAS`` line is a comment.
* Without it: ``pattern`` -> BOOL (every entry true), ``integer`` -> INT64, ``real`` -> FP64.
* Symmetric and skew-symmetric files store one triangle; the other is added (negated for
  skew).  Entries given in the upper triangle are mirrored too.  A skew-symmetric file
  cannot have an unsigned or BOOL type, nor a nonzero diagonal entry.
* Duplicate entries are an error (as in LAGraph), reported with both lines; pass
  ``dup_op=`` to :func:`mmread` to combine them instead.
* The size line ``nrows ncols nentries`` (coordinate) or ``nrows ncols`` (array) must
  follow the header: ASCII digits, each at most 2**60 (GrB_INDEX_MAX); an array size
  line may carry a third number if it equals ``nrows * ncols`` (LAGraph's
  ``*_cluster.mtx`` files do this).
* Blank lines and ``%`` comment lines may appear anywhere, also among the entries
  (LAGraph's ``west0067_jumbled.mtx`` has one there).
* Array files list values column by column (the lower triangle for symmetric, the strict
  lower triangle for skew-symmetric); every position becomes a stored entry, the zero
  diagonal of a skew-symmetric array file included (the format does not list it).
* Numbers are ASCII digits (no ``_`` separators, no other scripts' digits).  A real
  literal too large for the type (``1e999999``; ``1e39`` in a ``float`` file) is an
  error; ``inf``, ``-inf``, ``nan`` written as such are read.
* Comment lines are skipped whatever bytes they hold; a data line must be ASCII.
* The entries are read in chunks, by the compiled strict parser where it was built
  (``_compiled``), else by pyarrow's CSV reader where it is installed (the ``readers``
  extra), and by a pure NumPy path otherwise, or wherever the others decline or are unsure;
  without the compiled parser, a file of integers only (pattern, integer) of one chunk goes
  to fast_matrix_market first (see ``_fmm``).  All give the same answer and the same error.  ``progress=`` reports
  long files.

Every error is a :class:`FileFormatError` naming the file and the line.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ..dtypes import BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, DataType, lookup_dtype
from ..exceptions import InvalidValue
from . import _chunks, _fmm
from ._chunks import ByteReader, Data, LineMap, Progress
from ._coo import Compressed, Coo, build_matrix, compress, find_duplicate, has_duplicates, matrix_of, mirror
from ._text import FastRecords, Records, Source, chunk_records, concat_columns, line_iter
from .errors import FileFormatError, UnsupportedFormatError

if TYPE_CHECKING:
    from ..matrix import Matrix

__all__ = ["MMHeader", "mminfo", "mmread", "mmwrite", "parse_matrix_market", "parse_mm_header", "write_matrix_market"]

FORMATS = ("coordinate", "array")
FIELDS = ("real", "integer", "pattern")
SYMMETRIES = ("general", "symmetric", "skew-symmetric")

#: ``%%GraphBLAS type`` names (C types, as LAGraph writes them) -> DataType.
GRAPHBLAS_TYPES: dict[str, DataType] = {
    "bool": BOOL,
    "int8_t": INT8,
    "int16_t": INT16,
    "int32_t": INT32,
    "int64_t": INT64,
    "uint8_t": UINT8,
    "uint16_t": UINT16,
    "uint32_t": UINT32,
    "uint64_t": UINT64,
    "float": FP32,
    "double": FP64,
}
_C_NAMES = {t: name for name, t in GRAPHBLAS_TYPES.items()}
_FIELD_TYPES = {"pattern": BOOL, "integer": INT64, "real": FP64}
#: The largest dimension GraphBLAS allows (GrB_INDEX_MAX + 1 = 2**60).
GRB_INDEX_MAX = 2**60
_DIGITS = re.compile(r"[0-9]+")
_TYPE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass
class MMHeader:
    """What a Matrix Market header says (see :func:`mminfo`).

    ``dtype`` is the type the values are read as; ``graphblas_type`` tells whether a
    ``%%GraphBLAS type`` line chose it.  ``nentries`` is the number of data entries the size
    line declares (for ``array``, the number of values listed).  ``data_line`` is the
    1-based line where the data starts, ``data_offset`` its offset in the file (bytes; in
    the text for :func:`parse_mm_header`).
    """

    format: str
    field: str
    symmetry: str
    nrows: int
    ncols: int
    nentries: int
    dtype: DataType
    graphblas_type: bool = False
    comments: list[str] = dataclasses.field(default_factory=list)
    data_line: int = 0
    data_offset: int = 0
    type_line: int | None = None


# ----------------------------------------------------------------------------- header


def _parse_banner(line: str, name: str) -> tuple[str, str, str]:
    words = line.split()
    if not words or words[0].lower() != "%%matrixmarket":
        shown = line.strip()[:40]
        raise FileFormatError(f"missing the '%%MatrixMarket matrix ...' banner (found {shown!r})", name, 1)
    if len(words) != 5:
        raise FileFormatError("the banner must be '%%MatrixMarket matrix <format> <field> <symmetry>'", name, 1)
    obj, fmt, fld, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise FileFormatError(f"object {words[1]!r} is not supported: expected 'matrix'", name, 1)
    if fmt not in FORMATS:
        raise FileFormatError(f"unknown format {words[2]!r}: expected 'coordinate' or 'array'", name, 1)
    if fld == "complex":
        raise UnsupportedFormatError("complex values are not supported (grblas_gpu has no complex type)", name, 1)
    if fld not in FIELDS:
        raise FileFormatError(f"unknown field {words[3]!r}: expected real, integer, pattern (or complex)", name, 1)
    if sym == "hermitian":
        raise UnsupportedFormatError("hermitian matrices are not supported (they need a complex type)", name, 1)
    if sym not in SYMMETRIES:
        raise FileFormatError(f"unknown symmetry {words[4]!r}: expected general, symmetric, skew-symmetric", name, 1)
    if fmt == "array" and fld == "pattern":
        raise FileFormatError("'array pattern' is not a valid combination: use 'coordinate pattern'", name, 1)
    if fld == "pattern" and sym == "skew-symmetric":
        raise FileFormatError("'pattern skew-symmetric' is not a valid combination", name, 1)
    return fmt, fld, sym


def graphblas_type(name: str) -> DataType:
    """The type named on a ``%%GraphBLAS type`` line (C names first, then our own names)."""
    key = " ".join(name.split()).lower()
    if key in GRAPHBLAS_TYPES:
        return GRAPHBLAS_TYPES[key]
    if "complex" in key:
        raise UnsupportedFormatError(f"type {name!r} is not supported (grblas_gpu has no complex type)")
    bare = name.strip().removeprefix("GrB_")
    if not _TYPE_NAME.fullmatch(bare):
        raise FileFormatError(f"unknown %%GraphBLAS type {name!r}")
    try:
        return lookup_dtype(bare)
    except Exception:  # noqa: BLE001 - the name is file text: whatever the lookup raises, it names no type
        raise FileFormatError(f"unknown %%GraphBLAS type {name!r}") from None


def _parse_type_line(line: str, name: str, lineno: int) -> DataType | None:
    words = line.split(maxsplit=2)
    if len(words) < 2 or words[1].lower() != "type":
        return None  # another %%GraphBLAS line: a comment
    try:
        return graphblas_type(words[2] if len(words) > 2 else "")
    except FileFormatError as e:
        raise type(e)(e.reason, name, lineno) from None


def _parse_size(line: str, fmt: str, name: str, lineno: int) -> tuple[int, int, int]:
    words = line.split()
    want = "nrows ncols nentries" if fmt == "coordinate" else "nrows ncols"
    ok_count = len(words) == 3 if fmt == "coordinate" else len(words) in (2, 3)
    numbers = [int(w) for w in words if _DIGITS.fullmatch(w)]
    if not ok_count or len(numbers) != len(words):
        found = line.strip()
        raise FileFormatError(f"the size line must be '{want}' (non-negative integers), found {found!r}", name, lineno)
    for what, n in zip(("nrows", "ncols", "nentries"), numbers):
        if n > GRB_INDEX_MAX:
            raise FileFormatError(f"{what} {n} is larger than GrB_INDEX_MAX (2**60)", name, lineno)
    nrows, ncols = numbers[0], numbers[1]
    if fmt == "array" and len(numbers) == 3 and numbers[2] != nrows * ncols:
        raise FileFormatError(f"array size line: {numbers[2]} is not nrows * ncols = {nrows * ncols}", name, lineno)
    return nrows, ncols, numbers[2] if fmt == "coordinate" else nrows * ncols


def _array_count(nrows: int, sym: str) -> int:
    if sym == "symmetric":
        return nrows * (nrows + 1) // 2
    return nrows * (nrows - 1) // 2


def _check_header(h: MMHeader, name: str, size_line: int) -> None:
    if h.symmetry != "general" and h.nrows != h.ncols:
        raise FileFormatError(f"a {h.symmetry} matrix must be square, not {h.nrows} x {h.ncols}", name, size_line)
    if h.symmetry == "skew-symmetric" and (h.dtype.is_unsigned or h.dtype.is_bool):
        raise FileFormatError(f"a skew-symmetric matrix cannot have the type {h.dtype}", name, h.type_line or 1)
    if h.format == "array" and h.symmetry != "general":
        h.nentries = _array_count(h.nrows, h.symmetry)


def _comment_text(stripped: str) -> str:
    """A comment's text, any byte that is not UTF-8 shown as U+FFFD."""
    return stripped[1:].encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _parse_header_lines(lines: Iterator[tuple[int, int, str]], name: str) -> MMHeader:
    """The header from ``(line number, offset after the line, line)`` triples; stops after the size line."""
    first = next(lines, None)
    if first is None:
        raise FileFormatError("empty file: missing the '%%MatrixMarket matrix ...' banner", name, 1)
    fmt, fld, sym = _parse_banner(first[2], name)
    dtype, type_line, comments = _FIELD_TYPES[fld], None, []
    last = 1
    for lineno, offset, line in lines:
        last = lineno
        stripped = line.strip()
        if stripped.startswith("%"):
            if stripped[:11].lower() == "%%graphblas":
                found = _parse_type_line(stripped, name, lineno)
                if found is not None:
                    dtype, type_line = found, lineno
                    continue
            comments.append(_comment_text(stripped))
            continue
        if not stripped:
            continue
        nrows, ncols, nentries = _parse_size(stripped, fmt, name, lineno)
        h = MMHeader(fmt, fld, sym, nrows, ncols, nentries, dtype, type_line is not None, comments,
                     lineno + 1, offset, type_line)
        _check_header(h, name, lineno)
        return h
    raise FileFormatError("missing the size line (the file ends after the header)", name, last)


def parse_mm_header(text: str, name: str = "<stream>") -> MMHeader:
    """Parse the banner, the comments and the size line of a Matrix Market text."""
    return _parse_header_lines(iter(line_iter(text)), name)


def _reader_lines(reader: ByteReader) -> Iterator[tuple[int, int, str]]:
    while True:
        raw = reader.readline()
        if not raw:
            return
        yield reader.line, reader.done, raw.decode("utf-8", "surrogateescape").rstrip("\r\n")


def mminfo(source: Source) -> MMHeader:
    """The header of a Matrix Market file: format, field, symmetry, size, type, comments.

    Reads the header only, not the entries.
    """
    with ByteReader(source) as reader:
        return _parse_header_lines(_reader_lines(reader), reader.name)


# ----------------------------------------------------------------------------- data


def _type_note(h: MMHeader) -> str:
    if h.graphblas_type:
        return f" (%%GraphBLAS type {_C_NAMES.get(h.dtype, h.dtype.name)} on line {h.type_line})"
    return ""


def _value_type(h: MMHeader, dtype: DataType | None) -> DataType:
    if h.dtype == INT64 and not h.graphblas_type and dtype == UINT64:
        return UINT64  # an integer file asked for as UINT64 may hold values above INT64_MAX
    return h.dtype


def _kinds(h: MMHeader) -> tuple[str, ...]:
    """What pyarrow parses each field as."""
    value = "float" if h.dtype.is_float else "int"
    if h.format == "array":
        return (value,)
    return ("int", "int") if h.field == "pattern" else ("int", "int", value)


def _chunk_records(data: Data, first: int, count: int | None, h: MMHeader, name: str,
                   lines: LineMap) -> Records | FastRecords:
    """One chunk's entries, by the compiled parser or pyarrow where they can, else by the pure path
    (which names any error's line)."""
    kinds = _kinds(h)
    return chunk_records(data, first, count, name, lines, kinds=kinds, widths=len(kinds), comments=("%",))


def _read_values(records: Records | FastRecords, j: int, h: MMHeader, t: DataType) -> np.ndarray:
    if h.field == "pattern":
        return np.ones(len(records), dtype=h.dtype.np_type)
    return records.value_column(j, t, note=_type_note(h))


def _read_indices(records: Records | FastRecords, j: int, n: int, what: str) -> np.ndarray:
    idx = records.int_column(j, what)
    if len(idx) and (idx.min() < 1 or idx.max() > n):  # two reductions; the mask only on error
        i = int(np.flatnonzero((idx < 1) | (idx > n))[0])
        raise records.error(i, f"{what} {idx[i]} is out of range 1..{n}")
    if idx.flags.writeable:  # a chunk's fresh column, held nowhere else: shifted in place
        idx -= 1
        return idx
    return idx - 1


def _coordinate(records: Records | FastRecords, h: MMHeader, t: DataType) -> tuple[np.ndarray, ...]:
    rows = _read_indices(records, 0, h.nrows, "row index")
    cols = _read_indices(records, 1, h.ncols, "column index")
    values = _read_values(records, 2, h, t)
    if h.symmetry == "skew-symmetric":
        diag = (rows == cols) & (values != 0)
        if diag.any():
            raise records.error(int(np.flatnonzero(diag)[0]), "a skew-symmetric matrix needs a zero diagonal")
        _check_negatable(records, values, t)
    return rows, cols, values


def _check_negatable(records: Records | FastRecords, values: np.ndarray, t: DataType) -> None:
    """A skew-symmetric integer value whose negation does not fit its type (-128 for int8) is an error."""
    if t.is_float or not len(values):
        return
    lowest = values == np.iinfo(values.dtype).min
    if lowest.any():
        i = int(np.flatnonzero(lowest)[0])
        raise records.error(i, f"value {values[i]} of a skew-symmetric {t} matrix: its negation does not fit {t}")


def _array_positions(h: MMHeader) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of each listed value: column by column (down the lower triangle when symmetric)."""
    n, m = h.nrows, h.ncols
    if h.symmetry == "general":
        return np.tile(np.arange(n, dtype=np.int64), m), np.repeat(np.arange(m, dtype=np.int64), n)
    k = 0 if h.symmetry == "symmetric" else 1  # the transpose of triu's row-major order
    upper_r, upper_c = np.triu_indices(n, k)
    return upper_c.astype(np.int64), upper_r.astype(np.int64)


def _expand(h: MMHeader, rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Both triangles of a symmetric matrix; an array skew-symmetric one gets its zero diagonal stored."""
    if h.symmetry == "general":
        return rows, cols, values
    skew = h.symmetry == "skew-symmetric"
    rows, cols, values, _ = mirror(rows, cols, values, None, negate=skew)
    if skew and h.format == "array":  # every position of an array file is an entry, the diagonal too
        diag = np.arange(h.nrows, dtype=np.int64)
        rows, cols = np.concatenate([rows, diag]), np.concatenate([cols, diag])
        values = np.concatenate([values, np.zeros(h.nrows, values.dtype)])
    return rows, cols, values


def _check_duplicates(h: MMHeader, rows: np.ndarray, cols: np.ndarray, lines: LineMap, name: str) -> None:
    """Raise if an entry repeats, counting (i, j) and (j, i) as one in a symmetric file."""
    if h.symmetry != "general":
        rows, cols = np.maximum(rows, cols), np.minimum(rows, cols)
    if not has_duplicates(rows, cols, h.nrows, h.ncols):
        return
    dup = find_duplicate(rows, cols, np.arange(len(rows), dtype=np.int64))
    assert dup is not None
    i, j, first, again = dup
    hint = f" (a {h.symmetry} file stores each off-diagonal pair once)" if h.symmetry != "general" else ""
    raise FileFormatError(f"duplicate entry ({i + 1}, {j + 1}), already given on line {lines.line(first)}{hint}",
                          name, lines.line(again))


class _Columns:
    """The entries' columns, filled chunk by chunk.

    Where the file is long enough to hold the entries the size line declares (two bytes a
    field at least), they go into arrays of that size as they come: no second copy at the
    end.  Otherwise (a stream, a ``.gz`` file, a size line that cannot be true) each chunk's
    arrays are kept and joined at the end.
    """

    def __init__(self, declared: int, room: int | None, dtypes: list[Any]) -> None:
        self.dtypes = dtypes
        self.declared = declared
        self.count = 0
        self.fits = room is not None and declared * 2 * len(dtypes) <= room
        self.filled: list[np.ndarray] | None = None
        self.parts: list[tuple[np.ndarray, ...]] = []

    def add(self, arrays: tuple[np.ndarray, ...]) -> None:
        """Append one chunk's columns (the first is kept as it is: a file of one chunk is not copied)."""
        n = len(arrays[0])
        if self.fits and self.parts and self.filled is None:  # a second chunk: the whole arrays now
            self.filled = [np.empty(self.declared, dtype=d) for d in self.dtypes]
            for out, a in zip(self.filled, self.parts.pop()):
                out[: self.count] = a
        if self.filled is not None:
            for out, a in zip(self.filled, arrays):
                out[self.count : self.count + n] = a
        else:
            self.parts.append(arrays)
        self.count += n

    def result(self) -> list[np.ndarray]:
        """Every column, whole."""
        if self.filled is not None:
            return self.filled
        return [concat_columns([p[j] for p in self.parts], d) for j, d in enumerate(self.dtypes)]


def _integers_by_fmm(reader: ByteReader, h: MMHeader, t: DataType, progress: Progress,
                     lines: LineMap) -> list[np.ndarray] | None:
    """The entries of a file of integers only, of one chunk, by fast_matrix_market (see ``_fmm``)."""
    if reader.path is None or h.format != "coordinate" or h.field == "real" or not _chunks.fast_allowed() \
            or _chunks.compiled_parser():  # (the compiled parser is faster: no check of the bytes first)
        return None
    data = reader.rest()
    if data is None:
        return None
    found = _fmm.read_integers(reader.path, data, h, t, _chunks.THREADS)
    del data
    if found is None:
        return None
    lines.add(h.nentries, reader.line + 1, None)  # (no blank or comment line among them)
    reader.skip_rest(h.nentries, progress)
    return found


def _read_entries(reader: ByteReader, h: MMHeader, t: DataType, progress: Progress,
                  lines: LineMap) -> list[np.ndarray]:
    """[rows, cols, values], or [values] for an array file, checked against the size line."""
    fast = _integers_by_fmm(reader, h, t, progress, lines)
    if fast is not None:
        return fast
    value_type = (h.dtype if h.field == "pattern" else t).np_type
    dtypes = [value_type] if h.format == "array" else [np.int64, np.int64, value_type]
    room = None if reader.total is None else reader.total - reader.done
    columns = _Columns(h.nentries, room, dtypes)
    for data, first, n in reader.chunks(progress):
        records = _chunk_records(data, first, n, h, reader.name, lines)
        if columns.count + len(records) > h.nentries:
            raise records.error(h.nentries - columns.count,
                                f"more entries than the {h.nentries} the size line declares")
        if h.format == "coordinate":
            columns.add(_coordinate(records, h, t))
        else:
            values = _read_values(records, 0, h, t)
            if h.symmetry == "skew-symmetric":
                _check_negatable(records, values, t)
            columns.add((values,))
    if columns.count < h.nentries:
        raise FileFormatError(f"the file ends after {columns.count} of the {h.nentries} entries the size line "
                              "declares", reader.name, reader.line)
    return columns.result()


def _read_coo(source: Source, want: DataType | None, progress: Progress) -> tuple[Coo, MMHeader, LineMap, str]:
    """The entries (symmetry expanded, cast to ``want``, repeats not looked for), the header,
    the lines of the entries and the file's name."""
    lines = LineMap()
    with ByteReader(source) as reader:
        h = _parse_header_lines(_reader_lines(reader), reader.name)
        t = _value_type(h, want)
        columns = _read_entries(reader, h, t, progress, lines)
        name = reader.name
    values = columns[-1]
    rows, cols = (columns[0], columns[1]) if h.format == "coordinate" else _array_positions(h)
    del columns
    rows, cols, values = _expand(h, rows, cols, values)
    return Coo(rows, cols, values, h.nrows, h.ncols, lookup_dtype(values.dtype)).cast(want), h, lines, name


def _check_coo_duplicates(coo: Coo, h: MMHeader, lines: LineMap, name: str) -> None:
    """Raise if an entry of the file repeats (its entries are the first ``nentries`` of ``coo``)."""
    if h.format == "coordinate":
        _check_duplicates(h, coo.rows[: h.nentries], coo.cols[: h.nentries], lines, name)


def parse_matrix_market(
    source: Source, *, dtype: Any = None, allow_duplicates: bool = False, progress: Progress = None
) -> tuple[Coo, MMHeader]:
    """Read a Matrix Market file into NumPy COO arrays (0-based, symmetry expanded).

    Returns ``(coo, header)``; ``coo.dtype`` is the file's type, or ``dtype`` when given
    (values cast C-style).  Duplicates raise FileFormatError unless ``allow_duplicates``.
    The entries are read in chunks; ``progress`` is called as ``progress(bytes_done,
    bytes_total)`` after each (``bytes_total`` None for a stream or a ``.gz`` file), or
    ``progress=True`` prints one line per chunk to stderr.
    """
    coo, h, lines, name = _read_coo(source, None if dtype is None else lookup_dtype(dtype), progress)
    if not allow_duplicates:
        _check_coo_duplicates(coo, h, lines, name)
    return coo, h


def mmread(source: Source, *, dtype: Any = None, dup_op: Any = None, backend: str | None = None,
           progress: Progress = None) -> Matrix:
    """Read a Matrix Market file (a path, ``.gz`` included, or an open file) into a Matrix.

    The type is the ``%%GraphBLAS type`` line's, else BOOL for pattern, INT64 for integer,
    FP64 for real; ``dtype=`` casts to another (C-style).  Duplicate entries raise
    :class:`FileFormatError` unless ``dup_op`` (a BinaryOp or Monoid) combines them.
    ``progress`` reports the reading of long files (see :func:`parse_matrix_market`).
    See the module documentation for every rule.
    """
    return read_matrix_market(source, dtype=dtype, dup_op=dup_op, backend=backend, progress=progress)[0]


def read_matrix_market(source: Source, *, dtype: Any = None, dup_op: Any = None, backend: str | None = None,
                       progress: Progress = None) -> tuple[Matrix, MMHeader]:
    """:func:`mmread`, and the file's header."""
    coo, h, lines, name = _read_coo(source, None if dtype is None else lookup_dtype(dtype), progress)
    pattern = h.field == "pattern"
    if dup_op is None:
        # The CSR's sort finds repeats too: the file is searched for them (to name their
        # lines) only where it found one or could not tell.
        found = compress(coo, constant=pattern)
        if isinstance(found, Compressed):
            return matrix_of(found, coo, backend), h
        _check_coo_duplicates(coo, h, lines, name)
    return build_matrix(coo, dup_op=dup_op, backend=backend, constant=pattern), h


# ----------------------------------------------------------------------------- writing


def is_symmetric_coo(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, nrows: int, ncols: int) -> bool:
    """True when the entries equal their transpose (same pattern, same values; NaN equals NaN)."""
    if nrows != ncols:
        return False
    a = np.lexsort((cols, rows))
    b = np.lexsort((rows, cols))
    if not (np.array_equal(rows[a], cols[b]) and np.array_equal(cols[a], rows[b])):
        return False
    nan_ok = values.dtype.kind == "f"
    return bool(np.array_equal(values[a], values[b], equal_nan=nan_ok))


def _field_for(dtype: DataType, values: np.ndarray) -> str:
    if dtype.is_bool:
        return "pattern" if bool(np.all(values)) else "integer"
    return "real" if dtype.is_float else "integer"


def _format_chunk(r: np.ndarray, c: np.ndarray, v: np.ndarray | None, dtype: DataType) -> str:
    rs, cs = (r + 1).tolist(), (c + 1).tolist()
    if v is None:
        return "".join(f"{a} {b}\n" for a, b in zip(rs, cs))
    if dtype.is_float:
        vs = v.astype(np.float64).tolist()
        fmt = "{} {} {!r}\n" if dtype == FP64 else "{} {} {:.9g}\n"
        return "".join(fmt.format(a, b, x) for a, b, x in zip(rs, cs, vs))
    vs = v.astype(np.uint8).tolist() if dtype.is_bool else v.tolist()
    return "".join(f"{a} {b} {x}\n" for a, b, x in zip(rs, cs, vs))


def _comment_lines(comment: str) -> str:
    if not comment:
        return ""
    return "".join(f"%{line}\n" if line.startswith(" ") else f"% {line}\n" for line in comment.splitlines())


def write_matrix_market(
    target: str | os.PathLike[str] | IO[str],
    coo: Coo,
    *,
    comment: str = "",
    symmetric: bool | None = None,
    chunk: int = 1 << 20,
) -> None:
    """Write NumPy COO arrays as a coordinate Matrix Market file (see :func:`mmwrite`)."""
    rows, cols, values, t = coo.rows, coo.cols, coo.values, coo.dtype
    sym = is_symmetric_coo(rows, cols, values, coo.nrows, coo.ncols) if symmetric in (None, True) else False
    if symmetric and not sym:
        raise InvalidValue("symmetric=True, but the matrix is not symmetric (or not square)")
    if sym:
        lower = rows >= cols
        rows, cols, values = rows[lower], cols[lower], values[lower]
    fld = _field_for(t, values)
    head = (
        f"%%MatrixMarket matrix coordinate {fld} {'symmetric' if sym else 'general'}\n"
        f"%%GraphBLAS type {_C_NAMES[t]}\n{_comment_lines(comment)}{coo.nrows} {coo.ncols} {len(rows)}\n"
    )
    if hasattr(target, "write"):
        _write_body(target, head, rows, cols, None if fld == "pattern" else values, t, chunk)  # type: ignore[arg-type]
        return
    with open(Path(os.fspath(target)), "w", encoding="utf-8", newline="\n") as f:
        _write_body(f, head, rows, cols, None if fld == "pattern" else values, t, chunk)


def _write_body(f: IO[str], head: str, rows: np.ndarray, cols: np.ndarray, values: np.ndarray | None,
                t: DataType, chunk: int) -> None:
    f.write(head)
    for s in range(0, len(rows), chunk):
        v = None if values is None else values[s : s + chunk]
        f.write(_format_chunk(rows[s : s + chunk], cols[s : s + chunk], v, t))


def mmwrite(target: str | os.PathLike[str] | IO[str], A: Matrix, *, comment: str = "",
            symmetric: bool | None = None) -> None:
    """Write ``A`` to a coordinate Matrix Market file (a path or an open text file).

    The field follows the type: ``real`` for FP32/FP64 (FP64 exact, FP32 to 9 digits, which
    round-trips), ``integer`` for integer types, ``pattern`` for BOOL when every value is
    true (``integer`` 0/1 otherwise).  A ``%%GraphBLAS type`` line keeps the exact type.
    ``symmetric=True`` writes the lower triangle under a ``symmetric`` banner (InvalidValue
    if ``A`` is not symmetric); ``None`` does so when ``A`` is symmetric; ``False`` never.
    ``comment`` lines go after the banner, each prefixed with ``%``.
    """
    rows, cols, values = A.to_coo()
    t = lookup_dtype(A.dtype)
    coo = Coo(np.asarray(rows, np.int64), np.asarray(cols, np.int64), np.asarray(values), A.nrows, A.ncols, t)
    write_matrix_market(target, coo, comment=comment, symmetric=symmetric)
