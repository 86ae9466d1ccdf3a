"""Why a new version waits as ``pending`` for a person (``approve`` or ``reject``) instead of
becoming active at once (``hold_reasons``; the reasons are stored with it as ``hold_reason``):

- the tenant's apply mode: ``auto`` activates, ``approval`` always waits, ``staged`` waits
  only when the version changes (UPDATE) or retires a trusted or reviewed lesson of the
  active version (``trusted_changes``);
- in every mode, the replay (``digest.versions.replay``): a proposal that covers fewer of the
  agent's recent failed or edited events than the active version, by more than
  ``DIGEST_REPLAY_MARGIN`` of them, or that folds fewer than ``DIGEST_REPLAY_SHRINK_RATIO`` of
  its lessons, waits, even in auto mode.

A rollback never waits: a person asked for it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.models import PROTECTED_TRUST, LearningVersion, Lesson, LessonHistory
from digest.versions.replay.report import ReplayReport
from digest.versions.replay.verdict import replay_reasons, shrink_reasons

#: the fields of a lesson whose change is an UPDATE of what it says
_TEXT_FIELDS = ("title", "situation", "mistake", "correction", "tags")


def hold_reasons(
    session: Session,
    mode: str,
    trigger: str,
    current: LearningVersion | None,
    lesson_ids: list[int],
    report: ReplayReport | None,
    settings: Settings,
) -> list[str]:
    """Why a new version folding ``lesson_ids`` must wait for a person instead of replacing
    ``current`` at once (empty: it may be activated). A rollback never waits."""
    if trigger == "rollback":
        return []
    reasons = []
    if mode == "approval":
        reasons.append("the tenant's apply mode is approval")
    elif mode == "staged":
        reasons += trusted_changes(session, current, lesson_ids)
    reasons += replay_reasons(report, settings)
    reasons += shrink_reasons(session, current, lesson_ids, settings)
    return reasons


def trusted_changes(
    session: Session, current: LearningVersion | None, lesson_ids: list[int]
) -> list[str]:
    """Staged mode: the trusted (or reviewed) lessons of ``current`` that a version folding
    ``lesson_ids`` would change or retire, as a reason naming them (empty: it only adds
    lessons, or changes and retires untrusted ones).

    Changed: its text (title, situation, mistake, correction, tags) was UPDATEd since
    ``current`` was made (``lesson_history``). Retired: ``current`` folds it and the version
    does not (superseded, disabled, deleted or expired)."""
    if current is None:
        return []
    before = set(current.folded_lesson_ids or [])
    kept = sorted(before & set(lesson_ids))
    gone = sorted(before - set(lesson_ids))
    retired = list(
        session.execute(
            select(Lesson.id, Lesson.title)
            .where(Lesson.id.in_(gone), Lesson.trust.in_(PROTECTED_TRUST))
            .order_by(Lesson.id)
        )
    )
    edits = session.execute(
        select(LessonHistory.lesson_id, LessonHistory.before, LessonHistory.after, Lesson.trust)
        .join(Lesson, Lesson.id == LessonHistory.lesson_id)
        .where(
            LessonHistory.lesson_id.in_(kept),
            LessonHistory.op == "UPDATE",
            LessonHistory.at > current.created_at,
        )
    )
    changed_ids = {
        lesson_id
        for lesson_id, old, new, trust in edits
        if (trust in PROTECTED_TRUST or (old or {}).get("trust") in PROTECTED_TRUST)
        and any((old or {}).get(f) != (new or {}).get(f) for f in _TEXT_FIELDS)
    }
    changed = list(
        session.execute(
            select(Lesson.id, Lesson.title)
            .where(Lesson.id.in_(sorted(changed_ids)))
            .order_by(Lesson.id)
        )
    )
    if not changed and not retired:
        return []
    parts = []
    if changed:
        parts.append(f"changes trusted lesson(s) {_named(changed)}")
    if retired:
        parts.append(f"retires trusted lesson(s) {_named(retired)}")
    return [f"staged mode: it {' and '.join(parts)}"]


def _named(rows: list[Any]) -> str:
    return ", ".join(f"#{row.id} “{row.title}”" for row in rows)
