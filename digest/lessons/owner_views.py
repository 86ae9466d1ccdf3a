"""What an owner reads of one agent's lessons (DESIGN §9): the list, a search, one lesson's
detail with its evidence and history (``digest.lessons.owner`` changes them).

Every lookup goes through the (tenant, agent) pair (``agent_lesson``): a lesson id that
belongs to another agent or tenant is "not found", exactly like an id that does not exist, so
lessons never cross agents and an id says nothing about other tenants.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from digest.config import get_settings
from digest.errors import NotFound, OwnerInputError
from digest.lessons.release import Gate, agent_gate, held_note, release_word
from digest.models import (
    LESSON_STATUSES,
    Event,
    Lesson,
    LessonEvidence,
    LessonHistory,
    as_utc,
)
from digest.tenants import find_agent


def as_aware(moment: datetime | None) -> datetime | None:
    """A stored moment as UTC (SQLite gives it back naive), None kept."""
    return None if moment is None else as_utc(moment)


def iso_or_none(moment: datetime | None) -> str | None:
    """A stored moment as an ISO 8601 string in UTC, None kept."""
    found = as_aware(moment)
    return found.isoformat() if found is not None else None


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
            data[key] = iso_or_none(data[key])
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
        released_at=as_aware(lesson.released_at),
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
        last_seen_at=as_aware(lesson.last_seen_at),
        created_at=as_aware(lesson.created_at),
        updated_at=as_aware(lesson.updated_at),
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
            "expires_at": iso_or_none(self.expires_at),
            "unconfirmed_until": iso_or_none(self.unconfirmed_until),
            "evidence": [
                {**asdict(row), "created_at": iso_or_none(row.created_at)} for row in self.evidence
            ],
            "history": [{**asdict(row), "at": iso_or_none(row.at)} for row in self.history],
        }


def agent_lesson(session: Session, tenant: str, agent: str, lesson_id: int) -> Lesson:
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
    lesson = agent_lesson(session, tenant, agent, lesson_id)
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
        expires_at=as_aware(lesson.expires_at),
        evidence=[
            EvidenceRow(row.event_id, kind, row.note, as_aware(row.created_at))
            for row, kind in evidence
        ],
        history=[
            HistoryRow(h.op, h.reason, as_aware(h.at), h.model, h.event_id, h.before, h.after)
            for h in history
        ],
    )


def unconfirmed_until(lesson: Lesson, held: bool) -> datetime | None:
    """When the weekly sweep retires ``lesson`` as unconfirmed (``DIGEST_UNCONFIRMED_TTL_DAYS``
    after it began waiting), if it is an active untrusted lesson still ``held``; else None."""
    days = get_settings().unconfirmed_ttl_days
    if not held or days <= 0 or lesson.status != "active" or lesson.trust != "untrusted":
        return None
    since = as_aware(lesson.sources_since or lesson.created_at)
    return since + timedelta(days=days) if since is not None else None
