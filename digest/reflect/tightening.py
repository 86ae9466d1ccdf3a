"""Does a run's tool error state the rule of a lesson about a policy stricter than the lesson
does? (issue 24: every reversal supersedes, subject to the trust rules.)

Run text never changes a lesson about a policy, a permission or a role
(``digest.reflect.operations``): a tool error claiming that refunds no longer need approval
is a claim to hold, not a change to learn. A threshold that moved the other way is not such a
claim: "403: refunds over 50 EUR need a supervisor's approval" after "refunds over 100 EUR
need …", refusing a refund of 64.90, says the tool now refuses what the lesson lets through.
Learning it makes the agent ask more, never less.

It is read in the structure, not the words ("over", "at most", "mindestens" read either way:
free shipping *over* 50 EUR refuses what lies below), and in the event, not in the judge's
lesson (a model words a lesson its own way): one of the run's failed calls gave an error whose
template the old lesson states with another rule figure (the masking keeps it:
``digest.masking.figure_shape``) and the same status, and a quantity that call passed lies
strictly between the two figures. The tool refused that value now; under the old figure it lay
on the other side of the line, so the lesson let it through. Numbers a call passes to name a
record (an ``order_id``, a ``pedido``) are not read: an id between two figures says nothing.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from digest.masking import figure_shape

#: an argument whose number names a record, not a quantity
_RECORD_KEY = re.compile(
    r"(?:^|[_.-])(?:id|ids|no|nr|num|number|ref|code|key)$|^(?:id|order|pedido|bestellung"
    r"|commande|ordine|encomenda|customer|cliente|kunde|client|account|user|invoice)$",
    re.I,
)
#: a figure as a template's ``#`` stands for it ("100", "22,5", "1.000")
_FIGURE = r"\d[\d.,]*"


def quantities(args: Any) -> list[float]:
    """The numbers a call passed as quantities (not as a record's id), nested ones too."""
    found: list[float] = []
    if isinstance(args, dict):
        for key, value in args.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float) and not _RECORD_KEY.search(str(key)):
                found.append(float(value))
            elif isinstance(value, dict | list):
                found += quantities(value)
    elif isinstance(args, list):
        for item in args:
            found += quantities(item)
    return found


def _number(figure: str) -> float | None:
    found = re.match(r"-?\d+(?:[.,]\d+)?", figure.replace(" ", ""))
    return float(found.group(0).replace(",", ".")) if found else None


def _failed_calls(payload: dict[str, Any]) -> list[tuple[str, Any]]:
    """(error, arguments) of each call a run's event reports failed."""
    calls = payload.get("tool_calls") or []
    return [
        (str(call["error"]), call.get("args"))
        for call in calls
        if isinstance(call, dict) and call.get("error") and call.get("ok") is not True
    ]


def _stated_before(line: str, old: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The status codes and rule figures with which ``old`` (a lesson's text, casefolded)
    states the template of the error ``line``, or None when it does not."""
    shape, _codes, figures = figure_shape(line)
    if not figures:
        return None
    pattern = re.escape(shape).replace(r"\#", _FIGURE).replace("#", _FIGURE)
    found = re.search(pattern, old)
    if found is None:
        return None
    old_shape, old_codes, old_figures = figure_shape(found.group(0))
    return (old_codes, old_figures) if old_shape == shape else None


def tightens(payload: dict[str, Any], old_lesson: str) -> bool:
    """Does one of the event's failed calls get an error that states the old lesson's rule with
    a stricter figure: the old lesson states the same template with the same status and one
    rule figure changed, and a quantity the call passed lies strictly between the two
    (refused now, let through before)?"""
    # (an error naming an instance's id reads apart from its lesson's ``‹id›``: kept apart)
    old = unicodedata.normalize("NFKC", old_lesson).lower()
    for error, args in _failed_calls(payload):
        for line in filter(None, (part.strip() for part in error.splitlines())):
            stated = _stated_before(line, old)
            if stated is None:
                continue
            _shape, codes, figures = figure_shape(line)
            old_codes, old_figures = stated
            if codes != old_codes or len(figures) != len(old_figures):
                continue
            changed = [(n, o) for n, o in zip(figures, old_figures, strict=True) if n != o]
            if len(changed) != 1:
                continue
            now, before = (_number(f) for f in changed[0])
            if now is None or before is None or now == before:
                continue
            low, high = sorted((now, before))
            if any(low < value < high for value in quantities(args)):
                return True
    return False
