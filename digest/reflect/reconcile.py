"""Reconciliation: each candidate lesson against what the agent already knows (DESIGN §4).

Mem0's shape (ADD / UPDATE / DELETE / NOOP), without its known failures:

- the model never sees real ids: neighbours are numbered 0..k-1 for this request, and an id
  it invents or gets wrong is dropped and logged; neighbours only ever come from the same
  tenant and agent, so an operation on another agent's lesson cannot be expressed;
- an exact re-submission is a NOOP, never a DELETE;
- a contradiction (DELETE) supersedes the old lesson AND adds the candidate;
- a candidate the answer leaves uncovered is added, never lost;
- unparseable output is retried, then the event fails with the reason.

Most candidates never reach the model: no neighbour above the similarity floor → ADD; a
near-identical neighbour → NOOP (the fast path, counted in ``digest_runs.n_fast_path``).
The operations are written by ``digest.reflect.operations``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour, find_neighbours
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model.cache import AnswerCache, answer_key
from digest.model.contracts import embed_json, parse_reconcile_output
from digest.model.prompts import load_prompt
from digest.models import Agent
from digest.runtime import runtime
from digest.text import lesson_text, negation_flipped, normalise, score

log = get_logger("digest.reconcile")

OPS = ("ADD", "UPDATE", "DELETE", "NOOP")


@dataclass(frozen=True)
class Operation:
    """A decided operation for one candidate. ``lesson_id`` is a real id (never a prompt id)."""

    op: str
    candidate: int
    lesson_id: int | None = None
    merged: Candidate | None = None
    reason: str = ""
    fast: bool = False


@dataclass
class Plan:
    operations: list[Operation] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    llm_called: bool = False

    def count(self, op: str) -> int:
        return sum(1 for o in self.operations if o.op == op)

    @property
    def fast(self) -> int:
        return sum(1 for o in self.operations if o.fast)


def candidate_text(candidate: Candidate) -> str:
    return lesson_text(candidate.situation, candidate.correction)


def _digits(text_value: str) -> list[str]:
    return sorted(re.findall(r"\d+", text_value))


#: the relevance a lesson of another kind of fingerprint needs to be worth a model's look (a
#: run's failure against an owner's answer or an edit rule): lessons written from templates
#: share many words across kinds, and such a pair is rarely one lesson unless nearly the same
CROSS_KIND_FLOOR = 0.75


#: the relevance a lesson with another key of the same kind and no known common subject needs
#: to be shown to the judge as a possible contradiction (two owner questions that may be one
#: fact restated, a run's error that may reverse another)
CONTRADICTION_FLOOR = 0.75


def _floor_for(fingerprint: str | None, neighbour: Neighbour, floor: float) -> float:
    if fp.other_kind(fingerprint, neighbour.fingerprint):
        return max(floor, CROSS_KIND_FLOOR)
    return floor


def for_the_judge(fingerprint: str | None, neighbour: Neighbour, floor: float) -> bool:
    """Is a lesson with another key of the candidate's kind close enough to be the same
    subject (an API that changed, a rule that was reversed, a fact restated), so that only the
    judge may say whether they are one lesson, one superseding the other, or two? A key with
    the candidate's subject (another error of the same tool) above the floor is; a key with
    no subject only when nearly the same words; another subject never."""
    if not fp.distinct(fingerprint, neighbour.fingerprint):
        return False
    if fp.same_subject(fingerprint, neighbour.fingerprint):
        return neighbour.relevance >= floor
    if fp.other_subject(fingerprint, neighbour.fingerprint):
        return False
    return neighbour.relevance >= max(floor, CONTRADICTION_FLOOR)


def fast_path(
    index: int,
    candidate: Candidate,
    neighbours: list[Neighbour],
    *,
    floor: float,
    identical: float,
) -> Operation | None:
    """Decide without a model when the answer is obvious; None means: ask the model.

    Fingerprints find, they do not forbid (DESIGN §8a): a lesson with the candidate's own
    fingerprint is the same failure, edit rule or manual lesson → NOOP on it; the same
    owner's question with a new answer is left to the judge (an UPDATE, never a NOOP). A
    lesson with another fingerprint of the same kind is never a free NOOP; when it is about
    the same subject and close (``for_the_judge``: another error of the same tool, a fact
    restated), the judge decides (a contradiction supersedes, a different fact is added).
    Otherwise, as before: nothing comparable above the floor → ADD; near-identical words with
    the same numbers and no negation flipped → NOOP."""
    fingerprint = candidate.fingerprint
    text_value = candidate_text(candidate)
    twin = next((n for n in neighbours if fp.same(fingerprint, n.fingerprint)), None)
    if twin is not None:
        stored = lesson_text(twin.situation, twin.correction)
        if not fp.states_a_fact(fingerprint) or normalise(stored) == normalise(text_value):
            return Operation(
                "NOOP", index, lesson_id=twin.lesson_id,
                reason=f"same fingerprint as lesson {twin.lesson_id}", fast=True,
            )  # fmt: skip
        return None  # the same question answered anew: the judge writes the UPDATE
    comparable = [
        n
        for n in neighbours
        if not fp.distinct(fingerprint, n.fingerprint)
        and n.relevance >= _floor_for(fingerprint, n, floor)
    ]
    contested = [n for n in neighbours if for_the_judge(fingerprint, n, floor)]
    if not comparable and not contested:
        reason = (
            "no similar lesson"
            if not any(fp.distinct(fingerprint, n.fingerprint) for n in neighbours)
            else "the similar lessons are about other things"
        )
        return Operation("ADD", index, reason=reason, fast=True)
    # The same words say the same thing under any key; anything less is for the judge.
    same = max(comparable + contested, key=lambda n: (n.identity, -n.lesson_id))
    stored = lesson_text(same.situation, same.correction)
    flipped = negation_flipped(text_value, stored)
    if same.identity >= identical and not flipped and _digits(text_value) == _digits(stored):
        return Operation(
            "NOOP",
            index,
            lesson_id=same.lesson_id,
            reason=f"near-identical to lesson {same.lesson_id} ({same.identity:.2f})",
            fast=True,
        )
    return None


#: the identity a candidate needs with a lesson of another key for a NOOP to lose nothing
NOOP_ACROSS_KEYS_IDENTITY = 0.8


def _noop_would_lose(candidate: Candidate, lesson: Neighbour) -> bool:
    """Would a NOOP of ``candidate`` on ``lesson`` (another key of its kind) lose what the
    candidate says: its words differ from the lesson's, or its numbers do?"""
    if not fp.distinct(candidate.fingerprint, lesson.fingerprint):
        return False
    new, old = candidate_text(candidate), lesson_text(lesson.situation, lesson.correction)
    if _digits(new) != _digits(old) or negation_flipped(new, old):
        return True
    return score(new, old)[1] < NOOP_ACROSS_KEYS_IDENTITY


