"""Batched reflection against PostgreSQL and Redis: capture coalesces an agent's reflect
messages, and one task (``digest.pipeline.reflect_pending``) takes the agent's pending events
together, with the same bank as one by one, one bad event failing alone and a database fault
handing every claim back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

import digest
from digest.outbox import publish
from digest.reflect import batch as reflect_batch
from digest.reflect import judge as reflect_judge
from digest.reflect import single as reflect_single
from digest.config import get_settings
from digest.db import session_scope
from digest.models import Agent, DigestRun, Event, Lesson, LessonEvidence, LessonHistory
from digest.outbox.publish import (
    REFLECT_SLOT_TTL_S,
    TASK_REFLECT_EVENT,
    reflect_slot,
    release_reflect_slot,
)
from digest.pipeline import reflect_event, reflect_pending
from digest.reflect.claims import claim_batch
from digest.tenants import find_agent
from tests.conftest import _reset_process_state, queued_tasks, wait_for_event

pytestmark = pytest.mark.services

DONE = {"reflected", "skipped", "failed", "dead"}
FINISHED = {"reflected", "skipped"}


# --- helpers -----------------------------------------------------------------------------------


def answers(tenant: str, agent: str, n: int, topic: str = "Question") -> list[int]:
    """``n`` owner answers on distinct facts, captured (and published) in order."""
    return [
        digest.record_answer(
            tenant, agent, question=f"{topic} {i}: what is rule {i}?", answer=f"Rule {i} is {i}."
        )
        for i in range(n)
    ]


def agent_id_of(tenant: str, agent: str) -> int:
    with session_scope() as session:
        return find_agent(session, tenant, agent).id


def rows(ids: list[int]) -> dict[int, tuple[str, int]]:
    """Event id → (status, attempts)."""
    with session_scope() as session:
        found = session.execute(
            select(Event.id, Event.status, Event.attempts).where(Event.id.in_(ids))
        )
        return {row.id: (row.status, row.attempts) for row in found}


def statuses(ids: list[int]) -> dict[int, str]:
    return {event_id: status for event_id, (status, _) in rows(ids).items()}


def reflect_runs(ids: list[int]) -> dict[int, int]:
    """Event id → how many ``digest_runs`` rows of kind reflect it has (absent: none)."""
    with session_scope() as session:
        found = session.execute(
            select(DigestRun.event_id, func.count())
            .where(DigestRun.kind == "reflect", DigestRun.event_id.in_(ids))
            .group_by(DigestRun.event_id)
        )
        return {event_id: n for event_id, n in found if event_id is not None}


def reflect_messages(broker: str, queue: str) -> list[list[Any]]:
    """Args of every reflect message waiting in ``queue``, oldest first (compose messages the
    threshold trigger may add are left out)."""
    return [args for task, args in queued_tasks(broker, queue) if task == TASK_REFLECT_EVENT]


def take_message(broker: str, queue: str) -> list[Any]:
    """Pop the oldest message, as a worker would, and return its args."""
    [(task, args)] = queued_tasks(broker, queue)[:1]
    assert task == TASK_REFLECT_EVENT
    redis.Redis.from_url(broker).rpop(queue)
    return args


def with_batch_size(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    monkeypatch.setenv("DIGEST_REFLECT_BATCH_SIZE", str(size))
    _reset_process_state()


def judge_raising(
    monkeypatch: pytest.MonkeyPatch, bad_id: int, error: Callable[[], Exception]
) -> None:
    """Judging event ``bad_id`` raises ``error()``; every other event is judged as usual."""
    real = reflect_judge.verdict_for

    def judge(run: reflect_judge.RunInfo) -> Any:
        if run.claimed.event_id == bad_id:
            raise error()
        return real(run)

    monkeypatch.setattr(reflect_batch, "verdict_for", judge)
    monkeypatch.setattr(reflect_single, "verdict_for", judge)


# --- coalescing at capture ---------------------------------------------------------------------


def test_captures_for_one_agent_leave_one_message_until_its_slot_is_released(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    first = answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    assert reflect_messages(broker, own_queue) == [[first[0], bot]]
    ttl = redis.Redis.from_url(broker).ttl(reflect_slot(bot))
    assert 0 < ttl <= REFLECT_SLOT_TTL_S

    assert release_reflect_slot(bot)
    [sixth] = answers(tenant, "bot", 1, topic="Later")
    other = answers(tenant, "other", 3)
    other_id = agent_id_of(tenant, "other")
    assert reflect_messages(broker, own_queue) == [
        [first[0], bot],
        [sixth, bot],
        [other[0], other_id],
    ]
    assert set(statuses([*first, sixth, *other]).values()) == {"pending"}


# --- one message, the agent's whole backlog ----------------------------------------------------


def test_one_message_reflects_all_pending_events_of_its_agent_only(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    ids = answers(tenant, "bot", 6)
    untouched = answers(tenant, "other", 2)
    bot = agent_id_of(tenant, "bot")
    assert take_message(broker, own_queue) == [ids[0], bot]

    results = reflect_pending(event_id=ids[0], agent_id=bot)

    assert sorted(r.event_id for r in results) == ids
    assert {r.status for r in results} <= FINISHED
    assert set(statuses(ids).values()) <= FINISHED
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)
    assert statuses(untouched) == dict.fromkeys(untouched, "pending")
    # Nothing was left over, so nothing was passed on; the other agent's message still waits.
    other = agent_id_of(tenant, "other")
    assert reflect_messages(broker, own_queue) == [[untouched[0], other]]


def test_batch_size_is_honoured_and_the_rest_is_passed_on_in_one_message(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_batch_size(monkeypatch, 3)
    assert get_settings().reflect_batch_size == 3
    broker = services_env["DIGEST_BROKER_URL"]
    ids = answers(tenant, "bot", 7)
    bot = agent_id_of(tenant, "bot")
    assert take_message(broker, own_queue) == [ids[0], bot]

    results = reflect_pending(event_id=ids[0], agent_id=bot)

    assert sorted(r.event_id for r in results) == ids[:3]
    after = statuses(ids)
    assert {after[i] for i in ids[:3]} <= FINISHED
    assert [after[i] for i in ids[3:]] == ["pending"] * 4
    # One message for the rest, naming the oldest event left (still pending, asserted above).
    assert reflect_messages(broker, own_queue) == [[ids[3], bot]]


# --- the same bank as one by one ---------------------------------------------------------------


REFUND_ERROR = "ValidationError: field 'amount' is required"


def refund_run(tenant: str, agent: str, order: str, repeated: bool = False) -> int:
    call = {"tool": "issue_refund", "args": {"order_id": order}, "ok": False, "error": REFUND_ERROR}
    return digest.record_run(
        tenant,
        agent,
        task=f"Refund the damaged mug from order {order}",
        outcome="failure",
        tool_calls=[call, call] if repeated else [call],
    )


def incident_stream(tenant: str, agent: str) -> list[int]:
    """Exact repeats, paraphrases, a negated answer, a transient fault (skipped): the same
    stream for every agent."""
    norway = "Do we ship to Norway?"
    return [
        refund_run(tenant, agent, "41655"),
        digest.record_answer(tenant, agent, question=norway, answer="Yes, from Oslo in 3-5 days."),
        refund_run(tenant, agent, "41655"),  # an exact repeat
        refund_run(tenant, agent, "41656"),  # the same incident on another order
        digest.record_answer(tenant, agent, question=norway, answer="Yes, from Oslo in 3-5 days."),
        digest.record_answer(
            tenant,
            agent,
            question=norway,
            answer="Yes, from the Oslo warehouse in 3-5 working days, tracked by PostNord.",
        ),
        digest.record_edit(
            tenant, agent, original="We ship tomorrow.", final="We ship within 3 working days."
        ),
        digest.record_run(
            tenant,
            agent,
            task="Track parcel 77",
            outcome="failure",
            tool_calls=[{"tool": "track", "args": {}, "ok": False, "error": "503 Unavailable"}],
        ),
        refund_run(tenant, agent, "41655", repeated=True),
        refund_run(tenant, agent, "41655"),
        digest.record_edit(
            tenant, agent, original="We ship tomorrow.", final="We ship within 3 working days."
        ),
        digest.record_answer(tenant, agent, question=norway, answer="No, we never ship to Norway."),
    ]


def bank(tenant: str, agent: str, ids: list[int]) -> dict[str, Any]:
    """The agent's lessons, with their evidence and history named by the position of the event
    in ``ids`` (event ids differ between agents; positions do not)."""
    position = {event_id: index for index, event_id in enumerate(ids)}
    with session_scope() as session:
        agent_id = find_agent(session, tenant, agent).id
        lessons = list(
            session.scalars(select(Lesson).where(Lesson.agent_id == agent_id).order_by(Lesson.id))
        )
        evidence: dict[int, list[int]] = {lesson.id: [] for lesson in lessons}
        for lesson_id, event_id in session.execute(
            select(LessonEvidence.lesson_id, LessonEvidence.event_id).where(
                LessonEvidence.lesson_id.in_(evidence)
            )
        ):
            evidence[lesson_id].append(position[event_id])
        history: dict[int, list[tuple[str, int | None]]] = {lesson.id: [] for lesson in lessons}
        for lesson_id, op, source in session.execute(
            select(LessonHistory.lesson_id, LessonHistory.op, LessonHistory.event_id)
            .where(LessonHistory.lesson_id.in_(history))
            .order_by(LessonHistory.id)
        ):
            history[lesson_id].append((op, position.get(source) if source else None))
        described = [
            (
                lesson.situation,
                lesson.correction,
                lesson.support_count,
                lesson.status,
                sorted(evidence[lesson.id]),
                history[lesson.id],
            )
            for lesson in lessons
        ]
    return {
        "lessons": described,
        "active": sorted(d[:4] for d in described if d[3] == "active"),
        "statuses": [statuses(ids)[i] for i in ids],
    }


def test_a_batch_leaves_the_same_bank_as_one_event_at_a_time(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    batched = incident_stream(tenant, "batched")
    single = incident_stream(tenant, "single")
    batched_agent = agent_id_of(tenant, "batched")

    results = reflect_pending(event_id=batched[0], agent_id=batched_agent)
    assert sorted(r.event_id for r in results) == batched
    for event_id in single:
        reflect_event(event_id)

    a, b = bank(tenant, "batched", batched), bank(tenant, "single", single)
    assert a["statuses"] == b["statuses"]
    assert set(a["statuses"]) == FINISHED  # the transient fault is skipped, the rest reflected
    assert a["active"] == b["active"]
    assert a["lessons"] == b["lessons"]
    active = a["active"]
    # No duplicates: a repeat inside the batch supports the lesson an earlier event added.
    assert len({(situation, correction) for situation, correction, *_ in active}) == len(active)
    assert max(support for _, _, support, _ in active) >= 3


# --- faults inside a batch ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        lambda: RuntimeError("judge broke"),
        # about one event's data, not the connection: found by running them one by one
        lambda: IntegrityError("stmt", {}, Exception("judge broke")),
    ],
    ids=["bug", "integrity"],
)
def test_a_bad_event_fails_alone_and_the_rest_of_its_batch_is_reflected(
    services_env: dict[str, str],
    own_queue: str,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
    error: Callable[[], Exception],
) -> None:
    ids = answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    bad = ids[2]
    judge_raising(monkeypatch, bad, error)

    with pytest.raises(type(error()), match="judge broke"):
        reflect_pending(event_id=ids[0], agent_id=bot)

    after = rows(ids)
    assert after[bad] == ("processing", 1)  # left claimed for the relay, like a single event
    good = [i for i in ids if i != bad]
    assert {after[i][0] for i in good} <= FINISHED
    assert {after[i][1] for i in good} == {1}  # the one-by-one pass reused the batch's claims
    # The rolled-back batch wrote nothing: each good event is reflected exactly once.
    assert reflect_runs(ids) == dict.fromkeys(good, 1)


def test_a_database_fault_hands_every_claim_back(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    with monkeypatch.context() as patch:
        judge_raising(patch, ids[3], lambda: OperationalError("stmt", {}, Exception("boom")))
        with pytest.raises(OperationalError):
            reflect_pending(event_id=ids[0], agent_id=bot)

    # Back to pending at once, the attempt counted (a batch failing the same way every time
    # ends dead after DIGEST_MAX_EVENT_ATTEMPTS instead of looping).
    assert rows(ids) == dict.fromkeys(ids, ("pending", 1))
    assert reflect_runs(ids) == {}
    with session_scope() as session:
        assert session.scalar(select(func.count()).where(Lesson.agent_id == bot)) == 0

    results = reflect_pending(event_id=ids[0], agent_id=bot)
    assert sorted(r.event_id for r in results) == ids
    assert rows(ids) == dict.fromkeys(ids, ("reflected", 2))
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)


# --- how much one task claims ------------------------------------------------------------------


def test_a_remote_model_claims_one_event_and_names_the_next(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    ids = answers(tenant, "remote", 4)
    remote = agent_id_of(tenant, "remote")
    with session_scope() as session:
        agent = session.get(Agent, remote)
        assert agent is not None
        agent.llm_model = "openai/gpt-4o-mini"

    batch = claim_batch(ids[0], remote, get_settings())  # claims only: no model is called

    assert not batch.in_process
    assert [c.event_id for c in batch.claimed] == [ids[0]] and batch.results == []
    assert batch.next_pending == ids[1]
    assert rows(ids) == {ids[0]: ("processing", 1)} | dict.fromkeys(ids[1:], ("pending", 0))


def test_offline_models_claim_up_to_the_batch_size(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")

    everything = claim_batch(ids[1], bot, get_settings())
    assert everything.in_process and everything.next_pending is None
    assert [c.event_id for c in everything.claimed] == ids

    more = answers(tenant, "bot", 4, topic="More")
    with_batch_size(monkeypatch, 3)
    # Its own event is already claimed: the task still takes the agent's other pending ones.
    capped = claim_batch(ids[0], bot, get_settings())
    assert [(r.event_id, r.status) for r in capped.results] == [(ids[0], "in_progress")]
    assert [c.event_id for c in capped.claimed] == more[:3]
    assert capped.next_pending == more[3]


# --- a real worker -----------------------------------------------------------------------------


def test_a_real_worker_reflects_every_captured_event_exactly_once(
    start_worker: Any, tenant: str
) -> None:
    # A small batch size: each agent's backlog also goes through messages passed on.
    worker = start_worker(concurrency=2, DIGEST_REFLECT_BATCH_SIZE="4")
    agents = ["alpha", "beta", "gamma"]
    ids: list[int] = []
    for i in range(10):
        for agent in agents:
            if i % 3 == 0:
                ids.append(refund_run(tenant, agent, f"9{i}"))
            else:
                ids.append(
                    digest.record_answer(
                        tenant, agent, question=f"Fact {i} for {agent}?", answer=f"It is {i}."
                    )
                )
    assert len(ids) == 30

    for event_id in ids:
        wait_for_event(event_id, DONE, timeout=60)

    after = statuses(ids)
    assert set(after.values()) <= FINISHED, (after, worker.log()[-3000:])
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)


# --- a message delivered again takes back its dead run's claims --------------------------------


def test_a_second_delivery_of_one_message_takes_back_its_claims_at_once(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    ids = answers(tenant, "bot", 3)
    bot = agent_id_of(tenant, "bot")
    settings = get_settings()
    first = claim_batch(ids[0], bot, settings, delivery="task-1")
    assert [c.event_id for c in first.claimed] == ids  # then its worker process died

    # Another message (another task id) must leave live-looking claims alone ...
    other = claim_batch(ids[0], bot, settings, delivery="task-2")
    assert other.claimed == [] and [r.status for r in other.results] == ["in_progress"]
    # ... but the same message, delivered again, takes all of them back without waiting for
    # the claims to go stale.
    again = claim_batch(ids[0], bot, settings, delivery="task-1")
    assert [c.event_id for c in again.claimed] == ids
    assert rows(ids) == dict.fromkeys(ids, ("processing", 2))


def test_a_worker_runs_a_redelivered_message_whose_first_run_died(
    services_env: dict[str, str], start_worker: Any, tenant: str
) -> None:
    ids = answers(tenant, "bot", 2)
    bot = agent_id_of(tenant, "bot")
    settings = get_settings()
    claim_batch(ids[0], bot, settings, delivery="dead-run")  # fresh claims, far from stale
    worker = start_worker(concurrency=1)
    # The message as Celery re-queues it: same task id as the run that died.
    message = json.loads(publish.celery_message(TASK_REFLECT_EVENT, [ids[0], bot], settings.queue))
    message["headers"]["id"] = message["headers"]["root_id"] = "dead-run"
    message["properties"]["correlation_id"] = "dead-run"
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).lpush(
        settings.queue, json.dumps(message)
    )

    for event_id in ids:
        wait_for_event(event_id, DONE, timeout=60)
    assert set(statuses(ids).values()) <= FINISHED, worker.log()[-3000:]
    assert "redelivered_claim_taken_over" in worker.log()


def test_a_batch_that_raises_still_passes_the_rest_on(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    release_reflect_slot(bot)  # as the task does: capture's message is the one being run
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).delete(own_queue)
    with_batch_size(monkeypatch, 3)
    judge_raising(monkeypatch, ids[1], lambda: RuntimeError("judge broke"))

    with pytest.raises(RuntimeError, match="judge broke"):
        reflect_pending(event_id=ids[0], agent_id=bot)

    # The two events after the batch are not left waiting for the relay.
    assert reflect_messages(services_env["DIGEST_BROKER_URL"], own_queue) == [[ids[3], bot]]
    assert statuses(ids[3:]) == dict.fromkeys(ids[3:], "pending")
