"""The ``grblas-gpu`` command, end to end: built-in graphs, every file format, output files, errors.

Most tests run ``python -m grblas_gpu`` in a subprocess, as a user would; the
graph files are written here into ``tmp_path``.  Results are checked against networkx and
scipy on the same small graphs.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import grblas_gpu
from grblas_gpu import cli
from grblas_gpu.cli import app, builtin_graphs

nx = pytest.importorskip("networkx")
csgraph = pytest.importorskip("scipy.sparse.csgraph")
sparse = pytest.importorskip("scipy.sparse")

CHECKOUT = Path(__file__).resolve().parent.parent
ALGORITHMS = ["sssp", "widest-path", "pagerank", "bfs", "cc", "tc", "lcc", "cdlp", "bc", "louvain", "leiden", "core-number",
              "k-truss", "jaccard", "msbfs", "scc", "katz", "eigenvector", "hits", "mis", "coloring", "msf"]


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m grblas_gpu ARGS``, capturing text output (the package imported from this checkout in any ``cwd``)."""
    cmd = [sys.executable, "-m", "grblas_gpu", *map(str, args)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=120, check=False)


def assert_ok(proc: subprocess.CompletedProcess[str]) -> str:
    """The command succeeded; returns its stdout."""
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


PROGRESS_LINE = re.compile(r"grblas-gpu: (loading|generating|computing|writing) ")


