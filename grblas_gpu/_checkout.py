"""Let a source checkout import ``grblas_gpu.algorithms`` when the install's mapping is absent.

The folder ``algorithms/`` is installed as ``grblas_gpu.algorithms`` (pyproject's
package-dir).  An installed copy or a working editable install maps it; when neither
does (e.g. an editable install made by an old setuptools, or running from the
checkout with ``PYTHONPATH``), this finder loads ``algorithms/`` from beside the
package so the checkout still works.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_NAME = "grblas_gpu.algorithms"


class _CheckoutFinder(importlib.abc.MetaPathFinder):
    """Finds ``grblas_gpu.algorithms`` in the checkout's ``algorithms/`` folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _NAME:
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.folder / "__init__.py", submodule_search_locations=[str(self.folder)])


def find_algorithms_beside_package() -> None:
    """Install the fallback finder (last, so a real install always wins)."""
    folder = Path(__file__).resolve().parent.parent / "algorithms"
    if (folder / "__init__.py").is_file() and not any(isinstance(f, _CheckoutFinder) for f in sys.meta_path):
        sys.meta_path.append(_CheckoutFinder(folder))
