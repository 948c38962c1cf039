"""Reading and writing graphs and matrices: Matrix Market, SNAP edge lists, LDBC Graphalytics,
and conversions to and from SciPy, CuPy (cupyx) and NetworkX.

Every reader parses into NumPy arrays first (the ``parse_*`` functions return them) and
builds the :class:`~grblas_gpu.Matrix` at the end, on the backend asked for.  A malformed
file raises :class:`FileFormatError` (an ``InvalidValue``) whose message names the file,
the line and what is wrong.

Unweighted graphs (Matrix Market ``pattern``, two-column edge lists) are read as BOOL
matrices with every entry true; pass ``dtype=`` to get another type.

The data is read in chunks of whole lines: by a compiled strict parser where the package
was built with it (an optional C extension, built where a C compiler works), else by
pyarrow's CSV reader where it is installed (``pip install "grblas-gpu[readers]"``), else by
a pure NumPy path, which also takes any chunk the others decline and finds the exact error.  ``progress=`` (a callable
``progress(bytes_done, bytes_total)``, or True for a line per chunk on stderr) reports
long files; nothing is printed otherwise.  ``GRBLAS_GPU_PURE_READERS=1`` forces the
pure path; ``GRBLAS_GPU_COMPILED_READERS=0`` turns the compiled parser alone off.  Figures and rules: ``docs/readers.md``.
"""

from .detect import LoadedGraph, detect_format, read_graph
from .edgelist import EdgeList, parse_edgelist, read_edgelist
from .errors import FileFormatError, UnsupportedFormatError
from .graphalytics import (
    GraphalyticsFiles,
    GraphalyticsGraph,
    find_graphalytics_files,
    parse_properties,
    read_graphalytics,
    read_graphalytics_output,
)
from .interop import from_cupyx_sparse, from_networkx, to_cupyx_sparse
from .matrixmarket import MMHeader, mminfo, parse_matrix_market, write_matrix_market
from .pg_options import from_scipy_sparse, mmread, mmwrite, to_networkx, to_scipy_sparse  # python-graphblas's options

__all__ = [
    "FileFormatError",
    "UnsupportedFormatError",
    # Matrix Market
    "MMHeader",
    "mminfo",
    "mmread",
    "mmwrite",
    "parse_matrix_market",
    "write_matrix_market",
    # edge lists
    "EdgeList",
    "parse_edgelist",
    "read_edgelist",
    # Graphalytics
    "GraphalyticsFiles",
    "GraphalyticsGraph",
    "find_graphalytics_files",
    "parse_properties",
    "read_graphalytics",
    "read_graphalytics_output",
    # any format
    "LoadedGraph",
    "detect_format",
    "read_graph",
    # other libraries
    "from_scipy_sparse",
    "to_scipy_sparse",
    "from_cupyx_sparse",
    "to_cupyx_sparse",
    "from_networkx",
    "to_networkx",
]
