"""The events a replay replays, as probes: the agent's most recent failed runs and operator
edits (``recent_events``), each with the text the agent had when it asked for its pitfalls
(``probe_text``) and its facts (``digest.versions.replay.facts``: kept by the process, read
from the event's payload otherwise); and the probe vectors stored so that no process embeds a
probe twice (``replay_probes``: ``store_probes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from digest.fingerprint import event_keys
from digest.identity.embedding import Embedder, from_bytes
from digest.lessons.vectors import vector_key
from digest.models import Event, ReplayProbe, as_utc
from digest.retrieve import prompt_keywords, prompt_meaning
from digest.versions.replay.facts import (
    UNKNOWN_FACTS,
    EventFacts,
    keep_window,
    recall_facts,
    remember_facts,
)

#: run outcomes that count as failed
FAILED_OUTCOMES = ("failure", "escalated")
#: characters of an event's probe kept in the report (one line), for a person to recognise it
PROBE_EXCERPT = 80
#: rows per INSERT of stored probe vectors (SQLite binds at most 32,766 parameters)
_PROBE_ROWS = 500


@dataclass
class Probe:
    """One event as a replay replays it."""

    event_id: int
    kind: str
    since_current: bool
    facts: EventFacts
    #: the probe's text, when this replay read the event's payload (new, or its vector due)
    text: str | None = None
    #: lessons relevant to the event (evidence or fingerprint), among the replayed versions'
    relevant: set[int] = field(default_factory=set)
    #: a vector embedded by this replay, to be stored
    new_vector: bool = False


def probe_text(kind: str, payload: dict[str, Any]) -> str:
    """What the agent had when it asked for its pitfalls: a run's task; an edit's context,
    else the draft the operator edited."""
    if kind == "run_outcome":
        return str(payload.get("task") or "")
    return str(payload.get("context") or payload.get("original") or "")


def _replayable(agent_id: int) -> Any:
    """The agent's failed runs and operator edits (skipped events left out: the judge found
    nothing to learn in them)."""
    failed_run = and_(
        Event.kind == "run_outcome",
        Event.payload["outcome"].as_string().in_(FAILED_OUTCOMES),
    )
    edited = and_(
        Event.kind == "operator_edit",
        or_(Event.edit_distance.is_(None), Event.edit_distance > 0),
    )
    return and_(Event.agent_id == agent_id, Event.status != "skipped", or_(failed_run, edited))


def recent_events(session: Session, agent_id: int, n: int) -> list[Any]:
    """The agent's ``n`` most recent failed runs and operator edits, newest first: rows of
    (id, kind, created_at)."""
    return list(
        session.execute(
            select(Event.id, Event.kind, Event.created_at)
            .where(_replayable(agent_id))
            .order_by(Event.id.desc())
            .limit(n)
        )
    )


def read_probes(
    session: Session,
    database: str,
    agent_id: int,
    n: int,
    since: datetime | None,
    embedder: Embedder | None,
) -> list[Probe]:
    """The recent events as probes. What this process kept of an event (``EventFacts``) is
    reused; the others' payloads are read (and, with an embedder, stored probe vectors)."""
    model = embedder.name if embedder is not None else None
    rows = recent_events(session, agent_id, n)
    keep_window(database, agent_id, (row.id for row in rows))
    kept = recall_facts(database, (row.id for row in rows))
    probes = [
        Probe(
            row.id,
            row.kind,
            since is None or as_utc(row.created_at) > since,
            kept.get(row.id, UNKNOWN_FACTS),
        )
        for row in rows
    ]
    unknown = [p for p in probes if p.facts is UNKNOWN_FACTS or p.facts.model != model]
    _read_payloads(session, unknown, embedder)
    if embedder is not None:
        lacking = [p for p in probes if p.facts.vector is None]
        _stored(session, lacking)
        _read_payloads(
            session, [p for p in lacking if p.facts.vector is None and not p.text], embedder
        )
    for probe in probes:
        remember_facts(database, probe.event_id, probe.facts)
    return probes


def _read_payloads(session: Session, probes: list[Probe], embedder: Embedder | None) -> None:
    """Read these probes' events and make their facts (no vector yet)."""
    if not probes:
        return
    model = embedder.name if embedder is not None else None
    by_id = {p.event_id: p for p in probes}
    for event_id, kind, payload in session.execute(
        select(Event.id, Event.kind, Event.payload).where(Event.id.in_(list(by_id)))
    ):
        text = probe_text(kind, payload or {})
        probe = by_id[event_id]
        probe.text = prompt_meaning(embedder, text)  # embedded as pitfalls embeds a prompt
        probe.facts = EventFacts(
            _excerpt(text),
            tuple(prompt_keywords(text)),
            tuple(event_keys(kind, payload or {})),
            model,
            vector_key(model, probe.text) if model is not None else None,
        )


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROBE_EXCERPT else line[: PROBE_EXCERPT - 1].rstrip() + "…"


def _stored(session: Session, probes: list[Probe]) -> None:
    """The stored vectors of these probes, when stored under their model and text."""
    if not probes:
        return
    by_id = {p.event_id: p for p in probes}
    for event_id, key, embedding in session.execute(
        select(ReplayProbe.event_id, ReplayProbe.embedding_key, ReplayProbe.embedding).where(
            ReplayProbe.event_id.in_(list(by_id))
        )
    ):
        probe = by_id[event_id]
        if key == probe.facts.vector_key:
            probe.facts = replace(probe.facts, vector=from_bytes(embedding))


def store_probes(session: Session, vectors: Sequence[tuple[int, str, bytes]]) -> None:
    """Keep probe vectors a replay embedded (replacing ones of another model or text)."""
    if not vectors:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    insert: Any = dialect.insert
    for start in range(0, len(vectors), _PROBE_ROWS):
        chunk = vectors[start : start + _PROBE_ROWS]
        statement = insert(ReplayProbe).values(
            [{"event_id": e, "embedding_key": k, "embedding": v} for e, k, v in chunk]
        )
        session.execute(
            statement.on_conflict_do_update(
                index_elements=["event_id"],
                set_={
                    "embedding_key": statement.excluded.embedding_key,
                    "embedding": statement.excluded.embedding,
                },
            )
        )
