"""The grblas-gpu benchmark suite: ``python -m benchmarks --help``."""
