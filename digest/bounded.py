"""Memories bounded by bytes as well as by entries (issue 27: a worker that stays small).

A cache bounded only by its number of entries holds whatever its entries weigh: 4,096 screen
verdicts keyed by texts of up to 20,000 characters may be 80 MB, or 0.5 MB for short errors.
``BytesLRU`` keeps at most ``max_entries`` entries *and* at most ``max_bytes`` bytes (each
entry weighed once, when stored, by ``approx_bytes``: the objects it holds that are not
shared with every other entry), dropping the least recently used first; an entry heavier
than the whole budget is not kept at all. ``memo`` is ``functools.lru_cache`` with the same
two bounds, for pure functions of hashable arguments; ``memo(..., digest_keys=True)`` keys
each result by a 16-byte digest of its text arguments (``text_key``) instead of the texts
themselves, for memos whose arguments weigh more than their results (a text read for its
words): an entry then weighs its result and some 150 bytes, whatever the text's length.

The weight is an estimate from ``sys.getsizeof`` of the objects an entry holds (strings,
tuples, lists, dicts, frozen dataclasses and slotted objects, numpy arrays), counting an
object once per entry: it is within a few percent of what tracemalloc shows for the entries
of the caches that use it (``tests/test_bounded.py`` pins the bounds, not the estimate).

Imports nothing of ``digest``: the base and every domain may use it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")

#: what one dict slot of the LRU costs besides its key and value (the ordered dict's node)
SLOT_BYTES = 100
#: how deep ``approx_bytes`` looks into nested containers (past it an object is its own size)
_DEPTH = 8
_SMALL = (int, float, bool, type(None))


def approx_bytes(value: Any) -> int:
    """About what ``value`` holds in memory, in bytes: its own size plus, once each, the
    objects it holds (container items, dataclass fields, slots, an array's buffer)."""
    kind = type(value)
    if kind is str:  # most keys and many values: one object, nothing held
        return sys.getsizeof(value)
    return _weigh(value, set(), 0)


#: the exact types ``_weigh`` reads without the general walk (subclasses take the walk)
_SMALL_EXACT = frozenset({int, float, bool, type(None)})
_SEQUENCES_EXACT = frozenset({tuple, list, set, frozenset})


def _weigh(value: Any, seen: set[int], depth: int) -> int:
    """``value``'s weight as ``_weigh_any`` reads it, with the common exact types (strings,
    small scalars, tuples and lists of them) read inline: it runs on every memo's store."""
    kind = type(value)
    if kind in _SMALL_EXACT:
        return sys.getsizeof(value) if depth == 0 else 0
    ident = id(value)
    if ident in seen:
        return 0
    if kind is str:
        seen.add(ident)
        return sys.getsizeof(value)
    if kind in _SEQUENCES_EXACT and depth < _DEPTH:
        seen.add(ident)
        size = sys.getsizeof(value)
        inner = depth + 1
        for item in value:
            held = type(item)
            if held is str:
                if id(item) not in seen:
                    seen.add(id(item))
                    size += sys.getsizeof(item)
            elif held not in _SMALL_EXACT:
                size += _weigh(item, seen, inner)
        return size
    return _weigh_any(value, seen, depth)


@functools.lru_cache(maxsize=256)
def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass type's field names (fixed for the type; one entry per dataclass type)."""
    return tuple(f.name for f in dataclasses.fields(kind))


def _weigh_any(value: Any, seen: set[int], depth: int) -> int:
    """The general walk (``_weigh`` reads its common cases the same way, inline)."""
    if isinstance(value, _SMALL):
        return sys.getsizeof(value) if depth == 0 else 0  # small ints and None are shared
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value, 64)
    if isinstance(value, str | bytes | bytearray) or depth >= _DEPTH:
        return size
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int) and hasattr(value, "dtype"):  # a numpy array or scalar
        owns = getattr(value, "base", None) is None
        return max(size, 112 + (nbytes if owns else 0))
    if isinstance(value, dict):
        return size + sum(
            _weigh(k, seen, depth + 1) + _weigh(v, seen, depth + 1) for k, v in value.items()
        )
    if isinstance(value, tuple | list | set | frozenset):
        return size + sum(_weigh(item, seen, depth + 1) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        held = (getattr(value, name, None) for name in _field_names(type(value)))
        return size + sum(_weigh(item, seen, depth + 1) for item in held)
    slots = getattr(type(value), "__slots__", None)
    if slots:
        names = (slots,) if isinstance(slots, str) else slots
        return size + sum(_weigh(getattr(value, n, None), seen, depth + 1) for n in names)
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict):
        return size + _weigh(fields, seen, depth + 1)
    return size


