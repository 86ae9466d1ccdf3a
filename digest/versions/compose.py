"""Versioned learning documents (DESIGN §1, §3, §5).

An agent's lessons reach it as one markdown document that changes rarely, visibly and
reversibly. ``compose_version`` renders the lessons that pass the frequency gate into a
byte-stable body; a new version is written only when that body differs from the current one.

The chain per agent is append-only and numbered 1, 2, 3 … without gaps: numbers are taken
under a transaction-level advisory lock (released by the server if a worker dies), so two
concurrent composes produce one version. At most ``DIGEST_KEEP_VERSIONS`` (20) versions are
kept per agent; the active one is never pruned.

Whether a new version becomes active at once or waits as ``pending`` for ``approve`` or
``reject`` (``hold_reasons``; the reasons are stored with it as ``hold_reason``):

- the tenant's apply mode: ``auto`` activates, ``approval`` always waits, ``staged`` waits
  only when the version changes (UPDATE) or retires a trusted or reviewed lesson of the
  active version (``trusted_changes``);
- in every mode, the replay (``digest.versions.replay``): a proposal that covers fewer of the
  agent's recent failed or edited events than the active version, by more than
  ``DIGEST_REPLAY_MARGIN`` of them, or that folds fewer than ``DIGEST_REPLAY_SHRINK_RATIO`` of
  its lessons, waits, even in auto mode.

``rollback`` appends a copy of an earlier body, active in every mode: a person asked for it.

The summarize step (``prompts/summarize.md``) writes the change note; the model call happens
with no transaction open. If it fails after its retries, the deterministic note is used and
the failure is recorded on the compose run: a version is never lost to a summary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import DigestError, LLMError, NotFound
from digest.logs import get_logger
from digest.model import seam as llm
from digest.model.contracts import change_note, embed_json, parse_summary
from digest.model.prompts import load_prompt
from digest.models import (
    PROTECTED_TRUST,
    Agent,
    DigestRun,
    LearningVersion,
    Lesson,
    LessonEvidence,
    LessonHistory,
    Tenant,
    as_utc,
    utcnow,
)
from digest.tenants import TenantPolicy, find_agent, policy_for
from digest.versions import replay
from digest.versions.document import eligible_lessons, render_body

log = get_logger("digest.versions")

#: advisory lock class for version writes (ASCII "lv"); lesson writes use another class.
_LOCK_CLASS = 0x6C76


@dataclass(frozen=True)
class ComposeResult:
    status: str  # "created" | "no_change"
    version_id: int | None = None
    number: int | None = None
    version_status: str | None = None
    change_summary: str | None = None
    #: improve-now: the agent's events captured before it was asked that this version could
    #: not cover: still waiting after a model fault, or still being reflected elsewhere when
    #: the wait for them (DIGEST_IMPROVE_WAIT_S) ran out
    waiting: int = 0
    in_flight: int = 0
    #: why the new version waits for a person instead of being active (None: it is active)
    hold_reason: str | None = None


@dataclass
class _Draft:
    """Everything compose decided while reading, carried to the write."""

    body: str
    lesson_ids: list[int]
    event_ids: list[int]
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)


def lock_versions(session: Session, agent_id: int) -> None:
    """Serialise version writes per agent until the transaction ends (Postgres)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(_LOCK_CLASS, agent_id % 2_147_483_647)))


def current_version(session: Session, agent: Agent) -> LearningVersion | None:
    if agent.current_version_id is None:
        return None
    return session.get(LearningVersion, agent.current_version_id)


def _latest_pending(session: Session, agent_id: int) -> LearningVersion | None:
    return session.scalars(
        select(LearningVersion)
        .where(LearningVersion.agent_id == agent_id, LearningVersion.status == "pending")
        .order_by(LearningVersion.number.desc())
        .limit(1)
    ).first()


def _draft(
    session: Session, agent: Agent, policy: TenantPolicy, current: LearningVersion | None
) -> _Draft:
    lessons = eligible_lessons(
        session, agent.id, policy.frequency_gate, utcnow(), policy.independent_spread_s
    )
    ids = [lesson.id for lesson in lessons]
    event_ids: list[int] = []
    if ids:
        event_ids = sorted(
            set(
                session.scalars(
                    select(LessonEvidence.event_id).where(LessonEvidence.lesson_id.in_(ids))
                )
            )
        )
    draft = _Draft(render_body(agent.name, lessons), sorted(ids), event_ids)
    before = set(current.folded_lesson_ids or []) if current else set()
    for lesson in lessons:
        if lesson.id not in before:
            draft.added.append(lesson.title)
        elif current is not None and as_utc(lesson.updated_at) > as_utc(current.created_at):
            draft.changed.append(lesson.title)
    gone = sorted(before - set(ids))
    if gone:
        draft.retired = list(
            session.scalars(select(Lesson.title).where(Lesson.id.in_(gone)).order_by(Lesson.id))
        )
    return draft


