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

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any, TypeVar, cast

T = TypeVar("T")

_MISSING: Any = object()


class Runtime:
    """The process's state: pieces by the factory that makes them, made on first use."""

    def __init__(self) -> None:
        self._pieces: dict[Callable[[], Any], Any] = {}

    def piece(self, factory: Callable[[], T]) -> T:
        """The piece ``factory`` makes, made now if there is none yet."""
        found = self._pieces.get(factory, _MISSING)
        if found is _MISSING:
            made = factory()
            found = self._pieces.setdefault(factory, made)
            if found is not made:  # another thread made it first
                _close(made)
        return cast(T, found)

    def peek(self, factory: Callable[[], T]) -> T | None:
        """The piece if it was made, else None (nothing is made)."""
        return cast("T | None", self._pieces.get(factory))

    def drop(self, factory: Callable[[], T]) -> None:
        """Forget one piece (closing it); the next ``piece`` call makes a new one."""
        found = self._pieces.pop(factory, _MISSING)
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
        names = sorted(f"{f.__module__}.{f.__qualname__}" for f in self._pieces)
        return f"Runtime({', '.join(names)})"


def _close(found: Any) -> None:
    close = getattr(found, "close", None)
    if callable(close):
        close()


_RUNTIME = Runtime()


def runtime() -> Runtime:
    """This process's one ``Runtime``."""
    return _RUNTIME
