"""The asyncio twin of ``digest.outbox.publish``: the same message, the same best effort.

``digest.aio``'s captures publish through here with ``redis.asyncio``, so a broker round trip
never holds the event loop. Everything but the socket is shared with the sync publisher: the
Celery message (``celery_message``), the coalescing script and slot key, the client timeouts
(one short socket timeout, no retries) and the back-off window after a fault, which is one
window per process for both paths.

A ``redis.asyncio`` connection belongs to the event loop that opened it, so clients are kept
per loop (and forgotten with it, or with the process's runtime when it is reset).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from digest.config import Settings, get_settings
from digest.outbox import publish
from digest.runtime import runtime

if TYPE_CHECKING:
    from redis.commands.core import AsyncScript

#: event loop → broker url → its client and its registered coalescing script
_Clients = weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, tuple[Redis, "AsyncScript"]]
]


def _clients() -> _Clients:
    """A piece of the runtime."""
    return weakref.WeakKeyDictionary()


def _client(settings: Settings) -> tuple[Redis, AsyncScript]:
    assert settings.broker_url
    per_loop = runtime().piece(_clients).setdefault(asyncio.get_running_loop(), {})
    found = per_loop.get(settings.broker_url)
    if found is None:
        client = Redis.from_url(
            settings.broker_url, retry=Retry(NoBackoff(), 0), **publish.client_options(settings)
        )
        found = per_loop[settings.broker_url] = (
            client,
            client.register_script(publish.PUBLISH_IF_FREE),
        )
    return found


async def publish_task(
    name: str,
    args: list[Any],
    settings: Settings | None = None,
    *,
    countdown: float | None = None,
    slot: str | None = None,
) -> bool:
    """``publish.publish_task``, awaited: False (and logged) instead of raising."""
    settings = settings or get_settings()
    if settings.embedded or publish.publishing_suppressed():
        return False
    try:
        message = publish.celery_message(name, args, settings.queue, countdown=countdown)
        client, publish_if_free = _client(settings)
        if slot is None:
            await client.lpush(settings.queue, message)
        else:
            await publish_if_free(
                keys=[slot, settings.queue], args=[publish.REFLECT_SLOT_TTL_S, message]
            )
    except Exception as exc:  # any broker fault: the outbox row is the truth, the relay retries
        publish.publish_failed(name, args, exc, settings)
        return False
    return True


async def publish_reflect(
    event_id: int, *, agent_id: int, settings: Settings | None = None
) -> bool:
    """``publish.publish_reflect`` with ``agent_id``, awaited: coalesced per agent."""
    return await publish_task(
        publish.TASK_REFLECT,
        [event_id, agent_id],
        settings,
        slot=publish.reflect_slot(agent_id, settings),
    )


async def close_clients() -> None:
    """Close this event loop's broker connections (``digest.aio.aclose``)."""
    for client, _ in runtime().piece(_clients).pop(asyncio.get_running_loop(), {}).values():
        await client.aclose()
