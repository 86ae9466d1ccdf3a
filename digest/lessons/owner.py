"""What an owner does to one agent's lessons (DESIGN §9).

Every lookup goes through the (tenant, agent) pair: a lesson id that belongs to another agent
or tenant is "not found", exactly like an id that does not exist, so lessons never cross
agents and an id says nothing about other tenants.

Status changes are soft. No row is deleted. Each change writes a ``lesson_history`` row, moves
``updated_at`` (so the weekly sweep recomposes the agent) and bumps the agent's
``lesson_epoch`` under the agent's lesson lock. A reconciliation running at the same time sees
the epoch move and reads its neighbours again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from digest.config import get_settings
from digest.errors import LessonStateError, NotFound, OwnerInputError
from digest.lessons.release import Gate, agent_gate, held_note, release_word
from digest.lessons.transition import StatusChange, lock_agent_lessons, transition
from digest.models import (
    LESSON_STATUSES,
    Event,
    Lesson,
    LessonEvidence,
    LessonHistory,
    as_utc,
    utcnow,
)
from digest.tenants import find_agent


def _aware(moment: datetime | None) -> datetime | None:
    return None if moment is None else as_utc(moment)


def _iso(moment: datetime | None) -> str | None:
    aware = _aware(moment)
    return aware.isoformat() if aware is not None else None


@dataclass(frozen=True)
class LessonSummary:
    """One lesson as ``lesson list`` and ``lesson search`` show it."""

    id: int
    slug: str
    title: str
    status: str
    #: why the lesson has its status (e.g. what the injection screen found), if recorded
    status_reason: str | None
    source: str
    #: trusted (a person's words), untrusted (run text, untrusted import) or reviewed
    trust: str
    #: may an agent read it (``digest.lessons.release``): ``released`` or ``held 1/2``
    release: str
    #: why it waits, in words ("held: 1 of 2 independent sources"); None when released
    held: str | None
    #: its independent sources as counted (``independent_sources``, their runs' span in s)
    independent_sources: int
    source_span_s: int
    #: the person who released it before it was corroborated, and when
    released_by: str | None
    released_at: datetime | None
    scope: str
    tags: list[str]
    confidence: float
    support_count: int
    success_count: int
    failure_count: int
    hit_count: int
    evidence_count: int
    situation: str
    mistake: str | None
    correction: str
    last_seen_at: datetime | None
    created_at: datetime | None
    updated_at: datetime | None
    #: the one contact a ``contact``-scoped lesson is for (None: the whole agent)
    contact_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("last_seen_at", "created_at", "updated_at", "released_at"):
            data[key] = _iso(data[key])
        return data


def _summary(lesson: Lesson, evidence_count: int, gate: Gate) -> LessonSummary:
    counts = (lesson.trust, lesson.independent_sources, lesson.source_span_s, gate)
    return LessonSummary(
        id=lesson.id,
        slug=lesson.slug,
        title=lesson.title,
        status=lesson.status,
        status_reason=lesson.status_reason,
        source=lesson.source,
        trust=lesson.trust,
        release=release_word(*counts),
        held=held_note(*counts, replaces=lesson.replaces_id),
        independent_sources=lesson.independent_sources,
        source_span_s=lesson.source_span_s,
        released_by=lesson.released_by,
        released_at=_aware(lesson.released_at),
        scope=lesson.scope,
        contact_id=lesson.contact_id if lesson.scope == "contact" else None,
        tags=list(lesson.tags or []),
        confidence=lesson.confidence,
        support_count=lesson.support_count,
        success_count=lesson.success_count,
        failure_count=lesson.failure_count,
        hit_count=lesson.hit_count,
        evidence_count=evidence_count,
        situation=lesson.situation,
        mistake=lesson.mistake,
        correction=lesson.correction,
        last_seen_at=_aware(lesson.last_seen_at),
        created_at=_aware(lesson.created_at),
        updated_at=_aware(lesson.updated_at),
    )


def _summaries(session: Session, agent_id: int, *where: ColumnElement[bool]) -> list[LessonSummary]:
    """The agent's lessons matching ``where``, newest-consulted first (never consulted last)."""
    evidence = (
        select(LessonEvidence.lesson_id, func.count().label("n"))
        .join(Lesson, Lesson.id == LessonEvidence.lesson_id)
        .where(Lesson.agent_id == agent_id)
        .group_by(LessonEvidence.lesson_id)
        .subquery()
    )
    rows = session.execute(
        select(Lesson, func.coalesce(evidence.c.n, 0))
        .outerjoin(evidence, evidence.c.lesson_id == Lesson.id)
        .where(Lesson.agent_id == agent_id, *where)
        .order_by(Lesson.last_seen_at.desc().nulls_last(), Lesson.id.desc())
    ).all()
    gate = agent_gate(session, agent_id)
    return [_summary(lesson, int(count), gate) for lesson, count in rows]


