"""Hit counts of surfaced lessons, written off the agent's turn (issue 27).

``pitfalls`` surfaces a few lessons and each gets ``hit_count + 1`` and ``last_seen_at``. The
agent need not wait for that write: ``count_hits`` queues the ids and returns, and one thread
per process writes what is queued, each database's in one UPDATE per distinct increment
(the ids a burst of calls surfaced, summed). ``flush_hits`` waits until what was queued before
it is written (a command that exits, a test that reads the counts).

A hit count is a statistic: rows another transaction holds are skipped, not waited for (that
lesson misses those hits), the commit does not wait for the disk, and a process that dies
loses what it had not written. The queue is a piece of the process's runtime: its reset
writes what is left (in the process that queued it; a forked child drops its parent's).
"""

from __future__ import annotations

import atexit
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable

from sqlalchemy import select, text, update

from digest.logs import get_logger
from digest.models import Lesson, utcnow
from digest.runtime import runtime

log = get_logger("digest.retrieve")

#: how long ``flush_hits`` (and a reset) waits for the writer, at most
FLUSH_WAIT_S = 10.0


class _Hits:
    """Queued hits by database URL, and the thread that writes them."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Condition()
        self.queued: dict[str, Counter[int]] = defaultdict(Counter)
        #: batches taken and batches written: a flush waits until written reaches taken
        self.taken = self.written = 0
        self.thread: threading.Thread | None = None
        self.closed = False

    def add(self, url: str, ids: Iterable[int]) -> None:
        with self.lock:
            self.queued[url].update(ids)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="digest-hits", daemon=True)
                self.thread.start()
            self.lock.notify_all()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self.queued and not self.closed:
                    self.lock.wait()
                if not self.queued:
                    return
                batch, self.queued = self.queued, defaultdict(Counter)
                self.taken += 1
            try:
                _write(batch)
            except Exception as exc:  # a statistic: logged and dropped, never retried
                log.warning("hit_count_failed", error=f"{type(exc).__name__}: {exc}"[:300])
            finally:
                with self.lock:
                    self.written += 1
                    self.lock.notify_all()

    def flush(self, timeout: float = FLUSH_WAIT_S) -> bool:
        """Wait until everything queued before this call is written; False on timeout."""
        with self.lock:
            target = self.taken + 1 if self.queued else self.taken
            return self.lock.wait_for(lambda: self.written >= target, timeout)

    def close(self) -> None:
        if os.getpid() != self.pid:  # a forked child: these are the parent's hits
            return
        self.flush()
        with self.lock:
            self.closed = True
            self.lock.notify_all()


def _write(batch: dict[str, Counter[int]]) -> None:
    from sqlalchemy.orm import Session

    from digest.db import get_engine

    for url, counts in batch.items():
        by_increment: dict[int, list[int]] = defaultdict(list)
        for lesson_id, times in counts.items():
            by_increment[times].append(lesson_id)
        engine = get_engine(url)
        with Session(engine) as session, session.begin():
            if engine.dialect.name == "postgresql":
                session.execute(text("SET LOCAL synchronous_commit TO OFF"))
            now = utcnow()
            for times, ids in by_increment.items():
                # an alias: not correlated with the UPDATE target
                free = Lesson.__table__.alias("free")
                lockable = (
                    select(free.c.id).where(free.c.id.in_(ids)).with_for_update(skip_locked=True)
                )
                session.execute(
                    update(Lesson)
                    .where(Lesson.id.in_(lockable))
                    .values(hit_count=Lesson.hit_count + times, last_seen_at=now)
                    # updated_at is left alone: a hit does not change the lesson
                    .execution_options(synchronize_session=False)
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