def error_lines(stderr: str) -> list[str]:
    """stderr's lines without the progress lines of steps slower than half a second (a busy
    machine may make even a small file's loading that slow)."""
    return [line for line in stderr.strip().splitlines() if not PROGRESS_LINE.match(line)]


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Non-zero exit, one ``grblas-gpu: error:`` line on stderr naming ``fragments``."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("grblas-gpu: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def read_csv(path: Path) -> dict[int, float]:
    """A ``vertex,value`` CSV file as a dict."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["vertex", "value"]
    return {int(v): float(x) for v, x in rows[1:]}


# ----------------------------------------------------------------------------- graph files

# A small weighted directed graph: (src, dst, weight) with 0-based vertices 0..6; 6 unreachable from 0.
EDGES = [(0, 1, 4.0), (0, 2, 1.0), (2, 1, 2.0), (1, 3, 1.0), (2, 3, 5.0), (3, 4, 3.0), (4, 0, 1.0), (5, 4, 2.0)]
N = 7


def write_mtx(path: Path) -> Path:
    """EDGES as a Matrix Market file (1-based)."""
    lines = ["%%MatrixMarket matrix coordinate real general", "% a small road map", f"{N} {N} {len(EDGES)}"]
    lines += [f"{u + 1} {v + 1} {w}" for u, v, w in EDGES]
    path.write_text("\n".join(lines) + "\n")
    return path


# An edge list with comments and non-contiguous ids.
ID_EDGES = [(100, 7), (7, 42), (42, 100), (42, 9000), (9000, 5), (5, 7), (31, 5)]


def write_edgelist(path: Path) -> Path:
    """ID_EDGES as a SNAP edge list with comment lines."""
    lines = ["# Directed graph: test", "# Nodes: 6 Edges: 7", "# FromNodeId\tToNodeId"]
    lines += [f"{u}\t{v}" for u, v in ID_EDGES]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_graphalytics(folder: Path, source: int, name: str = "tiny") -> Path:
    """ID_EDGES (weighted) as Graphalytics files ``name.v``, ``name.e``, ``name.properties``; returns the prefix."""
    prefix = folder / name
    ids = sorted({v for e in ID_EDGES for v in e} | {77})  # 77: an isolated vertex
    (folder / f"{name}.v").write_text("".join(f"{v}\n" for v in ids))
    (folder / f"{name}.e").write_text("".join(f"{u} {v} {1 + (u + v) % 5}.5\n" for u, v in ID_EDGES))
    props = [
        f"graph.{name}.vertex-file = {name}.v",
        f"graph.{name}.edge-file = {name}.e",
        f"graph.{name}.directed = true",
        f"graph.{name}.edge-properties.names = weight",
        f"graph.{name}.edge-properties.types = real",
        f"graph.{name}.bfs.source-vertex = {source}",
        f"graph.{name}.sssp.source-vertex = {source}",
    ]
    (folder / f"{name}.properties").write_text("\n".join(props) + "\n")
    return prefix


# ----------------------------------------------------------------------------- built-in graphs


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_on_builtin_graph(algorithm: str) -> None:
    extra = {"bc": ["--sources", "0,1,2,3,4,5,6,7"], "msbfs": ["--sources", "0,1"], "katz": ["--alpha", "0.001"]}.get(algorithm, [])
    out = assert_ok(run_cli(algorithm, "--top", "5", *extra))
    assert "4,096 vertices" in out and "edges" in out and "backend" in out
    assert "built-in kron" in out
    assert "loaded:" in out and "computed:" in out and out.count(" s\n") >= 2
    if algorithm == "tc":
        assert "triangles" in out
    else:
        assert "top 5" in out


def test_builtin_graphs_are_deterministic_symmetric_and_fast() -> None:
    for name in builtin_graphs.BUILTIN_GRAPHS:
        start = time.perf_counter()
        g = builtin_graphs.generate(name)
        assert time.perf_counter() - start < 1.0
        again = builtin_graphs.generate(name)
        assert g.n == 2**12
        for a, b in ((g.rows, again.rows), (g.cols, again.cols), (g.values, again.values)):
            np.testing.assert_array_equal(a, b)
        assert g.values.min() >= 1 and g.values.max() <= 255
        assert not np.any(g.rows == g.cols)
        M = sparse.coo_matrix((g.values, (g.rows, g.cols)), shape=(g.n, g.n)).tocsr()
        assert M.nnz == len(g.rows)  # no repeated entries
        assert (M != M.T).nnz == 0  # undirected, same weight both ways


def test_grid_builtin_with_scale() -> None:
    out = assert_ok(run_cli("bfs", "--builtin", "grid", "--scale", "6", "--source", "0"))
    # an 8 x 8 grid: the far corner is 14 hops away
    assert "64 vertices, 112 edges" in out and "max level 14" in out
    out = assert_ok(run_cli("bfs", "--builtin", "grid", "--scale", "6"))
    assert "from vertex 9 (highest out-degree)" in out  # the first vertex with 4 neighbours


def test_console_script() -> None:
    # The script this interpreter's install made (another one on PATH may belong to another Python).
    exe = shutil.which("grblas-gpu", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("no grblas-gpu console script beside this Python")
    cmd = [exe, "tc", "--builtin", "grid", "--scale", "4"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert "0 triangles" in assert_ok(proc)


# ----------------------------------------------------------------------------- subcommands

# Each algorithm's own options, as documented (the shared ones are in SHARED_OPTIONS).
OWN_OPTIONS = {
    "sssp": {"--source", "--method", "--delta"},
    "widest-path": {"--source"},
    "pagerank": {"--alpha", "--tol", "--max-iter"},
    "bfs": {"--source", "--parents"},
    "cc": set(),
    "tc": set(),
    "lcc": set(),
    "cdlp": {"--max-iter"},
    "bc": {"--sources", "--batch-size"},
    "louvain": {"--resolution", "--seed"},
    "leiden": {"--resolution", "--seed"},
    "core-number": set(),
    "k-truss": {"--k"},
    "jaccard": {"--pairs"},
    "msbfs": {"--sources", "--cutoff"},
    "scc": set(),
    "katz": {"--alpha", "--beta", "--max-iter", "--tol"},
    "eigenvector": {"--max-iter", "--tol"},
    "hits": {"--max-iter", "--tol"},
    "mis": {"--seed"},
    "coloring": {"--seed"},
    "msf": set(),
}
SHARED_OPTIONS = {"--format", "--builtin", "--scale", "--undirected", "--unweighted", "--backend", "--top", "--output",
                  "--output-format", "--quiet"}
# Words each subcommand's help uses to name its algorithm and its output.
HELP_WORDS = {
    "sssp": ("shortest paths", "distance"),
    "widest-path": ("widest", "width"),
    "pagerank": ("PageRank", "rank"),
    "bfs": ("Breadth-first search", "level"),
    "cc": ("Connected components", "component"),
    "tc": ("Triangle count", "triangles"),
    "lcc": ("clustering coefficient", "coefficient of every vertex"),
    "cdlp": ("label propagation", "community"),
    "bc": ("Betweenness centrality", "centrality of every vertex"),
    "louvain": ("Louvain", "modularity"),
    "leiden": ("Leiden", "connected"),
    "core-number": ("k-core", "core number of every vertex"),
    "k-truss": ("k-truss", "edges"),
    "jaccard": ("Jaccard", "pairs"),
    "msbfs": ("Multi-source breadth-first", "from each source"),
    "scc": ("Strongly connected", "component of every vertex"),
    "katz": ("Katz", "centrality of every vertex"),
    "eigenvector": ("Eigenvector", "centrality of every vertex"),
    "hits": ("HITS", "hub and authority"),
    "mis": ("independent set", "vertices"),
    "coloring": ("colouring", "colour"),
    "msf": ("spanning forest", "weights"),
}


def options_in(text: str) -> set[str]:
    """The long options a help text names."""
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def test_version() -> None:
    proc = run_cli("--version")
    assert assert_ok(proc) == f"grblas-gpu {grblas_gpu.__version__}\n"


@pytest.mark.parametrize("args, status", [([], 2), (["--help"], 0)])
def test_no_subcommand_lists_the_subcommands(args: list[str], status: int) -> None:
    proc = run_cli(*args)
    assert proc.returncode == status and "Traceback" not in proc.stderr
    assert "usage: grblas-gpu ALGORITHM" in proc.stdout
    listed = proc.stdout.split("algorithms:\n")[1].split("\n\n")[0]
    assert [line.split()[0] for line in listed.splitlines() if re.match(r"    \S", line)] == ALGORITHMS


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_subcommand_help_lists_only_its_options(algorithm: str) -> None:
    out = assert_ok(run_cli(algorithm, "--help"))
    assert out.startswith(f"usage: grblas-gpu {algorithm} [GRAPH]")
    assert options_in(out) - {"--help"} - {"--" + w for w in ("source", "parents", "builtin")} <= (
        SHARED_OPTIONS | OWN_OPTIONS[algorithm]), "an option of another algorithm is listed"
    options_part = out.split("\nGRAPH is ")[0]  # the notes after the options mention --builtin
    assert options_in(options_part) == SHARED_OPTIONS | OWN_OPTIONS[algorithm] | {"--help"}
    for words in HELP_WORDS[algorithm]:
        assert words in out


@pytest.mark.parametrize(
    "args, owners",
    [
        (["tc", "--source", "3"], "sssp, widest-path, bfs"),
        (["pagerank", "--sources", "1,2"], "bc, msbfs"),
        (["bfs", "--alpha", "0.5"], "pagerank, katz"),
        (["cc", "--max-iter", "3"], "pagerank, cdlp, katz, eigenvector, hits"),
        (["louvain", "--k", "3"], "k-truss"),
        (["sssp", "--parents"], "bfs"),
        (["lcc", "--batch-size=4"], "bc"),
    ],
)
def test_option_of_another_algorithm_is_refused(args: list[str], owners: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    flag = args[1].split("=")[0]
    assert_one_line_error(proc, f"{args[0]} has no option {flag}", f"(it is an option of {owners})",
                          f"see grblas-gpu {args[0]} --help")


def test_unknown_option_and_extra_argument() -> None:
    assert_one_line_error(run_cli("tc", "--frobnicate"), "unrecognized arguments: --frobnicate")
    assert_one_line_error(run_cli("tc", "a.mtx", "b.mtx"), "unrecognized arguments: b.mtx")


def readme_examples() -> list[str]:
    """The command lines of README's ``grblas-gpu`` section, comments stripped, the template line left out."""
    readme = CHECKOUT / "README.md"
    section = readme.read_text().split("## The `grblas-gpu` command")[1].split("\n## ")[0]
    lines = [line.split("#")[0].strip() for line in section.splitlines()]
    return [line for line in lines if line.startswith("grblas-gpu ") and "ALGORITHM" not in line]


