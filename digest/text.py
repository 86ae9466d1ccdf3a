"""Lesson text compared: normalisation and the two rapidfuzz scores every similarity decision
uses (neighbour search, the fast path, the offline judge, compaction).

- ``relevance`` (token-set ratio): how much the two lessons talk about the same thing; a
  paraphrase or an enrichment scores high;
- ``identity`` (plain ratio of normalised text): how nearly the same words they are; only a
  re-submission or a trivial rewording scores ≥ 0.95.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

_PUNCT = re.compile(r"[^\w\s]+")


NEGATION = re.compile(
    r"\b(never|not|no longer|don't|do not|doesn't|does not|stop|cannot|can't)\b", re.IGNORECASE
)


def negation_flipped(a: str, b: str) -> bool:
    """One text negates and the other does not ("always X" / "never X"): however alike their
    words, they are not the same lesson."""
    return bool(NEGATION.search(a)) != bool(NEGATION.search(b))


def normalise(text_value: str) -> str:
    """Lowercase, punctuation removed, whitespace collapsed."""
    return " ".join(_PUNCT.sub(" ", text_value.lower()).split())


def lesson_text(situation: str, correction: str) -> str:
    """The text two lessons are compared by (what it applies to, and what to do)."""
    return f"{situation} {correction}"


def score(candidate_text: str, lesson_text_value: str) -> tuple[float, float]:
    """(relevance, identity) of two lesson texts, each in 0..1."""
    return score_normalised(normalise(candidate_text), normalise(lesson_text_value))


def score_normalised(a: str, b: str) -> tuple[float, float]:
    if not a or not b:
        return 0.0, 0.0
    return fuzz.token_set_ratio(a, b) / 100.0, fuzz.ratio(a, b) / 100.0


def edit_metrics(original: str, final: str | None) -> tuple[int, float]:
    """Levenshtein distance and normalised ratio (0 = unchanged, 1 = rewritten or rejected)."""
    if final is None:
        return len(original), 1.0
    distance = Levenshtein.distance(original, final)
    return distance, round(Levenshtein.normalized_distance(original, final), 4)
