"""The release rule (DESIGN §8, issue 25): which lessons an agent may read.

One rule for every read an agent makes (``pitfalls``, ``examples``, the learning document and
its summary):

- a trusted lesson (a person's words) or a reviewed one (run text a person vouched for) is
  released at once;
- an untrusted lesson (distilled from run text) is released once it is corroborated: the
  distinct sources among the untrusted events citing it (a contact, else a thread; events with
  neither are one source together) reach the tenant's ``frequency_gate``. They count apart
  only when those events span ``independent_spread_s`` (otherwise they are one campaign, one
  source). A person may release it earlier (``release_held``: it becomes ``reviewed``);
- anything else is *held*: learned and counted, visible to its owner with how far it has come,
  never shown to an agent.

``is_released`` decides; ``released_clause`` is the same test for a SQL ``WHERE``, and
``held_note`` says in words why a lesson waits. No read on an agent's turn joins evidence: the
counts are columns of the lesson (``independent_sources``, ``source_span_s``), kept here when a
transaction that cited untrusted events commits (``note_cited``), and the gate and spread are
applied when read, so a tenant's new setting counts at once. When an untrusted event rewrites
a held lesson's text, counting starts again from that moment (``sources_since``):
corroboration vouches for words, and one run must not swap them.

A change an untrusted event makes to a *released* lesson (a rewrite, or a supersede) waits by
the same rule: it is stored as a new, held lesson that names the one it would replace
(``replaces_id``), and the agent keeps reading the old one. When the new one is released
(corroborated, or by a person), it supersedes the old one (``settle_replacements``), in the
transaction that released it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, and_, case, event, func, literal, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.lessons.per_transaction import drop, for_transaction
from digest.lessons.transition import StatusChange, transition
from digest.models import (
    PROTECTED_TRUST,
    Agent,
    Event,
    Lesson,
    LessonEvidence,
    Tenant,
    as_utc,
    utcnow,
)
from digest.tenants import policy_for

if TYPE_CHECKING:  # types only: the capture path imports this module and stays light
    import numpy as np

    from digest.identity.index import AgentIndex, Entry


@dataclass(frozen=True)
class Gate:
    """What an untrusted lesson must reach: ``gate`` independent sources, counted apart when
    their events span ``spread_s`` seconds."""

    gate: int
    spread_s: int

    @classmethod
    def of(cls, tenant: Tenant, settings: Settings) -> Gate:
        policy = policy_for(tenant, settings)
        return cls(policy.frequency_gate, policy.independent_spread_s)


def agent_gate(session: Session, agent_id: int) -> Gate:
    """The release gate of the agent's tenant (its overrides, else DIGEST_*)."""
    tenant = session.scalars(
        select(Tenant).join(Agent, Agent.tenant_id == Tenant.id).where(Agent.id == agent_id)
    ).one()
    return Gate.of(tenant, get_settings())


#: key of a transaction's gates (``per_transaction``): agent id → its release gate as the
#: transaction read it
_GATES = "digest_release_gates"


def transaction_gate(session: Session, agent_id: int) -> Gate:
    """``agent_gate``, read once per transaction: the reflect writes of a batch ask for it per
    lesson they cite, and a tenant's settings read once hold for the whole transaction."""
    gates: dict[int, Gate] = for_transaction(session, _GATES, dict)
    gate = gates.get(agent_id)
    if gate is None:
        gate = gates[agent_id] = agent_gate(session, agent_id)
    return gate


def counted_sources(sources: int, span_s: int, spread_s: int) -> int:
    """The independent sources that count: all of them when their events span ``spread_s``,
    else at most one (a burst is one campaign, however many contacts it claims)."""
    return sources if span_s >= spread_s else min(sources, 1)


def is_released(trust: str, sources: int, span_s: int, gate: Gate) -> bool:
    """May an agent read this lesson? Trusted and reviewed: yes; untrusted: once its counted
    independent sources reach the gate."""
    return trust in PROTECTED_TRUST or counted_sources(sources, span_s, gate.spread_s) >= gate.gate


