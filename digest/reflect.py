"""Reflection: one event → ``<skip>`` or 1..3 lessons with provenance.

The flow of ``reflect_event`` (every step re-reads rows, so a second delivery does nothing):

1. **claim** (short transaction, row lock): pending → processing, attempts + 1. A finished
   event is left alone; a fresh ``processing`` claim belongs to a live worker; a stale one (older
   than the hard time limit) belongs to a dead worker and is taken over.
2. **policy**: events the trigger policy does not reflect are skipped without a model call.
3. **judge** (no transaction open): one LLM call through the model seam, retried on transient
   faults and unparseable output, then parsed against the reflect output contract.
4. **reconcile** (no transaction open): each candidate against the agent's nearest lessons,
   fast path first, one model call for the rest (``digest.reconcile``).
5. **apply** (one transaction, the agent's lesson lock held, epoch checked): re-check the
   claim, write the operations with evidence and history (or the skip), outcome feedback,
   the ``digest_runs`` row and the final status, all or nothing.

Lessons go through reconciliation (``digest.reconcile``) before they are written.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

import structlog
from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.capture import manual_candidate
from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import LLMError, LLMOutputError
from digest.lessons import Candidate, add_lesson, confidence_from_counts, lock_agent_lessons
from digest.llm_cache import AnswerCache, answer_key
from digest.models import Agent, DigestRun, Event, Lesson, Tenant, as_utc, utcnow
from digest.reconcile import ModelAsker, Plan, Snapshot, apply_plan, decide, read_neighbours
from digest.redact import redact
from digest.screen import injection_reason
from digest.tenants import policy_for

log = structlog.get_logger("digest.reflect")

MAX_LESSONS = 3
TERMINAL = frozenset({"reflected", "skipped", "failed", "dead"})


# --- the output contract ----------------------------------------------------------------------


@dataclass(frozen=True)
class Skip:
    reason: str


_FENCE = re.compile(r"```[a-zA-Z]*\n?|```")
_LESSON = re.compile(r"<lesson>(.*?)</lesson>", re.DOTALL | re.IGNORECASE)
_SKIP = re.compile(r"<skip>(.*?)</skip>", re.DOTALL | re.IGNORECASE)


def _field(block: str, name: str) -> str:
    found = re.search(rf"<{name}>(.*?)</{name}>", block, re.DOTALL | re.IGNORECASE)
    return html.unescape(found.group(1)).strip() if found else ""


def parse_reflect_output(text: str) -> Skip | list[Candidate]:
    """Parse a reflect answer. Prose around the blocks and code fences are tolerated.

    Raises ``LLMOutputError`` when there is neither a ``<skip>`` nor a usable ``<lesson>``.
    Lessons missing a required field are dropped (and logged) when others are usable.
    """
    text = _FENCE.sub("", text or "")
    blocks = _LESSON.findall(text)
    candidates: list[Candidate] = []
    for index, block in enumerate(blocks):
        situation, correction = _field(block, "situation"), _field(block, "correction")
        if not situation or not correction:
            log.warning("lesson_block_dropped", index=index, reason="situation/correction missing")
            continue
        tags = tuple(t.strip() for t in _field(block, "tags").split(",") if t.strip())
        candidates.append(
            Candidate(
                situation=situation,
                correction=correction,
                mistake=_field(block, "mistake") or None,
                tags=tags,
            )
        )
    if candidates:
        if len(candidates) > MAX_LESSONS:
            log.warning("lessons_truncated", proposed=len(candidates), kept=MAX_LESSONS)
        return candidates[:MAX_LESSONS]
    skip = _SKIP.search(text)
    if skip:
        return Skip(" ".join(html.unescape(skip.group(1)).split())[:500] or "no reason given")
    if blocks:
        raise LLMOutputError("every <lesson> block lacks <situation> or <correction>")
    preview = " ".join(text.split())[:120]
    raise LLMOutputError(f"no <skip> or <lesson> block in the answer: {preview!r}")


# --- the trigger policy ------------------------------------------------------------------------


def policy_skip_reason(
    kind: str, payload: dict[str, Any], edit_ratio: float | None, settings: Settings
) -> str | None:
    """Why this event is not worth a model call under the trigger policy, or None."""
    if kind == "run_outcome":
        tool_errors = any(
            tc.get("error") or tc.get("ok") is False for tc in payload.get("tool_calls") or []
        )
        outcome = payload.get("outcome")
        if tool_errors and settings.reflect_tool_errors:
            return None
        if outcome in ("failure", "escalated") and settings.reflect_failures:
            return None
        if outcome == "success" and settings.reflect_success_runs:
            return None
        return (
            f"policy: {outcome} runs{' with tool errors' if tool_errors else ''} are not reflected"
        )
    if kind == "operator_edit":
        ratio = 1.0 if edit_ratio is None else edit_ratio
        if ratio < settings.edit_ratio_threshold:
            return (
                f"policy: edit ratio {ratio:.2f} is below the threshold "
                f"{settings.edit_ratio_threshold:.2f}"
            )
        return None
    if kind == "owner_answer":
        return None
    return f"policy: {kind} events are not reflected"


# --- judgements of repeated events ------------------------------------------------------------


def judgement_key(claimed: Claimed, model: str, prompt_hash: str) -> str:
    """What the reflect answer depends on: the agent, its instructions, the model, the prompt
    version and the event's content (not its id, key, thread or timestamps). Two events with
    the same key are the same incident reported twice."""
    return answer_key(
        "reflect",
        claimed.tenant_id,
        claimed.agent_id,
        claimed.agent,
        claimed.instructions,
        model,
        prompt_hash,
        claimed.kind,
        claimed.trust,
        claimed.payload,
        claimed.edit_ratio,
        claimed.edit_distance,
    )


#: reflect verdicts of this worker process: an exact repeat of an event already judged
#: (same agent, model, prompt version and content) reuses the verdict instead of a model call;
#: reconciliation, the lesson writes, evidence and history still happen for the repeat.
JUDGEMENTS: AnswerCache[Skip | tuple[Candidate, ...]] = AnswerCache()


# --- the steps ---------------------------------------------------------------------------------


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


@dataclass
class ReflectResult:
    event_id: int
    status: str
    reason: str | None = None
    lesson_ids: list[int] = field(default_factory=list)
    quarantined: int = 0


def _lock_event(session: Session, event_id: int) -> Event | None:
    return session.scalars(select(Event).where(Event.id == event_id).with_for_update()).first()


def claim(event_id: int, settings: Settings) -> Claimed | ReflectResult:
    with session_scope(settings.database_url) as session:
        # One round trip: the event row locked, with its agent and tenant (not locked).
        row = session.execute(
            select(Event, Agent, Tenant)
            .join(Agent, Agent.id == Event.agent_id)
            .join(Tenant, Tenant.id == Event.tenant_id)
            .where(Event.id == event_id)
            .with_for_update(of=Event)
        ).first()
        if row is None:
            return ReflectResult(event_id, "missing", "no such event")
        event, agent, tenant = row
        if event.status in TERMINAL:
            return ReflectResult(event_id, "already_done", event.status)
        now = utcnow()
        if event.status == "processing":
            stale_before = now - timedelta(seconds=settings.processing_stale_after_s)
            started = event.processing_started_at
            if started is not None and as_utc(started) > stale_before:
                return ReflectResult(event_id, "in_progress", "claimed by a live worker")
            log.warning("stale_claim_taken_over", event_id=event_id, attempts=event.attempts)
        if event.attempts >= settings.max_event_attempts:
            event.status = "dead"
            event.last_error = (
                f"gave up after {event.attempts} attempts that never finished "
                "(worker killed or time limit hit each time)"
            )
            event.updated_at = event.finished_at = now
            return ReflectResult(event_id, "dead", event.last_error)
        event.status = "processing"
        event.attempts += 1
        event.processing_started_at = now
        event.updated_at = now
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
        )


def event_json(claimed: Claimed) -> str:
    """The event as the model sees it, inside the ``<event>`` block."""
    shown: dict[str, Any] = {
        "id": claimed.event_id,
        "kind": claimed.kind,
        "trust": claimed.trust,
        "payload": claimed.payload,
    }
    if claimed.kind == "operator_edit":
        shown["edit_ratio"] = claimed.edit_ratio
        shown["edit_distance"] = claimed.edit_distance
    # No "</event>" inside the block: untrusted text cannot close it early.
    return json.dumps(shown, ensure_ascii=False, indent=2, sort_keys=True).replace("</", "<\\/")


def reflect_event(event_id: int, settings: Settings | None = None) -> ReflectResult:
    """Reflect on one event, end to end. Safe to call twice: the second call does nothing."""
    settings = settings or get_settings()
    started = time.monotonic()
    claimed = claim(event_id, settings)
    if isinstance(claimed, ReflectResult):
        log.info("reflect_noop", event_id=event_id, status=claimed.status, reason=claimed.reason)
        return claimed
    with structlog.contextvars.bound_contextvars(
        event_id=event_id, tenant=claimed.tenant, agent=claimed.agent
    ):
        result = _judge_and_apply(claimed, settings, started)
        if result.status == "reflected":
            _schedule_compose(claimed.agent_id, settings)
        return result


def _schedule_compose(agent_id: int, settings: Settings) -> None:
    """The threshold trigger. The event is already reflected: a failure here only delays the
    next version until the weekly sweep, so it is logged, not raised."""
    from digest.triggers import after_reflect

    try:
        after_reflect(agent_id, settings)
    except Exception as exc:
        log.error(
            "compose_schedule_failed", agent_id=agent_id, error=f"{type(exc).__name__}: {exc}"
        )


def _judge_and_apply(claimed: Claimed, settings: Settings, started: float) -> ReflectResult:
    from digest import llm  # the model seam imports litellm; only reflection needs it

    usage = llm.Usage()
    model = claimed.agent_model or settings.model_for("reflect")
    prompt = llm.load_prompt("reflect")
    reason = (
        "learning is disabled for this agent"
        if not claimed.enable_learning
        else policy_skip_reason(claimed.kind, claimed.payload, claimed.edit_ratio, settings)
    )
    run = RunInfo(claimed, usage, started, settings, prompt.hash)
    if claimed.kind == "manual_lesson":
        # A person wrote the lesson: nothing to judge, only to reconcile.
        try:
            return _reconcile_and_apply(run, [manual_candidate(claimed.payload)])
        except LLMError as exc:
            return _finish_failed(run, str(exc))
    if reason is not None:
        return _finish_skipped(run, reason)
    messages = prompt.render(
        agent=claimed.agent,
        kind=claimed.kind,
        trust=claimed.trust,
        instructions=(
            f"Owner's learning instructions: {claimed.instructions}\n"
            if claimed.instructions
            else ""
        ),
        event_json=event_json(claimed),
    )
    run.model = model
    key = judgement_key(claimed, model, prompt.hash)
    try:

        def judge() -> Skip | tuple[Candidate, ...]:
            answer = llm.call_and_parse(
                messages, parse_reflect_output, model=model, usage=usage, settings=settings
            )
            return answer if isinstance(answer, Skip) else tuple(answer)

        stored, reused = JUDGEMENTS.get_or_compute(key, judge, settings.llm_cache_size)
        if reused:
            log.info("reflect_judgement_reused", event_id=claimed.event_id)
        verdict = stored if isinstance(stored, Skip) else list(stored)
        if isinstance(verdict, Skip):
            return _finish_skipped(run, verdict.reason)
        return _reconcile_and_apply(run, verdict)
    except LLMError as exc:
        return _finish_failed(run, str(exc))


@dataclass
class RunInfo:
    """One reflect run in progress: what it claimed, what it spent, how it is configured."""

    claimed: Claimed
    usage: Any
    started: float
    settings: Settings
    prompt_hash: str
    model: str | None = None
    reconcile_hash: str | None = None

    def digest_run(self, event: Event, **counts: Any) -> DigestRun:
        return DigestRun(
            tenant_id=event.tenant_id,
            agent_id=event.agent_id,
            event_id=event.id,
            kind="reflect",
            trigger="event",
            llm_calls=self.usage.calls,
            prompt_tokens=self.usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens,
            cost_usd=self.usage.cost_usd,
            model=self.model,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            **counts,
        )

    @property
    def history_hash(self) -> str:
        return "+".join(h for h in (self.prompt_hash, self.reconcile_hash) if h)


def _still_ours(event: Event | None, claimed: Claimed) -> bool:
    ok = event is not None and event.status == "processing" and event.attempts == claimed.attempt
    if not ok:
        log.warning("claim_lost", event_id=claimed.event_id, attempt=claimed.attempt)
    return ok


@contextmanager
def _finishing(run: RunInfo, status: str) -> Iterator[tuple[Session, Event] | None]:
    """The final transaction of a run: the event row locked and still ours, outcome feedback
    applied (exactly once: it commits together with the terminal status), the status set."""
    with session_scope(run.settings.database_url) as session:
        event = _lock_event(session, run.claimed.event_id)
        if event is None or not _still_ours(event, run.claimed):
            yield None
            return
        apply_outcome_feedback(session, event)
        event.status = status
        event.updated_at = event.finished_at = utcnow()
        yield session, event


def _finish_skipped(run: RunInfo, reason: str) -> ReflectResult:
    with _finishing(run, "skipped") as held:
        if held is None:
            return ReflectResult(run.claimed.event_id, "claim_lost")
        session, event = held
        event.skip_reason = reason
        event.last_error = None
        session.add(run.digest_run(event, n_skip=1))
    log.info("event_skipped", event_id=run.claimed.event_id, reason=reason)
    return ReflectResult(run.claimed.event_id, "skipped", reason)


def _finish_failed(run: RunInfo, reason: str) -> ReflectResult:
    detail = f"{reason} (after {run.usage.calls} model call(s))"
    with _finishing(run, "failed") as held:
        if held is None:
            return ReflectResult(run.claimed.event_id, "claim_lost")
        session, event = held
        event.last_error = detail
        session.add(run.digest_run(event, error=detail))
    log.error("event_failed", event_id=run.claimed.event_id, reason=detail)
    return ReflectResult(run.claimed.event_id, "failed", detail)


def _screen(claimed: Claimed, candidates: list[Candidate]) -> list[str | None]:
    """Per candidate: why it is quarantined (untrusted text that reads like an injection)."""
    if claimed.trust != "low":
        return [None] * len(candidates)
    return [
        injection_reason(
            " ".join(filter(None, (c.situation, c.mistake, c.correction, " ".join(c.tags))))
        )
        for c in candidates
    ]


def _without_secrets(candidate: Candidate) -> Candidate:
    """A tool error that echoed a key must not carry it into a lesson, a version or an export."""
    return replace(
        candidate,
        situation=redact(candidate.situation),
        correction=redact(candidate.correction),
        mistake=redact(candidate.mistake) if candidate.mistake else candidate.mistake,
        tags=tuple(redact(tag) for tag in candidate.tags),
    )


def _reconcile_and_apply(run: RunInfo, candidates: list[Candidate]) -> ReflectResult:
    """Reconcile the clean candidates against the agent's lessons and write the result.

    Model calls happen with no transaction open. The write takes the agent's lesson lock and
    checks that the lesson epoch has not moved since the neighbours were read; if it has,
    another writer changed the bank meanwhile, and reconciliation runs again (bounded).
    """
    settings, claimed = run.settings, run.claimed
    candidates = [_without_secrets(c) for c in candidates]
    reasons = _screen(claimed, candidates)
    clean = [c for c, why in zip(candidates, reasons, strict=True) if why is None]
    quarantined = [(c, why) for c, why in zip(candidates, reasons, strict=True) if why]
    asker = ModelAsker(
        agent=claimed.agent,
        kind=claimed.kind,
        model=claimed.agent_model or settings.model_for("reconcile"),
        usage=run.usage,
        settings=settings,
        agent_id=claimed.agent_id,
    )
    ask_model = asker.ask
    run.reconcile_hash = asker.prompt_hash

    for round_number in range(1, settings.reconcile_max_rounds + 1):
        # A plain read: the write below re-checks it under the lock (epoch, neighbours).
        with read_scope(settings.database_url) as session:
            snapshot = read_neighbours(
                session, claimed.tenant_id, claimed.agent_id, clean, settings.reconcile_k
            )
        plan = decide(
            clean,
            snapshot,
            ask_model=ask_model,
            floor=settings.reconcile_floor,
            identical=settings.reconcile_identical,
        )
        if plan.llm_called and run.model is None:
            run.model = asker.model  # a manual lesson: the reconcile call is the only model
        last = round_number == settings.reconcile_max_rounds
        result = _write(run, clean, plan, quarantined, snapshot, last_round=last)
        if result.status != "epoch_moved":
            return result
        log.info("lesson_epoch_moved", event_id=claimed.event_id, round=round_number)
    raise AssertionError("unreachable: the last round never reports epoch_moved")


def _write(
    run: RunInfo,
    clean: list[Candidate],
    plan: Plan,
    quarantined: list[tuple[Candidate, str]],
    read: Snapshot,
    *,
    last_round: bool = False,
) -> ReflectResult:
    claimed = run.claimed
    outcome = _lesson_outcome(claimed)
    with session_scope(run.settings.database_url) as session:
        event = _lock_event(session, claimed.event_id)
        if event is None or not _still_ours(event, claimed):
            return ReflectResult(claimed.event_id, "claim_lost")
        lock_agent_lessons(session, event.agent_id)
        if not _plan_still_valid(session, claimed, clean, read):
            if not last_round:
                return ReflectResult(claimed.event_id, "epoch_moved")
            plan = _without_stale_rewrites(session, plan, read, claimed.event_id)

        def add(candidate: Candidate, status: str = "active", why: str | None = None) -> Lesson:
            return add_lesson(
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
            )

        applied = apply_plan(
            session,
            event,
            clean,
            plan,
            add=add,
            model=run.model,
            prompt_hash=run.history_hash,
            promote_at=claimed.promote_at,
        )
        for candidate, why in quarantined:
            applied.lesson_ids.append(add(candidate, "quarantined", f"injection screen: {why}").id)
            applied.counts["ADD"] += 1
        apply_outcome_feedback(session, event)
        event.status = "reflected"
        event.last_error = None
        event.updated_at = event.finished_at = utcnow()
        counts = applied.counts
        session.add(
            run.digest_run(
                event,
                n_add=counts["ADD"],
                n_update=counts["UPDATE"],
                n_delete=counts["DELETE"],
                n_noop=counts["NOOP"],
                n_fast_path=plan.fast,
                error="; ".join(plan.dropped)[:2000] or None,
            )
        )
    log.info(
        "event_reflected",
        event_id=claimed.event_id,
        lessons=applied.lesson_ids,
        ops=counts,
        fast_path=plan.fast,
        dropped=len(plan.dropped),
        quarantined=len(quarantined),
        llm_calls=run.usage.calls,
    )
    return ReflectResult(
        claimed.event_id, "reflected", lesson_ids=applied.lesson_ids, quarantined=len(quarantined)
    )


def _plan_still_valid(
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


def _without_stale_rewrites(session: Session, plan: Plan, read: Snapshot, event_id: int) -> Plan:
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
