"""The one module of ``digest`` that sends work to the Celery worker: it publishes tasks by name.

A publish is one ``LPUSH`` of a Celery protocol-2 message onto the queue's Redis list, which is
exactly what Celery's ``send_task`` does through kombu's Redis transport, minus the kombu
machinery: no Celery app, no channel objects, no Redis client built per call (so capture takes
about a millisecond). The worker consumes these messages like any other: ``celery_message``
documents the fields, ``tests/outbox/test_celery_wire.py`` reads the bytes each publisher pushes
with kombu's and Celery's own code and compares them, field by field, with what ``send_task``
writes, and a test runs them through a real worker. ``DIGEST_BROKER_URL`` must therefore be a
Redis URL.

Publishing is best effort. The event row is already committed when we get here, and the relay
re-publishes anything left pending, so a dead or slow broker costs at most one short socket
timeout (``DIGEST_PUBLISH_TIMEOUT_S`` ≤ 1 s, no retries) and then a back-off window during which
capture does not even try. redis-py is imported on the first publish, not with ``digest``.
Clients and the back-off window are a piece of the process's runtime (``digest.runtime``).
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

from digest._log import stdlib_logger
from digest.config import Settings, get_settings
from digest.runtime import runtime

#: stdlib logging: this module is on the agent's hot path, which never loads structlog.
log = stdlib_logger("digest.publish")

if TYPE_CHECKING:
    from redis import Redis
    from redis.commands.core import Script

#: reflects the batch of an agent's events it claims (the event named first, with it the
#: agent's other pending events)
TASK_REFLECT = "digest.reflect_batch"
#: the name messages queued before the task was renamed carry; workers still answer to it
TASK_REFLECT_LEGACY = "digest.reflect_event"
TASK_RELAY_PENDING = "digest.relay_pending"
TASK_COMPOSE_VERSION = "digest.compose_version"
TASK_WEEKLY_SWEEP = "digest.weekly_sweep"
TASK_IMPROVE_NOW = "digest.improve_now"
#: compares an agent's new questions with its open ones and merges paraphrases (issue 28)
TASK_MERGE_QUESTIONS = "digest.merge_questions"

#: the third element of every protocol-2 body: no callbacks, errbacks, chain or chord.
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


class _Publisher:
    """This process's broker clients and scripts by URL, and its back-off window. Dropped,
    not closed, on reset: in a forked child the sockets are the parent's (redis-py checks the
    pid before it shuts one down, but dropping them is all a child should do)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clients: dict[str, Redis] = {}
        self.scripts: dict[str, Script] = {}
        #: ``time.monotonic()`` until which publishing is not even tried
        self.suppressed_until = 0.0


def _publisher() -> _Publisher:
    return runtime().piece(_Publisher)


def celery_message(
    name: str, args: list[Any], queue: str, *, countdown: float | None = None
) -> bytes:
    """The JSON envelope kombu's Redis transport stores for ``send_task(name, args, queue=…)``.

    Protocol 2 (Celery ≥ 4): task metadata in ``headers``, the body ``[args, kwargs, embed]`` as
    base64 JSON, and the transport's ``properties`` (``delivery_tag`` is the key under which the
    worker's Redis QoS tracks the unacked message, so it must be unique per message).
    """
    # Two fresh UUID4s from one read of the system's random source: a syscall each was half
    # the cost of building a message.
    random = os.urandom(32)
    task_id = str(uuid.UUID(bytes=random[:16], version=4))
    eta = None
    if countdown is not None:
        eta = (datetime.now(UTC) + timedelta(seconds=countdown)).isoformat()
    # json.dumps([args, {}, _EMBED]), with the constant tail written once
    body = f"[{json.dumps(args)}{_BODY_TAIL}".encode()
    values = {
        _ID: task_id,
        _BODY: base64.b64encode(body).decode("ascii"),
        _ARGS: repr(args),
        _ETA: eta,
        _TAG: str(uuid.UUID(bytes=random[16:], version=4)),
    }
    pieces = _envelope(name, queue, _origin())
    return "".join(
        piece if i % 2 == 0 else _json_string(piece, values[piece])
        for i, piece in enumerate(pieces)
    ).encode()


