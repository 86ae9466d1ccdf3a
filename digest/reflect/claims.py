"""Claims: an event moves pending → processing under a row lock before anyone judges it.

A finished event is left alone; a fresh ``processing`` claim belongs to a live worker; a stale
one (older than the hard time limit) belongs to a dead worker and is taken over, and so is a
claim recorded under the very delivery (Celery task id) that is running now. A batch claims an
agent's oldest pending events in one transaction (``SKIP LOCKED``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, or_, select, update
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import session_scope
from digest.logs import get_logger
from digest.model import spend
from digest.model.budget import Limits
from digest.models import Agent, Event, Tenant, as_utc, utcnow
from digest.reflect.policy import models_in_process
from digest.tenants import policy_for
from digest.text import edit_metrics

log = get_logger("digest.reflect")

TERMINAL = frozenset({"reflected", "skipped", "failed", "dead"})


@dataclass
class Claimed:
    """What a claimed event needs outside the transaction (plain values, no ORM objects)."""

    event_id: int
    attempt: int
    tenant_id: int
    agent_id: int
    kind: str
    trust: str
    payload: dict[str, Any]
    edit_ratio: float | None
    edit_distance: int | None
    thread_id: str | None
    contact_id: str | None
    tenant: str
    agent: str
    agent_model: str | None
    enable_learning: bool
    instructions: str | None
    #: the tenant's promotion policy (distinct contacts), read with the claim
    promote_at: int
    #: the tenant's daily model budget (``digest.model.spend``), read with the claim
    budget: Limits = field(default_factory=Limits)


@dataclass
class ReflectResult:
    event_id: int
    status: str
    reason: str | None = None
    lesson_ids: list[int] = field(default_factory=list)
    quarantined: int = 0
    #: the log line that reports this outcome: (level, event, fields), written once committed
    note: tuple[str, str, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def log(self) -> ReflectResult:
        if self.note is not None:
            level, event, fields = self.note
            getattr(log, level)(event, **fields)
        return self


def lock_event(session: Session, event_id: int) -> Event | None:
    return session.scalars(select(Event).where(Event.id == event_id).with_for_update()).first()


def own_event(session: Session, event_id: int) -> Row[Event, Agent, Tenant] | None:
    """One round trip: the event row locked, with its agent and tenant (not locked)."""
    return session.execute(
        select(Event, Agent, Tenant)
        .join(Agent, Agent.id == Event.agent_id)
        .join(Tenant, Tenant.id == Event.tenant_id)
        .where(Event.id == event_id)
        .with_for_update(of=Event)
    ).first()


def claim_row(
    event: Event, agent: Agent, tenant: Tenant, settings: Settings, delivery: str | None = None
) -> Claimed | ReflectResult:
    """Claim a locked event row, or say why not (finished, live claim elsewhere, dead).

    ``delivery`` is the Celery task id of the message being run: a claim recorded under that
    same id was made by an earlier delivery of this very message, which died (Celery re-queues
    the message of a lost worker process, and a retry re-sends it), so it is taken over at once
    instead of when it goes stale."""
    if event.status in TERMINAL:
        return ReflectResult(event.id, "already_done", event.status)
    now = utcnow()
    due = event.next_attempt_at
    if event.status == "waiting" and due is not None and as_utc(due) > now:
        return ReflectResult(event.id, "waiting", f"next attempt at {as_utc(due).isoformat()}")
    if event.status == "processing":
        stale_before = now - timedelta(seconds=settings.processing_stale_after_s)
        started = event.processing_started_at
        if delivery is not None and event.claim_token == delivery:
            log.warning("redelivered_claim_taken_over", event_id=event.id, attempts=event.attempts)
        elif started is not None and as_utc(started) > stale_before:
            return ReflectResult(event.id, "in_progress", "claimed by a live worker")
        else:
            log.warning("stale_claim_taken_over", event_id=event.id, attempts=event.attempts)
    if event.attempts >= settings.max_event_attempts:
        event.status = "dead"
        event.last_error = (
            f"gave up after {event.attempts} attempts that never finished "
            "(worker killed or time limit hit each time)"
        )
        event.updated_at = event.finished_at = now
        return ReflectResult(event.id, "dead", event.last_error)
    return take(event, agent, tenant, settings, now, delivery)


def take(
    event: Event,
    agent: Agent,
    tenant: Tenant,
    settings: Settings,
    now: datetime,
    delivery: str | None = None,
) -> Claimed:
    event.status = "processing"
    event.next_attempt_at = None
    event.attempts += 1
    event.processing_started_at = now
    event.claim_token = delivery
    event.updated_at = now
    if event.kind == "operator_edit" and event.edit_ratio is None:
        # Measured here, not on the agent's hot path (capture never loads rapidfuzz).
        payload = event.payload
        event.edit_distance, event.edit_ratio = edit_metrics(
            str(payload.get("original") or ""), payload.get("final")
        )
    return Claimed(
        event_id=event.id,
        attempt=event.attempts,
        tenant_id=event.tenant_id,
        agent_id=event.agent_id,
        kind=event.kind,
        trust=event.trust,
        payload=dict(event.payload),
        edit_ratio=event.edit_ratio,
        edit_distance=event.edit_distance,
        thread_id=event.thread_id,
        contact_id=event.contact_id,
        tenant=tenant.name,
        agent=agent.name,
        agent_model=agent.llm_model,
        enable_learning=agent.enable_learning,
        instructions=agent.learning_instructions,
        promote_at=policy_for(tenant, settings).promotion_contacts,
        budget=spend.limits_of(tenant.daily_tokens, tenant.daily_cost_usd),
    )


def still_ours(event: Event | None, claimed: Claimed) -> bool:
    ok = event is not None and event.status == "processing" and event.attempts == claimed.attempt
    if not ok:
        log.warning("claim_lost", event_id=claimed.event_id, attempt=claimed.attempt)
    return ok


@dataclass
class Batch:
    """What one reflect task took on: the events it claimed (its own and other pending events
    of the same agent, in event order), the outcome of its own event if that was not
    claimable, and a pending event it left for the next task."""

    agent_id: int | None
    claimed: list[Claimed] = field(default_factory=list)
    results: list[ReflectResult] = field(default_factory=list)
    next_pending: int | None = None
    in_process: bool = False


def claim_batch(
    event_id: int | None,
    agent_id: int | None,
    settings: Settings,
    delivery: str | None = None,
    *,
    size: int | None = None,
) -> Batch:
    """Claim ``event_id`` (``claim_row`` decides; without one, the agent's oldest claimable event:
    pending, or claimed by a worker that died) and, in the same transaction, the agent's
    oldest other pending events, skipping rows another worker is claiming right now; with
    ``delivery`` (the message's task id), also the events an earlier, dead delivery of the
    same message had claimed.

    With models answered in process a task takes up to ``DIGEST_REFLECT_BATCH_SIZE`` events
    (or ``size``); with a remote model one (each event then gets its own task, so model
    latency overlaps across the pool). ``next_pending`` names one more pending event if any
    was left."""
    batch = Batch(agent_id=agent_id)
    with session_scope(settings.database_url) as session:
        if event_id is None:
            assert agent_id is not None
            event_id = _oldest_claimable(session, agent_id, settings)
            if event_id is None:
                return batch
        row = own_event(session, event_id)
        if row is None:
            batch.results.append(ReflectResult(event_id, "missing", "no such event"))
            owner = (
                None
                if agent_id is None
                else session.execute(
                    select(Agent, Tenant)
                    .join(Tenant, Tenant.id == Agent.tenant_id)
                    .where(Agent.id == agent_id)
                ).first()
            )
            if owner is None:
                return batch
            agent, tenant = owner
        else:
            event, agent, tenant = row
            own = claim_row(event, agent, tenant, settings, delivery)
            if isinstance(own, Claimed):
                batch.claimed.append(own)
            else:
                batch.results.append(own)
        batch.agent_id = agent.id
        batch.in_process = models_in_process(agent.llm_model, settings)
        if size is not None:  # the named event counts, claimed or not (reflect_event: one)
            room = max(0, size - 1)
        else:
            room = (settings.reflect_batch_size if batch.in_process else 1) - len(batch.claimed)
        claimable = ready(utcnow())
        if delivery is not None:
            mine = and_(Event.status == "processing", Event.claim_token == delivery)
            claimable = or_(claimable, mine)
        others = list(
            session.scalars(
                select(Event)
                .where(
                    Event.agent_id == agent.id,
                    claimable,
                    Event.id != event_id,
                    Event.attempts < settings.max_event_attempts,
                )
                .order_by(Event.id)
                .limit(room + 1)
                .with_for_update(skip_locked=True)
            )
        )
        now = utcnow()
        for other in others[:room]:
            if other.status == "processing":
                log.warning(
                    "redelivered_claim_taken_over", event_id=other.id, attempts=other.attempts
                )
            batch.claimed.append(take(other, agent, tenant, settings, now, delivery))
        if len(others) > room:
            batch.next_pending = others[room].id
    batch.claimed.sort(key=lambda c: c.event_id)
    return batch


def _oldest_claimable(session: Session, agent_id: int, settings: Settings) -> int | None:
    """The agent's oldest event a worker may claim now: pending, or ``processing`` under a
    claim older than the hard time limit (its worker died). Rows being claimed right now are
    skipped."""
    return session.scalars(
        select(Event.id)
        .where(Event.agent_id == agent_id, claimable(settings))
        .order_by(Event.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    ).first()


def ready(now: datetime) -> ColumnElement[bool]:
    """Events waiting for a worker: pending, or waiting with their next attempt due."""
    return or_(
        Event.status == "pending",
        and_(Event.status == "waiting", Event.next_attempt_at <= now),
    )


def claimable(settings: Settings) -> ColumnElement[bool]:
    """Events a worker may claim now: ``ready``, or ``processing`` under a claim older than
    the hard time limit (its worker died)."""
    now = utcnow()
    stale_before = now - timedelta(seconds=settings.processing_stale_after_s)
    return or_(
        ready(now),
        and_(Event.status == "processing", Event.processing_started_at <= stale_before),
    )


def hand_back(batch: list[Claimed], settings: Settings) -> None:
    """Best effort after a rolled-back batch: its claims back to ``pending`` (the attempt
    counted) so a retry or the next message takes them at once. If the database is down this
    fails too; the relay then takes the claims over once they are stale."""
    try:
        with session_scope(settings.database_url) as session:
            for claimed in batch:
                session.execute(
                    update(Event)
                    .where(
                        Event.id == claimed.event_id,
                        Event.status == "processing",
                        Event.attempts == claimed.attempt,
                    )
                    # The attempt still counts: a batch that fails the same way every time
                    # ends `dead` after DIGEST_MAX_EVENT_ATTEMPTS instead of looping.
                    .values(
                        status="pending",
                        processing_started_at=None,
                        claim_token=None,
                        updated_at=utcnow(),
                    )
                )
    except Exception as exc:
        log.warning(
            "claims_not_handed_back",
            events=[c.event_id for c in batch],
            error=type(exc).__name__,
        )
