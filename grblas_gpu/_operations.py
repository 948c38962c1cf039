"""The seam between the floors of the core: the operations the objects' methods and the executor
call, and the object classes the executor makes results of, each bound by its own module as it
loads.

The floors, bottom up: the expressions and the executor (:mod:`.expressions`), the objects
(:mod:`.scalar`, :mod:`.collection`, :mod:`.matrix`, :mod:`.vector`), the operations
(:mod:`.ops`, and python-graphblas's scalar and broadcast forms), then the public namespace.
A module imports only from its own floor and those below (``tests/test_import_layers.py``
checks it).  Yet an object's method builds an operation's expression (``A.mxv(u)``) and the
executor runs an assign and makes a Matrix, Vector or Scalar result, and the operators and
infix (below the objects) call an operator on objects (``unary.abs(v)``) or broadcast
(``v | A``): those calls go upwards through the two tables here, the one late-binding
mechanism of the core, :data:`operations` and :data:`result_types`, which the upper
modules fill when they load (``grblas_gpu/__init__`` loads them all before anything runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Operations", "ResultTypes", "Evaluator", "operations", "result_types", "evaluators", "bind_operations",
           "bind_result_type", "bind_evaluator"]


class Operations:
    """The operations called from below their floor, by name (each one's module documents it)."""

    # ops.indexing
    assign: Callable[..., Any]
    extract_expr: Callable[..., Any]
    # ops.multiply (mxm planned in ops.mxm)
    mxm_expr: Callable[..., Any]
    mxv_expr: Callable[..., Any]
    vxm_expr: Callable[..., Any]
    transposed_mxv_expr: Callable[..., Any]
    inner_expr: Callable[..., Any]
    # ops.reduction
    reduce_rows_expr: Callable[..., Any]
    reduce_scalar_expr: Callable[..., Any]
    # ops.structural
    kronecker_expr: Callable[..., Any]
    matrix_diag: Callable[..., Any]
    vector_diag: Callable[..., Any]
    transpose_csr: Callable[..., Any]
    # python-graphblas's forms: operations on Scalars, broadcasts of a Vector over a Matrix,
    # an operator called on objects (``unary.abs(v)``, from the operators; in operator_calls)
    # and infix on Scalars (``s + 1``, from infix; in _scalar_ops)
    call_operator: Callable[..., Any]
    scalar_infix: Callable[..., Any]
    scalar_ewise: Callable[..., Any]
    scalar_default: Callable[..., Any]
    scalar_apply: Callable[..., Any]
    broadcast_ewise: Callable[..., Any]
    outer_expr: Callable[..., Any]

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the operation {name} is not bound: import grblas_gpu (the package binds it as it loads)")


class ResultTypes:
    """The object classes by kind, for the executor's results."""

    Matrix: type[Any]
    Vector: type[Any]
    Scalar: type[Any]

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"{name} is not bound: import grblas_gpu (the package binds it as it loads)")

    def of(self, kind: str) -> type[Any]:
        """The class of objects of ``kind`` (``"Matrix"``, ``"Vector"`` or ``"Scalar"``)."""
        return getattr(self, kind)  # type: ignore[no-any-return]


operations = Operations()
"""The operations, bound by their modules (:func:`bind_operations`)."""

result_types = ResultTypes()
"""The object classes, bound by their modules (:func:`bind_result_type`)."""


def bind_operations(**functions: Callable[..., Any]) -> None:
    """Bind each of ``functions`` (by its name in :class:`Operations`)."""
    for name, fn in functions.items():
        if name not in Operations.__annotations__:
            raise LookupError(f"{name} is not an operation of the table (see Operations)")
        setattr(operations, name, fn)


def bind_result_type(cls: type) -> type:
    """Bind ``cls`` as the class of the results of its kind (its name); returns it."""
    kind = cls.__name__
    if kind not in ResultTypes.__annotations__:
        raise LookupError(f"{kind} is not an object kind (Matrix, Vector or Scalar)")
    setattr(result_types, kind, cls)
    return cls


@dataclass(frozen=True, slots=True)
class Evaluator:
    """How the executor runs the expressions of one operation (their ``method``): ``compute``
    (expression, mask hint) -> a new result; ``write`` (expression, Output) -> True where it
    wrote the output in the operation's own pass (None: never); ``reported`` (expression,
    changed) after a write reported its changes (None: nothing to do)."""

    compute: Callable[[Any, Any], Any]
    write: Callable[[Any, Any], bool] | None = None
    reported: Callable[[Any, Any], None] | None = None


evaluators: dict[str, Evaluator] = {}
"""The operations' evaluators by expression ``method``, bound by their modules (:func:`bind_evaluator`)."""


def bind_evaluator(method: str, compute: Callable[[Any, Any], Any], write: Callable[[Any, Any], bool] | None = None,
                   reported: Callable[[Any, Any], None] | None = None) -> None:
    """Bind the :class:`Evaluator` of the expressions whose ``method`` is ``method`` (once)."""
    if method in evaluators:
        raise LookupError(f"the expressions {method!r} have an evaluator already")
    evaluators[method] = Evaluator(compute, write, reported)
