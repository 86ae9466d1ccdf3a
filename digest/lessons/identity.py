"""The owner's view of lesson identity: ``digest lesson similar`` (the neighbours reconciliation
would see for a text) and ``digest lesson reindex`` (embeddings and fingerprints backfilled).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from digest import fingerprint as fp
from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import MissingExtra, OwnerInputError
from digest.extras import EXTRAS
from digest.identity.embedding import get_embedder, to_bytes
from digest.identity.index import MODES
from digest.lessons.neighbours import find_neighbours, forget
from digest.lessons.transition import bump_epoch, lock_agent_lessons
from digest.lessons.vectors import embedder, vector_key, vectors_for
from digest.models import Agent, Event, Lesson, LessonEvidence, Tenant, utcnow
from digest.tenants import find_agent, tenant_named, unknown_key
from digest.text import lesson_text

KINDS_OF_PROBE = ("lesson", "question", "error")


@dataclass(frozen=True)
class Similar:
    """One neighbour of a probe text, as ``digest lesson similar`` shows it."""

    id: int
    title: str
    relevance: float
    lexical: float | None
    cosine: float | None
    identity: float
    fingerprint: str | None
    same_fingerprint: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def probe_fingerprint(text: str, as_kind: str = "lesson", tool: str | None = None) -> str | None:
    """The fingerprint ``text`` would have: a manual lesson's (``signature: body``), an owner's
    question's, or a tool's error's (``tool`` names it)."""
    if as_kind not in KINDS_OF_PROBE:
        raise OwnerInputError(f"--as must be one of {', '.join(KINDS_OF_PROBE)}, not {as_kind!r}")
    if as_kind == "question":
        return fp.event_keys("owner_answer", {"question": text})[0]
    if as_kind == "error":
        if not tool:
            raise OwnerInputError("--as error needs --tool: the tool whose error TEXT is")
        return fp.tool_key(tool, text)
    signature, _, body = text.partition(":")
    return fp.manual_key(signature.strip(), body.strip()) if body.strip() else None


def similar_lessons(
    tenant: str,
    agent: str,
    text: str,
    *,
    k: int = 5,
    as_kind: str = "lesson",
    tool: str | None = None,
    mode: str = "hybrid",
    settings: Settings | None = None,
) -> tuple[str | None, list[Similar]]:
    """(the probe's fingerprint, the ``k`` active lessons reconciliation would see for it)."""
    if not text.strip():
        raise OwnerInputError("TEXT is empty: give the lesson, question or error to look for")
    if not 1 <= k <= 50:
        raise OwnerInputError(f"--k must be between 1 and 50, not {k}")
    if mode not in MODES:
        raise OwnerInputError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")
    key = probe_fingerprint(text, as_kind, tool)
    settings = settings or get_settings()
    with read_scope(settings.database_url) as session:
        found = find_agent(session, tenant, agent)
        neighbours = find_neighbours(
            session, found.tenant_id, found.id, text, k, fingerprint=key, mode=mode,
            settings=settings, others_of_kind=True,
        )  # fmt: skip
    return key, [
        Similar(
            n.lesson_id,
            n.title,
            round(n.relevance, 4),
            None if n.lexical is None else round(n.lexical, 4),
            None if n.cosine is None else round(n.cosine, 4),
            round(n.identity, 4),
            n.fingerprint,
            n.same_fingerprint,
        )
        for n in neighbours
    ]


@dataclass
class Reindexed:
    agents: int = 0
    lessons: int = 0
    embedded: int = 0
    fingerprinted: int = 0
    model: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


#: lessons embedded, then written, at a time (the writes are short transactions)
CHUNK = 256


