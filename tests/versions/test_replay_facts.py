"""What a process keeps of the events it replayed (``digest.versions.replay.facts``, issue 27
point 4): an agent's last window only, at most ``FACTS_MAX`` events and ``FACTS_BYTES``, no
vector, each keyword one object. Pure: no services."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from digest.runtime import runtime
from digest.versions.replay import facts
from digest.versions.replay.facts import EventFacts, keep_window, recall_facts, remember_facts

DB = "postgresql://example/db"


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    runtime().drop(facts._Kept)
    yield
    runtime().drop(facts._Kept)


def _facts(n: int, excerpt: str = "order not found") -> EventFacts:
    vector = np.ones(128, np.float32)
    words = tuple("".join(["refund", "ed"]) for _ in range(3))  # equal words, three objects
    return EventFacts(f"{excerpt} {n}", words, (f"tool:refund:{n}",), "static", f"k{n}", vector)


def test_a_kept_event_holds_no_vector_and_one_object_per_word() -> None:
    remember_facts(DB, 1, _facts(1))
    [kept] = recall_facts(DB, [1, 2]).values()
    assert kept.vector is None and kept.excerpt == "order not found 1"
    assert kept.words == ("refunded",) * 3
    assert len({id(word) for word in kept.words}) == 1


def test_an_agent_keeps_only_its_last_window() -> None:
    keep_window(DB, 7, range(1, 11))
    for n in range(1, 11):
        remember_facts(DB, n, _facts(n))
    remember_facts(DB, 99, _facts(99))  # another agent's
    keep_window(DB, 7, range(6, 16))  # events 1-5 left the window
    assert sorted(recall_facts(DB, range(1, 100))) == [6, 7, 8, 9, 10, 99]
    keep_window("sqlite:///other", 7, [1])  # another database's agent 7: its own window
    assert sorted(recall_facts(DB, range(1, 100))) == [6, 7, 8, 9, 10, 99]


def test_the_facts_kept_hold_at_most_their_entries_and_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(facts, "FACTS_MAX", 50)
    monkeypatch.setattr(facts, "FACTS_BYTES", 40_000)
    for n in range(200):
        remember_facts(DB, n, _facts(n))
    kept = runtime().piece(facts._Kept).by_event
    assert len(kept) == 50 and kept.nbytes <= 40_000
    runtime().drop(facts._Kept)
    for n in range(200):
        remember_facts(DB, n, _facts(n, excerpt="x" * 2_000))  # about 2.5 kB each
    kept = runtime().piece(facts._Kept).by_event
    assert kept.nbytes <= 40_000 and 5 <= len(kept) < 20
    assert sorted(recall_facts(DB, range(200)))[-1] == 199  # the most recent kept


def test_the_windows_remembered_hold_at_most_their_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(facts, "WINDOWS_MAX", 3)
    for agent in range(10):
        keep_window(DB, agent, range(agent * 100, agent * 100 + 200))
    windows = runtime().piece(facts._Kept).windows
    assert len(windows) == 3 and windows.nbytes <= facts.WINDOWS_BYTES
