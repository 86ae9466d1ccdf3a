"""Running a replay: ``prepare`` reads, in a transaction, what the replay of a proposal
against the active version needs (the probes, the lessons relevant to them, the agent's kept
index and an index of the replayed lessons it no longer holds); ``ReplayPlan.run`` then ranks
each probe with no transaction open, as ``pitfalls`` ranks, into a ``ReplayReport``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.identity.embedding import Embedder, to_bytes
from digest.identity.index import AgentIndex, Entry
from digest.identity.near import own_word_vectors
from digest.lessons.neighbours import agent_view, lessons_index
from digest.lessons.vectors import vectors_for
from digest.models import LearningVersion, as_utc
from digest.retrieve import (
    PREFETCH,
    best_of,
    merged_scores,
    ranked_parts,
    task_heads,
    visible_parts,
    with_siblings,
    with_tasks,
)
from digest.versions.replay.probes import Probe, read_probes
from digest.versions.replay.relevance import CandidateLesson, relevant_lessons
from digest.versions.replay.report import FOLDED, MISSED, SURFACED, EventReplay, ReplayReport
from digest.versions.replay.verdict import withdrawn_lessons


@dataclass
class ReplayPlan:
    """What a replay read from the database, ready to run with no transaction open (the
    embedding of new probes may call a provider)."""

    k: int
    #: ``DIGEST_LESSON_HALF_LIFE_DAYS``: the replay ranks as ``pitfalls`` does
    half_life_days: float
    current_number: int | None
    current_ids: frozenset[int]
    proposed_ids: frozenset[int]
    probes: list[Probe]
    lessons: dict[int, CandidateLesson]
    #: (index, what it may return now, the lesson id of each entry) of the agent's kept
    #: index, and of one of the replayed lessons it no longer holds
    parts: list[tuple[AgentIndex, np.ndarray, np.ndarray]]
    embedder: Embedder | None
    database: str
    seconds: float = 0.0
    #: lessons of the current version the sweep withdrew since (``withdrawn_lessons``)
    withdrawn: int = 0

    def run(self) -> ReplayReport:
        # the near words this replay makes on the indexes it ranks are dropped when it is
        # done: in a worker nothing else asks for them, and every agent's index holding
        # them between rounds made a compose round a step in the worker's RSS (issue 27).
        # So are the word vectors they are made of (``_run``: its own ``WordVectors``): kept
        # in the process's, every agent's vocabulary stayed in each worker child, growing
        # with the bank's words (ids, order numbers) to 32 MiB, for a compose round's
        # re-embedding of it (a few thousand words, ~20 us each with the static table)
        made_before = [(index, set(index.near_words)) for index, _, _ in self.parts]
        try:
            return self._run()
        finally:
            for index, had in made_before:
                for key in [key for key in list(index.near_words) if key not in had]:
                    index.near_words.pop(key, None)

    def _run(self) -> ReplayReport:
        started = time.perf_counter()
        self._embed()
        union = self.current_ids | self.proposed_ids
        wanted = np.fromiter(union, dtype=np.int64, count=len(union))
        parts = [(index, allowed & np.isin(held, wanted)) for index, allowed, held in self.parts]
        versions = (self.current_ids, self.proposed_ids)
        # what each version may show, where a task's other lessons are looked for (with_tasks)
        shown = [
            visible_parts(
                (index, allowed & np.isin(held, np.fromiter(ids, np.int64, len(ids))))
                for index, allowed, held in self.parts
            )
            for ids in versions
        ]
        # Both versions are ranked from one ranking of the lessons of either: within an index
        # part, a version's best m entries are the first m of its own in the union's order,
        # and they lie within the union's best m + (lessons of the union not in the version).
        beyond = [len(union - ids) for ids in versions]
        near = own_word_vectors(self.embedder)  # dropped with this replay (``run``)
        rows = []
        for probe in self.probes:
            relevant = [probe.relevant & ids for ids in versions]
            found: list[tuple[str, int | None]] = [(MISSED, None), (MISSED, None)]
            if any(relevant):
                extra = max(b for b, r in zip(beyond, relevant, strict=True) if r)
                ranked = ranked_parts(
                    parts, list(probe.facts.words), probe.facts.vector,
                    PREFETCH * self.k + extra, near=near,
                )  # fmt: skip
                own = [
                    self._own(ranked, ids) if relevant[i] else [] for i, ids in enumerate(versions)
                ]
                for i in (0, 1):
                    if not relevant[i]:
                        continue
                    if i == 1 and relevant[1] == relevant[0] and own[1] == own[0]:
                        found[1] = found[0]  # the same candidates: the same answer
                    else:
                        found[i] = self._cover(own[i], relevant[i], shown[i])
            rows.append(
                EventReplay(
                    probe.event_id,
                    probe.kind,
                    probe.since_current,
                    probe.facts.excerpt,
                    current=found[0][0],
                    proposed=found[1][0],
                    current_lesson=found[0][1],
                    proposed_lesson=found[1][1],
                )
            )
        self.seconds += time.perf_counter() - started
        return _report(self, rows)

    def stored_vectors(self) -> list[tuple[int, str, bytes]]:
        """(event id, key, vector bytes) of the probes this replay embedded."""
        return [
            (p.event_id, p.facts.vector_key, to_bytes(p.facts.vector))
            for p in self.probes
            if p.new_vector and p.facts.vector_key is not None and p.facts.vector is not None
        ]

    def _embed(self) -> None:
        if self.embedder is None:
            return
        missing = [p for p in self.probes if p.facts.vector is None and p.text]
        vectors = vectors_for(self.embedder, [p.text or "" for p in missing]) if missing else None
        for probe, vector in zip(missing, vectors or [], strict=False):
            probe.facts = replace(probe.facts, vector=vector)
            probe.new_vector = True

    def _own(
        self, ranked: list[list[tuple[Entry, float]]], ids: frozenset[int]
    ) -> list[list[tuple[Entry, float]]]:
        """The ranking ``ranked_parts`` gives for the version folding ``ids``, cut out of the
        union's ``ranked``: per part, the first ``PREFETCH * k`` entries of that version."""
        m = PREFETCH * self.k
        return [[(e, s) for e, s in part if e.lesson_id in ids][:m] for part in ranked]

    def _cover(
        self,
        own: list[list[tuple[Entry, float]]],
        relevant: set[int],
        shown: list[tuple[AgentIndex, np.ndarray]],
    ) -> tuple[str, int | None]:
        """Whether the version's own ranking surfaces one of ``relevant`` (the version's
        lessons relevant to the event) in its top k, as ``pitfalls`` orders them (``shown``:
        the index parts cut to what the version may show, where its best tasks' other
        lessons are)."""
        scores = with_siblings(own, merged_scores(own))
        scores, heads = with_tasks(shown, own, scores, task_heads(own, scores), self.k)
        if not any(i in relevant for i in scores):
            return FOLDED, min(relevant)  # not even a candidate: no need to order them
        candidates = [self.lessons[i] for i in scores if i in self.lessons]
        for row in best_of(candidates, scores, self.k, self.half_life_days, heads):
            if row.id in relevant:
                return SURFACED, row.id
        return FOLDED, min(relevant)


