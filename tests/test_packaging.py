"""What ``pip install .`` (not editable) installs: every package of the source tree.

An editable install, which the tests and CI use, imports from the checkout and so never shows
a package that pyproject.toml's explicit list leaves out; the installed package then fails at
import (``grblas_gpu.core`` once did)."""

from __future__ import annotations

import pathlib

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _source_packages() -> set[str]:
    """Every folder with an ``__init__.py`` under the installed trees, by its import name."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = {name: ROOT / path for name, path in config.get("package-dir", {}).items()}
    found = set()
    for top in ("grblas_gpu", "_grblas_gpu_nx", *dirs):
        base = dirs.get(top, ROOT / top.replace(".", "/"))
        for init in base.rglob("__init__.py"):
            parts = init.parent.relative_to(base).parts
            found.add(".".join((top, *parts)))
    return found


def test_every_package_is_listed() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert _source_packages() - listed == set(), "packages missing from [tool.setuptools] packages"
    assert listed - _source_packages() == set(), "listed packages with no folder"
