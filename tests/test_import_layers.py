"""The package's import graph: floors that import only downwards, and the circles left.

Floors, bottom up: the ground (dtypes, exceptions, limits, ...), the operators, the backends,
storage, masks and the bitmap kernels' glue (_bitmap), then the objects and operations (matrix, vector, scalar, collection,
expressions, ops/*), which still import each other (the circle this file pins so it
cannot grow), then the public namespace and its users (functional, io, nvgraph, cli, ...).

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
    "storage", "mask", "_bitmap", "_upward", "operators.udf_trace",
}
UPPER = {
    "matrix", "vector", "scalar", "collection", "expressions", "functional",
    "ops.indexing", "ops.multiply", "ops.mxm", "ops.reduction", "ops.structural",
}
# The circles left (imports inside functions counted): each may shrink, none may grow.
CIRCLES_LEFT = [
    {"collection", "expressions", "matrix", "scalar", "vector",
     "ops.indexing", "ops.multiply", "ops.mxm", "ops.reduction", "ops.structural",
     # python-graphblas's call forms: methods of the objects (mixins) and the aggregators,
     # which build operations; they join the objects' circle, not the floors below it.
     "_broadcast", "_compat_methods", "_infix_methods", "_scalar_ops", "agg", "op"},
]
# The circles of imports at module level (what runs as a module loads).
MODULE_LEVEL_CIRCLES_LEFT = [{"expressions", "ops.indexing"}, {"matrix", "vector", "ops.multiply"}]


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


def test_no_circle_grows() -> None:
    for found in circles(import_graph()):
        assert any(found <= left for left in CIRCLES_LEFT), f"a new import circle: {sorted(found)}"


def test_no_module_level_circle_grows() -> None:
    for found in circles(import_graph(module_level=True)):
        assert any(found <= left for left in MODULE_LEVEL_CIRCLES_LEFT), f"a new import circle: {sorted(found)}"


if __name__ == "__main__":
    for level, label in ((True, "module level"), (False, "inside functions too")):
        print(f"import circles, {label}:")
        for found in circles(import_graph(module_level=level)):
            print(f"  {len(found)}: {', '.join(sorted(found))}")
