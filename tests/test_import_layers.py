"""The package's import graph: floors that import only downwards, and no import circle.

Floors, bottom up: the ground (dtypes, exceptions, limits, the operators, the backends,
storage, masks, the bitmap kernels' glue, the table through which the upper floors are called:
``_operations``), the expressions and their executor, the objects (Scalar, Vector, Matrix and
their mixins), the operations (``ops/*`` and python-graphblas's scalar and broadcast forms),
then the public namespace and its users (functional, io, nvgraph, cli, ...).  A module imports
only from its own floor and those below, even inside a function; the objects reach the
operations, and the executor the objects' classes, through ``grblas_gpu._operations`` only.
No circle of imports is left anywhere in the package.

Run as a script to print the circles: ``python tests/test_import_layers.py``.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "grblas_gpu"

# No import of these reaches a module of the floors above, not even one inside a function.
LOWER = {
    "dtypes", "exceptions", "descriptor", "limits", "indexing", "infix", "display", "_checkout", "_sparse",
    "operators", "operators.base", "operators.catalog", "operators.cmath", "operators.udf",
    "backends", "backends.base", "backends.protocol", "backends.operands", "backends.numpy_backend",
    "backends.numpy_mxm", "backends.scipy_product", "backends.cupy.backend", "backends.cupy.codegen",
    "backends.cupy.launch", "backends.cupy.counts", "backends.cupy.spgemm", "backends.cupy.dot_mxm",
    "backends.cupy.signatures", "backends.cupy.common", "backends.cupy.core", "backends.cupy.bitmaps",
    "backends.cupy.elementwise", "backends.cupy.reduce", "backends.cupy.spmv_plans", "backends.cupy.pull",
    "backends.cupy.push", "backends.cupy.products",
    "storage", "mask", "_bitmap", "operators.udf_trace", "_operations", "_input_mask", "_dcsr",
    "_transposed",
}
# The floors above the ground, bottom up: each module imports only from its floor and those below.
FLOORS = [
    {"expressions", "_infix_methods"},
    {"scalar", "collection", "matrix", "vector", "_compat_methods", "agg", "op"},
    {"ops", "ops.indexing", "ops.multiply", "ops.mxm", "ops.reduction", "ops.structural", "_broadcast",
     "_scalar_ops"},
]
UPPER = set().union(*FLOORS)


def _name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, module_level: bool) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run (not those under ``if TYPE_CHECKING``); with
    ``module_level``, only those that run as the module loads (not inside functions)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit(stmt)
            elif not (module_level and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))):
                visit(child)

    visit(tree)
    return found


def import_graph(module_level: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (names relative to the package)."""
    paths = {_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for m, path in paths.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for stmt in _imports(ast.parse(path.read_text()), module_level):
            if isinstance(stmt, ast.Import):
                targets = [a.name.removeprefix("grblas_gpu.") for a in stmt.names if a.name.startswith("grblas_gpu.")]
            elif stmt.level == 0 and not (stmt.module or "").startswith("grblas_gpu"):
                continue  # another package's (``import io`` is the standard library's)
            else:
                base = package
                for _ in range(stmt.level - 1):
                    base = base.rpartition(".")[0]
                if stmt.level == 0:
                    base = (stmt.module or "").removeprefix("grblas_gpu")
                elif stmt.module:
                    base = f"{base}.{stmt.module}" if base else stmt.module
                base = base.strip(".")
                subs = [f"{base}.{a.name}".strip(".") for a in stmt.names]
                targets = [s for s in subs if s in paths]
                if len(targets) < len(subs):  # names of the module itself
                    targets.append(base)
            graph[m].update(t for t in targets if t in paths and t != m)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for w in graph[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def test_lower_floors_import_only_downwards() -> None:
    graph = import_graph()
    assert LOWER <= set(graph), "a module named here no longer exists"
    climbing = {m: sorted(_reach(graph, m) & UPPER) for m in sorted(LOWER)}
    assert {m: up for m, up in climbing.items() if up} == {}


def test_floors_import_only_their_own_and_lower() -> None:
    graph = import_graph()
    assert UPPER <= set(graph), "a module named here no longer exists"
    for level, floor in enumerate(FLOORS):
        above = set().union(set(), *FLOORS[level + 1:])
        climbing = {m: sorted(graph[m] & above) for m in sorted(floor)}
        assert {m: up for m, up in climbing.items() if up} == {}, f"floor {level + 1} imports upwards"
        outside = {m: sorted(graph[m] - LOWER - UPPER) for m in sorted(floor)}
        assert {m: out for m, out in outside.items() if out} == {}, "a floor imports a module of no floor"


def test_no_circle() -> None:
    assert circles(import_graph()) == [], "an import circle (imports inside functions counted)"


def test_no_module_level_circle() -> None:
    assert circles(import_graph(module_level=True)) == [], "an import circle at module level"


if __name__ == "__main__":
    for level, label in ((True, "module level"), (False, "inside functions too")):
        print(f"import circles, {label}:")
        for found in circles(import_graph(module_level=level)):
            print(f"  {len(found)}: {', '.join(sorted(found))}")
