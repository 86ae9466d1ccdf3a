"""What one process keeps of the events it replayed, from one compose to the next.

An event's payload never changes, so its probe's excerpt and keywords, its fingerprints and
its probe's vector (``EventFacts``) are read, or embedded, once per process. They are kept by
database and event id in a piece of the process's runtime (``digest.runtime``), for the events
an agent's replay may read again: those of its last replay (an event that left an agent's
window of recent events never comes back: ``keep_window`` forgets it), at most ``FACTS_MAX``
events and ``FACTS_BYTES`` (``digest.bounded``), the least recently replayed dropped first.
A kept event's probe vector is not kept (a compose reads it again, stored, in one statement:
``ReplayProbe``), and its keywords are the process's one copy of each word (issue 27 point 4:
a worker that stays small; a vector was 0.6 kB of an event's 1.3).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from digest.bounded import BytesLRU
from digest.runtime import runtime


@dataclass(frozen=True)
class EventFacts:
    """What a replay keeps of an event from one compose to the next (an event's payload never
    changes): its probe's excerpt and keywords, its fingerprints, and its probe's vector
    under the embedding model ``model`` (``vector_key`` names model and text)."""

    excerpt: str
    words: tuple[str, ...]
    keys: tuple[str, ...]
    model: str | None
    vector_key: str | None
    vector: np.ndarray | None = None


#: the facts of an event not read yet
UNKNOWN_FACTS = EventFacts("", (), (), None, None)

#: events whose facts one process keeps, at most, and their bytes (about 0.5 kB an event: 20
#: agents' windows of ``DIGEST_REPLAY_EVENTS`` = 200 are 4,000 events, 2 MB)
FACTS_MAX = 20_000
FACTS_BYTES = 8 * 2**20
#: agents whose last window a process remembers, at most, and their bytes (8 bytes an event)
WINDOWS_MAX, WINDOWS_BYTES = 4096, 2**20


class _Kept:
    """(database, event id) → its facts, events replayed most recently last; and each agent's
    last window of events, (database, agent id) → their ids (ascending)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_event: BytesLRU[tuple[str, int], EventFacts] = BytesLRU(FACTS_MAX, FACTS_BYTES)
        self.windows: BytesLRU[tuple[str, int], np.ndarray] = BytesLRU(WINDOWS_MAX, WINDOWS_BYTES)


def forget_facts() -> None:
    """Drop what this process keeps of replayed events (tests)."""
    runtime().drop(_Kept)


def recall_facts(database: str, event_ids: Iterable[int]) -> dict[int, EventFacts]:
    """The facts this process keeps of these events (each one found counts as replayed now)."""
    found = {}
    kept = runtime().piece(_Kept)
    for event_id in event_ids:
        facts = kept.by_event.get((database, event_id))
        if facts is not None:
            found[event_id] = facts
    return found


def remember_facts(database: str, event_id: int, facts: EventFacts) -> None:
    """Keep an event's facts, as the most recently replayed (not its vector)."""
    words = tuple(sys.intern(word) for word in facts.words)
    runtime().piece(_Kept).by_event.put(
        (database, event_id), replace(facts, words=words, vector=None)
    )


def keep_window(database: str, agent_id: int, event_ids: Iterable[int]) -> None:
    """The agent's replay now reads these events: forget those of its last window that are
    not among them (events only come after: an event out of the window stays out)."""
    window = np.unique(np.fromiter(event_ids, np.int64))
    kept = runtime().piece(_Kept)
    with kept.lock:
        last = kept.windows.get((database, agent_id))
        kept.windows.put((database, agent_id), window)
    if last is not None:
        for event_id in np.setdiff1d(last, window, assume_unique=True).tolist():
            kept.by_event.pop((database, event_id))