def test_readme_examples_run(tmp_path: Path) -> None:
    examples = readme_examples()
    assert len(examples) >= 4
    write_mtx(tmp_path / "graph.mtx")
    write_edgelist(tmp_path / "wiki-Vote.txt")
    write_graphalytics(tmp_path, source=42, name="example-directed")
    for line in examples:
        out = assert_ok(run_cli(*shlex.split(line)[1:], cwd=tmp_path))
        assert "computed: " in out, line
    assert read_csv(tmp_path / "levels.csv") == {3: 0, 4: 1, 0: 2, 1: 3, 2: 3}  # bfs from 3 in EDGES


def test_help_examples_parse() -> None:
    parser = cli.build_parser()
    helps = [parser.format_help()] + [parser.commands[name].format_help() for name in ALGORITHMS]
    examples = {line.strip() for h in helps for line in h.splitlines() if line.startswith("  grblas-gpu ")}
    assert len(examples) >= len(ALGORITHMS)
    for line in examples:
        args = parser.parse_args(shlex.split(line)[1:])
        assert args.algorithm == shlex.split(line)[1]


@pytest.mark.parametrize("args", [
    ["--backend", "numpy", "bfs", "--source", "3"],
    ["--backend=numpy", "-q", "--top", "2", "bfs", "--source", "3"],
    ["--undirected", "--format", "mtx", "sssp", "g.mtx"],
])
def test_shared_options_before_the_algorithm(args: list[str]) -> None:
    """Shared options before the algorithm parse as they do after it."""
    parser = cli.build_parser()
    command = next(a for a in args if a in ALGORITHMS)
    k = args.index(command)
    assert vars(parser.parse_args(args)) == vars(parser.parse_args([command, *args[:k], *args[k + 1:]]))


