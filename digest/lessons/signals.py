"""Signals: reflected events that support an active lesson. One is undigested while it finished
after the agent's last compose; enough of them (the tenant's threshold) schedule a compose
(``digest.versions.triggers``), and ``digest stats`` shows how far an agent has come."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from digest.models import Agent, Event, Lesson, LessonEvidence

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def undigested_signals(session: Session, agent: Agent) -> int:
    since = agent.composed_at or _EPOCH
    supports_active = exists(
        select(LessonEvidence.id)
        .join(Lesson, Lesson.id == LessonEvidence.lesson_id)
        .where(LessonEvidence.event_id == Event.id, Lesson.status == "active")
    )
    return int(
        session.scalar(
            select(func.count())
            .select_from(Event)
            .where(
                Event.agent_id == agent.id,
                Event.status == "reflected",
                Event.finished_at > since,
                supports_active,
            )
        )
        or 0
    )