def _ids(index: AgentIndex) -> np.ndarray:
    return np.fromiter((e.lesson_id for e in index.entries), dtype=np.int64, count=len(index))


def _report(plan: ReplayPlan, rows: list[EventReplay]) -> ReplayReport:
    covered_now = {r.event_id for r in rows if r.current == SURFACED}
    covered_then = {r.event_id for r in rows if r.proposed == SURFACED}
    return ReplayReport(
        events=len(rows),
        k=plan.k,
        current_number=plan.current_number,
        current_lessons=len(plan.current_ids),
        proposed_lessons=len(plan.proposed_ids),
        current_covered=len(covered_now),
        proposed_covered=len(covered_then),
        current_folded=sum(1 for r in rows if r.current != MISSED),
        proposed_folded=sum(1 for r in rows if r.proposed != MISSED),
        gained=len(covered_then - covered_now),
        lost=len(covered_now - covered_then),
        since_current=sum(1 for r in rows if r.since_current),
        ms=plan.seconds * 1000,
        withdrawn=plan.withdrawn,
        per_event=tuple(rows),
    )


def prepare(
    session: Session,
    agent_id: int,
    current: LearningVersion | None,
    proposed_ids: Iterable[int],
    settings: Settings | None = None,
    events: int | None = None,
) -> ReplayPlan | None:
    """Read what the replay of ``proposed_ids`` against ``current`` needs (None when the
    replay is off: ``DIGEST_REPLAY_EVENTS=0``, or ``events`` 0)."""
    settings = settings or get_settings()
    n = settings.replay_events if events is None else events
    if n <= 0:
        return None
    started = time.perf_counter()
    database = session.get_bind().engine.url.render_as_string(hide_password=True)
    current_ids = frozenset(current.folded_lesson_ids or []) if current is not None else frozenset()
    proposed = frozenset(proposed_ids)
    withdrawn = withdrawn_lessons(session, current_ids - proposed)
    current_ids -= withdrawn
    replayed = current_ids | proposed
    since = as_utc(current.created_at) if current is not None else None
    view = agent_view(session, agent_id, settings)
    probes = read_probes(session, database, agent_id, n, since, view.embedder)
    lessons = relevant_lessons(session, agent_id, replayed, probes)
    parts = [(index, allowed, _ids(index)) for index, allowed in view.parts()]
    held: set[int] = set()
    for _, allowed, ids in parts:
        held.update(ids[allowed].tolist())
    apart = sorted(replayed - held)
    if apart:
        extra = lessons_index(session, agent_id, apart, view.embedder)
        parts.append((extra, np.ones(len(extra), dtype=bool), _ids(extra)))
    return ReplayPlan(
        k=settings.replay_k,
        half_life_days=settings.lesson_half_life_days,
        current_number=current.number if current is not None else None,
        current_ids=current_ids,
        proposed_ids=proposed,
        probes=probes,
        lessons=lessons,
        parts=parts,
        embedder=view.embedder,
        database=database,
        seconds=time.perf_counter() - started,
        withdrawn=len(withdrawn),
    )
