"""The ranking ``pitfalls`` runs over an agent's index (DESIGN §7, §8a), pure: index parts
and their masks in, lessons and scores out; nothing here reads the database.

- ``prompt_ranking``: the candidates for a prompt (``ranked_parts``: the keywords and the
  prompt's vector against each visible entry, ``digest.identity.index``), the best one's
  siblings just after it, each candidate's task (``digest.identity.siblings``), and the best
  tasks' lessons the prompt did not find;
- ``best_of``: the final order of the candidates read back as of now (relevance faded by how
  long a lesson went unused, then hit count, then last seen), ``k`` lessons or, with their
  tasks, the lessons of ``k`` tasks.

``digest.retrieve`` runs them on the agent's turn, ``digest.versions.replay`` on past events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Protocol, TypeVar

import numpy as np

from digest.identity.index import AgentIndex, Entry, keyword_weights
from digest.identity.near import WordVectors
from digest.identity.siblings import task_heads, with_siblings, with_tasks
from digest.models import as_utc, utcnow

R = TypeVar("R", bound="RankedRow")


#: candidates read back per lesson asked for: ties at the cut are decided with fresh counts
PREFETCH = 4


class RankedRow(Protocol):
    """What the final order reads of a lesson: a row of these columns, or a ``Lesson``."""

    @property
    def id(self) -> int: ...
    @property
    def hit_count(self) -> int: ...
    @property
    def last_seen_at(self) -> datetime | None: ...


def prompt_ranking(
    parts: Iterable[tuple[AgentIndex, np.ndarray]],
    words: list[str],
    vector: np.ndarray | None,
    k: int,
    contact_id: str | None = None,
    *,
    near: WordVectors | None = None,
) -> tuple[dict[int, float], dict[int, int]]:
    """The pitfalls candidates for a prompt (its keywords ``words``, its embedding ``vector``)
    and their relevance: the best ``PREFETCH * k`` of each index part (``ranked_parts``),
    each lesson with its best score, the best one's siblings just after it
    (``with_siblings``); and each candidate's task (``task_heads``: the best lesson of the
    task it was learned from, for ``best_of``)."""
    visible = visible_parts(parts, contact_id)
    ranked = ranked_visible(visible, words, vector, PREFETCH * k, near=near)
    scores = with_siblings(ranked, merged_scores(ranked))
    return with_tasks(visible, ranked, scores, task_heads(ranked, scores), k)


def ranked_parts(
    parts: Iterable[tuple[AgentIndex, np.ndarray]],
    words: list[str],
    vector: np.ndarray | None,
    count: int,
    contact_id: str | None = None,
    *,
    near: WordVectors | None = None,
) -> list[list[tuple[Entry, float]]]:
    """Per index part, its ``count`` agent-wide entries (with ``contact_id``, that contact's
    own too) most relevant to the prompt among those its mask allows, best first. Keywords
    weigh by how few of all the visible entries hold them (``keyword_weights``); with
    ``near`` (the static table's word vectors, ``digest.identity.near``) a keyword also
    matches the words closest to it in meaning.

    ``pitfalls`` ranks the parts of the agent's kept index (``View.parts``); a replay
    (``digest.versions.replay``) the same parts with the masks cut to versions' lessons."""
    return ranked_visible(visible_parts(parts, contact_id), words, vector, count, near=near)


def ranked_visible(
    visible: Iterable[tuple[AgentIndex, np.ndarray]],
    words: list[str],
    vector: np.ndarray | None,
    count: int,
    *,
    near: WordVectors | None = None,
) -> list[list[tuple[Entry, float]]]:
    """``ranked_parts`` of parts whose masks are already cut to what may be shown
    (``visible_parts``)."""
    if not words and vector is None:
        return []
    seen = []
    for index, visible_here in visible:
        # each keyword looked up once per part: for its weight and for the ranking
        # without word vectors, a keyword finds a task's word in another form by its stem
        seen.append((index, visible_here, index.all_keyword_matches(words, forms=near is None)))
    weights = keyword_weights((m, shown) for _, shown, m in seen) if words else None
    return [
        index.rank_for_prompt(
            words, vector, count, allowed=shown, weights=weights, matches=matches, near=near
        )
        for index, shown, matches in seen
    ]


def visible_parts(
    parts: Iterable[tuple[AgentIndex, np.ndarray]], contact_id: str | None = None
) -> list[tuple[AgentIndex, np.ndarray]]:
    """The index parts with their masks cut to the agent-wide entries (with ``contact_id``,
    that contact's own too): what a prompt may be shown."""
    visible = []
    for index, allowed in parts:
        shown = allowed & index.mask("agent-scope", _agent_wide)
        if contact_id is not None:
            shown |= allowed & index.mask(f"contact:{contact_id}", _of_contact(contact_id))
        visible.append((index, shown))
    return visible


def merged_scores(ranked: Iterable[Iterable[tuple[Entry, float]]]) -> dict[int, float]:
    """Each ranked lesson with its best score over the parts."""
    scores: dict[int, float] = {}
    for part in ranked:
        for entry, score in part:
            scores[entry.lesson_id] = max(score, scores.get(entry.lesson_id, 0.0))
    return scores


def faded(last_seen_at: datetime | None, half_life_days: float, now: datetime) -> float:
    """The weight of a lesson last surfaced, supported or learned at ``last_seen_at``: 1/2 per
    ``half_life_days`` whole days since (1 on the day itself; ``half_life_days`` 0: always 1).
    A lesson never seen weighs 0."""
    if half_life_days <= 0:
        return 1.0
    if last_seen_at is None:
        return 0.0
    days = int((now - as_utc(last_seen_at)).total_seconds() // 86_400)
    return 1.0 if days <= 0 else float(0.5 ** (days / half_life_days))


#: a block shows at most this many lessons per task it shows (``best_of`` with ``heads``)
LESSONS_PER_TASK = 2


def best_of(
    rows: Iterable[R],
    scores: dict[int, float],
    k: int,
    half_life_days: float = 0.0,
    heads: dict[int, int] | None = None,
) -> list[R]:
    """The ``k`` best of the candidates' ``rows``: by relevance (``scores``) faded by how long
    each lesson went unused (``faded``, with ``half_life_days``), ties to the lesson surfaced
    more often, then the one seen most recently, then the oldest.

    With ``heads`` (each lesson's task, ``task_heads``), ``k`` counts tasks, not lessons: the
    lessons of the ``k`` best tasks, in that order, at most ``LESSONS_PER_TASK * k`` in all. A
    run that failed in several ways taught a lesson per error; a later task of its kind needs
    each of them, and one task's lessons must not push every other task out of the block."""
    now = utcnow()
    ordered = sorted(
        rows,
        key=lambda r: (
            -round(scores[r.id] * faded(r.last_seen_at, half_life_days, now), 6),
            -r.hit_count,
            -(as_utc(r.last_seen_at).timestamp() if r.last_seen_at else float("-inf")),
            r.id,
        ),
    )
    if heads is None:
        return ordered[:k]
    shown: list[R] = []
    tasks: set[int] = set()
    for row in ordered:
        task = heads.get(row.id, row.id)
        if task not in tasks:
            if len(tasks) == k:
                continue
            tasks.add(task)
        shown.append(row)
        if len(shown) == LESSONS_PER_TASK * k:
            break
    return shown


def _agent_wide(entry: Entry) -> bool:
    return bool(entry.meta.scope == "agent")


def _of_contact(contact_id: str) -> Callable[[Entry], bool]:
    # A contact's own preference must not reach another contact's conversation.
    return lambda entry: entry.meta.scope == "contact" and entry.meta.contact_id == contact_id
