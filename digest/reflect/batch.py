"""The claimed events of one call, through the one core (``digest.reflect.core``).

Models in process: the events of one agent in one transaction that holds the agent's lesson
lock from the start (``Held``), each judged, reconciled against the bank as the events before
it left it, and written, in event order. A remote model: each event with transactions of its
own and none open while the model is asked (``Own``).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import session_scope
from digest.errors import is_time_limit
from digest.lessons.transition import lock_agent_lessons
from digest.logs import get_logger
from digest.model.prompts import load_prompt
from digest.models import Event
from digest.redact import redact
from digest.reflect import judgements
from digest.reflect.claims import Claimed, ReflectResult, hand_back, still_ours
from digest.reflect.core import Held, Own, reflect_claimed
from digest.reflect.run import about

log = get_logger("digest.reflect")


def reflect_claims(
    claimed: list[Claimed], settings: Settings, *, in_process: bool
) -> list[ReflectResult]:
    """Reflect what one call claimed (``in_process``: its models answer in this process)."""
    if in_process and len(claimed) > 1:
        return reflect_together(claimed, settings)
    return [reflect_alone(c, settings) for c in claimed]


def reflect_alone(claimed: Claimed, settings: Settings) -> ReflectResult:
    """One event in transactions of its own."""
    with about(claimed):
        return reflect_claimed(claimed, settings, Own(settings)).log()


def reflect_together(batch: list[Claimed], settings: Settings) -> list[ReflectResult]:
    """Several claimed events of one agent whose models answer in process, in one transaction
    that holds the agent's lesson lock from the start. Nothing waits on the network while it
    is open (a remote model never gets here), and no epoch check is needed: no other writer
    can move the bank meanwhile.

    A database fault or the time limit rolls the batch back and hands its claims back (the
    task's retry or the next message takes them again); any other error in one event rolls
    back the batch and runs its events one by one, so one bad event fails alone."""
    try:
        with session_scope(settings.database_url) as session:
            events = {
                event.id: event
                for event in session.scalars(
                    select(Event)
                    .where(Event.id.in_([c.event_id for c in batch]))
                    .order_by(Event.id)
                    .with_for_update()
                )
            }
            lock_agent_lessons(session, batch[0].agent_id)
            tx = Held(session, events)
            results = []
            # Rows wait for the batch's flush (new lessons have their ids from the sequence:
            # ``transition.give_id``); a search lays the batch's writes over its view from the
            # session's objects (``digest.lessons.own_view``).
            with session.no_autoflush:
                _read_judgements(session, batch, settings)
                for claimed in batch:
                    if not still_ours(events.get(claimed.event_id), claimed):
                        results.append(ReflectResult(claimed.event_id, "claim_lost"))
                        continue
                    with about(claimed):
                        results.append(reflect_claimed(claimed, settings, tx))
                judgements.write_batch(session)
    except Exception as exc:
        if not _is_fault(exc):
            log.error(
                "batch_failed",
                events=[c.event_id for c in batch],
                error=f"{type(exc).__name__}: {exc}",
            )
            return _one_by_one(batch, settings)
        hand_back(batch, settings)
        raise
    for claimed, result in zip(batch, results, strict=True):
        with about(claimed):
            result.log()
    return results


def _read_judgements(session: Session, batch: list[Claimed], settings: Settings) -> None:
    """The stored judgements of the batch's events, read at once (``judgements.read_batch``),
    when they all ask one model (they do: one agent)."""
    models = {c.agent_model or settings.model_for("reflect") for c in batch}
    if len(models) == 1:
        judgements.read_batch(session, batch, models.pop(), load_prompt("reflect").hash)


def _is_fault(exc: BaseException) -> bool:
    """The database connection failed or the task ran out of time: nothing to learn by running
    the events one by one. (An integrity or data error is about an event: that one is found
    by running them one by one.)"""
    return isinstance(exc, OperationalError | InterfaceError) or is_time_limit(exc)


def _one_by_one(batch: list[Claimed], settings: Settings) -> list[ReflectResult]:
    """The batch's events each on their own (still claimed: the rollback left the claims).

    An event that raises again is left claimed for the relay, as a single event would be, and
    reported as an ``error`` result (its reason names the tenant, the agent and the exception,
    as ``drain`` names an agent that raised), so the events reflected beside it are reported
    too: they are committed, and a caller that got no result for them would under-count.

    A fault (the database gone, the task's time up) ends the pass at once: nothing more can
    be written, so the claims not finished yet are handed back and the fault is raised, as
    for the batch itself."""
    results = []
    for position, claimed in enumerate(batch):
        try:
            results.append(reflect_alone(claimed, settings))
        except Exception as exc:
            if _is_fault(exc):
                hand_back(batch[position:], settings)
                raise
            error = redact(f"{type(exc).__name__}: {exc}".splitlines()[0])
            log.error("event_raised", event_id=claimed.event_id, error=error)
            reason = f"reflecting {claimed.tenant}/{claimed.agent} raised {error}"
            results.append(ReflectResult(claimed.event_id, "error", reason))
    return results
