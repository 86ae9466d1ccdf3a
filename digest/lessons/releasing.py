"""A person releases lessons (issue 25): ``digest lesson release ID… | --all``, the review
page's release button and the HTTP API all end here.

Two kinds of lesson wait for a person, and one command serves both:

- a *held* lesson (run text not yet corroborated by enough independent sources,
  ``digest.lessons.release``) becomes ``reviewed``: an agent reads it at once;
- a *quarantined* lesson (its text read like an instruction injection) is put back in use
  after review (``owner.release_lesson``), reviewed as well.

Releasing is a person's word, so ``by`` is required and recorded with the reason in the
lesson's row and history. ``--all`` releases every active held lesson of one agent, never a
quarantined one: each of those needs its own look.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import not_, select
from sqlalchemy.orm import Session

from digest.errors import LessonStateError, OwnerInputError
from digest.lessons.owner import release_lesson
from digest.lessons.release import Released, agent_gate, release_held, released_clause
from digest.lessons.transition import lock_agent_lessons
from digest.models import Lesson
from digest.tenants import find_agent


def release_lessons(
    session: Session,
    tenant: str,
    agent: str,
    lesson_ids: Sequence[int] = (),
    *,
    every_held: bool = False,
    by: str,
    reason: str | None = None,
) -> list[Released]:
    """Release the agent's lessons ``lesson_ids`` (held or quarantined), or with
    ``every_held`` all its active held lessons; in id order, all or none (an id that is not
    this agent's is ``NotFound`` and nothing is released)."""
    if not by or not by.strip():
        raise OwnerInputError("by: say who reviewed the lessons you release (--by)")
    if every_held == bool(lesson_ids):
        raise OwnerInputError("lesson ids: name the lessons to release, or ask for --all")
    agent_row = find_agent(session, tenant, agent)
    lock_agent_lessons(session, agent_row.id)
    gate = agent_gate(session, agent_row.id)
    if every_held:
        held = session.scalars(
            select(Lesson)
            .where(
                Lesson.agent_id == agent_row.id,
                Lesson.status == "active",
                not_(released_clause(gate)),
            )
            .order_by(Lesson.id)
        ).all()
        return release_held(session, agent_row.id, held, gate, by=by, reason=reason)
    done: list[Released] = []
    for lesson_id in sorted(set(lesson_ids)):
        lesson = session.scalars(
            select(Lesson).where(Lesson.id == lesson_id, Lesson.agent_id == agent_row.id)
        ).first()
        if lesson is not None and lesson.status in ("deleted", "superseded"):
            raise LessonStateError(
                f"lesson {lesson.id} is {lesson.status}; only a held or quarantined lesson "
                "can be released"
            )
        if lesson is not None and lesson.status != "quarantined":
            done += release_held(session, agent_row.id, [lesson], gate, by=by, reason=reason)
            continue
        # quarantined, or not this agent's (owner.release_lesson says "not found" as always)
        change = release_lesson(session, tenant, agent, lesson_id, by=by, reason=reason)
        done.append(Released(change.lesson_id, change.title, "quarantined", "released", True))
    return done
