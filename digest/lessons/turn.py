"""The read ``pitfalls`` makes on an agent's turn: one round trip when nothing moved (issue 27).

A turn needs the agent (by name), its tenant (the release gate, the holdout share), its
``lesson_epoch`` (is the kept index current?) and the rows of the few lessons the index ranks
best. Read in that order it takes two round trips at least, and a third for the names a lesson
from run text may say (``digest.lessons.called``). This process remembers, per agent name, the
agent's id and its tenant's gate as last read; with those and the kept index
(``digest.lessons.bank.kept_view``) it ranks first and reads once: the agent, its tenant, its
epoch and the candidates' rows in one statement. When that read shows the epoch, the gate or the
agent moved since, the ranking is thrown away and the turn reads as a first turn does (the
agent, then its index brought up to date, then the rows): what the agent reads is always what
the database holds at the read, never an older bank.

The names a surfaced lesson's runs called are kept per lesson with a stamp of its evidence
(how many events cite it, the newest, the lesson's ``updated_at``), read with its row: they are
read again only when the stamp moved.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Executable, Row, and_, bindparam, exists, func, or_, select
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.db import read_scope
from digest.lessons.bank import View, kept_view
from digest.lessons.called import called_names
from digest.lessons.neighbours import agent_view
from digest.lessons.release import Gate, released_clause
from digest.models import Agent, Event, Lesson, LessonEvidence, Tenant, as_utc, utcnow
from digest.runtime import runtime
from digest.tenants import agent_named, lookup_key, tenant_named

#: the relevance of each candidate lesson, given the agent's index and its tenant's gate
Rank = Callable[[View, Gate], dict[int, float]]

_CITED = (
    select(func.count(LessonEvidence.id))
    .where(LessonEvidence.lesson_id == Lesson.id)
    .correlate(Lesson)
    .scalar_subquery()
)
_NEWEST = (
    select(func.max(LessonEvidence.event_id))
    .where(LessonEvidence.lesson_id == Lesson.id)
    .correlate(Lesson)
    .scalar_subquery()
)
#: what the turn reads of a candidate lesson (``Candidate``)
COLUMNS = (
    Lesson.id,
    Lesson.title,
    Lesson.correction,
    Lesson.trust,
    Lesson.success_count,
    Lesson.failure_count,
    Lesson.hit_count,
    Lesson.last_seen_at,
    Lesson.status,
    Lesson.expires_at,
    Lesson.updated_at,
    _CITED.label("cited"),
    _NEWEST.label("newest"),
)

#: agent names and lessons' names remembered per process, at most this many of each
KEPT = 4096


@dataclass(frozen=True)
class TurnRead:
    """What a turn read: the agent, the candidates still shown (active, unexpired, released),
    their relevance, and the tenant's settings."""

    agent_id: int
    rows: list[Row[Any]]
    scores: dict[int, float]
    tenant_settings: Any


@dataclass(frozen=True)
class _Known:
    agent_id: int
    gate: Gate


class _Memory:
    """A piece of the process's runtime: agents by name, and lessons' run names by stamp."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.agents: OrderedDict[tuple[str, str, str], _Known] = OrderedDict()
        #: a lesson's run names with the stamp they were read at (None: it has no run evidence)
        self.called: OrderedDict[tuple[str, int], tuple[tuple[Any, ...], frozenset[str] | None]] = (
            OrderedDict()
        )


def read_for_turn(tenant: str, agent: str, rank: Rank, settings: Settings) -> TurnRead | None:
    """The agent's candidates for this turn, ranked by ``rank`` (``None``: no such agent)."""
    memory = runtime().piece(_Memory)
    with read_scope(settings.database_url) as session:
        url = session.get_bind().engine.url.render_as_string(hide_password=True)
        with memory.lock:
            known = memory.agents.get((url, tenant, agent))
        view = kept_view(url, known.agent_id, settings) if known is not None else None
        if known is not None and view is not None:
            scores = rank(view, known.gate)
            found = _agent_and_rows(session, tenant, agent, known.gate, scores)
            if found is None:
                return None
            agent_id, epoch, tenant_row, rows = found
            if (
                agent_id == known.agent_id
                and epoch == view.bank.epoch
                and Gate.of(tenant_row, settings) == known.gate
            ):
                return TurnRead(agent_id, _shown(rows), scores, tenant_row.settings)
        return _first_read(session, url, tenant, agent, rank, settings, memory)