def prompt_blocks(
    candidates: dict[int, Candidate], neighbours: list[Neighbour]
) -> tuple[str, str, list[int]]:
    """(existing JSON, candidates JSON, prompt id → real lesson id)."""
    id_map = [n.lesson_id for n in neighbours]
    existing = [
        {
            "id": i,
            "situation": n.situation,
            "mistake": n.mistake,
            "correction": n.correction,
            "tags": list(n.tags),
            "fingerprint": n.fingerprint,
        }
        for i, n in enumerate(neighbours)
    ]
    shown = [
        {
            "candidate": index,
            "situation": c.situation,
            "mistake": c.mistake,
            "correction": c.correction,
            "tags": list(c.tags),
            "fingerprint": c.fingerprint,
        }
        for index, c in sorted(candidates.items())
    ]

    # "<" and ">" are escaped: text inside can neither close its block nor open a tag.
    return embed_json(existing, indent=2), embed_json(shown, indent=2), id_map


def _merged(raw: Any) -> Candidate | None:
    if not isinstance(raw, dict):
        return None
    situation, correction = raw.get("situation"), raw.get("correction")
    if not isinstance(situation, str) or not isinstance(correction, str):
        return None
    if not situation.strip() or not correction.strip():
        return None
    tags = raw.get("tags") or []
    if isinstance(tags, str):
        tags = tags.split(",")
    mistake = raw.get("mistake")
    return Candidate(
        situation=situation,
        correction=correction,
        mistake=mistake if isinstance(mistake, str) else None,
        tags=tuple(str(t) for t in tags if isinstance(t, str | int)),
    )


