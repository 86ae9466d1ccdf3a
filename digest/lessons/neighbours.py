"""Neighbour search: the active lessons of one agent most like a text (issue 13).

Hybrid retrieval over one in-memory index per agent per process (``digest.identity.index``):
the lexical term index ∪ the cosine top-k of the lessons' embeddings, scored together, the
lessons with the candidate's fingerprint always first. Reconciliation, the owner's
``digest lesson similar`` and ``pitfalls`` all read it.

The index is kept per process and refreshed by the agent's ``lesson_epoch``, which every
lesson write moves (``digest.lessons.bank``: ``agent_view``, ``refresh_kept``; named here too
for their readers); a transaction that has written the agent's lessons searches its own view
(``digest.lessons.own_view``): ``agent_view`` here chooses. The index keeps no lesson's title,
situation, mistake or correction (what ranking does not read): those of the hits are read when
a search returns them, in one round trip for all the searches of a batch
(``find_neighbours_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.fingerprint import states_a_fact
from digest.identity.embedding import Embedder
from digest.identity.index import Hit, sort_key
from digest.lessons import bank
from digest.lessons.bank import DELTA_FOLD, Row, View, _Banks, forget, lessons_index, refresh_kept
from digest.lessons.own_view import own_view
from digest.lessons.per_transaction import for_transaction
from digest.lessons.transition import moved_in_transaction, written
from digest.lessons.vectors import vectors_for
from digest.models import Agent, Lesson
from digest.runtime import runtime

__all__ = [
    "DELTA_FOLD", "AgentRead", "Neighbour", "Row", "StoredLesson", "View", "_Banks",
    "agent_view", "embed_probes", "find_neighbours", "find_neighbours_of", "forget",
    "lessons_index", "read_agent",
    "read_agent_held", "refresh_kept", "search_view", "vector_soon",
]  # fmt: skip


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
    fingerprint: str | None = None
    #: cosine of the embeddings (None: no vectors)
    cosine: float | None = None
    #: the same fingerprint as the text searched for
    same_fingerprint: bool = False
    #: the lexical relevance alone
    lexical: float | None = None

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
            fingerprint=getattr(lesson, "fingerprint", None),
        )


def probe_vector(view: View, text: str) -> np.ndarray | None:
    vectors = vectors_for(view.embedder, [text])
    return vectors[0] if vectors else None


class _Embedding:
    """One thread that embeds prompts while the caller reads the database (a piece of the
    runtime; made only for an embedder that is not ``inline``)."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="digest-embed")

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def vector_soon(found: Embedder | None, text: str) -> Callable[[], np.ndarray | None]:
    """``text``'s vector, started now: a function that returns it (None without an embedder
    or when it failed, logged). An ``inline`` embedder (the static table: microseconds) is
    run at once; any other on a thread of its own, so that the caller's database reads do not
    wait for it nor it for them."""
    if found is None or not text:
        return lambda: None
    if getattr(found, "inline", False):
        vectors = vectors_for(found, [text])
        vector = vectors[0] if vectors else None
        return lambda: vector
    pending = runtime().piece(_Embedding).pool.submit(vectors_for, found, [text])

    def result() -> np.ndarray | None:
        vectors = pending.result()
        return vectors[0] if vectors else None

    return result


def search_view(
    view: View,
    text: str,
    k: int,
    *,
    fingerprint: str | None = None,
    mode: str = "hybrid",
    vector: np.ndarray | None = None,
    others_of_kind: bool = True,
    siblings: Sequence[str] = (),
) -> list[Hit]:
    if vector is None and mode == "hybrid" and _known_failure(view, fingerprint):
        # The same failure, edit rule or manual lesson is already a lesson: it ranks first
        # and the decision is a NOOP on it; no vector is needed to find it.
        mode = "lexical"
    if vector is None and mode != "lexical":
        vector = probe_vector(view, text)
    hits: list[Hit] = []
    for index, allowed in view.parts():
        hits.extend(
            index.search(
                text, vector, k, fingerprint=fingerprint, mode=mode, allowed=allowed,
                others_of_kind=others_of_kind, siblings=siblings,
            )
        )  # fmt: skip
    hits.sort(key=sort_key)
    return hits[:k]


