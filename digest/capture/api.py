"""The agent's hot path: validate, one INSERT, then a best-effort publish.

A capture is one pydantic validation, one pre-built SQLAlchemy Core ``INSERT … RETURNING id`` on a
pooled connection in autocommit mode (a single statement is its own transaction: one round trip
instead of BEGIN, INSERT, COMMIT), and, once that has returned, one Redis ``LPUSH`` of the
reflect task (``digest.outbox.publish``). Tenant and agent ids are cached per process after
their first use. Nothing here imports litellm, Celery, structlog or rapidfuzz (``lint-imports``
checks it): log records go to stdlib logging, and an operator edit's edit distance is measured
when the event is claimed for reflection.

A broker fault never raises (the event stays ``pending`` and the relay publishes it later); a
database fault raises ``CaptureUnavailable``; bad input raises ``InvalidEvent`` before anything
is written.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from digest._log import stdlib_logger
from digest.capture.manual import split_manual_text
from digest.capture.schemas import EventCommon, ManualLesson, parse_event
from digest.config import get_settings
from digest.db import get_engine, read_scope, session_scope
from digest.errors import CaptureUnavailable, IdempotencyConflict, InvalidArgument, NotFound
from digest.fingerprint import manual_key, normalised_question
from digest.lessons.store import Candidate, add_lesson, support_lesson
from digest.lessons.transition import lock_agent_lessons
from digest.models import TRUSTED_KINDS, Agent, Event, Lesson, LessonEvidence, Tenant, utcnow
from digest.outbox import publish
from digest.tenants import agent_named, tenant_named

if TYPE_CHECKING:
    from sqlalchemy.sql.dml import Insert
    from sqlalchemy.sql.selectable import Select

_ids_lock = threading.Lock()
#: (database url, tenant, agent) → (tenant_id, agent_id); first use creates the rows.
_agent_ids: dict[tuple[str, str, str], tuple[int, int]] = {}

P = ParamSpec("P")
R = TypeVar("R")

_ROUTING_FIELDS = {"kind", "tenant", "agent", "idempotency_key", "thread_id", "contact_id"}


#: stdlib logging, not structlog: an agent's process decides where its records go, and the
#: hot path never pays for structlog's import (the worker routes these records through it).
log = stdlib_logger("digest.capture")


def record_run(
    tenant: str,
    agent: str,
    *,
    task: str,
    outcome: str,
    error: str | None = None,
    tool_calls: Sequence[dict[str, Any]] | None = None,
    attempt_summary: str | None = None,
    applied_lesson_ids: Sequence[int] | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """Report how a run ended (``success``, ``failure`` or ``escalated``). Returns the event id.

    ``tool_calls`` items are ``{"tool": str, "args": dict, "ok": bool, "error": str,
    "output": str}``; ``applied_lesson_ids`` are the lessons the agent had in context, so their
    success and failure counts can follow real outcomes.
    """
    return capture_event(
        "run_outcome",
        _given(
            tenant=tenant,
            agent=agent,
            task=task,
            outcome=outcome,
            error=error,
            tool_calls=_as_list(tool_calls),
            attempt_summary=attempt_summary,
            applied_lesson_ids=_as_list(applied_lesson_ids),
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
        ),
    )


def record_edit(
    tenant: str,
    agent: str,
    *,
    original: str,
    final: str | None,
    context: str | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """Report an operator's edit of a drafted reply (``final=None``: rejected outright)."""
    return capture_event(
        "operator_edit",
        {
            **_given(
                tenant=tenant,
                agent=agent,
                original=original,
                context=context,
                idempotency_key=idempotency_key,
                thread_id=thread_id,
                contact_id=contact_id,
            ),
            "final": final,
        },
    )


