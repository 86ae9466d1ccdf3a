"""What one process keeps of the events it replayed, from one compose to the next.

An event's payload never changes, so its probe's excerpt and keywords, its fingerprints and
its probe's vector (``EventFacts``) are read, or embedded, once per process. They are kept by
database and event id, at most ``FACTS_MAX`` events, the least recently replayed dropped first,
in a piece of the process's runtime (``digest.runtime``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

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

#: events whose facts one process keeps (a few hundred bytes each, 1.5 kB more with a vector)
FACTS_MAX = 20_000


class _Kept:
    """(database, event id) → its facts; events this process replayed most recently last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_event: OrderedDict[tuple[str, int], EventFacts] = OrderedDict()


def forget_facts() -> None:
    """Drop what this process keeps of replayed events (tests)."""
    runtime().drop(_Kept)


def recall_facts(database: str, event_ids: Iterable[int]) -> dict[int, EventFacts]:
    """The facts this process keeps of these events (each one found counts as replayed now)."""
    found = {}
    kept = runtime().piece(_Kept)
    with kept.lock:
        for event_id in event_ids:
            facts = kept.by_event.get((database, event_id))
            if facts is not None:
                kept.by_event.move_to_end((database, event_id))
                found[event_id] = facts
    return found


def remember_facts(database: str, event_id: int, facts: EventFacts) -> None:
    """Keep an event's facts, as the most recently replayed."""
    kept = runtime().piece(_Kept)
    with kept.lock:
        kept.by_event[(database, event_id)] = facts
        kept.by_event.move_to_end((database, event_id))
        while len(kept.by_event) > FACTS_MAX:
            kept.by_event.popitem(last=False)
