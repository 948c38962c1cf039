"""``python -m grblas_gpu``: the ``grblas-gpu`` command (see :mod:`grblas_gpu.cli`)."""

from grblas_gpu.cli import main

raise SystemExit(main())
