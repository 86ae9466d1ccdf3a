"""Bounded, thread-safe memory of model answers in one worker process.

A model asked the same thing (same model, same prompt version, same input) at temperature 0
answers the same way, so an exact repeat need not be asked again: a half-repeats stream then
costs the model calls of its unique half. Only parsed answers are kept (failures never are);
a restart starts empty; ``DIGEST_LLM_CACHE_SIZE=0`` turns it off. Callers key entries by
everything the answer depends on, and never share entries across agents. Besides its entries
(``DIGEST_LLM_CACHE_SIZE``, 4,096 by default) a cache holds at most ``MAX_BYTES`` of keys and
answers, or the bound its owner gives (``digest.bounded``): answers are as long as the model
makes them. Keys are sha256's raw 32 bytes (``answer_key``): an entry's key weighs 65 bytes,
not the 113 of its hex string.

``get_or_compute`` also collapses concurrent asks: while one thread's model call for a key is
in flight, other threads asking the same thing wait for its answer instead of making the same
call again (a threads-pool worker often holds an event and its repeat at the same time). If
that call fails, the waiters ask for themselves.

Each cache of a process is a piece of its runtime (``digest.runtime``), forgotten by its reset.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from digest.bounded import BytesLRU

V = TypeVar("V")

#: bytes of keys and answers one cache of a process holds, at most (4,096 judgements of one
#: or two lessons each weigh about 8 MB)
MAX_BYTES = 16 * 2**20


#: what a cache is keyed by: ``answer_key``'s digest (tests may use short strings)
Key = bytes | str


def answer_key(*parts: Any) -> bytes:
    """A stable digest of JSON-serialisable parts (sha256, its 32 raw bytes)."""
    material = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(material.encode("utf-8")).digest()


class AnswerCache(Generic[V]):
    """An LRU of at most ``size`` entries (the size is passed on each put: settings may
    change between tests) and ``max_bytes`` bytes. Stored values must not be mutated by
    callers."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._lock = threading.Lock()
        self.max_bytes = max_bytes
        self._items: BytesLRU[Key, V] = BytesLRU(0, max_bytes)
        #: keys whose value one thread is computing now, and the signal it sets when done
        self._in_flight: dict[Key, threading.Event] = {}

    @property
    def hits(self) -> int:
        return self._items.hits

    @property
    def misses(self) -> int:
        return self._items.misses

    @property
    def nbytes(self) -> int:
        """The weight of the keys and answers it holds (``digest.bounded.approx_bytes``)."""
        return self._items.nbytes

    def get(self, key: Key) -> V | None:
        return self._items.get(key)

    def put(self, key: Key, value: V, size: int) -> None:
        if size > 0:
            self._items.put(key, value, max_entries=size)

    def get_or_compute(self, key: Key, compute: Callable[[], V], size: int) -> tuple[V, bool]:
        """The remembered value, or ``compute()`` stored; True if it was not computed here.

        One computation per key at a time: concurrent callers wait for it. With ``size`` 0
        nothing is remembered, so nothing is shared and every caller computes.
        """
        if size <= 0:
            return compute(), False
        while True:
            with self._lock:
                found = self._items.get(key)
                if found is not None:
                    return found, True
                done = self._in_flight.get(key)
                if done is None:
                    done = self._in_flight[key] = threading.Event()
                    break
            done.wait()  # then look again: stored, or failed (and one of us computes)
        try:
            value = compute()
            self.put(key, value, size)
            return value, False
        finally:
            with self._lock:
                self._in_flight.pop(key, None)
            done.set()

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
