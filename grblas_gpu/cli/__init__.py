"""The ``grblas-gpu`` command: run one graph algorithm on a graph file or a built-in graph.

    grblas-gpu ALGORITHM [GRAPH] [options]
    grblas-gpu ALGORITHM --help            # the algorithm's own options
    grblas-gpu --version

Each algorithm is a subcommand (:data:`ALGORITHMS`) with only the options it uses, and
the options every subcommand shares (graph file, format, backend, output).  GRAPH is read
by :func:`grblas_gpu.io.read_graph` (Matrix Market, SNAP edge list or a Graphalytics
``.v``/``.e`` pair); without it the command generates a built-in graph
(:mod:`grblas_gpu.cli.builtin_graphs`).  It prints what it loaded, how long loading and
computing took and the top results, and can write every result to CSV, JSON or the LDBC
Graphalytics output form (``--output-format graphalytics``).  Steps longer than half a
second report their progress on stderr (``--quiet`` silences it).

Vertex numbers on the command line and in the output are the file's own ids where the
file has them (edge lists, Graphalytics); Matrix Market and built-in graphs number their
vertices from 0.  Errors are one line of stderr: exit status 1 for bad input, 2 for bad
arguments and for internal faults (``GRBLAS_GPU_TRACEBACK=1`` shows their traceback).

Modules: :mod:`.commands` (the table of subcommands), :mod:`.parser` (arguments),
:mod:`.graphs` (loading), :mod:`.report` (printing and output files),
:mod:`.graphalytics_output`, :mod:`.progress`, :mod:`.counted` (algorithms run in counted
parts), :mod:`.app` (the run and :func:`main`).
"""

from __future__ import annotations

from .app import main, run
from .commands import ALGORITHMS, AlgorithmSpec
from .errors import CliError
from .parser import build_parser
from .progress import Progress

__all__ = ["ALGORITHMS", "AlgorithmSpec", "CliError", "Progress", "build_parser", "main", "run"]
