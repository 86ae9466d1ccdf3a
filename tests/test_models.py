"""digest.models: the data model. Table names are part of the operator-facing surface,
enumerations are guarded by CHECK constraints on both databases, error text is redacted on the
way in, and timestamps are UTC (embedded SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

import digest
from digest.db import session_scope
from digest.models import (
    EVENT_STATUSES,
    LESSON_STATUSES,
    TRUSTED_KINDS,
    Base,
    DigestRun,
    Event,
    Lesson,
    as_utc,
    utcnow,
)
from tests.conftest import manual_lesson

TABLES = {
    "tenants", "agents", "events", "lessons", "lesson_evidence", "lesson_history",
    "learning_versions", "digest_runs", "judgements", "heartbeats", "api_keys", "review_sessions",
    "replay_probes", "questions", "question_asks", "forgotten", "holdout_exposures",
    "question_clocks",
}  # fmt: skip


def test_the_operator_facing_table_names() -> None:
    assert set(Base.metadata.tables) == TABLES


def test_times_are_utc() -> None:
    now = utcnow()
    assert now.tzinfo is UTC and abs(now - datetime.now(UTC)) < timedelta(seconds=5)
    naive = datetime(2026, 1, 2, 3, 4)
    assert as_utc(naive) == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    aware = datetime(2026, 1, 2, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(aware) is aware


def test_the_statuses_are_the_designs() -> None:
    assert EVENT_STATUSES == (
        "pending", "processing", "waiting", "reflected", "skipped", "failed", "dead",
    )  # fmt: skip
    assert LESSON_STATUSES == ("active", "disabled", "superseded", "deleted", "quarantined")


def test_trusted_kinds_are_what_people_the_agent_answers_to_write() -> None:
    assert {"operator_edit", "owner_answer", "manual_lesson"} == TRUSTED_KINDS


def test_error_text_is_redacted_when_it_is_set() -> None:
    key = "sk-proj-" + "A" * 24
    event = Event(last_error=f"401: bad key {key}")
    run = DigestRun(error=f"postgresql://u:pw-secret@db/x refused ({key})")
    assert key not in (event.last_error or "") and "sk-***" in (event.last_error or "")
    assert run.error == "postgresql://u:***@db/x refused (sk-***)"
    assert Event(last_error=None).last_error is None


@pytest.mark.parametrize(
    ("column", "value"),
    [("status", "gone"), ("scope", "world"), ("outcome", "meh")],
)
def test_an_unknown_enumeration_value_is_refused_by_the_database(
    sqlite_env: str, tenant: str, column: str, value: str
) -> None:
    lesson_id = manual_lesson(tenant, "bot", "refunds: confirm the amount first")
    with pytest.raises(IntegrityError, match="CHECK constraint"), session_scope() as session:
        session.execute(update(Lesson).where(Lesson.id == lesson_id).values({column: value}))


def test_an_event_of_an_unknown_status_is_refused(sqlite_env: str, tenant: str) -> None:
    event_id = digest.record_answer(tenant, "bot", question="q?", answer="a")
    with pytest.raises(IntegrityError, match="CHECK constraint"), session_scope() as session:
        session.execute(update(Event).where(Event.id == event_id).values(status="lost"))
