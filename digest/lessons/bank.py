"""An agent's lessons indexed in memory, kept per process and brought up to date by its
``lesson_epoch`` (issue 13): what ``digest.lessons.neighbours`` searches.

- epoch unchanged: the index is used as it is (no lesson rows read at all);
- epoch moved: only the rows written since the index was built (``updated_at`` within a
  margin) are read and laid over it, hiding the lessons they replace; once that overlay holds
  more than ``DELTA_FOLD`` lessons it is folded into the index in memory (no row read again),
  and when more than ``DELTA_REBUILD`` rows changed at once the index is rebuilt from the bank;
- a transaction that has written the agent's lessons itself (a batch) sees its own writes
  laid over the kept index the same way, from the session's objects, and never keeps what it
  saw beyond itself: it may still roll back (``digest.lessons.own_view``);
- after a write has committed, ``refresh_kept`` brings the kept index up to date, so that the
  agent's next turn finds it current.

A process keeps the indexes of at most ``MAX_AGENTS`` agents and ``DIGEST_KEPT_INDEX_MB``
(``max_kept_bytes``, by ``AgentIndex.nbytes``), least recently searched dropped first; an
index holds each lesson's vector once (int8 codes: ``digest.identity.quantized``) and no row
text but the normalised text and cues ranking reads: a neighbour's title, situation, mistake
and correction are read for the hits a search returns (``digest.lessons.neighbours``), never
kept (``Row``).

Vectors come from ``lessons.embedding`` when their key matches the lesson's text and the
configured model, and are computed otherwise (``digest.lessons.vectors``), so a bank stays
searchable while ``digest lesson reindex`` backfills it.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.identity.embedding import Embedder, cosine_scale, from_bytes
from digest.identity.index import AgentIndex, Entry
from digest.identity.scale import CosineScale
from digest.lessons.vectors import cue_vectors, embedder, vector_key, vectors_for
from digest.logs import get_logger
from digest.models import Agent, Lesson, as_utc, utcnow
from digest.runtime import runtime
from digest.text import lesson_text

log = get_logger("digest.identity")


@dataclass(frozen=True, slots=True)
class Row:
    """What the index keeps of a lesson besides its normalised text, cues and vector: what
    ranking filters on. No text: a neighbour's is read for the hits (issue 27 point 4)."""

    id: int
    scope: str
    contact_id: str | None
    expires_at: datetime | None
    trust: str
    #: the release state's counts (``digest.lessons.release``): pitfalls filters on them
    independent_sources: int = 0
    source_span_s: int = 0
    #: a hash of what a search reads of the lesson (title, texts, tags, fingerprint), so two
    #: rows of one lesson compare unequal when it was rewritten (``digest.lessons.own_view``
    #: lays a rewritten lesson over its view by it); this process's ``hash``, never stored
    text_key: int = 0


#: rows changed at once beyond which the index is rebuilt from the whole bank (read again)
DELTA_REBUILD = 512
#: at most this many (id, stamp) pairs go into an overlay read's NOT IN; more are compared here
KNOWN_IN_SQL = 256
#: overlay entries beyond which the overlay is folded into the kept index, in memory
DELTA_FOLD = 64
#: agents whose index one process keeps, at most
MAX_AGENTS = 64


def max_kept_bytes() -> int:
    """The bytes the kept indexes of one process may hold together (``AgentIndex.nbytes``),
    at most (``DIGEST_KEPT_INDEX_MB``): past it the least recently used agents' indexes are
    dropped (built again when searched). The default, 96 MiB, keeps a worker within 300 MB
    with every other memory full (``docs/internals.md``)."""
    return get_settings().kept_index_mb * 2**20


