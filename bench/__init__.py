"""Benchmarks (issue 6). Each module runs as a script (``python bench/x.py``) and is importable
as ``bench.x`` by a runner; each exposes ``measure(scale: float = 1.0) -> list[Figure]``."""
