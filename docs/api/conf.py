"""Sphinx configuration of the API reference, built from the docstrings.

Build: ``python -m sphinx -W -b html docs/api <output folder>`` (``.ci/run`` does, with
warnings as errors). No GPU is needed: the CuPy backend's modules are not documented here.
"""

from __future__ import annotations

import grblas_gpu

project = "grblas-gpu"
release = version = grblas_gpu.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures show the names and defaults; types are in the docstrings
autoclass_content = "class"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
default_role = "code"  # `name` in a docstring reads as code, not as an unknown reference
nitpicky = False
html_theme = "alabaster"
html_static_path: list[str] = []
exclude_patterns = ["_build"]
