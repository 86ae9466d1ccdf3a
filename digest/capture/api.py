"""The agent's hot path: validate, one INSERT, then a best-effort publish.

A capture is one pydantic validation, one pre-built SQLAlchemy Core ``INSERT … RETURNING id`` on a
pooled connection in autocommit mode (a single statement is its own transaction: one round trip
instead of BEGIN, INSERT, COMMIT; on PostgreSQL run straight on psycopg and prepared on the
server, ``digest.capture.driver``), and, once that has returned, one Redis command that queues
the reflect task unless one already waits for the agent (``digest.outbox.publish``). Tenant
and agent ids are cached per process after their first use. Nothing here imports litellm,
Celery, structlog or rapidfuzz (``lint-imports`` checks it): log records go to stdlib logging,
and an operator edit's edit distance is measured when the event is claimed for reflection.

This module holds the calls an agent makes (``record_*``, ``capture_event``, ``store_pending``,
``lesson_for_event``); the writing, ids and fault handling are ``digest.capture.store``'s.

A broker fault never raises (the event stays ``pending`` and the relay publishes it later); a
database fault raises ``CaptureUnavailable``; bad input raises ``InvalidEvent`` before anything
is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from digest.capture.manual import split_manual_text
from digest.capture.schemas import ManualLesson, parse_event
from digest.capture.store import storage_errors, store_event, store_manual
from digest.config import get_settings
from digest.db import read_scope
from digest.errors import InvalidArgument, NotFound
from digest.models import Agent, Event, LessonEvidence, Tenant
from digest.outbox import publish
from digest.tenants import agent_named, tenant_named


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
    turn_id: str | None = None,
) -> int:
    """Report how a run ended (``success``, ``failure`` or ``escalated``). Returns the event id.

    ``tool_calls`` items are ``{"tool": str, "args": dict, "ok": bool, "error": str,
    "output": str}``; ``applied_lesson_ids`` are the lessons the agent had in context, so their
    success and failure counts can follow real outcomes. ``turn_id``: the id given to
    ``pitfalls`` on this turn; the outcome is credited to that turn's holdout exposures.
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
            turn_id=turn_id,
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
        return store_manual(parsed, signature, body)
    event_id, created, agent_id = store_event(parsed)
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
    event_id, created, _ = store_event(parse_event(kind, data), trust)
    return event_id, created


def _as_list(value: Any) -> Any:
    """Tuples are fine sequences; anything else goes to validation as given (a dict or a string
    is not quietly turned into a list)."""
    return list(value) if isinstance(value, tuple) else value


def _given(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


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


@storage_errors("the event's lesson", "could not be read")
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
