"""The asyncio twin of the capture hot path (``digest.aio``'s ``record_*``).

Only the I/O differs from ``digest.capture.api``: the same ``parse_event`` validates and trims,
the same ``event_values`` builds the row, the same SQLAlchemy statements are compiled for
PostgreSQL (``postgresql+psycopg``) and run on psycopg's ``AsyncConnection`` in autocommit
mode, the same tenant/agent id cache is used, and the publish goes through
``digest.outbox.aio`` (``redis.asyncio``). Idempotency, ``IdempotencyConflict`` and the
translation of database faults into ``CaptureUnavailable`` (with one fresh try after a pooled
connection died or a cached id went stale) follow the sync path.

Not natively async, but run in a thread so the loop is never blocked: SQLite (its driver is
synchronous; ``aiosqlite`` is not a dependency) and ``manual_lesson`` events, whose one
transaction (lock the agent's lessons, add or support one) is ``api.capture_event``'s own.

Connections are pooled per event loop (an ``AsyncConnection`` belongs to the loop that opened
it): at most ``pool_size()`` idle, at most ``pool_size() + 5`` in use, like the sync engine.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from digest.capture import api
from digest.capture.schemas import EventCommon, parse_event
from digest.config import get_settings
from digest.db import pool_size
from digest.errors import IdempotencyConflict
from digest.outbox import aio as publish_aio

_DIALECT = PGDialect_psycopg()
#: in use at once beyond the idle ones, as the sync engine's ``max_overflow``
_OVERFLOW = 5
_CONNECT_TIMEOUT_S = 3


async def capture_event(kind: str, data: dict[str, Any]) -> int:
    """``api.capture_event``, awaited: validate, store, publish. Returns the event id."""
    url = get_settings().database_url
    if kind == "manual_lesson" or make_url(url).get_backend_name() != "postgresql":
        return await asyncio.to_thread(api.capture_event, kind, data)
    parsed = parse_event(kind, data)
    event_id, created, agent_id = await _store(url, parsed)
    if created:
        await publish_aio.publish_reflect(event_id, agent_id=agent_id)
    return event_id


async def _store(url: str, parsed: EventCommon) -> tuple[int, bool, int]:
    """``api._store`` with its fault handling: (id, created, agent id)."""
    pool = _pool(url)
    for attempt in (1, 2):
        reused = False
        try:
            async with pool.connection() as (conn, reused):
                return await _store_on(conn, url, parsed)
        except psycopg.Error as exc:
            if attempt == 1 and reused and isinstance(exc, psycopg.OperationalError):
                continue  # a pooled connection died (server restart): one fresh try
            if attempt == 1 and isinstance(exc, psycopg.IntegrityError):
                # A cached tenant/agent id may name a row deleted since, or a concurrent
                # writer took the same idempotency key: look again once.
                api.forget_agent_ids()
                continue
            raise api.storage_unavailable("the event", "was not stored", exc) from exc
    raise AssertionError("unreachable")  # pragma: no cover


async def _store_on(conn: AsyncConnection, url: str, parsed: EventCommon) -> tuple[int, bool, int]:
    ids = api.cached_agent_ids(url, parsed.tenant, parsed.agent)
    if ids is None:
        ids = await _agent_ids_for(conn, url, parsed.tenant, parsed.agent)
    values = api.event_values(parsed, *ids)
    statements = api._event_statements("postgresql")
    if parsed.idempotency_key is None:
        row = await _fetchone(conn, _insert_sql("insert", tuple(values)), values)
        assert row is not None
        return row[0], True, ids[1]
    row = await _fetchone(conn, _insert_sql("insert_keyed", tuple(values)), values)
    if row is not None:
        return row[0], True, ids[1]
    existing = await _fetchone(
        conn,
        _compiled(statements.find_keyed),
        {"agent_id": ids[1], "idempotency_key": parsed.idempotency_key},
    )
    assert existing is not None
    existing_id, kind, payload = existing
    if not api.same_event(kind, payload, values):
        raise IdempotencyConflict(parsed.idempotency_key, existing_id)
    return existing_id, False, ids[1]


async def _agent_ids_for(
    conn: AsyncConnection, url: str, tenant: str, agent: str
) -> tuple[int, int]:
    """``api._agent_ids_for``: create the tenant and agent rows on first use, remember ids."""
    async with conn.transaction():
        await _fetchone(conn, _compiled(api.tenant_upsert("postgresql", tenant)))
        tenant_row = await _fetchone(conn, _compiled(api.tenant_id_query(tenant)))
        assert tenant_row is not None
        tenant_id = int(tenant_row[0])
        await _fetchone(conn, _compiled(api.agent_upsert("postgresql", tenant_id, agent)))
        agent_row = await _fetchone(conn, _compiled(api.agent_id_query(tenant_id, agent)))
        assert agent_row is not None
        agent_id = int(agent_row[0])
    api.remember_agent_ids((url, tenant, agent), tenant_id, agent_id)
    return tenant_id, agent_id


# --- SQLAlchemy statements on psycopg's async connection --------------------------------------


def _compiled(statement: ClauseElement, column_keys: tuple[str, ...] | None = None) -> SQLCompiler:
    keys = None if column_keys is None else list(column_keys)
    compiled = statement.compile(dialect=_DIALECT, column_keys=keys)
    assert isinstance(compiled, SQLCompiler)
    return compiled


@functools.cache
def _insert_sql(which: str, column_keys: tuple[str, ...]) -> SQLCompiler:
    """The event INSERTs, compiled once per set of columns (they are few)."""
    return _compiled(getattr(api._event_statements("postgresql"), which), column_keys)


async def _fetchone(
    conn: AsyncConnection, compiled: SQLCompiler, values: dict[str, Any] | None = None
) -> tuple[Any, ...] | None:
    """Run a compiled statement with the parameters SQLAlchemy would send: the statement's
    own values, then ``values``, Python-side column defaults and the type's bind processing
    (JSON columns become psycopg ``Jsonb``)."""
    params = dict(compiled.construct_params(values) or {})
    for column in getattr(compiled, "insert_prefetch", ()):
        if values is not None and column.key not in values and column.default is not None:
            default = column.default
            params[column.key] = default.arg if default.is_scalar else default.arg(None)
    for name, process in compiled._bind_processors.items():
        if name in params and callable(process):  # (a sequence only for tuple types)
            params[name] = process(params[name])
    cursor = await conn.execute(str(compiled), params)
    if cursor.description is None:
        return None
    return await cursor.fetchone()


# --- connections ------------------------------------------------------------------------------


class _Pool:
    """Autocommit connections to one database, for one event loop."""

    def __init__(self, url: str) -> None:
        self.conninfo = make_url(url).set(drivername="postgresql").render_as_string(False)
        self.idle: list[AsyncConnection] = []
        self.keep = pool_size()
        self.slots = asyncio.Semaphore(self.keep + _OVERFLOW)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[tuple[AsyncConnection, bool]]:
        """(a connection, whether it was pooled); returned to the pool if it is still idle
        and sound afterwards (a cancelled or failed statement closes it)."""
        async with self.slots:
            reused = bool(self.idle)
            conn = self.idle.pop() if reused else await self._connect()
            try:
                yield conn, reused
            finally:
                sound = conn.info.transaction_status == TransactionStatus.IDLE
                if not conn.closed and sound and len(self.idle) < self.keep:
                    self.idle.append(conn)
                else:
                    await conn.close()

    async def _connect(self) -> AsyncConnection:
        # As the sync engine: fail fast on a dead database, no server-side prepared statements.
        return await AsyncConnection.connect(
            self.conninfo,
            autocommit=True,
            connect_timeout=_CONNECT_TIMEOUT_S,
            prepare_threshold=None,
        )

    async def close(self) -> None:
        while self.idle:
            await self.idle.pop().close()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Pool]] = (
    weakref.WeakKeyDictionary()
)


def _pool(url: str) -> _Pool:
    per_loop = _pools.setdefault(asyncio.get_running_loop(), {})
    pool = per_loop.get(url)
    if pool is None:
        pool = per_loop[url] = _Pool(url)
    return pool


async def close_pools() -> None:
    """Close this event loop's idle database connections (``digest.aio.aclose``)."""
    for pool in _pools.pop(asyncio.get_running_loop(), {}).values():
        await pool.close()
