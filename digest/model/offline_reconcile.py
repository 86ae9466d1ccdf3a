"""``offline/rules`` answering a reconcile request: candidate lessons against the agent's
existing ones, decided by fingerprints first and then by words, answered as the reconcile
output contract's JSON operations (ADD, UPDATE, DELETE, NOOP). It never loses a fact.
"""

from __future__ import annotations

import json
import re
from typing import Any

from digest import facts
from digest.answer_scope import shown
from digest.fingerprint import (
    distinct,
    edit_family,
    error_family,
    kind_of,
    same,
    same_subject,
    states_a_fact,
    subject_of,
    tells_a_failure,
)
from digest.frames import enums_masked, swapped
from digest.model.offline_asked import (
    not_the_askers_case,
    only_when_shared,
    reversed_in_other_words,
)
from digest.model.offline_doubt import conditions_apart, doubted, same_facts
from digest.model.offline_edit_rules import (
    SAME_TOPIC,
    content_reversed,
    grown_tone,
    same_content,
    same_tone_rule,
    update,
)
from digest.model.offline_failures import (
    bracketed_in_errors,
    lesson_of,
    named_apart,
    same_error,
    same_family,
    same_state,
    states_apart,
)
from digest.model.offline_figures import other_figure, same_cap
from digest.model.offline_rule_figure import one_rule
from digest.reversal import (
    answers_reversed,
    reverses_interface,
    signals_change,
)
from digest.text import NEGATION, negation_flipped, normalise, observed, score

#: rule thresholds on the relevance / identity scores of digest.text
SAME_IDENTITY = 0.85
#: …and at least this much of the same wording (shared templates inflate token-set relevance)
SAME_TOPIC_IDENTITY = 0.7
#: with the negation words removed, a contradiction reads (nearly) the same as the old lesson
CONTRADICTION_IDENTITY = 0.8


def _contradicts(new: str, old: str) -> bool:
    """Explicit negation: the same statement with the negation flipped ("always ship X" vs
    "never ship X"). Texts that merely share a topic are not contradictions."""
    if not negation_flipped(new, old):
        return False
    strip = re.compile(NEGATION.pattern + r"|\b(always|only)\b", re.I)
    return score(strip.sub(" ", new), strip.sub(" ", old))[1] >= CONTRADICTION_IDENTITY


def _all_text(item: dict[str, Any]) -> str:
    return " ".join(str(item.get(k) or "") for k in ("situation", "mistake", "correction"))


#: how close a lesson of no common subject must read to be the one a reversal speaks of
REVERSAL_TOPIC = 0.5


def _fact(item: dict[str, Any]) -> facts.Fact:
    return facts.lesson_fact(str(item.get("situation") or ""), str(item.get("correction") or ""))


def _is_answer(item: dict[str, Any]) -> bool:
    return kind_of(item.get("fingerprint")) == "answer"


