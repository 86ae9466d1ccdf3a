"""digest.versions.triggers: the three ways a version is proposed (threshold, weekly sweep,
improve now), against PostgreSQL, Redis and a real worker process, and the one outstanding
threshold compose per agent (its messages counted in Redis)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from sqlalchemy import func, select

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.model.scripted import Messages, rules, scripted_model, step_of
from digest.models import Agent, DigestRun, LearningVersion
from digest.outbox.publish import TASK_COMPOSE_VERSION, TASK_REFLECT
from digest.pipeline import improve_now, reflect_event
from digest.tenants import configure_tenant, find_agent
from digest.versions.triggers import new_token, sweep, threshold_compose, token_outstanding
from tests.cli.conftest import run_cli
from tests.conftest import (
    WorkerProcess,
    answer_while_broker_down,
    manual_lesson,
    queued_tasks,
    use_model,
    wait_for_event,
    wait_until,
)

AGENT = "bot"
DONE = {"reflected", "skipped", "failed", "dead"}


def configure(tenant: str, **settings: int) -> None:
    with session_scope() as session:
        configure_tenant(session, tenant, **settings)


def counts(tenant: str) -> tuple[int, int]:
    """(versions, compose runs) of the tenant's agent."""
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        n_versions = session.scalar(
            select(func.count()).where(LearningVersion.agent_id == agent.id)
        )
        n_runs = session.scalar(
            select(func.count()).where(DigestRun.agent_id == agent.id, DigestRun.kind == "compose")
        )
        return int(n_versions or 0), int(n_runs or 0)


FACTS = [
    ("Do we ship to Norway?", "Yes, from the Oslo warehouse in 3-5 working days."),
    ("How long is the return window?", "30 days from delivery, unworn items only."),
    ("Are gift cards refundable?", "No, gift cards can never be refunded."),
    ("When is the pickup counter open?", "Weekdays 10-18 and Saturdays 10-15."),
    ("Can customers exchange sizes?", "Yes, size exchanges are free within 30 days."),
    ("Do we price match?", "Only against our own web shop, never competitors."),
    ("Which carrier handles parcels?", "PostNord for the Nordics, DHL elsewhere."),
    ("Is gift wrapping available?", "Yes, for 3 EUR per item, added at checkout."),
    ("Do students get a discount?", "A 10 percent student discount with a valid card."),
    ("What about damaged parcels?", "Ask for a photo, then refund or replace at once."),
]


def answers(tenant: str, n: int) -> list[int]:
    return [
        digest.record_answer(tenant, AGENT, question=question, answer=answer)
        for question, answer in FACTS[:n]
    ]


