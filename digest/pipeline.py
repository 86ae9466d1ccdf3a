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
2. **reflect** each claimed event through the one core (``digest.reflect.core``): verdict,
   screen, reconcile, apply. With models in process the batch shares one transaction under
   the agent's lesson lock; with a remote model each event has transactions of its own and
   none is open while the model is asked (``digest.reflect.batch``).
3. **pass on**: with a broker, the agent's events left over get one (coalesced) message;
   ``drain`` simply calls again until nothing is left.
4. **after-reflect triggers** (``digest.versions.triggers.after_reflect``): a threshold
   compose is scheduled when enough undigested signals have gathered.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import InvalidArgument, is_time_limit
from digest.lessons.neighbours import refresh_kept
from digest.logs import get_logger
from digest.model.seam import time_budget
from digest.models import Agent, Event, Tenant, as_utc, utcnow
from digest.outbox import publish
from digest.questions.merge import agents_with_new_questions, merge_questions
from digest.redact import redact
from digest.reflect.batch import reflect_claims
from digest.reflect.claims import Batch, ReflectResult, claim_batch, claimable
from digest.tenants import find_agent, named
from digest.versions.compose import ComposeResult, compose_version
from digest.versions.triggers import after_reflect

log = get_logger("digest.pipeline")


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
    # Model calls end before the task's soft limit: an event out of time waits, not dies.
    budget = time_budget(settings.model_deadline_s)
    try:
        with budget:
            results = reflect_claims(batch.claimed, settings, in_process=batch.in_process)
    finally:
        # Even if this batch raised: the agent's other pending events must not wait for it.
        if pass_on and batch.next_pending is not None and batch.in_process:
            _pass_on(batch, settings)
    if batch.agent_id is not None and any(r.status == "reflected" for r in results):
        # the agent's index brought up to date on the write, not on an agent's next turn
        refresh_kept(batch.agent_id, settings)
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
    agent, a batch at a time: the embedded mode's worker.

    One agent's failure never holds up the others: when reflecting an agent raises, the
    error is logged, each event the failed call left unfinished is reported as a result with
    status ``error`` (its reason names the tenant, the agent and the exception), and drain
    goes on with the next agent. That agent's other events wait for the next drain (or a
    worker); its unfinished claims are taken over once stale, and an event that fails every
    time ends ``dead`` after ``DIGEST_MAX_EVENT_ATTEMPTS``."""
    settings = settings or get_settings()
    results: list[ReflectResult] = []
    for agent_id in agents_with_work(settings, tenant=tenant, agent=agent):
        while True:
            started = utcnow()
            try:
                taken = reflect_pending(agent_id=agent_id, settings=settings, pass_on=False)
            except Exception as exc:
                if is_time_limit(exc):
                    raise  # the task's own time is up: nothing more is reflected in it
                taken = _drain_errors(agent_id, started, exc, settings)
                stop = True
            else:
                stop = not taken
            for result in taken:
                results.append(result)
                if on_result is not None:
                    on_result(result)
            if stop:
                break
    # no worker merges paraphrased questions here: this process does (digest.questions.merge)
    for agent_id in agents_with_new_questions(settings, tenant=tenant, agent=agent):
        merge_questions(agent_id, settings)
    return results


def _drain_errors(
    agent_id: int, started: datetime, exc: Exception, settings: Settings
) -> list[ReflectResult]:
    """The ``error`` results of a reflect call of ``drain`` that raised ``exc``: one for each
    event of the agent it left claimed, or, if it had claimed none (or handed them back), for
    the agent's oldest claimable event, the one it would have taken first."""
    error = redact(f"{type(exc).__name__}: {exc}".splitlines()[0])
    with read_scope(settings.database_url) as session:
        names = session.execute(
            select(Tenant.name, Agent.name)
            .join(Agent, Agent.tenant_id == Tenant.id)
            .where(Agent.id == agent_id)
        ).one()
        left = list(
            session.scalars(
                select(Event.id)
                .where(
                    Event.agent_id == agent_id,
                    Event.status == "processing",
                    Event.processing_started_at >= started,
                )
                .order_by(Event.id)
            )
        )
        if not left:
            left = list(
                session.scalars(
                    select(Event.id)
                    .where(Event.agent_id == agent_id, claimable(settings))
                    .order_by(Event.id)
                    .limit(1)
                )
            )
    log.error(
        "drain_agent_failed",
        tenant=names[0],
        agent=names[1],
        agent_id=agent_id,
        events=left,
        error=error,
    )
    reason = f"reflecting {names[0]}/{names[1]} raised {error}"
    return [ReflectResult(event_id, "error", reason) for event_id in left]


