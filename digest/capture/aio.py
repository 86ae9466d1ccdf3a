"""The asyncio twin of the capture hot path (``digest.aio``'s ``record_*``).

Only the I/O differs from ``digest.capture.api``: the same ``parse_event`` validates and trims,
and ``digest.capture.store``'s own ``agent_ids_for`` and ``insert_event`` (the same statements,
row builder, tenant/agent id cache and ``IdempotencyConflict``) run on SQLAlchemy's asyncio
engine (``postgresql+psycopg``: psycopg's ``AsyncConnection`` underneath) through
``AsyncConnection.run_sync``, which awaits each statement's I/O on the loop. The publish goes
through ``digest.outbox.aio`` (``redis.asyncio``). Database faults follow the sync path: one
fresh try after a pooled connection died or a cached id went stale (``store.worth_another_try``
on ``digest.retrying``'s policy), then ``CaptureUnavailable``.

Not natively async, but run in a thread so the loop is never blocked: SQLite (its driver is
synchronous; ``aiosqlite`` is not a dependency) and ``manual_lesson`` events, whose one
transaction (lock the agent's lessons, add or support one) is ``api.capture_event``'s own.

Engines are kept per event loop (an async connection belongs to the loop that opened it), in
the process's runtime, with the sync engine's pool size and timeouts. Their connections are in
autocommit mode: the INSERT is one statement, and the first use's tenant and agent upserts need
no transaction either (each is idempotent, and each lookup reads committed rows).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from digest.capture import api, store
from digest.capture.schemas import EventCommon, parse_event
from digest.config import get_settings
from digest.db import pool_size
from digest.outbox import aio as publish_aio
from digest.retrying import again_async
from digest.runtime import runtime

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
    """``store.store_event`` with its fault handling: (id, created, agent id)."""
    retrying = again_async(times=2, when=store.worth_another_try, before=store.before_another_try)
    try:
        async for attempt in retrying:
            with attempt:
                return await _store_once(_engine(url), url, parsed)
    except SQLAlchemyError as exc:
        raise store.storage_unavailable("the event", "was not stored", exc) from exc
    raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover


async def _store_once(engine: AsyncEngine, url: str, parsed: EventCommon) -> tuple[int, bool, int]:
    async with engine.connect() as conn:
        ids = store.cached_agent_ids(url, parsed.tenant, parsed.agent)
        if ids is None:
            ids = await conn.run_sync(store.agent_ids_for, url, parsed.tenant, parsed.agent)
        event_id, created = await conn.run_sync(store.insert_event, parsed, ids)
    return event_id, created, ids[1]


# --- engines, one per event loop and database ------------------------------------------------

_Engines = weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, AsyncEngine]]


def _engines() -> _Engines:
    """A piece of the runtime (dropped by its reset: disposing an engine takes its loop)."""
    return weakref.WeakKeyDictionary()


def _engine(url: str) -> AsyncEngine:
    per_loop = runtime().piece(_engines).setdefault(asyncio.get_running_loop(), {})
    engine = per_loop.get(url)
    if engine is None:
        # As digest.db.make_engine: no pre-ping (a dead connection is found on use and tried
        # once more), fail fast on a dead database, no server-side prepared statements.
        engine = per_loop[url] = create_async_engine(
            make_url(url).set(drivername="postgresql+psycopg"),
            isolation_level="AUTOCOMMIT",
            pool_pre_ping=False,
            pool_size=pool_size(),
            max_overflow=_OVERFLOW,
            connect_args={"connect_timeout": _CONNECT_TIMEOUT_S, "prepare_threshold": None},
        )
    return engine


async def close_pools() -> None:
    """Close this event loop's database connections (``digest.aio.aclose``)."""
    for engine in runtime().piece(_engines).pop(asyncio.get_running_loop(), {}).values():
        await engine.dispose()
