"""Composing an agent's next learning version (DESIGN §1, §3, §5).

An agent's lessons reach it as one markdown document that changes rarely, visibly and
reversibly. ``compose_version`` renders the lessons that pass the frequency gate into a
byte-stable body (``digest.versions.draft``); a new version is written only when that body
differs from the current one, appended to the agent's chain under its version lock
(``digest.versions.chain``), active at once or held for a person (``digest.versions.holds``)
after the replay of the agent's recent failures (``digest.versions.replay``).

``rollback`` (``digest.versions.decisions``) appends a copy of an earlier body, active in every
mode: a person asked for it.

The summarize step (``prompts/summarize.md``) writes the change note; the model call happens
with no transaction open. If it fails after its retries, the deterministic note is used and
the failure is recorded on the compose run: a version is never lost to a summary. When the
lessons (or the active version) change between that read and the write, compose reads again
(``COMPOSE_ATTEMPTS`` in all, ``digest.retrying``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import DigestError, LLMError
from digest.lessons.budgets import recorded_reader
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model import spend
from digest.model.contracts import change_note, embed_json, parse_summary
from digest.model.prompts import load_prompt
from digest.models import Agent, DigestRun, LearningVersion, Tenant, utcnow
from digest.retrying import again
from digest.versions.chain import (
    activate_version,
    append_version,
    current_version,
    lock_versions,
    next_number,
    prune_versions,
)
from digest.versions.draft import (
    Draft,
    agent_and_policy,
    read_draft,
    repeats_latest,
    why_unchanged,
)
from digest.versions.holds import hold_reasons
from digest.versions.replay.plan import ReplayPlan, prepare
from digest.versions.replay.probes import store_probes
from digest.versions.replay.report import ReplayReport

log = get_logger("digest.versions")

#: composes tried in all while the lessons keep changing between the read and the write
COMPOSE_ATTEMPTS = 3


@dataclass(frozen=True)
class ComposeResult:
    status: str  # "created" | "no_change"
    version_id: int | None = None
    number: int | None = None
    version_status: str | None = None
    change_summary: str | None = None
    #: improve-now: the agent's events captured before it was asked that this version could
    #: not cover: still waiting after a model fault, or still being reflected elsewhere when
    #: the wait for them (DIGEST_IMPROVE_WAIT_S) ran out
    waiting: int = 0
    in_flight: int = 0
    #: why the new version waits for a person instead of being active (None: it is active)
    hold_reason: str | None = None
    #: ``no_change``: why no version was written, in words (``draft.why_unchanged``)
    reason: str | None = None


class _LessonsChanged(Exception):
    """The lessons, or the version the replay compared with, changed between compose's read
    and its write: the draft is stale, and compose reads again."""


def compose_version(agent_id: int, trigger: str, settings: Settings | None = None) -> ComposeResult:
    """Compose a new version for one agent if its document would change. Idempotent."""
    settings = settings or get_settings()
    started = time.monotonic()
    usage = llm.Usage()
    attempts = again(times=COMPOSE_ATTEMPTS, when=lambda error: isinstance(error, _LessonsChanged))
    try:
        return attempts(_compose_once, agent_id, trigger, settings, started, usage)
    except _LessonsChanged as exc:
        raise DigestError(
            f"agent {agent_id}: lessons kept changing while composing; try again"
        ) from exc


def _compose_once(
    agent_id: int, trigger: str, settings: Settings, started: float, usage: llm.Usage
) -> ComposeResult:
    """One read, summary, replay and write; ``_LessonsChanged`` when the write finds the
    read stale."""
    with session_scope(settings.database_url) as session:
        agent, policy = agent_and_policy(session, agent_id, settings)
        current = current_version(session, agent)
        draft = read_draft(session, agent, policy, current)
        unchanged = why_unchanged(session, agent, current, draft.body)
        if unchanged is not None:
            agent.composed_at = utcnow()
            session.add(_run(agent, trigger, usage, started, None, draft=None))
            log.info("compose_no_change", agent_id=agent_id, trigger=trigger)
            return ComposeResult("no_change", reason=unchanged)
        number_hint = next_number(session, agent_id)
        agent_name = agent.name
        agent_model = agent.llm_model
        tenant = session.get(Tenant, agent.tenant_id)
        assert tenant is not None  # the agent's foreign key
        budget = spend.limits_of(tenant.daily_tokens, tenant.daily_cost_usd)
        recorded = recorded_reader(settings, tenant.id)
        baseline = current.id if current is not None else None
        plan = prepare(session, agent_id, current, draft.lesson_ids, settings)
    with spend.for_tenant(policy.name, budget, recorded):  # over budget: the deterministic note
        summary, error = _summarize(
            agent_name, agent_model, number_hint, current, draft, usage, settings
        )
    proof = _Proof(baseline, plan.run() if plan is not None else None, plan)
    return _write(agent_id, trigger, draft, summary, error, usage, started, settings, proof)


def _summarize(
    agent_name: str,
    agent_model: str | None,
    number: int,
    current: LearningVersion | None,
    draft: Draft,
    usage: Any,
    settings: Settings,
) -> tuple[str, str | None]:
    """The change note from the summarize step, or the deterministic one if the step fails."""
    fallback = change_note(draft.added, draft.changed, draft.retired)
    prompt = load_prompt("summarize")
    messages = prompt.render(
        agent=agent_name,
        number=number,
        previous=current.number if current else "none",
        added_json=embed_json(draft.added),
        changed_json=embed_json(draft.changed),
        retired_json=embed_json(draft.retired),
    )
    model = agent_model or settings.model_for("summarize")
    try:
        return llm.call_and_parse(
            messages, parse_summary, model=model, usage=usage, settings=settings
        ), None
    except LLMError as exc:
        log.warning("summarize_failed", error=str(exc))
        return fallback, f"summarize failed, deterministic note used: {exc}"


@dataclass(frozen=True)
class _Proof:
    """The replay compose ran for its draft, against the version active then."""

    #: the id of that active version (None: none)
    baseline: int | None
    report: ReplayReport | None
    plan: ReplayPlan | None


def _write(
    agent_id: int,
    trigger: str,
    draft: Draft,
    summary: str,
    error: str | None,
    usage: Any,
    started: float,
    settings: Settings,
    proof: _Proof,
) -> ComposeResult:
    """Write the version under the agent's version lock. ``_LessonsChanged``: the lessons (or
    the active version the replay compared with) moved meanwhile, and no version is written."""
    with session_scope(settings.database_url) as session:
        lock_versions(session, agent_id)
        if proof.plan is not None:
            store_probes(session, proof.plan.stored_vectors())
        agent, policy = agent_and_policy(session, agent_id, settings)
        current = current_version(session, agent)
        fresh = read_draft(session, agent, policy, current)
        if repeats_latest(session, agent, current, fresh.body):
            agent.composed_at = utcnow()  # a concurrent compose wrote it first
            session.add(_run(agent, trigger, usage, started, error, draft=None))
            return ComposeResult("no_change")
        stale = None
        if fresh.body != draft.body:
            stale = "the lessons changed since the summary was written"
        elif (current.id if current is not None else None) != proof.baseline:
            stale = "another version became active: replay against it"
        if stale is None:
            reasons = hold_reasons(
                session, policy.learning_apply_mode, trigger, current, draft.lesson_ids,
                proof.report, settings,
            )  # fmt: skip
            active = not reasons
            version = append_version(
                session,
                agent,
                current,
                body_markdown=draft.body,
                change_summary=summary,
                folded_lesson_ids=draft.lesson_ids,
                supporting_event_ids=draft.event_ids,
                proposed_by="digest",
                trigger=trigger,
                llm_calls=usage.calls,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cost_usd=usage.cost_usd,
                replay=proof.report.to_json() if proof.report is not None else None,
                hold_reason="; ".join(reasons) or None,
            )
            if active:
                activate_version(session, agent, version)
            agent.composed_at = utcnow()
            agent.compose_token = None
            session.add(_run(agent, trigger, usage, started, error, draft=draft, version=version))
            prune_versions(session, agent, settings.keep_versions)
            report = proof.report
            log.info(
                "version_composed",
                agent_id=agent.id,
                number=version.number,
                status=version.status,
                trigger=trigger,
                held=version.hold_reason,
                replayed=report.events if report else None,
                covered=(report.current_covered, report.proposed_covered) if report else None,
                replay_ms=round(report.ms, 1) if report else None,
            )
            return ComposeResult(
                "created", version.id, version.number, version.status, version.change_summary,
                hold_reason=version.hold_reason,
            )  # fmt: skip
    # after the commit: the probe vectors stored above are kept for the next attempt
    raise _LessonsChanged(stale)


def _run(
    agent: Agent,
    trigger: str,
    usage: Any,
    started: float,
    error: str | None,
    *,
    draft: Draft | None,
    version: LearningVersion | None = None,
) -> DigestRun:
    return DigestRun(
        tenant_id=agent.tenant_id,
        agent_id=agent.id,
        version_id=version.id if version else None,
        kind="compose",
        trigger=trigger,
        n_add=len(draft.added) if draft else 0,
        n_update=len(draft.changed) if draft else 0,
        n_delete=len(draft.retired) if draft else 0,
        llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage.cost_usd,
        model=usage.model,
        duration_ms=int((time.monotonic() - started) * 1000),
        error=error,
    )
