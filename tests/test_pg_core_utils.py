"""``gb.core.utils.output_type`` and ``ensure_type`` as python-graphblas's (graphblas-algorithms
makes its Graphs through them)."""

from __future__ import annotations

from typing import Any

import pytest
from pgcompat import matrix, same


def test_output_type_names_what_an_expression_gives() -> None:
    def snippet(gb: Any) -> Any:
        A = matrix(gb)
        v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=4)
        ot = gb.core.utils.output_type
        return [ot(x).__name__ for x in (A, v, A @ A, v @ A, A.apply(gb.unary.abs), v.reduce(), A[0, :],
                                          A.T, gb.Scalar.from_value(1), 3)]
    same(snippet)


def test_ensure_type_computes_an_expression_of_the_type(backend: str) -> None:
    def snippet(gb: Any) -> Any:
        A = matrix(gb)
        kept = gb.core.utils.ensure_type(A, gb.Matrix) is A
        return kept, gb.core.utils.ensure_type(A @ A, gb.Matrix), gb.core.utils.ensure_type(A[1, :], (gb.Vector,))
    same(snippet, backend)
    import graphblas

    import grblas_gpu

    for lib in (graphblas, grblas_gpu):
        with pytest.raises(TypeError, match="is not of type"):
            lib.core.utils.ensure_type(matrix(lib), lib.Vector)