def record_answer(
    tenant: str,
    agent: str,
    *,
    question: str,
    answer: str,
    context: str | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """Report an owner's answer to a question the agent asked. Returns the event id."""
    return capture_event(
        "owner_answer",
        _given(
            tenant=tenant,
            agent=agent,
            question=question,
            answer=answer,
            context=context,
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
        ),
    )


def record_lesson(
    tenant: str,
    agent: str,
    text: str,
    *,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """Add a lesson by hand, synchronously and without an LLM. Returns the event id, like
    every ``record_*``; ``lesson_for_event(tenant, agent, event_id)`` is the lesson.

    ``text`` is either one line ``signature: lesson text`` or a block whose first line is the
    signature and whose following lines are the lesson body. The lesson is written before this
    returns, citing its event; when the agent already has an active lesson that says the same,
    word for word (case, spacing and punctuation aside), that lesson gets one more support
    instead of a copy.
    """
    return capture_event(
        "manual_lesson",
        _given(
            tenant=tenant,
            agent=agent,
            text=text,
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
        ),
    )


def capture_event(kind: str, data: dict[str, Any]) -> int:
    """Validate and store one event of ``kind``; publish it for reflection (a
    ``manual_lesson`` is reconciled at once instead). Returns the event id."""
    return capture_new_event(kind, data)[0]


def capture_new_event(kind: str, data: dict[str, Any]) -> tuple[int, bool]:
    """``capture_event``, saying whether the event is new: (event id, created). ``created`` is
    False when its idempotency key names an event stored before (the HTTP service answers 200
    instead of 201)."""
    parsed = parse_event(kind, data)
    if isinstance(parsed, ManualLesson):
        signature, body = split_manual_text(parsed.text)
        return _store_manual(parsed, signature, body)
    event_id, created, agent_id = _store(parsed)
    if created:
        publish.publish_reflect(event_id, agent_id=agent_id)
    return event_id, created


def store_pending(
    kind: str, data: dict[str, Any], *, trusted: bool | None = None
) -> tuple[int, bool]:
    """Validate and store an event as ``pending`` without publishing it: for callers that
    reflect it themselves at once (LESSON.md import). ``trusted`` overrides the trust its kind
    implies (an import is untrusted unless its owner says otherwise). (event id, created)."""
    trust = None if trusted is None else ("high" if trusted else "low")
    event_id, created, _ = _store(parse_event(kind, data), trust)
    return event_id, created


def _as_list(value: Any) -> Any:
    """Tuples are fine sequences; anything else goes to validation as given (a dict or a string
    is not quietly turned into a list)."""
    return list(value) if isinstance(value, tuple) else value


def _given(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


# --- storage ---------------------------------------------------------------------------------


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


def _agent_ids_for(conn: Connection, url: str, tenant: str, agent: str) -> tuple[int, int]:
    key = (url, tenant, agent)
    cached = _agent_ids.get(key)
    if cached is not None:
        return cached
    dialect = conn.dialect.name
    conn.execute(tenant_upsert(dialect, tenant))
    tenant_id = conn.scalars(tenant_id_query(tenant)).one()
    conn.execute(agent_upsert(dialect, tenant_id, agent))
    agent_id = conn.scalars(agent_id_query(tenant_id, agent)).one()
    remember_agent_ids(key, tenant_id, agent_id)
    return tenant_id, agent_id


# The statements that create a tenant and an agent on first use, shared with digest.aio.


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


def cached_agent_ids(url: str, tenant: str, agent: str) -> tuple[int, int] | None:
    return _agent_ids.get((url, tenant, agent))


def remember_agent_ids(key: tuple[str, str, str], tenant_id: int, agent_id: int) -> None:
    with _ids_lock:
        _agent_ids[key] = (tenant_id, agent_id)


def forget_agent_ids() -> None:
    with _ids_lock:
        _agent_ids.clear()


def _event_values(parsed: EventCommon, tenant_id: int, agent_id: int) -> dict[str, Any]:
    # "trimmed" is recorded only when capture trimmed something
    payload = parsed.model_dump(
        mode="json", exclude=_ROUTING_FIELDS | (set() if parsed.trimmed else {"trimmed"})
    )
    now = utcnow()
    values: dict[str, Any] = {
        "tenant_id": tenant_id,
        "agent_id": agent_id,
        "kind": parsed.kind,
        "idempotency_key": parsed.idempotency_key,
        "payload": payload,
        "trust": "high" if parsed.kind in TRUSTED_KINDS else "low",
        "thread_id": parsed.thread_id,
        "contact_id": parsed.contact_id,
        "status": "pending",
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
    }
    return values


def _with_storage_errors(
    what: str, failed: str = "was not stored"
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Translate any database fault into ``CaptureUnavailable`` saying ``what`` ``failed``."""

    def wrap(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            attempt = 0
            while True:
                attempt += 1
                try:
                    return func(*args, **kwargs)
                except SQLAlchemyError as exc:
                    if attempt == 1 and getattr(exc, "connection_invalidated", False):
                        continue  # a pooled connection died (server restart): one fresh try
                    if isinstance(exc, IntegrityError) and attempt == 1:
                        # A cached tenant/agent id may name a row deleted since, or a concurrent
                        # writer took the same idempotency key: look again once.
                        forget_agent_ids()
                        continue
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


def event_values(
    parsed: EventCommon, tenant_id: int, agent_id: int, trust: str | None = None
) -> dict[str, Any]:
    """The ``events`` row of a validated event: one builder for the sync and async paths."""
    values = _event_values(parsed, tenant_id, agent_id)
    if trust is not None:
        values["trust"] = trust
    return values


def same_event(existing_kind: str, existing_payload: Any, values: dict[str, Any]) -> bool:
    """Whether a stored event with this kind and payload is a repeat of ``values``."""
    return (existing_kind, existing_payload) == (values["kind"], values["payload"])


@_with_storage_errors("the event")
def _store(parsed: EventCommon, trust: str | None = None) -> tuple[int, bool, int]:
    """Insert the event (or find the one with the same idempotency key), with ``trust`` if
    given, else the trust of its kind. (id, created, agent id)."""
    url = get_settings().database_url
    engine = get_engine(url)
    ids = cached_agent_ids(url, parsed.tenant, parsed.agent)
    if ids is None:
        with engine.begin() as conn:
            ids = _agent_ids_for(conn, url, parsed.tenant, parsed.agent)
    values = event_values(parsed, *ids, trust)
    statements = _event_statements(engine.dialect.name)
    # One statement, so autocommit is enough: the INSERT is durable when it returns.
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if parsed.idempotency_key is None:
            return conn.execute(statements.insert, values).scalar_one(), True, ids[1]
        inserted = conn.execute(statements.insert_keyed, values).scalar_one_or_none()
        if inserted is not None:
            return inserted, True, ids[1]
        existing = conn.execute(
            statements.find_keyed,
            {"agent_id": ids[1], "idempotency_key": parsed.idempotency_key},
        ).one()
        if not same_event(existing.kind, existing.payload, values):
            raise IdempotencyConflict(parsed.idempotency_key, existing.id)
        return existing.id, False, ids[1]


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


@_with_storage_errors("the lesson")
def _store_manual(parsed: ManualLesson, signature: str, body: str) -> tuple[int, bool]:
    """Event and lesson in one transaction: a manual lesson cites its own event. Returns the
    event id (the lesson is ``lesson_for_event``'s) and whether it is new."""
    url = get_settings().database_url
    with session_scope(url) as session:
        tenant_id, agent_id = _agent_ids_for(session.connection(), url, parsed.tenant, parsed.agent)
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


# --- reading back -----------------------------------------------------------------------------


#: ids are BIGINT: anything outside names no row (and must not reach the driver)
_ID_MAX = 2**63 - 1


def lesson_for_event(tenant: str, agent: str, event_id: int) -> int | None:
    """The lesson an event of this agent taught: for ``record_lesson``'s event, the lesson it
    added, or the one it supported when the agent already had it; for another event, the first
    lesson that cites it. ``None`` while the event waits for reflection, or when it taught
    nothing (skipped, failed). Raises ``NotFound`` if the event is not one of this agent's,
    and ``CaptureUnavailable`` if the database cannot be read."""
    if isinstance(event_id, bool) or not isinstance(event_id, int):
        raise InvalidArgument(f"event_id must be an int, not {type(event_id).__name__}")
    found = None if not 0 < event_id <= _ID_MAX else _cited_lesson(tenant, agent, event_id)
    if found is None:
        raise NotFound(f"event {event_id} not found for agent {agent!r} in tenant {tenant!r}")
    return found[0]


@_with_storage_errors("the event's lesson", "could not be read")
def _cited_lesson(tenant: str, agent: str, event_id: int) -> tuple[int | None] | None:
    """(the first lesson citing the event, or None), or None if the agent has no such event."""
    with read_scope(get_settings().database_url) as session:
        row = session.execute(
            select(LessonEvidence.lesson_id)
            .select_from(Event)
            .join(Agent, Agent.id == Event.agent_id)
            .join(Tenant, Tenant.id == Event.tenant_id)
            .outerjoin(LessonEvidence, LessonEvidence.event_id == Event.id)
            .where(Event.id == event_id, agent_named(agent), tenant_named(tenant))
            .order_by(LessonEvidence.id)
            .limit(1)
        ).first()
    return None if row is None else (row[0],)
