"""python-graphblas's own public-API tests run on grblas_gpu through a name-only shim.

    python -m benchmarks.pg_api PATH/TO/graphblas/tests [--files test_vector ...] [--json out.json]

PATH is python-graphblas's ``graphblas/tests`` folder (its sdist or an installed wheel holds it;
nothing is fetched here). The shim maps the module ``graphblas`` (and the submodules the tests
import) to ``grblas_gpu`` and adds no features: names grblas_gpu lacks become placeholders that
raise AttributeError on use, so that a test file still imports and its other tests count. The
tests' own conftest (backend selection, recorders) is replaced by the four helpers they import.
Each file runs in its own pytest process; the report gives passes, failures and skips per file,
and the failures grouped by first cause (see ``cause``)."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

FILES = ("test_vector", "test_matrix", "test_scalar", "test_op", "test_infix", "test_mask", "test_io")
ROOT = Path(__file__).resolve().parent.parent

SHIM_INIT = '''"""Name-only shim: graphblas names mapped to grblas_gpu (measurement only)."""
import importlib
import sys

import grblas_gpu as _g
from grblas_gpu import *  # noqa: F401,F403

backend = "grblas_gpu"
for _sub in ("exceptions", "dtypes", "io", "op", "agg", "viz", "unary", "binary", "monoid",
             "semiring", "indexunary", "select"):
    try:
        _m = importlib.import_module("grblas_gpu." + _sub)
    except ImportError:
        _m = getattr(_g, _sub, None)
    if _m is not None:
        sys.modules["graphblas." + _sub] = _m
        globals()[_sub] = _m


def __getattr__(name):
    return getattr(_g, name)


class _Missing:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        raise AttributeError(f"grblas_gpu has no {self._name}.{attr}")


for _n in ("agg", "op", "replace", "config", "viz"):
    if _n not in globals():
        globals()[_n] = _Missing(_n)
        sys.modules.setdefault("graphblas." + _n, globals()[_n])
_exc = sys.modules["graphblas.exceptions"]
for _n in ("UdfParseError", "GraphblasException", "NotImplementedException", "EmptyObject"):
    if not hasattr(_exc, _n):
        setattr(_exc, _n, type(_n, (Exception,), {}))
_dt = sys.modules["graphblas.dtypes"]
if not hasattr(_dt, "_supports_complex"):
    _dt._supports_complex = False
'''

SHIM_CORE = '''import importlib
import sys

lib = None
_supports_udfs = True
import grblas_gpu.operators as operator  # noqa: E402
import grblas_gpu.mask as mask  # noqa: E402

sys.modules["graphblas.core.operator"] = operator
sys.modules["graphblas.core.mask"] = mask
for _name in ("matrix", "vector", "scalar"):
    sys.modules["graphblas.core." + _name] = importlib.import_module("grblas_gpu." + _name)


def _missing(name):
    def call(*args, **kwargs):
        raise NotImplementedError(f"grblas_gpu has no graphblas.core.{name}")
    return call


# python-graphblas's helpers (graphblas.core.utils): grblas_gpu.core.utils's names, the others
# placeholders that raise when called.
_ours = importlib.import_module("grblas_gpu.core.utils")
utils = type(sys)("graphblas.core.utils")
utils.__getattr__ = lambda name: getattr(_ours, name) if hasattr(_ours, name) else _missing(name)
sys.modules["graphblas.core.utils"] = utils
for _n in ("BinaryOp", "Monoid", "Semiring", "UnaryOp", "IndexUnaryOp", "SelectOp",
           "TypedBuiltinBinaryOp", "TypedBuiltinMonoid", "TypedBuiltinSemiring",
           "TypedBuiltinUnaryOp", "TypedUserBinaryOp", "get_semiring"):
    if not hasattr(operator, _n):
        setattr(operator, _n, type(_n, (), {}))
'''

CONFTEST = '''import functools
import platform

pypy = platform.python_implementation() == "PyPy"


def autocompute(func):
    @functools.wraps(func)
    def inner(*args, **kwargs):
        return func(*args, **kwargs)
    return inner


def compute(x):
    return x


def shouldhave(module, opname):
    return hasattr(module, opname)
'''

# The failures read by hand, by first cause (a test's name without its parameters); any
# other failure is "raise" (python-graphblas raises where we do not), "wording" (both raise,
# the message differs) or "other" (a bug or a missing feature), read from the error.
INTERNALS = (  # graphblas.core.*, private attributes, pickling, sys.getsizeof, SuiteSparse
    "test_del", "test_auto", "test_expr_is_like_vector", "test_index_expr_is_like_vector",
    "test_expr_is_like_matrix", "test_index_expr_is_like_matrix", "test_expr_is_like_scalar",
    "test_index_expr_is_like_scalar", "test_sizeof", "test_subassign_combos", "test_apply_indexunary",
    "test_matrix::test_select", "test_normalize_chunks", "test_reposition", "test_as_vector",
    "test_ss_descriptors", "test_neg", "test_dup_expr", "test_scalar_expr", "test_operator_initialized",
    "test_unaryop", "test_binaryop", "test_monoid", "test_semiring", "test_find_opclass_unaryop",
    "test_find_opclass_binaryop", "test_find_opclass_monoid", "test_find_opclass_semiring",
    "test_find_opclass_invalid", "test_get_typed_op", "test_unaryop_udf", "test_binaryop_udf",
    "test_binary_updates", "test_create_semiring", "test_dir", "test_semiring_commute_exists",
    "test_binaryop_commute_exists", "test_op_ss", "test_deprecated", "test_infix_expr_value_types",
    "test_mask_new", "test_mask_or", "test_mask_and",
)
UDT = ("test_udt", "test_record_from_dict", "test_from_scalar", "test_subarray_dtypes")
DELIBERATE = (  # docs/python-graphblas.md, "Deliberate differences"
    "test_extract_element", "test_extract_fancy_scalars", "test_inner", "test_infix_outer",
    "test_bool_eq_on_scalar_expressions_no_auto", "test_autocompute_argument_messages",
    "test_multi_infix_vector_auto", "test_multi_infix_matrix_auto", "test_multi_infix_scalar_auto",
    "test_extract_values", "test_mmread_mmwrite", "test_from_scipy_sparse_duplicates", "test_bad_ewise",
    "test_apply_unary_bad", "test_broadcasting", "test_ewise_mult", "test_ewise_add", "test_from_string",
    "test_is_idempotent", "test_mask_must_be_value_or_structure", "test_mxm_mask", "test_from_coo_scalar",
    "test_multi_infix_vector", "test_multi_infix_matrix", "test_multi_infix_scalar", "test_to_coo_sort",
    # each runs to its end here but for the difference named (checked by editing the test locally)
    "test_op::test_semiring_parameterized",  # a semiring in ewise_add
    "test_matrix::test_no_bool_or_eq",  # masks compare by their fields; autocompute: expr == expr
    "test_vector::test_reduce",  # v.reduce() of BOOL is lor
    "test_matrix::test_to_csr_from_csc", "test_matrix::test_from_list_of_dicts",  # error classes of bad arrays
    "test_op::test_op_namespace",  # the module's own name in an AttributeError, then op._delayed (internals)
)


def write_shim(where: Path) -> Path:
    """The shim package ``graphblas`` under ``where/shim``; returns the folder to put on the path."""
    core = where / "shim" / "graphblas" / "core"
    core.mkdir(parents=True)
    (core.parent / "__init__.py").write_text(SHIM_INIT)
    (core / "__init__.py").write_text(SHIM_CORE)
    (core / "ss.py").write_text("")
    return where / "shim"


def write_tree(tests: Path, work: Path, files: tuple[str, ...]) -> None:
    """The shim package and the tests (with a four-helper conftest) under ``work``."""
    write_shim(work)
    t = work / "t"
    t.mkdir()
    (t / "__init__.py").write_text("")
    (t / "conftest.py").write_text(CONFTEST)
    for name in files:
        shutil.copy(tests / f"{name}.py", t / f"{name}.py")


def run_file(work: Path, name: str, timeout: float) -> list[dict[str, str]]:
    """Each test of one file with its outcome and, for failures, the error's text."""
    xml = work / f"{name}.xml"
    env = {"PYTHONPATH": f"{work / 'shim'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           f"--junitxml={xml}", f"t/{name}.py"]
    subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=timeout, check=False)
    rows = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        outcome, text = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = "skipped" if tag == "skipped" else "failed"
                text = (node.get("message") or "") + "\n" + (node.text or "")
                break
        rows.append({"test": f"{name}::{case.get('name')}", "outcome": outcome, "text": text})
    return rows


