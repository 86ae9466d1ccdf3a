"""The capture INSERT straight to psycopg: the hot path's one statement without SQLAlchemy's
execution machinery (``digest.capture.store.insert_by_driver`` is its one caller).

What it saves, per capture: SQLAlchemy's Connection and its execution context (a quarter of a
millisecond), the server parsing and planning a 14-column INSERT (prepared on each connection's
first capture: about a quarter of the INSERT's server time, and a one-row write has no plan to
choose), and psycopg finding its parameters' dumpers (a cursor kept per pooled connection).
What it keeps: the pool (checkout, invalidation, a dead server's connections dropped), the
statement SQLAlchemy compiles, and the faults as SQLAlchemy raises them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Dialect, Engine
from sqlalchemy.exc import DBAPIError

from digest.db import connections_lost
from digest.errors import CaptureUnavailable

if TYPE_CHECKING:
    import psycopg
    from sqlalchemy.sql.dml import Insert


@dataclass(frozen=True)
class _DriverStatement:
    sql: str
    #: the columns whose defaults SQLAlchemy computes in Python (``deferrals``, …): constants
    defaults: dict[str, Any]


_driver_statements: dict[tuple[str, int, tuple[str, ...]], _DriverStatement] = {}


def _driver_statement(
    dialect: Dialect, statement: Insert, columns: tuple[str, ...]
) -> _DriverStatement:
    """``statement`` compiled once for the driver, for a row of ``columns``. Raises if a
    column's default is not a constant (nothing but SQLAlchemy could fill it)."""
    key = (dialect.name, id(statement), columns)
    found = _driver_statements.get(key)
    if found is None:
        compiled = statement.compile(dialect=dialect, column_keys=list(columns))
        defaults: dict[str, Any] = {}
        for column in compiled.insert_prefetch:
            default = column.default
            if default is None or not getattr(default, "is_scalar", False):
                raise CaptureUnavailable(f"events.{column.key}: a default only SQLAlchemy fills")
            defaults[column.key] = default.arg  # type: ignore[attr-defined]
        found = _driver_statements[key] = _DriverStatement(str(compiled), defaults)
    return found


def run_insert(
    engine: Engine, statement: Insert, values: dict[str, Any], *, prepare: bool = True
) -> int | None:
    """The INSERT's returned id, or None (a conflict did nothing), run on a pooled psycopg
    connection's cursor in autocommit (``db.autocommit_engine``'s pool; a connection that is
    not, never expected, is switched), so the row is committed when this returns and nothing
    is left to roll back when the connection goes back to the pool. A driver fault is raised
    as SQLAlchemy would raise it (``IntegrityError``, ``OperationalError`` with
    ``connection_invalidated`` after a dead connection, which is invalidated), so the fault
    policy (``storage_errors``) is the same on both roads. ``prepare``: prepare the statement
    on the server on the connection's first run (``DIGEST_DB_PREPARE``; False never does)."""
    from psycopg import Error as DriverError  # only on this road: SQLite needs no psycopg
    from psycopg.types.json import Jsonb

    prepared = _driver_statement(engine.dialect, statement, tuple(values))
    params = {**prepared.defaults, **values, "payload": Jsonb(values["payload"], dumps=_as_written)}
    try:
        # the pool's own checkout: a refused connect comes back as the driver's error, not
        # wrapped as ``engine.connect()`` would, so it is wrapped here
        pooled = engine.raw_connection()
    except DriverError as exc:
        dead = engine.dialect.is_disconnect(cast(Any, exc), None, None)
        raise DBAPIError.instance(
            None, None, exc, DriverError, connection_invalidated=dead
        ) from exc
    raw = cast("psycopg.Connection[Any]", pooled.dbapi_connection)
    try:
        if not raw.autocommit:
            raw.autocommit = True
        cursor = _capture_cursor(pooled.info, raw)
        cursor.execute(prepared.sql, params, prepare=prepare)
        row = cursor.fetchone()
    except DriverError as exc:
        pooled.info.pop(_CURSOR, None)
        dead = engine.dialect.is_disconnect(cast(Any, exc), pooled, None)
        if dead:
            pooled.invalidate(exc)
            connections_lost(engine, pool_invalidated=False)
        raise DBAPIError.instance(
            prepared.sql, params, exc, DriverError, connection_invalidated=dead
        ) from exc
    finally:
        pooled.close()
    return None if row is None else int(row[0])


#: the key of a pooled connection's capture cursor in its ``info`` (which lives as long as the
#: driver's connection: SQLAlchemy clears it when the connection is replaced)
_CURSOR = "digest.capture.cursor"


def _capture_cursor(info: dict[Any, Any], raw: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
    """The connection's cursor for captures, made on its first: a cursor kept finds its
    parameters' dumpers once, not on every INSERT (a tenth of a capture's CPU time)."""
    cursor = info.get(_CURSOR)
    if cursor is None or cursor.connection is not raw or cursor.closed:
        cursor = info[_CURSOR] = raw.cursor()
    return cast("psycopg.Cursor[Any]", cursor)


def _as_written(text: Any) -> str:
    """The payload's JSON, already written (``Jsonb``'s ``dumps``)."""
    return cast(str, text)
