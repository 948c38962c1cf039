"""graphblas-algorithms (NetworkX algorithms written on python-graphblas) run on grblas_gpu
through the name-only shim of :mod:`benchmarks.pg_api`, against python-graphblas itself.

    python -m benchmarks.pg_algorithms [--json out.json]

Needs ``graphblas-algorithms`` and python-graphblas installed (a measurement, not a
dependency). Each function graphblas-algorithms gives networkx (its ``Dispatcher``) is called
through ``networkx`` with ``backend="graphblas"`` on a few small graphs, trying the argument
forms below in turn; the first form python-graphblas answers is the one compared. A call
counts as passing where grblas_gpu gives the same result; failures are grouped by the first
error (``.ss`` is SuiteSparse's namespace, out of scope here)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.pg_api import ROOT, write_shim

RUNNER = r'''
import json, math, sys, warnings
warnings.simplefilter("ignore")
import networkx as nx
from graphblas_algorithms.interface import Dispatcher

GRAPHS = {"karate": nx.karate_club_graph(), "path": nx.path_graph(6),
          "digraph": nx.gnp_random_graph(12, 0.3, seed=3, directed=True)}
for G in GRAPHS.values():
    for u, v in G.edges:
        G[u][v]["weight"] = 1 + (u * 7 + v) % 5
FORMS = ((), (0,), (0, 3), ([0, 1, 2],), ([0, 1, 2], [3, 4, 5]), (2,))


def plain(x):
    if isinstance(x, float):
        return None if math.isnan(x) else round(x, 6)
    if isinstance(x, dict) or hasattr(x, "items"):
        return sorted((str(k), plain(v)) for k, v in dict(x.items()).items())
    if isinstance(x, (list, tuple, set, frozenset)) or type(x).__name__ in ("generator", "NodeSet"):
        items = [plain(y) for y in x]
        return sorted(items, key=repr) if isinstance(x, (set, frozenset)) or type(x).__name__ == "NodeSet" else items
    if hasattr(x, "todense"):
        return plain(x.todense().tolist())
    if hasattr(x, "tolist"):
        return plain(x.tolist())
    if isinstance(x, nx.Graph):
        return sorted(map(repr, x.edges))
    return x if isinstance(x, (int, str, bool, type(None))) else repr(type(x).__name__)


names = sorted(n for n in dir(Dispatcher) if not n.startswith("_") and callable(getattr(Dispatcher, n))
               and hasattr(nx, n))
forms = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
out = {}
for name in names:
    for gname, G in GRAPHS.items():
        key = f"{name}[{gname}]"
        tries = [forms[key]] if key in forms else range(len(FORMS))
        for i in tries:
            if i is None:
                continue
            try:
                r = getattr(nx, name)(G, *FORMS[i], backend="graphblas")
                out[key] = [i, "ok", plain(r)]
                break
            except Exception as e:
                out[key] = [i, "error", f"{type(e).__name__}: {str(e)[:160]}"]
print(json.dumps(out))
'''


def run(pythonpath: str, forms: dict[str, int] | None = None) -> dict[str, list]:
    """Every call's (argument form, outcome, result or error) under ``pythonpath``."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(forms or {})], env=env,
                          capture_output=True, text=True, timeout=1200, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Call every dispatched function with both libraries; print and return the comparison."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    theirs = run("")
    forms = {k: (v[0] if v[1] == "ok" else None) for k, v in theirs.items()}
    with tempfile.TemporaryDirectory() as tmp:
        ours = run(f"{write_shim(Path(tmp))}:{ROOT}", forms)
    rows = {}
    for key, (_, outcome, value) in theirs.items():
        if outcome != "ok":
            continue
        got = ours.get(key)
        if got is None:
            continue
        if got[1] == "ok":
            rows[key] = "pass" if got[2] == value else "different result"
        else:
            rows[key] = ".ss" if "attribute 'ss'" in got[2] else got[2].split(":")[0] + ": " + got[2][:100]
    n = Counter("pass" if v == "pass" else (".ss" if v == ".ss" else "fail") for v in rows.values())
    print(f"calls python-graphblas answers: {len(rows)}; same result here: {n['pass']}; "
          f"stopped by .ss: {n['.ss']}; other failures: {n['fail']}")
    for key, v in sorted(rows.items()):
        if v not in ("pass", ".ss"):
            print(f"  {key}: {v}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
