"""The three ways a new version is proposed (DESIGN §5): threshold, weekly sweep, improve now.

- **Threshold**: after an event is reflected, an agent with at least N undigested signals
  (tenant setting, default 5) gets a compose scheduled after a quiet period (default 120 s).
  One scheduled compose per agent at a time: its token on the agent (``compose_token``, which
  also carries when it is due) marks it outstanding, and later events only leave activity for
  it to see — no count query, no new message per event. When it fires it re-checks that the
  agent has been quiet and otherwise reschedules itself under a new token (latest wins). A
  token whose message must have been lost (due longer ago than the broker's visibility
  timeout) no longer counts as outstanding, so a lost message never strands an agent; the
  weekly sweep catches up anyway. Countdowns stay below the broker's visibility timeout.
- **Sweep**: a weekly beat task. It is a catch-up query (agents whose lessons changed since
  their last compose), so a missed week is caught once by the next run. It also expires
  lessons past ``expires_at``, retires held untrusted lessons nothing corroborated within
  ``DIGEST_UNCONFIRMED_TTL_DAYS``, retires lessons measured as harmful
  (``digest.lessons.effect``; before the catch-up query, so the next version drops them),
  prunes versions and relays stranded events. Expired lessons do not wait for it: the relay's
  beat task disables them every interval and composes their agents (``expire_due``).
- **Improve now** (``digest.pipeline.improve_now``; ``request_improve_now`` asks a worker
  to run it): reflect the agent's pending events at once, then compose, ignoring the
  threshold and the quiet period.

A signal is a reflected event that supports an active lesson; it is undigested while it
finished after the agent's last compose.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import exists, func, not_, select, update
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.lessons.effect.retire import retire_harmful_lessons
from digest.lessons.release import Gate, held_note, released_clause
from digest.lessons.signals import undigested_signals
from digest.lessons.transition import (
    EXPIRED_REASON,
    UNCONFIRMED_REASON,
    lock_agent_lessons,
    transition,
)
from digest.logs import get_logger
from digest.models import Agent, Event, Lesson, Tenant, as_utc, utcnow
from digest.outbox import publish
from digest.outbox.relay import relay_pending
from digest.tenants import find_agent, policy_for
from digest.versions.chain import prune_versions
from digest.versions.compose import ComposeResult, compose_version

log = get_logger("digest.triggers")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: a countdown must be shorter than the broker's visibility timeout, with this margin
_VISIBILITY_MARGIN_S = 60


def _countdown(seconds: float, settings: Settings) -> float:
    return max(0.0, min(seconds, settings.visibility_timeout_s - _VISIBILITY_MARGIN_S))


def new_token(due_in_s: float) -> str:
    """A compose token: when the scheduled compose is due (unix seconds), then random."""
    return f"{int(time.time() + due_in_s)}-{uuid.uuid4().hex[:16]}"


def token_outstanding(token: str | None, settings: Settings, now: float | None = None) -> bool:
    """Is the compose this token names still on its way? Once it is due by more than the
    broker's visibility timeout, even a message held by a worker that died has been
    redelivered and run: a token still set then belongs to a lost message."""
    if not token:
        return False
    due, _, rest = token.partition("-")
    if not rest or not due.isdigit():
        return False  # a token from before due times were recorded: schedule afresh
    now = time.time() if now is None else now
    return int(due) + settings.visibility_timeout_s > now


def _swap_token(session: Session, agent_id: int, old: str | None, new: str | None) -> bool:
    """Compare and set the agent's compose token; False if someone else changed it first."""
    matches = Agent.compose_token.is_(None) if old is None else Agent.compose_token == old
    result = session.execute(
        update(Agent).where(Agent.id == agent_id, matches).values(compose_token=new)
    )
    return bool(getattr(result, "rowcount", 0))


