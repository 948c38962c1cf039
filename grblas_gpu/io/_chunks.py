"""Reading a data file in chunks of whole lines, each parsed by a fast library or the pure path.

A reader opens a :class:`ByteReader`, reads its header line by line, then takes the data
in chunks of about :data:`CHUNK_BYTES` that end on a line break.  Each chunk is parsed by
the compiled strict parser where it was built (``_compiled``; it declines whatever it is
not certain of), else by
pyarrow's CSV reader when it is installed (:func:`fast_columns`), else, or when pyarrow
rejects the chunk or is unsure of it (comment lines, mixed separators, ``inf``/``nan``,
integers beyond int64), by the pure path in ``_text``, which finds the exact error and
names its line.  pyarrow is strict where it answers (a token with trailing characters,
an extra field, ``1_0``, a non-ASCII digit all fail), so the two paths agree on every
file; the test suite checks that they do, on random files.

Why pyarrow and not fast_matrix_market: fast_matrix_market (measured, 1.7.6) accepts
``1 1 1.5abc``, reads ``1 1 1-2`` as 1.0, ``0x10`` as 0 and ignores extra fields, so
its answers would need re-checking token by token; ``_fmm`` uses it only for files of
integers only, where a check of the bytes rules those cases out.  pyarrow needs two guards, both
cheap byte searches: a non-finite float sends the chunk to the pure path, and so does an
``x`` where integers are read (pyarrow reads the integer ``0x10`` as 16).
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
from typing_extensions import Self

from . import _compiled

# pyarrow and pyarrow.csv (an optional extra: grblas-gpu[readers]), imported on the first read
# that may use them, not with the package; None where pyarrow is absent.
_NOT_LOADED: Any = object()
_pa: Any = _NOT_LOADED
_pacsv: Any = _NOT_LOADED


def _load_pyarrow() -> None:
    global _pa, _pacsv
    if _pacsv is not _NOT_LOADED:
        return
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:  # pragma: no cover - exercised where pyarrow is absent
        pa = pacsv = None
    _pa, _pacsv = pa, pacsv

__all__ = ["CHUNK_BYTES", "FAST", "Progress", "ByteReader", "Chunk", "Data", "LineMap", "as_buffer", "fast_available",
           "fast_columns"]

#: Bytes per chunk (whole lines); tests make it small to cross chunk boundaries.
CHUNK_BYTES = 1 << 26
#: Use pyarrow where it is installed (tests set False to force the pure path).  The
#: environment variable ``GRBLAS_GPU_PURE_READERS=1`` does the same.
FAST = True
#: Let pyarrow parse one chunk on several threads.
THREADS = True

Progress = Callable[[int, int | None], Any] | bool | None


def fast_allowed() -> bool:
    """False where FAST or the variable turned the fast libraries off."""
    return FAST and os.environ.get("GRBLAS_GPU_PURE_READERS", "") != "1"


def compiled_parser() -> bool:
    """True when chunks go to the compiled parser (built, and no switch turned it or the fast
    libraries off)."""
    return fast_allowed() and _compiled.available()


def fast_available() -> bool:
    """True when chunks go to pyarrow first (installed, and neither FAST nor the variable turned it off)."""
    if not fast_allowed():
        return False
    _load_pyarrow()
    return _pacsv is not None


# ----------------------------------------------------------------------------- the file


def _stderr_progress(name: str) -> Callable[[int, int | None], None]:
    def report(done: int, total: int | None) -> None:
        of = f" of {total / 1e6:.1f} MB ({100 * done / total:.0f}%)" if total else " MB"
        print(f"grblas_gpu.io: {name}: {done / 1e6:.1f}{of}", file=sys.stderr, flush=True)

    return report


class ByteReader:
    """A path (``.gz`` decompressed), a binary or a text stream, read as bytes.

    ``readline`` serves the header; :meth:`chunks` the rest.  ``line`` is the number of
    lines consumed so far (the next line is ``line + 1``).  Use as a context manager.
    """

    def __init__(self, source: Any) -> None:
        self.total: int | None = None
        #: The file's path where it is a plain file (not a stream, not ``.gz``).
        self.path: str | None = None
        self._close = False
        self._f: IO[bytes] | gzip.GzipFile
        if hasattr(source, "read"):
            self.name = str(getattr(source, "name", "<stream>"))
            self._f = _binary_stream(source)
        else:
            path = Path(os.fspath(source))
            self.name = os.fspath(source)
            self.path = None if path.suffix == ".gz" else self.name
            if path.suffix == ".gz":
                self._f = gzip.open(path, "rb")  # noqa: SIM115 - closed by __exit__
            else:
                self._f = open(path, "rb")  # noqa: SIM115 - closed by __exit__
                self.total = os.fstat(self._f.fileno()).st_size
            self._close = True
        self.line = 0
        self.done = 0
        self._pending = b""
        self._mapped: mmap.mmap | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._mapped is not None:
            try:
                self._mapped.close()
            except BufferError:  # a chunk's memory is still referenced: closed when it goes
                pass
        if self._close:
            self._f.close()

    def readline(self) -> bytes:
        """The next line (with its line break), b"" at the end."""
        if self._pending:
            end = self._pending.find(b"\n")
            if end >= 0:
                line, self._pending = self._pending[: end + 1], self._pending[end + 1 :]
            else:
                line, self._pending = self._pending + self._f.readline(), b""
        else:
            line = self._f.readline()
        self.done += len(line)
        if line:
            self.line += 1
        return line

    def unread(self, line: bytes) -> None:
        """Give back the line just read: :meth:`chunks` starts with it."""
        self._pending = line + self._pending
        self.done -= len(line)
        self.line -= 1

    def chunks(self, progress: Progress = None, size: int | None = None) -> Iterator[tuple[Data, int, int | None]]:
        """Yield ``(data, first_line, line_count)``: the rest of the file in chunks of whole lines.

        Where the compiled parser is on, a mapped chunk's lines are not counted first
        (``line_count`` None): the parser counts them as it reads and leaves the count in
        ``data.lines``; a chunk it did not read is counted after it was used.
        """
        report = _stderr_progress(self.name) if progress is True else (progress or None)
        size = size or CHUNK_BYTES
        pending, self._pending = self._pending, b""
        mapped = self._map()
        if mapped is not None:  # the file's pages themselves, not a copy read into memory
            yield from self._mapped_chunks(mapped, size, report)
            return
        if pending and self.total is not None:  # a file of ours: read the line again, not copy the chunk
            self._f.seek(self.done)
            pending = b""
        while True:
            block = self._f.read(max(size - len(pending), 1))
            if pending:
                block, pending = pending + block, b""
            if block and not block.endswith(b"\n"):
                block += self._f.readline()  # finish the last line
            if not block:
                return
            first = self.line + 1
            count = count_newlines(block) + (not block.endswith(b"\n"))
            self.line += count
            self.done += len(block)
            yield block, first, count
            if report is not None:
                report(self.done, self.total)


    def rest(self) -> memoryview | None:
        """The rest of a plain file of at most one chunk, mapped (None otherwise)."""
        if self.path is None or self.total is None or self.total - self.done > CHUNK_BYTES or self._pending:
            return None
        mapped = self._map()
        return None if mapped is None else memoryview(mapped)[self.done :]

    def skip_rest(self, lines: int, progress: Progress = None) -> None:
        """Count the rest of the file, ``lines`` lines, as read (it was parsed elsewhere)."""
        assert self.total is not None
        self.line += lines
        self.done = self.total
        report = _stderr_progress(self.name) if progress is True else (progress or None)
        if report is not None:
            report(self.done, self.total)

    def _map(self) -> mmap.mmap | None:
        """The file mapped into memory, read-only (None for a stream, a ``.gz`` file, an empty
        file or where the system refuses)."""
        if self.total is None or self.total <= self.done or not MAP_FILES:
            return None
        if self._mapped is not None:
            return self._mapped
        try:
            self._mapped = mmap.mmap(self._f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # pragma: no cover - a file that cannot be mapped is read
            return None
        return self._mapped

    def _mapped_chunks(self, mapped: mmap.mmap, size: int,
                       report: Callable[[int, int | None], Any] | None) -> Iterator[tuple[Data, int, int | None]]:
        end_of_file = len(mapped)
        start = self.done
        while start < end_of_file:
            end = min(start + size, end_of_file)
            if end < end_of_file and mapped[end - 1] != 10:  # finish the last line
                newline = mapped.find(b"\n", end)
                end = end_of_file if newline < 0 else newline + 1
            chunk = Chunk(mapped, start, end)
            first = self.line + 1
            count = None if compiled_parser() else line_count_of(chunk)
            self.done = end
            yield chunk, first, count
            if count is None:
                count = chunk.lines if chunk.lines is not None else line_count_of(chunk)
            self.line += count
            if report is not None:
                report(self.done, self.total)
            start = end


class Chunk:
    """Lines ``[start, end)`` of a file mapped into memory, with the few operations of
    ``bytes`` the readers use (a search, ``decode``, ``isspace``); :attr:`view` is the
    memory itself, for NumPy and pyarrow (no copy)."""

    __slots__ = ("mapped", "start", "end", "view", "lines")

    def __init__(self, mapped: mmap.mmap, start: int, end: int) -> None:
        self.mapped, self.start, self.end = mapped, start, end
        self.view = memoryview(mapped)[start:end]
        #: The number of lines, where a parser counted them (None until then).
        self.lines: int | None = None

    def __len__(self) -> int:
        return self.end - self.start

    def __contains__(self, sub: bytes) -> bool:
        return self.mapped.find(sub, self.start, self.end) >= 0

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        """The text (a copy)."""
        return str(self.view, encoding, errors)

    def isspace(self) -> bool:
        """True when every byte is whitespace (and there is one), as ``bytes.isspace``."""
        return len(self) > 0 and _NOT_SPACE.search(self.mapped, self.start, self.end) is None  # type: ignore[call-overload]


_NOT_SPACE = re.compile(rb"[^ \t\n\r\f\v]")
#: Map files into memory rather than read them (tests turn it off to cover the reading path).
MAP_FILES = True
#: A chunk's data: bytes, or lines of a mapped file.
Data = bytes | Chunk


def as_buffer(data: Data) -> Any:
    """``data`` as an object with the buffer protocol (the memory itself for a :class:`Chunk`)."""
    return data.view if isinstance(data, Chunk) else data


def line_count_of(data: Data) -> int:
    """The number of lines of ``data`` (a last one without a line break counted)."""
    buffer = as_buffer(data)
    return count_newlines(buffer) + (len(buffer) > 0 and buffer[-1] != 10)


def count_newlines(data: Any) -> int:
    """The number of ``\\n`` bytes in ``data``: by the compiled parser's ``memchr`` loop where it
    is built, else NumPy over 1 MiB slices (a quarter of the time of ``bytes.count`` here, with no
    temporary larger than a slice)."""
    if compiled_parser():
        return int(_compiled.count_newlines(data))
    b = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    return sum(int(np.count_nonzero(b[i : i + step] == 10)) for i in range(0, len(b), step))


def _binary_stream(source: Any) -> IO[bytes]:
    probe = source.read(0)
    if isinstance(probe, bytes):
        return source  # type: ignore[no-any-return]
    return io.BytesIO(source.read().encode("utf-8", "surrogateescape"))


# ----------------------------------------------------------------------------- line numbers


@dataclass
class LineSpan:
    """The lines of one chunk's records: ``first + k`` for record ``k``, or ``exact[k]``."""

    start: int  # index of the chunk's first record among all records
    count: int
    first: int
    exact: np.ndarray | None = None

    def line(self, k: int) -> int:
        """The line of record ``k`` of this chunk."""
        return int(self.exact[k]) if self.exact is not None else self.first + k


