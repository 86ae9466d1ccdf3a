"""The replay's verdict on a proposal: why it must wait for a person.

``replay_reasons``: it covers fewer of the replayed events than the current version by more
than ``DIGEST_REPLAY_MARGIN`` of them. ``shrink_reasons``: it folds fewer than
``DIGEST_REPLAY_SHRINK_RATIO`` of the current version's lessons. Neither counts the lessons the
sweep withdrew on the evidence since (``withdrawn_lessons``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.lessons.effect.retire import RETIRED_REASON
from digest.lessons.transition import EXPIRED_REASON, UNCONFIRMED_REASON
from digest.models import LearningVersion, Lesson, LessonHistory
from digest.versions.replay.report import ReplayReport


def withdrawn_lessons(session: Session, lesson_ids: Iterable[int]) -> frozenset[int]:
    """Those of ``lesson_ids`` the sweep withdrew on the evidence: retired as measured harmful
    (``digest.lessons.effect``), expired, or unconfirmed (``DIGEST_UNCONFIRMED_TTL_DAYS``). A
    proposal without them has not lost what they covered, since the outcomes (or the owner's
    expiry date, or the lack of corroboration) decided they should go. Every other drop
    counts, a person's own disable included: the replay then shows that person what the
    decision costs before the next version goes live."""
    ids = list(lesson_ids)
    if not ids:
        return frozenset()
    latest = (
        select(LessonHistory.lesson_id, func.max(LessonHistory.id).label("last"))
        .where(LessonHistory.lesson_id.in_(ids))
        .group_by(LessonHistory.lesson_id)
        .subquery()
    )
    rows = session.scalars(
        select(Lesson.id)
        .join(latest, latest.c.lesson_id == Lesson.id)
        .join(LessonHistory, LessonHistory.id == latest.c.last)
        .where(
            Lesson.status == "disabled",
            LessonHistory.model.is_(None),
            LessonHistory.event_id.is_(None),
            or_(
                LessonHistory.reason.startswith(RETIRED_REASON, autoescape=True),
                LessonHistory.reason == EXPIRED_REASON,
                LessonHistory.reason.startswith(f"{UNCONFIRMED_REASON}:", autoescape=True),
            ),
        )
    )
    return frozenset(rows)


def replay_reasons(report: ReplayReport | None, settings: Settings) -> list[str]:
    """Why a proposal with this replay must wait for a person: it covers fewer of the replayed
    events than the current version by more than ``DIGEST_REPLAY_MARGIN`` of them."""
    if report is None or not report.events or report.current_number is None:
        return []
    loss = (report.current_covered - report.proposed_covered) / report.events
    if loss <= settings.replay_margin:
        return []
    return [
        f"replay: it covers {report.proposed_covered} of the {report.events} recent failed or "
        f"edited events, version {report.current_number} covered {report.current_covered} "
        f"({report.lost} lost, {report.gained} gained): a loss of {loss:.0%}, beyond the "
        f"margin of {settings.replay_margin:.0%} (DIGEST_REPLAY_MARGIN)"
    ]


def shrink_reasons(
    session: Session, current: LearningVersion | None, lesson_ids: Sequence[int],
    settings: Settings,
) -> list[str]:  # fmt: skip
    """Why a proposal folding ``lesson_ids`` must wait for a person because it shrank sharply:
    it folds fewer than ``DIGEST_REPLAY_SHRINK_RATIO`` of the current version's lessons, not
    counting those the sweep withdrew since (``withdrawn_lessons``)."""
    if current is None:
        return []
    folded = frozenset(current.folded_lesson_ids or [])
    withdrawn = withdrawn_lessons(session, folded - frozenset(lesson_ids))
    before = len(folded - withdrawn)
    proposed_lessons = len(lesson_ids)
    if not before or proposed_lessons >= settings.replay_shrink_ratio * before:
        return []
    apart = f" (not counting {len(withdrawn)} the sweep withdrew)" if withdrawn else ""
    return [
        f"shrink: it folds {proposed_lessons} lesson(s), version {current.number} folded "
        f"{before}{apart}: fewer than {settings.replay_shrink_ratio:.0%} of them "
        "(DIGEST_REPLAY_SHRINK_RATIO)"
    ]
