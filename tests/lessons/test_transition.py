"""digest.lessons.transition: the one way a lesson's status or text changes. Each change writes
a ``lesson_history`` row (before, after, reason, cause), stamps ``updated_at`` and moves the
agent's ``lesson_epoch`` once per transaction; the lesson lock is taken once per transaction
(embedded SQLite, and the advisory lock on PostgreSQL). On PostgreSQL a new lesson has its id
from the sequence at once and its row goes in with the transaction's next flush, its slug
made unique then."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, select, text

from digest.db import get_engine, session_scope
from digest.lessons.store import Candidate, add_lesson
from digest.lessons.transition import (
    first_in_transaction,
    lock_agent_lessons,
    snapshot,
    transition,
)
from digest.models import Agent, Event, Lesson, LessonEvidence, LessonHistory
from tests.conftest import manual_lesson


def _epoch(agent_id: int) -> int:
    with session_scope() as session:
        agent = session.get(Agent, agent_id)
        assert agent is not None
        return agent.lesson_epoch


def test_a_transition_is_audited_stamped_and_moves_the_epoch(sqlite_env: str, tenant: str) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        agent_id, before, stamped = lesson.agent_id, snapshot(lesson), lesson.updated_at
    epoch = _epoch(agent_id)
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        transition(
            session, lesson, op="UPDATE", reason="owner edit", model="m", prompt_hash="h",
            status="disabled", status_reason="owner edit",
        )  # fmt: skip
        transition(session, lesson, op="UPDATE", reason="and again", correction="confirm twice")
    assert _epoch(agent_id) == epoch + 1  # once per transaction, however many writes
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None and lesson.updated_at > stamped
        rows = session.scalars(
            select(LessonHistory)
            .where(LessonHistory.lesson_id == lesson_id, LessonHistory.op == "UPDATE")
            .order_by(LessonHistory.id)
        ).all()
    first, second = rows
    assert (first.before, first.reason, first.model, first.prompt_hash) == (
        before, "owner edit", "m", "h",
    )  # fmt: skip
    assert first.after is not None and first.after["status"] == "disabled"
    assert second.before == first.after and second.after["correction"] == "confirm twice"


def test_a_given_updated_at_is_kept(sqlite_env: str, tenant: str) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    moment = datetime(2026, 1, 2, tzinfo=UTC)
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        transition(session, lesson, op="UPDATE", reason="expired", updated_at=moment)
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None and lesson.updated_at.replace(tzinfo=UTC) == moment


def test_an_unknown_column_is_refused_before_anything_is_written(
    sqlite_env: str, tenant: str
) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with pytest.raises(AttributeError, match="no column 'colour'"), session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        transition(session, lesson, op="UPDATE", reason="x", colour="red")
    with session_scope() as session:
        count = session.scalar(select(func.count()).where(LessonHistory.lesson_id == lesson_id))
    assert count == 1  # the ADD only


def test_first_in_transaction_is_per_key_and_per_transaction(sqlite_env: str) -> None:
    with session_scope() as session:
        assert first_in_transaction(session, "what", 1)
        assert not first_in_transaction(session, "what", 1)
        assert first_in_transaction(session, "what", 2)
        assert first_in_transaction(session, "other", 1)
        lock_agent_lessons(session, 1)  # SQLite serialises writers itself: nothing to take
    with session_scope() as session:
        assert first_in_transaction(session, "what", 1)


def test_the_postgres_lock_is_taken_once_and_held_to_the_end(
    services_env: dict[str, str], tenant: str
) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        lock_agent_lessons(session, lesson.agent_id)
        lock_agent_lessons(session, lesson.agent_id)
        held = session.execute(
            text(
                "SELECT classid, objid FROM pg_locks"
                " WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            )
        ).all()
        agent_id = lesson.agent_id
    assert [tuple(row) for row in held] == [(0x6C64, agent_id)]  # one lock: "ld", the agent


def test_new_lessons_have_their_ids_at_once_and_go_in_with_one_flush(
    services_env: dict[str, str], tenant: str
) -> None:
    """Three lessons added in one transaction (as a batch adds them): ids from the sequence at
    once, ascending, in two round trips (one id, then two); no row until the flush, which
    inserts them in one statement with slugs made unique in the order they were added."""
    first = manual_lesson(tenant, "bot", "refunds: confirm the amount")
    sent: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        sent.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        with session_scope() as session, session.no_autoflush:
            cause = session.scalars(
                select(Event).join(LessonEvidence).where(LessonEvidence.lesson_id == first)
            ).one()
            cause.status = "processing"  # as a batch's events are
            added = []
            for n, title in enumerate(("Refunds", "Refunds", "Refunds 2")):
                candidate = Candidate(f"case {n}", f"confirm amount {n}", title=title)
                lesson = add_lesson(
                    session, event=cause, candidate=candidate, source="manual_lesson",
                    outcome="mixed", note="n",
                )  # fmt: skip
                added.append(lesson)
            ids = [lesson.id for lesson in added]
            assert ids == sorted(ids) and first < ids[0]
            assert len([s for s in sent if "nextval" in s]) == 2
            stored = select(func.count()).select_from(Lesson).where(Lesson.id.in_(ids))
            assert session.scalar(stored) == 0
            sent.clear()
            session.flush()
            assert len([s for s in sent if s.startswith("INSERT INTO lessons")]) == 1, sent
            assert session.scalar(stored) == 3
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    with session_scope() as session:
        slugs = session.scalars(select(Lesson.slug).where(Lesson.id.in_(ids)).order_by(Lesson.id))
        assert list(slugs) == ["refunds-2", "refunds-3", "refunds-2-2"]
        cited = session.scalar(
            select(func.count())
            .select_from(LessonEvidence)
            .where(LessonEvidence.lesson_id.in_(ids))
        )
        assert cited == 3
