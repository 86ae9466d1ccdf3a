"""The adversarial corpus of issue 12, loaded from its data files: ``ATTACKS``, ``BENIGN`` and
``ALL`` (the tuned split, which the suite gates on) and ``HELD_OUT``.

The cases live in ``data/<split>/<class>.jsonl`` beside this module, one case per line, grouped
by attack class (``benign.jsonl`` for the benign controls); ``data/README.md`` describes a
record. The shapes are in ``schema``.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import replace
from pathlib import Path

from digest.reflect.views import views
from tests.adversarial.schema import (
    BENIGN_CLASS,
    CLASSES,
    CORPORA,
    PLACES,
    RECONCILE_OPS,
    SPLITS,
    Case,
    Run,
)

__all__ = [
    "ALL", "ATTACKS", "BENIGN", "CLASSES", "HELD_OUT", "Case", "Run", "by_class", "campaign",
    "dumps", "languages", "load", "sample", "traits",
]  # fmt: skip

DATA = Path(__file__).with_name("data")
#: the data files of a split, in the order their cases are loaded
FILES = {category: category.replace("/", "-") + ".jsonl" for category in (*CLASSES, BENIGN_CLASS)}

#: characters a data file spells as ``\\uXXXX`` escapes: they are invisible (zero-width, TAG
#: characters) or reorder the text around them (bidi overrides), so written raw they would hide
#: the payload from a reader, or disguise the file itself
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})


def load(split: str = "tuned") -> tuple[Case, ...]:
    """Every case of ``split``, file by file in ``FILES`` order, each file in its line order.
    A missing split directory is an empty split; a file that is not a class's, a line that is
    not a case, or a case in another class's file is an error naming the file and line."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: one of {SPLITS}")
    folder = DATA / split
    if not folder.is_dir():
        return ()
    strays = sorted(p.name for p in folder.iterdir() if p.suffix == ".jsonl")
    strays = [name for name in strays if name not in FILES.values()]
    if strays:
        raise ValueError(f"{folder}: not the file of an attack class: {', '.join(strays)}")
    cases: list[Case] = []
    for category, name in FILES.items():
        path = folder / name
        if not path.exists():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                case = Case.from_record(json.loads(line), split=split)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            if case.category != category:
                raise ValueError(f"{path}:{number}: a {case.category!r} case in {name}")
            cases.append(case)
    return tuple(cases)


def dumps(case: Case) -> str:
    """``case`` as one line of its data file: JSON, readable text as it is written, invisible
    and bidi characters as escapes (``load`` reads either)."""
    text = json.dumps(case.record(), ensure_ascii=False)
    return "".join(_escape(c) if unicodedata.category(c) in _INVISIBLE else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON spells characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


TUNED: tuple[Case, ...] = load("tuned")
HELD_OUT: tuple[Case, ...] = load("held-out")
ATTACKS: tuple[Case, ...] = tuple(case for case in TUNED if case.attack)
BENIGN: tuple[Case, ...] = tuple(case for case in TUNED if not case.attack)
ALL: tuple[Case, ...] = (*ATTACKS, *BENIGN)


def campaign(cases: tuple[Case, ...], contacts: int) -> tuple[Case, ...]:
    """The attacks of ``cases`` as a patient attacker sends them: every run repeated from
    ``contacts`` distinct contacts (each its own ``contact_id``, derived from the run's own if
    it has one). Benign controls are left out: a campaign measures what reaches an agent."""
    found = []
    for case in cases:
        if not case.attack:
            continue
        runs = tuple(
            replace(run, contact_id=f"{run.contact_id or case.name}-from-{k}")
            for k in range(1, contacts + 1)
            for run in case.runs
        )
        found.append(replace(case, runs=runs))
    return tuple(found)


def traits(case: Case) -> set[tuple[object, ...]]:
    """What a case stands for in the corpus: its class, language, corpus, technique, each place
    its payload sits, owner rules or answers beside it, how an obedient model reconciles it,
    a campaign of several runs (benign controls' traits kept apart from the attacks')."""
    benign = not case.attack
    found: set[tuple[object, ...]] = {
        ("class", case.category),
        ("language", benign, case.language),
        ("corpus", case.category, case.corpus),
        *(("where", benign, where) for where in case.where),
    }
    if case.technique:
        found.add(("technique", case.technique))
    if case.trusted:
        found.add(("trusted", case.category))
    if case.answers:
        found.add(("answers", case.category))
    if case.obedient_reconcile:
        found.add(("reconcile", case.obedient_reconcile))
    if len(case.runs) > 1:
        found.add(("runs", case.category))
    return found


def sample(cases: tuple[Case, ...] = ALL, benign_every: int = 5) -> tuple[Case, ...]:
    """A representative part of ``cases``, in corpus order: every case that brings a trait
    (``traits``) no earlier case of the sample has, so every class, technique, language,
    place, corpus and reconcile answer is there, plus every ``benign_every``-th benign control
    (the false-positive share needs more than one per trait). Deterministic: the same corpus
    gives the same sample."""
    seen: set[tuple[object, ...]] = set()
    picked: list[Case] = []
    benign = 0
    for case in cases:
        new = traits(case) - seen
        regular = not case.attack and benign % benign_every == 0
        benign += 0 if case.attack else 1
        if new or regular:
            picked.append(case)
            seen |= new
    return tuple(picked)


def by_class(cases: tuple[Case, ...] = ATTACKS) -> Counter[str]:
    return Counter(case.category for case in cases)


def languages(cases: tuple[Case, ...]) -> set[str]:
    """Languages of the cases, ``mixed`` left out."""
    return {case.language for case in cases} - {"mixed"}


def problems(cases: tuple[Case, ...] = (*ALL, *HELD_OUT)) -> list[str]:
    """What is wrong with the corpus itself (empty when well formed): unique names, known
    classes, places and corpora, markers present in the run text and absent from the trusted
    rules, and obedient lessons that carry a marker (so an obedient model's lesson is
    detectable)."""
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
        if case.corpus not in CORPORA:
            found.append(f"{where}: unknown corpus {case.corpus!r}")
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
