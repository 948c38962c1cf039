"""The code blocks of python-graphblas's user guide run on grblas_gpu through the name-only
shim of :mod:`benchmarks.pg_api`, against python-graphblas itself.

    python -m benchmarks.pg_idioms PATH/docs/user_guide PATH/README.md [--json out.json]

PATH is a checkout of python-graphblas (nothing is fetched here). Every ``.. code-block:: python``
(or Markdown python fence, or a notebook's code cell: ``PATH/notebooks/*.ipynb``) of a page is one idiom; the blocks of a page run in order in one namespace (a block may use
what an earlier one made), on each library in its own process, after a preamble that binds
``gb``, ``np``, the operator namespaces and the objects the guide's fragments use without
defining them (``A``, ``M``, ``v``, ...; see ``PREAMBLE``). A block counts where
python-graphblas runs it; it passes here where it runs and every name then holds
python-graphblas's value (Vectors, Matrices and Scalars compared by type, shape and entries;
python-graphblas runs twice, and a name whose value differs between its two runs, such as a
random drawing layout, is not compared)."""

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
import json, math, re, sys, textwrap, warnings
from pathlib import Path
warnings.simplefilter("ignore")
import numpy as np
import graphblas as gb


def blocks(text):
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":  # Markdown
            j = lines.index("```", i + 1) if "```" in lines[i + 1:] else len(lines)
            code = "\n".join(lines[i + 1:j])
            if ">>>" in code:
                code = "\n".join(l[4:] for l in code.splitlines() if l.startswith((">>> ", "... ")))
            yield code
            i = j + 1
        elif lines[i].strip() == ".. code-block:: python":
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                body.append(lines[i])
                i += 1
            code = textwrap.dedent("\n".join(body))
            if ">>>" in code:
                code = "\n".join(l[4:] for l in code.splitlines() if l.startswith((">>> ", "... ")))
            yield code
        else:
            i += 1


def cells(path):
    """A notebook's code cells (IPython's ``%``/``!`` lines left out)."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            yield "\n".join(l for l in "".join(cell["source"]).splitlines() if not l.lstrip().startswith(("%", "!")))


def plain(x):
    try:
        return _plain(x)
    except Exception as e:
        return f"unreadable: {type(e).__name__}"


def _plain(x):
    if isinstance(x, type) or callable(x) and not hasattr(x, "nvals"):
        return None
    kind = type(x).__name__
    if hasattr(x, "nvals") and hasattr(x, "to_coo") and "Expression" not in kind:
        parts = x.to_coo()
        coords = [np.asarray(p).astype(np.int64).tolist() for p in parts[:-1]]
        vals = [plain(v) for v in np.asarray(parts[-1]).tolist()]
        return ["collection", list(x.shape), str(x.dtype), sorted(map(list, zip(*coords, vals)))]
    if hasattr(x, "is_empty") and hasattr(x, "value") and "Expression" not in kind:
        return ["scalar", str(x.dtype), plain(x.value)]
    if isinstance(x, float):
        return "nan" if math.isnan(x) else round(x, 9)
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, np.generic):
        return plain(x.item())
    if isinstance(x, np.ndarray):
        return ["array", plain(x.tolist())]
    if isinstance(x, (list, tuple)):
        return [plain(y) for y in x]
    if isinstance(x, dict):
        return sorted([str(k), plain(v)] for k, v in x.items())
    return None  # not compared (operators, expressions, modules, functions)


# The names the guide's fragments use without defining them, bound alike in both libraries.
PREAMBLE = """
from graphblas import Matrix, Vector, Scalar, agg, binary, dtypes, indexunary, monoid, op, select, semiring, unary
A = Matrix.from_coo([0, 0, 1, 1, 2, 3], [1, 2, 2, 3, 3, 0], [2., 5., 1.5, 4.25, 0.5, 3.], nrows=4, ncols=4)
B = A.T.new()
C = Matrix(float, 4, 4)
D = Matrix.from_coo([0, 1, 2, 3], [0, 1, 2, 3], [1., 2., 3., 4.])
M = Matrix.from_coo([0, 1, 2, 3], [1, 2, 3, 0], [True, False, True, True], nrows=4, ncols=4)
v = Vector.from_coo([0, 1, 3], [10., 20., 40.], size=4)
w = Vector(float, 4)
u = Vector.from_coo([1, 2], [5., -3.], size=4)
m = Vector.from_coo([0, 2], [True, True], size=4)
s = Scalar.from_value(5.)
mask = Matrix.from_coo([0, 1, 3], [1, 2, 0], [True, True, False], nrows=4, ncols=4)
accum, binaryop, unaryop = binary.plus, binary.times, unary.ainv
rows, cols, row_index, col_index = [0, 2], [1, 3], 1, 2
"""

out = {}
pages = []
for arg in sys.argv[1:]:
    path = Path(arg)
    pages += sorted(path.glob("*.rst")) if path.is_dir() else [path]
for page in pages:
    ns = {"gb": gb, "np": np}
    exec(PREAMBLE, ns)
    for i, code in enumerate(cells(page) if page.suffix == ".ipynb" else blocks(page.read_text())):
        key = f"{page.stem}#{i + 1}"
        try:
            exec(compile(code, key, "exec"), ns)
        except BaseException as e:
            out[key] = ["error", f"{type(e).__name__}: {str(e).splitlines()[0][:150] if str(e) else ''}"]
            continue
        held = {k: plain(v) for k, v in ns.items() if not k.startswith("_")}
        out[key] = ["ok", {k: v for k, v in held.items() if v is not None}]
print(json.dumps(out))
'''


def run(docs: list[Path], pythonpath: str) -> dict[str, list]:
    """Each block's outcome (``ok`` and the values it bound, or ``error`` and the message)."""
    env = {**os.environ, "PYTHONPATH": pythonpath, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", RUNNER, *map(str, docs)], env=env, capture_output=True, text=True,
                          timeout=1200, check=True, cwd=tempfile.gettempdir())
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict[str, str]:
    """Run the user guide's blocks on both libraries; print and return the comparison."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("docs", type=Path, nargs="+",
                   help="python-graphblas's docs/user_guide folder (its .rst pages), or .md/.rst files")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    theirs = run(args.docs, "")
    again = run(args.docs, "")  # names whose values differ between two runs there (a random layout) are not compared
    for key, (outcome, value) in theirs.items():
        other = again.get(key, ["error", {}])[1]
        if outcome == "ok" and isinstance(other, dict):
            theirs[key] = ["ok", {k: v for k, v in value.items() if other.get(k) == v}]
    with tempfile.TemporaryDirectory() as tmp:
        ours = run(args.docs, f"{write_shim(Path(tmp))}:{ROOT}")
    rows = {}
    for key, (outcome, value) in theirs.items():
        if outcome != "ok":
            continue
        got = ours.get(key, ["error", "not run"])
        if got[0] == "error":
            rows[key] = got[1]
        else:
            differ = sorted(k for k in value if got[1].get(k) != value[k])
            rows[key] = "pass" if not differ else "different values: " + ", ".join(differ)
    pages = Counter(k.split("#")[0] for k in rows)
    passed = Counter(k.split("#")[0] for k, v in rows.items() if v == "pass")
    for page in sorted(pages):
        print(f"{page:12} {passed[page]:3} of {pages[page]:3}")
    print(f"{'total':12} {sum(passed.values()):3} of {len(rows):3} blocks python-graphblas runs "
          f"({len(theirs)} blocks in all)")
    for key, v in rows.items():
        if v != "pass":
            print(f"  {key}: {v}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
