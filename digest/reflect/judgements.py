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

A batch of one agent's events (models in process, one transaction under the agent's lesson
lock: ``digest.reflect.batch``) reads the judgements of all its signatures, and their lessons,
once (``read_batch``); its events' lookups are answered from that read and from what the
batch's earlier events stored, and what they store and reuse is written once, before the
batch commits (``write_batch``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from digest.config import get_settings
from digest.db import read_scope
from digest.fingerprint import event_signature
from digest.lessons.neighbours import Neighbour
from digest.lessons.per_transaction import drop, keep, kept
from digest.lessons.store import Candidate
from digest.lessons.transition import WITH_VECTORS, written
from digest.logs import get_logger
from digest.model.cache import AnswerCache, answer_key
from digest.models import Agent, Judgement, Lesson, as_utc, utcnow
from digest.reflect.claims import Claimed
from digest.reflect.reconcile import Snapshot
from digest.reflect.screen import event_reason
from digest.runtime import runtime

log = get_logger("digest.reflect")


def signature(claimed: Claimed) -> str | None:
    """The event's signature, or None when it has none (nothing to share). An operator's
    edit's is the rules its diff teaches: found once per content in this process
    (``known_signatures``), so that an exact repeat takes no diff."""
    if claimed.kind == "manual_lesson":
        return None
    parts = (claimed.kind, claimed.payload, claimed.trust, claimed.instructions or "")
    if claimed.kind != "operator_edit":
        return event_signature(*parts)
    remembered = runtime().piece(known_signatures)
    key, size = answer_key("signature", *parts), get_settings().llm_cache_size
    found, _ = remembered.get_or_compute(key, lambda: event_signature(*parts) or "", size)
    return found or None


#: bytes an operator edit's signatures hold in a process, at most: an entry is a 32-byte answer
#: key and a fixed-length signature (``digest.fingerprint``'s ``event:`` and 16 hex digits),
#: about 240 bytes, so ``DIGEST_LLM_CACHE_SIZE``'s default 4,096 entries are 0.94 MiB (the
#: answer caches' 16 MiB bound is sized for model answers of up to 4 KB, which this never holds)
SIGNATURES_BYTES = 2**20


def known_signatures() -> AnswerCache[str]:
    """An operator edit's content → its signature ("": none), in this process (a piece of
    its runtime)."""
    return AnswerCache(max_bytes=SIGNATURES_BYTES)


@dataclass(frozen=True)
class Reused:
    """A stored judgement that stands for this event."""

    #: None: stored by an earlier event of the same batch, not written yet (``Batch``)
    judgement_id: int | None
    #: the event's signature (with the agent, the model and the prompt: the judgement's key)
    key: str
    skip_reason: str | None
    #: the lessons it produced, as candidates (their own text and fingerprint), and the
    #: snapshot that makes each the NOOP target of its own candidate
    candidates: list[Candidate]
    snapshot: Snapshot | None
    #: read through this transaction's ``Batch``: its reuse is counted there
    batched: bool = False


def lookup(
    session: Session | str, claimed: Claimed, model: str, prompt_hash: str, k: int
) -> Reused | None:
    """A stored judgement of this event's signature that still holds, or None. ``session``
    is the caller's (a batch sees its own judgements) or a database URL to read from."""
    key = _signature_in(session, claimed)
    if key is None:
        return None
    if claimed.trust == "low" and event_reason(claimed.payload) is not None:
        return None  # a tainted run is screened and quarantined the normal way
    if not isinstance(session, str):
        batch = _batch(session, claimed.agent_id, model, prompt_hash)
        if batch is not None and key in batch.found:
            return batch.lookup(session, claimed, key, k)
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
        return Reused(found.id, key, found.reason or "judged before", [], None)
    ids = list(found.lesson_ids or ())
    lessons = _live(_read_lessons(session, claimed.agent_id, ids), ids)
    return _reused(found.id, key, lessons, int(epoch or 0), k)


def _reused(
    judgement_id: int | None, key: str, lessons: list[Lesson] | None, epoch: int, k: int
) -> Reused | None:
    """A judgement with lessons as it stands for an event (None: a lesson is gone)."""
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
        epoch=epoch,
        neighbours=[[Neighbour.of(lesson, relevance=1.0, identity=1.0)] for lesson in lessons],
        k=k,
        settled=True,
    )
    return Reused(judgement_id, key, None, candidates, snapshot)