def test_an_option_of_an_algorithm_before_it_is_still_refused() -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--source", "3", "bfs"])


def test_bc_batch_size_matches_networkx(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "graph.txt")
    expected = nx.betweenness_centrality(nx.DiGraph(ID_EDGES), normalized=False)
    for batch in ("1", "4"):
        out_file = tmp_path / f"bc{batch}.json"
        assert_ok(run_cli("bc", graph, "--batch-size", batch, "-o", out_file))
        got = {int(k): v for k, v in json.loads(out_file.read_text())["values"].items()}
        assert got == pytest.approx(expected)


def test_console_script_entry_point_is_the_cli() -> None:
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())
    module, _, function = pyproject["project"]["scripts"]["grblas-gpu"].partition(":")
    assert importlib.import_module(module).__dict__[function] is cli.main
    assert module in pyproject["tool"]["setuptools"]["packages"]


# ----------------------------------------------------------------------------- file formats


def test_matrix_market_sssp_csv_matches_scipy(tmp_path: Path) -> None:
    graph = write_mtx(tmp_path / "roads.mtx")
    out_file = tmp_path / "dist.csv"
    out = assert_ok(run_cli("sssp", graph, "--output", out_file))
    assert "7 vertices, 8 edges" in out and "from vertex 0 (first vertex)" in out
    rows, cols, w = zip(*EDGES)
    M = sparse.csr_matrix((w, (rows, cols)), shape=(N, N))
    expected = csgraph.dijkstra(M, indices=0)
    got = read_csv(out_file)
    assert got == pytest.approx({v: d for v, d in enumerate(expected) if np.isfinite(d)})


def test_matrix_market_widest_path_json(tmp_path: Path) -> None:
    graph = write_mtx(tmp_path / "roads.mtx")
    out_file = tmp_path / "width.json"
    assert_ok(run_cli("widest-path", graph, "--source", "5", "-o", out_file))
    data = json.loads(out_file.read_text())
    assert data["algorithm"] == "widest-path" and data["source"] == 5
    values = data["values"]
    # from 5 the only way out is 5 -> 4 (width 2.0), then 4 -> 0 (width 1.0) limits everything further
    assert values["4"] == 2.0 and values["0"] == 1.0 and values["3"] == 1.0
    assert "6" not in values


def test_matrix_market_undirected_unweighted_sssp_is_hops(tmp_path: Path) -> None:
    graph = write_mtx(tmp_path / "roads.mtx")
    out_file = tmp_path / "hops.csv"
    out = assert_ok(run_cli("sssp", graph, "--undirected", "--unweighted", "--source", "6", "-o", out_file))
    assert "(undirected, BOOL)" in out
    assert read_csv(out_file) == {6: 0.0}  # vertex 6 has no edges
    assert_ok(run_cli("sssp", graph, "--undirected", "--unweighted", "--source", "5", "-o", out_file))
    G = nx.Graph([(u, v) for u, v, _ in EDGES])
    assert read_csv(out_file) == nx.single_source_shortest_path_length(G, 5)


