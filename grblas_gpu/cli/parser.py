"""The command's arguments: one subcommand per algorithm, each with only its own options.

The options every subcommand shares (the graph, its format, the backend, the output) come
from one parent parser; an algorithm's own options are named in its
:class:`~.commands.AlgorithmSpec` and defined once in :data:`OPTIONS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import grblas_gpu as gb

from . import builtin_graphs
from .commands import ALGORITHMS, AlgorithmSpec

__all__ = ["OPTIONS", "OUTPUT_FORMATS", "PROG", "build_parser"]

PROG = "grblas-gpu"
OUTPUT_FORMATS = ("csv", "json", "graphalytics")


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are one line, ``grblas-gpu: error: ... (see grblas-gpu CMD --help)``,
    and which names the subcommand an option belongs to when another one is given it."""

    commands: dict[str, _Parser]
    shared_actions: dict[str, argparse.Action]  # the shared options, by flag (the top parser's)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        if hasattr(self, "commands"):
            args = _command_first(list(sys.argv[1:] if args is None else args), self.shared_actions)
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(ns, "algorithm", None)
            target = getattr(self, "commands", {}).get(command, self)
            target.error(self._unrecognized(command, extras))
        if getattr(ns, "output", None) is not None and ns.output_format is None \
                and ns.output.suffix.lower() not in (".csv", ".json"):
            self.commands[ns.algorithm].error(
                f"{str(ns.output)!r}: the file name must end in .csv or .json (or give --output-format)")
        return ns

    def _unrecognized(self, command: str | None, extras: list[str]) -> str:
        """The error for arguments the subcommand does not take: another algorithm's option if it is one."""
        for arg in extras:
            flag = arg.split("=", 1)[0]
            owners = [name for name, sub in getattr(self, "commands", {}).items()
                      if flag in sub._option_string_actions]
            if command is not None and owners:
                return f"{command} has no option {flag} (it is an option of {', '.join(owners)})"
        return f"unrecognized arguments: {' '.join(extras)}"


