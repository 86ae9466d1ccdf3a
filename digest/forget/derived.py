"""What a forget request changes beyond the events and lessons (``digest.forget``): cached
judgements, owner questions and their asks, holdout exposures, learning versions, and the
versions composed again afterwards."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import session_scope
from digest.errors import DigestError
from digest.forget.quotes import MARK, Scrubber, spellings
from digest.logs import get_logger
from digest.models import (
    Event,
    HoldoutExposure,
    Judgement,
    LearningVersion,
    LessonEvidence,
    Question,
    QuestionAsk,
    Tenant,
)
from digest.versions.compose import compose_version

log = get_logger("digest.forget")

#: the change summary's first words on a version composed after a forget request
RECOMPOSED_NOTE = "Recomposed after a forget request"


def deleted(session: Session, statement: Any) -> int:
    return changed(session, statement)


def changed(session: Session, statement: Any) -> int:
    outcome = session.execute(statement.execution_options(synchronize_session=False))
    return int(getattr(outcome, "rowcount", 0) or 0)


def remaining_evidence(session: Session, lesson_ids: list[int]) -> dict[int, list[Event]]:
    found: dict[int, list[Event]] = {}
    if not lesson_ids:
        return found
    rows = session.execute(
        select(LessonEvidence.lesson_id, Event)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(LessonEvidence.lesson_id.in_(lesson_ids))
        .order_by(Event.id)
    )
    for lesson_id, event in rows:
        found.setdefault(lesson_id, []).append(event)
    return found


def their_questions(
    session: Session, tenant: Tenant, contact: str | None
) -> tuple[set[str], list[int]]:
    """(the words of the contact's asks, and of the questions only they asked; the answer
    events of those questions)."""
    if contact is None:
        return set(), []
    asks = list(
        session.scalars(
            select(QuestionAsk)
            .join(Question, Question.id == QuestionAsk.question_id)
            .where(
                Question.tenant_id == tenant.id,
                QuestionAsk.contact_id.in_(spellings(contact)),
            )
        )
    )
    words = {text for ask in asks for text in (ask.text, ask.context) if text}
    answers: list[int] = []
    for question in session.scalars(
        select(Question).where(Question.id.in_({ask.question_id for ask in asks}))
    ):
        others = session.scalar(
            select(QuestionAsk.id).where(
                QuestionAsk.question_id == question.id,
                or_(
                    QuestionAsk.contact_id.is_(None),
                    QuestionAsk.contact_id.not_in(spellings(contact)),
                ),
            )
        )
        if others is None:
            words.add(question.text)
            if question.answer_event_id is not None:
                answers.append(question.answer_event_id)
    return words, answers


def forget_judgements(
    session: Session, agent_ids: set[int], ids: list[int], retired: set[int]
) -> int:
    """Cached judgements first made on a forgotten event, or that produced a retired lesson
    (a later event with the same signature would bring the lesson back)."""
    if not agent_ids:
        return 0
    doomed = [
        judgement.id
        for judgement in session.scalars(select(Judgement).where(Judgement.agent_id.in_(agent_ids)))
        if judgement.event_id in ids or retired.intersection(judgement.lesson_ids or [])
    ]
    if not doomed:
        return 0
    return deleted(session, delete(Judgement).where(Judgement.id.in_(doomed)))


def forget_asks(
    session: Session, tenant: Tenant, contact: str | None, ids: list[int], scrub: Scrubber
) -> tuple[int, int]:
    """(questions deleted or rewritten, asks deleted) for the contact's asks."""
    if ids:
        session.execute(
            update(Question).where(Question.answer_event_id.in_(ids)).values(answer_event_id=None)
        )
    if contact is None:
        return 0, 0
    asks = list(
        session.execute(
            select(QuestionAsk.id, QuestionAsk.question_id)
            .join(Question, Question.id == QuestionAsk.question_id)
            .where(
                Question.tenant_id == tenant.id,
                QuestionAsk.contact_id.in_(spellings(contact)),
            )
        )
    )
    if not asks:
        return 0, 0
    session.execute(delete(QuestionAsk).where(QuestionAsk.id.in_([a.id for a in asks])))
    questions = 0
    for question in session.scalars(
        select(Question).where(Question.id.in_({a.question_id for a in asks}))
    ):
        left = list(
            session.scalars(
                select(QuestionAsk)
                .where(QuestionAsk.question_id == question.id)
                .order_by(QuestionAsk.asked_at)
            )
        )
        questions += 1
        if not left:
            session.delete(question)
            continue
        # the question keeps the words of someone who still asks it
        question.text = scrub.text(left[0].text) or MARK
        question.ask_count = len(left)
        question.answer = scrub.text(question.answer)
        question.reason = scrub.text(question.reason)
    return questions, len(asks)


