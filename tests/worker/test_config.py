"""The worker sends Celery task events, which is what Flower and Prometheus exporters read."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from celery import Celery

import digest
from tests.conftest import wait_for_event

pytestmark = pytest.mark.services


def test_a_reflect_task_is_seen_by_an_event_monitor(
    start_worker: Any, services_env: dict[str, str], tenant: str
) -> None:
    monitor = Celery(broker=services_env["DIGEST_BROKER_URL"])
    seen: list[dict[str, Any]] = []
    ready = threading.Event()
    stop = threading.Event()

    def listen() -> None:
        with monitor.connection_for_read() as connection:
            receiver = monitor.events.Receiver(connection, handlers={"*": seen.append}, app=monitor)
            ready.set()
            while not stop.is_set():
                # capture() drains for `timeout` seconds, then raises socket.timeout; the
                # wakeup lets the loop notice `stop`.
                receiver.should_stop = False
                try:
                    receiver.capture(limit=None, timeout=0.5, wakeup=True)
                except TimeoutError:
                    continue

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(10)
    start_worker()
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
        if succeeded and "digest.reflect_event" in names:
            break
        time.sleep(0.2)
    stop.set()
    thread.join(timeout=5)
    assert "digest.reflect_event" in names, [e.get("type") for e in seen]
    assert any(e.get("type") == "task-succeeded" for e in seen)
