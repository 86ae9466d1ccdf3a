"""What a replay leaves in the process (issue 27 point 4): the near words it made on the
indexes it ranked are dropped when it is done (in a worker nothing else reads them, and every
agent's index holding them made each compose round a step in the worker's RSS); near words
made before it, by ``pitfalls``, are kept. Pure: the packaged static table, no services."""

from __future__ import annotations

import numpy as np

from digest.identity.embedding import StaticEmbedder
from digest.identity.index import AgentIndex, Entry
from digest.identity.near import near_matches, word_vectors
from digest.lessons.bank import Row
from digest.versions.replay.facts import EventFacts
from digest.versions.replay.plan import ReplayPlan
from digest.versions.replay.probes import Probe
from digest.versions.replay.relevance import CandidateLesson
from digest.versions.replay.report import SURFACED


def _plan(index: AgentIndex, embedder: StaticEmbedder) -> ReplayPlan:
    # "plate cracked" shares no word with the lesson: only its near words find it
    facts = EventFacts("plate cracked", ("plate", "cracked"), (), embedder.name, None)
    probe = Probe(10, "run_outcome", True, facts, relevant={1})
    return ReplayPlan(
        k=3,
        half_life_days=30.0,
        current_number=None,
        current_ids=frozenset(),
        proposed_ids=frozenset({1, 2}),
        probes=[probe],
        lessons={1: CandidateLesson(1, 0, None), 2: CandidateLesson(2, 0, None)},
        parts=[(index, np.ones(len(index), bool), np.array([1, 2], np.int64))],
        embedder=embedder,
        database="postgresql://replay-memory",
    )


def _row(lesson_id: int) -> Row:
    return Row(lesson_id, "agent", None, None, "trusted")


def _index(booking_cues: str) -> AgentIndex:
    """An agent's index of two lessons: a refund's limit and a booking's (its cues given)."""
    return AgentIndex(
        [
            Entry(1, "Check `amount`: `issue_refund` fails with «exceeds»", meta=_row(1),
                  cues="vase shattered"),
            Entry(2, "Check availability first: `book` fails", meta=_row(2),
                  cues=booking_cues),
        ]
    )  # fmt: skip


def test_a_replay_drops_the_near_words_it_made_and_keeps_those_made_before() -> None:
    embedder = StaticEmbedder()
    index = _index("seats economy")
    words = word_vectors(embedder)
    assert words is not None
    near_matches(index, ["seating"], words, cues=True)  # a prompt asked before the compose
    before = set(index.near_words)
    assert before == {(embedder.name, True)}

    report = _plan(index, embedder).run()

    assert [row.proposed for row in report.per_event] == [SURFACED]  # by near words
    assert set(index.near_words) == before  # its own (the entries' words) dropped
    # and the next replay makes them again, with the same answer
    assert [row.proposed for row in _plan(index, embedder).run().per_event] == [SURFACED]
    assert set(index.near_words) == before


def test_a_replay_keeps_none_of_the_word_vectors_it_made_and_finds_the_same() -> None:
    embedder = StaticEmbedder()
    index = _index("seats economy order 48213")
    words = word_vectors(embedder)
    assert words is not None
    kept = len(words)

    first = _plan(index, embedder).run()
    # the agent's vocabulary and the probe's words were embedded for the replay, not kept in
    # the process's word vectors (a worker child held every agent's vocabulary: issue 27)
    assert len(words) == kept
    assert [row.proposed for row in first.per_event] == [SURFACED]  # near words still work
    words.of(["vase", "shattered", "seats", "economy", "48213", "plate", "cracked"])
    # with the process's vectors all there, the next replay finds the same
    assert [row.proposed for row in _plan(index, embedder).run().per_event] == [SURFACED]
