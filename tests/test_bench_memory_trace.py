"""The worker-memory census (``bench/_memory_trace.py``): it reads pymalloc's arenas and the
process's anonymous memory from the allocators themselves, and its report tells data kept
apart from what the allocators hold free. Counted in bytes and pages, never timed."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH)]

import _memory_trace  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_the_census_sees_small_objects_land_in_pymallocs_arenas() -> None:
    before = _memory_trace._pymalloc()
    kept = [(i, str(i)) for i in range(200_000)]  # small objects: pymalloc's, not glibc's
    after = _memory_trace._pymalloc()
    assert after["pymalloc_live_mb"] - before["pymalloc_live_mb"] > 10
    assert after["pymalloc_arenas"] > before["pymalloc_arenas"]
    assert after["pymalloc_live_mb"] <= after["pymalloc_arenas"]  # arenas are 1 MiB each
    assert len(kept) == 200_000


def test_the_census_reads_the_brk_heap_and_anonymous_memory() -> None:
    found = _memory_trace._smaps()
    assert 0 < found["brk_heap_rss_mb"] < found["anonymous_mb"] < _memory_trace._rss_mb()


def test_the_report_splits_growth_between_kept_data_and_free_space() -> None:
    first = {"done": 1000, "rss_mb": 100.0, "pymalloc_arenas": 50, "pymalloc_live_mb": 48.0}
    first |= {"heap_in_use_mb": 20.0, "heap_free_mb": 1.0}
    last = {"done": 3000, "rss_mb": 110.0, "pymalloc_arenas": 56, "pymalloc_live_mb": 51.0}
    last |= {"heap_in_use_mb": 22.0, "heap_free_mb": 3.0}
    line = _memory_trace._split(first, last)
    assert "RSS +10.0 MB (5.00 per 1,000)" in line
    assert "live in the allocators +5.0 MB" in line  # 3 of pymalloc's, 2 of glibc's
    assert "held free by them (pymalloc's arenas, glibc's heap) +5.0 MB" in line  # 3 + 2


def test_the_census_records_each_memos_bounds_and_the_report_sums_their_fill() -> None:
    from digest.reversal import signals_change

    signals_change("The endpoint no longer accepts the token; send the key instead.")
    found = _memory_trace._memories()
    entry = found["digest.reversal.signals_change"]
    info = signals_change.memo_info()  # type: ignore[attr-defined]
    assert entry[4:] == [info.max_entries, info.max_bytes]
    assert 0 < entry[1] <= entry[5]
    memories = {
        "a": [3, 2**20, 5, 1, 10, 4 * 2**20],
        "b": [1, 2**20, 0, 1, 10, 4 * 2**20],
        "unbounded by bytes": [7, 9 * 2**20, 1, 1],  # an lru_cache: counted in neither
        "not weighed": [2, -1],
    }
    assert _memory_trace.filled(memories) == (2.0, 8.0)


def test_a_memory_is_full_at_either_bound_and_unused_ones_are_not_counted() -> None:
    memories = {
        "at its entry bound": [1000, 2**10, 0, 0, 1024, 2**20],
        "at its byte bound": [10, 2**20 - 100, 0, 0, 1024, 2**20],
        "filling": [100, 2**16, 0, 0, 1024, 2**20],
        "entry bound given per call (0 here), bytes low": [50, 2**12, 0, 0, 0, 2**20],
        "unused": [0, 0, 0, 0, 1024, 2**20],
        "an lru_cache": [7, -1, 1, 1],
    }
    assert _memory_trace.full(memories) == (2, 4)


def test_a_childs_kept_bytes_are_read_back_as_written(tmp_path: Path) -> None:
    import _kept_bytes

    assert _kept_bytes.read(tmp_path, 4242) == (0.0, 0.0)  # a process that reported nothing
    _kept_bytes.write(tmp_path, 4242, 3 * 2**20, 2**19)
    assert _kept_bytes.read(tmp_path, 4242) == (3.0, 0.5)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_child_reports_what_its_byte_bounded_memories_hold_as_the_census_sums_it() -> None:
    import _kept_bytes

    import digest.lessons.stats  # noqa: F401  # holds SQLAlchemy's func, which answers any name
    from digest.reversal import signals_change
    from digest.runtime import runtime
    from digest.versions.replay.facts import _Kept

    before = _kept_bytes.bounded_held()
    census_before = _memory_trace.filled(_memory_trace._memories())[0] * 2**20
    info = signals_change.memo_info()  # type: ignore[attr-defined]
    signals_change("The form no longer takes a fax number; give an e-mail address instead.")
    grown = signals_change.memo_info().nbytes - info.nbytes  # type: ignore[attr-defined]
    assert grown > 0
    windows = runtime().piece(_Kept).windows  # a runtime piece's BytesLRU, counted once
    windows.put(("db", 1), np.arange(1000))
    after = _kept_bytes.bounded_held()
    assert after - before == grown + windows.nbytes
    # the census finds the same growth; it weighs a runtime piece as a whole (its lock, its
    # objects' slots), a little more than what its BytesLRUs count. (Growth, not totals: in a
    # process that ran other tests first, memories the census cannot reach may hold bytes.)
    census = _memory_trace.filled(_memory_trace._memories())[0] * 2**20
    assert after - before <= census - census_before < after - before + 4096
