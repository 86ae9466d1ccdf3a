"""The one module of ``digest`` that sends work to the Celery worker: it publishes tasks by name.

A publish is one ``LPUSH`` of a Celery protocol-2 message onto the queue's Redis list, which is
exactly what Celery's ``send_task`` does through kombu's Redis transport, minus the kombu
machinery: no Celery app, no channel objects, no Redis client built per call. The worker
consumes these messages like any other (``celery_message`` documents the fields; a test runs
them through a real worker). ``DIGEST_BROKER_URL`` must therefore be a Redis URL.

Publishing is best effort. The event row is already committed when we get here, and the relay
re-publishes anything left pending, so a dead or slow broker costs at most one short socket
timeout (``DIGEST_PUBLISH_TIMEOUT_S`` ≤ 1 s, no retries) and then a back-off window during which
capture does not even try. redis-py is imported on the first publish, not with ``digest``.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import socket
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from digest.config import Settings, get_settings

if TYPE_CHECKING:
    from redis import Redis

TASK_REFLECT_EVENT = "digest.reflect_event"
TASK_RELAY_PENDING = "digest.relay_pending"
TASK_COMPOSE_VERSION = "digest.compose_version"
TASK_WEEKLY_SWEEP = "digest.weekly_sweep"
TASK_IMPROVE_NOW = "digest.improve_now"

#: the third element of every protocol-2 body: no callbacks, errbacks, chain or chord.
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}

_lock = threading.Lock()
_clients: dict[str, Redis] = {}
_suppressed_until = 0.0


def celery_message(
    name: str, args: list[Any], queue: str, *, countdown: float | None = None
) -> bytes:
    """The JSON envelope kombu's Redis transport stores for ``send_task(name, args, queue=…)``.

    Protocol 2 (Celery ≥ 4): task metadata in ``headers``, the body ``[args, kwargs, embed]`` as
    base64 JSON, and the transport's ``properties`` (``delivery_tag`` is the key under which the
    worker's Redis QoS tracks the unacked message, so it must be unique per message).
    """
    task_id = str(uuid.uuid4())
    eta = None
    if countdown is not None:
        eta = (datetime.now(UTC) + timedelta(seconds=countdown)).isoformat()
    body = json.dumps([args, {}, _EMBED]).encode()
    envelope = {
        "body": base64.b64encode(body).decode("ascii"),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": name,
            "id": task_id,
            "shadow": None,
            "eta": eta,
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": [None, None],
            "root_id": task_id,
            "parent_id": None,
            "argsrepr": repr(args),
            "kwargsrepr": "{}",
            "origin": _origin(),
            "ignore_result": None,
            "replaced_task_nesting": 0,
            "stamped_headers": None,
            "stamps": {},
        },
        "properties": {
            "correlation_id": task_id,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }
    return json.dumps(envelope).encode()


def _origin() -> str:
    # Celery's "gen<pid>@<host>" (the pid changes after a fork, so it is not cached)
    return f"gen{os.getpid()}@{_hostname()}"


@functools.cache
def _hostname() -> str:
    return socket.gethostname()


def _client(settings: Settings) -> Redis:
    assert settings.broker_url
    client = _clients.get(settings.broker_url)
    if client is not None:
        return client
    with _lock:
        client = _clients.get(settings.broker_url)
        if client is None:
            from redis import Redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            timeout = settings.publish_timeout_s
            client = Redis.from_url(
                settings.broker_url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                # redis-py retries 3 times by default: a dead broker would hold the agent 4x.
                retry=Retry(NoBackoff(), 0),
                retry_on_timeout=False,
            )
            _clients[settings.broker_url] = client
        return client


def publish_task(
    name: str,
    args: list[Any],
    settings: Settings | None = None,
    *,
    countdown: float | None = None,
) -> bool:
    """Send task ``name`` to the worker's queue. Returns False (and logs) instead of raising."""
    global _suppressed_until
    settings = settings or get_settings()
    if settings.embedded:
        return False
    if time.monotonic() < _suppressed_until:
        return False
    try:
        message = celery_message(name, args, settings.queue, countdown=countdown)
        _client(settings).lpush(settings.queue, message)
    except Exception as exc:  # any broker fault: the outbox row is the truth, the relay retries
        _suppressed_until = time.monotonic() + settings.publish_backoff_s
        import structlog  # imported on the first failure only: the hot path never logs

        structlog.get_logger("digest.publish").warning(
            "publish_failed", task=name, args=args, error=type(exc).__name__
        )
        return False
    return True


def publish_reflect(event_id: int, settings: Settings | None = None) -> bool:
    return publish_task(TASK_REFLECT_EVENT, [event_id], settings)


def waiting_messages(settings: Settings | None = None) -> int | None:
    """Messages in the queue that no worker has taken yet; None if the broker cannot say."""
    settings = settings or get_settings()
    if settings.embedded:
        return None
    try:
        return int(_client(settings).llen(settings.queue))
    except Exception:  # any broker fault: the caller treats "unknown" as "cannot publish"
        return None


def reset_publisher() -> None:
    """Drop cached broker connections and the back-off window (after fork, and in tests)."""
    global _suppressed_until
    with _lock:
        # Not closed: in a forked child the sockets are the parent's (redis-py checks the pid
        # before it shuts one down, but dropping them is all a child should do).
        _clients.clear()
        _suppressed_until = 0.0