@dataclass
class _Bank:
    """A kept index: the bank as built, and the overlay of what was written since, as of
    ``epoch``. ``stamps`` holds the ``updated_at`` of the lessons it holds or hides that a
    read of what changed since ``read_at`` may return again (``OVERLAY_MARGIN``)."""

    agent_id: int
    epoch: int
    #: when the rows it holds were last read (the next overlay reads what changed since)
    read_at: datetime
    model: str | None
    index: AgentIndex
    expires: np.ndarray
    stamps: dict[int, datetime] = field(default_factory=dict)
    hidden: frozenset[int] = frozenset()
    delta_index: AgentIndex | None = None
    delta_expires: np.ndarray | None = None

    @property
    def delta(self) -> list[Entry]:
        """The overlay's entries."""
        return self.delta_index.entries if self.delta_index is not None else []

    @property
    def nbytes(self) -> int:
        delta = self.delta_index.nbytes if self.delta_index is not None else 0
        return self.index.nbytes + delta + 8 * len(self.expires) + 150 * len(self.stamps)


@dataclass
class View:
    """An agent's lessons as a search sees them: the kept index, minus what the overlay
    replaces, plus the overlay."""

    bank: _Bank
    embedder: Embedder | None

    @property
    def base(self) -> AgentIndex:
        return self.bank.index

    def parts(self) -> list[tuple[AgentIndex, np.ndarray]]:
        """Each index with the mask of its entries a search may return now: unexpired, and
        in the kept index not replaced by the overlay."""
        now = utcnow().timestamp()
        bank = self.bank
        base = bank.expires > now
        base[_positions(bank.index, bank.hidden)] = False
        found = [(bank.index, base)]
        if bank.delta_index is not None and bank.delta_expires is not None and bank.delta:
            found.append((bank.delta_index, bank.delta_expires > now))
        return found


def _positions(index: AgentIndex, lesson_ids: frozenset[int]) -> np.ndarray:
    """The positions of those of ``lesson_ids`` the index holds (its ids are ascending)."""
    if not lesson_ids or not len(index):
        return np.zeros(0, np.int64)
    wanted = np.fromiter(lesson_ids, np.int64, count=len(lesson_ids))
    at = np.minimum(np.searchsorted(index.ids, wanted), len(index) - 1)
    return at[index.ids[at] == wanted]


