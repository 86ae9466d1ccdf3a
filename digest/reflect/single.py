"""One event on its own (a remote model): judged and reconciled with no transaction open, then
written in its own transaction under the agent's lesson lock, with an epoch check.

If another writer moved the agent's lessons since the neighbours were read, reconciliation
runs again (bounded by ``DIGEST_RECONCILE_MAX_ROUNDS``); the last round turns an UPDATE of a
lesson that changed meanwhile into a NOOP instead of overwriting newer text.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import structlog

from digest.config import Settings
from digest.db import read_scope, session_scope
from digest.errors import LLMError
from digest.lessons.store import Candidate
from digest.lessons.transition import lock_agent_lessons
from digest.logs import get_logger
from digest.model.contracts import Skip
from digest.reflect.apply import (
    apply_and_finish,
    finish,
    lessons_active,
    mark_fault,
    mark_skipped,
    plan_still_valid,
    without_stale_rewrites,
)
from digest.reflect.claims import Claimed, ReflectResult, lock_event, still_ours
from digest.reflect.judge import (
    Failed,
    Prepared,
    RunInfo,
    decide_plan,
    new_run,
    prepare,
    verdict_for,
)
from digest.reflect.reconcile import Plan, Snapshot, read_neighbours

log = get_logger("digest.reflect")


def reflect_one(claimed: Claimed, settings: Settings, started: float) -> ReflectResult:
    with about(claimed):
        return _judge_and_apply(claimed, settings, started).log()


def about(claimed: Claimed) -> AbstractContextManager[None]:
    """Log lines written inside name the event, its tenant and its agent."""
    return structlog.contextvars.bound_contextvars(
        event_id=claimed.event_id, tenant=claimed.tenant, agent=claimed.agent
    )


def _judge_and_apply(claimed: Claimed, settings: Settings, started: float) -> ReflectResult:
    """One event on its own: judged with no transaction open, then written in its own."""
    for share in (True, False):
        run = new_run(claimed, settings, started)
        verdict = verdict_for(run, share=share)
        if isinstance(verdict, Skip):
            return finish(run, mark_skipped, verdict.reason)
        if isinstance(verdict, Failed):
            return finish(run, mark_fault(verdict.error), verdict.reason)
        try:
            result = _reconcile_and_apply(run, verdict)
        except LLMError as exc:
            return finish(run, mark_fault(exc), str(exc))
        if result.status != STALE:
            return result
        # A lesson of the stored judgement was retired since it was read: judge the event
        # itself (its old text must not come back as a new lesson).
        log.info("reflect_judgement_stale", event_id=claimed.event_id)
    raise AssertionError("unreachable: an event judged afresh never meets a stale judgement")


#: the stored judgement a write was about to reuse no longer holds
STALE = "judgement_stale"


def _reconcile_and_apply(run: RunInfo, candidates: list[Candidate]) -> ReflectResult:
    """Reconcile the clean candidates against the agent's lessons and write the result.

    Model calls happen with no transaction open. The write takes the agent's lesson lock and
    checks that the lesson epoch has not moved since the neighbours were read; if it has,
    another writer changed the bank meanwhile, and reconciliation runs again (bounded).
    """
    settings, claimed = run.settings, run.claimed
    prepared = prepare(run, candidates)
    for round_number in range(1, settings.reconcile_max_rounds + 1):
        reused = run.reused.snapshot if run.reused is not None and round_number == 1 else None
        if reused is not None and not prepared.quarantined:
            snapshot = reused  # a stored judgement: its lessons are the candidates' own
        else:
            # A plain read: the write below re-checks it under the lock (epoch, neighbours).
            with read_scope(settings.database_url) as session:
                snapshot = read_neighbours(
                    session,
                    claimed.tenant_id,
                    claimed.agent_id,
                    prepared.clean,
                    settings.reconcile_k,
                )
        plan = decide_plan(run, prepared, snapshot)
        last = round_number == settings.reconcile_max_rounds
        result = _write(run, prepared, plan, snapshot, last_round=last)
        if result.status != "epoch_moved":
            return result  # written, claim lost, or a stale stored judgement
        log.info("lesson_epoch_moved", event_id=claimed.event_id, round=round_number)
    raise AssertionError("unreachable: the last round never reports epoch_moved")


def _reused_snapshot(run: RunInfo) -> Snapshot | None:
    return run.reused.snapshot if run.reused is not None else None


def _write(
    run: RunInfo, prepared: Prepared, plan: Plan, read: Snapshot, *, last_round: bool = False
) -> ReflectResult:
    claimed = run.claimed
    with session_scope(run.settings.database_url) as session:
        event = lock_event(session, claimed.event_id)
        if event is None or not still_ours(event, claimed):
            return ReflectResult(claimed.event_id, "claim_lost")
        lock_agent_lessons(session, event.agent_id)
        if read is _reused_snapshot(run):
            # A stored judgement's plan cites its own lessons: it stands while they are all
            # still active (a NOOP adds support; nothing is rewritten), whatever else moved.
            if not lessons_active(session, claimed, plan):
                return ReflectResult(claimed.event_id, STALE)
        elif not plan_still_valid(session, claimed, prepared.clean, read):
            if not last_round:
                return ReflectResult(claimed.event_id, "epoch_moved")
            plan = without_stale_rewrites(session, plan, read, claimed.event_id)
        return apply_and_finish(session, event, run, prepared, plan)
