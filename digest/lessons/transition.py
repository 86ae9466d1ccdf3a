"""The one way a lesson's status or text changes (``transition``), and what every lesson write
shares: the agent's lesson lock, the before/after snapshot, the history row, the epoch bump.

Reconciliation (NOOP / UPDATE / DELETE), promotion, owner commands (delete, disable, enable,
reset), compaction, the sweep's expiry and LESSON.md import all change lessons through
``transition``, so none of them can forget the lock, the audit row or the epoch that tells a
concurrent reconciliation to read its neighbours again.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session, undefer

from digest.lessons.per_transaction import for_transaction, kept
from digest.lessons.plain_rows import add_row, held
from digest.models import (
    Agent,
    Event,
    Lesson,
    LessonEvidence,
    LessonHistory,
    as_utc,
    utcnow,
)


@dataclass(frozen=True)
class StatusChange:
    """One lesson a person asked to change (disable, enable, delete, release): its status
    before and after, ``changed`` False when it needed no change."""

    lesson_id: int
    title: str
    before: str
    after: str
    changed: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def transition(
    session: Session,
    lesson: Lesson,
    *,
    op: str,
    reason: str,
    event: Event | None = None,
    model: str | None = None,
    prompt_hash: str | None = None,
    **changes: Any,
) -> None:
    """Change ``lesson`` (each keyword names a column and its new value) under the agent's
    lesson lock, with a ``lesson_history`` row (``op``, before, after, ``reason``, the event,
    model and prompt that caused it) and the agent's ``lesson_epoch`` moved.

    ``updated_at`` is stamped unless ``changes`` sets it: the weekly sweep recomposes agents
    whose lessons changed since their last version."""
    lock_agent_lessons(session, lesson.agent_id)
    before = snapshot(lesson)
    for name, value in changes.items():
        if not hasattr(Lesson, name):
            raise AttributeError(f"lessons have no column {name!r}")
        setattr(lesson, name, value)
    if "updated_at" not in changes:
        lesson.updated_at = utcnow()
    note_written(session, lesson)
    record_history(
        session, lesson, op, before=before, reason=reason, event=event, model=model,
        prompt_hash=prompt_hash,
    )  # fmt: skip
    bump_epoch(session, lesson.agent_id)


def snapshot(lesson: Lesson) -> dict[str, Any]:
    """The lesson fields an audit row records as before/after."""
    return {
        "title": lesson.title,
        "situation": lesson.situation,
        "mistake": lesson.mistake,
        "correction": lesson.correction,
        "tags": list(lesson.tags or []),
        "trust": lesson.trust,
        "scope": lesson.scope,
        "status": lesson.status,
        "support_count": lesson.support_count,
        "superseded_by_id": lesson.superseded_by_id,
        "expires_at": as_utc(lesson.expires_at).isoformat() if lesson.expires_at else None,
    }


def record_history(
    session: Session,
    lesson: Lesson,
    op: str,
    *,
    before: dict[str, Any] | None,
    reason: str,
    event: Event | None,
    model: str | None,
    prompt_hash: str | None,
) -> None:
    add_row(
        session,
        LessonHistory,
        {
            "lesson_id": lesson.id,
            "tenant_id": lesson.tenant_id,
            "agent_id": lesson.agent_id,
            "op": op,
            "before": before,
            "after": snapshot(lesson),
            "reason": reason,
            "event_id": event.id if event is not None else None,
            "model": model,
            "prompt_hash": prompt_hash,
        },
    )


#: the history reason of a lesson the weekly sweep disabled because its expiry date passed
EXPIRED_REASON = "expired"

#: how the history reason begins of an untrusted lesson the weekly sweep disabled because
#: nothing corroborated it within DIGEST_UNCONFIRMED_TTL_DAYS (``unconfirmed: …``)
UNCONFIRMED_REASON = "unconfirmed"

#: first key of the two-key advisory lock space that lesson writes use (ASCII "ld").
_LOCK_CLASS = 0x6C64


def lock_agent_lessons(session: Session, agent_id: int) -> None:
    """Serialise lesson writes per agent until the transaction ends (Postgres advisory lock;
    SQLite already serialises writers). Released by the server if the worker dies.

    Taken once per transaction: a second call for the same agent in the same transaction
    (``add_lesson`` inside a reflect write that already holds it) costs no round trip."""
    if session.get_bind().dialect.name != "postgresql":
        return
    if not first_in_transaction(session, _HELD_LOCKS, agent_id):
        return
    # The two-int form takes int4 keys; fold large ids into that range.
    key = agent_id % 2_147_483_647
    session.execute(select(func.pg_advisory_xact_lock(_LOCK_CLASS, key)))


#: keys of the agent ids a transaction has done this for (``per_transaction``)
_HELD_LOCKS = "digest_lesson_locks"
_EPOCH_MOVED = "digest_epoch_moved"
CITED = "digest_cited"


def first_in_transaction(session: Session, what: str, key: Hashable) -> bool:
    """True the first time ``what`` is asked for ``key`` in the session's current transaction
    (and remembers it); False after that, until the transaction ends."""
    done: set[Hashable] = for_transaction(session, what, set)
    if key in done:
        return False
    done.add(key)
    return True


#: ORM rows nothing reads back while a lesson write is under way (citations): a flush that only
#: needs a new lesson's id leaves them for the next flush (the audit trail and the run records
#: are plain rows: ``digest.lessons.plain_rows``)
_WRITE_ONLY = (LessonEvidence,)


def flush_for_ids(session: Session) -> None:
    """Flush so that a new row gets its id, leaving the pending citations (``_WRITE_ONLY``)
    and plain rows (``plain_rows.held``) for the session's next flush: a batch of events
    that adds lessons one by one then writes each of those tables in one statement, not one
    per lesson added. Every other flush (a search's, a count's, the commit's) writes them as
    before."""
    later = [row for row in session.new if isinstance(row, _WRITE_ONLY)]
    for row in later:
        session.expunge(row)
    try:
        with held(session):
            session.flush()
    finally:
        session.add_all(later)  # in the order they were added: their ids keep that order


@dataclass
class Written:
    """The lessons a transaction wrote (added, or changed by ``transition``), as of now."""

    #: each lesson once per write, in the order of the writes: a search inside the
    #: transaction lays those written since the one before over its view (``lessons.bank``)
    order: list[Lesson] = field(default_factory=list)
    #: by id: a lesson added but not flushed yet is found here (``lesson_by_id``)
    by_id: dict[int, Lesson] = field(default_factory=dict)


#: key of a transaction's ``Written`` (``per_transaction``)
_WRITTEN = "digest_lessons_written"


def written(session: Session) -> Written:
    """The lessons the session's current transaction wrote."""
    return for_transaction(session, _WRITTEN, Written)


def note_written(session: Session, lesson: Lesson) -> None:
    """Remember that this transaction wrote ``lesson`` (it has its id)."""
    found = written(session)
    found.order.append(lesson)
    found.by_id[lesson.id] = lesson


#: how a lesson about to be written is read: with its vectors (the write adds the event's
#: task to its task vectors, ``vectors.add_task_meaning``, and a search later in the
#: transaction lays it over its view, ``digest.lessons.own_view``), in this round trip
WITH_VECTORS = (undefer(Lesson.cue_embedding), undefer(Lesson.embedding))


def lesson_by_id(session: Session, lesson_id: int) -> Lesson | None:
    """A lesson about to be written, by id (``WITH_VECTORS``): one this transaction added and
    has not flushed yet (its row goes in with the next flush: ``give_id``) is found too."""
    found = written(session).by_id.get(lesson_id)
    if found is not None:
        return found
    return session.get(Lesson, lesson_id, options=WITH_VECTORS)


#: key of the lesson ids a transaction took from the sequence (``per_transaction``)
_IDS = "digest_lesson_ids"


@dataclass
class _Ids:
    """The lesson ids a transaction took from the sequence and has not given yet, and how
    many it took the time before."""

    free: list[int] = field(default_factory=list)
    last: int = 0


#: ids a transaction takes from the lessons' sequence at once, at most: one the first time,
#: then twice as many as the time before (a batch of events adding many lessons pays a few
#: round trips, a transaction adding one wastes none)
IDS_AT_ONCE = 32


def give_id(session: Session, lesson: Lesson) -> None:
    """Give a new lesson (added to the session) its id. PostgreSQL: from the lessons'
    sequence, taken a few at a time per transaction, so that the row itself waits for the
    transaction's next flush (a batch of events then inserts its new lessons, their citations
    and history in a statement per table); under the agent's lesson lock the agent's ids still
    grow in the order its lessons were added. Elsewhere: a flush (``flush_for_ids``)."""
    if session.get_bind().dialect.name != "postgresql":
        flush_for_ids(session)
        return
    ids = for_transaction(session, _IDS, _Ids)
    if not ids.free:
        count = min(IDS_AT_ONCE, 2 * ids.last or 1)
        # on the connection: the session must not flush the new row meanwhile
        ids.free = sorted(
            session.connection().scalars(
                text(
                    "SELECT nextval(pg_get_serial_sequence(:table, 'id'))"
                    " FROM generate_series(1, :count)"
                ),
                {"table": Lesson.__tablename__, "count": count},
            )
        )
        ids.last = count
    lesson.id = ids.free.pop(0)


def bump_epoch(session: Session, agent_id: int) -> None:
    """Every lesson write moves the agent's epoch (optimistic concurrency for reconciliation).

    Once per transaction is enough: other writers cannot see the value before the commit, and
    any value other than the one they read tells them the bank changed."""
    if not first_in_transaction(session, _EPOCH_MOVED, agent_id):
        return
    session.execute(
        update(Agent).where(Agent.id == agent_id).values(lesson_epoch=Agent.lesson_epoch + 1)
    )


def moved_in_transaction(session: Session, agent_id: int) -> bool:
    """Has the session's current transaction written lessons of this agent (moved its epoch,
    not yet committed)?"""
    done: set[Hashable] | None = kept(session, _EPOCH_MOVED)
    return done is not None and agent_id in done
