"""A worker's memory (issue 27 point 4): freed heap given back to the system after each task,
with glibc only; the imports' objects frozen before the pool forks.

A batch's transient allocations (rows read, a bank rebuilt, a version's replay) raise the
heap; once freed, glibc keeps the pages while any live chunk sits above them, so a worker's
RSS steps up by megabytes and never comes down. ``malloc_trim(0)`` returns every free page of
every arena (some tenths of a millisecond per call: a task is a batch of events). Other C
libraries (musl, macOS) have no such call: nothing is done there.

``warm_up_shared``: what every child reads on its first task and never changes (the packaged
static embedding table and its tokenizer, about 9 MB; the regrouped searches of
``digest.pattern_start``) is read by the main process instead,
before the pool forks: the children share those pages rather than each growing by a copy as
it starts working (and a child forked again after a crash starts warm).

``freeze_imports``: the main process has imported everything a task runs (the tasks, the
pipeline, numpy, the models it needs) when the worker starts; ``gc.freeze()`` then moves those
objects out of the collector's generations, so that a child's collections never walk them
(and never write their headers: the pages stay shared with the parent after the fork).
"""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Callable
from typing import Any

from celery import signals

from digest.config import get_settings


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc's; musl's libc has none
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def _after_task(**_: Any) -> None:
    if _TRIM is not None:
        _TRIM(0)


def connect_trim() -> None:
    """Trim the heap after each task when ``DIGEST_WORKER_MALLOC_TRIM`` is on."""
    if _TRIM is not None and get_settings().worker_malloc_trim:
        signals.task_postrun.connect(_after_task, weak=False)


def freeze_imports() -> int:
    """Collect what is garbage now, then freeze every object left (the imports'): children
    forked after this inherit them frozen. The objects frozen (``gc.get_freeze_count()``)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def warm_up_shared() -> None:
    """Read, in the main process, the data every child would read for itself: the packaged
    static table and its tokenizer (``digest.identity.embedding.warm_up_static``), and the
    regrouped searches of the modules imported (``digest.pattern_start.build_all``)."""
    from digest.identity.embedding import warm_up_static
    from digest.pattern_start import build_all

    warm_up_static()
    build_all()