class _Banks:
    """The indexes this process keeps (a piece of its runtime), least recently used first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: (database, agent id) → its kept index
        self.by_agent: OrderedDict[tuple[str, int], _Bank] = OrderedDict()


def forget(agent_id: int | None = None) -> None:
    """Drop this process's index of one agent (or of all): tests, and bulk loads that bypass
    the lesson writes."""
    banks = runtime().piece(_Banks)
    with banks.lock:
        for key in [key for key in banks.by_agent if agent_id is None or key[1] == agent_id]:
            del banks.by_agent[key]


def _rows_query(agent_id: int) -> Any:
    """The columns an index keeps, as plain rows: a search inside a batch's transaction must
    not fill that session with thousands of ORM objects to track."""
    return (
        select(
            Lesson.id, Lesson.title, Lesson.situation, Lesson.mistake, Lesson.correction,
            Lesson.tags, Lesson.fingerprint, Lesson.scope, Lesson.contact_id, Lesson.expires_at,
            Lesson.trust, Lesson.status, Lesson.embedding, Lesson.embedding_key,
            Lesson.updated_at, Lesson.cues, Lesson.cue_embedding, Lesson.cue_embedding_key,
            Lesson.independent_sources, Lesson.source_span_s,
        )
        .where(Lesson.agent_id == agent_id)
        .order_by(Lesson.id)
    )  # fmt: skip


def _row(lesson: Any) -> Row:
    # the scope and trust words are one object each per process, not one per kept lesson
    return Row(
        lesson.id, sys.intern(lesson.scope), lesson.contact_id,
        as_utc(lesson.expires_at) if lesson.expires_at is not None else None,
        sys.intern(lesson.trust), lesson.independent_sources or 0, lesson.source_span_s or 0,
        hash((lesson.title, lesson.situation, lesson.mistake, lesson.correction,
              tuple(lesson.tags or ()), lesson.fingerprint)),
    )  # fmt: skip


def _entries(
    lessons: Sequence[Any], found: Embedder | None, *, every_status: bool = False
) -> list[Entry]:
    """Entries of active lessons (of all of them with ``every_status``), with their stored
    vectors, or vectors computed now for the ones whose key is stale (new text, another
    model)."""
    active = [lesson for lesson in lessons if every_status or lesson.status == "active"]
    texts = [lesson_text(lesson.situation, lesson.correction) for lesson in active]
    model = found.name if found is not None else None
    vectors: list[np.ndarray | None] = [None] * len(active)
    if found is not None:
        missing = []
        for i, (lesson, text) in enumerate(zip(active, texts, strict=True)):
            if lesson.embedding is not None and lesson.embedding_key == vector_key(
                found.name, text
            ):
                vectors[i] = from_bytes(lesson.embedding)
            else:
                missing.append(i)
        computed = vectors_for(found, [texts[i] for i in missing]) if missing else []
        for i, vector in zip(missing, computed or [], strict=False):
            vectors[i] = vector
    return [
        Entry(
            lesson.id,
            text,
            lesson.fingerprint,
            vector,
            meta=_row(lesson),
            # what a keyword search matches besides the text: the title, the tags, and the
            # cues (the tasks' words and meaning, which no agent reads: digest.lessons.cues)
            extra=" ".join((lesson.title, *(lesson.tags or ()))),
            cues=" ".join(lesson.cues or ()),
            cue_vectors=cue_vectors(
                lesson.cue_embedding,
                lesson.cue_embedding_key,
                model,
                vector.shape[0] if vector is not None else 0,
            ),
        )
        for lesson, text, vector in zip(active, texts, vectors, strict=True)
    ]


def _recent(stamps: dict[int, datetime], read_at: datetime) -> dict[int, datetime]:
    """The stamps a read of the rows changed since ``read_at`` can still return: a row whose
    ``updated_at`` is older than that read's margin comes back only once changed again."""
    since = read_at - OVERLAY_MARGIN
    return {lesson_id: at for lesson_id, at in stamps.items() if at >= since}


def _expiries(index: AgentIndex) -> np.ndarray:
    return np.array(
        [
            e.meta.expires_at.timestamp() if e.meta.expires_at is not None else np.inf
            for e in index.entries
        ],
        dtype=np.float64,
    )


def _build(session: Session, agent_id: int, epoch: int, found: Embedder | None) -> _Bank:
    started = utcnow()
    lessons = session.execute(_rows_query(agent_id).where(Lesson.status == "active")).all()
    index = AgentIndex(_entries(lessons, found), cosine_scale(found))
    stamps = _recent({lesson.id: as_utc(lesson.updated_at) for lesson in lessons}, started)
    model = found.name if found else None
    return _Bank(agent_id, epoch, started, model, index, _expiries(index), stamps)


def lessons_index(
    session: Session, agent_id: int, lesson_ids: Sequence[int], found: Embedder | None
) -> AgentIndex:
    """An index of exactly these lessons of the agent, whatever their status now, built as the
    kept index is: the lessons a learning version folds that the agent's index no longer
    holds (superseded, disabled, expired since), for a replay of that version."""
    if not lesson_ids:
        return AgentIndex()
    rows = session.execute(_rows_query(agent_id).where(Lesson.id.in_(list(lesson_ids)))).all()
    return AgentIndex(_entries(rows, found, every_status=True), cosine_scale(found))


#: how far before its last read a kept index looks again for changed rows: a write is stamped
#: when its transaction starts and seen when it commits (lesson writes hold no model call)
OVERLAY_MARGIN = timedelta(seconds=120)


