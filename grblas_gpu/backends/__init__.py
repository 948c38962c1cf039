"""Backend selection: every object's arrays belong to one backend, ``numpy`` or ``cupy``.

The backend for a new object is, first that applies: an explicit ``backend=``
argument, the innermost :func:`use_backend` context, the ``GRBLAS_GPU_BACKEND``
environment variable, ``cupy`` when a GPU is usable, else ``numpy``.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from typing import Any

from ..exceptions import InvalidValue
from .base import Backend

__all__ = ["BACKENDS", "default_backend", "get_backend", "use_backend", "gpu_available", "Backend",
           "PicklesBackendByName"]

BACKENDS = ("numpy", "cupy")
_stack: list[str] = []


@functools.lru_cache(maxsize=1)
def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - any failure means no usable GPU
        return False


def _check_name(name: str) -> str:
    if name not in BACKENDS:
        raise InvalidValue(f"unknown backend {name!r}: choose 'numpy' or 'cupy'")
    if name == "cupy" and not gpu_available():
        raise InvalidValue("backend 'cupy' asked for, but CuPy is not installed or sees no CUDA GPU")
    return name


def default_backend() -> str:
    """The backend a new object gets when none is named."""
    if _stack:
        return _stack[-1]
    env = os.environ.get("GRBLAS_GPU_BACKEND")
    if env:
        return _check_name(env.strip().lower())
    return "cupy" if gpu_available() else "numpy"


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Context manager: objects created inside default to backend ``name``."""
    _stack.append(_check_name(name))
    try:
        yield
    finally:
        _stack.pop()


@functools.cache
def _load(name: str) -> Backend:
    if name == "numpy":
        from .numpy_backend import NumpyBackend

        return NumpyBackend()
    from .cupy.backend import CupyBackend

    return CupyBackend()


def get_backend(name: str | None = None) -> Backend:
    """The :class:`Backend` named ``name`` (the default backend when None)."""
    return _load(_check_name(name) if name is not None else default_backend())



class PicklesBackendByName:
    """Mixin for objects that hold their backend as ``_be``: pickled by the backend's name (a
    backend holds compiled kernels and launch buffers, and a process has one per name)."""

    _be: Any

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_be"] = self._be.name
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _be=get_backend(state["_be"]))
