"""What an owner does to one agent's lessons (DESIGN §9): change a lesson's status, release a
held one, reset them all, set an expiry. What an owner reads of them (list, search, detail)
is ``digest.lessons.owner_views``.

Every lookup goes through the (tenant, agent) pair: a lesson id that belongs to another agent
or tenant is "not found", exactly like an id that does not exist, so lessons never cross
agents and an id says nothing about other tenants.

Status changes are soft. No row is deleted. Each change writes a ``lesson_history`` row, moves
``updated_at`` (so the weekly sweep recomposes the agent) and bumps the agent's
``lesson_epoch`` under the agent's lesson lock. A reconciliation running at the same time sees
the epoch move and reads its neighbours again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from digest.errors import LessonStateError, OwnerInputError
from digest.lessons.owner_views import agent_lesson, as_aware, iso_or_none
from digest.lessons.transition import StatusChange, lock_agent_lessons, transition
from digest.models import Lesson, as_utc, utcnow
from digest.tenants import find_agent

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
    lesson = agent_lesson(session, tenant, agent, lesson_id)
    previous = lesson.status
    if previous == status:
        return StatusChange(lesson.id, lesson.title, previous, status, changed=False)
    if previous not in _ALLOWED_FROM[status]:
        raise LessonStateError(_refusal(lesson, status))
    text = _reason(status, reason, by)
    now = utcnow()
    expires_at = as_aware(lesson.expires_at)
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
    lesson = agent_lesson(session, tenant, agent, lesson_id)
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
            "before": iso_or_none(self.before),
            "expires_at": iso_or_none(self.after),
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
    lesson = agent_lesson(session, tenant, agent, lesson_id)
    before = as_aware(lesson.expires_at)
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
