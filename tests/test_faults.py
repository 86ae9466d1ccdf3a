"""Faults lose nothing, end to end: a dead broker (capture returns fast; the relay, its task
and beat deliver later), a worker killed mid-task (a new one finishes, no duplicate). A
cross-cutting suite (capture, outbox, worker, reflection); the long soak is
tests/test_fault_suite.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

import digest
from digest.config import get_settings
from digest.outbox.publish import TASK_REFLECT
from tests.conftest import (
    CLOSED_PORT_BROKER,
    DONE,
    WorkerProcess,
    _reset_process_state,
    answer_while_broker_down,
    event_statuses,
    lessons_for_event,
    wait_for_event,
    wait_until,
)
from tests.fake_llm import LESSON, FakeLLM


@pytest.fixture()
def fake_llm() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    yield server
    server.stop()


def worker_idle(worker: WorkerProcess, env: dict[str, str]) -> bool:
    """No message waits in the queue, and every reflect task the worker took has ended (the
    queue is read first: a message taken after that shows in the log, read after it)."""
    waiting = redis.Redis.from_url(env["DIGEST_BROKER_URL"]).llen(env["DIGEST_QUEUE"])
    return waiting == 0 and not worker.tasks_in_flight(TASK_REFLECT)


def test_broker_unreachable_capture_returns_fast_and_relay_delivers_later(
    services_env: dict[str, str],
    own_database: str,
    start_worker: Any,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The relay below reads the whole database: one of the test's own holds only its events
    (other tests' stranded events would go to its worker too)."""
    monkeypatch.setenv("DIGEST_BROKER_URL", CLOSED_PORT_BROKER)
    _reset_process_state()
    started = time.monotonic()
    event_id = digest.record_run(
        tenant, "bot", task="refund order 7", outcome="failure",
        tool_calls=[{"tool": "issue_refund", "ok": False, "error": "amount is required"}],
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert elapsed < 2.0, f"capture took {elapsed:.2f} s with the broker down"
    # A second capture inside the back-off window does not even try the broker.
    started = time.monotonic()
    second = digest.record_answer(tenant, "bot", question="Open on Sunday?", answer="No.")
    assert time.monotonic() - started < 0.5
    assert wait_for_event(event_id, {"pending"}, timeout=1)["status"] == "pending"

    # The broker is back; a worker runs; the relay finds the stranded events and publishes them.
    monkeypatch.setenv("DIGEST_BROKER_URL", services_env["DIGEST_BROKER_URL"])
    monkeypatch.setenv("DIGEST_RELAY_PENDING_AGE_S", "0")
    _reset_process_state()
    worker = start_worker(DIGEST_DATABASE_URL=own_database)
    # Nothing was published: the events stay pending while a worker runs (tests/edges/
    # test_heal.py covers the relay a worker runs when it connects). Proof that it had its
    # chance: a later answer of another agent is reflected, then the queue is empty and every
    # reflect task the worker took has ended.
    later = digest.record_answer(tenant, "other-bot", question="Open on Monday?", answer="Yes.")
    assert wait_for_event(later, DONE)["status"] == "reflected"
    wait_until(lambda: worker_idle(worker, services_env), 30, "an idle worker")
    assert event_statuses([event_id, second]) == {event_id: "pending", second: "pending"}
    from digest.outbox.relay import relay_pending

    published = relay_pending()
    assert {event_id, second} <= set(published)
    assert wait_for_event(event_id, DONE)["status"] == "reflected"
    assert wait_for_event(second, DONE)["status"] == "reflected"
    assert len(lessons_for_event(event_id)) == 1
    # Published rows are stamped, so the next relay run does not publish them again.
    assert event_id not in relay_pending()


def test_relay_task_runs_in_the_worker(
    services_env: dict[str, str],
    start_worker: Any,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The beat entry's task, sent by name, relays stranded events inside a worker."""
    from digest.outbox.publish import TASK_RELAY_PENDING, publish_task

    event_id = answer_while_broker_down(
        tenant, monkeypatch, services_env["DIGEST_BROKER_URL"], "Loyalty points?"
    )
    start_worker(DIGEST_RELAY_PENDING_AGE_S="0")
    assert publish_task(TASK_RELAY_PENDING, [])
    # the worker's first pool child may still be importing (10 s and more on a busy host)
    assert wait_for_event(event_id, DONE, timeout=60)["status"] == "reflected"


def test_worker_killed_mid_task_new_worker_finishes_without_duplicates(
    services_env: dict[str, str],
    start_worker: Any,
    fake_llm: FakeLLM,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # First request hangs (the worker is killed meanwhile); the next one answers at once.
    marker = fake_llm.script("killed", ("sleep", 30, LESSON), ("reply", LESSON))
    limits = {
        "DIGEST_LLM_MODEL": "openai/fake",
        "DIGEST_LLM_API_BASE": fake_llm.api_base,
        "DIGEST_LLM_TIMEOUT_S": "2",
        # one 2 s call per step, no waits: a 4 s model budget in a 5 s soft limit
        "DIGEST_LLM_MAX_ATTEMPTS": "1",
        "DIGEST_LLM_SLOT_WAIT_S": "0",
        "DIGEST_TASK_SOFT_TIME_LIMIT_S": "5",
        "DIGEST_TASK_TIME_LIMIT_S": "6",
        "DIGEST_PROCESSING_GRACE_S": "0",
    }
    first = start_worker(**limits)
    event_id = digest.record_run(
        tenant, "bot", task=f"refund {marker}", outcome="failure",
        tool_calls=[{"tool": "issue_refund", "ok": False, "error": "amount is required"}],
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while fake_llm.count("killed") < 1:
        assert time.monotonic() < deadline, first.log()[-2000:]
        time.sleep(0.1)
    assert wait_for_event(event_id, {"processing"}, timeout=5)["attempts"] == 1
    first.kill()

    second = start_worker(**limits)
    # The relay takes over a claim once it is older than the hard limit (+ grace 0 here).
    for key, value in limits.items():
        monkeypatch.setenv(key, value)
    _reset_process_state()
    from digest.outbox.relay import relay_pending

    # (The second worker's own relay on connect may be the one that does, if its start took
    # longer than the claim's 6 s.)
    deadline = time.monotonic() + 60
    while event_statuses([event_id])[event_id] == "processing":
        assert time.monotonic() < deadline, "no relay ever took over the stale claim"
        time.sleep(1.0)
        relay_pending(get_settings())
    row = wait_for_event(event_id, DONE, timeout=30)
    assert row["status"] == "reflected", (row, second.log()[-2000:])
    assert row["attempts"] == 2
    assert fake_llm.count("killed") == 2
    assert len(lessons_for_event(event_id)) == 1


def test_beat_schedules_the_relay(
    services_env: dict[str, str],
    start_worker: Any,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
) -> None:
    """`celery -A worker beat` starts and its schedule relays stranded events on its own."""
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    event_id = answer_while_broker_down(
        tenant, monkeypatch, services_env["DIGEST_BROKER_URL"], "Parking?"
    )
    fast = {"DIGEST_RELAY_PENDING_AGE_S": "0", "DIGEST_RELAY_INTERVAL_S": "1"}
    start_worker(**fast)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(services_env, **fast)
    log = (tmp_path / "beat.log").open("wb")
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "worker", "beat", "--loglevel=INFO",
         "-s", str(tmp_path / "beat-schedule")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        assert wait_for_event(event_id, DONE, timeout=30)["status"] == "reflected"
        assert beat.poll() is None, (tmp_path / "beat.log").read_text()
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=10)
