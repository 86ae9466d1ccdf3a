"""The one module of ``digest`` that talks to Celery: it publishes tasks by name.

Publishing is best effort. The event row is already committed when we get here, and the relay
re-publishes anything left pending, so a dead or slow broker costs at most one short socket
timeout (``DIGEST_PUBLISH_TIMEOUT_S`` ≤ 1 s) and then a back-off window during which capture
does not even try. Celery is imported on the first publish, not when ``digest`` is imported.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

import structlog

from digest.config import Settings, get_settings

if TYPE_CHECKING:
    from celery import Celery

log = structlog.get_logger("digest.publish")

TASK_REFLECT_EVENT = "digest.reflect_event"
TASK_RELAY_PENDING = "digest.relay_pending"
TASK_COMPOSE_VERSION = "digest.compose_version"
TASK_WEEKLY_SWEEP = "digest.weekly_sweep"
TASK_IMPROVE_NOW = "digest.improve_now"

_lock = threading.Lock()
_apps: dict[str, Celery] = {}
_suppressed_until = 0.0


def _publisher(settings: Settings) -> Celery:
    assert settings.broker_url
    with _lock:
        app = _apps.get(settings.broker_url)
        if app is None:
            from celery import Celery

            timeout = settings.publish_timeout_s
            app = Celery("digest-publisher", broker=settings.broker_url, set_as_current=False)
            app.conf.update(
                broker_connection_timeout=timeout,
                broker_connection_retry=False,
                broker_connection_max_retries=0,
                broker_transport_options={
                    "socket_timeout": timeout,
                    "socket_connect_timeout": timeout,
                    "max_retries": 0,
                    "visibility_timeout": settings.visibility_timeout_s,
                },
                broker_pool_limit=4,
                task_ignore_result=True,
            )
            _apps[settings.broker_url] = app
        return app


def publish_task(
    name: str,
    args: list[Any],
    settings: Settings | None = None,
    *,
    countdown: float | None = None,
) -> bool:
    """Send task ``name`` to the broker. Returns False (and logs) instead of raising."""
    global _suppressed_until
    settings = settings or get_settings()
    if settings.embedded:
        return False
    now = time.monotonic()
    if now < _suppressed_until:
        return False
    try:
        _publisher(settings).send_task(
            name, args=args, queue=settings.queue, retry=False, countdown=countdown
        )
    except Exception as exc:  # any broker fault: the outbox row is the truth, the relay retries
        _suppressed_until = time.monotonic() + settings.publish_backoff_s
        log.warning("publish_failed", task=name, args=args, error=type(exc).__name__)
        return False
    return True


def publish_reflect(event_id: int, settings: Settings | None = None) -> bool:
    return publish_task(TASK_REFLECT_EVENT, [event_id], settings)


def reset_publisher() -> None:
    """Drop cached broker connections and the back-off window (after fork, and in tests)."""
    global _suppressed_until
    with _lock:
        _apps.clear()
        _suppressed_until = 0.0