def test_edgelist_bfs_parents(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "graph.txt")
    out_file = tmp_path / "parents.csv"
    assert_ok(run_cli("bfs", graph, "--parents", "--source", "100", "-o", out_file))
    G = nx.DiGraph(ID_EDGES)
    level = nx.single_source_shortest_path_length(G, 100)
    parents = {v: int(p) for v, p in read_csv(out_file).items()}
    assert set(parents) == set(level) and parents[100] == 100
    for v, p in parents.items():
        if v != 100:
            assert G.has_edge(p, v) and level[p] == level[v] - 1


def test_edgelist_bfs_json_matches_networkx(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "graph.txt")
    out_file = tmp_path / "levels.json"
    out = assert_ok(run_cli("bfs", graph, "--source", "42", "--output", out_file))
    assert "6 vertices, 7 edges (directed" in out
    G = nx.DiGraph(ID_EDGES)
    expected = nx.single_source_shortest_path_length(G, 42)
    data = json.loads(out_file.read_text())
    assert data["source"] == 42
    assert {int(k): v for k, v in data["values"].items()} == expected


def test_edgelist_undirected_cc_labels_are_original_ids(tmp_path: Path) -> None:
    graph = tmp_path / "two_parts.txt"
    graph.write_text("# two components\n100 7\n7 42\n9000 31\n")
    out_file = tmp_path / "cc.csv"
    out = assert_ok(run_cli("cc", graph, "--undirected", "-o", out_file))
    assert "2 components" in out and "undirected" in out
    G = nx.Graph([(100, 7), (7, 42), (9000, 31)])
    expected = {v: min(c) for c in nx.connected_components(G) for v in c}
    assert read_csv(out_file) == expected


def test_edgelist_pagerank_matches_networkx(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "graph.txt")
    out_file = tmp_path / "pr.json"
    out = assert_ok(run_cli("pagerank", graph, "--tol", "1e-10", "--max-iter", "200", "-o", out_file, "--top", "2"))
    expected = nx.pagerank(nx.DiGraph(ID_EDGES), alpha=0.85, tol=1e-12)
    got = {int(k): v for k, v in json.loads(out_file.read_text())["values"].items()}
    assert got == pytest.approx(expected, abs=1e-6)
    best = max(expected, key=expected.get)
    table = out.split("largest first):\n")[1].splitlines()
    assert table[1].split()[0] == str(best)  # the top row is the highest rank


def test_format_override(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "looks_like.mtx")
    assert_one_line_error(run_cli("bfs", graph), "looks_like.mtx")
    out = assert_ok(run_cli("bfs", graph, "--format", "edgelist", "--source", "100"))
    assert "(edgelist)" in out


def test_graphalytics_source_from_properties(tmp_path: Path) -> None:
    prefix = write_graphalytics(tmp_path, source=42)
    out_file = tmp_path / "bfs.csv"
    out = assert_ok(run_cli("bfs", prefix, "-o", out_file))
    assert "7 vertices" in out and "(graphalytics)" in out
    assert "from vertex 42 (from the properties file)" in out
    expected = nx.single_source_shortest_path_length(nx.DiGraph(ID_EDGES), 42)
    assert read_csv(out_file) == expected


def test_graphalytics_sssp_from_edge_file(tmp_path: Path) -> None:
    prefix = write_graphalytics(tmp_path, source=100)
    out_file = tmp_path / "sssp.json"
    assert_ok(run_cli("sssp", prefix.with_suffix(".e"), "-o", out_file))
    G = nx.DiGraph()
    G.add_weighted_edges_from((u, v, 1 + (u + v) % 5 + 0.5) for u, v in ID_EDGES)
    expected = nx.single_source_dijkstra_path_length(G, 100)
    got = {int(k): v for k, v in json.loads(out_file.read_text())["values"].items()}
    assert got == pytest.approx(expected)


def test_triangle_count_output(tmp_path: Path) -> None:
    graph = tmp_path / "k4.txt"
    graph.write_text("1 2\n1 3\n1 4\n2 3\n2 4\n3 4\n")  # K4: 4 triangles
    csv_file, json_file = tmp_path / "tc.csv", tmp_path / "tc.json"
    assert "4 triangles" in assert_ok(run_cli("tc", graph, "-o", csv_file))
    assert csv_file.read_text() == "triangles\n4\n"
    assert_ok(run_cli("tc", graph, "-o", json_file))
    assert json.loads(json_file.read_text())["triangles"] == 4


