"""The learning document: which lessons it folds in (active, unexpired, past the frequency gate
or from a trusted source) and how it renders them, one section per source, byte-stable for
the same lessons.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from digest.models import TRUSTED_KINDS, Lesson

#: document sections, in order: lesson source → heading
SECTIONS = (
    ("owner_answer", "Facts from the owner"),
    ("manual_lesson", "Rules from the owner"),
    ("operator_edit", "How the owner wants replies written"),
    ("run_outcome", "Mistakes not to repeat"),
)


def eligible_lessons(session: Session, agent_id: int, gate: int, now: datetime) -> list[Lesson]:
    """Active, unexpired, agent-wide lessons with enough support or a trusted source, by slug.
    (A contact's own preference stays out of the shared document until it is promoted.)"""
    return list(
        session.scalars(
            select(Lesson)
            .where(
                Lesson.agent_id == agent_id,
                Lesson.status == "active",
                Lesson.scope == "agent",
                or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
                or_(Lesson.support_count >= gate, Lesson.source.in_(TRUSTED_KINDS)),
            )
            .order_by(Lesson.slug)
        )
    )


def render_body(agent_name: str, lessons: list[Lesson]) -> str:
    """The document: grouped by source, ordered by slug, no volatile data (same lessons → same
    bytes). A lesson that failed more often than it helped is marked as a caution."""
    lines = [f"# What {agent_name} has learned", ""]
    if not lessons:
        lines += ["No lessons are in force.", ""]
    for source, heading in SECTIONS:
        group = sorted((lesson for lesson in lessons if lesson.source == source), key=_slug)
        if not group:
            continue
        lines += [f"## {heading}", ""]
        for lesson in group:
            caution = "CAUTION, this has failed more often than it helped: "
            prefix = caution if lesson.failure_count > lesson.success_count else ""
            title = lesson.title.rstrip("…")
            head = "" if lesson.correction.startswith(title) else f"**{lesson.title}**: "
            lines.append(f"- {prefix}{head}{_one_line(lesson.correction)}")
            if lesson.situation.strip() != lesson.title.strip():
                lines.append(f"  When: {_one_line(lesson.situation)}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _slug(lesson: Lesson) -> str:
    return lesson.slug


def _one_line(text_value: str) -> str:
    return " ".join(text_value.split())
