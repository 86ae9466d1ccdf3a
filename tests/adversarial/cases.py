"""The adversarial corpus of issue 12, gathered: ``ATTACKS``, ``BENIGN`` and ``ALL``.

The data lives in the ``cases_*`` modules beside this one, by group of attack classes; the
shapes and constructors in ``schema``.
"""

from __future__ import annotations

from collections import Counter

from digest.reflect.views import views
from tests.adversarial.cases_benign import BENIGN_EN
from tests.adversarial.cases_benign_intl import BENIGN_INTL
from tests.adversarial.cases_campaigns import CAMPAIGNS, TRUST
from tests.adversarial.cases_languages import LANGUAGES, MARKUP
from tests.adversarial.cases_obfuscation import FORGED, OBFUSCATION
from tests.adversarial.cases_policy import POLICY, TOOL_NAMES
from tests.adversarial.cases_second import SECOND_ATTACKS, SECOND_BENIGN
from tests.adversarial.cases_third import THIRD_ATTACKS, THIRD_BENIGN
from tests.adversarial.schema import BENIGN_CLASS, CLASSES, PLACES, RECONCILE_OPS, Case, Run

__all__ = ["ALL", "ATTACKS", "BENIGN", "CLASSES", "Case", "Run", "by_class", "languages"]

ATTACKS: tuple[Case, ...] = (
    *POLICY,
    *LANGUAGES,
    *MARKUP,
    *TOOL_NAMES,
    *OBFUSCATION,
    *FORGED,
    *CAMPAIGNS,
    *TRUST,
    *SECOND_ATTACKS,
    *THIRD_ATTACKS,
)
BENIGN: tuple[Case, ...] = (*BENIGN_EN, *BENIGN_INTL, *SECOND_BENIGN, *THIRD_BENIGN)
ALL: tuple[Case, ...] = (*ATTACKS, *BENIGN)


def by_class(cases: tuple[Case, ...] = ATTACKS) -> Counter[str]:
    return Counter(case.category for case in cases)


def languages(cases: tuple[Case, ...]) -> set[str]:
    """Languages of the cases, ``mixed`` left out."""
    return {case.language for case in cases} - {"mixed"}


def problems(cases: tuple[Case, ...] = ALL) -> list[str]:
    """What is wrong with the corpus itself (empty when well formed): unique names, known
    classes and places, markers present in the run text and absent from the trusted rules,
    and obedient lessons that carry a marker (so an obedient model's lesson is detectable)."""
    found: list[str] = []
    names = Counter(case.name for case in cases)
    found += [f"{name}: name used {n} times" for name, n in names.items() if n > 1]
    lessons: dict[str, tuple[str, tuple[str, str]]] = {}
    for case in cases:
        for item in case.runs:
            lesson = item.obedient or case.obedient
            first = lessons.setdefault(item.key(), (case.name, lesson))
            if first[1] != lesson:
                found.append(f"{case.name}: a run of {first[0]} has the same content")
    for case in cases:
        where = case.name
        if not case.runs:
            found.append(f"{where}: no runs")
        if case.category not in (*CLASSES, BENIGN_CLASS):
            found.append(f"{where}: unknown class {case.category!r}")
        if not case.attack:
            if case.markers or case.has_trusted:
                found.append(f"{where}: a benign control has markers or trusted rules")
            continue
        if not case.markers or any(len(m) < 4 for m in case.markers):
            found.append(f"{where}: needs markers of at least 4 characters")
        if not set(case.where) <= set(PLACES) or not case.where:
            found.append(f"{where}: unknown place {case.where!r}")
        raw = "\n".join(r.text() for r in case.runs)
        # An encoded payload's marker is the decoded instruction: look in the decoded views.
        text = "\n".join([raw, *views(raw)]).casefold()
        if not any(m.casefold() in text for m in case.markers):
            found.append(f"{where}: no marker occurs in the run text")
        written = " ".join(case.obedient).casefold()
        if not any(m.casefold() in written for m in case.markers):
            found.append(f"{where}: the obedient lesson carries no marker")
        owner = " ".join([*case.trusted, *(q + " " + a for q, a in case.answers)]).casefold()
        found += [
            f"{where}: marker {m!r} occurs in a trusted rule"
            for m in case.markers
            if m.casefold() in owner
        ]
        if case.obedient_reconcile not in (None, *RECONCILE_OPS):
            found.append(f"{where}: obedient_reconcile must be one of {RECONCILE_OPS}")
        if case.obedient_reconcile and not case.has_trusted:
            found.append(f"{where}: obedient_reconcile without a trusted rule")
        if case.category == "obfuscation" and not case.technique:
            found.append(f"{where}: an obfuscation case names its technique")
    return found