@dataclass(frozen=True)
class AgentRead:
    """The agent's lesson epoch and tenant, read once in a transaction that holds the agent's
    lesson lock (neither moves while it is held, but by the transaction's own writes): the
    searches it makes before its next write need not read them again."""

    epoch: int
    tenant_id: int


def read_agent(session: Session, agent_id: int) -> AgentRead | None:
    """One round trip: the agent's lesson epoch and tenant (None: no such agent)."""
    row = session.execute(
        select(Agent.lesson_epoch, Agent.tenant_id).where(Agent.id == agent_id)
    ).first()
    return None if row is None else AgentRead(int(row.lesson_epoch or 0), int(row.tenant_id))


#: key of a transaction's reads (``per_transaction``): agent id → (its first read, whether
#: the transaction had moved the agent's epoch by then)
_HELD_READS = "digest_agent_reads"


def read_agent_held(session: Session, agent_id: int) -> AgentRead | None:
    """``read_agent`` for a transaction that holds the agent's lesson lock: read once. Under
    the lock only this transaction moves the epoch, once (``transition.bump_epoch``): a read
    made before that move is one behind after it."""
    reads: dict[int, tuple[AgentRead, bool]] = for_transaction(session, _HELD_READS, dict)
    moved = moved_in_transaction(session, agent_id)
    found = reads.get(agent_id)
    if found is None:
        read = read_agent(session, agent_id)
        if read is None:
            return None
        reads[agent_id] = (read, moved)
        return read
    read, moved_then = found
    if moved and not moved_then:
        return AgentRead(read.epoch + 1, read.tenant_id)
    return read


def agent_view(
    session: Session, agent_id: int, settings: Settings | None = None, *, epoch: int | None = None
) -> View:
    """The agent's lessons as this session sees them: in a transaction that has written them,
    its own view (``digest.lessons.own_view``); else the kept index, up to date
    (``bank.agent_view``). ``epoch``: the agent's ``lesson_epoch`` as the caller read it."""
    if not moved_in_transaction(session, agent_id):
        return bank.agent_view(session, agent_id, settings, epoch=epoch)
    if epoch is None:
        read = read_agent_held(session, agent_id)
        epoch = read.epoch if read is not None else 0
    return own_view(session, agent_id, epoch, settings)


def embed_probes(
    session: Session,
    agent_id: int,
    probes: Sequence[tuple[str, str | None]],
    settings: Settings | None = None,
    *,
    read: AgentRead | None = None,
) -> View:
    """Embed the texts of ``probes`` (text, fingerprint) that searches of the agent's lessons
    will need, in one call to the embedder: each search then finds its vector in the
    process's cache, and so does the write that stores it with a new lesson. A probe whose
    fingerprint is a known failure needs none (``search_view``). ``read``: the agent's
    epoch as this transaction read it under the lock (``AgentRead``). Returns the agent's
    view it looked at: the searches that follow, with nothing written in between, search
    it (``find_neighbours``'s ``view``) instead of reading the bank's changes again."""
    view = agent_view(session, agent_id, settings, epoch=read.epoch if read else None)
    texts = [text for text, fingerprint in probes if not _known_failure(view, fingerprint)]
    if view.embedder is not None and texts:
        vectors_for(view.embedder, list(dict.fromkeys(texts)))
    return view


def _known_failure(view: View, fingerprint: str | None) -> bool:
    if fingerprint is None or states_a_fact(fingerprint):
        return False
    return any(index.holds(fingerprint, allowed) for index, allowed in view.parts())


#: the texts of the lessons a search returned (the kept index holds none of them)
_TEXTS = select(
    Lesson.id, Lesson.title, Lesson.situation, Lesson.mistake, Lesson.correction, Lesson.tags
).where(Lesson.id.in_(bindparam("ids", expanding=True)))


