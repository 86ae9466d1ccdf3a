"""digest.outbox: the message capture builds by hand is the message Celery sends.

Capture pushes a Celery protocol-2 message it builds itself (``publish.celery_message``: no
Celery app, no kombu, about a millisecond). Here the exact bytes each publisher path leaves in
Redis (the sync LPUSH and coalescing script, and their asyncio twins) are read the way a worker
reads them: kombu's Redis transport (its JSON ``loads`` of the list item, then
``Channel.Message``: base64 body, properties, delivery info and tag), the worker's accepted
content (``message.decode()`` under ``accept_content``), and Celery's task request
(``celery.worker.request.Request``, what the worker's strategy builds for protocol 2). Every
field is compared with the message Celery's own ``send_task`` (``app.amqp.as_task_v2``) left in
another queue of the same Redis, from an app configured as the worker is
(``worker.config.celery_config``). The differences allowed are named below; a field Celery
adds, renames or encodes otherwise fails here.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from celery import Celery
from celery.worker.request import Request
from kombu import Connection
from kombu.message import Message
from kombu.serialization import prepare_accept_content
from kombu.transport.virtual import Channel
from kombu.utils.encoding import bytes_to_str
from kombu.utils.json import loads

from digest.config import Settings
from digest.outbox import aio, publish
from worker.config import celery_config

NAME = publish.TASK_COMPOSE_VERSION
ARGS = [7, "threshold", "tok"]
#: the third element of a protocol-2 body: no callbacks, errbacks, chain or chord
EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}

#: fresh on every message, Celery's and ours alike (checked for form and consistency instead)
PER_MESSAGE_HEADERS = {"id", "root_id", "eta"}
PER_MESSAGE_PROPERTIES = {"correlation_id", "delivery_tag", "delivery_info"}
#: only Celery's message has it: the sending app's result channel (no results are kept here)
CELERY_ONLY_PROPERTIES = {"reply_to"}
#: what the worker's request adds from those (and the host it runs on, the same for both)
PER_MESSAGE_REQUEST = PER_MESSAGE_HEADERS | PER_MESSAGE_PROPERTIES | {"properties", "reply_to"}

PATHS = ["sync", "sync, coalesced", "asyncio", "asyncio, coalesced"]


@dataclass(frozen=True)
class Read:
    """A list item as the worker sees it."""

    envelope: dict[str, Any]
    message: Message
    request: Request


def _read(app: Celery, channel: Channel, raw: bytes) -> Read:
    # kombu's Redis transport: Channel._get is ``loads(bytes_to_str(item))``; the consumer then
    # makes the transport's Message of it and gives it the worker's accepted content types.
    envelope = loads(bytes_to_str(raw))
    message = channel.Message(envelope, channel=channel)
    message.accept = prepare_accept_content(app.conf.accept_content)
    # A body that is a list, not a dict with "args": the strategy's protocol-2 path, which
    # makes a Request of the message as it is.
    assert isinstance(message.payload, list)
    request = Request(message, app=app, task=app.tasks[message.headers["task"]])
    return Read(dict(envelope), message, request)


def _never_run(*args: Any) -> None:
    """The reference app's task body: only its name is needed."""


@pytest.fixture()
def reference_app(redis_url: str) -> Iterator[Celery]:
    """A Celery app configured as the worker is, knowing the task by name."""
    app = Celery("reference", set_as_current=False)
    app.conf.update(celery_config(Settings(broker_url=redis_url, queue="digest-wire-default")))
    # not shared: a shared task would be registered on the worker's app too, under its name
    app.task(name=NAME, shared=False)(_never_run)
    yield app
    app.close()


@pytest.fixture()
def channel(redis_url: str) -> Iterator[Channel]:
    """A channel of kombu's Redis transport on the test Redis."""
    with Connection(redis_url) as connection:
        yield connection.channel()


@pytest.fixture()
def client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def _publish(path: str, settings: Settings, countdown: float | None, slot: str) -> bool:
    """Publish NAME(ARGS) by ``path``; True when the publisher says it was sent."""
    publish.reset_publisher()  # no back-off window left by another test
    chosen = slot if path.endswith("coalesced") else None
    if path.startswith("sync"):
        return publish.publish_task(NAME, ARGS, settings, countdown=countdown, slot=chosen)

    async def publish_async() -> bool:
        try:
            return await aio.publish_task(NAME, ARGS, settings, countdown=countdown, slot=chosen)
        finally:
            await aio.close_clients()

    return asyncio.run(publish_async())


def _only_item(client: redis.Redis, queue: str) -> bytes:
    items = client.lrange(queue, 0, -1)
    assert len(items) == 1, items
    raw = items[0]
    assert isinstance(raw, bytes)
    return raw