def resolve(
    raw_operations: list[Any],
    candidates: dict[int, Candidate],
    id_map: list[int],
    neighbours: list[Neighbour],
) -> Plan:
    """Turn the model's raw operations into safe, real-id operations for ``candidates``."""
    plan = Plan(llm_called=True)
    by_id = {n.lesson_id: n for n in neighbours}
    decided: dict[int, Operation] = {}

    def drop(item: Any, why: str) -> None:
        plan.dropped.append(f"{why}: {json.dumps(item, default=str)[:200]}")
        log.warning("reconcile_op_dropped", reason=why, item=str(item)[:200])

    for item in raw_operations:
        if not isinstance(item, dict):
            drop(item, "not an object")
            continue
        op = str(item.get("op", "")).upper()
        index = item.get("candidate")
        if op not in OPS:
            drop(item, "unknown op")
            continue
        if not isinstance(index, int) or isinstance(index, bool) or index not in candidates:
            drop(item, "unknown candidate")
            continue
        if index in decided:
            drop(item, "second operation for one candidate")
            continue
        if op == "ADD":
            decided[index] = Operation("ADD", index, reason="model: new lesson")
            continue
        local = item.get("id")
        if not isinstance(local, int) or isinstance(local, bool) or not 0 <= local < len(id_map):
            drop(item, "missing or out-of-range id")
            continue
        lesson_id = id_map[local]
        candidate = candidates[index]
        # Another fingerprint is not a veto (DESIGN §8a): the judge's DELETE (a contradiction:
        # the new supersedes the old), UPDATE or NOOP stands; the trust rules still apply when
        # it is written (digest.reflect.operations).
        identical = normalise(candidate_text(candidate)) == normalise(
            lesson_text(by_id[lesson_id].situation, by_id[lesson_id].correction)
        )
        reason = str(item.get("reason") or "")[:500]
        if op == "DELETE" and identical:
            # An exact re-submission never deletes what it repeats.
            decided[index] = Operation(
                "NOOP", index, lesson_id=lesson_id, reason="exact re-submission (DELETE refused)"
            )
        elif op == "DELETE":
            decided[index] = Operation(
                "DELETE", index, lesson_id=lesson_id, reason=reason or "contradicted"
            )
        elif op == "UPDATE":
            merged = _merged(item.get("lesson"))
            if merged is None:
                drop(item, "UPDATE without a usable lesson")
                continue
            decided[index] = Operation(
                "UPDATE", index, lesson_id=lesson_id, merged=merged, reason=reason or "enriched"
            )
        elif _noop_would_lose(candidate, by_id[lesson_id]):
            # The judge called another key's lesson the same, but the candidate says
            # something it does not (other words or other numbers): a NOOP would drop what the
            # candidate says and count its support on another lesson. Nothing is lost: ADD.
            decided[index] = Operation(
                "ADD", index, reason=f"model's NOOP on lesson {lesson_id} would lose the "
                "candidate: another fingerprint and other content",
            )  # fmt: skip
        elif (
            fp.states_a_fact(candidate.fingerprint)
            and fp.same(candidate.fingerprint, by_id[lesson_id].fingerprint)
            and not identical
        ):
            # The same question answered anew: the new answer is kept, the old one stays in
            # the lesson's history. A NOOP would lose it.
            decided[index] = Operation(
                "UPDATE", index, lesson_id=lesson_id, merged=candidate,
                reason="a new answer to the same question (the model's NOOP kept as UPDATE)",
            )  # fmt: skip
        else:
            decided[index] = Operation("NOOP", index, lesson_id=lesson_id, reason=reason or "same")
    for index in sorted(candidates):
        if index not in decided:
            decided[index] = Operation("ADD", index, reason="not covered by the model's answer")
    plan.operations = [decided[i] for i in sorted(decided)]
    return plan


