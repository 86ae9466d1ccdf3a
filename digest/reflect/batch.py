"""A batch: several claimed events of one agent whose models answer in process, judged,
reconciled and written in one transaction that holds the agent's lesson lock from the start.
"""

from __future__ import annotations

import time

from sqlalchemy import inspect, select
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import session_scope
from digest.errors import LLMError, is_time_limit
from digest.lessons.transition import lock_agent_lessons
from digest.logs import get_logger
from digest.model.contracts import Skip
from digest.models import Event, Lesson
from digest.redact import redact
from digest.reflect.apply import apply_and_finish, mark_fault, mark_skipped
from digest.reflect.claims import Claimed, ReflectResult, hand_back, still_ours
from digest.reflect.judge import Failed, RunInfo, decide_plan, new_run, prepare, verdict_for
from digest.reflect.reconcile import read_neighbours
from digest.reflect.repeats import known_repeats
from digest.reflect.single import about, reflect_one

log = get_logger("digest.reflect")


def reflect_together(batch: list[Claimed], settings: Settings) -> list[ReflectResult]:
    """Several claimed events of one agent whose models answer in process, in one transaction
    that holds the agent's lesson lock from the start: each event is judged, reconciled
    against the bank as the events before it left it, and written, in event order. Nothing
    waits on the network while it is open (a remote model never gets here), and no epoch
    check is needed: no other writer can move the bank meanwhile.

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
            results = []
            # Rows that nothing in the batch reads back (history, citations, runs, statuses)
            # wait for one flush; changes a search reads are flushed before it (_bank_changed).
            with session.no_autoflush:
                for claimed in batch:
                    event = events.get(claimed.event_id)
                    if event is None or not still_ours(event, claimed):
                        results.append(ReflectResult(claimed.event_id, "claim_lost"))
                        continue
                    with about(claimed):
                        run = new_run(claimed, settings, time.monotonic())
                        results.append(_reflect_held(session, event, run))
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


def _reflect_held(session: Session, event: Event, run: RunInfo) -> ReflectResult:
    """One event of a batch, inside the batch's transaction (event row and agent lock held)."""
    verdict = verdict_for(run, session)
    if isinstance(verdict, Skip):
        return mark_skipped(session, event, run, verdict.reason)
    if isinstance(verdict, Failed):
        return mark_fault(verdict.error)(session, event, run, verdict.reason)
    claimed, settings = run.claimed, run.settings
    try:
        prepared = prepare(run, verdict)
        snapshot = (
            run.reused.snapshot
            if run.reused is not None and not prepared.quarantined
            else known_repeats(session, claimed, prepared.clean, settings)
        )
        if snapshot is None:
            if _bank_changed(session):
                session.flush()  # the search reads the rows this transaction changed
            snapshot = read_neighbours(
                session,
                claimed.tenant_id,
                claimed.agent_id,
                prepared.clean,
                settings.reconcile_k,
                with_epoch=False,
            )
        plan = decide_plan(run, prepared, snapshot)
    except LLMError as exc:  # nothing of this event is written before the plan is decided
        return mark_fault(exc)(session, event, run, str(exc))
    # The neighbours were read under the lock this transaction holds: an ADD needs no second
    # look for an identical lesson, unless the event's own candidates could be identical.
    recheck = len(prepared.clean) > 1
    return apply_and_finish(session, event, run, prepared, plan, recheck_adds=recheck)


#: lesson columns the neighbour search depends on (its text, its filter)
_SEARCHED = ("situation", "correction", "status", "expires_at", "agent_id")


def _bank_changed(session: Session) -> bool:
    """Does the session hold unflushed changes to lessons that a neighbour search would see?
    (Support counts and timestamps do not matter; new lessons are flushed when added.)"""
    for obj in session.dirty:
        if isinstance(obj, Lesson):
            attrs = inspect(obj).attrs
            if any(attrs[name].history.has_changes() for name in _SEARCHED):
                return True
    return False


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
            results.append(reflect_one(claimed, settings, time.monotonic()))
        except Exception as exc:
            if _is_fault(exc):
                hand_back(batch[position:], settings)
                raise
            error = redact(f"{type(exc).__name__}: {exc}".splitlines()[0])
            log.error("event_raised", event_id=claimed.event_id, error=error)
            reason = f"reflecting {claimed.tenant}/{claimed.agent} raised {error}"
            results.append(ReflectResult(claimed.event_id, "error", reason))
    return results
