"""The learning document: which lessons it folds in and how it renders them, byte-stable for the
same lessons.

What enters (issues 12 and 25): active, unexpired, agent-wide lessons that the one release
rule lets an agent read (``digest.lessons.release``: trusted or reviewed, or untrusted and
corroborated by independent sources reaching the tenant's frequency gate), untrusted ones only
while their text still passes the screen.

How it renders: a person's words in a section per source ("Facts from the owner", "Rules from
the owner", "How the owner wants replies written"); everything distilled from run text in its
own section, "Observed in past runs" (``OBSERVED_HEADING``, kept by ``digest.agent_text``),
worded as observations and only as ``digest.agent_text`` lets an agent read run text: the
judge's words, tool names, short masked error templates; never the task, page content, a
sentence to the reader, an address, URL or secret. A lesson with nothing safe to say is left
out of the text (it is still folded in).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from digest.agent_text import (
    CAUTION_LINE,
    OBSERVED_HEADING,
    OBSERVED_LINE,
    SEEN_LINE,
    TRUSTED,
    AgentLesson,
    for_agent,
)
from digest.lessons.release import Gate, released_clause
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.models import PROTECTED_TRUST, Lesson
from digest.reflect.screen import lesson_reason

log = get_logger("digest.versions")

#: document sections for a person's words, in order: lesson source → heading
SECTIONS = (
    ("owner_answer", "Facts from the owner"),
    ("manual_lesson", "Rules from the owner"),
    ("operator_edit", "How the owner wants replies written"),
)


def eligible_lessons(session: Session, agent_id: int, gate: Gate, now: datetime) -> list[Lesson]:
    """Active, unexpired, agent-wide lessons the release rule lets an agent read
    (``digest.lessons.release``: trusted or reviewed, or untrusted and corroborated by
    independent sources reaching the gate) whose text, if untrusted, passes the screen, by
    slug. (A contact's own preference stays out of the shared document until it is
    promoted.)"""
    rows = list(
        session.scalars(
            select(Lesson)
            .where(
                Lesson.agent_id == agent_id,
                Lesson.status == "active",
                Lesson.scope == "agent",
                or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
                released_clause(gate),
            )
            .order_by(Lesson.slug)
        )
    )
    kept = []
    for lesson in rows:
        if lesson.trust not in PROTECTED_TRUST:
            why = lesson_reason(lesson_candidate(lesson), None)
            if why is not None:  # stored before today's screen knew better
                log.warning("lesson_kept_out", lesson_id=lesson.id, reason=why)
                continue
        kept.append(lesson)
    return kept


def lesson_candidate(lesson: Lesson) -> Candidate:
    return Candidate(lesson.situation, lesson.correction, lesson.mistake, tuple(lesson.tags or ()))


def render_body(
    agent_name: str, lessons: list[Lesson], called: Mapping[int, frozenset[str]] | None = None
) -> str:
    """The document: a person's words grouped by source, then what was observed in runs, each
    ordered by slug, no volatile data (same lessons and evidence → same bytes). A lesson that
    failed more often than it helped is marked as a caution. ``called``
    (``digest.lessons.called``): per lesson from run text, the names its runs called, the
    only ones it may say."""
    known = called or {}
    lines = [f"# What {agent_name} has learned", ""]
    groups = [
        (heading, [x for x in lessons if x.source == source and x.trust == "trusted"])
        for source, heading in SECTIONS
    ]
    shown = {
        x.id: said
        for x in lessons
        if x.trust != TRUSTED and (said := _shown(x, known.get(x.id))) is not None
    }
    groups.append((OBSERVED_HEADING, [x for x in lessons if x.id in shown]))
    if not any(group for _, group in groups):
        lines += ["No lessons are in force.", ""]
    for heading, group in groups:
        if not group:
            continue
        lines += [f"## {heading}", ""]
        for lesson in sorted(group, key=_slug):
            prefix = CAUTION_LINE if lesson.failure_count > lesson.success_count else ""
            if lesson.trust != TRUSTED:
                said = shown[lesson.id]
                lines.append(f"- {prefix}{OBSERVED_LINE}{said.correction}")
                if said.situation:
                    lines.append(f"{SEEN_LINE}{said.situation}")
                continue
            title = lesson.title.rstrip("…")
            head = "" if lesson.correction.startswith(title) else f"**{lesson.title}**: "
            lines.append(f"- {prefix}{head}{_one_line(lesson.correction)}")
            if lesson.situation.strip() != lesson.title.strip():
                lines.append(f"  When: {_one_line(lesson.situation)}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _shown(lesson: Lesson, called: frozenset[str] | None) -> AgentLesson | None:
    """A lesson from run text as an agent may read it (``digest.agent_text``), or None."""
    return for_agent(
        lesson.title,
        lesson.correction,
        lesson.situation,
        lesson.trust,
        lesson_id=lesson.id,
        called=called,
    )


def _slug(lesson: Lesson) -> str:
    return lesson.slug


def _one_line(text_value: str) -> str:
    return " ".join(text_value.split())