class LineMap:
    """Maps a record's index (over all chunks) to its 1-based line in the file."""

    def __init__(self) -> None:
        self.spans: list[LineSpan] = []
        self.count = 0

    def add(self, count: int, first: int, exact: np.ndarray | None) -> LineSpan:
        """Append a chunk of ``count`` records; return its span."""
        span = LineSpan(self.count, count, first, exact)
        self.spans.append(span)
        self.count += count
        return span

    def line(self, i: int) -> int:
        """The line of record ``i``."""
        starts = [s.start for s in self.spans]
        k = int(np.searchsorted(starts, i, side="right")) - 1
        span = self.spans[k]
        return span.line(i - span.start)


def nonempty_lines(data: Data, first: int) -> np.ndarray:
    """The 1-based numbers of the lines of ``data`` that hold anything (pyarrow skips empty ones)."""
    b = np.frombuffer(as_buffer(data), dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if len(b) and b[-1] != 10:
        ends = np.append(ends, len(b))
    starts = np.concatenate(([0], ends[:-1] + 1))
    return np.flatnonzero(ends > starts).astype(np.int64) + first


# ----------------------------------------------------------------------------- pyarrow


def fast_columns(data: Data, kinds: Sequence[str], delimiter: str) -> list[np.ndarray] | None:
    """``data`` parsed by pyarrow into one array per kind (``"int"`` -> int64, ``"float"`` -> float64).

    None where pyarrow is off, rejects the chunk, or is unsure (a non-finite float: the pure
    path tells an allowed ``inf`` from an overflowing literal).
    """
    if not fast_available() or not data or data.isspace():
        return None
    if "int" in kinds and (b"x" in data or b"X" in data):
        return None  # pyarrow reads 0x10 as 16; the formats have no hexadecimal
    names = [f"c{j}" for j in range(len(kinds))]
    types = {n: (_pa.int64() if k == "int" else _pa.float64()) for n, k in zip(names, kinds)}
    try:
        table = _pacsv.read_csv(
            _pa.py_buffer(as_buffer(data)),
            read_options=_pacsv.ReadOptions(column_names=names, use_threads=THREADS, block_size=1 << 22),
            parse_options=_pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False,
                newlines_in_values=False, ignore_empty_lines=True,
            ),
            convert_options=_pacsv.ConvertOptions(
                column_types=types, null_values=[], true_values=[], false_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )
    except (_pa.ArrowInvalid, _pa.ArrowException, ValueError):
        return None
    columns = [table.column(j).to_numpy() for j in range(len(kinds))]
    for col, kind in zip(columns, kinds):
        if kind == "float" and not np.isfinite(col).all():
            return None
    return columns


def pick_delimiter(data: Data, delimiter: str | None) -> str | None:
    """The one-byte separator of ``data`` for pyarrow, or None when it mixes spaces and tabs."""
    if delimiter is not None and not delimiter.isspace():
        return delimiter if len(delimiter.encode()) == 1 else None
    tab, space = b"\t" in data, b" " in data
    if tab and space:
        return None
    return "\t" if tab else " "