def _neighbour(hit: Hit, texts: Any) -> Neighbour:
    assert hit.entry is not None
    return Neighbour(
        lesson_id=hit.lesson_id,
        relevance=hit.relevance,
        identity=hit.identity,
        title=texts.title,
        situation=texts.situation,
        mistake=texts.mistake,
        correction=texts.correction,
        tags=tuple(texts.tags or ()),
        fingerprint=hit.entry.fingerprint,
        cosine=hit.cosine,
        same_fingerprint=hit.same_fingerprint,
        lexical=hit.lexical,
    )


def _with_texts(session: Session, searches: Sequence[list[Hit]]) -> list[list[Neighbour]]:
    """Each search's hits as neighbours, with their texts read in one round trip for all of
    them (as this transaction sees the rows; nothing flushed for it). The lessons this
    transaction wrote are taken as the session holds them (``transition.written``: a batch's
    new lesson, or its rewrite, waits for the batch's flush, so its row is not there yet or
    says the old words). A hit whose row is gone (deleted since the index read it) is left
    out."""
    ids = sorted({hit.lesson_id for hits in searches for hit in hits})
    if not ids:
        return [[] for _ in searches]
    mine = written(session).by_id
    texts: dict[int, Any] = {i: mine[i] for i in ids if i in mine}
    rest = [i for i in ids if i not in texts]
    if rest:
        with session.no_autoflush:
            texts.update((row.id, row) for row in session.execute(_TEXTS, {"ids": rest}))
    return [
        [_neighbour(hit, texts[hit.lesson_id]) for hit in hits if hit.lesson_id in texts]
        for hits in searches
    ]


def find_neighbours(
    session: Session,
    tenant_id: int,
    agent_id: int,
    candidate_text: str,
    k: int = 5,
    *,
    fingerprint: str | None = None,
    mode: str = "hybrid",
    settings: Settings | None = None,
    others_of_kind: bool = False,
    read: AgentRead | None = None,
    view: View | None = None,
) -> list[Neighbour]:
    """Top-``k`` active, unexpired lessons of this agent: the candidate's fingerprint first,
    then by relevance (ties: identity, then the oldest). Lessons with another fingerprint of
    the candidate's kind about another subject are left out (other lessons) unless
    ``others_of_kind``; another key on the same subject is kept for the judge to see.
    ``tenant_id`` is checked against the agent. ``read``: the agent's epoch and tenant as
    this transaction read them under the lock (``AgentRead``), not read again. ``view``: the
    agent's view as this session read it, nothing written since (``embed_probes``)."""
    return find_neighbours_of(
        session, tenant_id, agent_id, [(candidate_text, fingerprint)], k, mode=mode,
        settings=settings, others_of_kind=others_of_kind, read=read, view=view,
    )[0]  # fmt: skip


def find_neighbours_of(
    session: Session,
    tenant_id: int,
    agent_id: int,
    probes: Sequence[tuple[str, str | None]],
    k: int = 5,
    *,
    mode: str = "hybrid",
    settings: Settings | None = None,
    others_of_kind: bool = False,
    read: AgentRead | None = None,
    view: View | None = None,
    siblings: Sequence[Sequence[str]] | None = None,
) -> list[list[Neighbour]]:
    """``find_neighbours`` of each probe (text, fingerprint) in one view of the agent's
    lessons, the texts of all their hits read in one round trip. ``siblings``: each probe's
    error's keys on its tool's siblings (``digest.tool_siblings``), whose lessons it sees."""
    if view is None:
        view = agent_view(session, agent_id, settings, epoch=read.epoch if read else None)
    kin = siblings if siblings is not None else [()] * len(probes)
    searches = [
        search_view(
            view,
            text,
            k,
            fingerprint=fingerprint,
            mode=mode,
            others_of_kind=others_of_kind,
            siblings=keys,
        )
        for (text, fingerprint), keys in zip(probes, kin, strict=True)
    ]
    # Lessons are per agent, and an agent belongs to one tenant; refuse a mismatch anyway.
    if (
        any(searches)
        and (
            read.tenant_id
            if read is not None
            else session.scalar(select(Agent.tenant_id).where(Agent.id == agent_id))
        )
        != tenant_id
    ):
        return [[] for _ in probes]
    return _with_texts(session, searches)