def scrub_versions(session: Session, agent_ids: set[int], ids: set[int], scrub: Scrubber) -> int:
    """Every version of these agents loses the quotations and the forgotten events."""
    if not agent_ids:
        return 0
    touched = 0
    for version in session.scalars(
        select(LearningVersion).where(LearningVersion.agent_id.in_(agent_ids))
    ):
        replay = version.replay
        if isinstance(replay, dict) and isinstance(replay.get("per_event"), list):
            replay = {
                **replay,
                "per_event": [
                    row
                    for row in replay["per_event"]
                    if not (isinstance(row, dict) and row.get("event_id") in ids)
                ],
            }
        changed = {
            "body_markdown": scrub.text(version.body_markdown) or "",
            "change_summary": scrub.text(version.change_summary) or "",
            "hold_reason": scrub.text(version.hold_reason),
            "supporting_event_ids": [x for x in version.supporting_event_ids or [] if x not in ids],
            "replay": scrub.json(replay),
        }
        if any(getattr(version, key) != value for key, value in changed.items()):
            for key, value in changed.items():
                setattr(version, key, value)
            touched += 1
    return touched


def recompose_needed(session: Session, agent_ids: set[int], retired: set[int]) -> set[int]:
    """The agents whose active or pending version folded a retired lesson."""
    if not retired or not agent_ids:
        return set()
    return {
        version.agent_id
        for version in session.scalars(
            select(LearningVersion).where(
                LearningVersion.agent_id.in_(agent_ids),
                LearningVersion.status.in_(("active", "pending")),
            )
        )
        if retired.intersection(version.folded_lesson_ids or [])
    }


def recompose(agent_id: int, retired: int, settings: Settings) -> list[int]:
    """A new version without the retired lessons, its change summary saying why."""
    try:
        composed = compose_version(agent_id, "manual", settings)
    except DigestError as exc:  # the erasure stands; the next compose catches up
        log.warning("forget_compose_failed", agent_id=agent_id, error=str(exc))
        return []
    if composed.version_id is None:
        return []
    with session_scope(settings.database_url) as session:
        version = session.get(LearningVersion, composed.version_id)
        if version is not None:
            note = f"{RECOMPOSED_NOTE} ({retired} lesson(s) retired)."
            version.change_summary = f"{note} {version.change_summary}".strip()
    return [composed.version_id]


def forget_exposures(session: Session, events: list[Event]) -> int:
    """The holdout exposures of the forgotten runs' turns (``record_run(..., turn_id=...)``):
    a turn id is the agent's own, and may name the person or their conversation."""
    turns: dict[int, set[str]] = {}
    for event in events:
        turn = (event.payload or {}).get("turn_id")
        if isinstance(turn, str) and turn:
            turns.setdefault(event.agent_id, set()).add(turn)
    return sum(
        deleted(
            session,
            delete(HoldoutExposure).where(
                HoldoutExposure.agent_id == agent_id, HoldoutExposure.turn_id.in_(sorted(ids))
            ),
        )
        for agent_id, ids in turns.items()
    )
