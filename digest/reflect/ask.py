"""The reconcile step's model call: what the model is shown, and its answer made safe.

The neighbours are numbered 0..k-1 for the request (``prompt_blocks``: never real ids; block
ends escaped). The answer's raw operations become real-id ``Operation``s (``resolve``): unknown
ids and candidates are dropped and logged, an exact re-submission is never a DELETE, a
candidate left out is added, a NOOP that would lose what a candidate says under another key is
an ADD, an UPDATE that reverses its lesson is a DELETE (``reversing_update``). The same
request is answered from this process's memory (``reconcile_answers``).
"""

from __future__ import annotations

import json
from typing import Any

from digest import facts
from digest import fingerprint as fp
from digest.edits import same_tone, tone_added
from digest.figures import figures_apart
from digest.identity.meaning import READS_ALIKE
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model.cache import AnswerCache, answer_key
from digest.model.contracts import embed_json, op_named, parse_reconcile_output, whole_number
from digest.model.prompts import load_prompt
from digest.reflect.readings import in_doubt, meaning_of
from digest.reflect.reconcile import (
    OPS,
    Operation,
    Plan,
    candidate_text,
    named_apart,
)
from digest.reflect.reversing_update import figures_differ, update_reverses
from digest.reflect.shared_words import instances_aside, names_apart_only, nothing_in_common
from digest.reversal import signals_change
from digest.runtime import runtime
from digest.text import lesson_text, negation_flipped, normalise, observed

log = get_logger("digest.reconcile")


