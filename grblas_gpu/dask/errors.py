"""Errors of the distributed objects, named after ``GrB_Info`` as the rest of the package's."""

from __future__ import annotations

from ..exceptions import GraphBLASError, InvalidObject

__all__ = ["Panic", "WorkerLost", "PartitionMismatch"]


class Panic(GraphBLASError, RuntimeError):
    """``GrB_PANIC``: the computation could not finish (a worker of the cluster failed)."""

    info = "GrB_PANIC"


class WorkerLost(Panic):
    """A worker holding a partition died or left during the call.

    ``worker`` is its address and ``partitions`` the partitions it held.  The objects the
    call was writing are unchanged; the other partitions stay on their workers.  Rebuild the
    lost partitions (:meth:`DistMatrix.rebuild`) and call again.
    """

    def __init__(self, message: str, worker: str = "", partitions: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.worker = worker
        self.partitions = partitions


class PartitionMismatch(InvalidObject):
    """``GrB_INVALID_OBJECT``: two distributed operands are partitioned differently (other
    row offsets or workers) or belong to two clients, or a local object meets a distributed one."""
