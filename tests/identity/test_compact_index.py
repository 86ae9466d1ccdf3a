"""An agent's index held in arrays (issue 27 point 4): an index combined from others' arrays
ranks exactly as one built from the same entries, keeps each vector once and no text but the
normalised one, and a process's kept indexes stay within their cap (counted in entries and
bytes, never timed). Pure: no services."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest

from digest.identity.index import AgentIndex, Entry
from digest.identity.postings import Postings

WORDS = [
    "refund",
    "order",
    "parcel",
    "voucher",
    "address",
    "customer",
    "invoice",
    "courier",
    "ticket",
    "pickup",
]


def _entries(ids: range, seed: int = 1) -> list[Entry]:
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).normal(size=(max(ids) + 1, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [
        Entry(
            i,
            " ".join(rng.choice(WORDS) for _ in range(6)) + f" case{i}",
            fingerprint=f"tool:t{i % 7}:x",
            vector=vectors[i],
            meta=i,
            extra=f"title{i}",
            cues=" ".join(rng.choice(WORDS) for _ in range(5)) if i % 2 else "",
            cue_vectors=vectors[[i, (i + 1) % len(vectors)]] if i % 3 == 0 else None,
        )
        for i in ids
    ]


def _ranking(index: AgentIndex, probe: Entry) -> tuple[list[int], list[int]]:
    searched = [h.lesson_id for h in index.search(probe.text, probe.vector, 8)]
    words = probe.text.split()[:3]
    ranked = [e.lesson_id for e, _ in index.rank_for_prompt(words, probe.vector, 8)]
    return searched, ranked


def test_a_combined_index_ranks_as_one_built_from_the_same_entries() -> None:
    entries = _entries(range(1, 121))
    replaced = {e.lesson_id for e in entries[40:50]}
    base = AgentIndex(entries[:100])
    overlay = AgentIndex(entries[100:] + [e for e in entries[40:50]])
    keep = ~np.isin(base.ids, list(replaced))
    combined = AgentIndex.combined([(base, keep), (overlay, np.ones(len(overlay), bool))])
    built = AgentIndex(sorted(entries, key=lambda e: e.lesson_id))
    assert list(combined.ids) == list(built.ids) == sorted(e.lesson_id for e in entries)
    for probe in entries[::7]:
        assert _ranking(combined, probe) == _ranking(built, probe)
    for word in ("refund", "cour", "case7", "title9", "nothing"):
        a, b = combined.keyword_matches(word), built.keyword_matches(word)
        assert (a is None and b is None) or bool((a == b).all()), word
        a, b = combined.keyword_matches(word, cues=True), built.keyword_matches(word, cues=True)
        assert (a is None and b is None) or bool((a == b).all()), word


def test_an_index_keeps_each_vector_once_and_no_text_but_the_normalised_one() -> None:
    index = AgentIndex(_entries(range(1, 51)))
    assert all(e.vector is None and e.cue_vectors is None and e.text == "" for e in index.entries)
    assert index._vectors.codes.shape == (50, 16) and index._vectors.codes.dtype == np.int8
    # the entries' words in one array of positions, not an array per word
    assert isinstance(index._postings, Postings)
    assert len(index._postings.positions) >= 50 * 3


def test_postings_combined_drop_words_no_kept_entry_holds() -> None:
    postings = Postings.of([["apple", "pear"], ["pear"], ["plum"]])
    moved = np.array([-1, 0, 1])  # the first entry dropped
    combined = Postings.combined([(postings, moved)])
    assert combined.vocabulary == ["pear", "plum"]
    assert combined.count("pear") == 1 and combined.count("apple") == 0
    assert list(combined.with_prefix("p")) == [0, 1]


@pytest.fixture()
def banks(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from digest.lessons import bank
    from digest.runtime import runtime

    bank.forget()
    yield bank
    bank.forget()
    runtime().drop(bank._Banks)


def _bank(bank, agent_id: int, size: int):  # type: ignore[no-untyped-def]
    index = AgentIndex(_entries(range(1, size + 1), seed=agent_id))
    now = datetime.now(UTC)
    return bank._Bank(agent_id, 1, now, None, index, np.full(size, np.inf))


def test_kept_indexes_stay_within_their_byte_cap_least_recently_used_first(
    banks, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    one = _bank(banks, 1, 200).nbytes
    monkeypatch.setattr(banks, "max_kept_bytes", lambda: int(3.5 * one))
    for agent_id in range(1, 11):
        banks._keep(("db", agent_id), _bank(banks, agent_id, 200))
        entries, held = banks.kept_sizes()
        assert held <= 3.5 * one and entries <= 3 * 200
    kept = [key[1] for key in banks.runtime().piece(banks._Banks).by_agent]
    assert kept == [8, 9, 10]  # the most recently used three
    # one index larger than the cap is still kept (the one just searched), alone
    banks._keep(("db", 11), _bank(banks, 11, 1000))
    assert [key[1] for key in banks.runtime().piece(banks._Banks).by_agent] == [11]


def test_kept_indexes_are_bounded_by_agents(banks, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(banks, "MAX_AGENTS", 4)
    for agent_id in range(1, 9):
        banks._keep(("db", agent_id), _bank(banks, agent_id, 10))
    assert banks.kept_sizes()[0] == 4 * 10


def test_nbytes_is_about_what_an_index_holds() -> None:
    # what ``max_kept_bytes`` bounds must be what the process holds: an index built from
    # lessons of realistic length (row text dropped, vectors as codes) weighs what tracemalloc
    # counts, within a fifth
    import gc
    import sys
    import tracemalloc

    from digest.lessons.bank import Row

    rng = random.Random(5)
    vocabulary = [sys.intern(f"{rng.choice(WORDS)}{n}") for n in range(800)]

    def text(n: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(n))

    def build() -> AgentIndex:
        vectors = np.random.default_rng(5).normal(size=(400, 128)).astype(np.float32)
        entries = [
            Entry(
                i,
                text(40),
                f"tool:t{i % 9}:{text(3)}",
                vectors[i],
                meta=Row(i, sys.intern("agent"), None, None, sys.intern("untrusted")),
                extra=text(6),
                cues=text(8) if i % 2 else "",
                cue_vectors=vectors[[i, (i + 1) % 400]] if i % 2 else None,
            )
            for i in range(400)
        ]
        return AgentIndex(entries)

    # one build first, uncounted: what a process allocates once on its first index (whatever
    # earlier tests in this process did or did not warm) is not what an index holds
    build()
    gc.collect()
    tracemalloc.start()
    try:
        index = build()
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert 0.8 * traced <= index.nbytes <= 1.2 * traced, (index.nbytes, traced)
