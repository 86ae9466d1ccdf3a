"""Each worker child's kept indexes' bytes, for ``bench/throughput.py``'s RSS verdict (issue 27).

A child's RSS holds the bank it keeps (``digest.lessons.bank.kept_sizes``: ``AgentIndex.nbytes``
of every agent's kept index and overlay, near words included). The verdict on a growth trend
nets each process's RSS by its own kept bytes, measured, instead of a constant per active
lesson (which missed what the indexes' near words and overlays add as the bank grows).

Opt-in: the worker runs with ``BENCH_KEPT_BYTES = DIR`` (set by ``bench/_pipeline.py``); after a
task, at most every ``EVERY_S`` seconds, each child writes its kept bytes to ``DIR/<pid>``
(written aside and renamed, so a reader never sees half a number). The benchmark reads the file
of each process it samples (``read``): a process with none (the main process, a child before its
first task) keeps nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

ENV = "BENCH_KEPT_BYTES"
#: a child writes at most this often: a sample a second reads a figure at most this old
EVERY_S = 0.25


class _State:
    folder: Path | None = None
    written_at = 0.0


def _after_task(*_: Any, **__: Any) -> None:
    now = time.monotonic()
    if _State.folder is None or now - _State.written_at < EVERY_S:
        return
    _State.written_at = now
    from digest.lessons.bank import kept_sizes

    write(_State.folder, os.getpid(), kept_sizes()[1])


def write(folder: Path, pid: int, nbytes: int) -> None:
    tmp = folder / f"{pid}.tmp"
    tmp.write_text(str(nbytes))
    tmp.replace(folder / str(pid))


def read(folder: Path, pid: int) -> float:
    """The MB process ``pid`` last reported keeping (0.0: it reported nothing)."""
    try:
        return int((folder / str(pid)).read_text() or 0) / 2**20
    except (OSError, ValueError):
        return 0.0


def install() -> None:
    """In a worker (main process): each pool child reports its kept bytes after its tasks."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    from celery import signals

    _State.folder = Path(folder)
    signals.task_postrun.connect(_after_task, weak=False)
