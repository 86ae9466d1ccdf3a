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
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import Row, and_, inspect, or_, select, update
from sqlalchemy.orm import Session

from digest import publish
from digest.capture import manual_candidate
from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import LLMError, LLMOutputError, is_time_limit
from digest.lessons import Candidate, add_lesson, confidence_from_counts, lock_agent_lessons
from digest.llm_cache import AnswerCache, answer_key
from digest.models import Agent, DigestRun, Event, Lesson, Tenant, as_utc, utcnow
from digest.offline import is_offline_model
from digest.reconcile import (
    ModelAsker,
    Plan,
    Snapshot,
    apply_plan,
    candidate_text,
    decide,
    read_neighbours,
)
from digest.redact import redact
from digest.screen import injection_reason
from digest.similarity import Neighbour, lesson_text, normalise
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
    #: the log line that reports this outcome: (level, event, fields), written once committed
    note: tuple[str, str, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def log(self) -> ReflectResult:
        if self.note is not None:
            level, event, fields = self.note
            getattr(log, level)(event, **fields)
        return self


def _lock_event(session: Session, event_id: int) -> Event | None:
    return session.scalars(select(Event).where(Event.id == event_id).with_for_update()).first()


def _own_event(session: Session, event_id: int) -> Row[Event, Agent, Tenant] | None:
    """One round trip: the event row locked, with its agent and tenant (not locked)."""
    return session.execute(
        select(Event, Agent, Tenant)
        .join(Agent, Agent.id == Event.agent_id)
        .join(Tenant, Tenant.id == Event.tenant_id)
        .where(Event.id == event_id)
        .with_for_update(of=Event)
    ).first()


def claim(event_id: int, settings: Settings) -> Claimed | ReflectResult:
    with session_scope(settings.database_url) as session:
        row = _own_event(session, event_id)
        if row is None:
            return ReflectResult(event_id, "missing", "no such event")
        return _claim_row(*row, settings)


def _claim_row(
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
    return _take(event, agent, tenant, settings, now, delivery)


def _take(
    event: Event,
    agent: Agent,
    tenant: Tenant,
    settings: Settings,
    now: datetime,
    delivery: str | None = None,
) -> Claimed:
    event.status = "processing"
    event.attempts += 1
    event.processing_started_at = now
    event.claim_token = delivery
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
    result = _reflect_claimed(claimed, settings, started)
    if result.status == "reflected":
        _schedule_compose(claimed.agent_id, settings)
    return result


def _reflect_claimed(claimed: Claimed, settings: Settings, started: float) -> ReflectResult:
    with _about(claimed):
        return _judge_and_apply(claimed, settings, started).log()


def _about(claimed: Claimed) -> AbstractContextManager[None]:
    """Log lines written inside name the event, its tenant and its agent."""
    return structlog.contextvars.bound_contextvars(
        event_id=claimed.event_id, tenant=claimed.tenant, agent=claimed.agent
    )


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


@dataclass(frozen=True)
class _Failed:
    """The model could not give a usable verdict (after its retries)."""

    reason: str


def _judge(run: RunInfo) -> Skip | _Failed | list[Candidate]:
    """The verdict on a claimed event, before anything is written: skipped (by the trigger
    policy or by the model), failed, or candidate lessons. A manual lesson is its own
    candidate: a person wrote it, there is nothing to judge, only to reconcile."""
    from digest import llm  # the model seam imports litellm; only reflection needs it

    claimed, settings = run.claimed, run.settings
    if claimed.kind == "manual_lesson":
        return [manual_candidate(claimed.payload)]
    reason = (
        "learning is disabled for this agent"
        if not claimed.enable_learning
        else policy_skip_reason(claimed.kind, claimed.payload, claimed.edit_ratio, settings)
    )
    if reason is not None:
        return Skip(reason)
    model = claimed.agent_model or settings.model_for("reflect")
    prompt = llm.load_prompt("reflect")
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

    def judge() -> Skip | tuple[Candidate, ...]:
        answer = llm.call_and_parse(
            messages, parse_reflect_output, model=model, usage=run.usage, settings=settings
        )
        return answer if isinstance(answer, Skip) else tuple(answer)

    key = judgement_key(claimed, model, prompt.hash)
    try:
        stored, reused = JUDGEMENTS.get_or_compute(key, judge, settings.llm_cache_size)
    except LLMError as exc:
        return _Failed(str(exc))
    if reused:
        log.info("reflect_judgement_reused", event_id=claimed.event_id)
    return stored if isinstance(stored, Skip) else list(stored)


def _new_run(claimed: Claimed, settings: Settings, started: float) -> RunInfo:
    from digest import llm

    return RunInfo(claimed, llm.Usage(), started, settings, llm.load_prompt("reflect").hash)


def _judge_and_apply(claimed: Claimed, settings: Settings, started: float) -> ReflectResult:
    """One event on its own: judged with no transaction open, then written in its own."""
    run = _new_run(claimed, settings, started)
    verdict = _judge(run)
    if isinstance(verdict, Skip):
        return _finish(run, _mark_skipped, verdict.reason)
    if isinstance(verdict, _Failed):
        return _finish(run, _mark_failed, verdict.reason)
    try:
        return _reconcile_and_apply(run, verdict)
    except LLMError as exc:
        return _finish(run, _mark_failed, str(exc))


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


Mark = Callable[[Session, Event, "RunInfo", str], "ReflectResult"]


def _finish(run: RunInfo, mark: Mark, reason: str) -> ReflectResult:
    """An event's own final transaction: its row locked and still ours, then ``mark``."""
    with session_scope(run.settings.database_url) as session:
        event = _lock_event(session, run.claimed.event_id)
        if event is None or not _still_ours(event, run.claimed):
            return ReflectResult(run.claimed.event_id, "claim_lost")
        return mark(session, event, run, reason)


def _set_terminal(session: Session, event: Event, status: str) -> None:
    """Outcome feedback (exactly once: it commits together with the terminal status), then
    the status."""
    apply_outcome_feedback(session, event)
    event.status = status
    event.updated_at = event.finished_at = utcnow()


def _mark_skipped(session: Session, event: Event, run: RunInfo, reason: str) -> ReflectResult:
    _set_terminal(session, event, "skipped")
    event.skip_reason = reason
    event.last_error = None
    session.add(run.digest_run(event, n_skip=1))
    note = ("info", "event_skipped", {"event_id": event.id, "reason": reason})
    return ReflectResult(event.id, "skipped", reason, note=note)


def _mark_failed(session: Session, event: Event, run: RunInfo, reason: str) -> ReflectResult:
    detail = f"{reason} (after {run.usage.calls} model call(s))"
    _set_terminal(session, event, "failed")
    event.last_error = detail
    session.add(run.digest_run(event, error=detail))
    note = ("error", "event_failed", {"event_id": event.id, "reason": detail})
    return ReflectResult(event.id, "failed", detail, note=note)


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


@dataclass
class _Prepared:
    """Candidates ready to reconcile: the clean ones, the quarantined ones with the reason,
    and the reconcile step's model seam."""

    clean: list[Candidate]
    quarantined: list[tuple[Candidate, str]]
    asker: ModelAsker


def _prepare(run: RunInfo, candidates: list[Candidate]) -> _Prepared:
    settings, claimed = run.settings, run.claimed
    candidates = [_without_secrets(c) for c in candidates]
    reasons = _screen(claimed, candidates)
    asker = ModelAsker(
        agent=claimed.agent,
        kind=claimed.kind,
        model=claimed.agent_model or settings.model_for("reconcile"),
        usage=run.usage,
        settings=settings,
        agent_id=claimed.agent_id,
    )
    run.reconcile_hash = asker.prompt_hash
    return _Prepared(
        clean=[c for c, why in zip(candidates, reasons, strict=True) if why is None],
        quarantined=[(c, why) for c, why in zip(candidates, reasons, strict=True) if why],
        asker=asker,
    )


def _decide(run: RunInfo, prepared: _Prepared, snapshot: Snapshot) -> Plan:
    settings = run.settings
    plan = decide(
        prepared.clean,
        snapshot,
        ask_model=prepared.asker.ask,
        floor=settings.reconcile_floor,
        identical=settings.reconcile_identical,
    )
    if plan.llm_called and run.model is None:
        run.model = prepared.asker.model  # a manual lesson: the reconcile call is the only model
    return plan


def _reconcile_and_apply(run: RunInfo, candidates: list[Candidate]) -> ReflectResult:
    """Reconcile the clean candidates against the agent's lessons and write the result.

    Model calls happen with no transaction open. The write takes the agent's lesson lock and
    checks that the lesson epoch has not moved since the neighbours were read; if it has,
    another writer changed the bank meanwhile, and reconciliation runs again (bounded).
    """
    settings, claimed = run.settings, run.claimed
    prepared = _prepare(run, candidates)
    for round_number in range(1, settings.reconcile_max_rounds + 1):
        # A plain read: the write below re-checks it under the lock (epoch, neighbours).
        with read_scope(settings.database_url) as session:
            snapshot = read_neighbours(
                session, claimed.tenant_id, claimed.agent_id, prepared.clean, settings.reconcile_k
            )
        plan = _decide(run, prepared, snapshot)
        last = round_number == settings.reconcile_max_rounds
        result = _write(run, prepared, plan, snapshot, last_round=last)
        if result.status != "epoch_moved":
            return result
        log.info("lesson_epoch_moved", event_id=claimed.event_id, round=round_number)
    raise AssertionError("unreachable: the last round never reports epoch_moved")


def _write(
    run: RunInfo, prepared: _Prepared, plan: Plan, read: Snapshot, *, last_round: bool = False
) -> ReflectResult:
    claimed = run.claimed
    with session_scope(run.settings.database_url) as session:
        event = _lock_event(session, claimed.event_id)
        if event is None or not _still_ours(event, claimed):
            return ReflectResult(claimed.event_id, "claim_lost")
        lock_agent_lessons(session, event.agent_id)
        if not _plan_still_valid(session, claimed, prepared.clean, read):
            if not last_round:
                return ReflectResult(claimed.event_id, "epoch_moved")
            plan = _without_stale_rewrites(session, plan, read, claimed.event_id)
        return _apply_and_finish(session, event, run, prepared, plan)


def _apply_and_finish(
    session: Session,
    event: Event,
    run: RunInfo,
    prepared: _Prepared,
    plan: Plan,
    *,
    recheck_adds: bool = True,
) -> ReflectResult:
    """Inside the caller's transaction, which holds the event row and the agent's lesson lock:
    the plan's operations with evidence and history, the quarantined lessons, outcome
    feedback, the ``digest_runs`` row and the final status."""
    claimed = run.claimed
    outcome = _lesson_outcome(claimed)

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
        prepared.clean,
        plan,
        add=add,
        model=run.model,
        prompt_hash=run.history_hash,
        promote_at=claimed.promote_at,
        recheck_adds=recheck_adds,
    )
    for index, lesson_id in applied.by_candidate.items():
        KNOWN_TEXTS.put(
            _text_key(claimed.agent_id, prepared.clean[index]),
            lesson_id,
            run.settings.llm_cache_size,
        )
    for candidate, why in prepared.quarantined:
        applied.lesson_ids.append(add(candidate, "quarantined", f"injection screen: {why}").id)
        applied.counts["ADD"] += 1
    _set_terminal(session, event, "reflected")
    event.last_error = None
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


# --- batches: what the worker's reflect task runs ----------------------------------------------


def models_in_process(agent_model: str | None, settings: Settings) -> bool:
    """Are this agent's reflect and reconcile models answered in this process (``offline/*``)?"""
    return all(
        is_offline_model(agent_model or settings.model_for(step))
        for step in ("reflect", "reconcile")
    )


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
    event_id: int, agent_id: int | None, settings: Settings, delivery: str | None = None
) -> Batch:
    """Claim ``event_id`` (as ``claim`` does) and, in the same transaction, the agent's oldest
    other pending events, skipping rows another worker is claiming right now; with
    ``delivery`` (the message's task id), also the events an earlier, dead delivery of the
    same message had claimed.

    With models answered in process a task takes up to ``DIGEST_REFLECT_BATCH_SIZE`` events;
    with a remote model one (each event then gets its own task, so model latency overlaps
    across the pool). ``next_pending`` names one more pending event if any was left."""
    batch = Batch(agent_id=agent_id)
    with session_scope(settings.database_url) as session:
        row = _own_event(session, event_id)
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
            own = _claim_row(event, agent, tenant, settings, delivery)
            if isinstance(own, Claimed):
                batch.claimed.append(own)
            else:
                batch.results.append(own)
        batch.agent_id = agent.id
        batch.in_process = models_in_process(agent.llm_model, settings)
        room = (settings.reflect_batch_size if batch.in_process else 1) - len(batch.claimed)
        claimable = Event.status == "pending"
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
            batch.claimed.append(_take(other, agent, tenant, settings, now, delivery))
        if len(others) > room:
            batch.next_pending = others[room].id
    batch.claimed.sort(key=lambda c: c.event_id)
    return batch