def _first_read(
    session: Session,
    url: str,
    tenant: str,
    agent: str,
    rank: Rank,
    settings: Settings,
    memory: _Memory,
) -> TurnRead | None:
    """The agent and its epoch, its index brought up to date, then the candidates' rows."""
    found = session.execute(
        select(Agent.id, Agent.lesson_epoch, Tenant)
        .join(Tenant, Tenant.id == Agent.tenant_id)
        .where(tenant_named(tenant), agent_named(agent))
    ).first()
    if found is None:
        return None
    agent_id, gate = int(found[0]), Gate.of(found[2], settings)
    view = agent_view(session, agent_id, settings, epoch=int(found[1] or 0))
    scores = rank(view, gate)
    rows: list[Row[Any]] = []
    if scores:
        rows = list(
            session.execute(
                select(*COLUMNS).where(
                    Lesson.id.in_(list(scores)), Lesson.agent_id == agent_id, released_clause(gate)
                )
            )
        )
    _remember(memory, (url, tenant, agent), _Known(agent_id, gate))
    return TurnRead(agent_id, _shown(rows), scores, found[2].settings)


def _remember(memory: _Memory, key: tuple[str, str, str], known: _Known) -> None:
    """Remember an agent's id and gate by name (at most ``KEPT`` names, least recent out)."""
    with memory.lock:
        memory.agents[key] = known
        memory.agents.move_to_end(key)
        while len(memory.agents) > KEPT:
            memory.agents.popitem(last=False)


def _agent_and_rows(
    session: Session, tenant: str, agent: str, gate: Gate, scores: dict[int, float]
) -> tuple[int, int, Tenant, list[Row[Any]]] | None:
    """One statement: the agent, its epoch, its tenant and the candidates' rows that the
    release rule lets it read (none when nothing ranked: the epoch is still read)."""
    params: dict[str, Any] = {"tenant": lookup_key(tenant), "agent": lookup_key(agent)}
    if scores:
        params["ids"] = list(scores)
    found: list[Any] = list(session.execute(_one_read(gate, bool(scores)), params))
    if not found:
        return None
    first = found[0]
    rows = [row for row in found if scores and row.id is not None]
    return int(first[0]), int(first[1] or 0), first[2], rows


@functools.lru_cache(maxsize=64)
def _one_read(gate: Gate, with_rows: bool) -> Executable:
    """``_agent_and_rows``'s statement, built once per gate (a turn builds none: building and
    keying a statement cost more than the read's own work)."""
    named = (Tenant.name == bindparam("tenant"), Agent.name == bindparam("agent"))
    # the agent's columns labelled apart: ``row.id`` is the lesson's
    agent = select(
        Agent.id.label("agent_id"), Agent.lesson_epoch.label("agent_epoch"), Tenant
    ).join(Tenant, Tenant.id == Agent.tenant_id)
    if not with_rows:
        return agent.where(*named)
    rows = and_(
        Lesson.agent_id == Agent.id,
        Lesson.id.in_(bindparam("ids", expanding=True)),
        released_clause(gate),
    )
    return agent.add_columns(*COLUMNS).outerjoin(Lesson, rows).where(*named)


def _shown(rows: Sequence[Row[Any]]) -> list[Row[Any]]:
    now = utcnow()
    return [
        row
        for row in rows
        if row.status == "active" and (row.expires_at is None or as_utc(row.expires_at) > now)
    ]


def called_for_turn(
    settings: Settings, rows: Sequence[Row[Any]], latest: int
) -> dict[int, frozenset[str]]:
    """The names each of ``rows`` (lessons from run text about to be shown) may say
    (``digest.lessons.called``): as remembered while the lesson's evidence stamp holds, else
    read from its ``latest`` runs."""
    if not rows:
        return {}
    # a lesson no event cites has no runs to read names from (its names are unknown)
    stamps = {row.id: (row.cited, row.newest, row.updated_at) for row in rows if row.cited}
    if not stamps:
        return {}
    memory = runtime().piece(_Memory)
    found: dict[int, frozenset[str] | None] = {}
    with read_scope(settings.database_url) as session:
        url = session.get_bind().engine.url.render_as_string(hide_password=True)
        with memory.lock:
            for lesson_id, stamp in stamps.items():
                kept = memory.called.get((url, lesson_id))
                if kept is not None and kept[0] == stamp:
                    found[lesson_id] = kept[1]
        missing = [lesson_id for lesson_id in stamps if lesson_id not in found]
        if not missing:
            return _known_only(found)
        read = called_names(session, missing, latest=latest)
    with memory.lock:
        for lesson_id in missing:
            names = read.get(lesson_id)
            memory.called[(url, lesson_id)] = (stamps[lesson_id], names)
            memory.called.move_to_end((url, lesson_id))
            found[lesson_id] = names
        while len(memory.called) > KEPT:
            memory.called.popitem(last=False)
    return _known_only(found)