def _json_string(slot: str, value: str | None) -> str:
    # A UUID and base64 hold no character JSON escapes: quoted as they are.
    return f'"{value}"' if slot in _PLAIN_SLOTS else json.dumps(value)


#: what follows a message body's args: ``, {}, `` and the embed, as ``json.dumps`` writes them
_BODY_TAIL = json.dumps([None, {}, _EMBED])[len("[null") :]


#: the envelope's fields that change from one message to the next (``_envelope``'s slots)
_ID, _BODY, _ARGS, _ETA, _TAG = "\x00id", "\x00body", "\x00args", "\x00eta", "\x00tag"
#: the slots whose values are ASCII letters, digits, '-', '+', '/' and '=' only
_PLAIN_SLOTS = frozenset({_ID, _BODY, _TAG})


@functools.lru_cache(maxsize=64)
def _envelope(name: str, queue: str, origin: str) -> tuple[str, ...]:
    """The envelope's JSON for a task name, queue and origin, written once: its constant
    text and the names of the slots between (even items text, odd items slots), so that a
    message is its slots' JSON put in place (a capture's hot path)."""
    envelope = {
        "body": _BODY,
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": name,
            "id": _ID,
            "shadow": None,
            "eta": _ETA,
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": [None, None],
            "root_id": _ID,
            "parent_id": None,
            "argsrepr": _ARGS,
            "kwargsrepr": "{}",
            "origin": origin,
            "ignore_result": None,
            "replaced_task_nesting": 0,
            "stamped_headers": None,
            "stamps": {},
        },
        "properties": {
            "correlation_id": _ID,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": _TAG,
        },
    }
    text = json.dumps(envelope)
    slots = {json.dumps(slot): slot for slot in (_ID, _BODY, _ARGS, _ETA, _TAG)}
    pieces: list[str] = []
    rest = text
    while True:
        found = [(rest.find(quoted), quoted) for quoted in slots if quoted in rest]
        if not found:
            return (*pieces, rest)
        at, quoted = min(found)
        pieces += [rest[:at], slots[quoted]]
        rest = rest[at + len(quoted) :]


def _origin() -> str:
    # Celery's "gen<pid>@<host>" (the pid changes after a fork, so it is not cached)
    return f"gen{os.getpid()}@{_hostname()}"


@functools.cache
def _hostname() -> str:
    return socket.gethostname()


def _client(settings: Settings) -> Redis:
    assert settings.broker_url
    publisher = _publisher()
    client = publisher.clients.get(settings.broker_url)
    if client is not None:
        return client
    with publisher.lock:
        client = publisher.clients.get(settings.broker_url)
        if client is None:
            from redis import Redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            client = Redis.from_url(
                settings.broker_url, retry=Retry(NoBackoff(), 0), **client_options(settings)
            )
            publisher.clients[settings.broker_url] = client
        return client


def publish_task(
    name: str,
    args: list[Any],
    settings: Settings | None = None,
    *,
    countdown: float | None = None,
    slot: str | None = None,
) -> bool:
    """Send task ``name`` to the worker's queue. Returns False (and logs) instead of raising.

    With ``slot`` (a Redis key) the message is sent only if the slot is free, and the slot is
    taken for ``REFLECT_SLOT_TTL_S``; True then means sent or already covered."""
    settings = settings or get_settings()
    if settings.embedded:
        return False
    if publishing_suppressed():
        return False
    try:
        message = celery_message(name, args, settings.queue, countdown=countdown)
        if slot is None:
            _client(settings).lpush(settings.queue, message)
        else:
            _publish_if_free(settings)(
                keys=[slot, settings.queue], args=[REFLECT_SLOT_TTL_S, message]
            )
    except Exception as exc:  # any broker fault: the outbox row is the truth, the relay retries
        publish_failed(name, args, exc, settings)
        return False
    return True


def publishing_suppressed() -> bool:
    """Within the back-off window after a failed publish: capture does not even try. One
    window per process, shared with ``digest.outbox.aio``."""
    return time.monotonic() < _publisher().suppressed_until