# ----------------------------------------------------------------------------- errors


def test_missing_file(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("bfs", tmp_path / "nothere.mtx"), "nothere.mtx")


def test_malformed_matrix_market(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.5\n2 x 2.0\n")
    assert_one_line_error(run_cli("sssp", bad), "bad.mtx", "line 4")


def test_bad_source(tmp_path: Path) -> None:
    graph = write_edgelist(tmp_path / "graph.txt")
    assert_one_line_error(run_cli("bfs", graph, "--source", "8"), "--source 8")
    assert_one_line_error(run_cli("sssp", "--builtin", "grid", "--source", "99999"), "99999")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["frobnicate"], "invalid choice"),
        (["bfs", "--top", "-1"], "--top"),
        (["bfs", "--output", "result.txt"], ".csv or .json"),
        (["bc", "--sources", "1,x"], "--sources"),
        (["bfs", "graph.txt", "--builtin", "grid"], "not both"),
    ],
)
def test_bad_arguments(args: list[str], fragment: str) -> None:
    assert_one_line_error(run_cli(*args), fragment)


def test_cupy_backend_without_gpu() -> None:
    import grblas_gpu as gb

    if gb.gpu_available():
        pytest.skip("a GPU is usable here")
    assert_one_line_error(run_cli("tc", "--backend", "cupy"), "cupy")


# ----------------------------------------------------------------------------- in process


def test_main_in_process(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["cdlp", "--builtin", "grid", "--scale", "4", "--top", "3"]) == 0
    assert "16 vertices, 24 edges" in capsys.readouterr().out
    assert cli.main(["bfs", str(tmp_path / "nothere.txt")]) == 1
    assert capsys.readouterr().err.startswith("grblas-gpu: error: ")


# ----------------------------------------------------------------------------- bad input


def test_bad_graphblas_type_line_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "typed.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type 0123\n3 3 1\n1 2 1.0\n")
    assert_one_line_error(run_cli("bfs", bad), "typed.mtx")


def test_internal_error_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(app, "_call", broken)
    monkeypatch.delenv("GRBLAS_GPU_TRACEBACK", raising=False)
    assert cli.main(["tc", "--builtin", "grid", "--scale", "4"]) == 2
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("grblas-gpu: internal error (RuntimeError): something broke")


HUGE = 10**12


def write_huge(tmp_path: Path) -> Path:
    """Three edges in a file that declares 10^12 vertices."""
    path = tmp_path / "huge.mtx"
    path.write_text(f"%%MatrixMarket matrix coordinate real general\n{HUGE} {HUGE} 3\n1 2 1.0\n2 3 1.0\n3 1 1.0\n")
    return path


@pytest.mark.parametrize("algorithm", ["bc", "sssp", "widest-path", "bfs", "pagerank", "lcc", "cc", "cdlp"])
def test_huge_vertex_count_says_out_of_memory(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              algorithm: str) -> None:
    start = time.perf_counter()
    assert cli.main([algorithm, str(write_huge(tmp_path))]) == 1
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("grblas-gpu: error: "), err
    assert f"{HUGE:,} vertices needs" in err[0] and "available" in err[0], err[0]
    assert time.perf_counter() - start < 30  # refused before any work in the vertex count


def test_huge_vertex_count_triangle_count_works(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["tc", str(write_huge(tmp_path))]) == 0
    assert "1 triangle" in capsys.readouterr().out


# ----------------------------------------------------------------------------- the algorithms added with louvain


def read_rows(path: Path, header: list[str]) -> list[list[str]]:
    """A CSV file's rows after checking its header."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == header
    return rows[1:]


def karate_edgelist(path: Path) -> Path:
    """networkx's karate club as an edge list (ids 1..34: not the rows)."""
    path.write_text("".join(f"{u + 1} {v + 1}\n" for u, v in nx.karate_club_graph().edges()))
    return path


def karate() -> nx.Graph:
    return nx.relabel_nodes(nx.Graph(nx.karate_club_graph().edges()), lambda v: v + 1)


