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
    ``kwargs`` go to the cluster class."""
    if not gpu:
        from distributed import LocalCluster

        return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                            dashboard_address=kwargs.pop("dashboard_address", None), **kwargs)
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        from distributed import Nanny, Scheduler, SpecCluster

        workers = {i: {"cls": Nanny, "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
                   for i in range(n_workers)}
        scheduler = {"cls": Scheduler, "options": {"dashboard_address": None}}
        return SpecCluster(workers=workers, scheduler=scheduler, **kwargs)
    return LocalCUDACluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None, **kwargs)
