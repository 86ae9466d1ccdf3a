"""Each worker child's kept indexes' bytes, for ``bench/throughput.py``'s RSS verdict (issue 27).

A child's RSS holds the bank it keeps (``digest.lessons.bank.kept_sizes``: ``AgentIndex.nbytes``
of every agent's kept index and overlay, near words included). The verdict on a growth trend
nets each process's RSS by its own kept bytes, measured, instead of a constant per active
lesson (which missed what the indexes' near words and overlays add as the bank grows). Beside
them each child reports what its byte-bounded memories hold (``bounded_held``: every ``memo``
and ``BytesLRU`` of ``digest``/``worker``, at the module level or in a piece of its runtime, the
kept indexes aside), so that the verdict's window starts once they have stopped filling.

Opt-in: the worker runs with ``BENCH_KEPT_BYTES = DIR`` (set by ``bench/_pipeline.py``); after a
task, at most every ``EVERY_S`` seconds, each child writes its kept bytes and its bounded
memories' bytes to ``DIR/<pid>`` (written aside and renamed, so a reader never sees half a
line). The benchmark reads the file of each process it samples (``read``): a process with none
(the main process, a child before its first task) keeps nothing."""

from __future__ import annotations

import os
import sys
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

    write(_State.folder, os.getpid(), kept_sizes()[1], bounded_held())


def bounded_held() -> int:
    """Bytes this process's byte-bounded memories hold: each ``memo`` (``memo_info``) and each
    ``BytesLRU`` at the module level of ``digest`` and ``worker``, and each ``BytesLRU`` a piece
    of its runtime is or holds (counted once each). What ``bench/_memory_trace.py``'s census
    sums as "held" without weighing anything else: cheap enough to read after every task."""
    from digest.bounded import BytesLRU, MemoInfo
    from digest.runtime import runtime

    seen: set[int] = set()
    held = 0
    pieces = list(getattr(runtime(), "_pieces", {}).values())
    values = [p for piece in pieces for p in (piece, *getattr(piece, "__dict__", {}).values())]
    for name, module in list(sys.modules.items()):
        if module is not None and name.startswith(("digest", "worker")):
            values.extend(list(vars(module).values()))
    for value in values:
        if id(value) in seen:
            continue
        if isinstance(value, BytesLRU):
            seen.add(id(value))
            held += value.nbytes
            continue
        # a memo's wrapper carries it in its own ``__dict__`` (not through ``__getattr__``:
        # SQLAlchemy's ``func`` answers any name)
        info = getattr(value, "__dict__", {}).get("memo_info") if callable(value) else None
        if callable(info) and isinstance(found := info(), MemoInfo):
            seen.add(id(value))
            held += found.nbytes if found.max_bytes > 0 else 0
    return held


def write(folder: Path, pid: int, nbytes: int, bounded: int = 0) -> None:
    tmp = folder / f"{pid}.tmp"
    tmp.write_text(f"{nbytes} {bounded}")
    tmp.replace(folder / str(pid))


def read(folder: Path, pid: int) -> tuple[float, float]:
    """The MB process ``pid`` last reported keeping in its kept indexes and in its bounded
    memories ((0.0, 0.0): it reported nothing)."""
    try:
        kept, bounded = (folder / str(pid)).read_text().split()
        return int(kept) / 2**20, int(bounded) / 2**20
    except (OSError, ValueError):
        return 0.0, 0.0


def install() -> None:
    """In a worker (main process): each pool child reports its kept bytes after its tasks."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    from celery import signals

    _State.folder = Path(folder)
    signals.task_postrun.connect(_after_task, weak=False)
