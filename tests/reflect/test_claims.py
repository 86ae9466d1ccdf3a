"""digest.reflect.claims: an event moves pending → processing under a row lock before anyone
judges it, and a batch claims an agent's oldest pending events together.

What a claim refuses (finished events, live claims elsewhere) and takes over (stale claims, the
claims of an earlier delivery of the same message), how much one task claims (a batch with
models in process, one event with a remote model), and a real worker running a redelivered
message.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
import redis
from sqlalchemy import update

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.models import Agent, Event, utcnow
from digest.outbox import publish
from digest.outbox.publish import TASK_REFLECT
from digest.reflect.claims import Claimed, ReflectResult, claim_batch
from tests.conftest import (
    DONE,
    FINISHED,
    agent_id_of,
    event_rows,
    event_statuses,
    owner_answers,
    wait_for_event,
    with_batch_size,
)
from tests.reflect.helpers import claim_one

# --- one event (the embedded SQLite default) ----------------------------------------------------


def _set(event_id: int, **values: Any) -> None:
    with session_scope() as session:
        session.execute(update(Event).where(Event.id == event_id).values(**values))


def test_a_claim_takes_the_event_and_carries_what_judging_needs(
    sqlite_env: str, tenant: str
) -> None:
    event_id = digest.record_edit(
        tenant, "bot", original="We ship tomorrow.", final="We ship in 3 days.", contact_id="c-1"
    )
    claimed = claim_one(event_id, get_settings())
    assert isinstance(claimed, Claimed)
    assert (claimed.event_id, claimed.attempt, claimed.kind, claimed.trust) == (
        event_id, 1, "operator_edit", "high",
    )  # fmt: skip
    assert (claimed.tenant, claimed.agent, claimed.contact_id) == (tenant, "bot", "c-1")
    assert claimed.promote_at == get_settings().promotion_contacts
    # Measured here, off the agent's hot path.
    assert claimed.edit_distance is not None and 0 < (claimed.edit_ratio or 0) < 1
    assert event_rows([event_id]) == {event_id: ("processing", 1)}


def test_a_finished_event_or_a_live_claim_is_left_alone(sqlite_env: str, tenant: str) -> None:
    done, live = owner_answers(tenant, "bot", 2)
    _set(done, status="reflected")
    assert claim_one(done, get_settings()) == ReflectResult(done, "already_done", "reflected")
    assert isinstance(claim_one(live, get_settings()), Claimed)
    again = claim_one(live, get_settings())
    assert isinstance(again, ReflectResult) and again.status == "in_progress"
    assert claim_one(10**9, get_settings()) == ReflectResult(10**9, "missing", "no such event")


def test_a_stale_claim_is_taken_over(sqlite_env: str, tenant: str) -> None:
    [event_id] = owner_answers(tenant, "bot", 1)
    assert isinstance(claim_one(event_id, get_settings()), Claimed)
    long_ago = utcnow() - timedelta(seconds=get_settings().processing_stale_after_s + 1)
    _set(event_id, processing_started_at=long_ago)  # its worker died
    taken = claim_one(event_id, get_settings())
    assert isinstance(taken, Claimed) and taken.attempt == 2


def test_an_event_whose_attempts_ran_out_is_dead(sqlite_env: str, tenant: str) -> None:
    [event_id] = owner_answers(tenant, "bot", 1)
    _set(event_id, attempts=get_settings().max_event_attempts)
    result = claim_one(event_id, get_settings())
    assert isinstance(result, ReflectResult) and result.status == "dead"
    assert "gave up after 5 attempts" in (result.reason or "")
    assert event_statuses([event_id]) == {event_id: "dead"}


# --- how much one task claims ------------------------------------------------------------------


def test_a_remote_model_claims_one_event_and_names_the_next(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    ids = owner_answers(tenant, "remote", 4)
    remote = agent_id_of(tenant, "remote")
    with session_scope() as session:
        agent = session.get(Agent, remote)
        assert agent is not None
        agent.llm_model = "openai/gpt-4o-mini"

    batch = claim_batch(ids[0], remote, get_settings())  # claims only: no model is called

    assert not batch.in_process
    assert [c.event_id for c in batch.claimed] == [ids[0]] and batch.results == []
    assert batch.next_pending == ids[1]
    assert event_rows(ids) == {ids[0]: ("processing", 1)} | dict.fromkeys(ids[1:], ("pending", 0))


def test_offline_models_claim_up_to_the_batch_size(
    services_env: dict[str, str], own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")

    everything = claim_batch(ids[1], bot, get_settings())
    assert everything.in_process and everything.next_pending is None
    assert [c.event_id for c in everything.claimed] == ids

    more = owner_answers(tenant, "bot", 4, topic="More")
    with_batch_size(monkeypatch, 3)
    # Its own event is already claimed: the task still takes the agent's other pending ones.
    capped = claim_batch(ids[0], bot, get_settings())
    assert [(r.event_id, r.status) for r in capped.results] == [(ids[0], "in_progress")]
    assert [c.event_id for c in capped.claimed] == more[:3]
    assert capped.next_pending == more[3]


# --- a message delivered again takes back its dead run's claims --------------------------------


def test_a_second_delivery_of_one_message_takes_back_its_claims_at_once(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    ids = owner_answers(tenant, "bot", 3)
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
    assert event_rows(ids) == dict.fromkeys(ids, ("processing", 2))


def test_a_worker_runs_a_redelivered_message_whose_first_run_died(
    services_env: dict[str, str], start_worker: Any, tenant: str
) -> None:
    ids = owner_answers(tenant, "bot", 2)
    bot = agent_id_of(tenant, "bot")
    settings = get_settings()
    claim_batch(ids[0], bot, settings, delivery="dead-run")  # fresh claims, far from stale
    worker = start_worker(concurrency=1)
    # The message as Celery re-queues it: same task id as the run that died.
    message = json.loads(publish.celery_message(TASK_REFLECT, [ids[0], bot], settings.queue))
    message["headers"]["id"] = message["headers"]["root_id"] = "dead-run"
    message["properties"]["correlation_id"] = "dead-run"
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).lpush(
        settings.queue, json.dumps(message)
    )

    for event_id in ids:
        wait_for_event(event_id, DONE, timeout=60)
    assert set(event_statuses(ids).values()) <= FINISHED, worker.log()[-3000:]
    assert "redelivered_claim_taken_over" in worker.log()
