"""Rows a transaction appends and nothing reads back while it is under way: the audit trail
(``lesson_history``) and the run records (``digest_runs``), written as plain rows, not ORM
objects.

An ORM object costs its construction, attribute events, the unit of work's bookkeeping and
its id read back (issue 27: the ORM's write path was a fifth of a worker's CPU per event);
these rows need none of it. They are kept for the session's current transaction in the
order they were added (``per_transaction``: a rollback forgets them with it) and go in with
one INSERT per table:

- after each flush that wrote the ORM's rows (a history row names its lesson, which must be
  in first), but for a flush that only gives new rows their ids (``held``: a batch of events
  then writes each table once);
- before any statement the session would autoflush for (so a read in the same transaction
  sees them, as it saw the ORM's pending rows);
- before the commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event, insert
from sqlalchemy.orm import ORMExecuteState, Session

from digest.lessons.per_transaction import for_transaction, kept
from digest.models import Base

#: key of a transaction's rows not written yet (``per_transaction``): by table, in order
_ROWS = "digest_plain_rows"
#: key of the flag ``held`` sets (``per_transaction``)
_HELD = "digest_plain_rows_held"


def add_row(session: Session, table: type[Base], values: dict[str, Any]) -> None:
    """Append a row to ``table`` (a mapped class) in the session's transaction (written as
    the module says). ``values`` names every column but the id, with the values the ORM
    would have given; rows of one table name the same columns."""
    if session.get_transaction() is None:
        session.connection()  # begin it: the rows are kept for this transaction
    rows: dict[type[Base], list[dict[str, Any]]] = for_transaction(session, _ROWS, dict)
    rows.setdefault(table, []).append(values)


def pending(session: Session) -> int:
    """Rows added in the session's transaction and not written yet."""
    rows: dict[type[Base], list[dict[str, Any]]] | None = kept(session, _ROWS)
    return sum(len(found) for found in rows.values()) if rows else 0


def write_rows(session: Session) -> None:
    """Write the transaction's rows not written yet: one INSERT per table, in the order the
    tables were first added to (their rows' ids in the order the rows were)."""
    rows: dict[type[Base], list[dict[str, Any]]] | None = kept(session, _ROWS)
    if not rows:
        return
    tables = list(rows.items())
    rows.clear()
    connection = session.connection()
    for table, values in tables:
        connection.execute(insert(table), values)


@contextmanager
def held(session: Session) -> Iterator[None]:
    """Flushes inside do not write the rows (a flush that only gives new rows their ids)."""
    flag: list[bool] = for_transaction(session, _HELD, list)
    flag.append(True)
    try:
        yield
    finally:
        flag.pop()


def _is_held(session: Session) -> bool:
    return bool(kept(session, _HELD))


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _context: Any) -> None:
    if not _is_held(session):
        write_rows(session)


@event.listens_for(Session, "do_orm_execute")
def _before_statement(state: ORMExecuteState) -> None:
    # what autoflush does for the ORM's pending rows: a read in the transaction sees them
    # (not from inside a flush: a statement an ORM flush or its listeners run)
    session = state.session
    flushing = getattr(session, "_flushing", False)
    if session.autoflush and not flushing and not _is_held(session) and pending(session):
        session.flush()  # their lessons first
        write_rows(session)


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    if pending(session):
        session.flush()
        write_rows(session)
