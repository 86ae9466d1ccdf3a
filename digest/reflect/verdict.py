"""The verdict: a claimed event → ``<skip>``, failed, or candidate lessons, before anything is
written.

A manual lesson is its own candidate. Other events go through the trigger policy, then a
stored judgement of the same signature (``digest.reflect.judgements``) or one reflect call
through the model seam (an exact repeat reuses this process's answer); each candidate gets
the fingerprint of what it is about. This is the only step whose model call may be remote:
the core never holds a transaction open across it unless the model answers in process.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.orm import Session

from digest import fingerprint as fp
from digest.agents import LEARNING_OFF_REASON
from digest.capture.manual import manual_candidate
from digest.edits import EditRule
from digest.errors import LLMError
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model.cache import AnswerCache, answer_key
from digest.model.contracts import LessonBlock, Skip, embed_json, parse_reflect_checked
from digest.model.error_families import family_of
from digest.model.prompts import load_prompt
from digest.reflect import judgements
from digest.reflect.claims import Claimed
from digest.reflect.order import after_same_incident
from digest.reflect.policy import policy_skip_reason
from digest.reflect.run import RunInfo
from digest.runtime import runtime
from digest.text import lesson_text
from digest.tool_siblings import sibling_keys

log = get_logger("digest.reflect")


def judgement_key(claimed: Claimed, model: str, prompt_hash: str) -> bytes:
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


#: bytes of reflect verdicts one process keeps, at most (about 0.8 kB a judged event, packed:
#: some 1,300 verdicts). The fleet's stored judgements (``digest.reflect.judgements``) answer
#: a repeat first, in any process and however old; this memory only saves the model call for
#: a repeat they cannot answer (a judgement whose lessons changed, a tainted run's, or one
#: still being written), which comes soon after its original: a small bound keeps its hits
#: and reaches it early instead of growing a worker through its first hours (issue 27: none of
#: 2,121 asks hit in the throughput stream, at any bound: some 400 verdicts are kept).
JUDGEMENTS_BYTES = 2**18


def judgements_memory() -> AnswerCache[bytes]:
    """Reflect verdicts of this worker process (a piece of its runtime), packed
    (``pack_verdict``): an exact repeat of an event already judged (same agent, model, prompt
    version and content) reuses the verdict instead of a model call; reconciliation, the
    lesson writes, evidence and history still happen for the repeat."""
    return AnswerCache(max_bytes=JUDGEMENTS_BYTES)


def pack_verdict(answer: Skip | tuple[Candidate, ...]) -> bytes:
    """A model's verdict as one bytes object (``marshal``: a skip's reason, or each
    candidate's situation, correction, mistake and tags, all a reflect answer gives): a
    fourth to a half of the bytes of the objects it stands for."""
    if isinstance(answer, Skip):
        return marshal.dumps(answer.reason)
    return marshal.dumps(tuple((c.situation, c.correction, c.mistake, c.tags) for c in answer))


def unpack_verdict(packed: bytes) -> Skip | tuple[Candidate, ...]:
    """The verdict ``pack_verdict`` packed."""
    found = marshal.loads(packed)
    if isinstance(found, str):
        return Skip(found)
    return tuple(Candidate(s, c, m, tuple(tags)) for s, c, m, tags in found)


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


Verdict = Skip | Failed | list[Candidate]


def with_fingerprints(claimed: Claimed, candidates: list[Candidate]) -> list[Candidate]:
    """Each candidate with the fingerprint of what it is about: the failure of the run it
    speaks of (a run that failed in three ways has three), the rule of the edit it states (an
    edit that fixes content and tone teaches two), the owner's question, the manual lesson's
    signature."""
    if claimed.kind == "run_outcome":
        failures = fp.run_failures(claimed.payload)
        keys = fp.assign(
            [lesson_text(c.situation, f"{c.mistake or ''} {c.correction}") for c in candidates],
            failures,
        )
        by_key = {f.key: f for f in failures}
        candidates = [
            _of_failure(c, by_key[key]) if key in by_key else c
            for c, key in zip(candidates, keys, strict=True)
        ]
    elif claimed.kind == "operator_edit":
        rules = fp.assigned_edit_rules(
            [
                f"{' '.join(c.tags)} {c.situation} {c.mistake or ''} {c.correction}"
                for c in candidates
            ],
            claimed.payload,
        )
        keys = [fp.edit_rule_key(rule) for rule in rules]
        candidates = [
            _tagged(c, ("operator-edit", rule.family, *_shape_names(rule)))
            for c, rule in zip(candidates, rules, strict=True)
        ]
    elif claimed.kind == "manual_lesson":
        keys = [fp.manual_key(c.situation, c.correction) for c in candidates]
    else:
        found = fp.event_keys(claimed.kind, claimed.payload)
        keys = [found[0] if found else None] * len(candidates)
    return [replace(c, fingerprint=key) for c, key in zip(candidates, keys, strict=True)]


def _of_failure(candidate: Candidate, failure: fp.Failure) -> Candidate:
    """A lesson of a run's failure: tagged with its family (unless the judge tagged it), and
    with the keys its error would have on its tool's siblings (``digest.tool_siblings``)."""
    if fp.TOOL_ERROR_TAG not in candidate.tags:
        candidate = _tagged(candidate, _failure_tags(failure))
    return replace(candidate, sibling_keys=sibling_keys(failure.tool, failure.template))