def reflect_queued(
    event_id: int,
    agent_id: int | None = None,
    settings: Settings | None = None,
    *,
    delivery: str | None = None,
) -> list[ReflectResult]:
    """The worker's reflect task: ``event_id`` and, with it, the agent's other pending events.

    Capture sends at most one waiting message per agent (``publish.publish_reflect``): this
    task frees the agent's slot first, then claims every pending event committed before that
    (a batch at a time), so no event whose message was coalesced away is left behind. A batch
    that does not hold all of them passes the rest on in one message: at once with a remote
    model (the next event starts on another thread while this one waits for its model), after
    the batch with models in process (the batch holds the agent's lock; other agents' messages
    go first). Safe to deliver twice, like ``reflect_event``; ``delivery`` is the message's
    Celery task id, so that a second delivery of one message takes back what its first, dead
    run had claimed."""
    settings = settings or get_settings()
    if agent_id is not None:
        publish.release_reflect_slot(agent_id, settings)
    batch = claim_batch(event_id, agent_id, settings, delivery)
    for noop in batch.results:
        log.info("reflect_noop", event_id=noop.event_id, status=noop.status, reason=noop.reason)
    if batch.next_pending is not None and not batch.in_process:
        _pass_on(batch, settings)
    try:
        if batch.in_process and len(batch.claimed) > 1:
            results = _reflect_together(batch.claimed, settings)
        else:
            results = [_reflect_claimed(c, settings, time.monotonic()) for c in batch.claimed]
    finally:
        # Even if this batch raised: the agent's other pending events must not wait for it.
        if batch.next_pending is not None and batch.in_process:
            _pass_on(batch, settings)
    if batch.agent_id is not None and any(r.status == "reflected" for r in results):
        _schedule_compose(batch.agent_id, settings)
    return batch.results + results