def after_reflect(agent_id: int, settings: Settings | None = None) -> str | None:
    """Schedule a threshold compose if the agent has enough undigested signals and none is
    scheduled yet.

    Returns the token of the newly scheduled compose, or None (nothing due, already
    scheduled, or not published). Embedded mode has no scheduler: there the sweep and
    improve-now compose.
    """
    settings = settings or get_settings()
    if settings.embedded:
        return None
    with read_scope(settings.database_url) as session:
        # The cheap check first: with a compose outstanding this is the only query (and no
        # transaction: the compare-and-set below is what decides).
        row = session.execute(
            select(Agent.compose_token, Agent.enable_learning).where(Agent.id == agent_id)
        ).first()
    if row is None or not row.enable_learning:
        return None
    if token_outstanding(row.compose_token, settings):
        return None  # the scheduled compose will see this activity when it fires
    with session_scope(settings.database_url) as session:
        agent = session.get(Agent, agent_id)
        tenant = session.get(Tenant, agent.tenant_id) if agent else None
        if agent is None or tenant is None:
            return None
        policy = policy_for(tenant, settings)
        signals = undigested_signals(session, agent)
        if signals < policy.threshold_signals:
            return None
        countdown = _countdown(policy.quiet_seconds, settings)
        token = new_token(countdown)
        if not _swap_token(session, agent_id, row.compose_token, token):
            return None  # another worker scheduled one meanwhile
    published = publish.publish_task(
        publish.TASK_COMPOSE_VERSION, [agent_id, "threshold", token], settings, countdown=countdown
    )
    if not published:
        # Nothing is on its way: free the slot so the next event tries again.
        with session_scope(settings.database_url) as session:
            _swap_token(session, agent_id, token, None)
    log.info("compose_scheduled", agent_id=agent_id, signals=signals, published=published)
    return token if published else None


