"""An expired lesson leaves the learning document within a relay interval, not at the weekly
sweep (digest/versions/triggers.py ``expire_due``, run by the relay's beat task): disabled
through the one transition, and its agent composes a version without it. ``pitfalls`` stops
reading it at its expiry on its own (tests/cli/test_lessons.py)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import LearningVersion, Lesson, LessonHistory, utcnow
from digest.outbox.publish import TASK_RELAY_PENDING, publish_task
from digest.tenants import find_agent
from digest.versions.compose import compose_version
from digest.versions.triggers import expire_due
from tests.conftest import WorkerProcess, manual_lesson, wait_until

AGENT = "bot"


def _two_lessons_in_a_version(tenant: str) -> tuple[int, int, int]:
    """Two manual lessons, both in version 1: (agent id, the one to expire, the other)."""
    old = manual_lesson(tenant, AGENT, "parcels: parcels ship on Fridays only")
    kept = manual_lesson(tenant, AGENT, "returns: returns take 14 days")
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
    assert compose_version(agent_id, "manual").status == "created"
    body = digest.current_learning(tenant, AGENT)
    assert body is not None and "Fridays" in body.body and "14 days" in body.body
    return agent_id, old, kept


def _expire_now(lesson_id: int) -> None:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        lesson.expires_at = utcnow() - timedelta(seconds=1)


def test_expire_due_disables_the_lesson_and_composes_without_it(
    sqlite_env: str, tenant: str
) -> None:
    agent_id, old, kept = _two_lessons_in_a_version(tenant)
    _expire_now(old)
    assert "Fridays" not in digest.pitfalls(tenant, AGENT, "when do parcels ship")
    assert expire_due() == [agent_id]
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and learning.number == 2
    assert "Fridays" not in learning.body and "14 days" in learning.body
    with session_scope() as session:
        statuses = {i: session.get(Lesson, i).status for i in (old, kept)}  # type: ignore[union-attr]
        reasons = session.scalars(
            select(LessonHistory.reason).where(LessonHistory.lesson_id == old)
        ).all()
    assert statuses == {old: "disabled", kept: "active"} and reasons[-1] == "expired"
    assert expire_due() == []  # nothing left to expire: no compose


def test_an_agent_whose_learning_is_off_composes_nothing_by_itself(
    sqlite_env: str, tenant: str
) -> None:
    from digest.agents import set_agent

    _, old, _ = _two_lessons_in_a_version(tenant)
    set_agent(tenant, AGENT, enable_learning=False)
    _expire_now(old)
    assert expire_due() == []
    with session_scope() as session:
        assert session.get(Lesson, old).status == "disabled"  # type: ignore[union-attr]
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and learning.number == 1


def test_the_relay_task_expires_and_the_worker_composes(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    """Through a real worker: the relay's task (what beat sends every interval) disables the
    expired lesson and publishes a compose, which the worker runs."""
    agent_id, old, _ = _two_lessons_in_a_version(tenant)
    _expire_now(old)
    assert publish_task(TASK_RELAY_PENDING, [])

    def version_two() -> LearningVersion | None:
        with session_scope() as session:
            return session.scalars(
                select(LearningVersion).where(
                    LearningVersion.agent_id == agent_id, LearningVersion.number == 2
                )
            ).first()

    found = wait_until(version_two, timeout=60, what="a version composed after the expiry")
    assert "Fridays" not in found.body_markdown and found.trigger == "sweep"
    with session_scope() as session:
        assert session.get(Lesson, old).status == "disabled"  # type: ignore[union-attr]
