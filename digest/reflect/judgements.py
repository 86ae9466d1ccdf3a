"""The fleet-wide reflection cache (issue 13): a judgement stored in the database, reused by
any worker for a later event with the same signature.

An event's signature (``digest.fingerprint.event_signature``) is what its judgement
depends on with ids and wording aside: the failures of a run by their fingerprints, an edit
by the rule it teaches, an owner's question with its exact answer; with the event's trust
and the agent's learning instructions. A judgement is keyed by (agent, signature, model,
prompt version): a new model or a new prompt judges again.

A reused judgement makes no model call: a skip is a skip again; lessons are cited again
(NOOP: support and evidence) through the normal reconcile and apply path, so the trust rules
hold for it as for any event (an untrusted run's text is still screened first, and a tainted
run is never answered from the cache). A judgement whose lessons are no longer all active
(superseded, deleted, disabled, expired) is not reused: the event is judged afresh and the
new judgement replaces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, undefer

from digest.db import read_scope
from digest.fingerprint import event_signature
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.models import Agent, Judgement, Lesson, as_utc, utcnow
from digest.reflect.claims import Claimed
from digest.reflect.reconcile import Snapshot
from digest.reflect.screen import event_reason

log = get_logger("digest.reflect")


def signature(claimed: Claimed) -> str | None:
    """The event's signature, or None when it has none (nothing to share)."""
    if claimed.kind == "manual_lesson":
        return None
    return event_signature(claimed.kind, claimed.payload, claimed.trust, claimed.instructions or "")


@dataclass(frozen=True)
class Reused:
    """A stored judgement that stands for this event."""

    judgement_id: int
    skip_reason: str | None
    #: the lessons it produced, as candidates (their own text and fingerprint), and the
    #: snapshot that makes each the NOOP target of its own candidate
    candidates: list[Candidate]
    snapshot: Snapshot | None


def lookup(
    session: Session | str, claimed: Claimed, model: str, prompt_hash: str, k: int
) -> Reused | None:
    """A stored judgement of this event's signature that still holds, or None. ``session``
    is the caller's (a batch sees its own judgements) or a database URL to read from."""
    key = signature(claimed)
    if key is None:
        return None
    if claimed.trust == "low" and event_reason(claimed.payload) is not None:
        return None  # a tainted run is screened and quarantined the normal way
    if not isinstance(session, str):
        return _lookup(session, claimed, key, model, prompt_hash, k)
    try:
        with read_scope(session) as reader:
            return _lookup(reader, claimed, key, model, prompt_hash, k)
    except SQLAlchemyError as exc:
        # A miss, not a failure: the event is judged (the write that follows needs the
        # database anyway, and reports the fault there).
        log.warning("judgement_lookup_failed", error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def _lookup(
    session: Session, claimed: Claimed, key: str, model: str, prompt_hash: str, k: int
) -> Reused | None:
    # the agent's lesson epoch with the judgement, in one round trip (read before its lessons:
    # a snapshot's epoch is never newer than what it read)
    epoch_now = select(Agent.lesson_epoch).where(Agent.id == claimed.agent_id).scalar_subquery()
    row = session.execute(
        select(Judgement, epoch_now).where(
            Judgement.agent_id == claimed.agent_id,
            Judgement.signature == key,
            Judgement.model == model,
            Judgement.prompt_hash == prompt_hash,
        )
    ).first()
    if row is None:
        return None
    found, epoch = row
    if found.verdict == "skip":
        return Reused(found.id, found.reason or "judged before", [], None)
    lessons = _live(session, claimed, list(found.lesson_ids or ()))
    if lessons is None:
        return None
    candidates = [
        Candidate(
            lesson.situation,
            lesson.correction,
            lesson.mistake,
            tuple(lesson.tags or ()),
            lesson.title,
            fingerprint=lesson.fingerprint,
        )
        for lesson in lessons
    ]
    snapshot = Snapshot(
        epoch=int(epoch or 0),
        neighbours=[[Neighbour.of(lesson, relevance=1.0, identity=1.0)] for lesson in lessons],
        k=k,
        settled=True,
    )
    return Reused(found.id, None, candidates, snapshot)


def _live(session: Session, claimed: Claimed, ids: Sequence[int]) -> list[Lesson] | None:
    """The judgement's lessons in its order, if every one is still an active, unexpired
    lesson of this agent."""
    if not ids:
        return None
    rows = {
        lesson.id: lesson
        for lesson in session.scalars(
            select(Lesson)
            .where(Lesson.id.in_(list(ids)), Lesson.agent_id == claimed.agent_id)
            # with their task vectors: the NOOP that cites them adds this event's task
            .options(undefer(Lesson.cue_embedding))
        )
    }
    now = utcnow()
    lessons = [rows.get(i) for i in ids]
    if any(
        lesson is None
        or lesson.status != "active"
        or (lesson.expires_at is not None and as_utc(lesson.expires_at) <= now)
        for lesson in lessons
    ):
        return None
    return [lesson for lesson in lessons if lesson is not None]


def remember(
    session: Session,
    claimed: Claimed,
    model: str | None,
    prompt_hash: str,
    *,
    skip_reason: str | None = None,
    lesson_ids: Sequence[int] = (),
) -> None:
    """Store (or replace) this event's judgement, in the caller's transaction."""
    key = signature(claimed)
    if key is None or model is None:
        return
    values = {
        "agent_id": claimed.agent_id,
        "signature": key,
        "model": model,
        "prompt_hash": prompt_hash,
        "verdict": "skip" if skip_reason is not None else "lessons",
        "reason": skip_reason,
        "lesson_ids": list(lesson_ids),
        "event_id": claimed.event_id,
        "created_at": utcnow(),
    }
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(Judgement).values(**values)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["agent_id", "signature", "model", "prompt_hash"],
            set_={
                name: statement.excluded[name]
                for name in ("verdict", "reason", "lesson_ids", "event_id", "created_at")
            },
        )
    )


def count_reuse(session: Session, judgement_id: int) -> None:
    session.execute(
        update(Judgement)
        .where(Judgement.id == judgement_id)
        .values(reused=Judgement.reused + 1)
        .execution_options(synchronize_session=False)
    )
