"""python-graphblas's options of ``gb.io`` over this package's readers and converters.

``mmread(source, engine)``, ``mmwrite(target, A, engine=)`` (the engine is checked and the file
is read and written by :mod:`.matrixmarket` whatever it names), ``to_networkx(A,
edge_attribute=None)``, ``to_scipy_sparse(v)`` (a Vector as a 1 x n array) and
``from_scipy_sparse(m, dup_op=)``.  Everything else is passed on unchanged.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidValue
from . import interop, matrixmarket
from .errors import FileFormatError

ENGINES = ("auto", "scipy", "fmm", "fast_matrix_market")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise InvalidValue(f"Bad engine value: {engine!r}; use one of {', '.join(ENGINES)} (all read the same "
                           "here: this package has its own Matrix Market reader)")


def mmread(source: Any, engine: str = "auto", *, dup_op: Any = None, spmatrix: Any = None, **kwargs: Any) -> Any:
    """:func:`.matrixmarket.mmread` taking python-graphblas's ``engine`` (checked, otherwise
    unused) and ``spmatrix`` (unused); duplicates raise "Duplicate indices found" unless
    ``dup_op`` combines them."""
    _check_engine(engine)
    try:
        return matrixmarket.mmread(source, dup_op=dup_op, **kwargs)
    except FileFormatError as exc:
        if "duplicate" in exc.reason.lower() and type(exc) is FileFormatError:
            raise FileFormatError(f"Duplicate indices found: {exc.reason}; pass dup_op= to combine them",
                                  exc.path, exc.line) from None
        raise


def mmwrite(target: Any, A: Any, engine: str = "auto", *, comment: str = "", **kwargs: Any) -> None:
    """:func:`.matrixmarket.mmwrite` taking python-graphblas's ``engine`` (checked, otherwise
    unused); a binary file object is written as UTF-8."""
    _check_engine(engine)
    symmetric = kwargs.pop("symmetric", None)
    if hasattr(target, "write") and _is_binary(target):
        import io

        text = io.StringIO()
        matrixmarket.mmwrite(text, A, comment=comment, symmetric=symmetric)
        target.write(text.getvalue().encode())
        return
    matrixmarket.mmwrite(target, A, comment=comment, symmetric=symmetric)


def _is_binary(f: Any) -> bool:
    import io

    return isinstance(f, (io.BufferedIOBase, io.RawIOBase)) or "b" in getattr(f, "mode", "")


def to_networkx(A: Any, edge_attribute: str | None = "weight", **kwargs: Any) -> Any:
    """:func:`.interop.to_networkx`; ``edge_attribute=None`` gives edges without attributes."""
    G = interop.to_networkx(A, weight=edge_attribute if edge_attribute is not None else "weight", **kwargs)
    if edge_attribute is None:
        for _, _, data in G.edges(data=True):
            data.clear()
    return G


def to_scipy_sparse(A: Any, format: str = "csr") -> Any:
    """:func:`.interop.to_scipy_sparse`; a Vector becomes a 1 x size array (size x 1 for
    ``"csc"``), as python-graphblas's."""
    if getattr(A, "kind", None) == "Vector":
        from ..matrix import Matrix

        idx, vals = A.to_coo()
        zeros = [0] * len(idx)
        A = (Matrix.from_coo(idx, zeros, vals, nrows=A.size, ncols=1, dtype=A.dtype) if format == "csc"
             else Matrix.from_coo(zeros, idx, vals, nrows=1, ncols=A.size, dtype=A.dtype))
    return interop.to_scipy_sparse(A, format)


def from_scipy_sparse(m: Any, *, dup_op: Any = None, name: str | None = None, **kwargs: Any) -> Any:
    """:func:`.interop.from_scipy_sparse`; with ``dup_op`` duplicate entries are combined by it
    (without, they are summed, as SciPy does); ``name`` names the Matrix."""
    if dup_op is None:
        made = interop.from_scipy_sparse(m, **kwargs)
    else:
        from ..matrix import Matrix

        coo = m.tocoo()
        made = Matrix.from_coo(coo.row, coo.col, coo.data, nrows=coo.shape[0], ncols=coo.shape[1], dup_op=dup_op,
                               dtype=kwargs.get("dtype"), backend=kwargs.get("backend"))
    if name is not None:
        made.name = name
    return made