def test_ten_signals_in_one_quiet_period_compose_once(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    configure(tenant, threshold_signals=3, quiet_seconds=3)
    worker = shared_worker
    ids = answers(tenant, 10)
    for event_id in ids:
        assert wait_for_event(event_id, DONE)["status"] == "reflected"
    agent_id, _ = agent_token(tenant)

    def composing_tasks() -> set[str]:
        return {r["task_id"] for r in worker.records("version_composed", agent_id=agent_id)}

    tasks = wait_until(composing_tasks, 30, "a threshold compose")
    # The compose task has ended, its follow-up checks included, and left no compose scheduled
    # (the token is the one outstanding compose an agent may have): no second one can come.
    wait_until(lambda: tasks <= worker.ended_tasks().keys(), 30, "the compose task's end")
    assert agent_token(tenant) == (agent_id, None)
    assert counts(tenant) == (1, 1)
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        version = session.get(LearningVersion, agent.current_version_id)
        assert version is not None and version.trigger == "threshold"
        assert len(version.folded_lesson_ids) == 10


def test_below_threshold_waits_for_the_sweep_which_catches_up_once(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    configure(tenant, threshold_signals=5, quiet_seconds=1)
    worker = shared_worker
    ids = answers(tenant, 2)
    for event_id in ids:
        assert wait_for_event(event_id, DONE)["status"] == "reflected"
    # The tasks that reflected them ran the threshold trigger to its end: it scheduled nothing.
    wait_until(lambda: worker.done_with(ids), 30, "the end of the reflect tasks")
    assert agent_token(tenant)[1] is None
    assert counts(tenant) == (0, 0)
    first = sweep()  # the sweep that missed last week's run: composes once …
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
    assert agent_id in first.composed
    second = sweep()  # … and the next one finds nothing new for this agent
    assert agent_id not in second.composed and agent_id not in second.unchanged
    assert counts(tenant) == (1, 1)
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        version = session.get(LearningVersion, agent.current_version_id)
        assert version is not None and version.trigger == "sweep"


def test_improve_now_reflects_pending_events_then_composes(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    pending = [
        answer_while_broker_down(tenant, monkeypatch, broker, f"Pending question {i}?")
        for i in range(3)
    ]
    for event_id in pending:
        assert wait_for_event(event_id, {"pending"}, timeout=1)["status"] == "pending"
    result = improve_now(tenant, AGENT)
    assert result.status == "created" and result.number == 1
    for event_id in pending:
        assert wait_for_event(event_id, DONE, timeout=1)["status"] == "reflected"
    assert improve_now(tenant, AGENT).status == "no_change"
    assert counts(tenant) == (1, 2)


def test_improve_now_cli_waits_for_the_worker(shared_worker: WorkerProcess, tenant: str) -> None:
    configure(tenant, threshold_signals=100)
    for event_id in answers(tenant, 2):
        wait_for_event(event_id, DONE)
    args = ("improve-now", "--tenant", tenant, "--agent", AGENT, "--wait", "--json")
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    created = json.loads(first.stdout)
    assert created["status"] == "created" and created["number"] == 1
    second = run_cli(*args)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["status"] == "no_change"
    assert counts(tenant) == (1, 2)
    unknown = run_cli("improve-now", "--tenant", tenant, "--agent", "nobody")
    assert unknown.returncode == 2 and "unknown agent" in unknown.stderr


def test_beat_sweep_fans_out_one_compose_task_per_due_agent(
    own_database: str, start_worker: Any, tenant: str
) -> None:
    """On a database of the test's own: the sweep fans out a compose for every due agent, and
    in the test process's database that would be every agent earlier tests left lessons to."""
    from digest.outbox.publish import TASK_WEEKLY_SWEEP, publish_task

    configure(tenant, threshold_signals=100)
    start_worker(concurrency=2, DIGEST_DATABASE_URL=own_database)
    for event_id in answers(tenant, 2):
        wait_for_event(event_id, DONE)
    assert counts(tenant) == (0, 0)
    assert publish_task(TASK_WEEKLY_SWEEP, [])
    deadline = time.monotonic() + 60
    while counts(tenant)[0] == 0:
        assert time.monotonic() < deadline, "the sweep's compose task never ran"
        time.sleep(0.3)
    assert counts(tenant) == (1, 1)


# --- one outstanding threshold compose per agent (no worker: messages counted in Redis) --------


def composes(broker: str, queue: str) -> list[list[Any]]:
    return [args for task, args in queued_tasks(broker, queue) if task == TASK_COMPOSE_VERSION]


def agent_token(tenant: str) -> tuple[int, str | None]:
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        return agent.id, agent.compose_token


def test_many_signals_past_the_threshold_publish_one_compose(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    configure(tenant, threshold_signals=3, quiet_seconds=60)
    ids = answers(tenant, 10)
    agent_id, _ = agent_token(tenant)
    # Capture coalesces: one reflect message waits for the agent, whatever it has pending.
    assert queued_tasks(broker, own_queue) == [(TASK_REFLECT, [ids[0], agent_id])]
    for event_id in ids:
        assert reflect_event(event_id).status == "reflected"
    scheduled = composes(broker, own_queue)
    _, token = agent_token(tenant)
    assert scheduled == [[agent_id, "threshold", token]]
    assert token_outstanding(token, get_settings())


def test_a_lost_compose_message_does_not_strand_the_agent(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    configure(tenant, threshold_signals=2, quiet_seconds=60)
    settings = get_settings()
    ids = answers(tenant, 3)
    for event_id in ids[:2]:
        reflect_event(event_id)
    agent_id, first = agent_token(tenant)
    assert len(composes(broker, own_queue)) == 1
    # The message was lost long ago (a Redis restart): its token is past any redelivery.
    lost = new_token(-(settings.visibility_timeout_s + 10))
    assert not token_outstanding(lost, settings)
    with session_scope() as session:
        session.get(Agent, agent_id).compose_token = lost  # type: ignore[union-attr]
    reflect_event(ids[2])
    _, fresh = agent_token(tenant)
    assert fresh not in (first, lost) and token_outstanding(fresh, settings)
    assert composes(broker, own_queue)[-1] == [agent_id, "threshold", fresh]
    assert threshold_compose(agent_id, lost) == "replaced"


def test_a_compose_firing_during_activity_reschedules_under_a_new_token(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    configure(tenant, threshold_signals=2, quiet_seconds=60)
    for event_id in answers(tenant, 2):
        reflect_event(event_id)
    agent_id, token = agent_token(tenant)
    assert token is not None
    assert threshold_compose(agent_id, token) == "rescheduled"  # the last event was just now
    _, later = agent_token(tenant)
    assert later not in (None, token)
    assert composes(broker, own_queue) == [
        [agent_id, "threshold", token],
        [agent_id, "threshold", later],
    ]
    assert threshold_compose(agent_id, token) == "replaced"  # the older message does nothing
    assert counts(tenant) == (0, 0)


def test_events_reflected_while_the_compose_runs_get_another_compose(
    services_env: dict[str, str],
    own_queue: str,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    configure(tenant, threshold_signals=2, quiet_seconds=0)
    for event_id in answers(tenant, 2):
        reflect_event(event_id)
    agent_id, token = agent_token(tenant)
    assert token is not None and len(composes(broker, own_queue)) == 1
    late: list[int] = []

    def summarize(messages: Messages) -> str:
        # The compose's model call runs with no transaction open: an event lands meanwhile.
        if not late:
            late.append(
                digest.record_answer(
                    tenant, AGENT, question="Late question?", answer="Late answer."
                )
            )
            assert reflect_event(late[0]).status == "reflected"  # finds the compose outstanding
        return rules(messages)

    with scripted_model(summarize) as model:
        use_model(monkeypatch, model.name, step="summarize")
        result = threshold_compose(agent_id, token)
    assert not isinstance(result, str) and result.status == "created"
    assert [step_of(m) for m in model.requests][:1] == ["summarize"]
    _, again = agent_token(tenant)
    assert again not in (None, token)
    assert composes(broker, own_queue)[-1] == [agent_id, "threshold", again]


def test_a_compose_with_no_activity_meanwhile_leaves_nothing_scheduled(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    configure(tenant, threshold_signals=2, quiet_seconds=0)
    for event_id in answers(tenant, 2):
        reflect_event(event_id)
    agent_id, token = agent_token(tenant)
    assert token is not None
    result = threshold_compose(agent_id, token)
    assert not isinstance(result, str) and result.status == "created"
    assert agent_token(tenant) == (agent_id, None)
    assert len(composes(broker, own_queue)) == 1


def test_the_sweep_expires_lessons_through_the_transition(sqlite_env: str, tenant: str) -> None:
    """Expiry is a lesson state change like any other: disabled with a history row, and the
    agent's lesson epoch moved (a reconciliation reading meanwhile must decide again)."""
    from datetime import timedelta

    from digest.models import Lesson, LessonHistory, utcnow

    old = manual_lesson(tenant, AGENT, "parcels: parcels ship on Fridays")
    fresh = manual_lesson(tenant, AGENT, "returns: returns take 14 days")
    with session_scope() as session:
        session.get(Lesson, old).expires_at = utcnow() - timedelta(minutes=1)  # type: ignore[union-attr]
        epoch = find_agent(session, tenant, AGENT).lesson_epoch
    report = sweep()
    assert report.expired == 1
    with session_scope() as session:
        expired, kept = session.get(Lesson, old), session.get(Lesson, fresh)
        assert expired is not None and kept is not None
        assert (expired.status, kept.status) == ("disabled", "active")
        assert expired.status_reason and expired.status_reason.startswith("expired at")
        history = session.scalars(
            select(LessonHistory).where(LessonHistory.lesson_id == old).order_by(LessonHistory.id)
        ).all()
        assert [(h.op, h.reason) for h in history] == [
            ("ADD", history[0].reason),
            ("UPDATE", "expired"),
        ]
        assert history[1].before["status"] == "active" and history[1].after["status"] == "disabled"
        assert find_agent(session, tenant, AGENT).lesson_epoch > epoch
    assert sweep().expired == 0  # a second sweep finds nothing left to expire
