"""A prompt's keyword finds a task's word in another form when no word vectors do (issue 24
point 5, ``digest.identity.word_forms``): pure, entries in an index, no services."""

from __future__ import annotations

import pytest

from digest.identity.index import AgentIndex, Entry
from digest.identity.word_forms import MIN_STEM, stem


@pytest.mark.parametrize(
    ("word", "found"),
    [
        ("changing", "chang"), ("changes", "chang"), ("change", "chang"), ("balances", "balanc"),
        ("cancelled", "cancel"), ("cancellation", "cancel"), ("reservations", "reserv"),
        ("booking", "book"), ("flights", "flight"), ("companies", "compan"),
        ("delayed", "delay"), ("shipping", "ship"),
        # kept: too short once cut, or "ss", or no ending
        ("used", "used"), ("bags", "bags"), ("address", "address"), ("refund", "refund"),
    ],
)  # fmt: skip
def test_stem_cuts_one_common_ending_and_keeps_enough_letters(word: str, found: str) -> None:
    assert stem(word) == found
    assert len(stem(word)) >= min(MIN_STEM, len(word))
    assert word.startswith(found)


def _index() -> AgentIndex:
    return AgentIndex(
        [
            # the judge's words (alike across lessons), the task's words as cues
            Entry(1, "Check the balance first: `pay` fails", "tool:pay:a", cues="changes trip"),
            Entry(2, "Check availability first: `book` fails", "tool:book:b", cues="hotel room"),
        ]
    )


def test_without_word_vectors_a_keyword_finds_a_cue_in_another_form() -> None:
    ranked = _index().rank_for_prompt(["changing"], None, 2)
    assert [entry.lesson_id for entry, _score in ranked] == [1]


def test_a_stem_does_not_match_the_lessons_own_words() -> None:
    """Cut to "check", "checked" would begin the judge's "Check …" of every lesson."""
    assert _index().rank_for_prompt(["checked"], None, 2) == []


def test_exact_matching_is_kept_where_word_vectors_find_forms() -> None:
    index = _index()
    assert index.keyword_matches("changing") is None  # the default: exact, as near.py asks
    held = index.keyword_matches("changing", forms=True)
    assert held is not None and held.tolist() == [True, False]
    cue_held = index.keyword_matches("changing", cues=True, forms=True)
    assert cue_held is not None and cue_held.tolist() == [True, False]
