"""What this process keeps between calls, in one object with one reset.

Settings, engines, broker clients, agent ids, model answers, prompts, embedders, neighbour
indexes… each is a *piece* of the process's ``Runtime``, made on first use by the factory that
names it and kept until ``runtime().reset()``, which forgets them all at once: a forked worker
child calls it (it must never use its parent's sockets), and so does every test. The domains
own their pieces; this module knows none of them (it imports nothing of ``digest``, so the
capture path can import it for nothing)::

    def _agent_ids() -> dict[tuple[str, str, str], tuple[int, int]]:
        return {}  # the factory, at module level: the piece is found by it

    runtime().piece(_agent_ids)[key] = ids  # made on first use, kept until the reset

A factory makes an empty container, cheaply and without I/O: two threads may both make one
the first time, and the one that loses is closed and dropped. A piece that holds resources
has a ``close()``, which the reset calls; it must be safe in a forked child (give up the
parent's connections, never shut them down). Code keeps a piece only for the call at hand,
and asks again the next time, so that a reset is seen.

What is derived from the code alone (compiled statements and regular expressions, a pure
function's memo, the packaged vocabulary) is not process state: it is the same in a parent
and its children and across tests, and stays with the function that computes it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextlib import ExitStack
from typing import Any, TypeVar, cast

T = TypeVar("T")

_MISSING: Any = object()


class Runtime:
    """The process's state: pieces by (factory, key), made on first use."""

    def __init__(self) -> None:
        self._pieces: dict[Hashable, Any] = {}

    def piece(self, factory: Callable[[], T], key: Hashable = None) -> T:
        """The piece ``factory`` makes (one per ``key``), made now if there is none yet."""
        slot = factory if key is None else (factory, key)
        found = self._pieces.get(slot, _MISSING)
        if found is _MISSING:
            made = factory()
            found = self._pieces.setdefault(slot, made)
            if found is not made:  # another thread made it first
                _close(made)
        return cast(T, found)

    def peek(self, factory: Callable[[], T], key: Hashable = None) -> T | None:
        """The piece if it was made, else None (nothing is made)."""
        found = self._pieces.get(factory if key is None else (factory, key))
        return cast("T | None", found)

    def drop(self, factory: Callable[[], T], key: Hashable = None) -> None:
        """Forget one piece (closing it); the next ``piece`` call makes a new one."""
        found = self._pieces.pop(factory if key is None else (factory, key), _MISSING)
        if found is not _MISSING:
            _close(found)

    def reset(self) -> None:
        """Forget every piece, closing those that have a ``close()`` (all of them, even if
        one raises). Free when nothing was made. For a quiet process: after a fork, between
        tests; a thread still holding a piece keeps using it until it asks again."""
        pieces, self._pieces = self._pieces, {}
        with ExitStack() as closing:
            for found in pieces.values():
                closing.callback(_close, found)

    def __len__(self) -> int:
        return len(self._pieces)

    def __repr__(self) -> str:
        names = sorted(_name(slot) for slot in self._pieces)
        return f"Runtime({', '.join(names)})"


def _close(found: Any) -> None:
    close = getattr(found, "close", None)
    if callable(close):
        close()


def _name(slot: Hashable) -> str:
    factory, key = slot if isinstance(slot, tuple) else (slot, None)
    name = f"{getattr(factory, '__module__', '')}.{getattr(factory, '__qualname__', factory)}"
    return name if key is None else f"{name}[{key!r}]"


_RUNTIME = Runtime()


def runtime() -> Runtime:
    """This process's one ``Runtime``."""
    return _RUNTIME
