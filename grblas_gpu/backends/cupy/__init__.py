"""The CuPy backend: CUDA kernels generated from the operators, compiled through CuPy.

``codegen`` and ``registry`` are pure Python and import without CuPy; only
``backend`` imports CuPy (``grblas_gpu.backends.get_backend("cupy")`` loads it).
"""
