"""digest.lessons.plain_rows: the audit trail and the run records go in as plain rows. Kept for
the transaction in the order they were added, written after the flush of the ORM's rows they
name, seen by a read of the same transaction, forgotten by a rollback, held back by a flush
that only gives ids; stored as the ORM stored the same values (on PostgreSQL and SQLite)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from digest.db import session_scope
from digest.lessons.plain_rows import add_row, held, pending
from digest.models import Lesson, LessonHistory, utcnow
from tests.conftest import manual_lesson


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """The embedded default and the worker's database."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_env"))
    env = request.getfixturevalue("services_env")
    return str(env["DIGEST_DATABASE_URL"])


def _row(lesson: Lesson, reason: str, before: dict[str, str] | None = None) -> dict[str, object]:
    return {
        "lesson_id": lesson.id, "tenant_id": lesson.tenant_id, "agent_id": lesson.agent_id,
        "op": "NOOP", "before": before, "after": {"status": lesson.status}, "reason": reason,
        "event_id": None, "model": None, "prompt_hash": None, "at": utcnow(),
    }  # fmt: skip


def _reasons(lesson_id: int) -> list[str | None]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(LessonHistory.reason)
                .where(LessonHistory.lesson_id == lesson_id, LessonHistory.op == "NOOP")
                .order_by(LessonHistory.id)
            )
        )


def test_rows_are_read_back_in_their_transaction_and_committed_in_order(
    database: str, tenant: str
) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        for reason in ("first", "second", "third"):
            add_row(session, LessonHistory, _row(lesson, reason))
        assert pending(session) == 3
        # nothing of the ORM's is pending: the read itself writes them first
        seen = session.scalar(
            select(func.count()).where(
                LessonHistory.lesson_id == lesson_id, LessonHistory.op == "NOOP"
            )
        )
        assert seen == 3 and pending(session) == 0
        add_row(session, LessonHistory, _row(lesson, "fourth"))
    assert _reasons(lesson_id) == ["first", "second", "third", "fourth"]


def test_a_rollback_forgets_them(database: str, tenant: str) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with pytest.raises(RuntimeError), session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        add_row(session, LessonHistory, _row(lesson, "rolled back"))
        raise RuntimeError("the write fails")
    with session_scope() as session:
        assert pending(session) == 0
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        add_row(session, LessonHistory, _row(lesson, "kept"))
    assert _reasons(lesson_id) == ["kept"]


def test_a_held_flush_leaves_them_for_the_next(database: str, tenant: str) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        add_row(session, LessonHistory, _row(lesson, "later"))
        lesson.hit_count += 1
        with held(session):
            session.flush()
        assert pending(session) == 1
        lesson.hit_count += 1
        session.flush()
        assert pending(session) == 0
    assert _reasons(lesson_id) == ["later"]


def test_values_are_stored_as_the_orm_stored_them(database: str, tenant: str) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        values = _row(lesson, "as the ORM")
        session.add(LessonHistory(**values))
        session.flush()
        add_row(session, LessonHistory, _row(lesson, "plain"))
        add_row(session, LessonHistory, _row(lesson, "plain, before", {"status": "x"}))
    with session_scope() as session:
        rows = session.execute(
            select(LessonHistory.reason, LessonHistory.before.is_(None), LessonHistory.after)
            .where(LessonHistory.lesson_id == lesson_id, LessonHistory.op == "NOOP")
            .order_by(LessonHistory.id)
        ).all()
    orm, plain, plain_before = rows
    # a None ``before`` is stored the same way both ways (the JSON type decides, not the path)
    assert orm[1:] == plain[1:]
    assert plain_before[1] is False and plain_before[2] == {"status": "active"}
