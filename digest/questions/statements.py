"""``digest.ask``'s statements (``digest.questions.ask``), built once: the one read of an
ask and its two one-statement writes on PostgreSQL."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    DateTime,
    Integer,
    String,
    bindparam,
    func,
    literal,
    null,
    or_,
    select,
    text,
    union_all,
)

from digest.models import Event, Lesson, LessonEvidence, Question, QuestionClock


@dataclass(frozen=True)
class Statements:
    candidates: Any
    join: Any
    open: Any


@functools.cache
def statements() -> Statements:
    """``ask``'s statements, built once (building one costs more than running it)."""
    return Statements(candidates=_candidates(), join=_JOIN, open=_OPEN)


#: PostgreSQL: count the ask and record it in one statement; (ask_count, status) after it, or
#: no row when the question is no longer open or held
_JOIN = text(
    """
    WITH joined AS (
        UPDATE questions SET ask_count = ask_count + 1, last_asked_at = :now
        WHERE id = :question_id AND status IN ('open', 'held')
        RETURNING id, ask_count, status
    ), added AS (
        INSERT INTO question_asks (question_id, text, context, thread_id, contact_id, asked_at)
        SELECT id, :text, :context, :thread_id, :contact_id, :now FROM joined
    )
    SELECT ask_count, status FROM joined
    """
)

#: PostgreSQL: open a question in one statement if the tenant's clock still reads ``seen``
#: (the clock's row lock orders it after any other opening; a clock moved since the read
#: inserts nothing): open, or held when the budget counted in the same statement is spent.
#: (id, status), or no row
_OPEN = text(
    """
    WITH clock AS (
        INSERT INTO question_clocks (tenant_id, seq) VALUES (:tenant_id, 1)
        ON CONFLICT (tenant_id) DO UPDATE SET seq = question_clocks.seq + 1
        WHERE question_clocks.seq = :seen
        RETURNING seq
    ), counted AS (
        SELECT count(*) FILTER (WHERE agent_id = :agent_id) AS agent_n, count(*) AS tenant_n
        FROM questions WHERE tenant_id = :tenant_id AND opened_at > :since
    ), decided AS (
        SELECT CASE WHEN agent_n < :agent_daily AND tenant_n < :tenant_daily
                    THEN 'open' ELSE 'held' END AS status
        FROM counted, clock
    ), made AS (
        INSERT INTO questions
            (tenant_id, agent_id, text, status, ask_count, opened_at, created_at, last_asked_at)
        SELECT :tenant_id, :agent_id, :text, status, 1,
               CASE WHEN status = 'open' THEN CAST(:now AS timestamptz) END, :now, :now
        FROM decided
        RETURNING id, status
    ), added AS (
        INSERT INTO question_asks (question_id, text, context, thread_id, contact_id, asked_at)
        SELECT id, :text, :context, :thread_id, :contact_id, :now FROM made
    )
    SELECT id, status FROM made
    """
)


def _candidates() -> Any:
    """Everything ``ask`` compares a question with, as one statement: the agent's active
    owner-answer lessons (``kind`` 'lesson'), the questions its owner answered in the queue
    with their answer's event and lesson ('answered'; a question merged into an answered one
    too, in its own words with the id of the question answered), its open and held
    questions, and the tenant's question clock (``id`` is its reading)."""
    agent_id = bindparam("agent_id", type_=Integer())
    now = bindparam("now", type_=DateTime(timezone=True))
    text_, number = String(), Integer()
    queued = select(
        Question.status.label("kind"), Question.id, Question.text,
        null().cast(text_).label("answer"), Question.ask_count,
        null().cast(text_).label("event_status"), null().cast(number).label("lesson_id"),
        null().cast(text_).label("lesson_status"), null().cast(text_).label("situation"),
        null().cast(text_).label("correction"),
    ).where(Question.agent_id == agent_id, Question.status.in_(("open", "held")))  # fmt: skip
    lessons = select(
        literal("lesson", text_).label("kind"), Lesson.id, Lesson.situation.label("text"),
        Lesson.correction.label("answer"), literal(0, number).label("ask_count"),
        null().cast(text_).label("event_status"), Lesson.id.label("lesson_id"),
        Lesson.status.label("lesson_status"), Lesson.situation, Lesson.correction,
    ).where(
        Lesson.agent_id == agent_id,
        Lesson.status == "active",
        Lesson.source == "owner_answer",
        or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
    )  # fmt: skip
    # the questions the owner answered in the queue, and those merged into one they answered
    # (``answer_question`` gives them its answer and event): in their own words, with the id of
    # the question answered
    answered = (
        select(
            literal("answered", text_).label("kind"),
            func.coalesce(Question.duplicate_of, Question.id).label("id"),
            Question.text,
            Question.answer,
            Question.ask_count,
            Event.status.label("event_status"),
            Lesson.id.label("lesson_id"),
            Lesson.status.label("lesson_status"),
            Lesson.situation,
            Lesson.correction,
        )
        .join(Event, Event.id == Question.answer_event_id)
        .outerjoin(LessonEvidence, LessonEvidence.event_id == Event.id)
        .outerjoin(Lesson, Lesson.id == LessonEvidence.lesson_id)
        .where(Question.agent_id == agent_id, Question.status.in_(("answered", "merged")))
    )
    reading = (
        select(QuestionClock.seq)
        .where(QuestionClock.tenant_id == bindparam("tenant_id", type_=Integer()))
        .scalar_subquery()
    )
    clock = select(
        literal("clock", text_).label("kind"), func.coalesce(reading, 0).label("id"),
        null().cast(text_).label("text"), null().cast(text_).label("answer"),
        literal(0, number).label("ask_count"), null().cast(text_).label("event_status"),
        null().cast(number).label("lesson_id"), null().cast(text_).label("lesson_status"),
        null().cast(text_).label("situation"), null().cast(text_).label("correction"),
    )  # fmt: skip
    return union_all(lessons, answered, queued, clock)
