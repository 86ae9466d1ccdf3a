"""Does a tool's error state the rule of a lesson about a policy stricter than the lesson
does? (issue 24: every reversal supersedes, subject to the trust rules.)

Run text never changes a lesson about a policy, a permission or a role
(``digest.reflect.operations``): a tool error claiming that refunds no longer need approval
is a claim to hold, not a change to learn. A threshold that moved the other way is not such a
claim: "403: refunds over 50 EUR need a supervisor's approval" after "refunds over 100 EUR
need …", refusing a refund of 64.90, says the tool now refuses what the lesson lets through.
Learning it makes the agent ask more, never less.

It is read in the structure, not the words ("over", "at most", "mindestens" read either way:
free shipping *over* 50 EUR refuses what lies below): the two errors are one tool's template
but for one figure the masking keeps as the rule's (``digest.masking.figure_shape``), with the
same status, and a figure the new call passed lies strictly between the two thresholds. The
tool refused that value now; under the old threshold it lay on the other side of the line, so
the lesson let it through. Figures a call passes to name a record (an ``order_id``, a
``pedido``) are not read: an id between two thresholds says nothing of them.
"""

from __future__ import annotations

import re

from digest.masking import figure_shape
from digest.text import observed

#: a call's argument with a number as its value, as a lesson quotes the call
#: (``Called `refund` with «{"amount": 64.9, "order_id": 7781}»``)
_FIGURE_ARG = re.compile(r'"([\w.-]{1,40})"\s*:\s*(-?\d+(?:\.\d+)?)(?=\s*[,}\]])')
#: an argument whose number names a record, not a quantity
_RECORD_KEY = re.compile(
    r"(?:^|[_.-])(?:id|ids|no|nr|num|number|ref|code|key)$|^(?:id|order|pedido|bestellung"
    r"|commande|ordine|encomenda|customer|cliente|kunde|client|account|user|invoice)$",
    re.I,
)


def _quoted_error(text: str) -> str | None:
    """The error a lesson quotes last (its observed error), or None."""
    seen = observed(text)
    return None if seen == text else seen.splitlines()[-1]


def _number(figure: str) -> float | None:
    found = re.match(r"-?\d+(?:[.,]\d+)?", figure.replace(" ", ""))
    return float(found.group(0).replace(",", ".")) if found else None


def passed_quantities(mistake: str) -> list[float]:
    """The numbers a failed call passed as quantities (not as a record's id)."""
    return [float(v) for k, v in _FIGURE_ARG.findall(mistake) if not _RECORD_KEY.search(k)]


def tightens(new_lesson: str, new_mistake: str, old_lesson: str) -> bool:
    """Does the new lesson's error state the old lesson's rule with a stricter threshold: one
    template, one status, one rule figure changed, and a quantity the new call passed lying
    strictly between the old figure and the new one (refused now, let through before)?"""
    new, old = _quoted_error(new_lesson), _quoted_error(old_lesson)
    if new is None or old is None:
        return False
    (new_shape, new_codes, new_figures), (old_shape, old_codes, old_figures) = (
        figure_shape(new),
        figure_shape(old),
    )
    if new_shape != old_shape or new_codes != old_codes or len(new_figures) != len(old_figures):
        return False
    changed = [(n, o) for n, o in zip(new_figures, old_figures, strict=True) if n != o]
    if len(changed) != 1:
        return False
    now, before = (_number(f) for f in changed[0])
    if now is None or before is None or now == before:
        return False
    low, high = sorted((now, before))
    return any(low < value < high for value in passed_quantities(new_mistake))
