"""Writing what an agent reports: the ``events`` row, and a manual lesson with its event.

Shared by the sync capture (``digest.capture.api``) and the asyncio one (``digest.capture.aio``,
which runs ``agent_ids_for`` and ``insert_event`` on its async connection): the statements,
built once per dialect; the per-process cache of tenant and agent ids, filled on their first
use; the row builder; and the one policy for database faults (``worth_another_try``: one fresh
try after a pooled connection died or a cached id went stale, ``digest.retrying``'s policy),
whose last error becomes ``CaptureUnavailable`` (``storage_unavailable``). On PostgreSQL the
sync capture's INSERT runs straight on psycopg (``insert_by_driver``, ``digest.capture.driver``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine, bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from digest._log import stdlib_logger
from digest.capture.driver import run_insert
from digest.capture.schemas import EventCommon, ManualLesson
from digest.config import get_settings
from digest.db import autocommit_engine, get_engine, session_scope
from digest.errors import CaptureUnavailable, IdempotencyConflict
from digest.fingerprint import manual_key, normalised_question
from digest.lessons.store import Candidate, add_lesson, support_lesson
from digest.lessons.transition import lock_agent_lessons
from digest.models import TRUSTED_KINDS, Agent, Event, Lesson, Tenant, utcnow
from digest.retrying import call_again
from digest.runtime import runtime

if TYPE_CHECKING:
    from sqlalchemy.sql.dml import Insert
    from sqlalchemy.sql.selectable import Select


P = ParamSpec("P")
R = TypeVar("R")

_ROUTING_FIELDS = {"kind", "tenant", "agent", "idempotency_key", "thread_id", "contact_id"}
#: what a payload leaves out: the routing fields, and "trimmed" unless capture trimmed something
_NOT_PAYLOAD: dict[bool, set[str]] = {False: _ROUTING_FIELDS | {"trimmed"}, True: _ROUTING_FIELDS}

#: stdlib logging, not structlog: an agent's process decides where its records go, and the
#: hot path never pays for structlog's import (the worker routes these records through it).
log = stdlib_logger("digest.capture")


# --- statements ------------------------------------------------------------------------------


def _insert(dialect: str, table: Any) -> postgresql.Insert | sqlite.Insert:
    if dialect == "postgresql":
        return postgresql.insert(table)
    if dialect == "sqlite":
        return sqlite.insert(table)
    raise CaptureUnavailable(f"unsupported database dialect {dialect!r}")


@dataclass(frozen=True)
class _EventStatements:
    """Built once per dialect: SQLAlchemy's compiled cache then serves every later capture."""

    insert: Insert
    insert_keyed: Insert  # ON CONFLICT (agent_id, idempotency_key) DO NOTHING
    find_keyed: Select[Any]


@functools.cache
def _event_statements(dialect: str) -> _EventStatements:
    events = Event.__table__
    return _EventStatements(
        insert=_insert(dialect, events).returning(events.c.id),
        insert_keyed=_insert(dialect, events)
        .on_conflict_do_nothing(index_elements=["agent_id", "idempotency_key"])
        .returning(events.c.id),
        find_keyed=select(events.c.id, events.c.kind, events.c.payload).where(
            events.c.agent_id == bindparam("agent_id"),
            events.c.idempotency_key == bindparam("idempotency_key"),
        ),
    )


# The statements that create a tenant and an agent on first use.


def tenant_upsert(dialect: str, tenant: str) -> postgresql.Insert | sqlite.Insert:
    return (
        _insert(dialect, Tenant)
        .values(name=tenant, learning_apply_mode="auto", settings={}, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["name"])
    )


def tenant_id_query(tenant: str) -> Select[int]:
    return select(Tenant.id).where(Tenant.name == tenant)


def agent_upsert(dialect: str, tenant_id: int, agent: str) -> postgresql.Insert | sqlite.Insert:
    return (
        _insert(dialect, Agent)
        .values(
            tenant_id=tenant_id,
            name=agent,
            enable_learning=True,
            lesson_epoch=0,
            created_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["tenant_id", "name"])
    )


def agent_id_query(tenant_id: int, agent: str) -> Select[int]:
    return select(Agent.id).where(Agent.tenant_id == tenant_id, Agent.name == agent)


# --- tenant and agent ids, cached per process ------------------------------------------------


def _agent_ids() -> dict[tuple[str, str, str], tuple[int, int]]:
    """(database url, tenant, agent) → (tenant id, agent id): a piece of the runtime."""
    return {}


def agent_ids_for(conn: Connection, url: str, tenant: str, agent: str) -> tuple[int, int]:
    """(tenant id, agent id), creating the rows on first use and remembering the ids."""
    key = (url, tenant, agent)
    cached = runtime().piece(_agent_ids).get(key)
    if cached is not None:
        return cached
    dialect = conn.dialect.name
    conn.execute(tenant_upsert(dialect, tenant))
    tenant_id = conn.scalars(tenant_id_query(tenant)).one()
    conn.execute(agent_upsert(dialect, tenant_id, agent))
    agent_id = conn.scalars(agent_id_query(tenant_id, agent)).one()
    remember_agent_ids(key, tenant_id, agent_id)
    return tenant_id, agent_id


