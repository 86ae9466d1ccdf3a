"""The figures of owners' answers compared (``digest.facts``): is a value the old answer gave
replaced by another, or only made more precise?

"A late checkout costs $25" and, asked again, "… is $40": the old value no longer holds,
whatever words say it (none, here). "Delivery takes 5 days" and "4 to 6 days": the same value
given as a range around it, a refinement. Pure functions on text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: two figures written as a range ("4 to 6", "4-6", "4–6", "de 4 a 6", "4 bis 6", "od 4 do 6")
_RANGE = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(?:-|–|—|to|till|until|bis|à|a|al|ao|tot|do|asti|～|~)\s*"
    r"(\d+(?:[.,]\d+)?)",
    re.IGNORECASE,
)


def ranges(text: str) -> list[tuple[str, str]]:
    """The ranges ``text`` writes, as their two figures."""
    return [(m.group(1), m.group(2)) for m in _RANGE.finditer(text)]


def _value(figure: str) -> float:
    return float(figure.replace(",", "."))


def replaced(
    new_numbers: Iterable[str], old_numbers: Iterable[str], new_answer: str, old_answer: str
) -> bool:
    """Does the new answer give another value where the old one gave one: a figure of the old
    answer is gone and one of the new answer is new? Figures only added ("9am" → "9am, and
    10am on Saturdays") refine the fact; so does a single value the new answer gives as a range
    around it ("5 days" → "4 to 6 days"). A range of the old answer ("9 to 5") is not a single
    value: another range replaces it."""
    mine, theirs = set(new_numbers), set(old_numbers)
    gone = theirs - mine
    if not (gone and mine - theirs):
        return False
    ranged_before = {figure for pair in ranges(old_answer) for figure in pair}
    around = [(_value(low), _value(high)) for low, high in ranges(new_answer)]
    return any(
        figure in ranged_before or not any(lo <= _value(figure) <= hi for lo, hi in around)
        for figure in gone
    )


#: a figure the asker's question gives ("a dinner of 12 people", "a 3 kg parcel")
_ASKED_FIGURE = re.compile(r"\d+(?:[.,]\d+)?")


def asked_instances(
    question: str, numbers: Iterable[str], other_numbers: Iterable[str]
) -> frozenset[str]:
    """The asker's own figures an answer mentions only as the instance its rule accepts or
    refuses: "Could you do the food for a dinner of 12 people?" "Sorry, catering starts at a
    minimum of 20 guests, so not for 12." (12 is the asker's, 20 the rule's). A figure counts
    when the question gives it, the answer echoes it beside a figure of its own (the rule's),
    and the other answer compared does not state it (there it is the rule's figure: "Is the
    fee $25?" "Yes, $25, and 5 more at weekends" beside "The fee is $25")."""
    given = set(numbers)
    asked = set(_ASKED_FIGURE.findall(question)) & given
    if not asked or not given - asked:
        return frozenset()
    return frozenset(asked - set(other_numbers))


def rule_figures(question: str, numbers: Iterable[str], other_numbers: Iterable[str]) -> set[str]:
    """The figures an answer states as its rule: its figures but the asker's instances
    (``asked_instances``)."""
    figures = list(numbers)
    return set(figures) - asked_instances(question, figures, other_numbers)
