"""What a compose would propose for an agent now (``Draft``): the document rendered from the
lessons that pass the frequency gate, the lessons it folds and the events supporting them, and
what it adds, changes and retires against the active version; and whether it would only repeat
the active version or one awaiting approval (``repeats_latest``). Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.agent_text import agent_title
from digest.config import Settings
from digest.errors import NotFound
from digest.lessons.called import called_names
from digest.lessons.release import Gate
from digest.models import Agent, LearningVersion, Lesson, LessonEvidence, Tenant, as_utc, utcnow
from digest.tenants import TenantPolicy, policy_for
from digest.versions.chain import latest_pending
from digest.versions.document import eligible_lessons, render_body


@dataclass
class Draft:
    """Everything compose decided while reading, carried to the write."""

    body: str
    lesson_ids: list[int]
    event_ids: list[int]
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)


def agent_and_policy(
    session: Session, agent_id: int, settings: Settings
) -> tuple[Agent, TenantPolicy]:
    """The agent and its tenant's policy; ``NotFound`` for an unknown agent id."""
    agent = session.get(Agent, agent_id)
    if agent is None:
        raise NotFound(f"unknown agent id {agent_id}")
    tenant = session.get(Tenant, agent.tenant_id)
    assert tenant is not None
    return agent, policy_for(tenant, settings)


def read_draft(
    session: Session, agent: Agent, policy: TenantPolicy, current: LearningVersion | None
) -> Draft:
    """The document the agent's lessons make now, and how it differs from ``current``."""
    gate = Gate(policy.frequency_gate, policy.independent_spread_s)
    lessons = eligible_lessons(session, agent.id, gate, utcnow())
    ids = [lesson.id for lesson in lessons]
    event_ids: list[int] = []
    if ids:
        event_ids = sorted(
            set(
                session.scalars(
                    select(LessonEvidence.event_id).where(LessonEvidence.lesson_id.in_(ids))
                )
            )
        )
    observed = [lesson.id for lesson in lessons if lesson.trust != "trusted"]
    called = called_names(session, observed)
    draft = Draft(render_body(agent.name, lessons, called), sorted(ids), event_ids)
    before = set(current.folded_lesson_ids or []) if current else set()
    # the change note is returned with the version (``current_learning``): titles of lessons
    # from run text as an agent may read them
    for lesson in lessons:
        if lesson.id not in before:
            draft.added.append(agent_title(lesson.title, lesson.trust, called.get(lesson.id)))
        elif current is not None and as_utc(lesson.updated_at) > as_utc(current.created_at):
            draft.changed.append(agent_title(lesson.title, lesson.trust, called.get(lesson.id)))
    gone = sorted(before - set(ids))
    if gone:
        draft.retired = [
            agent_title(title, trust)
            for title, trust in session.execute(
                select(Lesson.title, Lesson.trust).where(Lesson.id.in_(gone)).order_by(Lesson.id)
            )
        ]
    return draft


def repeats_latest(
    session: Session, agent: Agent, current: LearningVersion | None, body: str
) -> bool:
    """True when the body would repeat the active version, or a version awaiting approval."""
    return why_unchanged(session, agent, current, body) is not None


def why_unchanged(
    session: Session, agent: Agent, current: LearningVersion | None, body: str
) -> str | None:
    """Why a compose with this body would write no version, in words a person acts on
    (``None``: it would write one)."""
    if current is None and body == render_body(agent.name, []):
        # nothing learned yet: no version 1 with an empty document
        return (
            "no version yet: no lesson an agent may read (held lessons wait for independent "
            "sources or a person: `digest lesson list`)"
        )
    if current is not None and current.body_markdown == body:
        return f"version {current.number} (active) already has every lesson an agent may read"
    pending = latest_pending(session, agent.id)
    if pending is not None and pending.body_markdown == body:
        return (
            f"version {pending.number} has this document and waits for a person "
            f"(`digest version approve {pending.number} --by WHO`)"
        )
    return None
