"""``NvgraphError`` and ``nvgraphStatusGetString``: the C status codes as a Python exception."""

from __future__ import annotations

from . import constants as c

_STRINGS = {
    c.NVGRAPH_STATUS_SUCCESS: "Success",
    c.NVGRAPH_STATUS_NOT_INITIALIZED: "nvGRAPH not initialized",
    c.NVGRAPH_STATUS_ALLOC_FAILED: "nvGRAPH alloc failed",
    c.NVGRAPH_STATUS_INVALID_VALUE: "nvGRAPH invalid value",
    c.NVGRAPH_STATUS_ARCH_MISMATCH: "nvGRAPH arch mismatch",
    c.NVGRAPH_STATUS_MAPPING_ERROR: "nvGRAPH mapping error",
    c.NVGRAPH_STATUS_EXECUTION_FAILED: "nvGRAPH execution failed",
    c.NVGRAPH_STATUS_INTERNAL_ERROR: "nvGRAPH internal error",
    c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED: "nvGRAPH type not supported",
    c.NVGRAPH_STATUS_NOT_CONVERGED: "nvGRAPH algorithm failed to converge",
    c.NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED: "nvGRAPH graph type not supported",
}


def nvgraphStatusGetString(status: int) -> str:
    """The C library's text for a status code (``"Unknown nvGRAPH Status"`` for any other)."""
    return _STRINGS.get(int(status), "Unknown nvGRAPH Status")


class NvgraphError(Exception):
    """A failing nvGRAPH call; ``status`` is the C ``nvgraphStatus_t`` it would have returned."""

    def __init__(self, status: int, detail: str = "") -> None:
        self.status = int(status)
        self.detail = detail
        text = nvgraphStatusGetString(status)
        super().__init__(f"{text}: {detail}" if detail else text)


def invalid(detail: str) -> NvgraphError:
    """An ``NVGRAPH_STATUS_INVALID_VALUE`` error."""
    return NvgraphError(c.NVGRAPH_STATUS_INVALID_VALUE, detail)


def type_not_supported(detail: str) -> NvgraphError:
    """An ``NVGRAPH_STATUS_TYPE_NOT_SUPPORTED`` error."""
    return NvgraphError(c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, detail)


def require(condition: bool, detail: str, status: int = c.NVGRAPH_STATUS_INVALID_VALUE) -> None:
    """Raise ``NvgraphError(status, detail)`` unless ``condition`` holds."""
    if not condition:
        raise NvgraphError(status, detail)
