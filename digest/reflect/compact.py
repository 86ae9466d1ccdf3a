"""``digest lesson compact``: merge near-duplicate lessons through reconciliation, then cap.

The agent's active lessons are taken strongest first (support, then age). Each is reconciled
against the ones already kept, with the same fast path and the same model call as a new
candidate would get:

- NOOP or UPDATE → it is merged into the kept lesson: evidence moves over, support and the
  observed success/failure counts add up, and it is marked superseded by the kept lesson;
- DELETE (a contradiction) → the older of the two is superseded by the newer;
- ADD → it is kept.

Trust is respected as in reflection: a lesson from run text merged into a person's lesson only
adds its support and evidence (never its words), and is never merged the other way nor
allowed to supersede a person's lesson (both are kept).

Then, if ``max_lessons`` is given and more remain, the weakest (least support, least recently
used) are disabled. Nothing is hard-deleted and every change writes ``lesson_history``.
Model calls run before the write; the write checks that the agent's lesson epoch did not
move meanwhile, and otherwise changes nothing and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import CompactConflict, DigestError
from digest.fingerprint import distinct
from digest.lessons.budgets import recorded_reader
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate, add_evidence, confidence_from_counts, supersede_lesson
from digest.lessons.transition import bump_epoch, lock_agent_lessons, transition
from digest.model import seam as llm
from digest.model import spend
from digest.models import PROTECTED_TRUST, Agent, Event, Lesson, LessonEvidence, Tenant
from digest.reflect.ask import ModelAsker
from digest.reflect.reconcile import Operation, Snapshot, decide
from digest.tenants import find_agent
from digest.text import lesson_text, score


@dataclass
class CompactReport:
    #: (merged lesson id, into lesson id)
    merged: list[tuple[int, int]] = field(default_factory=list)
    #: (superseded lesson id, by lesson id) for contradictions
    superseded: list[tuple[int, int]] = field(default_factory=list)
    capped: list[int] = field(default_factory=list)
    kept: int = 0
    llm_calls: int = 0


@dataclass(frozen=True)
class _Row:
    id: int
    candidate: Candidate
    neighbour: Neighbour


def _rows(session: Session, agent_id: int) -> list[_Row]:
    lessons = session.scalars(
        select(Lesson)
        .where(Lesson.agent_id == agent_id, Lesson.status == "active")
        .order_by(Lesson.support_count.desc(), Lesson.id)
    ).all()
    return [
        _Row(
            lesson.id,
            Candidate(
                situation=lesson.situation,
                correction=lesson.correction,
                mistake=lesson.mistake,
                tags=tuple(lesson.tags or ()),
                fingerprint=lesson.fingerprint,
            ),
            Neighbour.of(lesson, relevance=0.0, identity=0.0),
        )
        for lesson in lessons
    ]


def _neighbours(row: _Row, kept: list[_Row], k: int) -> list[Neighbour]:
    text_value = lesson_text(row.candidate.situation, row.candidate.correction)
    scored = []
    for other in kept:
        if distinct(row.candidate.fingerprint, other.neighbour.fingerprint):
            continue  # another fingerprint of the same kind: another lesson, never merged
        relevance, identity = score(
            text_value, lesson_text(other.neighbour.situation, other.neighbour.correction)
        )
        scored.append(
            Neighbour(**{**other.neighbour.__dict__, "relevance": relevance, "identity": identity})
        )
    scored.sort(key=lambda n: (-n.relevance, -n.identity, n.lesson_id))
    return scored[:k]


def compact(
    tenant: str,
    agent: str,
    *,
    max_lessons: int | None = None,
    settings: Settings | None = None,
) -> CompactReport:
    settings = settings or get_settings()
    if max_lessons is not None and max_lessons < 1:
        raise DigestError("max_lessons must be at least 1")
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        agent_id, epoch = agent_row.id, agent_row.lesson_epoch
        model = agent_row.llm_model or settings.model_for("reconcile")
        rows = _rows(session, agent_id)
        owner = session.get(Tenant, agent_row.tenant_id)
        assert owner is not None  # the agent's foreign key
        owner_name, budget = owner.name, spend.limits_of(owner.daily_tokens, owner.daily_cost_usd)
        recorded = recorded_reader(settings, owner.id)
    usage = llm.Usage()
    asker = ModelAsker(agent=agent, kind="compaction", model=model, usage=usage, settings=settings)
    kept: list[_Row] = []
    decisions: list[tuple[_Row, Operation]] = []
    with spend.for_tenant(owner_name, budget, recorded):  # its calls are charged to the tenant
        for row in rows:
            neighbours = _neighbours(row, kept, settings.reconcile_k)
            plan = decide(
                [row.candidate],
                Snapshot(epoch=epoch, neighbours=[neighbours]),
                ask_model=asker.ask,
                floor=settings.reconcile_floor,
                identical=settings.reconcile_identical,
            )
            operation = plan.operations[0]
            if operation.op == "ADD" or operation.lesson_id is None:
                kept.append(row)
            else:
                decisions.append((row, operation))
    report = _write(
        agent_id, epoch, decisions, kept, max_lessons, asker.prompt_hash, model, settings
    )
    report.llm_calls = usage.calls
    return report


def _write(
    agent_id: int,
    epoch: int,
    decisions: list[tuple[_Row, Operation]],
    kept: list[_Row],
    max_lessons: int | None,
    prompt_hash: str,
    model: str,
    settings: Settings,
) -> CompactReport:
    report = CompactReport()
    with session_scope(settings.database_url) as session:
        lock_agent_lessons(session, agent_id)
        agent = session.get(Agent, agent_id)
        assert agent is not None
        if agent.lesson_epoch != epoch:
            raise CompactConflict("the lessons changed while compacting; nothing was written")
        kept_ids = {row.id for row in kept}
        for row, operation in decisions:
            source = session.get(Lesson, row.id)
            target = session.get(Lesson, operation.lesson_id)
            assert source is not None and target is not None
            if (source.trust in PROTECTED_TRUST) != (target.trust in PROTECTED_TRUST):
                # Run text never rewrites or retires what a person said, nor absorbs it: a
                # lesson from run text may only add its support to a person's lesson.
                if operation.op == "DELETE" or target.trust not in PROTECTED_TRUST:
                    kept_ids.add(source.id)
                    continue
                operation = replace(operation, op="NOOP", merged=None)
            if operation.op == "DELETE":
                older, newer = sorted((source, target), key=lambda x: (x.created_at, x.id))
                _supersede(session, older, newer, operation.reason, prompt_hash, model)
                report.superseded.append((older.id, newer.id))
                kept_ids.discard(older.id)
                kept_ids.add(newer.id)
            else:
                _merge(session, source, target, operation, prompt_hash, model)
                report.merged.append((source.id, target.id))
        if max_lessons is not None and len(kept_ids) > max_lessons:
            report.capped = _cap(session, sorted(kept_ids), max_lessons)
            kept_ids -= set(report.capped)
        report.kept = len(kept_ids)
        bump_epoch(session, agent_id)
    return report


def _merge(
    session: Session,
    source: Lesson,
    target: Lesson,
    operation: Operation,
    prompt_hash: str,
    model: str,
) -> None:
    for event_id in session.scalars(
        select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == source.id)
    ).all():
        event = session.get(Event, event_id)
        if event is not None:
            add_evidence(session, target, event, f"merged from lesson {source.id}")
    success = target.success_count + source.success_count
    failure = target.failure_count + source.failure_count
    changes: dict[str, Any] = {
        "support_count": target.support_count + source.support_count,
        "success_count": success,
        "failure_count": failure,
        "confidence": confidence_from_counts(success, failure),
    }
    if operation.op == "UPDATE" and operation.merged is not None:
        merged = operation.merged.normalised()
        changes.update(situation=merged.situation, correction=merged.correction)
        changes["mistake"] = merged.mistake or target.mistake
    transition(
        session, target, op="UPDATE", model=model, prompt_hash=prompt_hash,
        reason=f"compaction merged lesson {source.id} into this one ({operation.reason})",
        **changes,
    )  # fmt: skip
    _supersede(session, source, target, f"merged into lesson {target.id}", prompt_hash, model)


def _supersede(
    session: Session, old: Lesson, new: Lesson, reason: str, prompt_hash: str, model: str
) -> None:
    supersede_lesson(
        session, old, new, event=None, reason=f"compaction: {reason}", model=model,
        prompt_hash=prompt_hash,
    )  # fmt: skip


def _cap(session: Session, kept_ids: list[int], max_lessons: int) -> list[int]:
    lessons = session.scalars(select(Lesson).where(Lesson.id.in_(kept_ids))).all()
    weakest_first = sorted(
        lessons,
        key=lambda x: (
            x.support_count,
            x.last_seen_at is not None,
            x.last_seen_at or x.created_at,
            -x.id,
        ),
    )
    capped = weakest_first[: len(lessons) - max_lessons]
    reason = f"compaction: over the cap of {max_lessons} lessons"
    for lesson in capped:
        transition(
            session, lesson, op="UPDATE", reason=reason, status="disabled", status_reason=reason
        )
    return [lesson.id for lesson in capped]
