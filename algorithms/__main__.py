"""``python -m grblas_gpu.algorithms``: the ``grblas-gpu`` command (see :mod:`.cli`)."""

from .cli import main

raise SystemExit(main())