def _known_only(found: dict[int, frozenset[str] | None]) -> dict[int, frozenset[str]]:
    # a lesson without run evidence is absent: its names are unknown, not none
    return {lesson_id: names for lesson_id, names in found.items() if names is not None}


def accepted_for_turn(
    session: Session,
    tenant: str,
    agent: str,
    contact_id: str | None,
    settings: Settings,
    limit: int,
) -> tuple[int, Tenant, Gate, tuple[int, ...]] | None:
    """``examples``'s read (``digest.fewshot``) in one statement: the agent, its tenant, the
    tenant's gate and the ids of its accepted operator edits this conversation may see, at most
    ``limit``, newest first (``None``: no such agent). An edit is accepted when a standing lesson
    the release rule lets an agent read cites it; the statement assumes the gate remembered for
    the agent (the settings' on a first read) and is read again with the tenant's own when that
    differs."""
    memory = runtime().piece(_Memory)
    url = session.get_bind().engine.url.render_as_string(hide_password=True)
    with memory.lock:
        known = memory.agents.get((url, tenant, agent))
    gate = (
        known.gate
        if known is not None
        else Gate(settings.frequency_gate, settings.independent_spread_s)
    )
    params = {
        "tenant": lookup_key(tenant), "agent": lookup_key(agent), "contact": contact_id,
        "now": utcnow(),
    }  # fmt: skip
    for _ in range(3):  # (a tenant's gate set between two reads: read again, at most twice)
        found: list[Any] = list(
            session.execute(_accepted_read(gate, contact_id is not None, limit), params)
        )
        if not found:
            return None
        agent_id, tenant_row = int(found[0].agent_id), found[0][1]
        read_with, gate = gate, Gate.of(tenant_row, settings)
        if gate == read_with:
            break
    else:  # the gate kept moving under the reads: no examples this turn (best effort)
        return None
    if known is None or known != _Known(agent_id, gate):
        _remember(memory, (url, tenant, agent), _Known(agent_id, gate))
    ids = tuple(sorted(int(row.event_id) for row in found if row.event_id is not None))
    return agent_id, tenant_row, gate, ids


@functools.lru_cache(maxsize=64)
def _accepted_read(gate: Gate, with_contact: bool, limit: int) -> Executable:
    lesson_scope: ColumnElement[bool] = Lesson.scope == "agent"
    event_scope: ColumnElement[bool] = Event.contact_id.is_(None)
    if with_contact:
        lesson_scope = or_(
            lesson_scope, (Lesson.scope == "contact") & (Lesson.contact_id == bindparam("contact"))
        )
        event_scope = or_(event_scope, Event.contact_id == bindparam("contact"))
    cited_by_a_standing_lesson = exists(
        select(LessonEvidence.id)
        .join(Lesson, Lesson.id == LessonEvidence.lesson_id)
        .where(
            LessonEvidence.event_id == Event.id,
            Lesson.agent_id == Agent.id,
            Lesson.status == "active",
            or_(Lesson.expires_at.is_(None), Lesson.expires_at > bindparam("now")),
            lesson_scope,
            released_clause(gate),
        )
    ).correlate(Event, Agent)
    accepted = and_(
        Event.agent_id == Agent.id,
        Event.status == "reflected",
        Event.kind == "operator_edit",
        Event.trust == "high",
        event_scope,
        cited_by_a_standing_lesson,
    )
    return (
        select(Agent.id.label("agent_id"), Tenant, Event.id.label("event_id"))
        .join(Tenant, Tenant.id == Agent.tenant_id)
        .outerjoin(Event, accepted)
        .where(Tenant.name == bindparam("tenant"), Agent.name == bindparam("agent"))
        .order_by(Event.id.desc())
        .limit(limit)
    )
