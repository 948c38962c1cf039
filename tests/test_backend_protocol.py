"""The backend Protocol lists every public method of the backends (mypy checks the types: see
``grblas_gpu.backends.protocol._conforming``)."""

from __future__ import annotations

import pytest

from grblas_gpu.backends import Backend
from grblas_gpu.backends.numpy_backend import NumpyBackend
from grblas_gpu.backends.protocol import BackendProtocol

_HELPERS = {"check_adds_in_one_pass"}  # a check built on adds_in_one_pass, not a backend's to provide


def _public(cls: type) -> set[str]:
    """Public methods and attributes (declared ones too, as the protocol's ``name``)."""
    return {n for n in set(dir(cls)) | set(getattr(cls, "__annotations__", {})) if not n.startswith("_")}


def test_protocol_lists_every_numpy_method() -> None:
    assert _public(NumpyBackend) - _HELPERS - _public(BackendProtocol) == set()


def test_protocol_lists_every_cupy_method() -> None:
    backend = pytest.importorskip("grblas_gpu.backends.cupy.backend", exc_type=ImportError)
    internal = {"count_true_queued"}  # used inside the CuPy backend only
    # Tuning knobs of the CuPy backend's mat-vec plans (set by the variant benchmarks), not
    # methods of the contract.
    internal |= {"push_balance_row", "merge_min_nnz", "hot_columns", "hot_min_share", "hot_min_nnz"}
    assert _public(backend.CupyBackend) - _HELPERS - internal - _public(BackendProtocol) == set()


def test_every_protocol_method_is_provided() -> None:
    missing = {n for n in _public(BackendProtocol) if not hasattr(NumpyBackend, n)}
    assert missing == set()
    assert issubclass(NumpyBackend, Backend)
