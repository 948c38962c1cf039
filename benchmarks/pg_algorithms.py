"""graphblas-algorithms (NetworkX algorithms written on python-graphblas) run on grblas_gpu
through the name-only shim of :mod:`benchmarks.pg_api`, against python-graphblas itself.

    python -m benchmarks.pg_algorithms [--json out.json] [--own] [--networkx]

Needs ``graphblas-algorithms`` and python-graphblas installed (a measurement, not a
dependency). Each function graphblas-algorithms gives networkx (its ``Dispatcher``) is called
through ``networkx`` with ``backend="graphblas"`` on a few small graphs, trying the argument
forms below in turn; the first form python-graphblas answers is the one compared. A call
counts as passing where grblas_gpu gives the same result; failures are grouped by the first
error (``.ss`` is SuiteSparse's namespace, out of scope here).

``--own`` also runs graphblas-algorithms' own tests (its installed package) on both libraries,
with the same shim. ``--networkx`` also runs networkx's test modules of those functions with
``NETWORKX_BACKEND_PRIORITY=graphblas`` on both libraries (pytest's ``importlib`` import mode,
so that the shim stays first on the path) and counts the tests that call into
graphblas-algorithms and pass with python-graphblas, and how many of them pass here."""

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


NX_MODULES = (
    "tests/test_boundary.py", "centrality/tests/test_degree_centrality.py",
    "centrality/tests/test_eigenvector_centrality.py", "centrality/tests/test_katz_centrality.py",
    "tests/test_cluster.py", "community/tests/test_quality.py", "components/tests/test_connected.py",
    "components/tests/test_weakly_connected.py", "tests/test_core.py", "tests/test_cuts.py", "tests/test_dag.py",
    "tests/test_dominating.py", "tests/test_efficiency.py", "tests/test_isolate.py",
    "link_analysis/tests/test_pagerank.py", "link_analysis/tests/test_hits.py",
    "tests/test_lowest_common_ancestors.py", "operators/tests/test_binary.py", "operators/tests/test_unary.py",
    "tests/test_reciprocity.py", "tests/test_regular.py", "shortest_paths/tests/test_dense.py",
    "shortest_paths/tests/test_generic.py", "shortest_paths/tests/test_unweighted.py",
    "shortest_paths/tests/test_weighted.py", "tests/test_simple_paths.py", "tests/test_smetric.py",
    "tests/test_structuralholes.py", "tests/test_tournament.py", "traversal/tests/test_bfs.py",
    "isomorphism/tests/test_isomorphism.py", "tests/test_triads.py",
)

REACH_PLUGIN = '''
import json, os
import pytest
from graphblas_algorithms.interface import Dispatcher

current = [None]
reached = set()


def _wrap(f):
    def inner(*args, **kwargs):
        reached.add(current[0])
        return f(*args, **kwargs)
    return staticmethod(inner)


for _n in dir(Dispatcher):
    _f = getattr(Dispatcher, _n)
    if not _n.startswith("_") and callable(_f) and not _n.startswith("convert"):
        setattr(Dispatcher, _n, _wrap(_f))


def pytest_runtest_setup(item):
    current[0] = item.nodeid


def pytest_sessionfinish(session):
    with open(os.environ["PG_REACHED"], "w") as fh:
        json.dump(sorted(x for x in reached if x), fh)
'''


def run_networkx(pythonpath: str, work: Path, label: str) -> tuple[dict[str, str], set[str]]:
    """Each networkx test's outcome and the tests that reached graphblas-algorithms."""
    import xml.etree.ElementTree as ET

    import networkx

    base = Path(networkx.__file__).parent / "algorithms"
    (work / "pg_reach.py").write_text(REACH_PLUGIN)
    xml, reached = work / f"{label}.xml", work / f"{label}.json"
    env = {**os.environ, "PYTHONPATH": f"{work}:{pythonpath}" if pythonpath else str(work),
           "NETWORKX_BACKEND_PRIORITY": "graphblas", "PG_REACHED": str(reached)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "pg_reach",
           "--import-mode=importlib", f"--junitxml={xml}", *(str(base / m) for m in NX_MODULES)]
    subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=1800, check=False)
    outcomes = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        outcome = "passed" if bad is None else "failed: " + (bad.get("message") or "").split("\n")[0][:120]
        outcomes[_junit_key(case.get("classname"), case.get("name"))] = outcome
    return outcomes, {_node_key(x) for x in json.loads(reached.read_text())}


def _junit_key(classname: str, name: str) -> str:
    """``test_module::Class::name`` from junit's dotted class name (path, module, classes)."""
    parts = classname.split(".")
    at = max(i for i, p in enumerate(parts) if p.startswith("test_"))
    return "::".join([parts[at - 1] + "/" + parts[at], *parts[at + 1:], name])


def _node_key(nodeid: str) -> str:
    """The same key from a pytest node id (``path/tests/test_module.py::Class::name``)."""
    path, _, rest = nodeid.partition("::")
    folder, module = path.removesuffix(".py").split("/")[-2:]
    return f"{folder}/{module}::{rest}"


def compare_networkx() -> dict[str, int]:
    """networkx's tests that reach graphblas-algorithms: passing with python-graphblas, and here."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        theirs, reached = run_networkx("", work, "pg")
        ours, _ = run_networkx(f"{write_shim(work / 'ours')}:{ROOT}", work, "ours")
    keys = reached & set(theirs)
    good = {k for k in keys if theirs[k] == "passed"}
    n = {"tests": len(theirs), "reach the backend": len(keys), "pass with python-graphblas": len(good),
         "pass here": sum(ours.get(k) == "passed" for k in good)}
    print("networkx's tests:", n)
    causes = Counter(_first_cause(ours[k]) for k in good if ours.get(k) != "passed")
    for text, count in causes.most_common():
        print(f"  {count:4}  {text}")
    return n


def _first_cause(outcome: str) -> str:
    """A failure's message with numbers and names of graphs left out, to group alike failures."""
    if "attribute 'ss'" in outcome:
        return ".ss (SuiteSparse's namespace)"
    return outcome.removeprefix("failed: ")[:90]


def run_own_tests(pythonpath: str, work: Path) -> str:
    """pytest's summary line of graphblas-algorithms' own tests under ``pythonpath``."""
    import graphblas_algorithms

    env = {**os.environ, "PYTHONPATH": pythonpath}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           "--import-mode=importlib", "-rf", str(Path(graphblas_algorithms.__file__).parent)]
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1200, check=False)
    lines = done.stdout.strip().splitlines()
    failed = [line.split("::")[-1] for line in lines if line.startswith("FAILED")]
    return f"{lines[-1] if lines else done.stderr[-300:]}; failed: {', '.join(failed) or 'none'}"


def compare_own_tests() -> None:
    """graphblas-algorithms' own tests with python-graphblas, then with the shim over grblas_gpu."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("its own tests, python-graphblas:", run_own_tests("", work))
        print("its own tests, grblas_gpu:      ", run_own_tests(f"{write_shim(work / 'ours')}:{ROOT}", work))


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
    p.add_argument("--networkx", action="store_true", help="also run networkx's test modules")
    p.add_argument("--own", action="store_true", help="also run graphblas-algorithms' own tests")
    args = p.parse_args(argv)
    if args.own:
        compare_own_tests()
    if args.networkx:
        compare_networkx()
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
