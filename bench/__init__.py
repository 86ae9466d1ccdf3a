"""Benchmarks (issue 6). ``bench/run_all.py`` runs them all and writes bench/RESULTS.md.

Each module runs as a script (``python bench/x.py``) and is importable as ``bench.x`` by the
runner; each exposes ``measure(scale: float = 1.0) -> list[Figure]``."""