def _tagged(candidate: Candidate, structural: tuple[str, ...]) -> Candidate:
    """The candidate with the tags of what the product read from its event (an edit rule's
    family and shape names, a tool error's family) before the model's own: a model words its
    tags its own way, and what reconciles lessons (``digest.edits.same_tone``,
    ``fp.same_error_family``) reads these, not the model's wording (DESIGN §8a)."""
    missing = tuple(t for t in dict.fromkeys(structural) if t and t not in candidate.tags)
    return replace(candidate, tags=(*missing, *candidate.tags)) if missing else candidate


def _shape_names(rule: EditRule) -> tuple[str, ...]:
    """The names of an edit rule's shape (``removed-exclamation``, ``removed-promise``); a
    content rule's are the product's bookkeeping (``said``, ``left-out``), not a tag."""
    return () if rule.family == "content" else rule.names


def _failure_tags(failure: fp.Failure) -> tuple[str, ...]:
    """A tool error's structural tags: ``tool-error`` and the family of what its error says
    (``digest.model.error_families``), as the offline rules tag their lessons; a run's own
    error (no tool) has none."""
    if not failure.tool:
        return ()
    return (fp.TOOL_ERROR_TAG, family_of(failure.template).name)


def verdict_for(run: RunInfo, session: Session | None = None, *, share: bool = True) -> Verdict:
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
        LEARNING_OFF_REASON
        if not claimed.enable_learning
        else policy_skip_reason(claimed.kind, claimed.payload, claimed.edit_ratio, settings)
    )
    if reason is not None:
        return Skip(reason)
    model = claimed.agent_model or settings.model_for("reflect")
    prompt = load_prompt("reflect")
    run.model = model
    if share and session is None:
        # a remote model (no transaction held): a repeat of an event still being judged
        # waits for that judgement instead of asking the model again
        after_same_incident(claimed, settings)
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

    def parse(text: str) -> Skip | list[LessonBlock]:
        answer, refused = parse_reflect_checked(text)
        run.refused.extend(f"refused {item.what}: {item.why}" for item in refused)
        return answer

    def judge() -> bytes:
        answer = llm.call_and_parse(
            messages, parse, model=model, usage=run.usage, settings=settings
        )
        if isinstance(answer, Skip):
            return pack_verdict(answer)
        return pack_verdict(tuple(Candidate.of(block) for block in answer))

    key = judgement_key(claimed, model, prompt.hash)
    try:
        memory = runtime().piece(judgements_memory)
        packed, reused = memory.get_or_compute(key, judge, settings.llm_cache_size)
    except LLMError as exc:
        return Failed(str(exc), exc)
    if reused:
        log.info("reflect_judgement_reused", event_id=claimed.event_id)
    stored = unpack_verdict(packed)
    return stored if isinstance(stored, Skip) else with_fingerprints(claimed, list(stored))
