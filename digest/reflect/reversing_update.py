"""How a judge's UPDATE is read (``digest.reflect.ask.resolve``): one that reverses the lesson
it names is a DELETE by another name (``update_reverses``), and two failures' figures compared
as written and with their instances masked (``figures_differ``)."""

from __future__ import annotations

import re
from dataclasses import replace

from digest import facts
from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.masking import mask_ids
from digest.reflect.reconcile import candidate_text, digits
from digest.reversal import reverses, states_reversal
from digest.text import lesson_text, negation_flipped, normalise


def figures_differ(new: str, old: str) -> bool:
    """Do two failures state other figures, both as written and with their instances masked
    (``masking.mask_ids``: "Order #W2291" and "#W8812" are two orders, not two rules; "12 m"
    and "12 meter" one figure the masking reads apart)?"""
    mine, theirs = digits(new), digits(old)
    if not (mine and theirs and mine != theirs):
        return False
    masked, masked_old = digits(mask_ids(new)), digits(mask_ids(old))
    return bool(masked and masked_old and masked != masked_old)


#: a judge's reason that names a reversal ("the requirement changed", "contradicts", "no longer")
_REVERSAL_REASON = re.compile(
    r"\b(?:contradict\w*|revers\w*|supersed\w*|no longer|opposite|invert\w*|deprecat\w*"
    r"|obsolete|outdated"
    # not a change of words, nor none ("the wording changed", "nothing changed", "unchanged")
    r"|(?<!wording )(?<!words )(?<!phrasing )(?<!nothing )(?<!not )(?<!n't )(?<!never )changed)\b",
    re.IGNORECASE,
)


_FIGURE = re.compile(r"\d+(?:[.,]\d+)?")
_PLURAL = re.compile(r"(?<=\w\w\w)(?:e?s)\b")


def _ruled(remedy: str) -> str:
    """A remedy's words with its figures as one mark and plurals singular ("at most 2 bags"
    and "at most 1 bag" read alike): two remedies that differ only in their figures."""
    return _PLURAL.sub("", _FIGURE.sub("#", normalise(remedy)))


def update_reverses(candidate: Candidate, lesson: Neighbour, reason: str) -> bool:
    """Is a judge's UPDATE of ``lesson`` with ``candidate`` a reversal, a DELETE by another
    name? The prompt asks for a DELETE when a candidate contradicts a lesson (the old one is
    superseded, the new one kept, the history says why); a model may still "update" a rule or
    a fact that changed, which would rewrite the old lesson in place and cite both events on
    one lesson. It is one when the judge's reason says so ("contradicts", "reversed", "no
    longer", "the requirement changed"), when an owner's new answer reverses the old fact
    (``facts.reverses``: the stance flipped, another value, a change stated on what it said),
    or when the candidate states that something the lesson speaks of was removed, replaced or
    inverted (``digest.reversal.reverses``; an answer that only adds, "…, and from Bergen too",
    is an UPDATE). The trust rules then apply to the DELETE as to any."""
    if _REVERSAL_REASON.search(reason):
        return True
    if fp.kind_of(candidate.fingerprint) == fp.kind_of(lesson.fingerprint) == "answer":
        # the judge read the two as one fact: an answer that reverses it replaces it (an
        # UPDATE in place would leave the agent the same words, with no superseded record)
        asked = facts.lesson_fact(candidate.situation, candidate.correction)
        known = facts.lesson_fact(lesson.situation, lesson.correction)
        # "Plus maintenant : …", "No longer.": the change is about the fact the judge joined
        bare = facts.opens_with_bare_reversal(asked.answer)
        if fp.same(candidate.fingerprint, lesson.fingerprint):
            return bare or facts.reverses(asked, known)
        # two questions: a yes and a no may say one thing ("Is there an age limit?" "Yes, 16"
        # / "Can my son of 14 rent one?" "No, the limit is 16"): the stance flip alone does
        # not reverse what the judge joined; another value, or a change stated, does
        return (
            bare
            or (states_reversal(asked.answer) and facts.reverses(asked, known))
            or facts.reverses(replace(asked, stance=0), known)
        )
    mine, theirs = candidate_text(candidate), lesson_text(lesson.situation, lesson.correction)
    if fp.tells_a_failure(candidate.fingerprint) and fp.tells_a_failure(lesson.fingerprint):
        if figures_differ(candidate.correction, lesson.correction) and _ruled(
            candidate.correction
        ) == _ruled(lesson.correction):
            # the remedy's own figure changed, and nothing else ("at most 6 tickets" → "at
            # most 8"; "the team plan's limit of 10" beside "the starter plan's limit of 5"
            # names two plans: two instances of one rule)
            return True
        if fp.same_error_family(
            candidate.fingerprint, candidate.tags, mine, lesson.fingerprint, lesson.tags or (),
            theirs,
        ):  # fmt: skip
            return False  # one failed state in other words ("expired", "no longer valid")
    if fp.kind_of(candidate.fingerprint) in ("edit", "manual") and negation_flipped(
        candidate.correction, lesson.correction
    ):
        return True  # a rule now negated ("free shipping over 50 EUR" → "do not promise it")
    return reverses(mine, theirs)
