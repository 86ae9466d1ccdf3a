"""Words of close meaning (``digest.identity.near``, issue 24 point 5): with the static table, a
prompt's keyword matches a lesson's word that means nearly the same, so a later task told in
other words finds the lessons of the earlier ones; without word vectors nothing changes.
Pure: the packaged static table, entries in an index, no services."""

from __future__ import annotations

import numpy as np
import pytest

from digest.identity.embedding import StaticEmbedder
from digest.identity.index import AgentIndex, Entry
from digest.identity.near import (
    NEAR_KEYWORDS_MAX,
    NEAR_ZERO,
    WordVectors,
    closeness,
    near_matches,
    word_vectors,
)


@pytest.fixture(scope="module")
def words() -> WordVectors:
    return WordVectors(StaticEmbedder())


def _entry(lesson_id: int, text: str, cues: str) -> Entry:
    return Entry(lesson_id, text, fingerprint=f"tool:t{lesson_id}:x", cues=cues)


def _cosine(words: WordVectors, a: str, b: str) -> float:
    first, second = words.of([a, b])
    return float(first @ second)


def test_words_of_one_meaning_are_close_and_others_are_not(words: WordVectors) -> None:
    for a, b in [("cracked", "shattered"), ("plane", "flight"), ("purchase", "bought")]:
        assert _cosine(words, a, b) > NEAR_ZERO, (a, b)
    for a, b in [("cracked", "passenger"), ("plane", "refund"), ("purchase", "roaming")]:
        assert _cosine(words, a, b) < NEAR_ZERO, (a, b)
    assert closeness(np.array([NEAR_ZERO, 1.0])).tolist() == [0.0, 1.0]


def test_a_task_told_in_other_words_finds_the_lessons_of_its_kind(words: WordVectors) -> None:
    index = AgentIndex(
        [
            _entry(1, "Check `amount`: `issue_refund` fails with «exceeds»", "vase shattered"),
            _entry(2, "Check availability first: `book` fails with «no seats»", "seats economy"),
        ]
    )
    keywords = ["plate", "cracked"]
    assert index.rank_for_prompt(keywords, None, 2) == []  # no word in common
    ranked = index.rank_for_prompt(keywords, None, 2, near=words)
    assert [entry.lesson_id for entry, _score in ranked] == [1]
    # a word the keyword begins still matches fully, from the cues alone too
    [held] = near_matches(index, ["seat"], words, cues=True)
    assert held is not None and held.tolist()[1] == 1.0


def test_only_an_inline_embedder_gives_word_vectors() -> None:
    assert word_vectors(None) is None
    assert word_vectors(StaticEmbedder()) is not None

    class Remote:
        name = "openai/text-embedding-3-small"

    assert word_vectors(Remote()) is None  # type: ignore[arg-type]


def test_only_the_first_unseen_keywords_of_a_prompt_look_for_near_words(
    words: WordVectors,
) -> None:
    """Each unseen keyword costs a pass over the vocabulary on the agent's turn: the first
    ``NEAR_KEYWORDS_MAX`` of a prompt look, later ones match as they are (not at all)."""
    index = AgentIndex([_entry(1, "Check `amount`: `issue_refund` fails with «exceeds»", "")])
    filler = [f"zzqunseen{n}" for n in range(NEAR_KEYWORDS_MAX)]
    # "amounts" begins no word of the index…
    first = near_matches(index, ["amounts", *filler], words)
    late = near_matches(index, [*filler, "amounts"], words)
    # …but is near "amount": found while among the first unseen keywords, not after them
    assert first[0] is not None and first[0][0] > 0
    assert late[-1] is None


def test_an_index_keeps_its_words_as_int8_codes_and_one_pair_for_keywords_near_nothing(
    words: WordVectors,
) -> None:
    """Issue 27 point 4: a compose's replay makes the near words of every agent it replays, and
    a kept index holds them; the vocabulary's vectors are int8 codes (a fourth of float32's
    bytes) and a keyword near no word holds no arrays of its own."""
    index = AgentIndex(
        [_entry(n, f"Check {w}: tool fails", w) for n, w in enumerate(["vase", "seats", "flight"])]
    )
    near_matches(index, ["cracked", "plane", "xqzv"], words)
    [state] = index.near_words.values()
    vocabulary = index.words(cues=False).vocabulary
    assert state.matrix.codes.dtype == np.int8 and len(state.matrix) == len(vocabulary)
    float32_bytes = len(vocabulary) * words.of(["vase"]).shape[1] * 4
    assert state.matrix.nbytes < float32_bytes / 3
    nothing = state.by_keyword["xqzv"]
    assert nothing[0].size == 0 and nothing is state.by_keyword.get("xqzv")
    close, near = state.by_keyword["plane"]
    assert close.dtype == np.int32 and near.dtype == np.float32 and close.size >= 1
    # the codes' cosines are the float32 ones within a few thousandths
    exact = words.of(vocabulary) @ words.of(["plane"])[0]
    assert np.abs(state.cosines(words.of(["plane"]))[0] - exact).max() < 0.005


def test_word_vectors_count_the_distinct_words_they_kept_and_embedded() -> None:
    words = WordVectors(StaticEmbedder())  # its own: the module's is shared
    words.of(["invoice", "refund", "invoice"])
    assert (words.hits, words.misses, len(words)) == (0, 2, 2)
    again = words.of(["refund", "shipment"])
    assert (words.hits, words.misses, len(words)) == (1, 3, 3)
    assert np.array_equal(again[0], words.of(["refund"])[0])  # a kept vector, read back