def agents_with_work(
    settings: Settings, *, tenant: str | None = None, agent: str | None = None
) -> list[int]:
    """Agents with events to reflect (pending, waiting with their next attempt due, or
    claimed by a worker that died), the agent with the oldest such event first."""
    query = (
        select(Event.agent_id)
        .join(Agent, Agent.id == Event.agent_id)
        .join(Tenant, Tenant.id == Event.tenant_id)
        .where(claimable(settings))
        .group_by(Event.agent_id)
        .order_by(func.min(Event.id))
    )
    with read_scope(settings.database_url) as session:
        return list(session.scalars(query.where(*named(tenant, agent))))


def improve_now(tenant: str, agent: str, settings: Settings | None = None) -> ComposeResult:
    """Reflect everything the agent captured before this call, then compose (trigger
    ``manual``), ignoring the threshold and the quiet period.

    "Everything" includes events another worker is reflecting right now: their claims are
    waited for (up to ``DIGEST_IMPROVE_WAIT_S``), and whatever such a worker passes back is
    reflected here too; events waiting after a model fault are tried once more now. What
    still cannot be covered is counted in the result (``waiting``, ``in_flight``)."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent_id = find_agent(session, tenant, agent).id
        last = session.scalar(select(func.max(Event.id)).where(Event.agent_id == agent_id))
        # the owner asked now: a waiting event's backoff ends here
        session.execute(
            update(Event)
            .where(Event.agent_id == agent_id, Event.status == "waiting")
            .values(next_attempt_at=utcnow())
        )
    give_up = time.monotonic() + settings.improve_wait_s
    errored: set[int] = set()  # left claimed by this drain's own error: not in flight elsewhere
    while True:
        results = drain(settings, tenant=tenant, agent=agent)
        errored.update(r.event_id for r in results if r.status == "error")
        left = _uncovered(agent_id, last, settings, errored)
        if left["in_flight"] == 0 and left["ready"] == 0:
            break
        if time.monotonic() >= give_up:
            log.warning("improve_now_stopped_waiting", agent_id=agent_id, **left)
            break
        time.sleep(IMPROVE_POLL_S)
    result = compose_version(agent_id, "manual", settings)
    return replace(result, waiting=left["waiting"], in_flight=left["in_flight"])


#: how often improve-now looks again at events other workers are reflecting
IMPROVE_POLL_S = 0.1


def _uncovered(
    agent_id: int, last: int | None, settings: Settings, errored: set[int]
) -> dict[str, int]:
    """The agent's events up to ``last`` that are not decided yet: being reflected by
    another worker (a live claim), ready for this one, or waiting after a fault. Events in
    ``errored`` (this process's drain raised on them; drain reported them) are left out."""
    if last is None:
        return {"in_flight": 0, "ready": 0, "waiting": 0}
    stale_before = utcnow() - timedelta(seconds=settings.processing_stale_after_s)
    with read_scope(settings.database_url) as session:
        rows = session.execute(
            select(
                Event.id, Event.status, Event.processing_started_at, Event.next_attempt_at
            ).where(
                Event.agent_id == agent_id,
                Event.id <= last,
                Event.status.in_(("pending", "processing", "waiting")),
            )
        ).all()
    now = utcnow()
    counts = {"in_flight": 0, "ready": 0, "waiting": 0}
    for event_id, status, started, due in rows:
        if event_id in errored:
            continue
        if status == "processing" and started is not None and as_utc(started) > stale_before:
            counts["in_flight"] += 1
        elif status == "waiting" and due is not None and as_utc(due) > now:
            counts["waiting"] += 1
        else:
            counts["ready"] += 1
    return counts


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