def _command_first(args: list[str], shared: dict[str, argparse.Action]) -> list[str]:
    """``args`` with the shared options given before the algorithm moved after it
    (``grblas-gpu --backend numpy bfs g.mtx`` as ``grblas-gpu bfs --backend numpy g.mtx``);
    as given where anything else stands before the algorithm."""
    before: list[str] = []
    i = 0
    while i < len(args):
        flag = args[i].split("=", 1)[0]
        action = shared.get(flag)
        if action is None:
            break
        takes_value = action.nargs != 0 and "=" not in args[i]
        before += args[i:i + 1 + takes_value]
        i += 1 + takes_value
    if not before or i >= len(args) or args[i].startswith("-"):
        return args
    return [args[i], *before, *args[i + 1:]]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _vertex_list(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected vertex ids separated by commas, got {text!r}") from None


# An algorithm's own options, by the names AlgorithmSpec.options uses.
OPTIONS: dict[str, Callable[[argparse._ActionsContainer], Any]] = {
    "source": lambda g: g.add_argument(
        "--source", type=int, metavar="VERTEX",
        help="source vertex (default: the Graphalytics source in the .properties file, else vertex 0 of a file "
             "and the vertex of highest out-degree of a built-in graph)"),
    "parents": lambda g: g.add_argument(
        "--parents", action="store_true", help="report each vertex's parent in the BFS tree instead of its level"),
    "alpha": lambda g: g.add_argument(
        "--alpha", type=float, help="damping factor (default: 0.85, or the Graphalytics property)"),
    "tol": lambda g: g.add_argument(
        "--tol", type=float,
        help="convergence tolerance; 0 runs exactly --max-iter iterations (default: 1e-6; 0 with "
             "--output-format graphalytics when the iterations are known)"),
    "pagerank-max-iter": lambda g: g.add_argument(
        "--max-iter", type=_positive_int,
        help="iteration limit (default: 100; with --output-format graphalytics the Graphalytics property)"),
    "cdlp-max-iter": lambda g: g.add_argument(
        "--max-iter", type=_positive_int, help="number of rounds (default: 10, or the Graphalytics property)"),
    "sources": lambda g: g.add_argument(
        "--sources", type=_vertex_list, metavar="V,V,...", help="source vertices, e.g. 0,5,9 (default: every vertex)"),
    "batch-size": lambda g: g.add_argument(
        "--batch-size", type=_positive_int, default=128, metavar="N",
        help="sources processed together (memory grows with N; default: %(default)s)"),
}


def _vertex_pairs(text: str) -> list[tuple[int, int]]:
    try:
        return [(int(a), int(b)) for a, b in (t.split(":") for t in text.split(",") if t.strip())]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pairs U:V separated by commas, got {text!r}") from None


# The options of the algorithms added with louvain (their defaults: the algorithm's own).
OPTIONS.update({
    "method": lambda g: g.add_argument(
        "--method", choices=("auto", "bellman-ford", "delta"), default="auto",
        help="Bellman-Ford, delta-stepping, or auto: delta-stepping on sparse graphs with widely spread "
             "weights on the CPU backend (default: %(default)s)"),
    "delta": lambda g: g.add_argument(
        "--delta", type=float, help="bucket width of delta-stepping (default: the mean edge weight)"),
    "resolution": lambda g: g.add_argument(
        "--resolution", type=float, default=1.0,
        help="modularity resolution: above 1 smaller communities, below 1 larger (default: %(default)s)"),
    "seed": lambda g: g.add_argument(
        "--seed", type=int, help="random seed, for a reproducible answer (default: a fresh one each run)"),
    "k": lambda g: g.add_argument(
        "--k", type=_positive_int, default=3, help="keep edges on at least K-2 triangles (default: %(default)s)"),
    "pairs": lambda g: g.add_argument(
        "--pairs", type=_vertex_pairs, metavar="U:V,...", help="vertex pairs to score (default: every edge)"),
    "msbfs-sources": lambda g: g.add_argument(
        "--sources", type=_vertex_list, metavar="V,V,...", required=True, help="source vertices, e.g. 0,5,9"),
    "cutoff": lambda g: g.add_argument(
        "--cutoff", type=_positive_int, help="stop after this many levels (default: none)"),
    "katz-alpha": lambda g: g.add_argument(
        "--alpha", type=float, default=0.1, help="attenuation factor (default: %(default)s)"),
    "beta": lambda g: g.add_argument(
        "--beta", type=float, default=1.0, help="weight given to every vertex (default: %(default)s)"),
    "max-iter": lambda g: g.add_argument(
        "--max-iter", type=_positive_int, help="iteration limit (default: the algorithm's, as networkx's)"),
    "iter-tol": lambda g: g.add_argument(
        "--tol", type=float, help="convergence tolerance (default: the algorithm's, as networkx's)"),
})

_GRAPH_NOTES = """\
GRAPH is a Matrix Market file (.mtx), a SNAP edge list ('src dst [weight]' lines) or a
Graphalytics graph (its .v, .e or .properties file, or their common prefix). Without
GRAPH a built-in graph is generated (--builtin, default kron: a 2**12-vertex Kronecker
graph with integer weights in [1, 255]).

Vertices are the file's own ids for edge lists and Graphalytics graphs; Matrix Market
and built-in graphs number them from 0.
"""


def _shared_options() -> argparse.ArgumentParser:
    """The parent parser of every subcommand: the graph, the backend and the output."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("graph", metavar="GRAPH", nargs="?", help="graph file; omit to use a built-in graph")
    g = p.add_argument_group("graph")
    g.add_argument("--format", choices=("mtx", "edgelist", "graphalytics"), help="file format (default: detected)")
    g.add_argument("--builtin", choices=list(builtin_graphs.BUILTIN_GRAPHS), help="built-in graph (default: kron)")
    g.add_argument("--scale", type=_positive_int, default=builtin_graphs.DEFAULT_SCALE,
                   help="built-in graph of 2**SCALE vertices (default: %(default)s)")
    g.add_argument("--undirected", action="store_true", help="make the graph undirected (add every reverse edge)")
    g.add_argument("--unweighted", action="store_true", help="ignore edge weights (every edge weighs 1)")
    r = p.add_argument_group("run")
    r.add_argument("--backend", choices=gb.backends.BACKENDS,
                   help="cupy (GPU) or numpy (CPU); default: cupy if a GPU is usable")
    o = p.add_argument_group("output")
    o.add_argument("--top", type=_positive_int, default=10, metavar="K",
                   help="rows of results to print (default: %(default)s)")
    o.add_argument("--output", "-o", type=Path, metavar="FILE",
                   help="write every result to FILE (.csv or .json, or as --output-format says)")
    o.add_argument("--output-format", choices=OUTPUT_FORMATS,
                   help="form of the --output file (default: its suffix); graphalytics: one 'vertex value' line "
                        "a vertex, as the LDBC Graphalytics expected outputs (bfs, cc, cdlp, lcc, pagerank, sssp)")
    o.add_argument("--quiet", "-q", action="store_true",
                   help="no progress on stderr (default: a live line on a terminal, else a line a stage "
                        "longer than half a second)")
    return p


def _add_command(subparsers: Any, spec: AlgorithmSpec, shared: argparse.ArgumentParser) -> _Parser:
    """The subcommand of one algorithm: its help, the shared options and its own."""
    sub: _Parser = subparsers.add_parser(
        spec.name, parents=[shared], help=spec.help, prog=f"{PROG} {spec.name}",
        usage=f"{PROG} {spec.name} [GRAPH] [options]",
        description=f"{spec.help[0].upper()}{spec.help[1:]}: prints and writes {spec.output}.",
        epilog=f"{_GRAPH_NOTES}\nexample:\n  {PROG} {spec.example}\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if spec.options:
        own = sub.add_argument_group(spec.name)
        for name in spec.options:
            OPTIONS[name](own)
    return sub


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser: ``grblas-gpu ALGORITHM [GRAPH] [options]``."""
    p = _Parser(
        prog=PROG,
        usage=f"{PROG} ALGORITHM [GRAPH] [options]",
        description="Run a graph algorithm on a graph file or a built-in graph, on the GPU (CuPy) or CPU (NumPy).",
        epilog=f"{_GRAPH_NOTES}\n'{PROG} ALGORITHM --help' lists the algorithm's options.\n\nexamples:\n"
               + "".join(f"  {PROG} {ALGORITHMS[n].example}\n" for n in ("bfs", "sssp", "pagerank", "bc")),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"{PROG} {gb.__version__}")
    subparsers = p.add_subparsers(dest="algorithm", metavar="ALGORITHM", title="algorithms", required=True)
    shared = _shared_options()
    p.shared_actions = dict(shared._option_string_actions)
    p.commands = {spec.name: _add_command(subparsers, spec, shared) for spec in ALGORITHMS.values()}
    return p