def _overlaid(session: Session, bank: _Bank, epoch: int, found: Embedder | None) -> _Bank | None:
    """``bank`` with the rows changed since it was last read laid over it (None: too many,
    rebuild). One read: the rows stamped since then, but those whose (id, stamp) the bank
    already holds (unchanged, not read again)."""
    started = utcnow()
    since = bank.read_at - OVERLAY_MARGIN
    known = [(lesson_id, at) for lesson_id, at in bank.stamps.items() if at >= since]
    if len(known) > KNOWN_IN_SQL:
        # many rows stamped in the margin (a bulk import, a reset, a seeded bank: one
        # transaction stamps them all alike): their (id, stamp) pairs as one NOT IN exceed
        # what a statement may hold (PostgreSQL's stack depth, SQLite's variables); read the
        # stamps alone and then the rows that changed
        stamped = session.execute(
            select(Lesson.id, Lesson.updated_at).where(
                Lesson.agent_id == bank.agent_id, Lesson.updated_at >= since
            )
        ).all()
        changed = [i for i, at in stamped if bank.stamps.get(i) != as_utc(at)]
        if len(changed) + len(bank.hidden) > DELTA_REBUILD:
            return None
        query = _rows_query(bank.agent_id).where(Lesson.id.in_(changed))
        rows = session.execute(query).all() if changed else []
    else:
        query = _rows_query(bank.agent_id).where(Lesson.updated_at >= since)
        if known:
            query = query.where(tuple_(Lesson.id, Lesson.updated_at).not_in(known))
        rows = session.execute(query).all()
    if not rows:
        return replace(bank, epoch=epoch, read_at=started)
    if len(rows) + len(bank.hidden) > DELTA_REBUILD:
        return None
    stamps = dict(bank.stamps)
    for lesson in rows:
        stamps[lesson.id] = as_utc(lesson.updated_at)
    return _laid_over(bank, rows, found, epoch, started, stamps)


def _laid_over(
    bank: _Bank,
    rows: Sequence[Any],
    found: Embedder | None,
    epoch: int,
    read_at: datetime,
    stamps: dict[int, datetime],
) -> _Bank:
    """``bank`` with ``rows`` (lessons, or rows of their columns) laid over it: they hide
    the entries they replace, and the active ones join the overlay, folded into the kept
    index once it holds more than ``DELTA_FOLD``."""
    changed = [lesson.id for lesson in rows]
    hidden = bank.hidden | frozenset(changed)
    scale = cosine_scale(found)
    # the overlay: its entries the changed rows do not replace, and the changed rows' own
    written = AgentIndex(_entries(rows, found), scale)
    parts = [(written, np.ones(len(written), bool))]
    if bank.delta_index is not None:
        parts.insert(0, (bank.delta_index, ~np.isin(bank.delta_index.ids, changed)))
    delta = AgentIndex.combined(parts, scale)
    if len(delta) > DELTA_FOLD:
        return _folded(bank, epoch, read_at, stamps, hidden, delta, scale)
    return replace(
        bank, epoch=epoch, read_at=read_at, stamps=stamps, hidden=hidden, delta_index=delta,
        delta_expires=_expiries(delta),
    )  # fmt: skip


def _folded(
    bank: _Bank,
    epoch: int,
    read_at: datetime,
    stamps: dict[int, datetime],
    hidden: frozenset[int],
    delta: AgentIndex,
    scale: CosineScale,
) -> _Bank:
    """The overlay folded into the kept index, in memory: the entries it did not replace and
    the overlay's, as one index made of their arrays (no row read, no text indexed again).
    The overlay is extended on each write, so it is kept small: a write costs its own rows
    indexed, and the whole bank's arrays are copied once every ``DELTA_FOLD`` changes."""
    keep = np.ones(len(bank.index), bool)
    keep[_positions(bank.index, hidden)] = False
    index = AgentIndex.combined([(bank.index, keep), (delta, np.ones(len(delta), bool))], scale)
    return _Bank(
        bank.agent_id, epoch, read_at, bank.model, index, _expiries(index),
        _recent(stamps, read_at),
    )  # fmt: skip


