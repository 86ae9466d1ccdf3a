"""Writes the agent's turn does not wait for (issues 27 and 29): a queue per database URL and
one thread per process that writes what is queued, in batches. The thread gathers for
``GATHER_S`` after the first item of a batch arrives, so that a busy agent's turns share one
write instead of one each (a write is a transaction whose statements the process builds and
sends, and that CPU competes with the turns that follow it); a ``flush`` (and a reset) writes
at once. Hit counts (``digest.lessons.hits``) and holdout exposures (``digest.lessons.holdout``)
are both statistics written this way: a failed batch is logged and dropped, a process that dies
loses what it had not written (at most ``GATHER_S`` of them plus a batch being written), and
``flush`` waits until what was queued before it is written.

A subclass says what an empty queue is (``empty``) and how a batch is written (``write``);
it queues with ``queue``. An instance is a piece of the process's runtime: its reset (and the
process's exit) writes what is left, in the process that queued it (a forked child drops its
parent's).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from digest.logs import get_logger

log = get_logger("digest.offturn")

#: how long a flush (and a reset) waits for the writer, at most
FLUSH_WAIT_S = 10.0
#: how long the writer gathers after the first item of a batch before it writes
GATHER_S = 0.5


class OffTurnWriter:
    #: the writer thread's name
    thread_name = "digest-offturn"
    #: the log event of a batch that failed
    failure = "offturn_write_failed"

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Condition()
        self.queued: Any = self.empty()
        #: batches taken and batches written: a flush waits until written reaches taken
        self.taken = self.written = 0
        self.thread: threading.Thread | None = None
        self.closed = False
        #: flushes waiting: the writer stops gathering and writes at once
        self.flushing = 0

    def empty(self) -> Any:
        raise NotImplementedError

    def write(self, batch: Any) -> None:
        raise NotImplementedError

    def queue(self, put: Callable[[Any], None]) -> None:
        """Add to the queue (``put(queued)``, under the lock) and wake the writer."""
        with self.lock:
            was_empty = not self.queued
            put(self.queued)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
                self.thread.start()
            if was_empty:  # (a writer already gathering needs no wake-up per item)
                self.lock.notify_all()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self.queued and not self.closed:
                    self.lock.wait()
                if not self.queued:
                    return
                until = time.monotonic() + GATHER_S
                while not self.closed and not self.flushing:
                    left = until - time.monotonic()
                    if left <= 0:
                        break
                    self.lock.wait(left)
                batch, self.queued = self.queued, self.empty()
                self.taken += 1
            try:
                self.write(batch)
            except Exception as exc:  # a statistic: logged and dropped, never retried
                log.warning(self.failure, error=f"{type(exc).__name__}: {exc}"[:300])
            finally:
                with self.lock:
                    self.written += 1
                    self.lock.notify_all()

    def flush(self, timeout: float = FLUSH_WAIT_S) -> bool:
        """Wait until everything queued before this call is written; False on timeout."""
        with self.lock:
            target = self.taken + 1 if self.queued else self.taken
            self.flushing += 1
            self.lock.notify_all()
            try:
                return self.lock.wait_for(lambda: self.written >= target, timeout)
            finally:
                self.flushing -= 1

    def close(self) -> None:
        if os.getpid() != self.pid:  # a forked child: this is the parent's queue
            return
        self.flush()
        with self.lock:
            self.closed = True
            self.lock.notify_all()
