"""worker.consumer: the worker's consumer reaches a lost broker again within seconds (kombu's
own waits grow to 30 s between attempts), and passes Celery's errback and retry count on."""

from __future__ import annotations

from typing import Any

from worker.celery_app import app
from worker.consumer import RECONNECT_MAX_S, Consumer


class _Connection:
    """A broker connection that records how it was asked to connect."""

    def __init__(self) -> None:
        self.asked: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def ensure_connection(self, *args: Any, **kwargs: Any) -> _Connection:
        self.asked.append((args, kwargs))
        return self

    def as_uri(self) -> str:
        return "redis://127.0.0.1:6379/0"


def test_a_lost_broker_is_tried_again_at_most_seconds_apart() -> None:
    consumer = Consumer.__new__(Consumer)  # the method reads the app and one flag
    consumer.app = app
    consumer.first_connection_attempt = False
    consumer.broker_connection_retry_attempt = 3
    conn = _Connection()
    assert consumer.ensure_connected(conn) is conn
    [(args, kwargs)] = conn.asked
    assert kwargs["interval_max"] == RECONNECT_MAX_S <= 5
    assert kwargs["interval_start"] <= 1 and kwargs["interval_step"] <= 1
    # Celery's own arguments still reach kombu: its errback, the retry limit, its callback
    errback, max_retries = args
    assert callable(errback) and max_retries == app.conf.broker_connection_max_retries
    assert callable(kwargs["callback"])
    assert consumer.broker_connection_retry_attempt == 0
