"""Paraphrase recall (``bench/recall.py``): a lesson re-told in another model's words is found
again among its neighbours. Uses the local embedding model; no services."""

from __future__ import annotations

from bench.paraphrases import BANK, PAIRS
from bench.recall import HYBRID_TARGET, K, run
from digest.text import lesson_text, normalise


def test_the_set_is_as_big_and_as_sound_as_promised() -> None:
    assert len(BANK) >= 400
    assert len(PAIRS) >= 40
    assert len({normalise(lesson_text(*lesson)) for lesson in BANK}) == len(BANK)
    for original, situation, correction in PAIRS:
        assert 0 <= original < len(BANK)
        assert normalise(lesson_text(situation, correction)) != normalise(
            lesson_text(*BANK[original])
        )


def test_hybrid_finds_paraphrased_lessons() -> None:
    outcomes = run().outcomes
    hybrid, lexical = outcomes["hybrid"].recall(K), outcomes["lexical"].recall(K)
    assert hybrid >= HYBRID_TARGET, f"hybrid recall@{K} {hybrid:.3f}"
    assert hybrid >= lexical, f"hybrid {hybrid:.3f} < lexical {lexical:.3f}"
