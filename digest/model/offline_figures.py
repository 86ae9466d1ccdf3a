"""``offline/rules`` reading two errors of one tool that differ only in a figure the masking
keeps (``digest.masking``): a status code, or a figure that is the rule (a cap, a threshold,
a version). Another status is another error; another figure for another item the calls name
is another item's rule; the same rule with a new figure changed, and the newer supersedes.
"""

from __future__ import annotations

import re
from typing import Any

from digest.fingerprint import edit_family, same, same_subject, subject_of
from digest.frames import passed_figures
from digest.masking import figure_shape
from digest.model.error_reading import without_label
from digest.text import lesson_text, observed


def _text(item: dict[str, Any]) -> str:
    return lesson_text(str(item.get("situation", "")), str(item.get("correction", "")))


def _error(item: dict[str, Any]) -> str | None:
    """The error a tool error's lesson quotes, whole: its last quotation (the observed error
    after a title that quoted part of it, else the title's), without its label; None when it
    quotes nothing."""
    text = _text(item)
    quotes = observed(text)
    if quotes == text:
        return None
    return without_label(quotes.splitlines()[-1])


#: the arguments of a call that name the thing a cap is about (a product, an activity, a
#: plan, an event, a policy), not the occurrence (an order, a customer, a basket)
_ITEM_ARG = re.compile(
    r"sku|product|produ[ic]t|prodott|artikel|art[ií]culo|article|item|variant|activit|atividad"
    r"|actividad|attivit|plan|fare|cabin|tier|model|categor|service|room_type|ticket_type"
    # what a limit is set for: an event's tickets per order, a policy's or a contract's cover
    r"|event|evento|veranstaltung|polic|p[oó]liza|polizz|contract|contrat|vertrag",
    re.I,
)
_ARG = re.compile(r"\"([\w.-]{1,40})\":\s*(\"[^\"]{0,80}\"|[^,}\s)]{1,40})")


def _kept(found: Any, passed: frozenset[str]) -> list[str]:
    """The figures of ``found`` but those a call passed (read as bare numbers: "64 GB" is 64)."""
    return [f for f in found if (re.match(r"-?\d+(?:[.,]\d+)?", str(f)) or [""])[0] not in passed]


def _items(item: dict[str, Any]) -> dict[str, str]:
    """The item arguments a tool error's lesson quotes of its call (its mistake: ``Called
    `add_to_cart` with «{"sku": "GPU-4090", …}»``)."""
    return {
        key.lower(): value
        for key, value in _ARG.findall(str(item.get("mistake") or ""))
        if _ITEM_ARG.match(key)
    }


def tool_errors(cand: dict[str, Any], item: dict[str, Any]) -> tuple[str, str] | None:
    """The errors a candidate and a lesson quote when they are two keys of one tool's failures
    (not edit rules), else None."""
    mine, theirs = cand.get("fingerprint"), item.get("fingerprint")
    if same(mine, theirs) or not subject_of(mine) or not same_subject(mine, theirs):
        return None
    if edit_family(mine) or edit_family(theirs):
        return None
    new, old = _error(cand), _error(item)
    return None if new is None or old is None else (new, old)


def other_figure(cand: dict[str, Any], item: dict[str, Any]) -> dict[str, Any] | None:
    """Another error of the same tool whose words are the candidate's but for a figure the
    masking keeps (``digest.masking``): a status code (another error: ADD), or a rule's figure,
    a cap, a threshold, a version (``limit of 5``, ``limit of 10``). A rule's figure for
    another item the calls name (another ``sku``, another activity) is another item's rule
    (ADD); for the same item, or a rule of no item (per customer, per order), the rule
    changed and the newer supersedes the older (DELETE, with both figures). None when the
    two are not such a pair."""
    errors = tool_errors(cand, item)
    if errors is None:
        return None
    new, old = errors
    (new_shape, new_codes, new_figures), (old_shape, old_codes, old_figures) = (
        figure_shape(new),
        figure_shape(old),
    )
    if new_shape != old_shape or (new_codes, new_figures) == (old_codes, old_figures):
        return None
    # a figure a call passed ("requested 64 GB" for ``{"mem_gb": 64}``) is the instance's,
    # not the rule's: two requests over one cap differ in it and are one error
    passed = passed_figures(str(cand.get("mistake") or ""), str(item.get("mistake") or ""))
    if new_codes == old_codes and _kept(new_figures, passed) == _kept(old_figures, passed):
        return None
    index = cand.get("candidate")
    if new_codes != old_codes:
        return {"op": "ADD", "candidate": index, "reason": "another status: another error"}
    mine_items, their_items = _items(cand), _items(item)
    if any(mine_items.get(k) != v for k, v in their_items.items() if k in mine_items):
        return {"op": "ADD", "candidate": index, "reason": "another item's rule"}
    was, now = ", ".join(old_figures), ", ".join(new_figures)
    return {
        "op": "DELETE",
        "candidate": index,
        "id": item["id"],
        "reason": f"changed: the same rule of this tool now says {now} where it said {was}",
    }


#: the state families whose errors state a figure as their rule
_FIGURED_FAMILIES = frozenset({"limit-exceeded", "below-minimum"})


def same_cap(cand: dict[str, Any], kin: dict[str, Any], family: str | None) -> bool:
    """Are two errors of one cap family (``family``) one cap in other words: both state the
    same figures as their rule, and the same status codes ("quantity exceeds limit of 6 per
    customer", "no more than 6 tickets may be bought per person")?"""
    if family not in _FIGURED_FAMILIES:
        return False
    new, old = _error(cand), _error(kin)
    if new is None or old is None:
        return False
    _, new_codes, new_figures = figure_shape(new)
    _, old_codes, old_figures = figure_shape(old)
    return bool(new_figures) and (new_codes, set(new_figures)) == (old_codes, set(old_figures))
