"""Between the verdict and the write: candidates cleaned, screened and reconciled.

``prepare`` masks any secret a candidate echoes, quotes a model's copy of the run's error as
observed data (``digest.reflect.observations``) and screens untrusted candidates for
injection (``digest.reflect.screen``): what instructs is set aside for quarantine, the rest
is clean. ``decide_plan`` reconciles the clean candidates against the neighbours the core read
(``digest.reflect.reconcile``): the fast path, or one model call for what is undecided.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from digest.lessons.store import Candidate
from digest.lessons.vectors import warm as warm_cues
from digest.model.offline import is_offline_model
from digest.redact import redact
from digest.reflect.ask import ModelAsker
from digest.reflect.observations import as_observed
from digest.reflect.reconcile import Plan, Snapshot, decide
from digest.reflect.run import RunInfo
from digest.reflect.screen import event_reason, lesson_reason, operations_passed, tools_called


def _named_by_run(payload: dict[str, Any]) -> frozenset[str]:
    """What a lesson of this run may tell the agent to use: the tools it called and the
    operations its calls passed (``screen.operations_passed``)."""
    return tools_called(payload) | operations_passed(payload)


def _screen(
    run: RunInfo, candidates: list[Candidate], tools: frozenset[str] | None
) -> list[str | None]:
    """Per candidate: why it is quarantined, or None. Only untrusted events are screened.

    The run's own text is screened first: a run that carries an injection attempt anywhere
    (task, error, a tool's name, error or output, the attempt summary) taints every lesson
    drawn from it, however a model reworded it. Then each lesson's text is judged for what it
    would make the agent do (``screen.lesson_reason``; ``tools``: what it may tell the agent
    to use, None for an event that is no run)."""
    claimed = run.claimed
    if claimed.trust != "low":
        return [None] * len(candidates)
    tainted = event_reason(claimed.payload)
    if tainted is not None:
        return [f"the run's text {tainted}"] * len(candidates)
    # offline/rules quotes only fields event_reason has just passed: its own words are enough.
    ours = run.model is not None and is_offline_model(run.model)
    return [lesson_reason(c, tools, quotes_screened=ours) for c in candidates]


def without_secrets(candidate: Candidate) -> Candidate:
    """A tool error that echoed a key must not carry it into a lesson, a version or an export."""
    return replace(
        candidate,
        situation=redact(candidate.situation),
        correction=redact(candidate.correction),
        mistake=redact(candidate.mistake) if candidate.mistake else candidate.mistake,
        tags=tuple(redact(tag) for tag in candidate.tags),
    )


@dataclass
class Prepared:
    """Candidates ready to reconcile: the clean ones, the quarantined ones with the reason,
    and the reconcile step's model seam."""

    clean: list[Candidate]
    quarantined: list[tuple[Candidate, str]]
    asker: ModelAsker
    #: screens an UPDATE's merged text for an untrusted event (None: a trusted event)
    vet: Callable[[Candidate], str | None] | None = None


def prepare(run: RunInfo, candidates: list[Candidate]) -> Prepared:
    settings, claimed = run.settings, run.claimed
    candidates = [without_secrets(c) for c in candidates]
    if claimed.kind == "run_outcome" and not (run.model and is_offline_model(run.model)):
        # a model's copy of the run's error is the observation it is (the offline rules quote
        # their own): quoted, its destinations masked, read as data by the screen and identity
        candidates = [as_observed(c, claimed.payload) for c in candidates]
    warm_cues(claimed.kind, claimed.payload)  # embedded now: no model is asked in the write
    tools = _named_by_run(claimed.payload) if claimed.kind == "run_outcome" else None
    reasons = _screen(run, candidates, tools)
    asker = ModelAsker(
        agent=claimed.agent,
        kind=claimed.kind,
        model=claimed.agent_model or settings.model_for("reconcile"),
        usage=run.usage,
        settings=settings,
        agent_id=claimed.agent_id,
    )
    run.reconcile_hash = asker.prompt_hash

    def vet(merged: Candidate) -> str | None:
        return lesson_reason(without_secrets(merged), tools)

    clean = [c for c, why in zip(candidates, reasons, strict=True) if why is None]
    return Prepared(
        clean=clean,
        quarantined=[(c, why) for c, why in zip(candidates, reasons, strict=True) if why],
        asker=asker,
        vet=vet if claimed.trust == "low" else None,
    )


def decide_plan(run: RunInfo, prepared: Prepared, snapshot: Snapshot) -> Plan:
    """The operations for the clean candidates against ``snapshot``'s neighbours."""
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
