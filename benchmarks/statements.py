"""Host time of the statement path alone: ``python -m benchmarks.statements [--calls N]``.

A small product's time on the GPU is mostly the host's: building the expression, checking
the output, choosing the kernel and launching it.  This measures the part of that which
does not depend on the backend, with no GPU needed: the statements run on the NumPy
backend with its SpMV replaced by a stub that returns arrays made beforehand, so what is
timed is the Python between ``<<`` and the kernel call (the GPU backend's own launch costs
come on top).  Each figure is the best of five rounds of ``--calls`` statements, in
microseconds per statement; ``--json`` prints them as one JSON object.  To compare two
trees, export one (``python -m benchmarks.ab --export REV DIR``) and run this file with
``PYTHONPATH`` set to each tree in turn.
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import grblas_gpu as gb
from grblas_gpu import binary, semiring
from grblas_gpu.backends import get_backend
from grblas_gpu.backends.operands import SPMV_RESULT


def _stub_spmv(n: int) -> None:
    """Replace the NumPy backend's SpMV in this process by one that computes nothing: it
    returns the caller's ``out`` (or a values array made here) and a presence array."""
    values, presence = np.ones(n, np.float32), np.zeros(n, np.bool_)
    presence[: n // 2] = True
    levels = np.ones(n, np.int64)

    def spmv(semiring: Any, a: Any, u: Any, vector_first: bool, plan: Any = None, mask: Any = None,
             output: Any = SPMV_RESULT) -> tuple[Any, Any]:
        if output.claim is not None:  # a claiming pull: the entries it added, as (values, presence)
            return levels.copy(), presence.copy()
        return (values if output.out is None else output.out), None

    get_backend("numpy").spmv = spmv


def statements(n: int = 1000) -> dict[str, Callable[[], None]]:
    """The timed statements on ``n``-vertex operands (a random graph of 16 n edges)."""
    rng = np.random.default_rng(3)
    A = gb.Matrix.from_coo(rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n), 1.0, nrows=n, ncols=n,
                           dtype="FP32", dup_op=binary.min, backend="numpy")
    x = gb.Vector.from_dense(np.ones(n, np.float32), backend="numpy")
    y = gb.Vector.from_dense(np.full(n, 2.0, np.float32), backend="numpy")
    w = gb.Vector(gb.FP32, n, backend="numpy")
    levels = gb.Vector.from_coo([0], [0], size=n, dtype=gb.INT64, backend="numpy")
    frontier = levels.dup()
    any_secondi = semiring.any_secondi[gb.INT64]

    def bfs_level() -> None:
        levels(~levels.S, changed=frontier) << frontier.vxm(A, any_secondi)

    return {
        "w << A.mxv(x)": lambda: w.update(A.mxv(x, semiring.plus_times)),
        "BFS level: levels(~levels.S, changed=f) << f.vxm(A)": bfs_level,
        "x.ewise_mult(y).new()": lambda: x.ewise_mult(y, binary.times).new(),
        "x.inner(y).new()": lambda: x.inner(y).new(),
        "x.apply(times, right=2).new()": lambda: x.apply(binary.times, right=2.0).new(),
    }


def measure(calls: int) -> dict[str, float]:
    """Microseconds per statement, the best of five rounds of ``calls`` each."""
    n = 1000
    _stub_spmv(n)
    out = {}
    for name, run in statements(n).items():
        run()  # first use: caches, plans
        out[name] = round(min(timeit.repeat(run, number=calls, repeat=5)) / calls * 1e6, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the host time of each statement."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.statements", description=__doc__)
    parser.add_argument("--calls", type=int, default=5000, help="statements per round")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = measure(args.calls)
    if args.json:
        print(json.dumps(figures))
    else:
        for name, us in figures.items():
            print(f"{us:8.2f} us  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
