"""digest.lessons.plain_rows: the audit trail and the run records go in as plain rows. Kept for
the transaction in the order they were added, written after the flush of the ORM's rows they
name, seen by a read of the same transaction, forgotten by a rollback, held back by a flush
that only gives ids; stored as the ORM stored the same values (on PostgreSQL and SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Integer, String, event, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from digest import clock
from digest.db import session_scope
from digest.lessons.plain_rows import add_row, held, pending
from digest.models import DigestRun, Lesson, LessonHistory, as_utc, utcnow
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


def _stored_runs(ids: list[int]) -> list[dict[str, object]]:
    with session_scope() as session:
        rows = session.scalars(
            select(DigestRun).where(DigestRun.id.in_(ids)).order_by(DigestRun.id)
        )
        return [
            {c.key: getattr(run, c.key) for c in DigestRun.__table__.columns if c.key != "id"}
            for run in rows
        ]


def test_a_plain_run_row_is_what_the_orm_stores_for_the_same_values(
    database: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every column a caller leaves out gets the model's default, and the error text its
    validator's redaction, both ways: a changed default or validator changes both rows."""
    moment = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    secret = "postgresql://u:pw-secret@db/x refused (sk-proj-" + "A" * 24 + ")"
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        given = {"tenant_id": lesson.tenant_id, "agent_id": lesson.agent_id,
                 "kind": "reflect", "trigger": "event", "error": secret}  # fmt: skip
        orm = DigestRun(**given)
        session.add(orm)
        session.flush()
        add_row(session, DigestRun, given)
        last = session.scalar(select(func.max(DigestRun.id)))
        assert last is not None and last > orm.id
        ids = [orm.id, last]
    by_orm, plain = _stored_runs(ids)
    assert plain == by_orm
    assert plain["error"] == "postgresql://u:***@db/x refused (sk-***)"
    assert plain["n_fast_path"] == 0 and as_utc(plain["started_at"]) == moment


def test_a_history_row_left_without_its_time_gets_the_models(
    database: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    moment = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        row = _row(lesson, "no time")
        del row["at"], row["model"]
        add_row(session, LessonHistory, row)
    with session_scope() as session:
        stored = session.execute(
            select(LessonHistory.at, LessonHistory.model).where(
                LessonHistory.lesson_id == lesson_id, LessonHistory.reason == "no time"
            )
        ).one()
    assert (as_utc(stored.at), stored.model) == (moment, None)


def test_a_row_naming_no_column_or_leaving_out_a_required_one_is_refused(
    sqlite_env: str, tenant: str
) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        with pytest.raises(TypeError, match="lesson_history has no column colour"):
            add_row(session, LessonHistory, _row(lesson, "x") | {"colour": "red"})
        row = _row(lesson, "x")
        del row["op"]
        with pytest.raises(ValueError, match=r"lesson_history\.op has no default"):
            add_row(session, LessonHistory, row)
        assert pending(session) == 0


class _Other(DeclarativeBase):
    pass


class _Stamped(_Other):
    __tablename__ = "stamped"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    note: Mapped[str] = mapped_column(String(10), default=lambda context: "read the statement")
    kept: Mapped[str] = mapped_column(String(10), server_default="x")


@pytest.mark.parametrize(
    ("left_out", "why"),
    [("note", r"stamped\.note's default reads the statement"),
     ("kept", r"stamped\.kept's default is the database's")],
)  # fmt: skip
def test_a_default_a_plain_row_cannot_give_must_be_named(
    sqlite_env: str, left_out: str, why: str
) -> None:
    row = {"note": "n", "kept": "k"}
    del row[left_out]
    with session_scope() as session, pytest.raises(ValueError, match=why):
        add_row(session, _Stamped, row)  # type: ignore[arg-type]


def test_a_statement_inside_a_flush_leaves_them_and_a_read_after_an_empty_flush_sees_them(
    database: str, tenant: str
) -> None:
    """A flush's own listeners may read (``slugs.unique_slugs``): the rows wait for the
    flush's end. A flush that ran ``before_flush`` and then found nothing to write (its
    listeners took the change back) does not leave them unseen by the next read."""
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    read_inside: list[int] = []

    def read_and_take_back(session: Session, _context: object, _objects: object) -> None:
        read_inside.append(pending(session))
        session.execute(select(func.count()).select_from(LessonHistory))
        session.expire(lesson)

    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        add_row(session, LessonHistory, _row(lesson, "inside"))
        event.listen(session, "before_flush", read_and_take_back)
        lesson.hit_count += 1
        session.flush()  # before_flush, then nothing to write: no after_flush
        event.remove(session, "before_flush", read_and_take_back)
        assert read_inside == [1] and pending(session) == 1
        seen = session.scalar(select(func.count()).where(LessonHistory.reason == "inside"))
        assert seen == 1 and pending(session) == 0
