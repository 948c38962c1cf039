"""The readers' optional compiled parser (grblas_gpu/io/_cparse.c); everything else is in pyproject.toml.

``optional=True``: where no C compiler works, the package installs without it and the readers
use their other paths (pyarrow where installed, else the pure NumPy path).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("grblas_gpu.io._cparse", ["grblas_gpu/io/_cparse.c"], optional=True)])
