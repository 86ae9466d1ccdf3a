"""The outbox relay and the embedded drain.

Postgres is the truth; the broker only carries hints. The relay re-publishes what a lost
message would otherwise strand: events still ``pending`` after ``DIGEST_RELAY_PENDING_AGE_S``
(the hot-path publish failed, or Redis restarted and lost its queue), events left
``processing`` past the hard time limit (the worker died; with Redis, its unacked message would
otherwise wait out the whole visibility timeout), and ``waiting`` events (put back after a
passing model fault) whose next attempt is due. It runs from beat every
``DIGEST_RELAY_INTERVAL_S`` and once whenever a worker (re)connects to the broker, and records
each run in ``heartbeats`` (``digest doctor`` and ``digest stats`` warn when it stops). While
messages still wait in the queue (a backlog), a published pending event is most likely one of
them, so only never-published ones are re-published; once the queue has drained, every stranded
event is. A queue lost in a Redis restart under steady traffic is therefore replayed when the
backlog clears, not before.

Embedded mode has no broker: ``digest.pipeline.drain`` reflects pending events in this process
instead.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import and_, or_, select

from digest import heartbeats
from digest.config import Settings, get_settings
from digest.db import is_postgres, session_scope
from digest.errors import OwnerInputError
from digest.logs import get_logger
from digest.models import Agent, Event, Question, Tenant, utcnow
from digest.outbox import publish
from digest.tenants import find_agent, tenant_named, unknown_key

log = get_logger("digest.relay")


def _stranded(settings: Settings, *, backlog: bool = False) -> object:
    """Events whose message may be gone. With a ``backlog`` (messages still wait in the
    queue), a pending event that was published is most likely among them: only events never
    published count, or every minute of backlog would queue each one once more."""
    now = utcnow()
    pending_before = now - timedelta(seconds=settings.relay_pending_age_s)
    stale_before = now - timedelta(seconds=settings.processing_stale_after_s)
    republish = (
        Event.published_at.is_(None)
        if backlog
        else or_(Event.published_at.is_(None), Event.published_at <= pending_before)
    )
    return or_(
        and_(Event.status == "pending", Event.created_at <= pending_before, republish),
        # put back after a passing model fault, its next attempt now due
        and_(
            Event.status == "waiting",
            Event.next_attempt_at <= now,
            or_(Event.published_at.is_(None), Event.published_at <= pending_before),
        ),
        and_(
            Event.status == "processing",
            Event.processing_started_at <= stale_before,
            or_(Event.published_at.is_(None), Event.published_at <= stale_before),
        ),
    )


def relay_pending(settings: Settings | None = None) -> list[int]:
    """Re-publish stranded events (``FOR UPDATE SKIP LOCKED``: relays never block each other).

    Returns the ids published. Rows whose publish failed stay as they were for the next run.
    """
    settings = settings or get_settings()
    if settings.embedded:
        log.info("relay_skipped", reason="embedded mode has no broker; use drain")
        return []
    waiting = publish.waiting_messages(settings)
    if waiting is None:
        log.warning("relay_skipped", reason="broker unreachable; the next run retries")
        return []
    published: list[int] = []
    with session_scope(settings.database_url) as session:
        heartbeats.beat(session, heartbeats.RELAY, backlog=waiting)
        query = (
            select(Event)
            .where(_stranded(settings, backlog=waiting > 0))  # type: ignore[arg-type]
            .order_by(Event.id)
            .limit(settings.relay_batch_size)
        )
        if is_postgres(session):
            query = query.with_for_update(skip_locked=True)
        for event in session.scalars(query):
            if not publish.publish_reflect(event.id, settings):
                break  # the broker is down: stop here, the next run retries
            event.published_at = utcnow()
            published.append(event.id)
    if published:
        log.info("relay_published", count=len(published), first=published[0], last=published[-1])
    _republish_merges(settings)
    return published


def _republish_merges(settings: Settings) -> None:
    """Queue the question merge again for agents whose new questions wait unjudged past the
    pending age (the ask's publish was lost, or the judge met a passing fault)."""
    before = utcnow() - timedelta(seconds=settings.relay_pending_age_s)
    with session_scope(settings.database_url) as session:
        agent_ids = session.scalars(
            select(Question.agent_id)
            .where(
                Question.judged_at.is_(None),
                Question.status.in_(("open", "held")),
                Question.created_at <= before,
            )
            .group_by(Question.agent_id)
            .limit(settings.relay_batch_size)
        ).all()
    for agent_id in agent_ids:
        if not publish.publish_merge_questions(agent_id, settings):
            break


REQUEUEABLE = ("failed", "dead")


def requeue_events(
    tenant: str,
    agent: str | None = None,
    statuses: tuple[str, ...] = REQUEUEABLE,
    settings: Settings | None = None,
) -> list[int]:
    """Put an agent's (or a tenant's) ``failed``/``dead`` events back to ``pending``.

    For after the cause is fixed (a model outage, a bad key): attempts restart at 0 and the
    previous error stays in ``last_error`` until the next run replaces it. With a broker the
    events are published at once (a failed publish leaves them for the relay); embedded,
    ``drain`` picks them up. Returns the ids requeued.
    """
    unknown = set(statuses) - set(REQUEUEABLE)
    if unknown or not statuses:
        raise OwnerInputError(
            f"status: only {' and '.join(REQUEUEABLE)} events can be requeued, got {statuses!r}"
        )
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        if agent is not None:
            agent_ids = select(Agent.id).where(Agent.id == find_agent(session, tenant, agent).id)
        else:
            tenant_id = session.scalar(select(Tenant.id).where(tenant_named(tenant)))
            if tenant_id is None:
                raise unknown_key("tenant", tenant)
            agent_ids = select(Agent.id).where(Agent.tenant_id == tenant_id)
        query = (
            select(Event)
            .where(Event.agent_id.in_(agent_ids), Event.status.in_(statuses))
            .order_by(Event.id)
        )
        if is_postgres(session):
            query = query.with_for_update(skip_locked=True)
        events = list(session.scalars(query))
        for event in events:
            event.status = "pending"
            event.attempts = 0
            event.processing_started_at = None
            event.published_at = None
        ids = [event.id for event in events]
    if ids:
        log.info("events_requeued", count=len(ids), tenant=tenant, agent=agent)
    if not settings.embedded:
        for event_id in ids:
            if not publish.publish_reflect(event_id, settings):
                break  # the broker is down: the relay publishes the rest once it is back
    return ids