class BytesLRU(Generic[K, V]):
    """A thread-safe LRU of at most ``max_entries`` entries and ``max_bytes`` bytes (keys and
    values, weighed by ``approx_bytes`` when stored). Stored values must not be mutated."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found[0]

    def put(self, key: K, value: V, *, max_entries: int | None = None) -> None:
        """Keep ``value`` under ``key`` (``max_entries``: this call's bound on entries, when a
        setting read per call gives it), then drop the least recently used entries past the
        bounds. An entry heavier than ``max_bytes`` is not kept."""
        limit = self.max_entries if max_entries is None else max_entries
        weight = approx_bytes(key) + approx_bytes(value) + SLOT_BYTES
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if limit <= 0 or weight > self.max_bytes:
                return
            self._items[key] = (value, weight)
            self._bytes += weight
            while self._items and (len(self._items) > limit or self._bytes > self.max_bytes):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def pop(self, key: K) -> V | None:
        """Forget ``key``'s entry; its value, or None."""
        with self._lock:
            found = self._items.pop(key, None)
            if found is None:
                return None
            self._bytes -= found[1]
            return found[0]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self.hits = self.misses = 0

    @property
    def nbytes(self) -> int:
        """The weight of what it holds now (at most ``max_bytes``)."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class MemoInfo(NamedTuple):
    hits: int
    misses: int
    entries: int
    nbytes: int
    max_entries: int
    max_bytes: int


#: characters of the longest text a digest-keyed memo keeps as its own key (a word, a short
#: error): a str that short weighs about what a digest does, and needs no hashing
SHORT_TEXT = 32
#: bytes of a ``text_key`` digest (blake2b): two different texts share one with odds of
#: about 2**-64 in 2**32 texts, far below a process's lifetime of reads
TEXT_KEY_BYTES = 16


def text_key(*parts: str | bool | int | None) -> bytes:
    """A ``TEXT_KEY_BYTES`` digest standing for its parts (texts, flags, numbers, None), each
    told apart by its type and length: ("ab", "c") and ("a", "bc") differ."""
    if len(parts) == 1 and isinstance(parts[0], str):  # the usual call: one text
        return hashlib.blake2b(
            parts[0].encode("utf-8", "surrogatepass"), digest_size=TEXT_KEY_BYTES, person=b"t1"
        ).digest()
    digest = hashlib.blake2b(digest_size=TEXT_KEY_BYTES, person=b"tn")
    for part in parts:
        if isinstance(part, str):
            raw = part.encode("utf-8", "surrogatepass")
            digest.update(b"s%d:" % len(raw))
            digest.update(raw)
        elif part is None or isinstance(part, bool | int):
            digest.update(b"v%r;" % (part,))
        else:
            raise TypeError(f"text_key reads texts, flags and numbers, not {type(part).__name__}")
    return digest.digest()


def memo(
    max_entries: int, max_bytes: int, *, digest_keys: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``functools.lru_cache`` bounded by bytes too: the wrapped function (of hashable
    positional and keyword arguments) remembers at most ``max_entries`` results and
    ``max_bytes`` bytes of arguments and results. ``fn.memo_info()`` and ``fn.cache_clear()``
    as for ``lru_cache``. Results of None are remembered too. ``digest_keys``: the arguments
    (texts, flags, numbers or None, passed by position) are kept as their ``text_key``; one
    text of at most ``SHORT_TEXT`` characters is kept as it is."""

    def wrap(function: Callable[P, R]) -> Callable[P, R]:
        kept: BytesLRU[Hashable, tuple[R]] = BytesLRU(max_entries, max_bytes)

        @functools.wraps(function)
        def remembered(*args: P.args, **kwargs: P.kwargs) -> R:
            key: Hashable
            if digest_keys:
                if kwargs:
                    raise TypeError("a memo with digest keys takes its arguments by position")
                one = args[0] if len(args) == 1 else None
                # a short text weighs no more than its digest: kept as it is (not hashed)
                if isinstance(one, str) and len(one) <= SHORT_TEXT:
                    key = one
                else:
                    key = text_key(*cast(tuple[Any, ...], args))
            else:
                key = (args, tuple(kwargs.items())) if kwargs else args
            found = kept.get(key)
            if found is not None:
                return found[0]
            result = function(*args, **kwargs)
            kept.put(key, (result,))
            return result

        def memo_info() -> MemoInfo:
            return MemoInfo(kept.hits, kept.misses, len(kept), kept.nbytes, max_entries, max_bytes)

        wrapper = cast(Any, remembered)
        wrapper.memo_info = memo_info
        wrapper.cache_clear = kept.clear
        return remembered

    return wrap