def test_louvain_csv_is_a_partition_as_good_as_networkx(tmp_path: Path) -> None:
    out_file = tmp_path / "communities.csv"
    out = assert_ok(run_cli("louvain", karate_edgelist(tmp_path / "k.txt"), "--undirected", "--seed", "2",
                            "-o", out_file))
    assert "communities, the largest has" in out
    labels = read_csv(out_file)
    assert set(labels) == set(range(1, 35))
    parts = [{v for v, c in labels.items() if c == x} for x in set(labels.values())]
    G = karate()
    expected = max(nx.community.modularity(G, nx.community.louvain_communities(G, seed=s)) for s in range(3))
    assert nx.community.modularity(G, parts) >= expected - 0.02
    assert_ok(run_cli("leiden", tmp_path / "k.txt", "--undirected", "--seed", "2", "-o", tmp_path / "leiden.csv"))
    leiden_labels = read_csv(tmp_path / "leiden.csv")
    for x in set(leiden_labels.values()):
        assert nx.is_connected(G.subgraph([v for v, c in leiden_labels.items() if c == x]))
    # A huge resolution leaves every vertex alone.
    assert "34 communities" in assert_ok(run_cli("louvain", tmp_path / "k.txt", "--undirected", "--resolution", "50"))


def test_core_number_and_scc_match_networkx(tmp_path: Path) -> None:
    graph = karate_edgelist(tmp_path / "k.txt")
    assert_ok(run_cli("core-number", graph, "--undirected", "-o", tmp_path / "core.csv"))
    assert read_csv(tmp_path / "core.csv") == nx.core_number(karate())
    edges = write_edgelist(tmp_path / "d.txt")
    assert_ok(run_cli("scc", edges, "-o", tmp_path / "scc.csv"))
    expected = {v: min(c) for c in nx.strongly_connected_components(nx.DiGraph(ID_EDGES)) for v in c}
    assert read_csv(tmp_path / "scc.csv") == expected


def test_k_truss_edge_list_matches_networkx(tmp_path: Path) -> None:
    out_file = tmp_path / "truss.csv"
    out = assert_ok(run_cli("k-truss", karate_edgelist(tmp_path / "k.txt"), "--undirected", "--k", "4", "-o", out_file))
    assert "edges on" in out and "source  target  support" in out
    rows = read_rows(out_file, ["source", "target", "support"])
    truss = nx.k_truss(karate(), 4)
    assert {tuple(sorted((int(u), int(v)))) for u, v, _ in rows} == {tuple(sorted(e)) for e in truss.edges()}
    assert all(int(u) < int(v) for u, v, _ in rows)  # each edge once
    for u, v, support in rows:
        assert int(support) == len(set(truss[int(u)]) & set(truss[int(v)]))


def test_jaccard_pairs_and_edges_match_networkx(tmp_path: Path) -> None:
    graph = karate_edgelist(tmp_path / "k.txt")
    out_file = tmp_path / "j.json"
    assert_ok(run_cli("jaccard", graph, "--undirected", "--pairs", "1:34,3:9,5:6", "-o", out_file))
    data = json.loads(out_file.read_text())
    assert data["columns"] == ["u", "v", "jaccard"]
    expected = {(u, v): p for u, v, p in nx.jaccard_coefficient(karate(), [(1, 34), (3, 9), (5, 6)])}
    assert {(u, v): p for u, v, p in data["rows"]} == pytest.approx(expected)
    assert_ok(run_cli("jaccard", graph, "--undirected", "-o", tmp_path / "j.csv"))
    rows = read_rows(tmp_path / "j.csv", ["u", "v", "jaccard"])
    assert len(rows) == karate().number_of_edges()
    every = {(u, v): p for u, v, p in nx.jaccard_coefficient(karate(), [(int(a), int(b)) for a, b, _ in rows])}
    assert {(int(a), int(b)): float(p) for a, b, p in rows} == pytest.approx(every)


def test_msbfs_levels_match_networkx(tmp_path: Path) -> None:
    out_file = tmp_path / "levels.csv"
    out = assert_ok(run_cli("msbfs", write_edgelist(tmp_path / "d.txt"), "--sources", "100,31", "-o", out_file))
    assert "(source, vertex) pairs reached" in out
    G = nx.DiGraph(ID_EDGES)
    got = {(int(s), int(v)): int(d) for s, v, d in read_rows(out_file, ["source", "vertex", "level"])}
    expected = {(s, v): d for s in (100, 31) for v, d in nx.single_source_shortest_path_length(G, s).items()}
    assert got == expected
    assert_one_line_error(run_cli("msbfs", tmp_path / "d.txt", "--sources", "8"), "--sources vertex 8")