def _pass_on(batch: Batch, settings: Settings) -> None:
    assert batch.next_pending is not None and batch.agent_id is not None
    # Coalesced like a capture's message: if one already waits for the agent, it covers these.
    publish.publish_reflect(batch.next_pending, settings, agent_id=batch.agent_id)


def _reflect_together(batch: list[Claimed], settings: Settings) -> list[ReflectResult]:
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
                    if event is None or not _still_ours(event, claimed):
                        results.append(ReflectResult(claimed.event_id, "claim_lost"))
                        continue
                    with _about(claimed):
                        run = _new_run(claimed, settings, time.monotonic())
                        results.append(_reflect_held(session, event, run))
    except Exception as exc:
        if not _is_fault(exc):
            log.error(
                "batch_failed",
                events=[c.event_id for c in batch],
                error=f"{type(exc).__name__}: {exc}",
            )
            return _one_by_one(batch, settings)
        _hand_back(batch, settings)
        raise
    for claimed, result in zip(batch, results, strict=True):
        with _about(claimed):
            result.log()
    return results


def _reflect_held(session: Session, event: Event, run: RunInfo) -> ReflectResult:
    """One event of a batch, inside the batch's transaction (event row and agent lock held)."""
    verdict = _judge(run)
    if isinstance(verdict, Skip):
        return _mark_skipped(session, event, run, verdict.reason)
    if isinstance(verdict, _Failed):
        return _mark_failed(session, event, run, verdict.reason)
    claimed, settings = run.claimed, run.settings
    try:
        prepared = _prepare(run, verdict)
        snapshot = _known_repeats(session, claimed, prepared.clean, settings)
        if snapshot is None:
            if _bank_changed(session):
                session.flush()  # the search reads the term index, kept by a trigger
            snapshot = read_neighbours(
                session,
                claimed.tenant_id,
                claimed.agent_id,
                prepared.clean,
                settings.reconcile_k,
                with_epoch=False,
            )
        plan = _decide(run, prepared, snapshot)
    except LLMError as exc:  # nothing of this event is written before the plan is decided
        return _mark_failed(session, event, run, str(exc))
    # The neighbours were read under the lock this transaction holds: an ADD needs no second
    # look for an identical lesson, unless the event's own candidates could be identical.
    recheck = len(prepared.clean) > 1
    return _apply_and_finish(session, event, run, prepared, plan, recheck_adds=recheck)