def _read_lessons(session: Session, agent_id: int, ids: Sequence[int]) -> dict[int, Lesson]:
    """These lessons of the agent, by id: those this transaction wrote as the session holds
    them (a new one's row may not be flushed yet), the others in one round trip."""
    mine = written(session).by_id
    found = {i: mine[i] for i in ids if i in mine and mine[i].agent_id == agent_id}
    missing = [i for i in ids if i not in found]
    if missing:
        found.update(
            (lesson.id, lesson)
            for lesson in session.scalars(
                select(Lesson)
                .where(Lesson.id.in_(missing), Lesson.agent_id == agent_id)
                # with their vectors: the NOOP that cites them writes them (``WITH_VECTORS``)
                .options(*WITH_VECTORS)
            )
        )
    return found


def _live(rows: dict[int, Lesson], ids: Sequence[int]) -> list[Lesson] | None:
    """The judgement's lessons (``rows``, by id) in its order, if every one is still an
    active, unexpired lesson of this agent."""
    if not ids:
        return None
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
    """Store (or replace) this event's judgement, in the caller's transaction (in a batch:
    when the batch is written, ``write_batch``)."""
    key = _signature_in(session, claimed)
    if key is None or model is None:
        return
    values = _values(claimed, key, model, prompt_hash, skip_reason, lesson_ids)
    batch = _batch(session, claimed.agent_id, model, prompt_hash)
    if batch is not None:
        batch.remember(key, values)
        return
    _upsert(session, [values])


