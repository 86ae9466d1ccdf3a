"""worker.tasks, end to end through a real Celery worker process, real Redis and real
PostgreSQL: every kind of event becomes lessons with evidence, skips are recorded, and a
second delivery of a finished event does nothing. The tasks are found by their stable names.
The worker is the test process's shared one (``shared_worker``): each test has its own tenant."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.models import DigestRun, Event, LessonEvidence, LessonHistory
from tests.conftest import DONE, WorkerProcess, lessons_for_event, manual_lesson, wait_for_event


def _count(model: Any, *where: Any) -> int:
    with session_scope() as session:
        return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def test_every_kind_becomes_lessons_with_evidence(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    run_id = digest.record_run(
        tenant, "bot", task="refund order 1182", outcome="failure",
        tool_calls=[{"tool": "issue_refund", "args": {"order": "1182"}, "ok": False,
                     "error": "ValidationError: field 'amount' is required"}],
    )  # fmt: skip
    edit_id = digest.record_edit(
        tenant, "bot",
        original="Your parcel is guaranteed to arrive tomorrow!",
        final="Your parcel should arrive within 2-3 working days (order 41788).",
    )  # fmt: skip
    answer_id = digest.record_answer(
        tenant, "bot", question="Do we ship to Norway?", answer="Yes, from Oslo in 3-5 days."
    )
    lesson_id = manual_lesson(tenant, "bot", "gift-cards: gift cards are never refundable")

    for event_id, needle, taught in (
        (run_id, "issue_refund", 1),
        # the edit teaches each rule apart: what the final says, the promise it removed (the
        # rule, not the reply) and its tone
        (edit_id, "Do not promise", 3),
        (answer_id, "Oslo", 1),
    ):
        row = wait_for_event(event_id, DONE)
        assert row["status"] == "reflected", row
        lessons = lessons_for_event(event_id)
        assert len(lessons) == taught
        assert any(needle in lesson.situation + lesson.correction for lesson in lessons)
        for lesson in lessons:
            assert lesson.status == "active"
            assert _count(LessonHistory, LessonHistory.lesson_id == lesson.id) == 1
        assert _count(DigestRun, DigestRun.event_id == event_id, DigestRun.n_add == taught) == 1
    with session_scope() as session:
        manual_event = session.scalars(
            select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson_id)
        ).one()
        assert session.get(Event, manual_event).status == "reflected"  # type: ignore[union-attr]


def test_skip_marks_event_skipped_without_lessons(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    transient = digest.record_run(
        tenant, "bot", task="search flights", outcome="failure",
        error="upstream timeout after 30s",
    )  # fmt: skip
    success = digest.record_run(tenant, "bot", task="greet the customer", outcome="success")
    for event_id, reason in ((transient, "transient"), (success, "policy")):
        row = wait_for_event(event_id, DONE)
        assert row["status"] == "skipped"
        assert reason in row["skip_reason"]
        assert lessons_for_event(event_id) == []
        assert _count(DigestRun, DigestRun.event_id == event_id, DigestRun.n_skip == 1) == 1


def _log_events(worker: Any, name: str, event_id: int) -> list[dict[str, Any]]:
    found = []
    for line in worker.log().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("event") == name and record.get("event_id") == event_id:
            found.append(record)
    return found


def test_second_delivery_of_a_finished_event_does_nothing(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    from digest.outbox.publish import publish_reflect

    worker = shared_worker
    event_id = digest.record_answer(tenant, "bot", question="Gift wrap?", answer="Yes, 3 EUR.")
    row = wait_for_event(event_id, DONE)
    before = [lesson.id for lesson in lessons_for_event(event_id)]
    assert len(before) == 1
    assert publish_reflect(event_id)
    assert publish_reflect(event_id)
    deadline = time.monotonic() + 20
    while len(_log_events(worker, "reflect_noop", event_id)) < 2:
        assert time.monotonic() < deadline, worker.log()[-2000:]
        time.sleep(0.2)
    assert all(r["status"] == "already_done" for r in _log_events(worker, "reflect_noop", event_id))
    assert [lesson.id for lesson in lessons_for_event(event_id)] == before
    assert _count(DigestRun, DigestRun.event_id == event_id) == 1
    assert wait_for_event(event_id, DONE)["attempts"] == row["attempts"] == 1


def test_a_message_queued_under_the_former_task_name_is_still_reflected(
    shared_worker: WorkerProcess, tenant: str, services_env: dict[str, str], monkeypatch: Any
) -> None:
    """``digest.reflect_batch`` was ``digest.reflect_event``: a message a capture queued under
    the old name before the upgrade is still taken and reflects its event."""
    from digest.config import get_settings
    from digest.outbox.publish import TASK_REFLECT_LEGACY, publish_task
    from tests.conftest import agent_id_of

    monkeypatch.delenv("DIGEST_BROKER_URL")  # capture without publishing: the old message does
    get_settings.cache_clear()
    event_id = digest.record_answer(tenant, "bot", question="Gift wrap?", answer="Yes, 3 EUR.")
    monkeypatch.setenv("DIGEST_BROKER_URL", services_env["DIGEST_BROKER_URL"])
    get_settings.cache_clear()
    worker = shared_worker
    assert publish_task(TASK_REFLECT_LEGACY, [event_id, agent_id_of(tenant, "bot")])
    assert wait_for_event(event_id, DONE)["status"] == "reflected"
    assert len(lessons_for_event(event_id)) == 1
    assert "Task digest.reflect_event[" in worker.log()


def test_the_tasks_have_stable_dotted_names() -> None:
    from digest.outbox import publish
    from worker import tasks
    from worker.celery_app import app

    named = {
        publish.TASK_REFLECT: tasks.reflect_batch,
        publish.TASK_REFLECT_LEGACY: tasks.reflect_event,
        publish.TASK_RELAY_PENDING: tasks.relay_pending,
        publish.TASK_COMPOSE_VERSION: tasks.compose_version,
        publish.TASK_WEEKLY_SWEEP: tasks.weekly_sweep,
        publish.TASK_IMPROVE_NOW: tasks.improve_now,
        publish.TASK_MERGE_QUESTIONS: tasks.merge_questions,
    }
    for name, task in named.items():
        assert task.name == name and app.tasks[name].name == name
