"""The one core in a held transaction (``digest.reflect.core.Held``, driven by
``digest.reflect.batch``): several claimed events of one agent whose models answer in process,
judged, reconciled and written in one transaction under the agent's lesson lock (PostgreSQL).

A batch leaves the same bank as one event at a time; a bad event fails alone (a model fault is
its own failure, a bug or a data error is found by running the events one by one); a database
fault rolls back and hands every claim back; a real worker reflects every event exactly once.
Faults come from a scripted model (``judge_raising``), not from patched functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

import digest
from digest.db import session_scope
from digest.errors import LLMError, LLMTransientError
from digest.model.scripted import event_of, rules, step_of
from digest.models import DigestRun, Lesson, LessonEvidence, LessonHistory
from digest.pipeline import reflect_event, reflect_pending
from digest.tenants import find_agent
from tests.conftest import (
    DONE,
    FINISHED,
    agent_id_of,
    event_rows,
    event_statuses,
    judge_raising,
    owner_answers,
    reflect_runs,
    wait_for_event,
)

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
        "statuses": [event_statuses(ids)[i] for i in ids],
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
    ids = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    bad = ids[2]
    judge_raising(monkeypatch, bad, error)

    results = reflect_pending(event_id=ids[0], agent_id=bot)

    after = event_rows(ids)
    assert after[bad] == ("processing", 1)  # left claimed for the relay, like a single event
    good = [i for i in ids if i != bad]
    assert {after[i][0] for i in good} <= FINISHED
    assert {after[i][1] for i in good} == {1}  # the one-by-one pass reused the batch's claims
    # The rolled-back batch wrote nothing: each good event is reflected exactly once.
    assert reflect_runs(ids) == dict.fromkeys(good, 1)
    # Every event is reported, as the database has it: the good ones with their lessons, the
    # bad one as an error naming its tenant, agent and exception (drain counts both).
    by_event = {r.event_id: r for r in results}
    assert sorted(by_event) == ids
    assert {i: by_event[i].status for i in good} == {i: after[i][0] for i in good}
    assert all(by_event[i].lesson_ids for i in good)
    assert by_event[bad].status == "error"
    assert by_event[bad].reason == (
        f"reflecting {tenant}/bot raised {type(error()).__name__}: " + str(error()).splitlines()[0]
    )


def test_a_fault_in_the_one_by_one_pass_hands_the_unfinished_claims_back(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad event sends the batch one by one; the database then fails on a later event: the
    events already reflected stay reflected, the rest go back to pending, the fault is
    raised (the task retries), and the next run reflects them."""
    ids = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    bad, faulty = ids[1], ids[3]

    def handler(messages: list[dict[str, Any]]) -> str:
        event = event_of(messages)
        if event is not None and event["id"] == bad:
            raise RuntimeError("judge broke")  # the batch stops here, before `faulty`
        if event is not None and event["id"] == faulty:
            raise OperationalError("stmt", {}, Exception("connection lost"))
        return rules(messages)

    model = judge_raising(monkeypatch, bad, lambda: RuntimeError("unused"))
    model.handler = handler
    with pytest.raises(OperationalError):
        reflect_pending(event_id=ids[0], agent_id=bot)

    after = event_rows(ids)
    assert after[ids[0]][0] in FINISHED and after[ids[2]][0] in FINISHED
    assert after[bad] == ("processing", 1)  # raised before the fault: left for the relay
    assert {after[faulty], after[ids[4]]} == {("pending", 1)}  # handed back at once
    assert reflect_runs(ids) == {ids[0]: 1, ids[2]: 1}

    model.handler = rules
    results = reflect_pending(event_id=faulty, agent_id=bot)
    assert sorted(r.event_id for r in results) == [faulty, ids[4]]
    assert {r.status for r in results} == {"reflected"}


def test_a_database_fault_hands_every_claim_back(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    model = judge_raising(
        monkeypatch, ids[3], lambda: OperationalError("stmt", {}, Exception("boom"))
    )
    with pytest.raises(OperationalError):
        reflect_pending(event_id=ids[0], agent_id=bot)

    # Back to pending at once, the attempt counted (a batch failing the same way every time
    # ends dead after DIGEST_MAX_EVENT_ATTEMPTS instead of looping).
    assert event_rows(ids) == dict.fromkeys(ids, ("pending", 1))
    assert reflect_runs(ids) == {}
    with session_scope() as session:
        assert session.scalar(select(func.count()).where(Lesson.agent_id == bot)) == 0

    model.handler = rules  # the fault is gone: the next run takes every event back
    results = reflect_pending(event_id=ids[0], agent_id=bot)
    assert sorted(r.event_id for r in results) == ids
    assert event_rows(ids) == dict.fromkeys(ids, ("reflected", 2))
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)


def test_a_model_fault_puts_its_event_back_inside_the_batch(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_LLM_RETRY_WAIT_MAX_S", "0")
    ids = owner_answers(tenant, "bot", 4)
    bad = ids[1]
    model = judge_raising(monkeypatch, bad, lambda: LLMTransientError("503 from the provider"))

    results = reflect_pending(event_id=ids[0], agent_id=agent_id_of(tenant, "bot"))

    assert {r.event_id: r.status for r in results} == {
        i: "waiting" if i == bad else "reflected" for i in ids
    }
    waiting = next(r for r in results if r.event_id == bad)
    assert waiting.reason == "503 from the provider (after 3 model call(s))"
    # One batch: each event judged once, the bad one retried up to DIGEST_LLM_MAX_ATTEMPTS.
    reflect_calls = [step_of(m) for m in model.requests].count("reflect")
    assert reflect_calls == len(ids) - 1 + 3
    # the waiting event's claim is given back: attempts count claims that never finished
    assert event_rows(ids) == {i: ("waiting", 0) if i == bad else ("reflected", 1) for i in ids}
    with session_scope() as session:
        run = session.scalars(select(DigestRun).where(DigestRun.event_id == bad)).one()
    assert run.llm_calls == 3 and run.error == f"waiting: {waiting.reason}"


def test_a_permanent_model_fault_fails_its_event_inside_the_batch(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = owner_answers(tenant, "bot", 3)
    bad = ids[1]
    judge_raising(monkeypatch, bad, lambda: LLMError("400 bad request"))

    results = reflect_pending(event_id=ids[0], agent_id=agent_id_of(tenant, "bot"))

    assert {r.event_id: r.status for r in results} == {
        i: "failed" if i == bad else "reflected" for i in ids
    }
    assert event_rows(ids)[bad] == ("failed", 1)


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

    after = event_statuses(ids)
    assert set(after.values()) <= FINISHED, (after, worker.log()[-3000:])
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)
