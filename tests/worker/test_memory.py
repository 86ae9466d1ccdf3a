"""The heap trim after each task (``worker.memory``): connected by the setting, on glibc only;
a trim gives freed pages back (counted in pages, never timed)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from celery import signals

from digest.config import get_settings
from worker import memory


@pytest.fixture()
def trim_setting(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    get_settings.cache_clear()
    yield monkeypatch
    signals.task_postrun.disconnect(memory._after_task)
    get_settings.cache_clear()


def _connected() -> bool:
    return any(receiver is memory._after_task for _key, receiver in signals.task_postrun.receivers)


@pytest.mark.skipif(memory._TRIM is None, reason="glibc only")
def test_the_trim_runs_after_each_task_unless_turned_off(
    trim_setting: pytest.MonkeyPatch,
) -> None:
    trim_setting.setenv("DIGEST_WORKER_MALLOC_TRIM", "false")
    memory.connect_trim()
    assert not _connected()
    trim_setting.setenv("DIGEST_WORKER_MALLOC_TRIM", "true")
    get_settings.cache_clear()
    memory.connect_trim()
    assert _connected()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.skipif(memory._TRIM is None, reason="glibc only")
def test_a_trim_gives_freed_heap_back() -> None:
    def resident_pages() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1])

    # many small chunks below glibc's mmap threshold, then every other one but the last freed:
    # the heap keeps its pages (a live chunk sits above them) until trimmed
    held = [bytearray(8192) for _ in range(6000)]
    del held[:-1]
    before = resident_pages()
    memory._after_task()
    assert resident_pages() < before


def test_the_imports_are_frozen_before_the_pool_forks() -> None:
    """``freeze_imports`` (the worker's start, before its children fork) moves the objects
    alive now out of the collector's generations: a collection no longer walks them, and a
    child inherits them frozen. Garbage is collected first, not frozen."""
    import gc

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    try:
        Cycle()  # garbage in a cycle: only a collection frees it
        frozen = memory.freeze_imports()
        # frozen objects another thread of this process lets go of meanwhile are freed (the
        # count may drop by a few), and nothing else freezes: at most what it froze
        assert 1000 < gc.get_freeze_count() <= frozen
        assert not any(type(o) is Cycle for o in gc.get_objects())
        assert all(len(gc.get_objects(generation)) < frozen for generation in (0, 1, 2))
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_the_worker_freezes_its_imports_at_start(trim_setting: pytest.MonkeyPatch) -> None:
    """Done by ``worker_init`` (``worker.logging``), which Celery sends in the main process
    after it imported the tasks and before the pool forks."""
    import gc

    from worker import logging as worker_logging

    assert gc.get_freeze_count() == 0
    try:
        worker_logging._on_worker_init(sender=None)
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


def test_the_main_process_reads_the_static_table_its_children_share() -> None:
    """``warm_up_shared`` reads the packaged table and tokenizer once; every static embedder
    of the process (and of a child forked after it) uses that one copy, even after the
    runtime's reset a child makes."""
    from digest.identity.embedding import StaticEmbedder, packaged_table
    from digest.identity.wordpiece import default_tokenizer
    from digest.runtime import runtime

    memory.warm_up_shared()
    assert packaged_table.cache_info().currsize == 1
    assert default_tokenizer.cache_info().currsize == 1
    runtime().reset()  # what a forked child does first
    table, tokenizer = StaticEmbedder()._load()
    assert table is packaged_table() and tokenizer is default_tokenizer()


def test_the_main_process_builds_the_regrouped_searches_its_children_share() -> None:
    """``warm_up_shared`` builds every ``digest.pattern_start.built_once`` of the modules a
    worker imports (the reversal markers, the error families, the screen's checks): a child
    forked after it finds them built."""
    import worker.tasks  # noqa: F401  (what the worker's main process imports)
    from digest import reversal
    from digest.model import error_families
    from digest.reflect import screen, tripwire

    builds = (
        reversal._marker_found, error_families._searched, tripwire._view_checks,
        screen._attack_word,
    )  # fmt: skip
    for build in builds:
        build.cache_clear()  # type: ignore[attr-defined]
    memory.warm_up_shared()
    assert all(build.cache_info().currsize == 1 for build in builds)  # type: ignore[attr-defined]
