"""HTML views of Vectors and Matrices for notebooks."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

MAX_SIDE = 20


def _cell(v: Any) -> str:
    return html.escape(repr(v.item() if isinstance(v, np.generic) else v))


def vector_html(v: Any) -> str:
    """A header line and a one-row table of the first positions of a Vector."""
    n = min(v.size, MAX_SIDE)
    idx, vals = v[0:n].new().to_coo() if n else (np.zeros(0, int), np.zeros(0))
    shown = dict(zip(idx.tolist(), vals.tolist()))
    head = "".join(f"<th>{i}</th>" for i in range(n))
    row = "".join(f"<td>{_cell(shown[i]) if i in shown else ''}</td>" for i in range(n))
    more = "<p>…</p>" if v.size > n else ""
    return (f"<div><b>{html.escape(v._repr_header())}</b><table><tr>{head}</tr><tr>{row}</tr></table>{more}</div>")


def matrix_html(A: Any) -> str:
    """A header line and a table of the top-left corner of a Matrix."""
    nr, nc = min(A.nrows, MAX_SIDE), min(A.ncols, MAX_SIDE)
    r, c, vals = A[0:nr, 0:nc].new().to_coo() if nr and nc else (np.zeros(0, int),) * 3
    shown = {(i, j): x for i, j, x in zip(r.tolist(), c.tolist(), vals.tolist())}
    head = "<tr><th></th>" + "".join(f"<th>{j}</th>" for j in range(nc)) + "</tr>"
    body = "".join(
        f"<tr><th>{i}</th>" + "".join(f"<td>{_cell(shown[i, j]) if (i, j) in shown else ''}</td>"
                                      for j in range(nc)) + "</tr>"
        for i in range(nr))
    more = "<p>…</p>" if (A.nrows > nr or A.ncols > nc) else ""
    return f"<div><b>{html.escape(A._repr_header())}</b><table>{head}{body}</table>{more}</div>"
