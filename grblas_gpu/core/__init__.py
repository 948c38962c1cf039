"""python-graphblas's ``graphblas.core`` helpers that its users call (``gb.core.utils``)."""

from . import utils

__all__ = ["utils"]
