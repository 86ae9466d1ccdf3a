"""Values kept for the session's current transaction.

A write in progress keeps a few things for as long as its transaction lasts (the lessons it
wrote, the ids it took from the sequence, the agents it locked, the gates and reads it made
once): in ``session.info`` under a key, as ``(transaction, value)``. A value kept for a
transaction that ended is not the current one's: the next transaction makes its own. These
functions are the one place that knows that shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from sqlalchemy.orm import Session

T = TypeVar("T")


def for_transaction(session: Session, key: str, make: Callable[[], T]) -> T:
    """The value kept under ``key`` for the session's current transaction, made by ``make``
    (and kept) the first time it is asked for in this transaction."""
    transaction = session.get_transaction()
    held: tuple[object, Any] | None = session.info.get(key)
    if held is None or held[0] is not transaction:
        held = session.info[key] = (transaction, make())
    return cast(T, held[1])


def kept(session: Session, key: str) -> Any | None:
    """The value kept under ``key`` for the session's current transaction, or None when this
    transaction has kept none (nothing is made)."""
    held: tuple[object, Any] | None = session.info.get(key)
    if held is None or held[0] is not session.get_transaction():
        return None
    return held[1]


def keep(session: Session, key: str, value: T) -> T:
    """Keep ``value`` under ``key`` for the session's current transaction (replacing what was
    kept)."""
    session.info[key] = (session.get_transaction(), value)
    return value


def drop(session: Session, key: str) -> Any | None:
    """Forget what is kept under ``key`` and return it, whichever transaction kept it (None if
    nothing was)."""
    held: tuple[object, Any] | None = session.info.pop(key, None)
    return None if held is None else held[1]