def threshold_compose(
    agent_id: int, token: str, settings: Settings | None = None
) -> ComposeResult | str:
    """The scheduled compose: runs only if still the latest schedule and the agent is quiet;
    otherwise it reschedules itself (under a new token) for when the quiet period ends."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent = session.get(Agent, agent_id)
        tenant = session.get(Tenant, agent.tenant_id) if agent else None
        if agent is None or tenant is None:
            return "missing"
        if agent.compose_token != token:
            return "replaced"  # a later schedule (or another compose) took over
        quiet = policy_for(tenant, settings).quiet_seconds
        last = session.scalar(select(func.max(Event.created_at)).where(Event.agent_id == agent_id))
        waited = quiet if last is None else (utcnow() - as_utc(last)).total_seconds()
        countdown = _countdown(quiet - waited, settings)
        later = new_token(countdown) if waited < quiet else None
        if later is not None and not _swap_token(session, agent_id, token, later):
            return "replaced"
    if later is not None:
        if publish.publish_task(
            publish.TASK_COMPOSE_VERSION, [agent_id, "threshold", later], settings,
            countdown=countdown,
        ):  # fmt: skip
            return "rescheduled"
        with session_scope(settings.database_url) as session:
            _swap_token(session, agent_id, later, None)
        return "reschedule_failed"
    began = utcnow()
    result = compose_version(agent_id, "threshold", settings)
    with session_scope(settings.database_url) as session:
        _swap_token(session, agent_id, token, None)  # "created" already cleared it
        # Events reflected while the compose ran found it outstanding and scheduled nothing;
        # their lessons may have missed this version, so one more compose looks at them.
        busy = session.scalar(
            select(Event.id)
            .where(
                Event.agent_id == agent_id,
                Event.status == "reflected",
                Event.finished_at >= began,
            )
            .limit(1)
        )
        again = new_token(_countdown(quiet, settings)) if busy is not None else None
        if again is not None and not _swap_token(session, agent_id, None, again):
            again = None  # someone scheduled one already
    if again is None:
        after_reflect(agent_id, settings)  # signals since the last compose, as after an event
    elif not publish.publish_task(
        publish.TASK_COMPOSE_VERSION, [agent_id, "threshold", again], settings,
        countdown=_countdown(quiet, settings),
    ):  # fmt: skip
        with session_scope(settings.database_url) as session:
            _swap_token(session, agent_id, again, None)
    return result


@dataclass
class SweepReport:
    composed: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    #: due agents handed to workers as separate compose tasks (``fan_out``)
    scheduled: list[int] = field(default_factory=list)
    expired: int = 0
    #: ids of held untrusted lessons retired unconfirmed (``DIGEST_UNCONFIRMED_TTL_DAYS``)
    unconfirmed: list[int] = field(default_factory=list)
    #: ids of active lessons retired as measured harmful (``digest.lessons.effect``)
    retired: list[int] = field(default_factory=list)
    pruned: int = 0
    relayed: int = 0


def due_agents(session: Session) -> list[int]:
    """Agents whose lessons changed since their last compose (the catch-up query)."""
    changed = exists(
        select(Lesson.id).where(
            Lesson.agent_id == Agent.id,
            Lesson.updated_at > func.coalesce(Agent.composed_at, _EPOCH),
        )
    )
    return list(
        session.scalars(
            select(Agent.id).where(Agent.enable_learning.is_(True), changed).order_by(Agent.id)
        )
    )


def expire_lessons(session: Session) -> int:
    """Lessons past ``expires_at`` leave the bank (disabled, with a history row), agent by
    agent under the agent's lesson lock taken before the lessons are read, so a reflection
    writing meanwhile is neither overwritten nor left with a plan naming an expired lesson.
    Returns how many."""
    return sum(_expire_lessons(session).values())


def _expire_lessons(session: Session) -> dict[int, int]:
    """``expire_lessons``, counted per agent. The partial index ``ix_lessons_expires_at``
    (lessons with an expiry only) keeps the first read cheap enough for every relay run."""
    now = utcnow()
    expired = (Lesson.expires_at.is_not(None), Lesson.expires_at <= now, Lesson.status == "active")
    agent_ids = session.scalars(select(Lesson.agent_id).where(*expired).distinct()).all()
    count: dict[int, int] = {}
    for agent_id in sorted(agent_ids):
        lock_agent_lessons(session, agent_id)
        lessons = session.scalars(
            select(Lesson)
            .where(Lesson.agent_id == agent_id, *expired)
            .execution_options(populate_existing=True)
        ).all()
        for lesson in lessons:
            transition(
                session, lesson, op="UPDATE", reason=EXPIRED_REASON, status="disabled",
                status_reason=f"expired at {lesson.expires_at}", updated_at=now,
            )  # fmt: skip
        if lessons:
            count[agent_id] = len(lessons)
    return count


def expire_due(settings: Settings | None = None, *, fan_out: bool = False) -> list[int]:
    """Lessons whose expiry has passed leave the bank now, not at the weekly sweep: each is
    disabled (``expire_lessons``) and each agent that had one composes (trigger ``sweep``), so
    its learning document drops them too. ``pitfalls``, ``examples`` and the neighbour search
    stop reading a lesson at its expiry on their own; this brings the document after them.
    The relay's beat task runs it every ``DIGEST_RELAY_INTERVAL_S``; with ``fan_out`` each
    compose is a task of its own. An agent whose learning is off composes nothing by itself,
    here as at the sweep. Returns the agents to compose."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        expired = sorted(_expire_lessons(session))
        learning = select(Agent.id).where(Agent.id.in_(expired), Agent.enable_learning.is_(True))
        agents = list(session.scalars(learning.order_by(Agent.id))) if expired else []
    for agent_id in agents:
        if not fan_out or settings.embedded:
            compose_version(agent_id, "sweep", settings)
        elif not publish.publish_task(publish.TASK_COMPOSE_VERSION, [agent_id, "sweep"], settings):
            # the relay's time limit is short: the weekly sweep composes it (it is due)
            log.warning("expiry_compose_not_published", agent_id=agent_id)
    if agents:
        log.info("expired_lessons_composed", agents=len(agents))
    return agents