def test_centralities_match_networkx(tmp_path: Path) -> None:
    graph = karate_edgelist(tmp_path / "k.txt")
    G = karate()
    assert_ok(run_cli("katz", graph, "--undirected", "--alpha", "0.05", "-o", tmp_path / "katz.csv"))
    assert read_csv(tmp_path / "katz.csv") == pytest.approx(nx.katz_centrality(G, alpha=0.05), rel=1e-4)
    assert_ok(run_cli("eigenvector", graph, "--undirected", "--tol", "1e-9", "-o", tmp_path / "eig.csv"))
    assert read_csv(tmp_path / "eig.csv") == pytest.approx(nx.eigenvector_centrality(G, tol=1e-9), rel=1e-4)
    D = nx.gnp_random_graph(30, 0.15, seed=4, directed=True)
    (tmp_path / "r.txt").write_text("".join(f"{u} {v}\n" for u, v in D.edges()))
    out = assert_ok(run_cli("hits", tmp_path / "r.txt", "-o", tmp_path / "hits.csv"))
    assert re.search(r"vertex +hub +authority", out) and "largest authority" in out
    hubs, auths = nx.hits(D)
    rows = read_rows(tmp_path / "hits.csv", ["vertex", "hub", "authority"])
    assert {int(v): float(h) for v, h, _ in rows} == pytest.approx(hubs, abs=1e-6)
    assert {int(v): float(a) for v, _, a in rows} == pytest.approx(auths, abs=1e-6)


def test_mis_and_coloring_are_valid(tmp_path: Path) -> None:
    graph = karate_edgelist(tmp_path / "k.txt")
    G = karate()
    out = assert_ok(run_cli("mis", graph, "--undirected", "--seed", "3", "-o", tmp_path / "mis.csv"))
    members = {int(v) for v, x in read_rows(tmp_path / "mis.csv", ["vertex", "value"]) if x == "True"}
    assert f"{len(members)} of 34 vertices in the independent set" in out
    assert nx.is_independent_set(G, members) if hasattr(nx, "is_independent_set") else \
        not any(G.has_edge(u, v) for u in members for v in members)
    assert all(v in members or members & set(G[v]) for v in G)  # maximal
    out = assert_ok(run_cli("coloring", graph, "--undirected", "--seed", "3", "-o", tmp_path / "col.csv"))
    colour = read_csv(tmp_path / "col.csv")
    assert f"{len(set(colour.values()))} colours" in out
    assert all(colour[u] != colour[v] for u, v in G.edges())


def test_msf_edges_weigh_as_networkx(tmp_path: Path) -> None:
    out_file = tmp_path / "forest.csv"
    out = assert_ok(run_cli("msf", write_mtx(tmp_path / "roads.mtx"), "-o", out_file))
    rows = read_rows(out_file, ["u", "v", "weight"])
    G = nx.Graph()
    for u, v, w in EDGES:  # the undirected graph keeps the lighter of two directions
        if not G.has_edge(u, v) or G[u][v]["weight"] > w:
            G.add_edge(u, v, weight=w)
    T = nx.minimum_spanning_tree(G)
    assert len(rows) == T.number_of_edges()
    assert sum(float(w) for _, _, w in rows) == pytest.approx(T.size(weight="weight"))
    assert f"total weight {T.size(weight='weight'):g}" in out


@pytest.mark.parametrize("method", ["delta", "bellman-ford", "auto"])
def test_sssp_methods_match_scipy(tmp_path: Path, method: str) -> None:
    out_file = tmp_path / "dist.csv"
    assert_ok(run_cli("sssp", write_mtx(tmp_path / "roads.mtx"), "--method", method, "--delta", "2", "-o", out_file))
    rows, cols, w = zip(*EDGES)
    expected = csgraph.dijkstra(sparse.csr_matrix((w, (rows, cols)), shape=(N, N)), indices=0)
    assert read_csv(out_file) == pytest.approx({v: d for v, d in enumerate(expected) if np.isfinite(d)})
