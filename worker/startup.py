"""What a worker does as it starts and whenever it (re)connects to the broker.

- **The budget check** (``worker_init``): a configuration whose model budget does not fit the
  reflect task's soft limit is refused with one sentence naming the settings to change
  (``digest doctor`` says the same before you start anything).
- **Relay on connect**: a consumer bootstep runs the relay once each time the worker's
  consumer connects to the broker (at start, and after every reconnection, e.g. a Redis
  restart that lost its queue). Recovery then does not hang on beat alone: a deployment whose
  beat died still re-publishes its stranded events whenever a worker (re)connects. The relay
  is bounded (``DIGEST_RELAY_BATCH_SIZE``) and idempotent (publishes coalesce per agent;
  claims make a second delivery a no-op), and runs on a thread so the consumer is not held.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from celery import Celery, bootsteps, signals

from digest.config import get_settings, unknown_names
from digest.errors import ConfigError
from digest.logs import get_logger
from worker.config import check_budget

log = get_logger("digest.worker")


def _refuse_a_budget_that_does_not_fit(**_: Any) -> None:
    for sentence in unknown_names():  # a mistyped setting would change nothing, silently
        sys.stderr.write(f"warning: {sentence}\n")
    try:
        check_budget(get_settings())
    except ConfigError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.stderr.flush()
        raise SystemExit(2) from None


def relay_once(reason: str) -> threading.Thread:
    """Run the relay once, on a daemon thread (its failure is logged, never raised)."""

    def run() -> None:
        from digest.outbox.relay import relay_pending

        try:
            published = relay_pending()
            log.info("relay_on_connect", reason=reason, published=len(published))
        except Exception as exc:  # beat's relay, or the next connect, tries again
            log.warning("relay_on_connect_failed", error=f"{type(exc).__name__}: {exc}")

    thread = threading.Thread(target=run, name="digest-relay-on-connect", daemon=True)
    thread.start()
    return thread


class RelayOnConnect(bootsteps.StartStopStep):
    """A consumer step: ``start`` runs after every (re)connection to the broker."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        if get_settings().relay_on_connect:
            relay_once("connected")


def install(app: Celery) -> None:
    signals.worker_init.connect(_refuse_a_budget_that_does_not_fit, weak=False)
    app.steps["consumer"].add(RelayOnConnect)