def retire_unconfirmed_lessons(session: Session, settings: Settings) -> list[int]:
    """Active untrusted lessons still held by the release rule (no independent sources enough,
    no person's release) ``DIGEST_UNCONFIRMED_TTL_DAYS`` after they began waiting (created,
    or rewritten by run text, which restarts the count: ``sources_since``) leave the bank:
    disabled, with a history row saying why. Agent by agent under the lesson lock, each lesson
    checked again once locked. Their ids; none when the setting is 0."""
    days = settings.unconfirmed_ttl_days
    if days <= 0:
        return []
    cutoff = utcnow() - timedelta(days=days)
    waiting_since = func.coalesce(Lesson.sources_since, Lesson.created_at)
    retired: list[int] = []
    for tenant in session.scalars(select(Tenant).order_by(Tenant.id)).all():
        gate = Gate.of(tenant, settings)
        stale = (
            Lesson.tenant_id == tenant.id,
            Lesson.status == "active",
            Lesson.trust == "untrusted",
            not_(released_clause(gate)),
            waiting_since <= cutoff,
        )
        agent_ids = session.scalars(select(Lesson.agent_id).where(*stale).distinct()).all()
        for agent_id in sorted(agent_ids):
            lock_agent_lessons(session, agent_id)
            lessons = session.scalars(
                select(Lesson)
                .where(Lesson.agent_id == agent_id, *stale)
                .order_by(Lesson.id)
                .execution_options(populate_existing=True)
            ).all()
            for lesson in lessons:
                counted = (lesson.trust, lesson.independent_sources, lesson.source_span_s)
                note = held_note(*counted, gate) or "held"
                why = (
                    f"{UNCONFIRMED_REASON}: {note.removeprefix('held: ')} after {days} days "
                    "(DIGEST_UNCONFIRMED_TTL_DAYS); it was never shown to an agent"
                )
                transition(
                    session, lesson, op="UPDATE", reason=why, status="disabled",
                    status_reason=why,
                )  # fmt: skip
                retired.append(lesson.id)
    return retired


def sweep(settings: Settings | None = None, *, fan_out: bool = False) -> SweepReport:
    """The weekly catch-up. Running it twice in a row composes nothing the second time.

    With ``fan_out`` (the beat task) each due agent becomes its own compose task, so one
    sweep over many agents never runs into a task time limit; composing is idempotent, so a
    compose scheduled twice writes one version.
    """
    settings = settings or get_settings()
    report = SweepReport()
    with session_scope(settings.database_url) as session:
        report.expired = expire_lessons(session)
        report.unconfirmed = retire_unconfirmed_lessons(session, settings)
    report.retired = [effect.lesson_id for effect in retire_harmful_lessons(settings)]
    with session_scope(settings.database_url) as session:
        for agent in session.scalars(select(Agent)).all():
            report.pruned += prune_versions(session, agent, settings.keep_versions)
        due = due_agents(session)
    for agent_id in due:
        if (
            fan_out
            and not settings.embedded
            and publish.publish_task(publish.TASK_COMPOSE_VERSION, [agent_id, "sweep"], settings)
        ):
            report.scheduled.append(agent_id)
            continue
        result = compose_version(agent_id, "sweep", settings)
        (report.composed if result.status == "created" else report.unchanged).append(agent_id)
    report.relayed = len(relay_pending(settings))
    log.info(
        "sweep_done",
        composed=len(report.composed),
        unchanged=len(report.unchanged),
        scheduled=len(report.scheduled),
        expired=report.expired,
        unconfirmed=len(report.unconfirmed),
        retired=len(report.retired),
        pruned=report.pruned,
        relayed=report.relayed,
    )
    return report


def request_improve_now(
    tenant: str, agent: str, settings: Settings | None = None
) -> datetime | None:
    """Ask the workers to improve the agent now (the ``digest.improve_now`` task: reflect its
    pending events, then compose with trigger ``manual``). Returns the moment it asked, which
    the worker's compose run starts after, or None if the broker did not take the task
    (nothing was changed). ``NotFound`` for an unknown tenant or agent, before anything is sent.
    """
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        find_agent(session, tenant, agent)
    asked = utcnow()
    if not publish.publish_task(publish.TASK_IMPROVE_NOW, [tenant, agent], settings):
        return None
    return asked
