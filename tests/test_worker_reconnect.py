"""A worker outlives its broker going away while it holds a task (DESIGN §6).

When Redis stops, a worker that runs a task (its message unacknowledged) and waits for the
next message (a ``BRPOP`` in flight, prefetch not used up) must reconnect once Redis is back
and take new messages. The flake this pins down (``test_fault_suite``'s Redis outage, seen once
in a full run): the consumer's teardown raised ``AttributeError`` out of kombu's put-back of
unacknowledged messages ("Unrecoverable error"), the worker shut down, and every event
captured from then on stayed ``pending``.

The task is held deterministically: its model (a loopback server) does not answer until the
test lets it, so the worker holds exactly one unacknowledged message, with room for another,
when Redis stops.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from digest.db import session_scope
from digest.models import Event
from tests.conftest import WorkerProcess, llm_env, spawn_worker, wait_until
from tests.fake_llm import HandlerLLM
from tests.test_fault_suite import (  # noqa: F401  (private_redis: a fixture)
    PrivateRedis,
    capture,
    point_here,
    private_redis,
)

SKIP = "<skip>nothing general to learn</skip>"


class HeldModel:
    """A model that answers only once the test lets it (at most a minute)."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.go = threading.Event()
        self.server = HandlerLLM(self._answer)

    def _answer(self, _messages: list[dict[str, Any]]) -> str:
        self.asked.set()
        self.go.wait(60)
        return SKIP


def status_of(url: str, event_id: int) -> str:
    with session_scope(url) as session:
        return str(session.scalars(select(Event.status).where(Event.id == event_id)).one())


def test_worker_takes_new_messages_after_redis_restarts_while_a_task_runs(
    pg_url: str,
    tenant: str,
    private_redis: PrivateRedis,  # noqa: F811  (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    model = HeldModel()
    model.server.start()
    queue = f"digest-reconnect-{uuid.uuid4().hex[:8]}"
    env = {
        **llm_env(pg_url, private_redis.url, queue, model.server.api_base),
        "DIGEST_LLM_TIMEOUT_S": "60",
        "DIGEST_LLM_MAX_ATTEMPTS": "1",
    }
    point_here(env, monkeypatch)
    worker: WorkerProcess | None = None
    try:
        worker = spawn_worker(env, tmp_path / "worker.log", concurrency=2)
        failure = {"task": "sync the ledger", "outcome": "failure", "error": "ledger locked"}
        held = capture(tenant, "run_outcome", {**failure, "idempotency_key": "held"})
        # one task running (its message unacknowledged), the consumer waiting for the next
        assert model.asked.wait(60), "the held task never asked its model"
        private_redis.stop()
        wait_until(lambda: "Connection to broker lost" in worker.log(), 30, "the lost broker")
        private_redis.start()
        model.go.set()
        wait_until(lambda: status_of(pg_url, held) == "skipped", 60, "the held task's end")
        # a message sent after the restart reaches the same worker
        after = capture(tenant, "run_outcome", {**failure, "idempotency_key": "after"})
        wait_until(
            lambda: status_of(pg_url, after) == "skipped" or worker.proc.poll() is not None,
            90,
            "the event captured after the restart",
        )
        log = worker.log()
        assert worker.proc.poll() is None, log[-3000:]
        assert "Unrecoverable error" not in log, log[-3000:]
        assert status_of(pg_url, after) == "skipped"
    finally:
        model.go.set()
        if worker is not None:
            worker.kill()
        model.server.stop()
