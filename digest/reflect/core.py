"""The one reflect core: one claimed event → verdict → screen → reconcile → apply.

    reflect_claimed(claimed, settings, tx)

Every event any caller reflects goes through this function, whichever model answers. What
differs between a model that answers in process (``offline/rules``, a scripted model) and a
remote one is only where the transactions are, and ``tx`` says it:

- ``Own`` (a remote model): no transaction is open while the model is asked. Neighbours are
  read in a short read scope, and the write opens its own transaction under the agent's
  lesson lock and checks that what the plan was decided from still holds: the lesson epoch,
  or the neighbours read again, or, for a plan that only cites lessons it repeats, that they
  are still active. If not, reconciliation runs again (``DIGEST_RECONCILE_MAX_ROUNDS``); the
  last round turns an UPDATE of a lesson that changed meanwhile into a NOOP.
- ``Held`` (models in process, several events of one agent): one transaction, open from the
  start with the events' rows and the agent's lesson lock (``digest.reflect.batch``). No
  other writer can move the bank, so nothing needs re-checking, and an exact repeat of a
  lesson this process wrote is found by its text instead of searched for.

The steps live in their own modules: ``run`` (the run in progress), ``verdict`` (skip or
candidates), ``prepare`` (secrets masked, the injection screen, reconciliation's decision),
``reconcile`` (neighbours, fast path, the model's operations made safe) and ``apply`` (the
plan written with the event's final status).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import read_scope, session_scope
from digest.errors import LLMError
from digest.lessons.budgets import recorded_reader
from digest.lessons.store import Candidate
from digest.lessons.transition import lock_agent_lessons
from digest.logs import get_logger
from digest.model import spend
from digest.model.contracts import Skip
from digest.models import Event
from digest.reflect.apply import (
    Mark,
    apply_and_finish,
    lessons_active,
    mark_fault,
    mark_skipped,
    plan_still_valid,
    without_stale_rewrites,
)
from digest.reflect.claims import Claimed, ReflectResult, lock_event, still_ours
from digest.reflect.order import after_older_events
from digest.reflect.prepare import Prepared, decide_plan, prepare
from digest.reflect.reconcile import Plan, Snapshot, read_neighbours
from digest.reflect.repeats import known_repeats
from digest.reflect.run import RunInfo, new_run
from digest.reflect.verdict import Failed, verdict_for

log = get_logger("digest.reflect")

#: what the core's own write reports when it must go round again (never a final status)
EPOCH_MOVED = "epoch_moved"
#: the stored judgement a write was about to reuse no longer holds: judge the event itself
STALE = "judgement_stale"

Step = Callable[[Session, Event], ReflectResult]


class Own:
    """Transactions of the event's own, none open while a model is asked (a remote model)."""

    held = False
    session: Session | None = None

    def __init__(self, settings: Settings) -> None:
        self._url = settings.database_url

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with read_scope(self._url) as session:
            yield session

    def write(self, claimed: Claimed, step: Step, *, lessons: bool = True) -> ReflectResult:
        """``step`` in a transaction of its own, with the event's row locked and still this
        claim's, and (``lessons``) the agent's lesson lock."""
        with session_scope(self._url) as session:
            event = lock_event(session, claimed.event_id)
            if event is None or not still_ours(event, claimed):
                return ReflectResult(claimed.event_id, "claim_lost")
            if lessons:
                lock_agent_lessons(session, event.agent_id)
            return step(session, event)


class Held:
    """One open transaction of a batch that already holds the events' rows and the agent's
    lesson lock (models in process only: nothing waits on the network while it is open)."""

    held = True

    def __init__(self, session: Session, events: dict[int, Event]) -> None:
        self.session: Session | None = session
        self._session = session
        self._events = events

    @contextmanager
    def reading(self) -> Iterator[Session]:
        # nothing to flush first: a search lays what this transaction wrote over its view
        # from the session's own objects (``digest.lessons.own_view``)
        yield self._session

    def write(self, claimed: Claimed, step: Step, *, lessons: bool = True) -> ReflectResult:
        return step(self._session, self._events[claimed.event_id])


Transactions = Own | Held


def reflect_claimed(claimed: Claimed, settings: Settings, tx: Transactions) -> ReflectResult:
    """Reflect one claimed event to its final status (or back to waiting after a passing
    model fault, or while its tenant's daily model budget is spent): the one core every path
    runs, its remote model calls charged to the tenant. Returns its result; the caller logs
    it once the transaction it ran in has committed."""
    recorded = recorded_reader(settings, claimed.tenant_id)
    with spend.for_tenant(claimed.tenant, claimed.budget, recorded):
        return _reflect(claimed, settings, tx)


