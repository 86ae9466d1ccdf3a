"""What the multi-error cases' lessons are titled (issue 24 point 4), for ``bench/quality.py
--titles``: does a lesson from a tool's error say what to do about *that* error?

A lesson's title opens with its remedy ("Check stock first: `place_order` fails with «…»").
Each active lesson of a ``multi_error`` case is put in one kind by that remedy:

- **generic**: the answer to an error the judge could not read ("Change the arguments or the
  approach", and for a run's own error "Check the result before finishing", "Escalate early");
- **condition**: a remedy that answers a condition the error states without naming it ("Meet
  the precondition first", "Check the rule it states first");
- **family**: the remedy of an error family (``digest.model.error_families``: "Check stock
  first", "Look up the id instead of guessing" …);
- **argument**: a family's remedy naming the argument the error names ("Keep `quantity`
  within the limit");
- **other**: any other words (a remote model's own).

And the cases' rules (one rule is one recurring error family of one tool): how many ended at
exactly one lesson, at more than one (``split``), in a lesson with another family
(``merged``), or at none (``missing``), from the grade's findings. Titles are read from the
bank, never graded: the verdict of a case does not depend on them.
"""

from __future__ import annotations

import re
from collections import Counter

from _quality_verdict import Graded

KINDS = ("generic", "condition", "family", "argument", "other")
#: the rules' fates, from the grade's findings (a rule with no finding ended at one lesson)
FATES = ("one", "split", "merged", "missing")
_RUN_GENERIC = ("Check the result before finishing", "Escalate early")


def remedy_of(title: str) -> str:
    """The remedy a title opens with: what stands before its first ": " (or all of it)."""
    return title.split(": ", 1)[0].strip().rstrip(".")


def kind_of(title: str) -> str:
    """The kind of a lesson's title (see the module's docstring)."""
    from digest.model.error_families import FAMILIES, TOOL_FAILURE
    from digest.model.error_reading import CONDITION_REMEDIES

    remedy = remedy_of(title)
    if remedy in (TOOL_FAILURE.remedy, *_RUN_GENERIC):
        return "generic"
    if remedy in CONDITION_REMEDIES:
        return "condition"
    if remedy in {f.remedy for f in FAMILIES}:
        return "family"
    for family in FAMILIES:
        if family.remedy_for is None:
            continue
        pattern = re.escape(family.remedy_for).replace(re.escape("{arg}"), r"`[^`]+`")
        if re.fullmatch(pattern, remedy):
            return "argument"
    return "other"


def title_counts(graded: list[Graded]) -> Counter[str]:
    """The kinds of the active lessons' titles of ``graded`` cases."""
    return Counter(
        kind_of(lesson.title) for g in graded for lesson in g.lessons if lesson.status == "active"
    )


def fate_counts(graded: list[Graded]) -> Counter[str]:
    """How the cases' rules ended: at one lesson, split, merged or missing."""
    fates: Counter[str] = Counter()
    for g in graded:
        unmatched = Counter(kind for kind, _ in g.findings if kind in FATES)
        fates.update(unmatched)
        fates["one"] += len(g.case.rules) - sum(unmatched.values())
    return fates


def table(groups: list[tuple[str, str, list[Graded]]]) -> str:
    """One row per multi-error file: the titles' kinds and the rules' fates."""
    head = ("split", "file", "lessons", *KINDS, "generic %", "rules", *FATES)
    lines = [" | ".join(head)]
    for split, source, graded in groups:
        if not graded or graded[0].case.cls != "multi_error":
            continue
        kinds, fates = title_counts(graded), fate_counts(graded)
        total = sum(kinds.values())
        share = 100 * kinds["generic"] / total if total else 0.0
        lines.append(" | ".join([
            split, source, str(total), *(str(kinds[k]) for k in KINDS), f"{share:.0f}",
            str(sum(fates.values())), *(str(fates[k]) for k in FATES),
        ]))  # fmt: skip
    return "\n".join(lines)


def listing(graded: list[Graded]) -> str:
    """Every active lesson's title of the multi-error cases, with its kind (for ``--report``)."""
    out = []
    for g in graded:
        if g.case.cls != "multi_error":
            continue
        for lesson in g.lessons:
            if lesson.status == "active":
                out.append(f"  {g.case.key} [{kind_of(lesson.title)}] {lesson.title}")
    return "\n".join(out)
