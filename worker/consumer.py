"""The worker's consumer: Celery's, with a teardown that survives the broker going away while
the worker holds a message (DESIGN §6: the worker outlives Redis restarts).

When the broker connection breaks, Celery collects the connection (the transport forgets its
client) and then closes it, which closes the consumer's channel; closing a Redis channel puts
back the messages the worker holds unacknowledged. But if the channel's ``BRPOP`` was in
flight (the worker runs fewer tasks than it may prefetch), kombu's close reads that ``BRPOP``
first, and with the broker gone the read raises and the close stops before the put-back.
The second close, after the transport forgot its client, then builds a Redis client from
nothing and raises ``AttributeError``, which no one catches: the consumer ends ("Unrecoverable
error"), the worker exits, and nothing consumes the queue after Redis returns.

So the channel is closed here first, while the transport still knows its broker: a close the
in-flight ``BRPOP`` interrupted is repeated once, and then puts the messages back (or meets
the dead broker with a connection error, which is ignored: Postgres is the truth, and the
relay republishes what a lost message strands).

It also reconnects sooner: kombu's ``ensure_connection`` waits 2 s, then 2 s more each time,
up to 30 s between attempts, so a worker found Redis back up to 30 s late (a 30 s outage
ended 12 s before the worker noticed). Here the waits grow by a second up to
``RECONNECT_MAX_S``: an attempt is a TCP connect to one host, cheap for Redis and for the
worker, and an outage costs the stream at most that much more than its own length.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.common import ignore_errors

#: a close interrupted by the in-flight ``BRPOP``, then the close that puts messages back
CLOSE_ATTEMPTS = 2
#: the waits between attempts to reach a lost broker: 1 s, 2 s, ... then this at most
RECONNECT_MAX_S = 5.0


class Consumer(CeleryConsumer):
    """Celery's consumer (``worker_consumer``), closing its channel before the teardown."""

    def ensure_connected(self, conn: Any) -> Any:
        # Celery passes no waits of its own: kombu's defaults (2 s, +2 s, up to 30 s) apply
        conn.ensure_connection = partial(
            conn.ensure_connection, interval_start=1, interval_step=1,
            interval_max=RECONNECT_MAX_S,
        )  # fmt: skip
        return super().ensure_connected(conn)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        close_task_channel(self.connection, getattr(self, "task_consumer", None))
        super().on_connection_error_after_connected(exc)


def close_task_channel(connection: Any, task_consumer: Any) -> None:
    """Close the task consumer's channel while ``connection`` still knows its broker,
    ignoring the broken connection's errors (best effort: Celery's teardown follows)."""
    channel = getattr(task_consumer, "channel", None)
    if connection is None or channel is None:
        return
    for _ in range(CLOSE_ATTEMPTS):
        if getattr(channel, "closed", True):
            return
        ignore_errors(connection, channel.close)