def agent_view(
    session: Session, agent_id: int, settings: Settings | None = None, *, epoch: int | None = None
) -> View:
    """The agent's lessons as of this session: the kept index when the epoch has not moved,
    otherwise the kept index with the rows written since it was built laid over it.
    ``epoch`` is the agent's ``lesson_epoch`` when the caller read it already (in this
    session, with the agent's row). A transaction that has written the agent's lessons
    searches its own view instead (``digest.lessons.own_view``)."""
    settings = settings or get_settings()
    found = embedder(settings)
    model = found.name if found else None
    if epoch is None:
        epoch = int(session.scalar(select(Agent.lesson_epoch).where(Agent.id == agent_id)) or 0)
    key = bank_key(session, agent_id)
    bank = _kept_now(key)
    if bank is None or bank.model != model:
        bank = _build(session, agent_id, epoch, found)
    elif bank.epoch != epoch:
        bank = _overlaid(session, bank, epoch, found) or _build(session, agent_id, epoch, found)
    else:
        return View(bank, found)
    _keep(key, bank)
    return View(bank, found)


def bank_key(session: Session, agent_id: int) -> tuple[str, int]:
    """What a kept index is kept under: (the session's database, the agent)."""
    return (session.get_bind().engine.url.render_as_string(hide_password=True), agent_id)


def refresh_kept(agent_id: int, settings: Settings | None = None) -> None:
    """After a write of the agent's lessons has committed: bring this process's kept index of
    the agent up to date now, if it keeps one, so that the next search (an agent's
    ``pitfalls`` in the embedded mode, the next reflection) finds it current instead of
    reading the overlay on its turn. Best effort: a failure is logged, and that search
    refreshes it."""
    from digest.db import get_engine, read_scope

    settings = settings or get_settings()
    url = get_engine(settings.database_url).url.render_as_string(hide_password=True)
    banks = runtime().piece(_Banks)
    with banks.lock:
        kept = (url, agent_id) in banks.by_agent
    if not kept:
        return  # never searched here: building it now would be work nobody asked for
    try:
        with read_scope(settings.database_url) as session:
            agent_view(session, agent_id, settings)
    except Exception as exc:
        log.warning("index_refresh_failed", agent_id=agent_id, error=f"{type(exc).__name__}")


def _keep(key: tuple[str, int], bank: _Bank) -> None:
    """Keep ``bank`` as the most recently used; drop the least recently used ones past
    ``MAX_AGENTS`` indexes or ``max_kept_bytes()`` (never the one just kept)."""
    banks = runtime().piece(_Banks)
    limit = max_kept_bytes()
    with banks.lock:
        banks.by_agent[key] = bank
        banks.by_agent.move_to_end(key)
        held = sum(kept.nbytes for kept in banks.by_agent.values())
        while len(banks.by_agent) > 1 and (len(banks.by_agent) > MAX_AGENTS or held > limit):
            _, dropped = banks.by_agent.popitem(last=False)
            held -= dropped.nbytes


def kept_sizes() -> tuple[int, int]:
    """(entries, bytes) of the indexes this process keeps (``AgentIndex.nbytes``)."""
    banks = runtime().piece(_Banks)
    with banks.lock:
        kept = list(banks.by_agent.values())
    return sum(len(b.index) + len(b.delta) for b in kept), sum(b.nbytes for b in kept)


def kept_view(url: str, agent_id: int, settings: Settings | None = None) -> View | None:
    """The agent's kept index, read from nothing (``None``: none, or of another model); the
    caller checks its ``bank.epoch`` in its one read (``digest.lessons.turn``)."""
    found = embedder(settings or get_settings())
    bank = _kept_now((url, agent_id))
    if bank is None or bank.model != (found.name if found else None):
        return None
    return View(bank, found)


def _kept_now(key: tuple[str, int]) -> _Bank | None:
    """The kept index of ``key`` (database, agent id), now the most recently used."""
    banks = runtime().piece(_Banks)
    with banks.lock:
        bank = banks.by_agent.get(key)
        if bank is not None:
            banks.by_agent.move_to_end(key)
        return bank
