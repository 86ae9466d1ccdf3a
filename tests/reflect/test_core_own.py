"""The one core with transactions of the event's own (``digest.reflect.core.Own``): one event
judged and reconciled with no transaction open, then written under the agent's lesson lock with
an epoch check (embedded SQLite, a scripted model).

A writer that changes the agent's lessons while the model is deciding makes the event reconcile
again; on the last round an UPDATE of a lesson that changed meanwhile becomes a NOOP; a claim
lost while judging writes nothing.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, update

import digest
from digest.db import session_scope
from digest.lessons.transition import transition
from digest.logs import capture_logs
from digest.model.scripted import Messages, scripted_model, step_of
from digest.models import Event, Lesson, LessonEvidence, LessonHistory
from digest.pipeline import reflect_event
from tests.conftest import manual_lesson, use_model

OLD = "refunds: Ask a manager to approve any refund above 200 EUR before issuing it"
REFLECTED = (
    "<lesson><situation>refunds</situation><mistake>refunded 450 EUR alone</mistake>"
    "<correction>Get a manager's approval before you refund more than 200 EUR</correction>"
    "<tags>refunds</tags></lesson>"
)


def noop_on(prompt_id: int) -> str:
    return json.dumps({"operations": [{"op": "NOOP", "candidate": 0, "id": prompt_id}]})


def _run(tenant: str) -> int:
    return digest.record_run(tenant, "bot", task="refund 450 EUR", outcome="failure", error="x")


def _lesson(lesson_id: int) -> Lesson:
    with session_scope() as session:
        row = session.get(Lesson, lesson_id)
        assert row is not None
        return row


def test_a_write_while_the_model_decides_makes_the_event_reconcile_again(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = manual_lesson(tenant, "bot", OLD)
    meanwhile: list[int] = []

    def handler(messages: Messages) -> str:
        if step_of(messages) == "reflect":
            return REFLECTED
        if not meanwhile:  # another writer adds a lesson next to the candidate meanwhile
            meanwhile.append(
                manual_lesson(tenant, "bot", "refunds: above 200 EUR a manager approves")
            )
        return noop_on(0)

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)
        event_id = _run(tenant)
        with capture_logs() as logs:
            result = reflect_event(event_id)

    assert result.status == "reflected"
    assert [step_of(m) for m in model.requests] == ["reflect", "reconcile", "reconcile"]
    assert [e["round"] for e in logs if e["event"] == "lesson_epoch_moved"] == [1]
    second = model.requests[2][-1]["content"]
    assert "a manager approves" in second  # the second round saw the new lesson
    assert _lesson(old).support_count + _lesson(meanwhile[0]).support_count == 3


def test_the_last_round_keeps_newer_text_instead_of_overwriting_it(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_RECONCILE_MAX_ROUNDS", "1")
    old = manual_lesson(tenant, "bot", OLD)
    newer = "Ask a manager to approve any refund above 200 EUR, and note who approved it"

    def handler(messages: Messages) -> str:
        if step_of(messages) == "reflect":
            return REFLECTED
        with session_scope() as session:  # an owner edits the lesson meanwhile
            lesson = session.get(Lesson, old)
            assert lesson is not None
            transition(session, lesson, op="UPDATE", reason="owner edit", correction=newer)
        merged = {"situation": "refunds", "correction": "the model's merged text"}
        return json.dumps(
            {"operations": [{"op": "UPDATE", "candidate": 0, "id": 0, "lesson": merged}]}
        )

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)
        event_id = _run(tenant)
        with capture_logs() as logs:
            assert reflect_event(event_id).status == "reflected"

    row = _lesson(old)
    assert (row.correction, row.support_count) == (newer, 2)
    assert any(e["event"] == "reconcile_update_downgraded" for e in logs)
    with session_scope() as session:
        ops = session.scalars(
            select(LessonHistory.op).where(LessonHistory.event_id == event_id)
        ).all()
    assert list(ops) == ["NOOP"]


def test_a_claim_lost_while_judging_writes_nothing(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def handler(messages: Messages) -> str:
        with session_scope() as session:  # the relay handed the event to another worker
            session.execute(update(Event).values(attempts=Event.attempts + 1))
        return REFLECTED

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)
        event_id = _run(tenant)
        result = reflect_event(event_id)

    assert result.status == "claim_lost"
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None and event.status == "processing"
        assert session.scalars(select(LessonEvidence)).all() == []
