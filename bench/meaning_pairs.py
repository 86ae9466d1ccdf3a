"""Benchmark: how well ``meaning_of`` tells paraphrases from look-alikes, over every pair.

    .venv/bin/python bench/meaning_pairs.py [--file STEM ...] [--checks] [--list]

Each dev case of ``bench/data/quality`` (``bench/_quality_cases.py``) is judged offline event
by event (``offline/rules``' reflect answer, each candidate with its fingerprint as the
pipeline gives it), and every pair of candidates from two of a case's events is labelled:
**same** when one rule of the ground truth cites both events (a paraphrased repeat, a
restated fact), **apart** when no rule cites both (look-alikes, two rules, a reversal's old
and new). Only pairs ``meaning_of`` reads at all count (another key of one kind and subject,
``digest.reflect.readings``): pairs with one key are joined by their key, pairs of other
subjects never compared.

Printed: for each reading (the score ``meaning_of`` gives, and the whole-text cosine before
the vetoes), the AUC (the chance a same pair scores above an apart pair) and, at
``READS_ALIKE``, how many same pairs reach it (joined) and how many apart pairs reach it
(merged); then how many reach it or are in doubt (``readings.in_doubt``: sent to the judge,
which reads them). First for the paraphrase cases' same pairs against the alike_facts cases'
apart pairs, then for every class (an apart pair there may be a reversal's, which the judge
is meant to see). ``--list`` prints every pair with its scores. The checks (``*_check`` files) are
left out unless ``--checks``: they are measured, never tuned on; held-out is never read.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _quality_cases import Case, load  # noqa: E402

from digest import fingerprint as fp  # noqa: E402
from digest.identity import meaning  # noqa: E402
from digest.lessons.neighbours import Neighbour  # noqa: E402
from digest.lessons.store import Candidate  # noqa: E402
from digest.model.contracts import parse_reflect_output  # noqa: E402
from digest.model.offline_reflect import judge_event  # noqa: E402
from digest.reflect import readings  # noqa: E402
from digest.reflect.verdict import with_fingerprints  # noqa: E402
from digest.text import lesson_text, observed  # noqa: E402


@dataclass(frozen=True)
class Pair:
    case: str
    cls: str
    same: bool
    score: float
    whole: float
    #: ``in_doubt``: the pair goes to the judge to be read
    doubt: float
    a: str
    b: str


def candidates(kind: str, payload: dict) -> list[Candidate]:
    answer = parse_reflect_output(judge_event({"kind": kind, "payload": payload}))
    if not isinstance(answer, list):
        return []
    claimed = SimpleNamespace(kind=kind, payload=payload)
    found = [Candidate.of(b).normalised() for b in answer]
    return with_fingerprints(claimed, found)  # type: ignore[arg-type]


def as_neighbour(c: Candidate) -> Neighbour:
    return Neighbour(1, 1.0, 1.0, c.title or "", c.situation, c.mistake, c.correction,
                     c.tags, c.fingerprint)  # fmt: skip


def compared(a: Candidate, b: Candidate) -> bool:
    mine, theirs = a.fingerprint, b.fingerprint
    return (
        fp.distinct(mine, theirs)
        and not fp.other_subject(mine, theirs)
        and (fp.kind_of(mine) == fp.kind_of(theirs))
    )


def whole_of(a: Candidate, b: Candidate) -> float:
    ta, tb = (observed(lesson_text(c.situation, c.correction)) for c in (a, b))
    return meaning.likeness(ta, tb).whole


def pairs_of(case: Case) -> list[Pair]:
    by_event = {e.id: candidates(e.kind, e.payload) for e in case.events}
    found = []
    for x, y in combinations(case.events, 2):
        same = any(x.id in r.events and y.id in r.events for r in case.rules)
        for a in by_event[x.id]:
            for b in by_event[y.id]:
                if not compared(a, b):
                    continue
                score = readings.meaning_of(b, as_neighbour(a))
                doubt = readings.in_doubt(b, as_neighbour(a))
                found.append(Pair(case.key, case.cls, same, score, whole_of(b, a), doubt,
                                  observed(lesson_text(a.situation, a.correction)),
                                  observed(lesson_text(b.situation, b.correction))))  # fmt: skip
    return found


#: the classes whose same pairs are paraphrases and whose apart pairs are look-alikes
CLASSED = {True: ("paraphrase",), False: ("alike_facts",)}


def auc(pairs: list[Pair], value: str) -> float:
    same = [getattr(p, value) for p in pairs if p.same]
    apart = [getattr(p, value) for p in pairs if not p.same]
    if not same or not apart:
        return float("nan")
    wins = sum((s > a) + 0.5 * (s == a) for s in same for a in apart)
    return wins / (len(same) * len(apart))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", nargs="*", default=None)
    parser.add_argument("--checks", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    cases = load("dev", files=tuple(args.file) if args.file else None)
    if not args.checks:
        cases = [c for c in cases if not c.source.endswith("_check")]
    every = [p for c in cases for p in pairs_of(c)]
    print(f"{len(cases)} cases")
    for label, pairs in (
        ("paraphrase vs alike_facts", [p for p in every if p.cls in CLASSED[p.same]]),
        ("every class", every),
    ):
        same = [p for p in pairs if p.same]
        apart = [p for p in pairs if not p.same]
        print(f"{label}: {len(same)} same pairs, {len(apart)} apart pairs")
        for value in ("score", "whole"):
            joined = sum(getattr(p, value) >= meaning.READS_ALIKE for p in same)
            merged = sum(getattr(p, value) >= meaning.READS_ALIKE for p in apart)
            print(f"  {value:6} AUC {auc(pairs, value):.3f}  at {meaning.READS_ALIKE}: "
                  f"same {joined}/{len(same)}, apart {merged}/{len(apart)}")  # fmt: skip
        joined = sum(p.score >= meaning.READS_ALIKE or p.doubt > 0 for p in same)
        merged = sum(p.score >= meaning.READS_ALIKE or p.doubt > 0 for p in apart)
        print(f"  score at {meaning.READS_ALIKE} or in doubt (to the judge): "
              f"same {joined}/{len(same)}, apart {merged}/{len(apart)}")  # fmt: skip
    pairs = [p for p in every if p.cls in CLASSED[p.same]]
    if args.list:
        for p in sorted(pairs, key=lambda p: (p.same, p.score)):
            tag = "SAME " if p.same else "apart"
            print(f"{tag} {p.score:.2f} {p.whole:.2f} {p.doubt:.2f} {p.case}")
            print(f"    {p.a!r}\n    {p.b!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
