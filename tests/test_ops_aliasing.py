"""An object used as output and as an input (or as the mask) of the same operation.

The spec computes T from the inputs as they were, then writes C: aliasing must not change
the result.  Each case is checked against the model with the inputs copied first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import reference as ref
from conftest import assert_matches, to_gb

import grblas_gpu as gb

I64 = np.dtype(np.int64)


def square(seed: int, n: int = 5) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), (n, n), I64, 0.5, small=True)


def vec(seed: int, n: int = 5) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), (n,), I64, 0.6, small=True)


# name -> (make gb objects from the model, run the aliased operation, the model's result)
CASES: dict[str, tuple[Callable[[ref.Obj, ref.Obj], Any], Callable[[ref.Obj, ref.Obj], ref.Obj]]] = {
    "C = C*C": (
        lambda C, u: C << C.mxm(C, "plus_times"),
        lambda C, u: ref.mxm(C, C, "plus", "times")),
    "C += C*C'": (
        lambda C, u: C(accum=gb.binary.plus) << C.mxm(C.T, "plus_times"),
        lambda C, u: ref.write(C, ref.mxm(C, C.T, "plus", "times"), accum="plus")),
    "C<C> = C*C": (
        lambda C, u: C(C.V) << C.mxm(C, "min_plus"),
        lambda C, u: ref.write(C, ref.mxm(C, C, "min", "plus"), mask=C)),
    "C<!C.S, replace> = C*C": (
        lambda C, u: C(~C.S, replace=True) << C.mxm(C, "plus_pair"),
        lambda C, u: ref.write(C, ref.mxm(C, C, "plus", "pair"), mask=C, structure=True, complement=True,
                               replace=True)),
    "C = C'": (
        lambda C, u: C << C.T,
        lambda C, u: C.T),
    "C<C.S> += C'": (
        lambda C, u: C(C.S, accum=gb.binary.minus) << C.T,
        lambda C, u: ref.write(C, C.T, mask=C, structure=True, accum="minus")),
    "C = C + C'": (
        lambda C, u: C << C.ewise_add(C.T, "minus"),
        lambda C, u: ref.ewise_add(C, C.T, "minus")),
    "C = tril(C)": (
        lambda C, u: C << C.select("tril", 0),
        lambda C, u: ref.select(C, "tril", 0)),
    "C(1:4, 0:3) = C(0:3, 2:5)": (
        lambda C, u: C[1:4, 0:3] << C[0:3, 2:5],
        lambda C, u: ref.assign(C, ref.extract(C, slice(0, 3), slice(2, 5)), (slice(1, 4), slice(0, 3)))),
    "u = C*u": (
        lambda C, u: u << C.mxv(u, "plus_times"),
        lambda C, u: ref.mxv(C, u, "plus", "times")),
    "u<u> min= u*C": (
        lambda C, u: u(u.V, accum=gb.binary.min) << u.vxm(C, "min_plus"),
        lambda C, u: ref.write(u, ref.vxm(u, C, "min", "plus"), mask=u, accum="min")),
    "u<!u.S, replace> = C'*u": (
        lambda C, u: u(~u.S, replace=True) << C.T.mxv(u, "any_pair"),
        lambda C, u: ref.write(u, ref.mxv(C.T, u, "any", "pair"), mask=u, structure=True, complement=True,
                               replace=True)),
    "u = u[perm]": (
        lambda C, u: u << u[[4, 3, 2, 1, 0]],
        lambda C, u: ref.extract(u, [4, 3, 2, 1, 0])),
    "u[0:3] = u[2:5]": (
        lambda C, u: u[0:3] << u[2:5],
        lambda C, u: ref.assign(u, ref.extract(u, slice(2, 5)), ([0, 1, 2],))),
    "u = C(2, :)": (
        lambda C, u: u << C[2, :],
        lambda C, u: ref.Obj(C.values[2], C.present[2])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_aliasing(backend: str, case: str) -> None:
    run, model = CASES[case]
    C0, u0 = square(len(case)), vec(len(case) + 1)
    C, u = to_gb(C0, backend), to_gb(u0, backend)
    run(C, u)
    expected = model(C0.copy(), u0.copy())
    assert_matches(u if expected.values.ndim == 1 else C, expected)


def test_functional_aliasing(backend: str) -> None:
    """C-style calls with the output also an input and the mask."""
    C0 = square(99)
    C = to_gb(C0, backend)
    gb.mxm(C, C, gb.binary.plus, gb.semiring.plus_times, C, C, gb.descriptor.T1)
    assert_matches(C, ref.write(C0, ref.mxm(C0, C0.T, "plus", "times"), mask=C0, accum="plus"))
    u0 = vec(98)
    u = to_gb(u0, backend)
    gb.eWiseMult(u, u, None, gb.binary.times, u, u, gb.descriptor.RS)
    assert_matches(u, ref.write(u0, ref.ewise_mult(u0, u0, "times"), mask=u0, structure=True, replace=True))
