"""``offline/rules`` reading a pair the reconcile request marks ``in_doubt`` (issue 24,
DESIGN §8a): a candidate and a lesson of its kind with another key that read only half alike
word by word, yet state the same facts (``digest.reflect.readings.in_doubt``). A model reads
the two and decides; the rules read them too, in what they can check on the texts themselves:
the figures each states, the condition each names (the error family its tags carry), the
names each quotes, and no word or phrase swapped in one frame. All alike: the same error or
rule in other words, one lesson. Anything apart: two lessons (the caller ADDs).
"""

from __future__ import annotations

from typing import Any

from digest.figures import figures
from digest.frames import as_compared, passed_values, quoted_apart, swapped
from digest.text import lesson_text, observed

#: the family a tool error's lesson carries when the rules know no specific one
GENERIC_FAMILY = "tool-failure"
#: the tags a failure's family follows (a tool's error, a run's own error)
FAMILY_AFTER = ("tool-error", "failure")


def _family(tags: list[str]) -> str | None:
    for after in FAMILY_AFTER:
        if after in tags:
            at = tags.index(after)
            while at + 1 < len(tags) and tags[at + 1] == after:
                at += 1  # a kind's tag and the judge's own ("failure", "failure", family)
            return tags[at + 1] if at + 1 < len(tags) else None
    return None


def _said(item: dict[str, Any]) -> str:
    text = lesson_text(str(item.get("situation") or ""), str(item.get("correction") or ""))
    return observed(text)


def doubted(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Does the request mark this lesson as in doubt with the candidate?"""
    found = item.get("in_doubt")
    return isinstance(found, dict) and str(cand.get("candidate")) in found


#: the family of an input that was not given at all
MISSING_INPUT = "missing-parameter"


def _families_apart(mine: str | None, theirs: str | None) -> bool:
    return mine != theirs and GENERIC_FAMILY not in (mine, theirs) and None not in (mine, theirs)


def conditions_apart(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Does one of a candidate and a lesson say an input is missing, the other a condition of
    an input that was given ("'quantity' is required"; "'quantity' must be an integer", a bad
    format)? Two errors of one input, however alike their words read: a value absent is not a
    value wrong. (Two specific families otherwise may word one state: the request's meaning
    and the judge decide those.)"""
    mine = _family([str(t) for t in cand.get("tags") or []])
    theirs = _family([str(t) for t in item.get("tags") or []])
    return MISSING_INPUT in (mine, theirs) and _families_apart(mine, theirs)


def same_facts(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Do a candidate and a lesson in doubt state the same facts, by the rules' own reading:
    the same figures, one condition (the same error family, or one of them generic), no name
    quoted apart that the call did not pass, no word or phrase swapped in one frame? Read as
    ``digest.frames.as_compared`` reads them: what the calls passed masked, and only the
    reasons when one frame holds both."""
    mistakes = (str(cand.get("mistake") or ""), str(item.get("mistake") or ""))
    new, old = as_compared(_said(cand), _said(item), *mistakes)
    if not new.strip() or not old.strip() or figures(new) != figures(old):
        return False
    mine = _family([str(t) for t in cand.get("tags") or []])
    if _families_apart(mine, _family([str(t) for t in item.get("tags") or []])):
        return False
    if quoted_apart(new, old, passed_values(*mistakes)):
        return False
    # a swap is read in the lines that hold the errors: a title line above one repeats its
    # head, and two heads in two languages ("Reserva rechazada", "Booking refused") are no
    # two things of one kind
    return not swapped(_error_line(new), _error_line(old))


def _error_line(text: str) -> str:
    """The line of an observation that holds the error (its longest)."""
    return max(text.splitlines() or [""], key=len)
