"""Reflection: one event → ``<skip>`` or 1..3 lessons with provenance.

The flow of ``reflect_event`` (every step re-reads rows, so a second delivery does nothing):

1. **claim** (short transaction, row lock): pending → processing, attempts + 1. A finished
   event is left alone; a fresh ``processing`` claim belongs to a live worker; a stale one (older
   than the hard time limit) belongs to a dead worker and is taken over.
2. **policy**: events the trigger policy does not reflect are skipped without a model call.
3. **judge** (no transaction open): one LLM call through the model seam, retried on transient
   faults and unparseable output, then parsed against the reflect output contract.
4. **apply** (one transaction): re-check the claim, write lessons + evidence + ADD history (or
   the skip), the ``digest_runs`` row and the final status, all or nothing.

Reconciliation against existing lessons comes next (DESIGN §4); until then every candidate is
an ADD.
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import structlog
from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import LLMError, LLMOutputError
from digest.lessons import Candidate, add_lesson
from digest.models import Agent, DigestRun, Event, Tenant, utcnow
from digest.screen import injection_reason

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


# --- the steps ---------------------------------------------------------------------------------


@dataclass
class Claimed:
    """What a claimed event needs outside the transaction (plain values, no ORM objects)."""

    event_id: int
    attempt: int
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
        event = _lock_event(session, event_id)
        if event is None:
            return ReflectResult(event_id, "missing", "no such event")
        if event.status in TERMINAL:
            return ReflectResult(event_id, "already_done", event.status)
        now = utcnow()
        if event.status == "processing":
            stale_before = now - timedelta(seconds=settings.processing_stale_after_s)
            started = event.processing_started_at
            if started is not None and _aware(started) > stale_before:
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
        agent = session.get(Agent, event.agent_id)
        tenant = session.get(Tenant, event.tenant_id)
        assert agent is not None and tenant is not None
        return Claimed(
            event_id=event.id,
            attempt=event.attempts,
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
        )


def _aware(moment: Any) -> Any:
    # SQLite returns naive datetimes; everything we store is UTC.
    from datetime import UTC

    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


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
        return _judge_and_apply(claimed, settings, started)


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
    if reason is not None:
        return _apply(claimed, Skip(reason), usage, None, prompt.hash, started, settings)
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
    try:
        verdict = llm.call_and_parse(
            messages, parse_reflect_output, model=model, usage=usage, settings=settings
        )
    except LLMError as exc:
        return _finish_failed(claimed, str(exc), usage, model, started, settings)
    return _apply(claimed, verdict, usage, model, prompt.hash, started, settings)


def _digest_run(
    claimed: Claimed,
    tenant_id: int,
    agent_id: int,
    usage: Any,
    model: str | None,
    started: float,
    **counts: Any,
) -> DigestRun:
    return DigestRun(
        tenant_id=tenant_id,
        agent_id=agent_id,
        event_id=claimed.event_id,
        kind="reflect",
        trigger="event",
        llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage.cost_usd,
        model=model,
        duration_ms=int((time.monotonic() - started) * 1000),
        **counts,
    )


def _still_ours(event: Event | None, claimed: Claimed) -> bool:
    ok = event is not None and event.status == "processing" and event.attempts == claimed.attempt
    if not ok:
        log.warning("claim_lost", event_id=claimed.event_id, attempt=claimed.attempt)
    return ok


def _apply(
    claimed: Claimed,
    verdict: Skip | list[Candidate],
    usage: Any,
    model: str | None,
    prompt_hash: str,
    started: float,
    settings: Settings,
) -> ReflectResult:
    with session_scope(settings.database_url) as session:
        event = _lock_event(session, claimed.event_id)
        if event is None or not _still_ours(event, claimed):
            return ReflectResult(claimed.event_id, "claim_lost")
        now = utcnow()
        event.updated_at = event.finished_at = now
        event.last_error = None
        if isinstance(verdict, Skip):
            event.status = "skipped"
            event.skip_reason = verdict.reason
            session.add(
                _digest_run(
                    claimed, event.tenant_id, event.agent_id, usage, model, started, n_skip=1
                )
            )
            log.info("event_skipped", event_id=event.id, reason=verdict.reason)
            return ReflectResult(event.id, "skipped", verdict.reason)
        result = ReflectResult(event.id, "reflected")
        outcome = _lesson_outcome(claimed)
        for candidate in verdict:
            status, status_reason = "active", None
            if claimed.trust == "low":
                found = injection_reason(
                    " ".join(
                        filter(None, (candidate.situation, candidate.mistake, candidate.correction))
                    )
                )
                if found:
                    status, status_reason = "quarantined", f"injection screen: {found}"
                    result.quarantined += 1
            lesson = add_lesson(
                session,
                event=event,
                candidate=candidate,
                source=claimed.kind,
                outcome=outcome,
                status=status,
                status_reason=status_reason,
                model=model,
                prompt_hash=prompt_hash,
                note=f"reflected from {claimed.kind} event {event.id}",
            )
            result.lesson_ids.append(lesson.id)
        event.status = "reflected"
        session.add(
            _digest_run(
                claimed,
                event.tenant_id,
                event.agent_id,
                usage,
                model,
                started,
                n_add=len(result.lesson_ids),
            )
        )
        log.info(
            "event_reflected",
            event_id=event.id,
            lessons=result.lesson_ids,
            quarantined=result.quarantined,
            llm_calls=usage.calls,
        )
        return result


def _lesson_outcome(claimed: Claimed) -> str:
    if claimed.kind == "run_outcome":
        return "success" if claimed.payload.get("outcome") == "success" else "failure"
    if claimed.kind == "owner_answer":
        return "success"
    return "failure"  # an operator had to correct or reject the draft


def _finish_failed(
    claimed: Claimed,
    reason: str,
    usage: Any,
    model: str,
    started: float,
    settings: Settings,
) -> ReflectResult:
    detail = f"{reason} (after {usage.calls} model call(s))"
    with session_scope(settings.database_url) as session:
        event = _lock_event(session, claimed.event_id)
        if event is None or not _still_ours(event, claimed):
            return ReflectResult(claimed.event_id, "claim_lost")
        event.status = "failed"
        event.last_error = detail
        event.updated_at = event.finished_at = utcnow()
        session.add(
            _digest_run(
                claimed, event.tenant_id, event.agent_id, usage, model, started, error=detail
            )
        )
    log.error("event_failed", event_id=claimed.event_id, reason=detail)
    return ReflectResult(claimed.event_id, "failed", detail)