def _noop_would_lose(candidate: Candidate, lesson: Neighbour) -> bool:
    """Would a NOOP of ``candidate`` on ``lesson`` (another key of its kind) that the judge
    answered lose what the candidate says? The judge decides (DESIGN §8a: another key is
    evidence, not a veto); its NOOP is turned into an ADD only where a conflict can be read:
    other figures, a negation flipped, other names quoted, a change reported (a reversal is a
    DELETE), another thing an owner's question names (``digest.facts``), a tone rule asking
    for more, or not one word in common in one language past the two texts' shared frame and
    the words their figures sit in (``digest.reflect.shared_words``: "card refunds take 5 to 7
    business days" and "supplier payments take 5 to 7 business days"; two errors of one tool
    about other things). A right judge's NOOP on a paraphrase stands; a wrong judge's NOOP on
    two things that share their words stands too: only meaning reads those apart."""
    if not fp.distinct(candidate.fingerprint, lesson.fingerprint):
        return False
    if lesson.fingerprint in candidate.sibling_keys:
        return False  # the same error of a sibling tool: the candidate is the lesson's support
    if (
        fp.tells_a_failure(candidate.fingerprint)
        and fp.tells_a_failure(lesson.fingerprint)
        and (meaning_of(candidate, lesson) >= READS_ALIKE or in_doubt(candidate, lesson) > 0)
    ):
        # one failure in other words (two services' wordings of one error, masked ids, no
        # figure or name reading them apart: ``digest.identity.meaning``): the candidate is
        # the lesson's support. Not for what people state (an operator's content, an owner's
        # fact): there a shared frame can read alike around two different facts
        return False
    new, old = candidate_text(candidate), lesson_text(lesson.situation, lesson.correction)
    if (
        fp.tells_a_failure(candidate.fingerprint)
        and fp.tells_a_failure(lesson.fingerprint)
        and not fp.other_subject(candidate.fingerprint, lesson.fingerprint)
    ):
        # one subject's failure (the same tool's, or two runs' own) that the judge was shown
        # and called the same: its NOOP stands however unlike the words read (another
        # language, another service's wording: "not labelled" and "unlabelled", "300 s" and
        # "five minutes") unless they quote other names. One remedy for both, word for word
        # ("confirm the order id first"), beside the judge's NOOP is the model's reading of
        # one failure: the figures the errors quote are instances. Otherwise it is refused
        # when both state figures and they differ (as written and as rules: "Order #W2291"
        # and "#W8812" are two orders), when the candidate reports a change (a reversal is a
        # DELETE; a NOOP would lose it), or when they share no word past their instances and
        # the words naming them
        if named_apart(candidate, lesson):
            return True
        if normalise(candidate.correction) == normalise(lesson.correction):
            return False  # one remedy for both: the figures the errors quote are instances
        if figures_differ(new, old) or signals_change(
            " ".join(filter(None, (candidate.mistake, new)))
        ):
            return True
        seen_new, seen_old = instances_aside(observed(new)), instances_aside(observed(old))
        return nothing_in_common(seen_new, seen_old) and not names_apart_only(seen_new, seen_old)
    if {fp.edit_family(candidate.fingerprint), fp.edit_family(lesson.fingerprint)} == {"tone"}:
        # the operator's tone seen again: nothing is lost when it asks for nothing new
        tags = lesson.tags or ()
        return not same_tone(candidate.tags, tags) or bool(tone_added(candidate.tags, tags))
    if fp.kind_of(candidate.fingerprint) == fp.kind_of(lesson.fingerprint) == "answer":
        # the judge read two questions as one fact: it stands unless the facts read apart
        # (another thing or number named: Norway and Finland) or each answer states a figure
        # the other does not (an UPDATE would keep them; a figure in words is its digits:
        # "twenty" and "20", and an answer stating fewer figures says less, not otherwise). A
        # yes and a no may say one thing ("Are returns free?" "Yes" / "Do customers pay for
        # returns?" "No"): the judge reads them
        asked = facts.lesson_fact(candidate.situation, candidate.correction)
        known = facts.lesson_fact(lesson.situation, lesson.correction)
        if facts.named_by_one(asked, known) and facts.agree(asked, known):
            # a narrower question whose answer says what the lesson says ("Easter Monday?"
            # "No, like on every public holiday, we are closed"): its support, nothing lost
            return figures_apart(asked.answer, known.answer)
        return (
            facts.names_apart(asked, known)
            or facts.days_apart(asked, known)
            or figures_apart(asked.answer, known.answer)
        )
    # what a person or an operator stated (a content rule, a rule of their own) that the judge
    # called the same: it stands unless a conflict can be read: other figures in what each
    # quotes ("six months" and "6-month" are one; a draft's date is not the rule), a negation
    # flipped, or not one word in common past their shared frame and the words their figures
    # sit in (the same figures about other things: "card refunds take 5 to 7 business days",
    # "supplier payments take 5 to 7 business days")
    if fp.kind_of(candidate.fingerprint) == fp.kind_of(lesson.fingerprint) == "edit" and (
        normalise(candidate.correction) == normalise(lesson.correction)
    ):
        # two operators' rules: the rule is the correction, the situation the draft it was
        # taught on ("Drafting a reply like: It will be fixed by Friday."); one rule seen on
        # two drafts shares its correction, whatever else the drafts say
        return False
    if figures_apart(observed(new), observed(old)) or negation_flipped(new, old):
        return True
    return nothing_in_common(new, old)


def prompt_blocks(
    candidates: dict[int, Candidate], neighbours: list[Neighbour]
) -> tuple[str, str, list[int]]:
    """(existing JSON, candidates JSON, prompt id → real lesson id). An existing lesson that a
    candidate with another key reads like (``reconcile.meaning_of``: one error, fact or content
    rule in other words) carries ``reads_like``: the candidate's number and the score; one
    whose pair with a candidate the score cannot decide but that states the same facts
    (``readings.in_doubt``) carries ``in_doubt``, for the judge to read; one holding a
    candidate's error on a sibling tool (``digest.tool_siblings``) carries ``sibling_error``:
    the candidates' numbers."""
    id_map = [n.lesson_id for n in neighbours]
    existing = []
    for i, n in enumerate(neighbours):
        item: dict[str, Any] = {
            "id": i,
            "situation": n.situation,
            "mistake": n.mistake,
            "correction": n.correction,
            "tags": list(n.tags),
            "fingerprint": n.fingerprint,
        }
        alike = {
            str(index): found
            for index, c in sorted(candidates.items())
            if (found := meaning_of(c, n)) >= READS_ALIKE
        }
        if alike:
            item["reads_like"] = alike
        doubted = {
            str(index): found
            for index, c in sorted(candidates.items())
            if str(index) not in alike and (found := in_doubt(c, n)) > 0
        }
        if doubted:
            item["in_doubt"] = doubted
        kin = [index for index, c in sorted(candidates.items()) if n.fingerprint in c.sibling_keys]
        if kin:
            item["sibling_error"] = kin
        existing.append(item)
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