def _reflect(claimed: Claimed, settings: Settings, tx: Transactions) -> ReflectResult:
    started = None
    for share in (True, False):
        run = new_run(claimed, settings, started)
        started = run.started
        verdict = verdict_for(run, tx.session, share=share)
        if isinstance(verdict, Skip):
            return _finish(tx, run, mark_skipped, verdict.reason)
        if isinstance(verdict, Failed):
            return _finish(tx, run, mark_fault(verdict.error), verdict.reason)
        try:
            result = _reconcile_and_apply(run, verdict, tx)
        except LLMError as exc:  # nothing of this event is written before its plan is decided
            return _finish(tx, run, mark_fault(exc), str(exc))
        if result.status != STALE:
            return result
        # A lesson of the stored judgement was retired since it was read: judge the event
        # itself (its old text must not come back as a new lesson).
        log.info("reflect_judgement_stale", event_id=claimed.event_id)
    raise AssertionError("unreachable: an event judged afresh never meets a stale judgement")


def _finish(tx: Transactions, run: RunInfo, mark: Mark, reason: str) -> ReflectResult:
    """The event ends without lessons (skipped, failed, waiting): ``mark`` in its write."""
    return tx.write(run.claimed, lambda session, event: mark(session, event, run, reason),
                    lessons=False)  # fmt: skip


def _reconcile_and_apply(
    run: RunInfo, candidates: list[Candidate], tx: Transactions
) -> ReflectResult:
    """Reconcile the candidates against the agent's lessons and write the result, again while
    the write finds that what was read moved (bounded)."""
    prepared = prepare(run, candidates)
    if not tx.held:
        after_older_events(run.claimed, run.settings)  # lessons are written in event order
    rounds = run.settings.reconcile_max_rounds
    for number in range(1, rounds + 1):
        snapshot = _neighbours(run, prepared, tx, first=number == 1)
        plan = decide_plan(run, prepared, snapshot)
        write = partial(_apply, run=run, prepared=prepared, plan=plan, read=snapshot,
                        held=tx.held, last=number == rounds)  # fmt: skip
        result = tx.write(run.claimed, write)
        if result.status != EPOCH_MOVED:
            return result  # written, claim lost, or a stale stored judgement
        log.info("lesson_epoch_moved", event_id=run.claimed.event_id, round=number)
    raise AssertionError("unreachable: the last round never reports epoch_moved")


def _neighbours(run: RunInfo, prepared: Prepared, tx: Transactions, *, first: bool) -> Snapshot:
    """What the plan is decided from: a stored judgement's own lessons; under the lock, the
    lessons this process knows the candidates repeat exactly; else the neighbour search."""
    claimed, settings = run.claimed, run.settings
    reused = run.reused.snapshot if run.reused is not None else None
    if first and reused is not None and not prepared.quarantined:
        return reused
    with tx.reading() as session:
        if tx.held:
            # Checked under the lock, the row an exact repeat names stays as read.
            repeats = known_repeats(session, claimed, prepared.clean, settings)
            if repeats is not None:
                return repeats
        return read_neighbours(
            session,
            claimed.tenant_id,
            claimed.agent_id,
            prepared.clean,
            settings.reconcile_k,
            with_epoch=not tx.held,
        )


def _apply(
    session: Session,
    event: Event,
    *,
    run: RunInfo,
    prepared: Prepared,
    plan: Plan,
    read: Snapshot,
    held: bool,
    last: bool,
) -> ReflectResult:
    """Under the event's row and the agent's lesson lock: check that the plan still stands
    (only where the bank could move since ``read``), then write it."""
    claimed = run.claimed
    if not held:
        if read.settled:
            # A plan that cites the lessons its candidates repeat stands while they are all
            # still active (a NOOP adds support; nothing is rewritten), whatever else moved.
            if not lessons_active(session, claimed, plan):
                return ReflectResult(claimed.event_id, STALE)
        elif not plan_still_valid(session, claimed, prepared.clean, read):
            if not last:
                return ReflectResult(claimed.event_id, EPOCH_MOVED)
            plan = without_stale_rewrites(session, plan, read, claimed.event_id)
    # Neighbours read under this very lock need no second look for an identical lesson before
    # an ADD, unless the event's own candidates could be identical to each other.
    recheck = not held or len(prepared.clean) > 1
    return apply_and_finish(session, event, run, prepared, plan, recheck_adds=recheck)
