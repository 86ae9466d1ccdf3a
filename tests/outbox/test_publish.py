"""digest.outbox.publish: the raw publisher. Its messages are the ones kombu writes and a real
worker runs them; a hung broker costs one short socket timeout, then a back-off; capture leaves
one waiting reflect message per agent (its slot) until a task frees it."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

import digest
from digest.capture.api import store_pending
from digest.outbox import publish
from digest.outbox.publish import REFLECT_SLOT_TTL_S, reflect_slot, release_reflect_slot
from tests.conftest import (
    DONE,
    WorkerProcess,
    _reset_process_state,
    agent_id_of,
    event_statuses,
    owner_answers,
    reflect_messages,
    wait_for_event,
)


def _celery_written(redis_url: str, name: str, args: list[Any], **options: Any) -> dict[str, Any]:
    """What Celery's own send_task leaves in Redis for this task (read back with LRANGE)."""
    from celery import Celery

    queue = f"kombu-ref-{uuid.uuid4().hex[:8]}"
    app = Celery("reference", broker=redis_url, set_as_current=False)
    try:
        app.send_task(name, args=args, queue=queue, retry=False, **options)
    finally:
        app.close()
    client = redis.Redis.from_url(redis_url)
    try:
        [raw] = client.lrange(queue, 0, -1)
    finally:
        client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
    return dict(json.loads(raw))


def _ours(name: str, args: list[Any], **options: Any) -> dict[str, Any]:
    return dict(json.loads(publish.celery_message(name, args, "q", **options)))


def _body(message: dict[str, Any]) -> Any:
    assert message["properties"]["body_encoding"] == "base64"
    return json.loads(base64.b64decode(message["body"]))


@pytest.mark.parametrize("countdown", [None, 30.0])
def test_message_has_the_shape_kombu_writes(redis_url: str, countdown: float | None) -> None:
    args = [7, "threshold", "tok"]
    reference = _celery_written(redis_url, "digest.compose_version", args, countdown=countdown)
    ours = _ours("digest.compose_version", args, countdown=countdown)

    assert set(ours) == set(reference)
    assert set(ours["headers"]) == set(reference["headers"])
    # reply_to names the sending app's result channel; a publisher without results has none
    assert set(ours["properties"]) == set(reference["properties"]) - {"reply_to"}
    assert _body(ours) == _body(reference) == [args, {}, publish._EMBED]
    for key in ("content-type", "content-encoding"):
        assert ours[key] == reference[key]
    varying = {"id", "root_id", "eta", "origin"}
    for key, value in reference["headers"].items():
        if key not in varying:
            assert ours["headers"][key] == value, key
    assert ours["headers"]["root_id"] == ours["headers"]["id"]
    for key in ("delivery_mode", "priority", "body_encoding"):
        assert ours["properties"][key] == reference["properties"][key]
    assert ours["properties"]["correlation_id"] == ours["headers"]["id"]
    assert ours["properties"]["delivery_info"] == {"exchange": "", "routing_key": "q"}
    assert reference["properties"]["delivery_info"]["exchange"] == ""
    if countdown is None:
        assert ours["headers"]["eta"] is None is reference["headers"]["eta"]
    else:
        eta = datetime.fromisoformat(ours["headers"]["eta"])
        reference_eta = datetime.fromisoformat(reference["headers"]["eta"])
        assert eta.tzinfo is not None
        assert abs((eta - reference_eta).total_seconds()) < 5


def test_every_message_has_its_own_task_id_and_delivery_tag() -> None:
    first, second = _ours("digest.reflect_batch", [1]), _ours("digest.reflect_batch", [1])
    assert first["headers"]["id"] != second["headers"]["id"]
    assert first["properties"]["delivery_tag"] != second["properties"]["delivery_tag"]


def test_raw_published_messages_run_in_a_real_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    worker = shared_worker
    now_id, _ = store_pending(
        "owner_answer", {"tenant": tenant, "agent": "bot", "question": "Pets?", "answer": "No."}
    )
    # Another agent: a task for "bot" would take bot's other pending events along with its own.
    later_id, _ = store_pending(
        "owner_answer", {"tenant": tenant, "agent": "bot2", "question": "Wifi?", "answer": "Yes."}
    )
    assert publish.publish_reflect(now_id)
    published_at = datetime.now(UTC)
    assert publish.publish_task(publish.TASK_REFLECT, [later_id], countdown=2.0)

    row = wait_for_event(now_id, DONE, timeout=90)
    assert row["status"] == "reflected", worker.log()[-2000:]
    later = wait_for_event(later_id, DONE, timeout=90)
    assert later["status"] == "reflected", worker.log()[-2000:]
    # the worker held the countdown message until its eta
    started = later["processing_started_at"]
    started = started if started.tzinfo else started.replace(tzinfo=UTC)
    assert (started - published_at).total_seconds() >= 1.9


@pytest.fixture()
def silent_broker() -> Iterator[str]:
    """A TCP port that accepts connections and never answers: a hung Redis."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    stop.set()
    thread.join(timeout=5)
    for conn in accepted:
        conn.close()
    server.close()


def test_hung_broker_costs_one_socket_timeout_and_no_retries(
    services_env: dict[str, str],
    silent_broker: str,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DIGEST_BROKER_URL", silent_broker)
    monkeypatch.setenv("DIGEST_PUBLISH_TIMEOUT_S", "0.5")
    _reset_process_state()
    started = time.monotonic()
    event_id = digest.record_run(tenant, "bot", task="refund order 9", outcome="failure")
    elapsed = time.monotonic() - started
    # one 0.5 s read timeout; redis-py's default 3 retries with back-off would take over 2 s
    assert 0.5 <= elapsed < 1.8, elapsed
    assert wait_for_event(event_id, {"pending"}, timeout=1)["status"] == "pending"
    started = time.monotonic()
    digest.record_run(tenant, "bot", task="refund order 10", outcome="failure")
    assert time.monotonic() - started < 0.5  # inside the back-off window: no broker attempt


# --- coalescing at capture ---------------------------------------------------------------------


def test_captures_for_one_agent_leave_one_message_until_its_slot_is_released(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    broker = services_env["DIGEST_BROKER_URL"]
    first = owner_answers(tenant, "bot", 5)
    bot = agent_id_of(tenant, "bot")
    assert reflect_messages(broker, own_queue) == [[first[0], bot]]
    ttl = redis.Redis.from_url(broker).ttl(reflect_slot(bot))
    assert 0 < ttl <= REFLECT_SLOT_TTL_S

    assert release_reflect_slot(bot)
    [sixth] = owner_answers(tenant, "bot", 1, topic="Later")
    other = owner_answers(tenant, "other", 3)
    other_id = agent_id_of(tenant, "other")
    assert reflect_messages(broker, own_queue) == [
        [first[0], bot],
        [sixth, bot],
        [other[0], other_id],
    ]
    assert set(event_statuses([*first, sixth, *other]).values()) == {"pending"}
