"""digest.pipeline, more (the lead's tests/test_pipeline.py holds the rest): what one
``reflect_pending`` call takes on with a broker (PostgreSQL + Redis, no worker: the messages are
counted in Redis). One message reflects the agent's whole backlog up to a batch, the rest is
passed on in one message, also when the batch raised.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis

from digest.config import get_settings
from digest.outbox.publish import TASK_REFLECT, release_reflect_slot
from digest.pipeline import reflect_pending
from tests.conftest import (
    FINISHED,
    agent_id_of,
    event_statuses,
    judge_raising,
    owner_answers,
    queued_tasks,
    reflect_messages,
    reflect_runs,
    with_batch_size,
)


def take_message(broker: str, queue: str) -> list[Any]:
    """Pop the oldest message, as a worker would, and return its args."""
    [(task, args)] = queued_tasks(broker, queue)[:1]
    assert task == TASK_REFLECT
    redis.Redis.from_url(broker).rpop(queue)
    return args


# --- one message, the agent's whole backlog ----------------------------------------------------


def test_one_message_reflects_all_pending_events_of_its_agent_only(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    ids = owner_answers(tenant, "bot", 6)
    untouched = owner_answers(tenant, "other", 2)
    bot = agent_id_of(tenant, "bot")
    assert take_message(broker, own_queue) == [ids[0], bot]

    results = reflect_pending(event_id=ids[0], agent_id=bot)

    assert sorted(r.event_id for r in results) == ids
    assert {r.status for r in results} <= FINISHED
    assert set(event_statuses(ids).values()) <= FINISHED
    assert reflect_runs(ids) == dict.fromkeys(ids, 1)
    assert event_statuses(untouched) == dict.fromkeys(untouched, "pending")
    # Nothing was left over, so nothing was passed on; the other agent's message still waits.
    other = agent_id_of(tenant, "other")
    assert reflect_messages(broker, own_queue) == [[untouched[0], other]]


def test_batch_size_is_honoured_and_the_rest_is_passed_on_in_one_message(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_batch_size(monkeypatch, 3)
    assert get_settings().reflect_batch_size == 3
    broker = services_env["DIGEST_BROKER_URL"]
    ids = owner_answers(tenant, "bot", 7)
    bot = agent_id_of(tenant, "bot")
    assert take_message(broker, own_queue) == [ids[0], bot]

    results = reflect_pending(event_id=ids[0], agent_id=bot)

    assert sorted(r.event_id for r in results) == ids[:3]
    after = event_statuses(ids)
    assert {after[i] for i in ids[:3]} <= FINISHED
    assert [after[i] for i in ids[3:]] == ["pending"] * 4
    # One message for the rest, naming the oldest event left (still pending, asserted above).
    assert reflect_messages(broker, own_queue) == [[ids[3], bot]]


def test_a_batch_that_raises_still_passes_the_rest_on(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    release_reflect_slot(bot)  # as the task does: capture's message is the one being run
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).delete(own_queue)
    with_batch_size(monkeypatch, 3)
    judge_raising(monkeypatch, ids[1], lambda: RuntimeError("judge broke"))

    results = reflect_pending(event_id=ids[0], agent_id=bot)
    assert {r.event_id: r.status for r in results} == {
        ids[0]: "reflected",
        ids[1]: "error",
        ids[2]: "reflected",
    }

    # The two events after the batch are not left waiting for the relay.
    assert reflect_messages(services_env["DIGEST_BROKER_URL"], own_queue) == [[ids[3], bot]]
    assert event_statuses(ids[3:]) == dict.fromkeys(ids[3:], "pending")
