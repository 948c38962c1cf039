"""The backend's metadata for networkx; it lives in the top-level ``_grblas_gpu_nx`` so that
networkx's import, which reads every backend's metadata, does not import ``grblas_gpu``."""

from _grblas_gpu_nx import FUNCTION_NAMES, get_info

__all__ = ["FUNCTION_NAMES", "get_info"]