def reindex_lessons(
    tenant: str | None = None,
    agent: str | None = None,
    *,
    settings: Settings | None = None,
    on_lessons: Callable[[int], None] | None = None,
) -> Reindexed:
    """Store every active lesson's embedding under the configured model (those whose stored
    key is stale: new text, another model) and the fingerprint of lessons stored without one
    (derived from the event that first taught it). Embeddings are computed with no
    transaction open; each chunk is written in a short transaction of its own.
    ``on_lessons(n)`` is called after each chunk of ``n`` lessons (a progress counter)."""
    if agent is not None and tenant is None:
        raise OwnerInputError("--agent needs --tenant")
    settings = settings or get_settings()
    try:  # a model whose extra is missing stops the command, before anything is read
        get_embedder(settings)
    except MissingExtra as exc:
        raise MissingExtra("digest lesson reindex", exc.extra, EXTRAS[exc.extra][0]) from None
    found = embedder(settings)
    report = Reindexed(model=found.name if found else None)
    for agent_id in _agents(settings, tenant, agent):
        report.agents += 1
        with read_scope(settings.database_url) as session:
            rows = session.execute(
                select(
                    Lesson.id, Lesson.situation, Lesson.correction, Lesson.embedding_key,
                    Lesson.fingerprint, Lesson.source,
                ).where(Lesson.agent_id == agent_id, Lesson.status == "active")
                .order_by(Lesson.id)
            ).all()  # fmt: skip
            keys = _fingerprints(session, [r for r in rows if r.fingerprint is None])
        report.lessons += len(rows)
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            texts = {r.id: lesson_text(r.situation, r.correction) for r in chunk}
            stale = [
                r for r in chunk
                if found is not None and r.embedding_key != vector_key(found.name, texts[r.id])
            ]  # fmt: skip
            vectors = vectors_for(found, [texts[r.id] for r in stale]) if stale else []
            if stale and vectors is None:
                raise OwnerInputError(
                    f"the embedding model {found.name if found else ''!r} failed: see the log"
                )
            with session_scope(settings.database_url) as session:
                lock_agent_lessons(session, agent_id)
                for row, vector in zip(stale, vectors or [], strict=True):
                    assert found is not None
                    session.execute(
                        update(Lesson)
                        .where(
                            Lesson.id == row.id,
                            Lesson.situation == row.situation,
                            Lesson.correction == row.correction,
                        )
                        .values(
                            embedding=to_bytes(vector),
                            embedding_key=vector_key(found.name, texts[row.id]),
                        )
                    )
                    report.embedded += 1
                marked = [(r.id, keys[r.id]) for r in chunk if keys.get(r.id)]
                for lesson_id, key in marked:
                    session.execute(
                        update(Lesson)
                        .where(Lesson.id == lesson_id, Lesson.fingerprint.is_(None))
                        .values(fingerprint=key, updated_at=utcnow())
                    )
                    report.fingerprinted += 1
                if marked:
                    bump_epoch(session, agent_id)
            if on_lessons is not None:
                on_lessons(len(chunk))
        forget(agent_id)
    return report


def _agents(settings: Settings, tenant: str | None, agent: str | None) -> list[int]:
    with read_scope(settings.database_url) as session:
        if agent is not None and tenant is not None:
            return [find_agent(session, tenant, agent).id]
        query = select(Agent.id).join(Tenant, Tenant.id == Agent.tenant_id).order_by(Agent.id)
        if tenant is not None:
            if session.scalar(select(Tenant.id).where(tenant_named(tenant))) is None:
                raise unknown_key("tenant", tenant)
            query = query.where(tenant_named(tenant))
        return list(session.scalars(query))


def _fingerprints(session: Session, rows: Iterable[Any]) -> dict[int, str]:
    """Fingerprints for lessons stored without one, from the first event each cites."""
    found: dict[int, str] = {}
    for row in rows:
        if row.source == "manual_lesson":
            found[row.id] = fp.manual_key(row.situation, row.correction)
            continue
        event = session.execute(
            select(Event.kind, Event.payload)
            .join(LessonEvidence, LessonEvidence.event_id == Event.id)
            .where(LessonEvidence.lesson_id == row.id)
            .order_by(Event.id)
            .limit(1)
        ).first()
        if event is None or event.kind == "manual_lesson":
            continue
        if event.kind == "run_outcome":
            [key] = fp.assign(
                [lesson_text(row.situation, row.correction)], fp.run_failures(event.payload)
            ) or [None]
        elif event.kind == "operator_edit":  # the rule of the edit the lesson states
            [key] = fp.assign_edit([lesson_text(row.situation, row.correction)], event.payload)
        else:
            keys = fp.event_keys(event.kind, event.payload)
            key = keys[0] if keys else None
        if key:
            found[row.id] = key
    return found
