"""nvGRAPH's C API (CUDA 8.0 - 10.2) as a thin Python layer over ``grblas_gpu``.

Functions keep their C names and argument order, without the output pointers: what C wrote
through a pointer is returned (``nvgraphCreate() -> handle``), and data buffers (NumPy or CuPy
arrays) are filled in place.  A successful call returns ``NVGRAPH_STATUS_SUCCESS`` (or its
documented result); a failing one raises ``NvgraphError`` whose ``status`` is the C status.
Behaviour follows what the released library did (see docs/nvgraph.md).
"""

from . import analytics, clustering, constants, convert, graph
from .analytics import *  # noqa: F403
from .clustering import *  # noqa: F403
from .constants import *  # noqa: F403
from .convert import *  # noqa: F403
from .errors import NvgraphError, nvgraphStatusGetString
from .graph import *  # noqa: F403
from .topology import (
    nvgraphCOOTopology32I_st,
    nvgraphCOOTopology32I_t,
    nvgraphCSCTopology32I_st,
    nvgraphCSCTopology32I_t,
    nvgraphCSRTopology32I_st,
    nvgraphCSRTopology32I_t,
)

__all__ = (
    ["NvgraphError", "nvgraphStatusGetString", "nvgraphCSRTopology32I_st", "nvgraphCSCTopology32I_st",
     "nvgraphCOOTopology32I_st", "nvgraphCSRTopology32I_t", "nvgraphCSCTopology32I_t", "nvgraphCOOTopology32I_t"]
    + constants.__all__ + graph.__all__ + analytics.__all__ + convert.__all__ + clustering.__all__
)


def _guard_c_functions() -> None:
    """Every ``nvgraph*`` function, here and in its module, fails only through NvgraphError."""
    import inspect

    from .errors import c_api

    for module in (analytics, clustering, convert, graph):
        for name in module.__all__:
            fn = getattr(module, name)
            if name.startswith("nvgraph") and inspect.isfunction(fn) and not hasattr(fn, "__wrapped_c_api__"):
                wrapped = c_api(fn)
                setattr(module, name, wrapped)
                globals()[name] = wrapped


_guard_c_functions()
