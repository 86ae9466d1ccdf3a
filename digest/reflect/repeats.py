"""Exact repeats of lessons this process has written: the neighbour search they can skip."""

from __future__ import annotations

from sqlalchemy.orm import Session

from digest.config import Settings
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.lessons.transition import lesson_by_id
from digest.model.cache import AnswerCache, answer_key
from digest.models import as_utc, utcnow
from digest.reflect.claims import Claimed
from digest.reflect.reconcile import Snapshot, candidate_text
from digest.runtime import runtime
from digest.text import lesson_text, normalise

#: bytes of exact-repeat texts one process keeps (about 190 bytes an entry: some 2,700
#: texts). In the throughput stream (issue 27) none of 2,069 asks hit: the fleet's stored
#: judgements answer an exact repeat before it gets here.
KNOWN_TEXTS_BYTES = 2**19


def known_texts() -> AnswerCache[int]:
    """(agent, a candidate's normalised text) → the lesson that candidate last ended up in,
    in this process (a piece of its runtime). A batch checks the row (active, unexpired, this
    agent, exactly this text) before it uses one, so an entry never decides anything on its
    own: it saves the neighbour search for an exact repeat, whose only possible decision is a
    NOOP on that lesson."""
    return AnswerCache(max_bytes=KNOWN_TEXTS_BYTES)


def text_key(agent_id: int, candidate: Candidate) -> bytes:
    return answer_key("lesson-text", agent_id, normalise(candidate_text(candidate)))


def known_repeats(
    session: Session, claimed: Claimed, clean: list[Candidate], settings: Settings
) -> Snapshot | None:
    """The neighbours of candidates that exactly repeat live lessons (each its own lesson,
    scored identical), or None if any candidate is not such a repeat."""
    if not clean or settings.llm_cache_size == 0:
        return None
    now = utcnow()
    found: list[list[Neighbour]] = []
    for candidate in clean:
        lesson_id = runtime().piece(known_texts).get(text_key(claimed.agent_id, candidate))
        lesson = lesson_by_id(session, lesson_id) if lesson_id is not None else None
        if (
            lesson is None
            or lesson.status != "active"
            or (lesson.tenant_id, lesson.agent_id) != (claimed.tenant_id, claimed.agent_id)
            or (lesson.expires_at is not None and as_utc(lesson.expires_at) <= now)
            or normalise(lesson_text(lesson.situation, lesson.correction))
            != normalise(candidate_text(candidate))
        ):
            return None
        found.append([Neighbour.of(lesson, relevance=1.0, identity=1.0)])
    return Snapshot(epoch=0, neighbours=found, k=settings.reconcile_k, settled=True)
