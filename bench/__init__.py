"""Benchmarks (issue 6). ``bench/run_all.py`` runs them all and writes bench/RESULTS.md."""
