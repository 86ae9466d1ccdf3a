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
