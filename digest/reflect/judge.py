"""Judging: a claimed event → ``<skip>`` or candidate lessons, with no transaction open.

A manual lesson is its own candidate. Other events go through the trigger policy, then one
reflect call through the model seam (an exact repeat reuses the process's verdict), then
the candidates lose any secret they echo and untrusted ones are screened for injection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy.orm import Session

from digest import fingerprint as fp
from digest.capture.manual import manual_candidate
from digest.config import Settings
from digest.errors import LLMError
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model.cache import AnswerCache, answer_key
from digest.model.contracts import LessonBlock, Skip, embed_json, parse_reflect_checked
from digest.model.offline import is_offline_model
from digest.model.prompts import load_prompt
from digest.models import DigestRun, Event
from digest.redact import redact
from digest.reflect import judgements
from digest.reflect.claims import Claimed
from digest.reflect.policy import policy_skip_reason
from digest.reflect.reconcile import ModelAsker, Plan, Snapshot, decide
from digest.reflect.screen import event_reason, lesson_reason, tools_called
from digest.text import lesson_text

log = get_logger("digest.reflect")


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
    # No "<" or ">" inside the block: untrusted text can neither close it nor open a tag.
    return embed_json(shown, indent=2, sort_keys=True)


@dataclass(frozen=True)
class Failed:
    """The model could not give a usable verdict (after its retries): ``error`` says whether
    the fault passes (the event waits and is tried again) or not."""

    reason: str
    error: LLMError


def with_fingerprints(claimed: Claimed, candidates: list[Candidate]) -> list[Candidate]:
    """Each candidate with the fingerprint of what it is about: the failure of the run it
    speaks of (a run that failed in three ways has three), the owner's question, the edit's
    rule, the manual lesson's signature."""
    if claimed.kind == "run_outcome":
        keys = fp.assign(
            [lesson_text(c.situation, f"{c.mistake or ''} {c.correction}") for c in candidates],
            fp.run_failures(claimed.payload),
        )
    elif claimed.kind == "manual_lesson":
        keys = [fp.manual_key(c.situation, c.correction) for c in candidates]
    else:
        found = fp.event_keys(claimed.kind, claimed.payload)
        keys = [found[0] if found else None] * len(candidates)
    return [replace(c, fingerprint=key) for c, key in zip(candidates, keys, strict=True)]


def verdict_for(
    run: RunInfo, session: Session | None = None, *, share: bool = True
) -> Skip | Failed | list[Candidate]:
    """The verdict on a claimed event, before anything is written: skipped (by the trigger
    policy or by the model), failed, or candidate lessons, each with its fingerprint. A
    manual lesson is its own candidate: a person wrote it, there is nothing to judge, only to
    reconcile. A judgement stored for the event's signature (``digest.reflect.judgements``)
    stands for a model call (unless ``share`` is False): ``session`` is the caller's open
    one, if any."""

    claimed, settings = run.claimed, run.settings
    if claimed.kind == "manual_lesson":
        return with_fingerprints(claimed, [manual_candidate(claimed.payload)])
    reason = (
        "learning is disabled for this agent"
        if not claimed.enable_learning
        else policy_skip_reason(claimed.kind, claimed.payload, claimed.edit_ratio, settings)
    )
    if reason is not None:
        return Skip(reason)
    model = claimed.agent_model or settings.model_for("reflect")
    prompt = load_prompt("reflect")
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
    shared = (
        judgements.lookup(
            session if session is not None else settings.database_url,
            claimed,
            model,
            prompt.hash,
            settings.reconcile_k,
        )
        if share
        else None
    )
    if shared is not None:
        run.reused = shared
        log.info(
            "reflect_judgement_shared", event_id=claimed.event_id, judgement=shared.judgement_id
        )
        if shared.skip_reason is not None:
            return Skip(shared.skip_reason)
        return list(shared.candidates)
    run.judged = True

    def parse(text: str) -> Skip | list[LessonBlock]:
        answer, refused = parse_reflect_checked(text)
        run.refused.extend(f"refused {item.what}: {item.why}" for item in refused)
        return answer

    def judge() -> Skip | tuple[Candidate, ...]:
        answer = llm.call_and_parse(
            messages, parse, model=model, usage=run.usage, settings=settings
        )
        if isinstance(answer, Skip):
            return answer
        return tuple(Candidate.of(block) for block in answer)

    key = judgement_key(claimed, model, prompt.hash)
    try:
        stored, reused = JUDGEMENTS.get_or_compute(key, judge, settings.llm_cache_size)
    except LLMError as exc:
        return Failed(str(exc), exc)
    if reused:
        log.info("reflect_judgement_reused", event_id=claimed.event_id)
    return stored if isinstance(stored, Skip) else with_fingerprints(claimed, list(stored))


def new_run(claimed: Claimed, settings: Settings, started: float) -> RunInfo:

    return RunInfo(claimed, llm.Usage(), started, settings, load_prompt("reflect").hash)


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
    #: structure of the model's answers the parser refused (recorded in digest_runs.error)
    refused: list[str] = field(default_factory=list)
    #: a stored judgement stood for the model's (digest.reflect.judgements)
    reused: judgements.Reused | None = None
    #: the verdict came from the model (or this process's memory of its answer): it may be
    #: stored for the fleet
    judged: bool = False

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


def _screen(run: RunInfo, candidates: list[Candidate]) -> list[str | None]:
    """Per candidate: why it is quarantined, or None. Only untrusted events are screened.

    The run's own text is screened first: a run that carries an injection attempt anywhere
    (task, error, a tool's name, error or output, the attempt summary) taints every lesson
    drawn from it, however a model reworded it. Then each lesson's text is judged for what it
    would make the agent do (``screen.lesson_reason``)."""
    claimed = run.claimed
    if claimed.trust != "low":
        return [None] * len(candidates)
    tainted = event_reason(claimed.payload)
    if tainted is not None:
        return [f"the run's text {tainted}"] * len(candidates)
    tools = tools_called(claimed.payload) if claimed.kind == "run_outcome" else None
    # offline/rules quotes only fields event_reason has just passed: its own words are enough.
    ours = run.model is not None and is_offline_model(run.model)
    return [lesson_reason(c, tools, quotes_screened=ours) for c in candidates]


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
    candidates = [_without_secrets(c) for c in candidates]
    reasons = _screen(run, candidates)
    asker = ModelAsker(
        agent=claimed.agent,
        kind=claimed.kind,
        model=claimed.agent_model or settings.model_for("reconcile"),
        usage=run.usage,
        settings=settings,
        agent_id=claimed.agent_id,
    )
    run.reconcile_hash = asker.prompt_hash
    tools = tools_called(claimed.payload) if claimed.kind == "run_outcome" else None

    def vet(merged: Candidate) -> str | None:
        return lesson_reason(_without_secrets(merged), tools)

    clean = [c for c, why in zip(candidates, reasons, strict=True) if why is None]
    return Prepared(
        clean=clean,
        quarantined=[(c, why) for c, why in zip(candidates, reasons, strict=True) if why],
        asker=asker,
        vet=vet if claimed.trust == "low" else None,
    )


def decide_plan(run: RunInfo, prepared: Prepared, snapshot: Snapshot) -> Plan:
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
