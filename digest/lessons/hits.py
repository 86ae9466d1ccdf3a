"""Hit counts of surfaced lessons, written off the agent's turn (issue 27).

``pitfalls`` surfaces a few lessons and each gets ``hit_count + 1`` and ``last_seen_at``. The
agent need not wait for that write: ``count_hits`` queues the ids and returns, and one thread
per process writes what is queued, each database's in one UPDATE per distinct increment
(the ids a burst of calls surfaced within ``offturn.GATHER_S``, summed). ``flush_hits`` waits
until what was queued before it is written (a command that exits, a test that reads the
counts).

A hit count is a statistic: rows another transaction holds are skipped, not waited for (that
lesson misses those hits), the commit does not wait for the disk, and a process that dies
loses what it had not written. The queue is a piece of the process's runtime: its reset
writes what is left (in the process that queued it; a forked child drops its parent's).
"""

from __future__ import annotations

import atexit
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import cast

from sqlalchemy import Table, bindparam, select, text, update

from digest.lessons.offturn import FLUSH_WAIT_S, OffTurnWriter
from digest.models import Lesson, utcnow
from digest.runtime import runtime


class _Hits(OffTurnWriter):
    """Queued hits by database URL (lesson id -> hits), and the thread that writes them."""

    thread_name = "digest-hits"
    failure = "hit_count_failed"

    def empty(self) -> defaultdict[str, Counter[int]]:
        return defaultdict(Counter)

    def write(self, batch: dict[str, Counter[int]]) -> None:
        _write(batch)

    def add(self, url: str, ids: Iterable[int]) -> None:
        self.queue(lambda queued: queued[url].update(ids))


def _write(batch: dict[str, Counter[int]]) -> None:
    from digest.db import get_engine

    for url, counts in batch.items():
        by_increment: dict[int, list[int]] = defaultdict(list)
        for lesson_id, times in counts.items():
            by_increment[times].append(lesson_id)
        engine = get_engine(url)
        with engine.begin() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(_ASYNC_COMMIT)
            now = utcnow()
            for times, ids in by_increment.items():
                connection.execute(_BUMP, {"ids": ids, "times": times, "now": now})


# Built once: a statement built per write (its alias's 40 columns made anew each time) cost
# the writer thread milliseconds of CPU, which the agent's next turn waited for.
_ASYNC_COMMIT = text("SET LOCAL synchronous_commit TO OFF")
_LESSONS = cast(Table, Lesson.__table__)
# an alias: not correlated with the UPDATE target
_FREE = _LESSONS.alias("free")
_BUMP = (
    update(_LESSONS)
    .where(
        _LESSONS.c.id.in_(
            select(_FREE.c.id)
            .where(_FREE.c.id.in_(bindparam("ids", expanding=True)))
            .with_for_update(skip_locked=True)
        )
    )
    # updated_at is left alone: a hit does not change the lesson
    .values(hit_count=_LESSONS.c.hit_count + bindparam("times"), last_seen_at=bindparam("now"))
)


def count_hits(url: str, ids: Iterable[int]) -> None:
    """Queue one hit for each lesson of ``ids`` in the database at ``url``; returns at once."""
    runtime().piece(_Hits).add(url, ids)


def flush_hits(timeout: float = FLUSH_WAIT_S) -> bool:
    """Wait until the hits queued so far are written (False if ``timeout`` passed first)."""
    found = runtime().peek(_Hits)
    return True if found is None else found.flush(timeout)


@atexit.register
def _flush_at_exit() -> None:
    found = runtime().peek(_Hits)
    if found is not None:
        found.close()