def released_clause(gate: Gate) -> ColumnElement[bool]:
    """``is_released`` as a SQL condition on ``lessons`` (tests/lessons/test_release.py holds
    the two equal over a grid of values)."""
    counted_reach = Lesson.independent_sources >= gate.gate
    if gate.gate > 1:  # at most one source counts inside the spread
        counted_reach = and_(counted_reach, Lesson.source_span_s >= gate.spread_s)
    return or_(Lesson.trust.in_(PROTECTED_TRUST), counted_reach)


def held_note(
    trust: str, sources: int, span_s: int, gate: Gate, replaces: int | None = None
) -> str | None:
    """Why a lesson waits, in words (``None``: it is released). ``replaces``: the lesson this
    one would replace once released."""
    if is_released(trust, sources, span_s, gate):
        return None
    counted = counted_sources(sources, span_s, gate.spread_s)
    note = f"held: {counted} of {gate.gate} independent sources"
    if counted < sources:
        note += (
            f" ({sources} sources, but their runs span {span_s} s; they count apart once they "
            f"span {gate.spread_s} s: `digest tenant set --spread`)"
        )
    if replaces is not None:
        note += f"; once released it replaces lesson {replaces}, which agents read until then"
    return note


def release_word(trust: str, sources: int, span_s: int, gate: Gate) -> str:
    """A lesson's release state in a few characters for a table: ``released`` or
    ``held 1/3``."""
    if is_released(trust, sources, span_s, gate):
        return "released"
    return f"held {counted_sources(sources, span_s, gate.spread_s)}/{gate.gate}"


# --- keeping the counts -------------------------------------------------------------------


