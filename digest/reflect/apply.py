"""Applying: a decided plan written in one transaction with the event's final status.

The caller holds the event row and the agent's lesson lock. The plan's operations go in with
evidence and history, quarantined candidates are stored as such, outcome feedback moves the
counts of the lessons the run applied, and the ``digest_runs`` row and final status commit
with them: all or nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.errors import BudgetExhausted, LLMError, LLMOutputError, LLMTransientError
from digest.lessons.budgets import BUDGET
from digest.lessons.store import Candidate, add_lesson, confidence_from_counts, support_lesson
from digest.lessons.transition import lesson_by_id
from digest.lessons.vectors import add_task_meaning, stored_vector
from digest.logs import get_logger
from digest.models import Agent, Event, Lesson, as_utc, utcnow
from digest.reflect import judgements
from digest.reflect.claims import Claimed, ReflectResult
from digest.reflect.operations import apply_plan
from digest.reflect.prepare import Prepared
from digest.reflect.reconcile import Plan, Snapshot, read_neighbours
from digest.reflect.repeats import known_texts, text_key
from digest.reflect.run import RunInfo
from digest.runtime import runtime

log = get_logger("digest.reflect")

#: how an event ends without lessons, in the transaction of its final status
Mark = Callable[[Session, Event, RunInfo, str], ReflectResult]


def _set_terminal(session: Session, event: Event, status: str) -> None:
    """Outcome feedback (exactly once: it commits together with the terminal status), then
    the status."""
    apply_outcome_feedback(session, event)
    event.status = status
    event.next_attempt_at = event.waiting_since = event.wait_kind = None
    event.updated_at = event.finished_at = utcnow()


def mark_skipped(session: Session, event: Event, run: RunInfo, reason: str) -> ReflectResult:
    if run.judged:
        judgements.remember(
            session, run.claimed, run.model, run.prompt_hash, skip_reason=reason[:1000]
        )
    elif run.reused is not None:
        judgements.count_reuse(session, run.reused)
    _set_terminal(session, event, "skipped")
    event.skip_reason = reason
    event.last_error = None
    run.add_digest_run(session, event, n_skip=1)
    note = ("info", "event_skipped", {"event_id": event.id, "reason": reason})
    return ReflectResult(event.id, "skipped", reason, note=note)


def mark_failed(session: Session, event: Event, run: RunInfo, reason: str) -> ReflectResult:
    detail = f"{reason} (after {run.usage.calls} model call(s))"
    _set_terminal(session, event, "failed")
    event.last_error = detail
    run.add_digest_run(session, event, error=detail)
    note = ("error", "event_failed", {"event_id": event.id, "reason": detail})
    return ReflectResult(event.id, "failed", detail, note=note)


#: an event whose model answered out of contract at every attempt is put back this many runs in
#: a row (a model that keeps answering prose is not a passing fault; one that also timed out or
#: was rate limited in the same run is, and such a run starts the count again). Four, not
#: three: at a 30% rate of broken answers (prose, garbage) three runs in a row of one event
#: came about once in ~1,000 events, and a fleet sees that every day
OUTPUT_DEFERRALS = 4


def mark_fault(error: LLMError) -> Mark:
    """How an event ends when its model step raised ``error`` after the in-task attempts:
    a transient fault (rate limit, 5xx, timeout, connection, no fleet slot, the time budget)
    puts it back as ``waiting`` until ``DIGEST_LLM_GIVE_UP_AFTER_S`` has passed since its
    faults began; answers all out of contract likewise, ``OUTPUT_DEFERRALS`` runs in a row; a spent
    daily budget (``BudgetExhausted``) until the tenant's next budget day, however long; anything
    else (authentication, a bad request) fails it at once."""

    def mark(session: Session, event: Event, run: RunInfo, reason: str) -> ReflectResult:
        settings = run.settings
        now = utcnow()
        if isinstance(error, BudgetExhausted):
            return mark_waiting(session, event, run, str(error), now, error.resume_at,
                                budget=True)  # fmt: skip
        # a wait for the budget is no fault: the give-up clock starts at this fault
        faulty = event.waiting_since is not None and event.wait_kind != BUDGET
        since = as_utc(event.waiting_since) if faulty and event.waiting_since else now
        only_output = False
        if isinstance(error, LLMOutputError):
            only_output = all(e.startswith("LLMOutputError") for e in run.usage.errors)
            if only_output and event.output_faults + 1 >= OUTPUT_DEFERRALS:
                return mark_failed(
                    session,
                    event,
                    run,
                    f"every answer broke the output contract, {OUTPUT_DEFERRALS} times: {reason}",
                )
        elif not isinstance(error, LLMTransientError):
            return mark_failed(session, event, run, reason)
        event.output_faults = event.output_faults + 1 if only_output else 0
        waited = (now - since).total_seconds()
        if waited >= settings.llm_give_up_after_s:
            return mark_failed(
                session, event, run, f"gave up after {_duration(waited)} of faults: {reason}"
            )
        delay = defer_delay(event.deferrals, settings, getattr(error, "retry_after", None))
        return mark_waiting(session, event, run, reason, since, now + timedelta(seconds=delay))

    return mark


def defer_delay(deferrals: int, settings: Settings, retry_after: float | None = None) -> float:
    """Seconds until a put-back event's next attempt: exponential in its deferrals, capped,
    jittered (between half and all of it, so a fleet's faults do not return in step), never
    sooner than the provider's Retry-After."""
    ceiling = min(settings.llm_defer_max_s, settings.llm_defer_base_s * 2 ** min(deferrals, 30))
    delay = random.uniform(ceiling / 2, ceiling)
    return max(delay, retry_after or 0.0)


def mark_waiting(
    session: Session,
    event: Event,
    run: RunInfo,
    reason: str,
    since: datetime,
    next_attempt: datetime,
    *,
    budget: bool = False,
) -> ReflectResult:
    """Back in line after a passing fault: ``waiting`` until ``next_attempt``. The claim's
    attempt is given back (it ended in order; attempts count claims that never finished),
    the calls it made are recorded in a ``digest_runs`` row. ``budget``: it waits for its
    tenant's next budget day (``wait_kind`` says so; no backoff step is spent, and a wait
    that goes on keeps the time it began)."""
    detail = f"{reason} (after {run.usage.calls} model call(s))"
    if budget and event.wait_kind == BUDGET and event.waiting_since is not None:
        since = as_utc(event.waiting_since)
    event.status = "waiting"
    event.wait_kind = BUDGET if budget else None
    event.attempts = max(0, event.attempts - 1)
    event.deferrals += int(not budget)
    event.waiting_since = since
    event.next_attempt_at = next_attempt
    event.processing_started_at = None
    event.claim_token = None
    event.published_at = None
    event.last_error = detail
    event.updated_at = utcnow()
    run.add_digest_run(session, event, error=f"waiting: {detail}")
    fields = {"event_id": event.id, "reason": detail, "next_attempt_at": next_attempt.isoformat()}
    name = "event_waiting_for_budget" if budget else "event_waiting"
    return ReflectResult(event.id, "waiting", detail, note=("warning", name, fields))


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def apply_and_finish(
    session: Session,
    event: Event,
    run: RunInfo,
    prepared: Prepared,
    plan: Plan,
    *,
    recheck_adds: bool = True,
) -> ReflectResult:
    """Inside the caller's transaction, which holds the event row and the agent's lesson lock:
    the plan's operations with evidence and history, the quarantined lessons, outcome
    feedback, the ``digest_runs`` row and the final status."""
    claimed = run.claimed
    outcome = _lesson_outcome(claimed)
    #: lessons this event created: their task vectors went in with their row
    born: set[int] = set()

    def with_vectors(lesson: Lesson) -> None:
        # Embedded before the transaction (judge.prepare): the process remembers the vectors.
        lesson.embedding, lesson.embedding_key = stored_vector(lesson.situation, lesson.correction)
        add_task_meaning([lesson], claimed.kind, claimed.payload)

    def add(candidate: Candidate, status: str = "active", why: str | None = None) -> Lesson:
        lesson = add_lesson(
            session,
            event=event,
            candidate=candidate,
            source=claimed.kind,
            outcome=outcome,
            status=status,
            status_reason=why,
            model=run.model,
            prompt_hash=run.history_hash,
            note=f"reflected from {claimed.kind} event {event.id}",
            vectors=with_vectors,
        )
        born.add(lesson.id)
        return lesson

    applied = apply_plan(
        session,
        event,
        prepared.clean,
        plan,
        add=add,
        model=run.model,
        prompt_hash=run.history_hash,
        promote_at=claimed.promote_at,
        recheck_adds=recheck_adds,
        vet=prepared.vet,
    )
    remembered = runtime().piece(known_texts)
    for index, lesson_id in applied.by_candidate.items():
        remembered.put(
            text_key(claimed.agent_id, prepared.clean[index]),
            lesson_id,
            run.settings.llm_cache_size,
        )
    for candidate, why in prepared.quarantined:
        held = _quarantined_twin(session, event, candidate)
        if held is None:
            held = add(candidate, "quarantined", f"injection screen: {why}")
            applied.counts["ADD"] += 1
        else:  # a repeat of the same attack: one quarantined lesson with more support
            support_lesson(
                session, held, event=event, reason=f"repeat of a quarantined lesson: {why}",
                model=run.model, prompt_hash=run.history_hash,
            )  # fmt: skip
            applied.counts["NOOP"] += 1
        if held.id not in applied.lesson_ids:
            applied.lesson_ids.append(held.id)
    # what the run's task meant, for retrieval (embedded before the write by prepare); the
    # lessons it created have it already
    touched = [lesson_by_id(session, i) for i in applied.lesson_ids if i not in born]
    add_task_meaning(filter(None, touched), claimed.kind, claimed.payload)
    _share_judgement(session, run, prepared, applied.by_candidate)
    _set_terminal(session, event, "reflected")
    event.last_error = None
    counts = applied.counts
    run.add_digest_run(
        session,
        event,
        n_add=counts["ADD"],
        n_update=counts["UPDATE"],
        n_delete=counts["DELETE"],
        n_noop=counts["NOOP"],
        n_fast_path=plan.fast,
        error="; ".join([*run.refused, *plan.dropped])[:2000] or None,
    )
    note = (
        "info",
        "event_reflected",
        {
            "event_id": claimed.event_id,
            "lessons": applied.lesson_ids,
            "ops": counts,
            "fast_path": plan.fast,
            "dropped": len(plan.dropped),
            "quarantined": len(prepared.quarantined),
            "llm_calls": run.usage.calls,
        },
    )
    return ReflectResult(
        claimed.event_id,
        "reflected",
        lesson_ids=applied.lesson_ids,
        quarantined=len(prepared.quarantined),
        note=note,
    )


def _share_judgement(
    session: Session, run: RunInfo, prepared: Prepared, by_candidate: dict[int, int]
) -> None:
    """Store the model's judgement for the fleet when every lesson it produced is now an
    active lesson (nothing quarantined); count a reuse."""
    if run.reused is not None:
        judgements.count_reuse(session, run.reused)
        return
    clean = prepared.clean
    if not run.judged or prepared.quarantined or not clean:
        return
    if any(i not in by_candidate for i in range(len(clean))):
        return
    ids = list(dict.fromkeys(by_candidate[i] for i in range(len(clean))))
    judgements.remember(session, run.claimed, run.model, run.prompt_hash, lesson_ids=ids)


def _quarantined_twin(session: Session, event: Event, candidate: Candidate) -> Lesson | None:
    """A quarantined lesson of this agent with exactly this candidate's text, if any."""
    text = candidate.normalised()
    session.flush()  # the lessons this transaction quarantined are new rows too
    return session.scalars(
        select(Lesson)
        .where(
            Lesson.agent_id == event.agent_id,
            Lesson.status == "quarantined",
            Lesson.situation == text.situation,
            Lesson.correction == text.correction,
        )
        .order_by(Lesson.id)
        .limit(1)
    ).first()


def plan_still_valid(
    session: Session, claimed: Claimed, clean: list[Candidate], read: Snapshot
) -> bool:
    """Under the agent's lesson lock: may a plan decided from ``read`` be applied?

    Yes if no lesson was written since (same epoch). If the epoch moved (another event of
    this agent wrote meanwhile, often only a NOOP's support count), the plan still stands when
    every candidate's neighbours, read again now, are exactly the ones it was decided from:
    same lessons, same text, same scores. Anything else reconciles again.
    """
    epoch = session.scalar(select(Agent.lesson_epoch).where(Agent.id == claimed.agent_id))
    if epoch == read.epoch:
        return True
    fresh = read_neighbours(session, claimed.tenant_id, claimed.agent_id, clean, read.k)
    return fresh.neighbours == read.neighbours


def lessons_active(session: Session, claimed: Claimed, plan: Plan) -> bool:
    """Under the agent's lesson lock: is every lesson the plan names still an active,
    unexpired lesson of this agent?"""
    ids = {op.lesson_id for op in plan.operations if op.lesson_id is not None}
    if not ids:
        return True
    now = utcnow()
    found = session.execute(
        select(Lesson.id, Lesson.status, Lesson.expires_at).where(
            Lesson.id.in_(ids), Lesson.agent_id == claimed.agent_id
        )
    ).all()
    return len(found) == len(ids) and all(
        row.status == "active" and (row.expires_at is None or as_utc(row.expires_at) > now)
        for row in found
    )


def without_stale_rewrites(session: Session, plan: Plan, read: Snapshot, event_id: int) -> Plan:
    """The last round may not reconcile again, so it must not overwrite newer text: an UPDATE
    whose lesson changed since it was read becomes a NOOP (support and evidence, no rewrite).
    Targets that are gone altogether become ADDs in ``apply_plan``; ADDs are re-checked for an
    identical lesson under the lock there too."""
    read_text = {
        n.lesson_id: (n.situation, n.mistake, n.correction)
        for neighbours in read.neighbours
        for n in neighbours
    }
    ids = [o.lesson_id for o in plan.operations if o.op == "UPDATE" and o.lesson_id is not None]
    now = {
        row.id: (row.situation, row.mistake, row.correction)
        for row in session.execute(
            select(Lesson.id, Lesson.situation, Lesson.mistake, Lesson.correction).where(
                Lesson.id.in_(ids)
            )
        )
    }
    operations = []
    for op in plan.operations:
        # A target no longer active is left to apply_plan, which makes that op an ADD.
        lesson_id = op.lesson_id
        if (
            op.op == "UPDATE"
            and lesson_id is not None
            and lesson_id in now
            and now[lesson_id] != read_text.get(lesson_id)
        ):
            log.warning("reconcile_update_downgraded", event_id=event_id, lesson_id=op.lesson_id)
            op = replace(
                op, op="NOOP", merged=None, reason="lesson changed meanwhile; kept as support"
            )
        operations.append(op)
    return replace(plan, operations=operations)


def apply_outcome_feedback(session: Session, event: Event) -> int:
    """A run that names the lessons it applied moves their success or failure counts (and the
    confidence computed from them). Called in the transaction that finishes the event, so each
    event counts exactly once. Lessons of other agents are ignored."""
    if event.kind != "run_outcome":
        return 0
    ids = [i for i in (event.payload.get("applied_lesson_ids") or []) if isinstance(i, int)]
    outcome = event.payload.get("outcome")
    if not ids or outcome not in ("success", "failure"):
        return 0
    lessons = session.scalars(
        select(Lesson)
        .where(
            Lesson.id.in_(ids),
            Lesson.tenant_id == event.tenant_id,
            Lesson.agent_id == event.agent_id,
        )
        .with_for_update()
    ).all()
    for lesson in lessons:
        if outcome == "success":
            lesson.success_count += 1
        else:
            lesson.failure_count += 1
        lesson.confidence = confidence_from_counts(lesson.success_count, lesson.failure_count)
    if len(lessons) != len(set(ids)):
        log.warning("applied_lessons_ignored", event_id=event.id, named=ids, counted=len(lessons))
    return len(lessons)


def _lesson_outcome(claimed: Claimed) -> str:
    if claimed.kind == "run_outcome":
        return "success" if claimed.payload.get("outcome") == "success" else "failure"
    if claimed.kind == "owner_answer":
        return "success"
    if claimed.kind == "manual_lesson":
        return "mixed"  # written by a person, not learned from one outcome
    return "failure"  # an operator had to correct or reject the draft
