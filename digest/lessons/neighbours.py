"""Neighbour search: the active lessons of one agent most like a candidate lesson.

One interface, chosen by dialect:

- PostgreSQL: a shortlist from ``lesson_terms`` (migration 0004), an inverted index of each
  active lesson's words, adjacent word pairs and a key of its whole normalised text, kept by a
  trigger on ``lessons``. The candidate's whole-text key is looked up first (an exact repeat is
  always found, whatever the bank), then its rarest terms, until the lessons gathered reach a
  budget. Term frequencies are counted only up to a cap and each term's lessons are read up to
  the same cap, so the query reads a bounded number of index entries however large the agent's
  bank grows (bench/neighbour_search.py: flat from 100 to 10,000 lessons);
- SQLite: the agent's active lessons are scored in process (the embedded default is small).

Either way the final ranking uses the same scores (``digest.text``), so the fast-path
thresholds mean the same thing on both databases.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import BigInteger, ColumnElement, Select, column, or_, select, text
from sqlalchemy.orm import Session

from digest.models import Lesson, utcnow
from digest.text import lesson_text, normalise, score_normalised


class StoredLesson(Protocol):
    """What a neighbour is made from: a ``Lesson``, or a row with the same columns."""

    @property
    def id(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def situation(self) -> str: ...
    @property
    def mistake(self) -> str | None: ...
    @property
    def correction(self) -> str: ...
    @property
    def tags(self) -> list[str] | None: ...


@dataclass(frozen=True)
class Neighbour:
    lesson_id: int
    relevance: float
    identity: float
    title: str
    situation: str
    mistake: str | None
    correction: str
    tags: tuple[str, ...]

    @classmethod
    def of(cls, lesson: StoredLesson, relevance: float, identity: float) -> Neighbour:
        """A stored lesson (a ``Lesson`` or a row of its columns) as a neighbour with the
        given scores."""
        return cls(
            lesson_id=lesson.id,
            relevance=relevance,
            identity=identity,
            title=lesson.title,
            situation=lesson.situation,
            mistake=lesson.mistake,
            correction=lesson.correction,
            tags=tuple(lesson.tags or ()),
        )


#: Terms are looked up, rarest first, until the lessons holding them reach this many.
SHORTLIST_BUDGET = 128


#: The most lessons read for one term, and the count at which a term stops being rare.
POSTINGS_PER_TERM = 48


# The candidate's terms, each with how many of the agent's lessons hold it (counted only up to
# the cap: a common word would otherwise cost a scan of most of the bank); the whole-text key
# first, then the rarest terms while the lessons gathered stay under the budget; the newest
# lessons holding each. At most SHORTLIST_BUDGET + POSTINGS_PER_TERM index entries are read
# for the shortlist, whatever the bank size.
_SHORTLIST = text(
    """
    WITH probe AS (
        SELECT term FROM unnest(digest_lesson_terms(:probe)) AS term
    ), frequency AS (
        SELECT probe.term, counted.n
        FROM probe, LATERAL (
            SELECT count(*) AS n FROM (
                SELECT 1 FROM lesson_terms AS t
                WHERE t.agent_id = :agent_id AND t.term = probe.term
                LIMIT :postings
            ) AS hits
        ) AS counted
        WHERE counted.n > 0
    ), picked AS (
        SELECT term, sum(n) OVER (ORDER BY starts_with(term, '=') DESC, n, term) - n AS before
        FROM frequency
    )
    SELECT DISTINCT posting.lesson_id
    FROM picked, LATERAL (
        SELECT t.lesson_id FROM lesson_terms AS t
        WHERE t.agent_id = :agent_id AND t.term = picked.term
        ORDER BY t.lesson_id DESC
        LIMIT :postings
    ) AS posting
    WHERE picked.before < :budget
    """
)


def _active_filter(tenant_id: int, agent_id: int, now: datetime) -> list[ColumnElement[bool]]:
    return [
        Lesson.tenant_id == tenant_id,
        Lesson.agent_id == agent_id,
        Lesson.status == "active",
        or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
    ]


def neighbour_query(
    session: Session, tenant_id: int, agent_id: int, candidate_text: str
) -> Select[int, str, str, str | None, str, list[str]]:
    """The SELECT of the lessons ``find_neighbours`` scores: on PostgreSQL the shortlist drawn
    from the term index, on SQLite every active lesson of the agent. Columns only: scoring a
    few hundred rows must not pay for ORM objects."""
    query = select(
        Lesson.id, Lesson.title, Lesson.situation, Lesson.mistake, Lesson.correction, Lesson.tags
    ).where(*_active_filter(tenant_id, agent_id, utcnow()))
    if session.get_bind().dialect.name != "postgresql":
        return query
    shortlist = (
        _SHORTLIST.bindparams(
            probe=candidate_text,
            agent_id=agent_id,
            budget=SHORTLIST_BUDGET,
            postings=POSTINGS_PER_TERM,
        )
        .columns(column("lesson_id", BigInteger))
        .cte("shortlist")
    )
    return query.join(shortlist, shortlist.c.lesson_id == Lesson.id)


def find_neighbours(
    session: Session,
    tenant_id: int,
    agent_id: int,
    candidate_text: str,
    k: int = 5,
) -> list[Neighbour]:
    """Top-``k`` active, unexpired lessons of this agent by relevance (ties: identity, id)."""
    scored = []
    probe = normalise(candidate_text)
    for row in session.execute(neighbour_query(session, tenant_id, agent_id, candidate_text)):
        relevance, identity = score_normalised(
            probe, normalise(lesson_text(row.situation, row.correction))
        )
        scored.append(Neighbour.of(row, relevance=relevance, identity=identity))
    scored.sort(key=lambda n: (-n.relevance, -n.identity, n.lesson_id))
    return scored[:k]