def source_counts(
    bind: Session | Connection, lesson_ids: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """Per lesson: (distinct sources, whole seconds spanned) of the untrusted events citing it
    since its ``sources_since``. Lessons no untrusted event cites are (0, 0)."""
    found: dict[int, tuple[int, int]] = {lesson_id: (0, 0) for lesson_id in lesson_ids}
    if not lesson_ids:
        return found
    source = case(
        (Event.contact_id != "", literal("c:") + Event.contact_id),
        (Event.thread_id != "", literal("t:") + Event.thread_id),
        else_=literal("-"),
    )
    rows = bind.execute(
        select(
            LessonEvidence.lesson_id,
            func.count(func.distinct(source)),
            func.min(Event.created_at),
            func.max(Event.created_at),
        )
        .join(Event, Event.id == LessonEvidence.event_id)
        .join(Lesson, Lesson.id == LessonEvidence.lesson_id)
        .where(
            LessonEvidence.lesson_id.in_(list(lesson_ids)),
            Event.trust == "low",
            or_(Lesson.sources_since.is_(None), LessonEvidence.created_at >= Lesson.sources_since),
        )
        .group_by(LessonEvidence.lesson_id)
    )
    for lesson_id, distinct, first, last in rows:
        found[lesson_id] = (int(distinct or 0), _span(first, last))
    return found


def _span(first: datetime | str | None, last: datetime | str | None) -> int:
    if first is None or last is None:
        return 0
    # SQLite hands an aggregate of a datetime column back as text
    begin = as_utc(datetime.fromisoformat(first) if isinstance(first, str) else first)
    end = as_utc(datetime.fromisoformat(last) if isinstance(last, str) else last)
    return max(0, int((end - begin).total_seconds()))


def recount(session: Session, lesson_ids: Iterable[int]) -> None:
    """Store the source counts of these lessons (``source_counts``), as of this transaction."""
    ids = sorted(set(lesson_ids))
    if not ids:
        return
    session.flush()  # citations added in this transaction count
    counts = source_counts(session, ids)
    proposals = []
    for lesson in session.scalars(select(Lesson).where(Lesson.id.in_(ids))):
        sources, span = counts[lesson.id]
        if (lesson.independent_sources, lesson.source_span_s) != (sources, span):
            lesson.independent_sources, lesson.source_span_s = sources, span
        if lesson.replaces_id is not None:
            proposals.append(lesson)
    gates: dict[int, Gate] = {}
    for lesson in proposals:
        if lesson.agent_id not in gates:
            gates[lesson.agent_id] = transaction_gate(session, lesson.agent_id)
        settle_replacements(session, [lesson], gates[lesson.agent_id])


def settle_replacements(session: Session, lessons: Iterable[Lesson], gate: Gate) -> list[int]:
    """Each of ``lessons`` that is a held change to another lesson (``replaces_id``) and is
    now released, active, supersedes the lesson it replaces (if that one is still active):
    from now on an agent reads the new words instead of the old. Returns the ids superseded."""
    done = []
    for lesson in lessons:
        if lesson.replaces_id is None or lesson.status != "active":
            continue
        if not is_released(lesson.trust, lesson.independent_sources, lesson.source_span_s, gate):
            continue
        old = session.get(Lesson, lesson.replaces_id)
        if old is None or old.status != "active" or old.agent_id != lesson.agent_id:
            continue
        why = f"replaced by lesson {lesson.id}, released"
        transition(
            session, old, op="DELETE", reason=why, status="superseded",
            superseded_by_id=lesson.id, status_reason=why,
        )  # fmt: skip
        done.append(old.id)
    return done


#: key of the lessons a transaction cited untrusted events on (``per_transaction``)
_CITED = "digest_release_cited"


def note_cited(session: Session, lesson_id: int) -> None:
    """Remember that this transaction cited an untrusted event on the lesson: its counts are
    kept when the transaction commits (one count per lesson however many events cited it)."""
    cited: set[Hashable] = for_transaction(session, _CITED, set)
    cited.add(lesson_id)


@event.listens_for(Session, "after_flush")
def _note_new_evidence(session: Session, _context: Any) -> None:
    """Citations written as ORM rows, by whatever code: their lessons are counted again too
    (``add_evidence``'s single statement notes its own)."""
    for row in session.new:
        if isinstance(row, LessonEvidence):
            note_cited(session, row.lesson_id)


@event.listens_for(Session, "before_commit")
def _recount_cited(session: Session) -> None:
    if _CITED not in session.info and not any(
        isinstance(row, LessonEvidence) for row in session.new
    ):
        return
    session.flush()  # citations still pending are noted by the flush
    cited: set[Any] | None = drop(session, _CITED)
    if cited:
        recount(session, cited)


# --- a person releases held lessons ---------------------------------------------------------


#: a release is a person's status change like any other (``lessons.owner``'s disable, enable)
Released = StatusChange


def release_held(
    session: Session,
    agent_id: int,
    lessons: Sequence[Lesson],
    gate: Gate,
    *,
    by: str,
    reason: str | None = None,
) -> list[Released]:
    """Release these held lessons of one agent on a person's word: each becomes ``reviewed``
    (released, and no later untrusted event may rewrite or retire it), with who and when in
    its row and its history. A lesson already released is reported unchanged. The caller has
    checked that the lessons are the agent's, and holds the agent's lesson lock."""
    who = by.strip()
    done = []
    now = utcnow()
    for lesson in lessons:
        assert lesson.agent_id == agent_id
        note = held_note(lesson.trust, lesson.independent_sources, lesson.source_span_s, gate)
        if note is None:
            done.append(Released(lesson.id, lesson.title, "released", "released", False))
            continue
        text = f"released by {who} before corroboration (was {note})"
        if reason:
            text += f": {reason}"
        transition(
            session, lesson, op="UPDATE", reason=text, trust="reviewed", released_by=who,
            released_at=now,
        )  # fmt: skip
        settle_replacements(session, [lesson], gate)
        done.append(Released(lesson.id, lesson.title, note, "released", True))
    return done


def released_parts(
    parts: Iterable[tuple[AgentIndex, np.ndarray]], gate: Gate
) -> list[tuple[AgentIndex, np.ndarray]]:
    """An agent's index parts (``View.parts``) with their masks cut to the released entries:
    the counts travel in each entry (``neighbours.Row``), so no query is needed."""

    def released(entry: Entry) -> bool:
        row = entry.meta
        return is_released(row.trust, row.independent_sources, row.source_span_s, gate)

    name = f"released:{gate.gate}:{gate.spread_s}"
    return [(index, allowed & index.mask(name, released)) for index, allowed in parts]
