"""``offline/rules`` reading two failures of one tool, under two keys, as one failure when
the structure shows one rule: the same rule figures, stated as the same kind of bound (a cap
or a floor), naming no other input (issue 24, DESIGN §8a: structure is evidence).

A tool's error worded by two API versions, or in two languages, gets two templates, so two
keys: "a membership can be frozen for at most 90 days" and "ett medlemskap kan frysas i högst
90 dagar". What both still carry is what the masking keeps (``digest.masking``): the figure
that is the rule (90), after a bound word of the product's language tables ("at most",
"högst"; "at least", "minst"). Two errors of one tool that keep the same rule figures, bound
the same way, and name no input the other does not, state one rule: one lesson.

Kept apart, whatever their words: other rule figures (a length and a draft limit; a freeze's
length and a member's tenure), another bound (a cap and a floor of one figure), another
input named (``max_age`` and ``stale_while_revalidate``), a status code of its own, a quoted
name the other lacks, a missing input beside a bad one, and two specific failed states the
rules tell apart (a figure's own families, a floor or a cap, may read one rule in words a
status family also reads).
"""

from __future__ import annotations

import re
from typing import Any

from digest.figures import figures
from digest.frames import passed_figures, passed_values, quoted_apart
from digest.masking import figure_shape
from digest.model.offline_doubt import GENERIC_FAMILY, MISSING_INPUT, _family
from digest.model.offline_figures import tool_errors

#: words that bound a figure from above (a cap), in the languages the masking keeps caps in
_CAP = re.compile(
    r"\b(?:at most|up to|no more than|not more than|more than|exceed\w*|maximum|limit\w*"
    r"|max(?=[\s:=(]*\d)"
    r"|too (?:large|big|long|many|much|heavy)|höchstens|maximal\w*|nicht mehr als|bis zu"
    r"|como máximo|no más de|máxim\w*|hasta|au maximum|au plus|pas plus de|jusqu'à"
    r"|no máximo|até|al massimo|massim\w*|fino a|hoogstens|maximaal|tot|högst|højst|høyst"
    r"|maks\w*|upp till|op til|opp til|najwyżej|maksymaln\w*|nejvýše|maximáln\w*|en fazla"
    r"|limite|límite|grenze|limiet|grens|sınır\w*)(?!\w)",
    re.IGNORECASE,
)
#: words that bound a figure from below (a floor)
_FLOOR = re.compile(
    r"\b(?:at least|no (?:fewer|less) than|not less than|minimum|mindestens|mindest\w*"
    r"|min(?=[\s:=(]*\d)"
    r"|al menos|por lo menos|mínim\w*|au moins|minimum|pelo menos|almeno|al minimo|minim\w*"
    r"|ten minste|minstens|minimaal|minst|mindst|co najmniej|minimaln\w*|nejméně|alespoň"
    r"|en az)(?!\w)",
    re.IGNORECASE,
)
#: the families a tool's error carries when its words state a figure as the rule
_FIGURED = frozenset({"limit-exceeded", "below-minimum"})
#: what separates an input's name ("max_age", "max-age", "Max Age")
_NAME_SEPARATORS = re.compile(r"[\s_\-.]+")
_ARG_NAME = re.compile(r"\"([\w.-]{1,40})\":")
_FIRST_QUOTE = re.compile(r"«(.*?)»", re.DOTALL)


def _bounds(text: str) -> frozenset[str]:
    """How an error bounds its figures: a cap, a floor, or both."""
    found = set()
    if _CAP.search(text):
        found.add("cap")
    if _FLOOR.search(text):
        found.add("floor")
    return frozenset(found)


def _rule_figures(error: str, passed: frozenset[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """An error's status codes and the figures the masking keeps as its rule, read as digits
    ("10,000" and "10000", "31,5 kg" and "31.5 kg" alike), but those a call passed."""
    _, codes, kept = figure_shape(error)
    found: set[str] = set()
    for figure in kept:
        found |= {f for f in figures(figure) if f not in passed}
    return codes, frozenset(found)


def _names(item: dict[str, Any], error: str) -> frozenset[str]:
    """The inputs of the failed call (its arguments' names) an error names, with their
    separators read alike ("max_age", "max-age")."""
    first = _FIRST_QUOTE.search(str(item.get("mistake") or ""))
    if first is None:
        return frozenset()
    said = _NAME_SEPARATORS.sub("", error.casefold())
    return frozenset(
        name
        for arg in _ARG_NAME.findall(first.group(1))
        if len(name := _NAME_SEPARATORS.sub("", arg.casefold())) > 2 and name in said
    )


def _families_allow(mine: str | None, theirs: str | None) -> bool:
    """May two errors' families be one rule's? The same family, a generic one, or a figure's
    own family (a cap, a floor) beside another: the figures and bounds decide then. A missing
    input is never a bound broken."""
    if mine == theirs or None in (mine, theirs):
        return True
    if MISSING_INPUT in (mine, theirs):
        return False
    return GENERIC_FAMILY in (mine, theirs) or bool({mine, theirs} & _FIGURED)


def one_rule(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Are a candidate and a lesson one failure of one tool under two keys: the same rule
    figures (nonempty), the same status codes, bound the same way, no input or quoted name
    apart, and families that allow one rule?"""
    errors = tool_errors(cand, item)
    if errors is None:
        return False
    new, old = errors
    mistakes = (str(cand.get("mistake") or ""), str(item.get("mistake") or ""))
    passed = passed_figures(*mistakes)
    (new_codes, new_rule), (old_codes, old_rule) = (
        _rule_figures(new, passed),
        _rule_figures(old, passed),
    )
    if not new_rule or new_rule != old_rule or new_codes != old_codes:
        return False
    bounds = _bounds(new)
    if not bounds or bounds != _bounds(old):
        return False
    new_names, old_names = _names(cand, new), _names(item, old)
    if new_names and old_names and not new_names & old_names:
        return False
    if quoted_apart(new, old, passed_values(*mistakes)):
        return False
    return _families_allow(
        _family([str(t) for t in cand.get("tags") or []]),
        _family([str(t) for t in item.get("tags") or []]),
    )