def _reversed(cand: dict[str, Any], existing: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The existing lesson the candidate reverses, if any: the candidate says that something
    the lesson speaks of was removed, replaced or inverted (``digest.reversal``), and the two
    are about one subject (another error of the same tool; or, with no subject known, the
    same topic). A lesson with the candidate's own fingerprint is not reversed here: the same
    failure or question is judged by the rules for twins; nor is an owner's answer by
    another (``_owner_answer`` compares their subjects). Only a tool's own interface is
    reversed so (``reverses_interface``): never a lesson about a policy, a permission or a
    role, and never by a text that claims one changed."""
    mine, new = cand.get("fingerprint"), _all_text(cand)
    found: list[tuple[float, int, dict[str, Any]]] = []
    for item in existing:
        theirs = item.get("fingerprint")
        if same(mine, theirs) or (_is_answer(cand) and _is_answer(item)):
            continue  # twins, and two owner facts (``_owner_answer``), are judged apart
        if edit_family(mine) or edit_family(theirs):
            if not content_reversed(cand, item):
                continue
        elif not reverses_interface(new, lesson_of(item)):
            # what the lesson asks for (its advice and the error it quotes), not the
            # arguments its failed call happened to pass: "'amount' is no longer accepted"
            # reverses no lesson asking for 'currency' whose call sent an amount
            continue
        if subject_of(mine) or subject_of(theirs):
            if not same_subject(mine, theirs):
                continue
        elif score(lesson_of(cand), lesson_of(item))[0] < REVERSAL_TOPIC:
            continue
        found.append((score(lesson_of(cand), lesson_of(item))[0], -int(item["id"]), item))
    return max(found, key=lambda f: f[:2])[2] if found else None


def reads_alike(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Does the request say that the candidate reads like this lesson in meaning (the
    lesson's ``reads_like`` names the candidate: ``digest.reflect.reconcile.meaning_of``, one
    error, fact or content rule in other words under another key)?"""
    found = item.get("reads_like")
    return isinstance(found, dict) and str(cand.get("candidate")) in found


def _owner_answer(cand: dict[str, Any], existing: list[dict[str, Any]]) -> dict[str, Any] | None:
    """An owner's answer against the owner's facts already known (``digest.facts``), or None
    when it states none of them (then the other rules run: it may still repeat a lesson of
    another kind).

    The same question (its fingerprint), or another wording of one subject: a reversal (the
    stance flipped, the answer says what held was removed or changed, or, asked for now, it
    gives other figures: ``facts.reverses``) supersedes the old
    fact (DELETE, with why); the same text, or the same answer in other words that adds
    nothing, is a NOOP; anything else is an UPDATE of the one lesson with the candidate's
    text (the old one stays in its history). A narrower or broader question whose answer
    disagrees supersedes the old fact only when it states that what both ask about changed
    (``facts.overrides``); otherwise it is an exception and stays a fact of its own. A
    question whose subject differs in a name (Finland, Norway) or in a term on both sides
    (students, seniors) is another fact: it is not touched here."""
    mine, new = cand.get("fingerprint"), _fact(cand)
    index = cand.get("candidate")
    found: list[tuple[bool, int, float, int, dict[str, Any], facts.Fact]] = []
    for item in existing:
        if not _is_answer(item):
            continue
        old = _fact(item)
        twin = same(mine, item.get("fingerprint"))
        # the same fact in other words, by meaning; unless the two questions ask of two
        # things and share only when they hold ("Is the sauna open on Mondays?", "Can I swim on
        # a Monday?": the answers "the sauna is closed every Monday" and "On Mondays the pool
        # is closed" read alike)
        restated = reads_alike(cand, item) and not (
            facts.relation(new, old) is facts.Relation.DISTINCT and only_when_shared(new, old)
        )
        # a reversal asked in other words: the pairs speak of one thing (``offline_asked``)
        other_words = reversed_in_other_words(new, old)
        if not (
            twin or restated or other_words or facts.same_fact(new, old)
            or facts.overrides(new, old)
        ):  # fmt: skip
            continue
        same_subject_asked = (
            twin or restated or other_words or facts.relation(new, old) is facts.Relation.SAME
        )
        shared = len(new.subject & old.subject)
        relevance = score(lesson_of(cand), lesson_of(item))[0]
        found.append((same_subject_asked, shared, relevance, -int(item["id"]), item, old))
    if not found:
        return None
    strong, _shared, _relevance, _newest, item, old = max(found, key=lambda f: f[:4])
    twin = same(mine, item.get("fingerprint"))
    about = "the same question" if twin else "the same question in other words"
    if normalise(lesson_of(cand)) == normalise(lesson_of(item)):
        return {"op": "NOOP", "candidate": index, "id": item["id"], "reason": about}
    other_case = not_the_askers_case(new, old)
    if other_case and not facts.stated_change(new, old):
        return {
            "op": "ADD",
            "candidate": index,
            "reason": f"another case: the asker is not what the known fact is for "
            f"({', '.join(sorted(other_case))})",
        }
    if strong and facts.reverses(new, old):
        subject = ", ".join(sorted(new.subject & old.subject)) or "its question"
        said = "says the opposite of this one, or that it changed"
        values = f"{shown(old.answer, old.numbers)} → {shown(new.answer, new.numbers)}"
        if facts.figures_changed(new, old):
            said = f"asked how things stand now, gives other figures ({values})"
        elif facts.figure_replaced(new, old):
            said = f"gives another value ({values})"
        return {
            "op": "DELETE",
            "candidate": index,
            "id": item["id"],
            "reason": f"reversed: the owner's new answer to {about} (about {subject}) {said}",
        }
    case = facts.narrows(new, old)
    if case and set(old.numbers) - set(new.numbers) and not facts.reverses(new, old):
        # "On Saturdays we open 10-2" beside "We are open 9-5": a fact of its own (one that
        # keeps the old figures and adds the case's, "9 to 5, and 10 to 2 on Saturdays", is
        # the old fact said in full: an UPDATE below)
        return {
            "op": "ADD",
            "candidate": index,
            "reason": f"a narrower fact: the answer speaks of a case ({', '.join(sorted(case))})"
            " the known one does not",
        }
    if not strong and not twin and facts.overrides(new, old):
        changed = ", ".join(sorted(facts.changed_terms(new) & new.subject)) or "its subject"
        return {
            "op": "DELETE",
            "candidate": index,
            "id": item["id"],
            "reason": "reversed: the owner's answer to a narrower or broader question says "
            f"that what both ask about ({changed}) changed",
        }
    if facts.repeats(new, old) and not twin:
        return {"op": "NOOP", "candidate": index, "id": item["id"], "reason": f"{about}, "
                "answered the same"}  # fmt: skip
    return update(cand, item, f"a new answer to {about}")


def _digits(text: str) -> list[str]:
    return sorted(re.findall(r"\d+", text))


def _best(text: str, pool: list[dict[str, Any]]) -> tuple[float, float, dict[str, Any]] | None:
    best: tuple[float, float, int, dict[str, Any]] | None = None
    for item in pool:
        relevance, identity = score(text, lesson_of(item))
        if best is None or (relevance, identity, -int(item["id"])) > best[:3]:
            best = (relevance, identity, -int(item["id"]), item)
    return None if best is None else (best[0], best[1], best[3])


def _by_words(
    cand: dict[str, Any], old: dict[str, Any], relevance: float, identity: float
) -> dict[str, Any]:
    """The decision by words alone, for lessons that share no fingerprint. When both have one
    (of different kinds: a person's lesson and a run's), only a near-identical text with the
    same numbers is the same lesson (NOOP); nothing is merged or superseded across
    fingerprints. When either has none (a lesson stored before fingerprints), the classic
    rules: explicit negation → DELETE, same words → NOOP, same topic saying more → UPDATE."""
    text, old_text = lesson_of(cand), lesson_of(old)
    index = cand.get("candidate")
    same_words = (
        identity >= SAME_IDENTITY
        and relevance >= SAME_TOPIC
        and not negation_flipped(text, old_text)
        and _digits(text) == _digits(old_text)
        # one frame saying two things ("tax code missing", "bank account missing"), but for
        # the enum values it quotes ("reason: AML_REVIEW": the instance's)
        and not swapped(enums_masked(observed(text)), enums_masked(observed(old_text)))
    )
    if cand.get("fingerprint") and old.get("fingerprint"):
        if same_words:
            return {"op": "NOOP", "candidate": index, "id": old["id"]}
        return {"op": "ADD", "candidate": index}
    if relevance < SAME_TOPIC or identity < SAME_TOPIC_IDENTITY:
        return {"op": "ADD", "candidate": index}
    if _contradicts(text, old_text):
        return {
            "op": "DELETE",
            "candidate": index,
            "id": old["id"],
            "reason": "the candidate negates what the existing lesson says",
        }
    if identity >= SAME_IDENTITY or len(text.split()) <= len(old_text.split()):
        return {"op": "NOOP", "candidate": index, "id": old["id"]}
    return update(cand, old, "the candidate adds detail to the same lesson")


def reconcile(existing: list[dict[str, Any]], candidates: list[dict[str, Any]]) -> str:
    """Answer a reconcile request; it never loses a fact.

    A reversal first: a candidate that says what an existing lesson of its subject asks for
    was removed, replaced or inverted ("no longer accepts", "deprecated in favour of", "ya
    no") supersedes it (DELETE, with why), whatever their fingerprints. Then fingerprints
    (``digest.fingerprint``): a lesson with another fingerprint of the same kind is another
    lesson and is not touched. An owner's answer is judged by meaning (``_owner_answer``):
    the same fact asked in any words is NOOP or UPDATE, or DELETE when the answer reversed.
    With the candidate's own fingerprint, a person's rule is NOOP if it is the same text,
    otherwise an UPDATE (the old text stays in history); a failure or edit rule is NOOP,
    unless it negates the old lesson (DELETE). Without a shared fingerprint, the words decide
    (``_by_words``).
    """
    operations: list[dict[str, Any]] = []
    for cand in candidates:
        text = lesson_of(cand)
        index = cand.get("candidate")
        mine = cand.get("fingerprint")
        owner = _owner_answer(cand, existing) if _is_answer(cand) else None
        if owner is not None:
            operations.append(owner)
            continue
        # the same error of a sibling tool (one resource, another action; the request marks
        # it): the candidate is its support, in the first tool's words
        kin_tool = next((i for i in existing if index in (i.get("sibling_error") or ())), None)
        if kin_tool is not None and not signals_change(_all_text(cand)):
            operations.append({"op": "NOOP", "candidate": index, "id": kin_tool["id"],
                               "reason": "the same error of a sibling tool"})  # fmt: skip
            continue
        # the same error with another figure that is its rule (a cap, a status): unless the
        # error itself is known (a twin), the figure decides (``offline_figures``)
        if not any(same(mine, item.get("fingerprint")) for item in existing):
            figured = next(
                (op for item in existing if (op := other_figure(cand, item)) is not None), None
            )
            if figured is not None:
                operations.append(figured)
                continue
        # the same specific failure of a tool in other words ("token expired", "the token is
        # no longer valid") is one error family, not a requirement reversed: one lesson when
        # the remedy and what the state is about agree (``same_state``), else kept apart (a
        # family may hold two states: "not enough seats", "not available on that date"); the
        # pair goes to the judge (``for_the_judge``) either way
        kin = next((item for item in existing if same_family(cand, item)), None)
        family = error_family([str(t) for t in cand.get("tags") or []])
        if kin is not None and (same_state(cand, kin) or same_cap(cand, kin, family)):
            operations.append(update(cand, kin, "the same failed state in other words"))
            continue
        reversed_lesson = None if kin is not None else _reversed(cand, existing)
        if reversed_lesson is not None:
            operations.append(
                {
                    "op": "DELETE",
                    "candidate": index,
                    "id": reversed_lesson["id"],
                    "reason": "reversed: the candidate says that what this lesson asks for "
                    "was removed, replaced or inverted",
                }
            )
            continue
        tone = next((item for item in existing if same_tone_rule(cand, item)), None)
        if tone is not None:
            operations.append(grown_tone(cand, tone))
            continue
        restated = next((item for item in existing if same_content(cand, item)), None)
        if restated is not None:
            operations.append(update(cand, restated, "the same fact in the operator's words"))
            continue
        reworded = next((item for item in existing if same_error(cand, item)), None)
        if reworded is not None:
            operations.append(update(cand, reworded, "the same error in other words"))
            continue
        # one error, run failure or content rule in other words, by meaning (the request's
        # ``reads_like``): one lesson, unless the candidate states a change (a reversal
        # supersedes above; one it does not name stays apart). A run's failure is the lesson's
        # support in its first wording (NOOP): run text rewording a lesson agents read would
        # be a held change replacing it with one of less support. What a person states is
        # taken in the newer words (UPDATE)
        # (never two failed states the rules tell apart, ``states_apart``; two conditions of
        # one input, a missing value and a bad format, stay two lessons)
        # (nor two owners' answers: ``_owner_answer`` judged those and joined none)
        apart = [
            item
            for item in existing
            if not states_apart(cand, item)
            and not bracketed_in_errors(cand, item)
            and not (_is_answer(cand) and _is_answer(item))
        ]
        alike = next(
            (i for i in apart if reads_alike(cand, i) and not conditions_apart(cand, i)), None
        )
        if alike is None:
            # a pair the request marks in doubt: the rules read it themselves
            # (``offline_doubt``: the same figures, condition and names)
            alike = next((i for i in apart if doubted(cand, i) and same_facts(cand, i)), None)
        if alike is not None and not signals_change(_all_text(cand)):
            why = "the same in other words (reads alike)"
            if tells_a_failure(mine) and tells_a_failure(alike.get("fingerprint")):
                operations.append({"op": "NOOP", "candidate": index, "id": alike["id"],
                                   "reason": why})  # fmt: skip
            else:
                operations.append(update(cand, alike, why))
            continue
        # one failure of one tool under two keys (two wordings, two languages): the same rule
        # figures bound the same way, no other input named (``offline_rule_figure``); the
        # lesson keeps its first wording, as for a failure that reads alike below
        ruled = next((item for item in existing if one_rule(cand, item)), None)
        if ruled is not None and not signals_change(_all_text(cand)):
            operations.append({"op": "NOOP", "candidate": index, "id": ruled["id"],
                               "reason": "the same failure in other words: one tool, the same "
                               "rule figures bound the same way"})  # fmt: skip
            continue
        pool = [item for item in existing if not distinct(mine, item.get("fingerprint"))]
        # a key masks the names an error quotes: one key naming other fields is two errors
        pool = [item for item in pool if not named_apart(cand, item)]
        twins = [item for item in pool if same(mine, item.get("fingerprint"))]
        if twins:
            found = _best(text, twins)
            assert found is not None
            _relevance, identity, old = found
            old_text = lesson_of(old)
            if states_a_fact(mine):
                if normalise(text) == normalise(old_text):
                    operations.append({"op": "NOOP", "candidate": index, "id": old["id"]})
                elif answers_reversed(str(cand.get("correction")), str(old.get("correction"))):
                    operations.append(
                        {
                            "op": "DELETE",
                            "candidate": index,
                            "id": old["id"],
                            "reason": "reversed: the new statement of the same rule says the "
                            "opposite of the old one",
                        }
                    )
                else:
                    operations.append(update(cand, old, "a new statement of the same rule"))
            elif _contradicts(text, old_text):
                operations.append(
                    {
                        "op": "DELETE",
                        "candidate": index,
                        "id": old["id"],
                        "reason": "the candidate negates what the existing lesson says",
                    }
                )
            else:
                operations.append(
                    {
                        "op": "NOOP",
                        "candidate": index,
                        "id": old["id"],
                        "reason": "same fingerprint",
                    }
                )
            continue
        found = _best(text, pool)
        if found is None:
            operations.append({"op": "ADD", "candidate": index})
            continue
        relevance, identity, old = found
        operations.append(_by_words(cand, old, relevance, identity))
    return json.dumps({"operations": operations})