def list_lessons_for(
    session: Session, tenant: str, agent: str, status: str | None = None
) -> list[LessonSummary]:
    """Every lesson of one agent (optionally of one status), newest-consulted first."""
    if status is not None and status not in LESSON_STATUSES:
        raise OwnerInputError(
            f"unknown status {status!r}; expected one of {', '.join(LESSON_STATUSES)}"
        )
    agent_row = find_agent(session, tenant, agent)
    where = [Lesson.status == status] if status is not None else []
    return _summaries(session, agent_row.id, *where)


def search_lessons(session: Session, tenant: str, agent: str, query: str) -> list[LessonSummary]:
    """Lessons whose title (signature), situation, mistake or correction contains ``query``,
    ignoring case, in the order of ``list_lessons_for``."""
    needle = query.strip()
    if not needle:
        raise OwnerInputError("the search text is empty")
    agent_row = find_agent(session, tenant, agent)
    if session.get_bind().dialect.name == "postgresql":
        # Postgres folds case for any script in the database; the agent filter keeps it small.
        texts = (Lesson.title, Lesson.situation, Lesson.mistake, Lesson.correction)
        match = or_(*(text.icontains(needle, autoescape=True) for text in texts))
        return _summaries(session, agent_row.id, match)
    # SQLite's lower() and LIKE fold ASCII only ("É" would not find "é"); the embedded
    # database holds one small installation, so fold in Python with str.casefold instead.
    folded = needle.casefold()
    return [
        row
        for row in _summaries(session, agent_row.id)
        if any(
            folded in text.casefold()
            for text in (row.title, row.situation, row.mistake or "", row.correction)
        )
    ]


@dataclass(frozen=True)
class EvidenceRow:
    event_id: int
    kind: str
    note: str
    created_at: datetime | None


@dataclass(frozen=True)
class HistoryRow:
    op: str
    reason: str | None
    at: datetime | None
    model: str | None
    event_id: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass(frozen=True)
class LessonDetail:
    lesson: LessonSummary
    outcome: str
    status_reason: str | None
    superseded_by_id: int | None
    contact_id: str | None
    expires_at: datetime | None
    #: when the weekly sweep retires it unless independent sources corroborate it or a person
    #: releases it first (a held untrusted lesson; ``DIGEST_UNCONFIRMED_TTL_DAYS``)
    unconfirmed_until: datetime | None = None
    evidence: list[EvidenceRow] = field(default_factory=list)
    history: list[HistoryRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.lesson.to_json(),
            "outcome": self.outcome,
            "status_reason": self.status_reason,
            "superseded_by_id": self.superseded_by_id,
            "contact_id": self.contact_id,
            "expires_at": _iso(self.expires_at),
            "unconfirmed_until": _iso(self.unconfirmed_until),
            "evidence": [
                {**asdict(row), "created_at": _iso(row.created_at)} for row in self.evidence
            ],
            "history": [{**asdict(row), "at": _iso(row.at)} for row in self.history],
        }


def _agent_lesson(session: Session, tenant: str, agent: str, lesson_id: int) -> Lesson:
    agent_row = find_agent(session, tenant, agent)
    lesson = session.scalars(
        select(Lesson).where(Lesson.id == lesson_id, Lesson.agent_id == agent_row.id)
    ).first()
    if lesson is None:
        # The same words whether the id is unused or another agent's: ids leak nothing.
        raise NotFound(f"lesson {lesson_id} not found for agent {agent!r} in tenant {tenant!r}")
    return lesson


def lesson_detail(session: Session, tenant: str, agent: str, lesson_id: int) -> LessonDetail:
    """One lesson of the agent with its evidence (oldest first) and its history."""
    lesson = _agent_lesson(session, tenant, agent, lesson_id)
    evidence = session.execute(
        select(LessonEvidence, Event.kind)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(LessonEvidence.lesson_id == lesson.id)
        .order_by(LessonEvidence.id)
    ).all()
    history = session.scalars(
        select(LessonHistory).where(LessonHistory.lesson_id == lesson.id).order_by(LessonHistory.id)
    ).all()
    summary = _summary(lesson, len(evidence), agent_gate(session, lesson.agent_id))
    return LessonDetail(
        lesson=summary,
        unconfirmed_until=unconfirmed_until(lesson, summary.held is not None),
        outcome=lesson.outcome,
        status_reason=lesson.status_reason,
        superseded_by_id=lesson.superseded_by_id,
        contact_id=lesson.contact_id,
        expires_at=_aware(lesson.expires_at),
        evidence=[
            EvidenceRow(row.event_id, kind, row.note, _aware(row.created_at))
            for row, kind in evidence
        ],
        history=[
            HistoryRow(h.op, h.reason, _aware(h.at), h.model, h.event_id, h.before, h.after)
            for h in history
        ],
    )