@pytest.mark.parametrize("countdown", [None, 30.0], ids=["now", "countdown"])
@pytest.mark.parametrize("path", PATHS)
def test_the_bytes_capture_pushes_are_the_message_celery_sends(
    path: str,
    countdown: float | None,
    redis_url: str,
    reference_app: Celery,
    channel: Channel,
    client: redis.Redis,
) -> None:
    tag = uuid.uuid4().hex[:8]
    ours_queue, celery_queue = f"digest-wire-{tag}", f"digest-wire-celery-{tag}"
    slot = f"digest-wire-slot-{tag}"
    try:
        sent_at = datetime.now(UTC)
        assert _publish(path, Settings(broker_url=redis_url, queue=ours_queue), countdown, slot)
        reference_app.send_task(NAME, args=ARGS, queue=celery_queue, countdown=countdown)
        ours = _read(reference_app, channel, _only_item(client, ours_queue))
        celery = _read(reference_app, channel, _only_item(client, celery_queue))
    finally:
        client.delete(
            ours_queue, celery_queue, slot,
            f"_kombu.binding.{celery_queue}", f"_kombu.binding_permanent.{celery_queue}",
        )  # fmt: skip

    # The envelope kombu's Redis transport stores, and how its body is encoded.
    assert set(ours.envelope) == set(celery.envelope)
    assert ours.message.content_type == celery.message.content_type == "application/json"
    assert ours.message.content_encoding == celery.message.content_encoding == "utf-8"
    body_encoding = ours.message.properties["body_encoding"]
    assert body_encoding == celery.message.properties["body_encoding"] == "base64"
    # The body, decoded by the message itself under the worker's accepted content.
    assert ours.message.decode() == celery.message.decode() == [ARGS, {}, EMBED]

    # Headers: the same fields, and the same values but the per-message ones.
    ours_headers, celery_headers = ours.message.headers, celery.message.headers
    assert set(ours_headers) == set(celery_headers)
    for field in set(celery_headers) - PER_MESSAGE_HEADERS:
        assert ours_headers[field] == celery_headers[field], field
    assert ours_headers["task"] == NAME

    # Properties: Celery's but its reply_to, the same values but the per-message ones.
    ours_properties, celery_properties = ours.message.properties, celery.message.properties
    assert set(ours_properties) == set(celery_properties) - CELERY_ONLY_PROPERTIES
    for field in set(ours_properties) - PER_MESSAGE_PROPERTIES:
        assert ours_properties[field] == celery_properties[field], field

    # The per-message values: well formed, consistent, and each message's own.
    for read, queue in ((ours, ours_queue), (celery, celery_queue)):
        headers, properties = read.message.headers, read.message.properties
        assert str(uuid.UUID(headers["id"])) == headers["id"]
        assert headers["root_id"] == headers["id"] == properties["correlation_id"]
        assert read.message.delivery_info == {"exchange": "", "routing_key": queue}
        assert read.message.delivery_tag == properties["delivery_tag"]
        assert str(uuid.UUID(read.message.delivery_tag)) == read.message.delivery_tag
    assert ours_headers["id"] != celery_headers["id"]
    assert ours.message.delivery_tag != celery.message.delivery_tag

    # What the worker makes of it: Celery's task request.
    ours_request, celery_request = ours.request, celery.request
    assert (ours_request.id, ours_request.root_id) == (ours_headers["id"], ours_headers["id"])
    assert ours_request.correlation_id == ours_headers["id"]
    assert ours_request.task_name == NAME
    assert (ours_request.args, ours_request.kwargs) == (ARGS, {})
    for attribute in (
        "name", "task_name", "args", "kwargs", "argsrepr", "kwargsrepr", "parent_id",
        "expires", "time_limits", "ignore_result", "replaced_task_nesting", "stamped_headers",
        "stamps", "groups", "chord", "errbacks", "group", "group_index", "utc", "hostname",
        "content_type", "content_encoding",
    ):  # fmt: skip
        assert getattr(ours_request, attribute) == getattr(celery_request, attribute), attribute
    assert set(ours_request.request_dict) == set(celery_request.request_dict)
    for field in set(celery_request.request_dict) - PER_MESSAGE_REQUEST:
        assert ours_request.request_dict[field] == celery_request.request_dict[field], field
    assert set(ours_request.delivery_info) == set(celery_request.delivery_info)
    assert ours_request.delivery_info == {
        **celery_request.delivery_info, "routing_key": ours_queue,
    }  # fmt: skip

    # The eta: none without a countdown; with one, an aware time that far ahead, as Celery's.
    if countdown is None:
        assert ours_headers["eta"] is None is celery_headers["eta"]
        assert ours_request.eta is None is celery_request.eta
    else:
        # ISO 8601 with the UTC offset written out, as Celery writes it (a worker would read a
        # naive eta in its own timezone)
        ours_eta = datetime.fromisoformat(ours_headers["eta"])
        celery_eta = datetime.fromisoformat(celery_headers["eta"])
        assert ours_eta.utcoffset() == celery_eta.utcoffset() == timedelta(0)
        assert ours_request.eta == ours_eta and celery_request.eta == celery_eta
        assert abs((ours_request.eta - celery_request.eta).total_seconds()) < 5
        assert abs((ours_request.eta - sent_at).total_seconds() - countdown) < 5
