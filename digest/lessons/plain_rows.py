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

A row is what the ORM would have stored for the same values (``add_row``): the mapped
class's validators see the values given (``DigestRun``'s redaction of its error text), and a
column not given gets the mapped column's default, or NULL, as a new object's would. The
callers name what differs from the model, never restate it.
"""

from __future__ import annotations

import inspect as signatures
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from sqlalchemy import Column, event, insert, inspect
from sqlalchemy.orm import ORMExecuteState, Session
from sqlalchemy.schema import ColumnDefault

from digest.lessons.per_transaction import for_transaction, kept
from digest.models import Base

#: key of a transaction's rows not written yet (``per_transaction``): by table, in order
_ROWS = "digest_plain_rows"
#: key of the flag ``held`` sets (``per_transaction``)
_HELD = "digest_plain_rows_held"


def add_row(session: Session, table: type[Base], values: dict[str, Any]) -> None:
    """Append a row to ``table`` (a mapped class) in the session's transaction (written as
    the module says): ``values`` (column keys, the id left to the database) as the mapped
    class's validators keep them, each column not named given its default as a new object's
    would be (``TypeError`` for a key that is no column, ``ValueError`` for a column that
    has no default a plain row can give and is not named)."""
    form = _form(table)
    if not form.names.issuperset(values):
        unknown = ", ".join(sorted(set(values) - form.names))
        raise TypeError(f"{form.name} has no column {unknown}")
    row = dict(values)
    for key, validate in form.validators:
        if key in row:
            row[key] = validate(key, row[key])
    for key, default in form.defaults:
        if key not in row:
            row[key] = default()
    if session.get_transaction() is None:
        session.connection()  # begin it: the rows are kept for this transaction
    rows: dict[type[Base], list[dict[str, Any]]] = for_transaction(session, _ROWS, dict)
    rows.setdefault(table, []).append(row)


@dataclass(frozen=True)
class _Form:
    """What ``add_row`` needs of a mapped class, read once from its mapper."""

    name: str
    #: the column keys a row may name
    names: frozenset[str]
    #: (key, the mapped class's validator of that attribute, called without an instance)
    validators: tuple[tuple[str, Callable[[str, Any], Any]], ...]
    #: (key, what a row that does not name it stores) for every column but the id
    defaults: tuple[tuple[str, Callable[[], Any]], ...]


@cache
def _form(table: type[Base]) -> _Form:
    mapper = inspect(table)
    name = mapper.local_table.name  # type: ignore[attr-defined]
    columns: dict[str, Column[Any]] = {}
    for key, column in mapper.columns.items():
        if key != column.key:
            raise TypeError(f"{name}.{column.key} is mapped as {key!r}: plain rows name columns")
        columns[key] = column
    validators = []
    for key, (found, options) in mapper.validators.items():
        method = cast(Callable[..., Any], found)  # typed as its name; it is the method
        if options.get("include_removes"):
            validators.append((key, _without_instance(method, False)))  # not a removal
        else:
            validators.append((key, _without_instance(method)))
    defaults = tuple(
        (key, _default(name, column)) for key, column in columns.items() if not column.primary_key
    )
    return _Form(name, frozenset(columns), tuple(validators), defaults)


def _without_instance(method: Callable[..., Any], *extra: Any) -> Callable[[str, Any], Any]:
    """A ``@validates`` method called for a plain row, which has no object: the validators
    of a class written as plain rows read only the key and the value."""

    def validate(key: str, value: Any) -> Any:
        return method(None, key, value, *extra)

    return validate


def _default(table: str, column: Column[Any]) -> Callable[[], Any]:
    """What a new object of the mapped class stores in ``column`` when it is not set: its
    Python-side default (a value, or a function of no arguments), else NULL when it has no
    default at all (the ORM inserts None there too)."""
    default = column.default
    if default is None and column.server_default is None:
        if column.nullable:
            return _none
        return _missing(f"{table}.{column.key} has no default: a plain row must name it")
    if isinstance(default, ColumnDefault) and default.is_scalar:
        value = default.arg
        return lambda: value
    if isinstance(default, ColumnDefault) and default.is_callable:
        # SQLAlchemy wraps a function of no arguments to take the statement's context,
        # keeping the function as ``__wrapped__``; one that reads the context has no
        # statement here to read
        given = getattr(default.arg, "__wrapped__", None)
        if given is not None and _takes_nothing(given):
            return cast(Callable[[], Any], given)
        return _missing(f"{table}.{column.key}'s default reads the statement: name it")
    return _missing(f"{table}.{column.key}'s default is the database's: a plain row must name it")


def _none() -> None:
    return None


def _takes_nothing(function: Callable[..., Any]) -> bool:
    try:
        signatures.signature(function).bind()
    except (TypeError, ValueError):
        return False
    return True


def _missing(message: str) -> Callable[[], Any]:
    def refuse() -> Any:
        raise ValueError(message)

    return refuse


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
    # (not from inside a flush: a statement an ORM flush or its listeners run). The flag is
    # the Session's own (private); no public event brackets a flush: ``before_flush`` fires
    # for a flush that then finds nothing to write and returns without ``after_flush*``, so
    # a flag kept from the events would stay set (tests/lessons/test_plain_rows.py)
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