def _values(
    claimed: Claimed,
    key: str,
    model: str,
    prompt_hash: str,
    skip_reason: str | None,
    lesson_ids: Sequence[int],
) -> dict[str, Any]:
    return {
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


def _upsert(session: Session, rows: list[dict[str, Any]]) -> None:
    """Store (or replace) judgements, one statement (rows of distinct keys)."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(Judgement)
    session.connection().execute(
        statement.on_conflict_do_update(
            index_elements=["agent_id", "signature", "model", "prompt_hash"],
            set_={
                name: statement.excluded[name]
                for name in ("verdict", "reason", "lesson_ids", "event_id", "created_at")
            },
        ),
        rows,
    )


def count_reuse(session: Session, reused: Reused) -> None:
    """One more event stood on this judgement (in a batch: counted when it is written)."""
    batch = _batch_of(session) if reused.batched else None
    if batch is not None:
        batch.reused[reused.key] += 1
        return
    session.execute(
        update(Judgement)
        .where(Judgement.id == reused.judgement_id)
        .values(reused=Judgement.reused + 1)
        .execution_options(synchronize_session=False)
    )


# --- a batch's judgements ------------------------------------------------------------------
# A batch of one agent's events (models in process, one transaction under the agent's lesson
# lock) reads the judgements of all its events' signatures, and their lessons, in two round
# trips; what its events store and reuse is written once, when the batch's events are done.


@dataclass
class Batch:
    """The judgements of one batch's signatures as read under the lock (None: none stored),
    the lessons they name (held here, so the session keeps them), and what the batch's
    events stored or reused since, not yet written."""

    agent_id: int
    model: str
    prompt_hash: str
    found: dict[str, Judgement | None]
    lessons: dict[int, Lesson]
    #: each event's signature, by event id (an operator edit's takes a diff: found once)
    signatures: dict[int, str | None] = field(default_factory=dict)
    remembered: dict[str, dict[str, Any]] = field(default_factory=dict)
    reused: Counter[str] = field(default_factory=Counter)

    def lookup(self, session: Session, claimed: Claimed, key: str, k: int) -> Reused | None:
        stored = self.remembered.get(key)
        if stored is not None:
            verdict, reason, ids, judgement_id = (
                stored["verdict"], stored["reason"], list(stored["lesson_ids"]), None,
            )  # fmt: skip
        else:
            found = self.found[key]
            if found is None:
                return None
            verdict, reason, ids = found.verdict, found.reason, list(found.lesson_ids or ())
            judgement_id = found.id
        if verdict == "skip":
            return Reused(judgement_id, key, reason or "judged before", [], None, batched=True)
        rows = {i: self.lessons[i] for i in ids if i in self.lessons}
        # a lesson an earlier event of the batch wrote: this session holds it
        rows.update(_read_lessons(session, claimed.agent_id, [i for i in ids if i not in rows]))
        # the snapshot's epoch is not checked under the lock (``core.Held``)
        reused = _reused(judgement_id, key, _live(rows, ids), 0, k)
        return replace(reused, batched=True) if reused is not None else None

    def remember(self, key: str, values: dict[str, Any]) -> None:
        self.remembered[key] = values
        self.found.setdefault(key, None)


#: key of a transaction's batch of judgements (``digest.lessons.per_transaction``)
_BATCH = "digest_judgements_batch"


def read_batch(session: Session, batch: Sequence[Claimed], model: str, prompt_hash: str) -> None:
    """Read the judgements of ``batch``'s signatures (one agent's events) and their lessons,
    for ``lookup`` in this transaction; what the events store or reuse is kept for
    ``write_batch``."""
    signatures = {claimed.event_id: signature(claimed) for claimed in batch}
    keys = sorted({key for key in signatures.values() if key is not None})
    agent_id = batch[0].agent_id
    found: dict[str, Judgement | None] = dict.fromkeys(keys)
    if keys:
        for judgement in session.scalars(
            select(Judgement).where(
                Judgement.agent_id == agent_id,
                Judgement.signature.in_(keys),
                Judgement.model == model,
                Judgement.prompt_hash == prompt_hash,
            )
        ):
            found[judgement.signature] = judgement
    ids = sorted(
        {
            i
            for judgement in found.values()
            if judgement is not None and judgement.verdict != "skip"
            for i in judgement.lesson_ids or ()
        }
    )
    lessons = _read_lessons(session, agent_id, ids)
    read = Batch(agent_id, model, prompt_hash, found, lessons, signatures)
    keep(session, _BATCH, read)


def write_batch(session: Session) -> None:
    """Write what the batch's events stored and reused (``read_batch``), in its transaction:
    the judgements stored in one statement, then the reuse counts in one."""
    batch = _batch_of(session)
    drop(session, _BATCH)
    if batch is None:
        return
    if batch.remembered:
        _upsert(session, list(batch.remembered.values()))
    if batch.reused:
        session.connection().execute(
            update(Judgement)
            .where(
                Judgement.agent_id == batch.agent_id,
                Judgement.signature == bindparam("key"),
                Judgement.model == batch.model,
                Judgement.prompt_hash == batch.prompt_hash,
            )
            .values(reused=Judgement.reused + bindparam("times")),
            [{"key": key, "times": times} for key, times in sorted(batch.reused.items())],
        )


def _signature_in(session: Session | str, claimed: Claimed) -> str | None:
    """``signature``, as the session's batch found it when it read its judgements."""
    batch = _batch_of(session) if not isinstance(session, str) else None
    if batch is not None and claimed.event_id in batch.signatures:
        return batch.signatures[claimed.event_id]
    return signature(claimed)


def _batch_of(session: Session) -> Batch | None:
    batch: Batch | None = kept(session, _BATCH)
    return batch


def _batch(session: Session, agent_id: int, model: str | None, prompt_hash: str) -> Batch | None:
    """This transaction's batch, if it was read for this agent, model and prompt version."""
    batch = _batch_of(session)
    if batch is None or (batch.agent_id, batch.model, batch.prompt_hash) != (
        agent_id, model, prompt_hash,
    ):  # fmt: skip
        return None
    return batch
