"""Which lessons are relevant to a replayed event: provenance or structure, never shared words.

A lesson is relevant to an event when it cites the event as evidence (it was learned from it,
or a repeat of it added support), or when its fingerprint is one of the event's (the same tool
and error template, the same edit rule).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.models import Event, Lesson, LessonEvidence
from digest.versions.replay.probes import Probe


@dataclass(frozen=True)
class CandidateLesson:
    """A replayed lesson as the ranking orders ties: surfaced more often, then seen last."""

    id: int
    hit_count: int
    last_seen_at: datetime | None


def relevant_lessons(
    session: Session, agent_id: int, replayed: frozenset[int], probes: list[Probe]
) -> dict[int, CandidateLesson]:
    """The replayed lessons' rows; each probe's relevant lessons filled in: those citing its
    event, and those with one of its fingerprints."""
    if not replayed or not probes:
        return {}
    rows = session.execute(
        select(Lesson.id, Lesson.hit_count, Lesson.last_seen_at, Lesson.fingerprint).where(
            Lesson.agent_id == agent_id, Lesson.id.in_(sorted(replayed))
        )
    ).all()
    by_fingerprint: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        if row.fingerprint:
            by_fingerprint[row.fingerprint].add(row.id)
    by_event = {p.event_id: p for p in probes}
    # The citations of the replayed window's events, by range: two parameters, where lists of
    # a thousand ids cost more to send than the rows they select.
    cited = session.execute(
        select(LessonEvidence.event_id, LessonEvidence.lesson_id)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(Event.agent_id == agent_id, Event.id >= min(by_event))
    )
    for event_id, lesson_id in cited:
        probe = by_event.get(event_id)
        if probe is not None and lesson_id in replayed:
            probe.relevant.add(lesson_id)
    for probe in probes:
        for key in probe.facts.keys:
            probe.relevant |= by_fingerprint.get(key, set())
    return {row.id: CandidateLesson(row.id, row.hit_count, row.last_seen_at) for row in rows}
