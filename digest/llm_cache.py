"""Bounded, thread-safe memory of model answers in one worker process.

A model asked the same thing (same model, same prompt version, same input) at temperature 0
answers the same way, so an exact repeat need not be asked again: a half-repeats stream then
costs the model calls of its unique half. Only parsed answers are kept (failures never are);
a restart starts empty; ``DIGEST_LLM_CACHE_SIZE=0`` turns it off. Callers key entries by
everything the answer depends on, and never share entries across agents.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Generic, TypeVar

V = TypeVar("V")


def answer_key(*parts: Any) -> str:
    """A stable digest of JSON-serialisable parts."""
    material = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class AnswerCache(Generic[V]):
    """An LRU of at most ``size`` entries (the size is passed on each put: settings may
    change between tests). Stored values must not be mutated by callers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, V] = OrderedDict()
        self.hits = 0

    def get(self, key: str) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
            return found

    def put(self, key: str, value: V, size: int) -> None:
        if size <= 0:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
