"""An agent's events are reconciled in the order they happened.

With a remote model each event is its own task, so a fleet of workers may judge two events of
one agent side by side: the owner's "yes, gift wrapping is free" and, captured a second later,
"we stopped doing that". Each reflection may run at once; but if the later one's lesson were
written first, the earlier one would then be reconciled against it and read as the newer
word (a judge would keep both, or supersede the change with the old fact). So before it reads
its neighbours, an event waits while an older event of its agent is still being judged
(``pending``, or ``processing`` under a live claim), bounded by
``DIGEST_RECONCILE_ORDER_WAIT_S`` and by what the task's time budget leaves for the reconcile
step; past that it goes on (the order is a preference, never a stall). Events put back to
``waiting`` after a fault are not waited for: they may wait for hours.

Models answered in process reconcile an agent's events in one transaction, in order, and never
wait here.
"""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import and_, or_, select

from digest.config import Settings
from digest.db import read_scope
from digest.logs import get_logger
from digest.model.seam import time_left
from digest.models import Event, utcnow
from digest.reflect.claims import Claimed

log = get_logger("digest.reflect")

#: the first pause between two looks, doubled up to ``LONGEST_PAUSE_S``
FIRST_PAUSE_S = 0.05
LONGEST_PAUSE_S = 0.5


def older_in_judgement(claimed: Claimed, settings: Settings) -> int | None:
    """The id of an older event of the claimed event's agent still being judged, or None."""
    live_since = utcnow() - timedelta(seconds=settings.processing_stale_after_s)
    with read_scope(settings.database_url) as session:
        return session.scalar(
            select(Event.id)
            .where(
                Event.agent_id == claimed.agent_id,
                Event.id < claimed.event_id,
                or_(
                    Event.status == "pending",
                    and_(Event.status == "processing", Event.processing_started_at >= live_since),
                ),
            )
            .order_by(Event.id)
            .limit(1)
        )


def after_older_events(claimed: Claimed, settings: Settings) -> float:
    """Wait (bounded) until no older event of the agent is being judged; the seconds waited."""
    bound = settings.reconcile_order_wait_s
    if bound <= 0:
        return 0.0
    started = time.monotonic()
    pause = FIRST_PAUSE_S
    while True:
        older = older_in_judgement(claimed, settings)
        waited = time.monotonic() - started
        if older is None:
            if waited >= LONGEST_PAUSE_S:
                log.info("reconcile_waited_for_older", event_id=claimed.event_id,
                         waited_s=round(waited, 2))  # fmt: skip
            return waited
        left = time_left()
        if waited + pause > bound or (left is not None and left - pause < settings.step_budget_s):
            log.warning(
                "reconcile_order_wait_ended", event_id=claimed.event_id, older_event_id=older,
                waited_s=round(waited, 2),
            )  # fmt: skip
            return waited
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_S)