#: (agent, a candidate's normalised text) → the lesson that candidate last ended up in, in
#: this process. A batch checks the row (active, unexpired, this agent, exactly this text)
#: before it uses one, so an entry never decides anything on its own: it saves the neighbour
#: search for an exact repeat, whose only possible decision is a NOOP on that lesson.
KNOWN_TEXTS: AnswerCache[int] = AnswerCache()


def _text_key(agent_id: int, candidate: Candidate) -> str:
    return answer_key("lesson-text", agent_id, normalise(candidate_text(candidate)))


def _known_repeats(
    session: Session, claimed: Claimed, clean: list[Candidate], settings: Settings
) -> Snapshot | None:
    """The neighbours of candidates that exactly repeat live lessons (each its own lesson,
    scored identical), or None if any candidate is not such a repeat."""
    if not clean or settings.llm_cache_size == 0:
        return None
    now = utcnow()
    found: list[list[Neighbour]] = []
    for candidate in clean:
        lesson_id = KNOWN_TEXTS.get(_text_key(claimed.agent_id, candidate))
        lesson = session.get(Lesson, lesson_id) if lesson_id is not None else None
        if (
            lesson is None
            or lesson.status != "active"
            or (lesson.tenant_id, lesson.agent_id) != (claimed.tenant_id, claimed.agent_id)
            or (lesson.expires_at is not None and as_utc(lesson.expires_at) <= now)
            or normalise(lesson_text(lesson.situation, lesson.correction))
            != normalise(candidate_text(candidate))
        ):
            return None
        found.append([Neighbour.of(lesson, relevance=1.0, identity=1.0)])
    return Snapshot(epoch=0, neighbours=found, k=settings.reconcile_k)


#: lesson columns the neighbour search depends on (through the term index or its filter)
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
    from sqlalchemy.exc import InterfaceError, OperationalError

    return isinstance(exc, OperationalError | InterfaceError) or is_time_limit(exc)


def _one_by_one(batch: list[Claimed], settings: Settings) -> list[ReflectResult]:
    """The batch's events each on their own (still claimed: the rollback left the claims).
    An event that raises again is left claimed for the relay, as a single event would be;
    the first such error is raised once the others are done."""
    results, errors = [], []
    for claimed in batch:
        try:
            results.append(_reflect_claimed(claimed, settings, time.monotonic()))
        except Exception as exc:
            log.error(
                "event_raised", event_id=claimed.event_id, error=f"{type(exc).__name__}: {exc}"
            )
            errors.append(exc)
    if errors:
        raise errors[0]
    return results


def _hand_back(batch: list[Claimed], settings: Settings) -> None:
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
