"""A local cluster of one worker per GPU (dask-cuda's where installed), or of CPU workers."""

from __future__ import annotations

from typing import Any

__all__ = ["local_cluster"]


def local_cluster(n_workers: int, *, gpu: bool = True, **kwargs: Any) -> Any:
    """A cluster on this host of ``n_workers`` worker processes with one thread each.

    ``gpu=True``: worker ``i`` sees only GPU ``i`` (``CUDA_VISIBLE_DEVICES``), through
    dask-cuda's ``LocalCUDACluster`` where installed, else a ``SpecCluster`` of Nannies each
    given its own device; the workers then run the CuPy backend and exchange vectors through
    NCCL.  ``gpu=False``: a ``LocalCluster`` (NumPy backend, exchanges through Dask).
    ``kwargs`` go to the cluster class.

    Each worker may use ``1 / n_workers`` of the host's memory (``memory_limit``): Dask's own
    default gives a worker of one thread its share of the cores' worth, 8 GB of 128 on 16
    cores, and its nanny kills a worker that builds a kron 24 partition."""
    kwargs.setdefault("memory_limit", _memory_share(n_workers))
    if not gpu:
        from distributed import LocalCluster

        return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                            dashboard_address=kwargs.pop("dashboard_address", None), **kwargs)
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        from distributed import Nanny, Scheduler, SpecCluster

        limit = kwargs.pop("memory_limit")
        workers = {i: {"cls": Nanny, "options": {"nthreads": 1, "memory_limit": limit,
                                                 "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
                   for i in range(n_workers)}
        scheduler = {"cls": Scheduler, "options": {"dashboard_address": None}}
        return SpecCluster(workers=workers, scheduler=scheduler, **kwargs)
    return LocalCUDACluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None, **kwargs)


def _memory_share(n_workers: int) -> int:
    """Bytes of host memory for each of ``n_workers`` workers: an equal share of all of it."""
    import psutil  # type: ignore[import-untyped]  # (a dependency of distributed)

    return int(psutil.virtual_memory().total // max(1, n_workers))
