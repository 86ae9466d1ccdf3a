"""An agent's events are reconciled in the order they happened, and a repeat waits for its
original's judgement.

With a remote model each event is its own task, so a fleet of workers may judge two events of
one agent side by side: the owner's "yes, gift wrapping is free" and, captured a second later,
"we stopped doing that". Each reflection may run at once; but if the later one's lesson were
written first, the earlier one would then be reconciled against it and read as the newer
word (a judge would keep both, or supersede the change with the old fact). So before it reads
its neighbours, an event waits while an older event of its agent is still being judged
(``pending``, or ``processing`` under a live claim): ``after_older_events``.

Likewise a repeat (the same signature: ``digest.reflect.judgements``) captured while its
original is still being judged would find no stored judgement and ask the model again; before
its model call it waits for an older event of its agent with its signature
(``after_same_incident``), whose judgement it then reuses.

Both waits are bounded by ``DIGEST_ORDER_WAIT_S`` and by what the task's time budget leaves for
a model step; past that the event goes on (the order is a preference, never a stall). Events
put back to ``waiting`` after a fault are not waited for: they may wait for hours.

Models answered in process (``offline/rules``) never wait here: their tasks judge an agent's
events in batches, in order, one transaction each.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

from sqlalchemy import ColumnElement, and_, or_, select

from digest.config import Settings
from digest.db import read_scope
from digest.logs import get_logger
from digest.model.seam import time_left
from digest.models import Event, utcnow
from digest.reflect.claims import Claimed
from digest.reflect.judgements import signature
from digest.reflect.policy import models_in_process

log = get_logger("digest.reflect")

#: the first pause between two looks, doubled up to ``LONGEST_PAUSE_S``
FIRST_PAUSE_S = 0.05
LONGEST_PAUSE_S = 0.5


#: older events a repeat compares its signature with, at most (the newest of them)
TWINS_LOOKED_AT = 50


def _in_judgement(claimed: Claimed, settings: Settings) -> ColumnElement[bool]:
    live_since = utcnow() - timedelta(seconds=settings.processing_stale_after_s)
    return and_(
        Event.agent_id == claimed.agent_id,
        Event.id < claimed.event_id,
        or_(
            Event.status == "pending",
            and_(Event.status == "processing", Event.processing_started_at >= live_since),
        ),
    )


def older_in_judgement(claimed: Claimed, settings: Settings) -> int | None:
    """The id of an older event of the claimed event's agent still being judged, or None."""
    with read_scope(settings.database_url) as session:
        return session.scalar(
            select(Event.id).where(_in_judgement(claimed, settings)).order_by(Event.id).limit(1)
        )


def original_in_judgement(claimed: Claimed, settings: Settings, mine: str) -> int | None:
    """The id of an older event of the agent with the signature ``mine`` still being judged
    (among the newest ``TWINS_LOOKED_AT`` in judgement), or None."""
    with read_scope(settings.database_url) as session:
        rows = session.execute(
            select(Event.id, Event.payload, Event.trust)
            .where(_in_judgement(claimed, settings), Event.kind == claimed.kind)
            .order_by(Event.id.desc())
            .limit(TWINS_LOOKED_AT)
        ).all()
    for row in rows:
        if signature(replace(claimed, payload=row.payload, trust=row.trust)) == mine:
            return int(row.id)
    return None


def may_wait(claimed: Claimed, settings: Settings) -> bool:
    """Does this event wait at all: a remote model, and ``DIGEST_ORDER_WAIT_S`` above 0."""
    return settings.order_wait_s > 0 and not models_in_process(claimed.agent_model, settings)


def _wait(
    claimed: Claimed, settings: Settings, what: str, find: Callable[[], int | None], keep_s: float
) -> float:
    """Wait (bounded) until ``find`` names no older event, keeping ``keep_s`` of the task's
    time budget for the model steps still to come; the seconds waited. Never with
    models answered in process: their tasks take an agent's events in batches, in order, and
    one such event taken alone has no model call to save nor to wait on."""
    if not may_wait(claimed, settings):
        return 0.0
    bound = settings.order_wait_s
    started = time.monotonic()
    pause = FIRST_PAUSE_S
    while True:
        older = find()
        waited = time.monotonic() - started
        if older is None:
            if waited >= LONGEST_PAUSE_S:
                log.info("order_waited", event_id=claimed.event_id, what=what,
                         waited_s=round(waited, 2))  # fmt: skip
            return waited
        left = time_left()
        if waited + pause > bound or (left is not None and left - pause < keep_s):
            log.warning(
                "order_wait_ended", event_id=claimed.event_id, what=what, older_event_id=older,
                waited_s=round(waited, 2),
            )  # fmt: skip
            return waited
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_S)


def after_older_events(claimed: Claimed, settings: Settings) -> float:
    """Before reconciling: wait (bounded) until no older event of the agent is being judged;
    the seconds waited."""
    return _wait(  # the reconcile step is still to come
        claimed, settings, "older events", lambda: older_in_judgement(claimed, settings),
        settings.step_budget_s,
    )  # fmt: skip


def after_same_incident(claimed: Claimed, settings: Settings) -> float:
    """Before the model call: wait (bounded) until no older event of the agent with this
    event's signature is being judged (its judgement is then stored, to be reused); the
    seconds waited."""
    if not may_wait(claimed, settings):
        return 0.0  # no signature computed for nothing
    mine = signature(claimed)
    if mine is None:
        return 0.0
    return _wait(  # the reflect and the reconcile steps are still to come
        claimed, settings, "the same incident",
        lambda: original_in_judgement(claimed, settings, mine), settings.model_budget_s,
    )  # fmt: skip
