"""``offline/rules`` comparing two lessons about tool failures (``offline_reconcile``): the
same error in other words (one template reworded, one error family naming the same inputs,
one failed state), or two errors (failed states the rules tell apart, a state beside a wrong
argument, other names quoted or bracketed in one frame). Pure functions on the lessons as
the reconcile request shows them.
"""

from __future__ import annotations

from typing import Any

from digest import facts
from digest.fingerprint import (
    STATE_ERROR_FAMILIES,
    edit_family,
    error_family,
    family_tag,
    same,
    same_error_family,
    same_subject,
    subject_of,
)
from digest.frames import as_compared, bracketed_apart, passed_values, quoted_apart, swapped
from digest.model.error_reading import same_message, state_terms
from digest.text import lesson_text, normalise, observed


def lesson_of(item: dict[str, Any]) -> str:
    """A lesson's text as compared: its situation and its correction."""
    return lesson_text(str(item.get("situation", "")), str(item.get("correction", "")))


def same_error(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Is the candidate an error its tool gave before, in other words: another key on the same
    subject whose observed error says the same (``digest.facts.rewords``: "Order #‹id› not
    found", "No order found with id ‹id›")? One lesson, in the newer wording."""
    mine, theirs = cand.get("fingerprint"), item.get("fingerprint")
    if same(mine, theirs) or not subject_of(mine) or not same_subject(mine, theirs):
        return False
    if edit_family(mine) or edit_family(theirs):
        return False
    # what both lessons quote of the error (not the arguments a mistake may quote)
    new, old = observed(lesson_of(cand)), observed(lesson_of(item))
    if new == lesson_of(cand) or old == lesson_of(item):
        return False
    return facts.rewords(new, old) or same_message(new, old)


def same_family(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Is the candidate an error its tool gave before, worded with no common template: another
    key on the same subject whose error is of the same specific family and names the same
    inputs (``digest.fingerprint.same_error_family``)? One lesson, in the newer wording."""
    return same_error_family(
        cand.get("fingerprint"), _tags(cand), lesson_of(cand),
        item.get("fingerprint"), _tags(item), lesson_of(item),
    )  # fmt: skip


def states_apart(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Do the rules read the two as different failed states of a tool (two state families,
    ``digest.fingerprint.error_family``: "not enough balance" and "the amounts do not add up")?
    Then they are two facts however alike their words read. A failed
    state beside an argument the call got wrong ("Should equal sum of …" and "Currency does not
    support decimals") is two failures too, however alike their frames read."""
    mine, theirs = family_tag(_tags(cand)), family_tag(_tags(item))
    states = [family in STATE_ERROR_FAMILIES for family in (mine, theirs)]
    if all(states):
        return mine != theirs
    return any(states) and (theirs if states[0] else mine) in ARGUMENT_FAMILIES


#: the families of an argument the call got wrong (``error_input_families``)
ARGUMENT_FAMILIES = frozenset({"out-of-range", "bad-format", "missing-parameter"})


def _tags(item: dict[str, Any]) -> list[str]:
    return [str(t) for t in item.get("tags") or []]


def bracketed_in_errors(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Do the errors two lessons observe name other things in brackets ("field [weight_kg] of
    type [float]", "field [eta] of type [date]")? One frame, two errors."""
    return bracketed_apart(observed(lesson_of(cand)), observed(lesson_of(item)))


def remedy(item: dict[str, Any]) -> str:
    """The rules' remedy a tool error's lesson opens with ("Check stock first: …")."""
    return normalise(str(item.get("correction") or "").split(":", 1)[0])


def named_apart(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Do two lessons of one key quote other names ("Field 'postcode' is required", "Field
    'state' is required": the template masks both alike)? Two errors, not twins."""
    if not same(cand.get("fingerprint"), item.get("fingerprint")):
        return False
    new, old = observed(lesson_of(cand)), observed(lesson_of(item))
    if new == lesson_of(cand) or old == lesson_of(item):
        return False
    passed = passed_values(str(cand.get("mistake") or ""), str(item.get("mistake") or ""))
    return quoted_apart(new, old, passed)


def same_state(cand: dict[str, Any], kin: dict[str, Any]) -> bool:
    """Are two errors of one state family (``same_family``) one failed state: the same
    remedy, and the errors say the same of it (the words the family recognised, read as
    ``digest.facts`` terms: "out of stock" and "insufficient inventory" both say stock)?
    "Not enough seats" and "not available on that date" share a family and a remedy, and
    say nothing alike; two limits ("exceeds the limit", "no more than ‹id›") are not read as
    one either: their figures are masked, and a tool may have two (the judge sees them)."""
    if remedy(cand) != remedy(kin):
        return False
    new, old = observed(lesson_of(cand)), observed(lesson_of(kin))
    if new == lesson_of(cand) or old == lesson_of(kin):
        return False
    family = error_family(_tags(cand))
    # one frame around both ("Session ‹id› cannot be booked: <reason>"): the reasons say
    # the state, not the frame's words the family recognised
    mistakes = (str(cand.get("mistake") or ""), str(kin.get("mistake") or ""))
    new, old = as_compared(new, old, *mistakes)
    if family is None or swapped(new, old):
        # one frame saying two things in one place ("at least one digit", "at least one
        # uppercase letter"): two states of one family
        return False
    mine, theirs = state_terms(new, family), state_terms(old, family)
    return bool(mine and theirs and mine & theirs)