def compose_version(agent_id: int, trigger: str, settings: Settings | None = None) -> ComposeResult:
    """Compose a new version for one agent if its document would change. Idempotent."""
    settings = settings or get_settings()
    started = time.monotonic()
    usage = llm.Usage()
    for _ in range(3):
        with session_scope(settings.database_url) as session:
            agent, policy = _agent_policy(session, agent_id, settings)
            current = current_version(session, agent)
            draft = _draft(session, agent, policy, current)
            if _same_as_latest(session, agent, current, draft.body):
                agent.composed_at = utcnow()
                session.add(_run(agent, trigger, usage, started, None, draft=None))
                log.info("compose_no_change", agent_id=agent_id, trigger=trigger)
                return ComposeResult("no_change")
            number_hint = _next_number(session, agent_id)
            agent_name = agent.name
            agent_model = agent.llm_model
            baseline = current.id if current is not None else None
            plan = replay.prepare(session, agent_id, current, draft.lesson_ids, settings)
        summary, error = _summarize(
            agent_name, agent_model, number_hint, current, draft, usage, settings
        )
        proof = _Proof(baseline, plan.run() if plan is not None else None, plan)
        result = _write(agent_id, trigger, draft, summary, error, usage, started, settings, proof)
        if result is not None:
            return result
    raise DigestError(f"agent {agent_id}: lessons kept changing while composing; try again")


def _agent_policy(
    session: Session, agent_id: int, settings: Settings
) -> tuple[Agent, TenantPolicy]:
    agent = session.get(Agent, agent_id)
    if agent is None:
        raise NotFound(f"unknown agent id {agent_id}")
    tenant = session.get(Tenant, agent.tenant_id)
    assert tenant is not None
    return agent, policy_for(tenant, settings)


def _same_as_latest(
    session: Session, agent: Agent, current: LearningVersion | None, body: str
) -> bool:
    """True when the body would repeat the active version, or a version awaiting approval."""
    if current is None and body == render_body(agent.name, []):
        return True  # nothing learned yet: no version 1 with an empty document
    if current is not None and current.body_markdown == body:
        return True
    pending = _latest_pending(session, agent.id)
    return pending is not None and pending.body_markdown == body


def _next_number(session: Session, agent_id: int) -> int:
    highest = session.scalar(
        select(func.max(LearningVersion.number)).where(LearningVersion.agent_id == agent_id)
    )
    return int(highest or 0) + 1


def _summarize(
    agent_name: str,
    agent_model: str | None,
    number: int,
    current: LearningVersion | None,
    draft: _Draft,
    usage: Any,
    settings: Settings,
) -> tuple[str, str | None]:
    """The change note from the summarize step, or the deterministic one if the step fails."""
    fallback = change_note(draft.added, draft.changed, draft.retired)
    prompt = load_prompt("summarize")
    messages = prompt.render(
        agent=agent_name,
        number=number,
        previous=current.number if current else "none",
        added_json=embed_json(draft.added),
        changed_json=embed_json(draft.changed),
        retired_json=embed_json(draft.retired),
    )
    model = agent_model or settings.model_for("summarize")
    try:
        return llm.call_and_parse(
            messages, parse_summary, model=model, usage=usage, settings=settings
        ), None
    except LLMError as exc:
        log.warning("summarize_failed", error=str(exc))
        return fallback, f"summarize failed, deterministic note used: {exc}"


@dataclass(frozen=True)
class _Proof:
    """The replay compose ran for its draft, against the version active then."""

    #: the id of that active version (None: none)
    baseline: int | None
    report: replay.ReplayReport | None
    plan: replay.ReplayPlan | None