def reconcile_answers() -> AnswerCache[str]:
    """Reconcile answers of this worker process, as JSON text, by request (a piece of its
    runtime, digest.model.cache)."""
    return AnswerCache()


class ModelAsker:
    """The reconcile step's one model call for an event's undecided candidates."""

    def __init__(
        self,
        *,
        agent: str,
        kind: str,
        model: str,
        usage: Any,
        settings: Any,
        agent_id: int | None = None,
    ) -> None:

        self._llm = llm
        self._prompt = load_prompt("reconcile")
        self.agent, self.kind, self.model, self.agent_id = agent, kind, model, agent_id
        self.usage, self.settings = usage, settings

    @property
    def prompt_hash(self) -> str:
        return self._prompt.hash

    def ask(self, pending: dict[int, Candidate], shown: list[Neighbour]) -> Plan:
        existing_json, candidates_json, id_map = prompt_blocks(pending, shown)
        messages = self._prompt.render(
            agent=self.agent,
            kind=self.kind,
            existing_json=existing_json,
            candidates_json=candidates_json,
        )
        # The rendered request is the whole input: the same request (same candidates, same
        # neighbours with the same text) gets the answer it got before, without a model call.
        key = answer_key("reconcile", self.agent_id, self.model, messages)

        def ask_model() -> str:
            raw = self._llm.call_and_parse(
                messages,
                parse_reconcile_output,
                model=self.model,
                usage=self.usage,
                settings=self.settings,
            )
            return json.dumps(raw)

        memory = runtime().piece(reconcile_answers)
        answer, reused = memory.get_or_compute(key, ask_model, self.settings.llm_cache_size)
        if reused:
            log.info("reconcile_answer_reused", agent=self.agent)
        return resolve(json.loads(answer), pending, id_map, shown)


@dataclass(frozen=True)
class Snapshot:
    """What reconciliation read, and the agent's lesson epoch at that moment."""

    epoch: int
    neighbours: list[list[Neighbour]]
    #: how many neighbours per candidate were read
    k: int = 5
    #: each candidate's one neighbour is the live lesson it repeats (a stored judgement, an
    #: exact repeat): a plan from it stands while those lessons are active, whatever else moved
    settled: bool = False


def read_neighbours(
    session: Session,
    tenant_id: int,
    agent_id: int,
    candidates: list[Candidate],
    k: int,
    *,
    with_epoch: bool = True,
) -> Snapshot:
    """Each candidate's nearest lessons, and the epoch they were read at (``with_epoch=False``
    under the agent's lesson lock, where the bank cannot move and the epoch is not needed)."""
    epoch = 0
    if with_epoch:
        epoch = session.scalar(select(Agent.lesson_epoch).where(Agent.id == agent_id)) or 0
    return Snapshot(
        k=k,
        epoch=int(epoch),
        neighbours=[
            find_neighbours(
                session, tenant_id, agent_id, candidate_text(c), k, fingerprint=c.fingerprint
            )
            for c in candidates
        ],
    )


def decide(
    candidates: list[Candidate],
    snapshot: Snapshot,
    *,
    ask_model: Callable[[dict[int, Candidate], list[Neighbour]], Plan],
    floor: float,
    identical: float,
) -> Plan:
    """Fast path for the obvious candidates; one model call (``ask_model``) for the rest."""
    decided: dict[int, Operation] = {}
    pending: dict[int, Candidate] = {}
    shown: dict[int, Neighbour] = {}
    for index, candidate in enumerate(candidates):
        neighbours = snapshot.neighbours[index]
        fast = fast_path(index, candidate, neighbours, floor=floor, identical=identical)
        if fast is not None:
            decided[index] = fast
            continue
        pending[index] = candidate
        for neighbour in neighbours:
            shown.setdefault(neighbour.lesson_id, neighbour)
    plan = Plan()
    if pending:
        asked = ask_model(pending, list(shown.values()))
        decided.update({op.candidate: op for op in asked.operations})
        plan.dropped, plan.llm_called = asked.dropped, True
    plan.operations = [decided[i] for i in sorted(decided)]
    return plan