def cached_agent_ids(url: str, tenant: str, agent: str) -> tuple[int, int] | None:
    return runtime().piece(_agent_ids).get((url, tenant, agent))


def remember_agent_ids(key: tuple[str, str, str], tenant_id: int, agent_id: int) -> None:
    runtime().piece(_agent_ids)[key] = (tenant_id, agent_id)


def forget_agent_ids() -> None:
    runtime().drop(_agent_ids)


# --- database faults -------------------------------------------------------------------------


def worth_another_try(exc: BaseException) -> bool:
    """A fault that one fresh try may cure: a pooled connection that died (a server restart),
    or an ``IntegrityError`` (a cached tenant/agent id may name a row deleted since, or a
    concurrent writer took the same idempotency key)."""
    return isinstance(exc, IntegrityError) or (
        isinstance(exc, SQLAlchemyError) and bool(getattr(exc, "connection_invalidated", False))
    )


def before_another_try(exc: BaseException) -> None:
    """After an ``IntegrityError``, look the ids up again rather than trust the cache."""
    if isinstance(exc, IntegrityError):
        forget_agent_ids()


def storage_errors(
    what: str, failed: str = "was not stored"
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Try a database step once more on a fault ``worth_another_try``; translate the fault that
    remains into ``CaptureUnavailable`` saying ``what`` ``failed``."""

    def wrap(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return call_again(
                    lambda: func(*args, **kwargs),
                    times=2,
                    when=worth_another_try,
                    before=before_another_try,
                )
            except SQLAlchemyError as exc:
                raise storage_unavailable(what, failed, exc) from exc

        return inner

    return wrap


def storage_unavailable(what: str, failed: str, exc: BaseException) -> CaptureUnavailable:
    """The ``CaptureUnavailable`` for a database fault ``exc`` (SQLAlchemy's or the driver's):
    the driver's first line, and how to fix a missing schema. Logged, without the statement."""
    message = str(getattr(exc, "orig", None) or exc).strip()
    hint = ""
    if "no such table" in message or "does not exist" in message:
        hint = " (schema missing: run `digest db upgrade`)"
    log.error("capture_unavailable: %s (%s)", what, type(exc).__name__)
    first = message.splitlines()[0] if message else type(exc).__name__
    return CaptureUnavailable(f"{what} {failed}: {first}{hint}")


# --- the event row ---------------------------------------------------------------------------


def event_values(
    parsed: EventCommon,
    tenant_id: int,
    agent_id: int,
    trust: str | None = None,
    *,
    payload_json: bool = False,
) -> dict[str, Any]:
    """The ``events`` row of a validated event, with ``trust`` if given, else the trust of its
    kind: one builder for the sync and async paths. ``payload_json``: the payload as JSON
    text, written by pydantic (``insert_by_driver``'s), rather than a JSON-ready dict."""
    exclude = _NOT_PAYLOAD[bool(parsed.trimmed)]
    payload: Any = (
        parsed.model_dump_json(exclude=exclude)
        if payload_json
        else parsed.model_dump(mode="json", exclude=exclude)
    )
    now = utcnow()
    return {
        "tenant_id": tenant_id,
        "agent_id": agent_id,
        "kind": parsed.kind,
        "idempotency_key": parsed.idempotency_key,
        "payload": payload,
        "trust": trust
        if trust is not None
        else ("high" if parsed.kind in TRUSTED_KINDS else "low"),
        "thread_id": parsed.thread_id,
        "contact_id": parsed.contact_id,
        "status": "pending",
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
    }


def same_event(existing_kind: str, existing_payload: Any, values: dict[str, Any]) -> bool:
    """Whether a stored event with this kind and payload is a repeat of ``values``."""
    return (existing_kind, existing_payload) == (values["kind"], values["payload"])


def insert_event(
    conn: Connection, parsed: EventCommon, ids: tuple[int, int], trust: str | None = None
) -> tuple[int, bool]:
    """Insert the event on ``conn`` (autocommit: one statement is its own transaction), or find
    the one stored before with the same idempotency key. (event id, created)."""
    values = event_values(parsed, *ids, trust)
    statements = _event_statements(conn.dialect.name)
    keyed = parsed.idempotency_key is not None
    statement = statements.insert_keyed if keyed else statements.insert
    inserted: int | None = conn.execute(statement, values).scalar_one_or_none()
    if inserted is not None:
        return inserted, True
    if not keyed:
        raise CaptureUnavailable("the event was not stored: the INSERT returned no id")
    return _stored_before(conn, values), False


def _stored_before(conn: Connection, values: dict[str, Any]) -> int:
    """The id of the event whose idempotency key the INSERT found taken, if it is a repeat of
    ``values``; else ``IdempotencyConflict``."""
    key = values["idempotency_key"]
    existing = conn.execute(
        _event_statements(conn.dialect.name).find_keyed,
        {"agent_id": values["agent_id"], "idempotency_key": key},
    ).one()
    if not same_event(existing.kind, existing.payload, values):
        raise IdempotencyConflict(key, existing.id)
    return int(existing.id)


# --- the INSERT straight to psycopg ----------------------------------------------------------


def insert_by_driver(
    engine: Engine, parsed: EventCommon, ids: tuple[int, int], trust: str | None = None
) -> tuple[int, bool]:
    """``insert_event`` for a psycopg engine (``db.autocommit_engine``'s), without
    SQLAlchemy's execution machinery (a quarter of a millisecond per capture): a connection
    checked out of the engine's pool, and the statement compiled once and prepared on the
    server on its first run on that connection (parsing and planning a 14-column INSERT is
    about a quarter of its server time; ``DIGEST_DB_PREPARE=false`` behind a pooler that
    does not keep prepared statements). A repeated idempotency key is
    looked up through SQLAlchemy (``_stored_before``: not the hot path)."""
    values = event_values(parsed, *ids, trust, payload_json=True)
    statements = _event_statements("postgresql")
    keyed = parsed.idempotency_key is not None
    statement = statements.insert_keyed if keyed else statements.insert
    inserted = run_insert(engine, statement, values, prepare=get_settings().db_prepare)
    if inserted is not None:
        return inserted, True
    if not keyed:
        raise CaptureUnavailable("the event was not stored: the INSERT returned no id")
    with engine.connect() as conn:
        return _stored_before(conn, event_values(parsed, *ids, trust)), False


@storage_errors("the event")
def store_event(parsed: EventCommon, trust: str | None = None) -> tuple[int, bool, int]:
    """Insert the event (or find the one with the same idempotency key), with ``trust`` if
    given, else the trust of its kind. (id, created, agent id)."""
    url = get_settings().database_url
    ids = cached_agent_ids(url, parsed.tenant, parsed.agent)
    if ids is None:
        with get_engine(url).begin() as conn:
            ids = agent_ids_for(conn, url, parsed.tenant, parsed.agent)
    # One statement, so autocommit is enough: the INSERT is durable when it returns.
    engine = autocommit_engine(url)
    if engine.dialect.driver == "psycopg":
        return (*insert_by_driver(engine, parsed, ids, trust), ids[1])
    with engine.connect() as conn:
        return (*insert_event(conn, parsed, ids, trust), ids[1])


# --- a manual lesson and its event -----------------------------------------------------------


def _same_manual_lesson(
    session: Session, agent_id: int, key: str, signature: str, body: str
) -> Lesson | None:
    """An active lesson of this agent with this signature and, word for word (case, spacing
    and punctuation aside), this body."""
    wanted = (normalised_question(signature), normalised_question(body))
    for lesson in session.scalars(
        select(Lesson)
        .where(Lesson.agent_id == agent_id, Lesson.fingerprint == key, Lesson.status == "active")
        .order_by(Lesson.id)
    ):
        if (
            normalised_question(lesson.situation),
            normalised_question(lesson.correction),
        ) == wanted:
            return lesson
    return None


@storage_errors("the lesson")
def store_manual(parsed: ManualLesson, signature: str, body: str) -> tuple[int, bool]:
    """Event and lesson in one transaction: a manual lesson cites its own event. Returns the
    event id (the lesson is ``lesson_for_event``'s) and whether it is new."""
    url = get_settings().database_url
    with session_scope(url) as session:
        tenant_id, agent_id = agent_ids_for(session.connection(), url, parsed.tenant, parsed.agent)
        values = event_values(parsed, tenant_id, agent_id)
        if parsed.idempotency_key is not None:
            previous = session.execute(
                select(Event.id, Event.kind, Event.payload).where(
                    Event.agent_id == agent_id, Event.idempotency_key == parsed.idempotency_key
                )
            ).first()
            if previous is not None:
                if not same_event(previous.kind, previous.payload, values):
                    raise IdempotencyConflict(parsed.idempotency_key, previous.id)
                return int(previous.id), False
        values.update(status="reflected", finished_at=utcnow())
        event = Event(**values)
        session.add(event)
        session.flush()
        key = manual_key(signature, body)
        lock_agent_lessons(session, agent_id)
        twin = _same_manual_lesson(session, agent_id, key, signature, body)
        if twin is not None:
            # The same rule written again: more support for the lesson there is, not a copy.
            support_lesson(
                session, twin, event=event, reason="the same lesson added again by hand",
                model=None, prompt_hash=None,
            )  # fmt: skip
            log.info("manual_lesson_supported lesson_id=%s event_id=%s", twin.id, event.id)
            return event.id, True
        lesson = add_lesson(
            session,
            event=event,
            candidate=Candidate(
                situation=signature,
                correction=body,
                title=signature,
                fingerprint=key,
            ),
            source="manual_lesson",
            outcome="mixed",
            note="added by hand",
        )
        log.info("manual_lesson_added lesson_id=%s event_id=%s", lesson.id, event.id)
        return event.id, True