def _another_retired(
    item: dict[str, Any],
    first: Operation,
    plan: Plan,
    id_map: list[int],
    by_id: dict[int, Neighbour],
    candidates: dict[int, Candidate],
) -> Operation | None:
    """A second DELETE of one candidate on another shown lesson, as a DELETE that the
    candidate's new lesson supersedes too; None when it names no other valid lesson (or an
    exact re-submission of what the candidate says)."""
    local = whole_number(item.get("id"))
    if local is None or not local < len(id_map):
        return None
    lesson_id = id_map[local]
    taken = {first.lesson_id, *(o.lesson_id for o in plan.also_retired)}
    if lesson_id in taken:
        return None
    lesson, candidate = by_id[lesson_id], candidates[first.candidate]
    if normalise(candidate_text(candidate)) == normalise(
        lesson_text(lesson.situation, lesson.correction)
    ):
        return None
    reason = str(item.get("reason") or "")[:500] or "contradicted"
    return Operation("DELETE", first.candidate, lesson_id=lesson_id, reason=reason)


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
        op = op_named(item)
        index = whole_number(item.get("candidate"))
        if "candidate" not in item and len(candidates) == 1:
            # one candidate shown: an operation naming none (Mem0's have no candidate) is its
            index = next(iter(candidates))
        if op not in OPS:
            drop(item, "unknown op")
            continue
        if index is None or index not in candidates:
            drop(item, "unknown candidate")
            continue
        if index in decided and decided[index].op == "DELETE" and op == "DELETE":
            # one change that reverses two lessons: each is superseded by the one new lesson
            also = _another_retired(item, decided[index], plan, id_map, by_id, candidates)
            if also is None:
                drop(item, "second operation for one candidate")
            else:
                plan.also_retired.append(also)
            continue
        if index in decided and not (decided[index].op == "ADD" and op != "ADD"):
            drop(item, "second operation for one candidate")
            continue
        if index in decided:
            # an ADD of the candidate beside what it does to a lesson (Mem0's shape: "ADD" the
            # new memory, "DELETE" the old one): the operation on the lesson says it all (a
            # DELETE adds the candidate too)
            drop({"op": "ADD", "candidate": index}, f"an ADD beside the {op} of one candidate")
            del decided[index]
        if op == "ADD":
            decided[index] = Operation("ADD", index, reason="model: new lesson")
            continue
        local = whole_number(item.get("id"))
        if local is None or not local < len(id_map):
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
        elif op == "UPDATE" and update_reverses(candidate, by_id[lesson_id], reason):
            # a reversal named an UPDATE: the old lesson is superseded, the candidate kept
            decided[index] = Operation(
                "DELETE", index, lesson_id=lesson_id,
                reason=f"the judge's UPDATE reverses it: {reason or 'a change stated'}",
            )  # fmt: skip
        elif op == "UPDATE":
            merged = _merged(item.get("lesson"))
            if merged is None:
                # the judge names the lesson the candidate updates but gives no usable merged
                # lesson (none, or Mem0's "text" alone): the candidate's own words are the
                # update (the old text stays in the lesson's history; the trust rules apply)
                merged = candidate
                reason = f"{reason or 'enriched'} (no merged lesson given: the candidate's words)"
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