def unconfirmed_until(lesson: Lesson, held: bool) -> datetime | None:
    """When the weekly sweep retires ``lesson`` as unconfirmed (``DIGEST_UNCONFIRMED_TTL_DAYS``
    after it began waiting), if it is an active untrusted lesson still ``held``; else None."""
    days = get_settings().unconfirmed_ttl_days
    if not held or days <= 0 or lesson.status != "active" or lesson.trust != "untrusted":
        return None
    since = _aware(lesson.sources_since or lesson.created_at)
    return since + timedelta(days=days) if since is not None else None


#: target status → the statuses an owner may move a lesson from. Quarantine is never lifted by
#: enable or disable: a quarantined lesson came from untrusted text that read like an
#: instruction injection, so it is deleted, or released by ``release_lesson`` with the name of
#: the person who reviewed it (disabling it first would be a back door around that review).
_ALLOWED_FROM: dict[str, frozenset[str]] = {
    "deleted": frozenset({"active", "disabled", "superseded", "quarantined"}),
    "disabled": frozenset({"active"}),
    "active": frozenset({"disabled"}),
}


_VERB = {"deleted": "deleted", "disabled": "disabled", "active": "enabled"}


def _refusal(lesson: Lesson, status: str) -> str:
    if status == "active" and lesson.status == "quarantined":
        return (
            f"lesson {lesson.id} is quarantined (its source text read like an instruction "
            "injection) and cannot be enabled; review it (`digest lesson show`), then release "
            "it with `digest lesson release --by WHO` or delete it"
        )
    if status == "active":
        return f"lesson {lesson.id} is {lesson.status}; only a disabled lesson can be enabled"
    return f"lesson {lesson.id} is {lesson.status}; only an active lesson can be disabled"


def _reason(status: str, reason: str | None, by: str | None) -> str:
    said = f"{_VERB[status]} by {by or 'the owner'}"
    return f"{said}: {reason}" if reason else said


def set_lesson_status(
    session: Session,
    tenant: str,
    agent: str,
    lesson_id: int,
    status: str,
    reason: str | None = None,
    by: str | None = None,
) -> StatusChange:
    """Delete (``deleted``), disable (``disabled``) or enable (``active``) one lesson.

    Asking for the status it already has changes nothing and writes no history. A change the
    table ``_ALLOWED_FROM`` does not list raises ``LessonStateError``.
    """
    if status not in _ALLOWED_FROM:
        raise OwnerInputError(f"an owner cannot set status {status!r}")
    agent_row = find_agent(session, tenant, agent)
    # Lock before reading the lesson, so the status we check is the one we overwrite.
    lock_agent_lessons(session, agent_row.id)
    lesson = _agent_lesson(session, tenant, agent, lesson_id)
    previous = lesson.status
    if previous == status:
        return StatusChange(lesson.id, lesson.title, previous, status, changed=False)
    if previous not in _ALLOWED_FROM[status]:
        raise LessonStateError(_refusal(lesson, status))
    text = _reason(status, reason, by)
    now = utcnow()
    expires_at = _aware(lesson.expires_at)
    changes: dict[str, Any] = {}
    if status == "active" and expires_at is not None and expires_at <= now:
        # The sweep disabled it because it expired; without clearing the date the next sweep
        # would disable it again and compose would leave it out meanwhile.
        changes["expires_at"] = None
        text += f" (expiry {expires_at.isoformat()} cleared)"
    changes["status"], changes["status_reason"] = status, text
    op = "DELETE" if status == "deleted" else "UPDATE"
    transition(session, lesson, op=op, reason=text, updated_at=now, **changes)
    return StatusChange(lesson.id, lesson.title, previous, status, changed=True)


