"""Errors raised by the readers: a malformed or unsupported file."""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidValue, NotImplementedException

__all__ = ["FileFormatError", "UnsupportedFormatError"]


class FileFormatError(InvalidValue):
    """A file does not follow its format.

    The message names the file, the 1-based line and what is wrong, e.g.
    ``graph.mtx, line 7: expected 3 values, found 2``.  The parts are also
    attributes: ``path`` (the file's name, or ``"<stream>"``), ``line`` (1-based,
    or None when no single line is at fault) and ``reason``.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.path = path
        self.line = line
        where = path if path is not None else "<stream>"
        if line is not None:
            where = f"{where}, line {line}"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.path, self.line))


class UnsupportedFormatError(FileFormatError, NotImplementedException):
    """A valid file that asks for something grblas_gpu does not have (complex values, hermitian).

    Caught by ``except FileFormatError`` and by ``except NotImplementedError`` alike.
    """
