"""Neighbour search: the active lessons of one agent most like a candidate lesson.

One interface, chosen by dialect:

- PostgreSQL: a GiST index on (agent_id, trigrams of the lesson text) (``ix_lessons_text_trgm``,
  migration 0002) returns the agent's nearest lessons by trigram distance (``<->``) by walking
  the index, so the query stays index-backed as an agent's lesson bank grows;
- SQLite: the agent's active lessons are scored in process (the embedded default is small).

Either way the final ranking uses the same rapidfuzz scores, so the fast-path thresholds mean
the same thing on both databases:

- ``relevance`` (token-set ratio): how much the two lessons talk about the same thing; a
  paraphrase or an enrichment scores high;
- ``identity`` (plain ratio of normalised text): how nearly the same words they are; only a
  re-submission or a trivial rewording scores ≥ 0.95.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rapidfuzz import fuzz
from sqlalchemy import BigInteger, Select, cast, func, literal, literal_column, or_, select
from sqlalchemy.orm import Session

from digest.models import Lesson, utcnow

#: how many trigram-nearest lessons Postgres hands to the rapidfuzz re-ranking, per neighbour.
PREFILTER_FACTOR = 4

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


def score(candidate_text: str, lesson_text_value: str) -> tuple[float, float]:
    """(relevance, identity) of two lesson texts, each in 0..1."""
    a, b = normalise(candidate_text), normalise(lesson_text_value)
    if not a or not b:
        return 0.0, 0.0
    return fuzz.token_set_ratio(a, b) / 100.0, fuzz.ratio(a, b) / 100.0


def _text_expr() -> object:
    # Must match the indexed expression of ix_lessons_text_trgm exactly.
    return func.lower(Lesson.situation + literal_column("' '") + Lesson.correction)


def _active_filter(tenant_id: int, agent_id: int, now: datetime) -> list[object]:
    return [
        Lesson.tenant_id == tenant_id,
        # Typed as BIGINT so btree_gist can use it as an index condition (the driver would
        # otherwise send a small int, and there is no cross-type GiST operator).
        Lesson.agent_id == cast(literal(agent_id), BigInteger),
        Lesson.status == "active",
        or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
    ]


def neighbour_query(
    session: Session, tenant_id: int, agent_id: int, candidate_text: str, k: int
) -> Select[Any]:
    """The SELECT that fetches neighbour candidates (index-backed pre-filter on Postgres)."""
    query = select(Lesson).where(*_active_filter(tenant_id, agent_id, utcnow()))  # type: ignore[arg-type]
    if session.get_bind().dialect.name != "postgresql":
        return query
    distance = _text_expr().op("<->")(candidate_text.lower())  # type: ignore[attr-defined]
    # Order by the distance alone: a second sort key would stop the index from ordering.
    return query.order_by(distance).limit(k * PREFILTER_FACTOR)


def find_neighbours(
    session: Session,
    tenant_id: int,
    agent_id: int,
    candidate_text: str,
    k: int = 5,
) -> list[Neighbour]:
    """Top-``k`` active, unexpired lessons of this agent by relevance (ties: identity, id)."""
    scored = []
    for lesson in session.scalars(neighbour_query(session, tenant_id, agent_id, candidate_text, k)):
        relevance, identity = score(
            candidate_text, lesson_text(lesson.situation, lesson.correction)
        )
        scored.append(
            Neighbour(
                lesson_id=lesson.id,
                relevance=relevance,
                identity=identity,
                title=lesson.title,
                situation=lesson.situation,
                mistake=lesson.mistake,
                correction=lesson.correction,
                tags=tuple(lesson.tags or ()),
            )
        )
    scored.sort(key=lambda n: (-n.relevance, -n.identity, n.lesson_id))
    return scored[:k]
