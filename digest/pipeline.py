"""The one reflect pipeline: claim → judge → reconcile → apply → after-reflect triggers.

Every caller goes through ``reflect_pending``: the worker's reflect task, ``drain`` (the
embedded mode's in-process worker, used by ``digest drain``, ``digest demo`` and improve-now
without a broker), ``reflect_event`` (one event at once, for LESSON.md import) and
``improve_now``. So the embedded default runs exactly the code production runs: the same
batches, the same fault handling, the same triggers.

What a call does, for one agent:

1. **claim** (``digest.reflect.claims``): the named event, or the agent's oldest claimable
   one, and with it the agent's other pending events, in one short transaction (``SKIP
   LOCKED``). With models answered in process a call takes up to
   ``DIGEST_REFLECT_BATCH_SIZE`` events; with a remote model one, so model latency overlaps
   across the pool.
2. **judge, reconcile, apply**: a batch in one transaction under the agent's lesson lock
   (``digest.reflect.batch``); a single event judged and reconciled with no transaction open,
   then written with an epoch check (``digest.reflect.single``).
3. **pass on**: with a broker, the agent's events left over get one (coalesced) message;
   ``drain`` simply calls again until nothing is left.
4. **after-reflect triggers** (``digest.versions.triggers.after_reflect``): a threshold
   compose is scheduled when enough undigested signals have gathered.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import structlog
from sqlalchemy import and_, func, or_, select

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import InvalidArgument
from digest.models import Agent, Event, Tenant, utcnow
from digest.outbox import publish
from digest.reflect.batch import reflect_together
from digest.reflect.claims import Batch, ReflectResult, claim_batch
from digest.reflect.single import reflect_one
from digest.tenants import find_agent
from digest.versions.compose import ComposeResult, compose_version
from digest.versions.triggers import after_reflect

log = structlog.get_logger("digest.pipeline")


def reflect_pending(
    *,
    event_id: int | None = None,
    agent_id: int | None = None,
    settings: Settings | None = None,
    delivery: str | None = None,
    pass_on: bool = True,
    size: int | None = None,
) -> list[ReflectResult]:
    """Reflect ``event_id`` (or the agent's oldest claimable event) and, with it, the agent's
    other pending events, up to one batch. Returns one result per event it took on: an empty
    list when there was nothing to claim.

    Capture sends at most one waiting message per agent (``publish.publish_reflect``): a
    message frees the agent's slot first, then claims every pending event committed before
    that, so no event whose message was coalesced away is left behind. With ``pass_on`` (the
    worker) a batch that does not hold all of them passes the rest on in one message: at
    once with a remote model (the next event starts on another thread while this one waits
    for its model), after the batch with models in process (the batch holds the agent's
    lock; other agents' messages go first). Safe to deliver twice; ``delivery`` is the
    message's Celery task id, so that a second delivery of one message takes back what its
    first, dead run had claimed. ``size`` caps the batch (``reflect_event`` takes one)."""
    if event_id is None and agent_id is None:
        raise InvalidArgument("reflect_pending needs an event id or an agent id")
    settings = settings or get_settings()
    if pass_on and agent_id is not None:
        publish.release_reflect_slot(agent_id, settings)
    batch = claim_batch(event_id, agent_id, settings, delivery, size=size)
    for noop in batch.results:
        log.info("reflect_noop", event_id=noop.event_id, status=noop.status, reason=noop.reason)
    if batch.claimed:
        log.info(
            "reflect_batch",
            agent_id=batch.agent_id,
            events=[c.event_id for c in batch.claimed],
            in_process=batch.in_process,
            left=batch.next_pending is not None,
        )
    if pass_on and batch.next_pending is not None and not batch.in_process:
        _pass_on(batch, settings)
    try:
        if batch.in_process and len(batch.claimed) > 1:
            results = reflect_together(batch.claimed, settings)
        else:
            results = [reflect_one(c, settings, time.monotonic()) for c in batch.claimed]
    finally:
        # Even if this batch raised: the agent's other pending events must not wait for it.
        if pass_on and batch.next_pending is not None and batch.in_process:
            _pass_on(batch, settings)
    if batch.agent_id is not None and any(r.status == "reflected" for r in results):
        _after_reflect(batch.agent_id, settings)
    return batch.results + results


def reflect_event(event_id: int, settings: Settings | None = None) -> ReflectResult:
    """Reflect one event now, end to end, in this process. Safe to call twice: the second
    call does nothing."""
    results = reflect_pending(event_id=event_id, settings=settings, pass_on=False, size=1)
    return next(r for r in results if r.event_id == event_id)


def drain(
    settings: Settings | None = None,
    *,
    tenant: str | None = None,
    agent: str | None = None,
    on_result: Callable[[ReflectResult], None] | None = None,
) -> list[ReflectResult]:
    """Reflect every pending (or stranded ``processing``) event in this process, agent by
    agent, a batch at a time: the embedded mode's worker."""
    settings = settings or get_settings()
    results: list[ReflectResult] = []
    for agent_id in agents_with_work(settings, tenant=tenant, agent=agent):
        while True:
            taken = reflect_pending(agent_id=agent_id, settings=settings, pass_on=False)
            for result in taken:
                results.append(result)
                if on_result is not None:
                    on_result(result)
            if not taken:
                break
    return results


def agents_with_work(
    settings: Settings, *, tenant: str | None = None, agent: str | None = None
) -> list[int]:
    """Agents with events to reflect (pending, or claimed by a worker that died), the agent
    with the oldest such event first."""
    stale_before = utcnow() - timedelta(seconds=settings.processing_stale_after_s)
    query = (
        select(Event.agent_id)
        .join(Agent, Agent.id == Event.agent_id)
        .join(Tenant, Tenant.id == Event.tenant_id)
        .where(
            or_(
                Event.status == "pending",
                and_(Event.status == "processing", Event.processing_started_at <= stale_before),
            )
        )
        .group_by(Event.agent_id)
        .order_by(func.min(Event.id))
    )
    if tenant is not None:
        query = query.where(Tenant.name == tenant)
    if agent is not None:
        query = query.where(Agent.name == agent)
    with read_scope(settings.database_url) as session:
        return list(session.scalars(query))


def improve_now(tenant: str, agent: str, settings: Settings | None = None) -> ComposeResult:
    """Reflect the agent's pending events now, then compose (trigger ``manual``), ignoring
    the threshold and the quiet period."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent_id = find_agent(session, tenant, agent).id
    drain(settings, tenant=tenant, agent=agent)
    return compose_version(agent_id, "manual", settings)


def _after_reflect(agent_id: int, settings: Settings) -> None:
    """The threshold trigger. The events are already reflected: a failure here only delays
    the next version until the weekly sweep, so it is logged, not raised."""
    try:
        after_reflect(agent_id, settings)
    except Exception as exc:
        log.error(
            "compose_schedule_failed", agent_id=agent_id, error=f"{type(exc).__name__}: {exc}"
        )


def _pass_on(batch: Batch, settings: Settings) -> None:
    assert batch.next_pending is not None and batch.agent_id is not None
    # Coalesced like a capture's message: if one already waits for the agent, it covers these.
    publish.publish_reflect(batch.next_pending, settings, agent_id=batch.agent_id)
