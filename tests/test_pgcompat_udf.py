"""User-defined operators from any pure Python function (several statements, early returns,
lambdas without source as typed at a prompt), compared with python-graphblas's results."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pgcompat import same, vector

pytest.importorskip("numba")  # python-graphblas compiles user-defined operators with numba

# Compiled from text, so inspect cannot read their source: as a lambda typed at a prompt.
_SOURCES = {
    "lambda": "lambda x: x * 3 - 1",
    "conditional lambda": "lambda x: x + 1 if x > 0 else -x",
    "several statements": (
        "def f(x):\n"
        "    t = x * x\n"
        "    if t > 4:\n"
        "        return math.sqrt(t) + 1\n"
        "    s = t - 1\n"
        "    return s / 2\n"),
}
# python-graphblas cannot compile this one (numba has no < for its complex types): checked
# against Python itself.
_MIN_AND = "def f(x):\n    y = min(x, 3.0)\n    return y if x > -3 and x < 6 else 0.0\n"


def _compiled(source: str) -> Any:
    scope: dict[str, Any] = {"math": math}
    if source.startswith("lambda"):
        return eval(source, scope)
    exec(compile(source, "<prompt>", "exec"), scope)  # noqa: S102 - the test's own text
    return scope["f"]


def _register(namespace: Any, func: Any) -> Any:
    """A new operator of ``func`` (lazy: python-graphblas would compile it for every type)."""
    _register.count += 1  # type: ignore[attr-defined]
    name = f"pgcompat_udf_{_register.count}"  # type: ignore[attr-defined]
    namespace.register_new(name, func, lazy=True)
    return getattr(namespace, name)


_register.count = 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", _SOURCES)
def test_unary_from_function_without_source(backend: str, name: str) -> None:
    func = _compiled(_SOURCES[name])
    same(lambda gb: vector(gb).apply(_register(gb.unary, func)), backend)


def test_binary_from_multiline_function(backend: str) -> None:
    def f(x, y):
        if x > y:
            return x - y
        d = y - x
        return d * 2

    same(lambda gb: vector(gb).ewise_mult(vector(gb).apply(gb.binary.plus, right=1), _register(gb.binary, f)),
         backend)


def test_min_and_and_as_python_computes(backend: str) -> None:
    import grblas_gpu as gb

    func = _compiled(_MIN_AND)
    values = [-5.0, -2.0, 0.5, 4.0, 7.0]
    v = gb.Vector.from_coo(range(5), values, backend=backend)
    got = v.apply(gb.unary.register_anonymous(func)).new().to_coo()[1].tolist()
    assert got == [func(x) for x in values]


def test_function_of_non_numbers_is_refused() -> None:
    import grblas_gpu as gb

    with pytest.raises(gb.exceptions.UdfParseError):
        gb.unary.register_anonymous(_compiled("lambda x: [x][0] + str(x)"))["FP64"]


def test_modulo_as_python_computes(backend: str) -> None:
    def force_odd(x):  # python-graphblas's README example
        if x % 2 == 0:
            return x + 1
        return x

    def python_mod(x, y):
        return x % y

    ints = lambda gb: gb.Vector.from_coo([0, 1, 2, 3], [-7, 7, -4, 5])  # noqa: E731
    divisors = lambda gb: gb.Vector.from_coo([0, 1, 2, 3], [3, -3, 2, -2])  # noqa: E731
    same(lambda gb: ints(gb).apply(_register(gb.unary, force_odd)), backend)
    same(lambda gb: ints(gb).ewise_mult(divisors(gb), _register(gb.binary, python_mod)), backend)
    same(lambda gb: ints(gb).apply(gb.unary.numpy.negative).ewise_mult(
        divisors(gb).apply(gb.binary.truediv, right=2), _register(gb.binary, python_mod)), backend)