def release_lesson(
    session: Session,
    tenant: str,
    agent: str,
    lesson_id: int,
    *,
    by: str,
    reason: str | None = None,
) -> StatusChange:
    """Put a quarantined lesson in use after a person reviewed it. ``by`` (who reviewed it) is
    required and recorded, with the reason, in its status and its history."""
    if not by or not by.strip():
        raise OwnerInputError("by: say who reviewed the quarantined lesson (--by)")
    agent_row = find_agent(session, tenant, agent)
    lock_agent_lessons(session, agent_row.id)
    lesson = _agent_lesson(session, tenant, agent, lesson_id)
    if lesson.status != "quarantined":
        raise LessonStateError(
            f"lesson {lesson.id} is {lesson.status}; only a quarantined lesson can be released"
        )
    held = lesson.status_reason or "quarantined"
    text = f"released from quarantine after review by {by.strip()} (was: {held})"
    if reason:
        text += f": {reason}"
    # Reviewed, not trusted: its words still came from run text, but a person vouched for it,
    # so no later untrusted event may rewrite or retire it.
    trust = "reviewed" if lesson.trust == "untrusted" else lesson.trust
    transition(
        session, lesson, op="UPDATE", reason=text, status="active", status_reason=text,
        trust=trust, released_by=by.strip(), released_at=utcnow(),
    )  # fmt: skip
    return StatusChange(lesson.id, lesson.title, "quarantined", "active", changed=True)


def resettable_count(session: Session, tenant: str, agent: str) -> int:
    """How many lessons ``reset_lessons`` would delete now (for the confirmation prompt)."""
    agent_row = find_agent(session, tenant, agent)
    return int(
        session.scalar(
            select(func.count())
            .select_from(Lesson)
            .where(Lesson.agent_id == agent_row.id, Lesson.status != "deleted")
        )
        or 0
    )


def reset_lessons(
    session: Session, tenant: str, agent: str, reason: str | None = None, by: str | None = None
) -> int:
    """Soft-delete every lesson of the agent that is not deleted yet. Returns how many."""
    agent_row = find_agent(session, tenant, agent)
    lock_agent_lessons(session, agent_row.id)
    lessons = session.scalars(
        select(Lesson)
        .where(Lesson.agent_id == agent_row.id, Lesson.status != "deleted")
        .order_by(Lesson.id)
    ).all()
    text = _reason("deleted", reason or "reset", by)
    now = utcnow()
    for lesson in lessons:
        transition(
            session, lesson, op="DELETE", reason=text, status="deleted", status_reason=text,
            updated_at=now,
        )  # fmt: skip
    return len(lessons)


@dataclass(frozen=True)
class ExpiryChange:
    """A lesson's expiry set by a person: before and after (``None``: never expires)."""

    lesson_id: int
    title: str
    status: str
    before: datetime | None
    after: datetime | None
    changed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "lesson_id": self.lesson_id,
            "title": self.title,
            "status": self.status,
            "before": _iso(self.before),
            "expires_at": _iso(self.after),
            "changed": self.changed,
        }


#: lessons whose expiry an owner may set: the others are out of use for good
_EXPIRY_STATUSES = frozenset({"active", "disabled", "quarantined"})


def set_lesson_expiry(
    session: Session,
    tenant: str,
    agent: str,
    lesson_id: int,
    expires_at: datetime | None,
    reason: str | None = None,
    by: str | None = None,
) -> ExpiryChange:
    """Set when a lesson leaves the bank (``None``: never). From that moment no agent reads it
    and the weekly sweep disables it. A moment in the past is refused (``OwnerInputError``:
    disable the lesson instead), and so is a deleted or superseded lesson
    (``LessonStateError``). The same expiry again changes nothing and writes no history."""
    now = utcnow()
    if expires_at is not None:
        if expires_at.tzinfo is None:
            raise OwnerInputError("expires_at: give a time zone (or a date, read as UTC)")
        if as_utc(expires_at) <= now:
            raise OwnerInputError(
                f"expires_at: {as_utc(expires_at).isoformat()} has passed; to take the lesson "
                "out of use now, disable it"
            )
        expires_at = as_utc(expires_at)
    agent_row = find_agent(session, tenant, agent)
    lock_agent_lessons(session, agent_row.id)
    lesson = _agent_lesson(session, tenant, agent, lesson_id)
    before = _aware(lesson.expires_at)
    if lesson.status not in _EXPIRY_STATUSES:
        raise LessonStateError(
            f"lesson {lesson.id} is {lesson.status}; it is out of use for good, so it has no "
            "expiry to set"
        )
    if before == expires_at:
        return ExpiryChange(lesson.id, lesson.title, lesson.status, before, before, False)
    said = f"expiry {'set to ' + expires_at.isoformat() if expires_at else 'removed'}"
    text = f"{said} by {by or 'the owner'}" + (f": {reason}" if reason else "")
    transition(session, lesson, op="UPDATE", reason=text, expires_at=expires_at, updated_at=now)
    return ExpiryChange(lesson.id, lesson.title, lesson.status, before, expires_at, True)