def _write(
    agent_id: int,
    trigger: str,
    draft: _Draft,
    summary: str,
    error: str | None,
    usage: Any,
    started: float,
    settings: Settings,
    proof: _Proof,
) -> ComposeResult | None:
    """Write the version under the agent's version lock. None: the lessons (or the active
    version the replay compared with) moved meanwhile."""
    with session_scope(settings.database_url) as session:
        lock_versions(session, agent_id)
        if proof.plan is not None:
            replay.store_probes(session, proof.plan.stored_vectors())
        agent, policy = _agent_policy(session, agent_id, settings)
        current = current_version(session, agent)
        fresh = _draft(session, agent, policy, current)
        if _same_as_latest(session, agent, current, fresh.body):
            agent.composed_at = utcnow()  # a concurrent compose wrote it first
            session.add(_run(agent, trigger, usage, started, error, draft=None))
            return ComposeResult("no_change")
        if fresh.body != draft.body:
            return None  # lessons changed since the summary was written: compose again
        if (current.id if current is not None else None) != proof.baseline:
            return None  # another version became active: replay against it
        reasons = hold_reasons(
            session, policy.learning_apply_mode, trigger, current, draft.lesson_ids,
            proof.report, settings,
        )  # fmt: skip
        active = not reasons
        version = append_version(
            session,
            agent,
            current,
            body_markdown=draft.body,
            change_summary=summary,
            folded_lesson_ids=draft.lesson_ids,
            supporting_event_ids=draft.event_ids,
            proposed_by="digest",
            trigger=trigger,
            llm_calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
            replay=proof.report.to_json() if proof.report is not None else None,
            hold_reason="; ".join(reasons) or None,
        )
        if active:
            activate_version(session, agent, version)
        agent.composed_at = utcnow()
        agent.compose_token = None
        session.add(_run(agent, trigger, usage, started, error, draft=draft, version=version))
        prune_versions(session, agent, settings.keep_versions)
        report = proof.report
        log.info(
            "version_composed",
            agent_id=agent.id,
            number=version.number,
            status=version.status,
            trigger=trigger,
            held=version.hold_reason,
            replayed=report.events if report else None,
            covered=(report.current_covered, report.proposed_covered) if report else None,
            replay_ms=round(report.ms, 1) if report else None,
        )
        return ComposeResult(
            "created", version.id, version.number, version.status, version.change_summary,
            hold_reason=version.hold_reason,
        )  # fmt: skip


def hold_reasons(
    session: Session,
    mode: str,
    trigger: str,
    current: LearningVersion | None,
    lesson_ids: list[int],
    report: replay.ReplayReport | None,
    settings: Settings,
) -> list[str]:
    """Why a new version folding ``lesson_ids`` must wait for a person instead of replacing
    ``current`` at once (empty: it may be activated). A rollback never waits."""
    if trigger == "rollback":
        return []
    reasons = []
    if mode == "approval":
        reasons.append("the tenant's apply mode is approval")
    elif mode == "staged":
        reasons += trusted_changes(session, current, lesson_ids)
    reasons += replay.replay_reasons(report, settings)
    reasons += replay.shrink_reasons(session, current, lesson_ids, settings)
    return reasons


#: the fields of a lesson whose change is an UPDATE of what it says
_TEXT_FIELDS = ("title", "situation", "mistake", "correction", "tags")


def trusted_changes(
    session: Session, current: LearningVersion | None, lesson_ids: list[int]
) -> list[str]:
    """Staged mode: the trusted (or reviewed) lessons of ``current`` that a version folding
    ``lesson_ids`` would change or retire, as a reason naming them (empty: it only adds
    lessons, or changes and retires untrusted ones).

    Changed: its text (title, situation, mistake, correction, tags) was UPDATEd since
    ``current`` was made (``lesson_history``). Retired: ``current`` folds it and the version
    does not (superseded, disabled, deleted or expired)."""
    if current is None:
        return []
    before = set(current.folded_lesson_ids or [])
    kept = sorted(before & set(lesson_ids))
    gone = sorted(before - set(lesson_ids))
    retired = list(
        session.execute(
            select(Lesson.id, Lesson.title)
            .where(Lesson.id.in_(gone), Lesson.trust.in_(PROTECTED_TRUST))
            .order_by(Lesson.id)
        )
    )
    edits = session.execute(
        select(LessonHistory.lesson_id, LessonHistory.before, LessonHistory.after, Lesson.trust)
        .join(Lesson, Lesson.id == LessonHistory.lesson_id)
        .where(
            LessonHistory.lesson_id.in_(kept),
            LessonHistory.op == "UPDATE",
            LessonHistory.at > current.created_at,
        )
    )
    changed_ids = {
        lesson_id
        for lesson_id, old, new, trust in edits
        if (trust in PROTECTED_TRUST or (old or {}).get("trust") in PROTECTED_TRUST)
        and any((old or {}).get(f) != (new or {}).get(f) for f in _TEXT_FIELDS)
    }
    changed = list(
        session.execute(
            select(Lesson.id, Lesson.title)
            .where(Lesson.id.in_(sorted(changed_ids)))
            .order_by(Lesson.id)
        )
    )
    if not changed and not retired:
        return []
    parts = []
    if changed:
        parts.append(f"changes trusted lesson(s) {_named(changed)}")
    if retired:
        parts.append(f"retires trusted lesson(s) {_named(retired)}")
    return [f"staged mode: it {' and '.join(parts)}"]


def _named(rows: list[Any]) -> str:
    return ", ".join(f"#{row.id} “{row.title}”" for row in rows)