def publish_failed(name: str, args: list[Any], exc: BaseException, settings: Settings) -> None:
    """Open the back-off window (``DIGEST_PUBLISH_BACKOFF_S``) and log the fault."""
    _publisher().suppressed_until = time.monotonic() + settings.publish_backoff_s
    log.warning("publish_failed task=%s args=%s error=%s", name, args, type(exc).__name__)


def client_options(settings: Settings) -> dict[str, Any]:
    """Timeouts of a broker client, sync or asyncio: one short socket timeout, no retries
    (redis-py retries 3 times by default: a dead broker would hold the agent 4x)."""
    timeout = settings.publish_timeout_s
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry_on_timeout": False,
    }


def publish_reflect(
    event_id: int, settings: Settings | None = None, *, agent_id: int | None = None
) -> bool:
    """Ask for ``event_id`` to be reflected.

    With ``agent_id`` the message is coalesced: it goes out only if no reflect message for
    that agent is already waiting in the queue (its slot key, set here and cleared by the task
    when it starts). The task that clears the slot then claims every pending event of the
    agent committed before that moment, so an event whose message was coalesced away is
    covered; an event committed after it finds the slot free and publishes. Without
    ``agent_id`` (the relay, requeue) the message always goes out. Returns True when a
    message is on its way (sent now, or already waiting for this agent)."""
    if agent_id is None:
        return publish_task(TASK_REFLECT, [event_id], settings)
    return publish_task(
        TASK_REFLECT, [event_id, agent_id], settings, slot=reflect_slot(agent_id, settings)
    )


#: How long an agent's reflect slot outlives its message at most. The task clears it when it
#: starts; a worker that dies holding the message leaves the slot until this expires (events
#: captured meanwhile publish again after it, or the relay finds them). A backlog longer than
#: this only costs one more message per agent and period.
REFLECT_SLOT_TTL_S = 30

# One round trip: claim the agent's slot and, only if it was free, queue the message.
PUBLISH_IF_FREE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('LPUSH', KEYS[2], ARGV[2])
    return 1
end
return 0
"""


def reflect_slot(agent_id: int, settings: Settings | None = None) -> str:
    """The Redis key that says "a reflect message for this agent waits in the queue"."""
    settings = settings or get_settings()
    return f"digest.reflect-waiting.{settings.queue}.{agent_id}"


def release_reflect_slot(agent_id: int, settings: Settings | None = None) -> bool:
    """The reflect task for ``agent_id`` has started: the next capture publishes again.
    Best effort (the slot expires anyway); returns False if the broker could not be told."""
    settings = settings or get_settings()
    if settings.embedded:
        return False
    try:
        _client(settings).delete(reflect_slot(agent_id, settings))
    except Exception:  # any broker fault: the slot's TTL frees it
        return False
    return True


def publish_merge_questions(agent_id: int, settings: Settings | None = None) -> bool:
    """Ask for the agent's new questions to be compared with its open ones
    (``digest.questions.merge``), coalesced per agent like ``publish_reflect``: the task
    clears the slot when it starts and then reads every question not judged yet."""
    return publish_task(
        TASK_MERGE_QUESTIONS, [agent_id], settings, slot=merge_slot(agent_id, settings)
    )


def merge_slot(agent_id: int, settings: Settings | None = None) -> str:
    """The Redis key that says "a merge-questions message for this agent waits"."""
    settings = settings or get_settings()
    return f"digest.merge-waiting.{settings.queue}.{agent_id}"


def release_slot(key: str, settings: Settings | None = None) -> bool:
    """Free a coalescing slot (best effort: it expires anyway)."""
    settings = settings or get_settings()
    if settings.embedded:
        return False
    try:
        _client(settings).delete(key)
    except Exception:  # any broker fault: the slot's TTL frees it
        return False
    return True


def _publish_if_free(settings: Settings) -> Script:
    """The registered script (EVALSHA, loaded again by redis-py if the server lost it)."""
    assert settings.broker_url
    scripts = _publisher().scripts
    script = scripts.get(settings.broker_url)
    if script is None:
        script = scripts[settings.broker_url] = _client(settings).register_script(PUBLISH_IF_FREE)
    return script


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
    """Drop cached broker connections and the back-off window (the runtime's reset does too)."""
    runtime().drop(_Publisher)