def cause(test: str, text: str) -> str:
    """A failure's first cause: the hand-read groups above, else read from the error."""
    full = test.split("[")[0]
    name = full.split("::")[-1]
    for label, names in (("internals", INTERNALS), ("udt", UDT), ("deliberate", DELIBERATE)):
        if name in names or full in names:
            return label
    first = next((line for line in text.splitlines() if line.startswith("E ")), text)
    if "Can't pickle" in first:
        return "deliberate"  # pickling of operators, in the table
    if re.search(r"has no attribute '_|unexpected keyword argument 'composite'", first):
        return "internals"
    if re.search(r"unsupported type '\w+\[\d+\]'", text):
        return "udt"  # sub-array types such as "INT64[2]"
    if "DID NOT RAISE" in text:
        return "raise"
    if "Regex pattern did not match" in text:
        return "wording"
    return "other"


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the files, print the table and return the results."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tests", type=Path, help="python-graphblas's graphblas/tests folder")
    p.add_argument("--files", nargs="+", default=list(FILES))
    p.add_argument("--json", type=Path, help="write every test's outcome here")
    p.add_argument("--timeout", type=float, default=1800)
    args = p.parse_args(argv)
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_tree(args.tests, work, tuple(args.files))
        for name in args.files:
            got = run_file(work, name, args.timeout)
            n = Counter(r["outcome"] for r in got)
            print(f"{name:12} passed {n['passed']:4}  failed {n['failed']:4}  skipped {n['skipped']:4}")
            rows += got
    total = Counter(r["outcome"] for r in rows)
    print(f"{'total':12} passed {total['passed']:4}  failed {total['failed']:4}  skipped {total['skipped']:4}")
    for r in rows:
        if r["outcome"] == "failed":
            r["cause"] = cause(r["test"], r["text"])
    print("failures by first cause:", dict(Counter(r["cause"] for r in rows if "cause" in r)))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return {"rows": rows, "total": dict(total)}


if __name__ == "__main__":
    main()