def _run(
    agent: Agent,
    trigger: str,
    usage: Any,
    started: float,
    error: str | None,
    *,
    draft: _Draft | None,
    version: LearningVersion | None = None,
) -> DigestRun:
    return DigestRun(
        tenant_id=agent.tenant_id,
        agent_id=agent.id,
        version_id=version.id if version else None,
        kind="compose",
        trigger=trigger,
        n_add=len(draft.added) if draft else 0,
        n_update=len(draft.changed) if draft else 0,
        n_delete=len(draft.retired) if draft else 0,
        llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage.cost_usd,
        duration_ms=int((time.monotonic() - started) * 1000),
        error=error,
    )


def append_version(
    session: Session, agent: Agent, current: LearningVersion | None, **fields: Any
) -> LearningVersion:
    """Append a ``pending`` version to the agent's chain (the caller holds the version lock):
    the next number, linked to the current version. ``fields`` are the version's columns."""
    version = LearningVersion(
        tenant_id=agent.tenant_id,
        agent_id=agent.id,
        number=_next_number(session, agent.id),
        previous_version_id=current.id if current else None,
        status="pending",
        created_at=utcnow(),
        **fields,
    )
    session.add(version)
    session.flush()
    return version


def activate_version(session: Session, agent: Agent, version: LearningVersion) -> None:
    current = current_version(session, agent)
    if current is not None and current.id != version.id:
        current.status = "superseded"
    version.status = "active"
    agent.current_version_id = version.id


def prune_versions(session: Session, agent: Agent, keep: int) -> int:
    """Keep at most ``keep`` versions: drop the oldest inactive ones, never the active one.
    Decided (superseded, rejected) versions go first, then the oldest still pending."""
    versions = list(
        session.scalars(
            select(LearningVersion)
            .where(LearningVersion.agent_id == agent.id)
            .order_by(LearningVersion.number)
        )
    )
    excess = len(versions) - keep
    if excess <= 0:
        return 0
    order = {"superseded": 0, "rejected": 0, "pending": 1}
    candidates = sorted(
        (v for v in versions if v.id != agent.current_version_id and v.status != "active"),
        key=lambda v: (order.get(v.status, 2), v.number),
    )
    doomed = [v.id for v in candidates[:excess]]
    if doomed:
        # Later versions point at pruned ones; the chain keeps the numbers.
        session.execute(
            update(LearningVersion)
            .where(LearningVersion.previous_version_id.in_(doomed))
            .values(previous_version_id=None)
        )
        session.execute(
            update(DigestRun).where(DigestRun.version_id.in_(doomed)).values(version_id=None)
        )
        session.execute(delete(LearningVersion).where(LearningVersion.id.in_(doomed)))
    return len(doomed)


@dataclass(frozen=True)
class ComposePreview:
    """What a compose would propose for an agent now, replayed against its active version;
    nothing is written (``digest version replay``)."""

    #: the tenant's apply mode
    mode: str
    #: what a compose now would do: ``no_change`` (the document would be the active version's
    #: or a pending one's), ``activate``, or ``hold`` (it would wait, for ``reasons``)
    outcome: str
    reasons: list[str]
    report: replay.ReplayReport

    def to_json(self, *, per_event: bool = True) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "outcome": self.outcome,
            "reasons": list(self.reasons),
            "replay": self.report.to_json(per_event=per_event),
        }


def preview_compose(
    tenant: str, agent: str, events: int | None = None, settings: Settings | None = None
) -> ComposePreview:
    """Replay what a compose would propose now against the agent's active version, over its
    ``events`` (default ``DIGEST_REPLAY_EVENTS``) most recent failed or edited events, and say
    what that compose would do with it. No model is called and nothing is written."""
    settings = settings or get_settings()
    n = settings.replay_events if events is None else events
    if n < 1:
        raise DigestError(
            "the replay is off (DIGEST_REPLAY_EVENTS=0): give the number of events to replay"
        )
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        agent_row, policy = _agent_policy(session, agent_row.id, settings)
        current = current_version(session, agent_row)
        draft = _draft(session, agent_row, policy, current)
        unchanged = _same_as_latest(session, agent_row, current, draft.body)
        plan = replay.prepare(session, agent_row.id, current, draft.lesson_ids, settings, n)
        # everything but the replay's own verdict, which needs the replay
        reasons = hold_reasons(
            session, policy.learning_apply_mode, "manual", current, draft.lesson_ids, None,
            settings,
        )  # fmt: skip
    assert plan is not None
    report = plan.run()  # with no transaction open: new probes may be embedded by a provider
    reasons += replay.replay_reasons(report, settings)
    outcome = "no_change" if unchanged else "hold" if reasons else "activate"
    return ComposePreview(policy.learning_apply_mode, outcome, [] if unchanged else reasons, report)
