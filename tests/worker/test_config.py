"""worker.config: the Celery settings derived from digest's settings (DESIGN §6): at-least-once
delivery, time limits, a visibility timeout above them, the beat schedule, task events for
Flower; and real workers on the configured pool (threads, the production shape) sending the
events an event monitor reads."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from celery import Celery

import digest
from digest.config import Settings
from digest.errors import ConfigError
from tests.conftest import DONE, WorkerProcess, wait_for_event, wait_until
from worker.config import DEFAULT_BROKER_URL, celery_config, sweep_schedule


def test_the_reliability_contract() -> None:
    config = celery_config(Settings(broker_url="redis://cache:6379/3", queue="digest-q"))
    assert config["broker_url"] == "redis://cache:6379/3"
    assert config["task_default_queue"] == "digest-q"
    assert config["task_acks_late"] and config["task_reject_on_worker_lost"]
    assert config["worker_prefetch_multiplier"] == 1
    assert config["task_ignore_result"] and config["result_backend"] is None
    assert (config["task_soft_time_limit"], config["task_time_limit"]) == (540, 600)
    transport = config["broker_transport_options"]
    assert transport["visibility_timeout"] > config["task_time_limit"]
    assert config["worker_send_task_events"] and config["task_send_sent_event"]
    assert "worker_pool" not in config and "worker_concurrency" not in config


def test_the_pool_and_concurrency_come_from_the_settings() -> None:
    config = celery_config(Settings(worker_pool="threads", worker_concurrency=16))
    assert (config["worker_pool"], config["worker_concurrency"]) == ("threads", 16)
    assert celery_config(Settings(broker_url=None))["broker_url"] == DEFAULT_BROKER_URL


def test_beat_relays_every_interval_and_sweeps_weekly() -> None:
    schedule = celery_config(Settings(relay_interval_s=30, sweep_cron="15 4 * * 0"))[
        "beat_schedule"
    ]
    relay, sweep = schedule["relay-pending"], schedule["weekly-sweep"]
    assert (relay["task"], relay["schedule"]) == ("digest.relay_pending", timedelta(seconds=30))
    assert relay["options"] == {"expires": 30}
    assert sweep["task"] == "digest.weekly_sweep"
    assert sweep["schedule"] == sweep_schedule("15 4 * * 0")


def test_beat_keeps_its_schedule_file_out_of_the_checkout() -> None:
    from pathlib import Path

    from tests.conftest import ROOT

    where = Path(celery_config(Settings())["beat_schedule_filename"])
    assert where.is_absolute() and ROOT not in where.parents  # issue 26 point 7


def test_a_crontab_needs_five_fields() -> None:
    cron = sweep_schedule("0 3 * * 1")
    assert cron.minute == {0} and cron.hour == {3} and cron.day_of_week == {1}
    with pytest.raises(ConfigError, match="DIGEST_SWEEP_CRON"):
        sweep_schedule("0 3 * *")


def test_a_reflect_task_is_seen_by_an_event_monitor(
    shared_worker: WorkerProcess, services_env: dict[str, str], tenant: str
) -> None:
    monitor = Celery(broker=services_env["DIGEST_BROKER_URL"])
    seen: list[dict[str, Any]] = []
    receivers: list[Any] = []
    ready = threading.Event()

    def listen() -> None:
        with monitor.connection_for_read() as connection:
            receiver = monitor.events.Receiver(connection, handlers={"*": seen.append}, app=monitor)
            receivers.append(receiver)
            ready.set()
            # One consumer for the whole test, stopped by ``should_stop`` (checked every second
            # of silence). A capture() with a timeout cancels its subscription when it returns,
            # and what the worker publishes before the next capture subscribes is lost (Redis
            # pub/sub keeps nothing): a reflect task's events, sent within a few milliseconds,
            # could all fall in such a gap.
            receiver.capture(limit=None, timeout=None, wakeup=False)

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(10)
    # The receiver exists before it subscribes, and an event sent before that is lost to it
    # (a fast worker's task-received was): it listens once it has heard an event of our own,
    # sent until it arrives (the worker's heartbeats are not a signal to rely on: a loaded
    # host delays them, and a worker may run without them).
    with monitor.connection_for_write() as connection:
        probe = monitor.events.Dispatcher(connection, enabled=True)

        def heard() -> bool:
            probe.send("digest-test-probe")
            return any(e.get("type") == "digest-test-probe" for e in seen)

        wait_until(heard, 30, "the monitor hearing its own probe event")
    event_id = digest.record_run(
        tenant, "bot", task="refund order 7", outcome="failure", error="amount is required"
    )
    wait_for_event(event_id, {"reflected"})

    deadline = time.monotonic() + 15
    names: set[str] = set()
    while time.monotonic() < deadline:
        succeeded = [
            e for e in seen if e.get("type") == "task-succeeded" and e.get("uuid") is not None
        ]
        names = {
            e.get("name", "") for e in seen if e.get("type") in {"task-received", "task-started"}
        }
        if succeeded and "digest.reflect_batch" in names:
            break
        time.sleep(0.2)
    receivers[0].should_stop = True
    thread.join(timeout=5)
    assert "digest.reflect_batch" in names, [e.get("type") for e in seen]
    assert any(e.get("type") == "task-succeeded" for e in seen)


def test_a_threads_pool_worker_reflects_a_stream(
    start_worker: Callable[..., WorkerProcess], services_env: dict[str, str], tenant: str
) -> None:
    worker = start_worker(8, pool="threads")
    ids = [
        digest.record_run(
            tenant, f"bot-{i % 3}", task=f"refund {i}", outcome="failure",
            tool_calls=[{"tool": "refund", "args": {"n": i % 5}, "ok": False,
                         "error": f"amount {i % 5} is required"}],
        )
        for i in range(30)
    ]  # fmt: skip
    rows = [wait_for_event(i, DONE, timeout=60) for i in ids]
    assert {r["status"] for r in rows} == {"reflected"}, worker.log()[-2000:]
    assert "concurrency: 8 (thread)" in worker.log()
