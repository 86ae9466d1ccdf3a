"""digest.outbox.relay: the relay re-publishes what a lost message would strand (a backlog is
not re-queued, a lost queue is replayed), and ``requeue_events`` sends failed events back
through a real broker and worker. (Broker outages end to end: tests/test_faults.py.)"""

from __future__ import annotations

from typing import Any

import redis
from sqlalchemy import update

import digest
from digest.db import session_scope
from digest.models import Event
from digest.outbox.relay import requeue_events
from tests.conftest import wait_for_event


def test_requeued_events_are_published_and_reflected(
    start_worker: Any, services_env: dict[str, str], tenant: str
) -> None:
    first = digest.record_run(tenant, "bot", task="refund 1", outcome="failure", error="no amount")
    other = digest.record_run(tenant, "other", task="refund 2", outcome="failure", error="x")
    # Mark both as a model outage would have left them (no worker has seen them yet).
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id.in_([first, other]))
            .values(status="failed", attempts=3, last_error="LLMTransientError: 503")
        )
    # Forget the capture-time messages, so only requeue's own publish can reach the worker.
    broker = redis.Redis.from_url(services_env["DIGEST_BROKER_URL"])
    broker.delete(services_env["DIGEST_QUEUE"])
    assert requeue_events(tenant, "bot") == [first]
    assert broker.llen(services_env["DIGEST_QUEUE"]) == 1

    start_worker()
    row = wait_for_event(first, {"reflected", "skipped", "failed", "dead"})
    assert row["status"] == "reflected", row
    with session_scope() as session:
        untouched = session.get(Event, other)
        assert untouched is not None and untouched.status == "failed", "another agent's event"


def test_relay_does_not_requeue_a_backlog_but_replays_a_lost_queue(
    services_env: dict[str, str], own_database: str, tenant: str
) -> None:
    from datetime import timedelta

    from digest.config import get_settings
    from digest.models import utcnow
    from digest.outbox.relay import relay_pending

    broker = redis.Redis.from_url(services_env["DIGEST_BROKER_URL"])
    queue = services_env["DIGEST_QUEUE"]
    broker.delete(queue)  # the module's queue may hold what an earlier test's worker put back
    ids = [
        digest.record_run(tenant, "bot", task=f"refund {n}", outcome="failure", error="no amount")
        for n in range(3)
    ]
    never_published = digest.record_run(tenant, "bot", task="x", outcome="failure", error="y")
    long_ago = utcnow() - timedelta(hours=1)
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id.in_(ids))
            .values(created_at=long_ago, published_at=long_ago)
        )
        session.execute(
            update(Event)
            .where(Event.id == never_published)
            .values(created_at=long_ago, published_at=None)
        )
    settings = get_settings()
    # The capture-time message, no worker running: one for the agent's four events (coalesced).
    assert broker.llen(queue) == 1

    # A backlog: the published events' message is still waiting; only the unpublished one is
    # sent again.
    assert relay_pending(settings) == [never_published]
    assert broker.llen(queue) == 2

    # Redis lost its queue: now every stranded event is replayed.
    broker.delete(queue)
    with session_scope() as session:
        session.execute(
            update(Event).where(Event.id == never_published).values(published_at=long_ago)
        )
    assert sorted(relay_pending(settings)) == sorted([*ids, never_published])
    assert broker.llen(queue) == 4
