"""The weekly sweep retires held untrusted lessons nothing corroborated within
``DIGEST_UNCONFIRMED_TTL_DAYS`` (digest/versions/triggers.py ``retire_unconfirmed_lessons``),
on the embedded default (a SQLite file of this test's own: the sweep acts on every tenant)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.lessons.service import lesson_detail, release_lessons
from digest.models import Lesson, LessonHistory, utcnow
from digest.pipeline import drain
from digest.versions.triggers import sweep
from tests.conftest import lessons_for_event, manual_lesson

T, AGENT = "acme", "bot"


def _tool_lesson(tool: str, contact: str = "c-1") -> int:
    """A held untrusted lesson offline/rules distils from one failing run of ``tool``."""
    event_id = digest.record_run(
        T, AGENT, task=f"use {tool}", outcome="failure", contact_id=contact,
        tool_calls=[{"tool": tool, "ok": False, "error": f"{tool}: field 'amount' is required"}],
    )  # fmt: skip
    drain(tenant=T, agent=AGENT)
    (found,) = lessons_for_event(event_id)
    assert found.trust == "untrusted"
    return int(found.id)


def _age(lesson_id: int, days: int) -> None:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        lesson.created_at = lesson.sources_since = utcnow() - timedelta(days=days)


def _lesson(lesson_id: int) -> tuple[str, str | None, list[str]]:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        history = session.scalars(
            select(LessonHistory.reason)
            .where(LessonHistory.lesson_id == lesson_id)
            .order_by(LessonHistory.id)
        ).all()
        return lesson.status, lesson.status_reason, list(history)


def test_the_sweep_retires_held_lessons_nobody_confirmed(sqlite_env: str) -> None:
    old_held = _tool_lesson("issue_refund")
    fresh_held = _tool_lesson("book_courier")
    released = _tool_lesson("track_parcel")
    trusted = manual_lesson(T, AGENT, "refunds: ask a manager above 200 EUR")
    release_lessons(T, AGENT, [released], by="ann")
    ttl = get_settings().unconfirmed_ttl_days
    assert ttl == 30
    for lesson_id in (old_held, released, trusted):
        _age(lesson_id, ttl + 1)
    _age(fresh_held, ttl - 1)

    shown = lesson_detail(T, AGENT, old_held).to_json()["unconfirmed_until"]
    assert shown is not None and shown < utcnow().isoformat()
    assert lesson_detail(T, AGENT, released).unconfirmed_until is None
    assert lesson_detail(T, AGENT, trusted).unconfirmed_until is None
    fresh = lesson_detail(T, AGENT, fresh_held).unconfirmed_until
    assert fresh is not None and timedelta(0) < fresh - utcnow() < timedelta(days=1, minutes=1)

    report = sweep()

    assert report.unconfirmed == [old_held]
    status, reason, history = _lesson(old_held)
    assert status == "disabled"
    assert (
        reason
        == history[-1]
        == (
            "unconfirmed: 1 of 2 independent sources after 30 days (DIGEST_UNCONFIRMED_TTL_DAYS); "
            "it was never shown to an agent"
        )
    )
    for kept in (fresh_held, released, trusted):
        assert _lesson(kept)[0] == "active"
    assert sweep().unconfirmed == []  # nothing left to retire


def test_a_ttl_of_zero_retires_nothing(sqlite_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    held = _tool_lesson("issue_refund")
    _age(held, 400)
    monkeypatch.setenv("DIGEST_UNCONFIRMED_TTL_DAYS", "0")
    get_settings.cache_clear()
    assert sweep().unconfirmed == []
    assert _lesson(held)[0] == "active"
