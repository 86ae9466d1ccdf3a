"""Per-agent statistics (``digest stats``): events by status, skip rate, lessons by status,
model usage and the active version; and why an agent's events were skipped (``digest demo``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, func, not_, select
from sqlalchemy.orm import Session

from digest.agents import LEARNING_OFF_REASON
from digest.config import get_settings
from digest.lessons.budgets import agent_spend, budget_waits, events_per_agent, tenant_budgets
from digest.lessons.edit_rate import edit_rate
from digest.lessons.release import Gate, released_clause
from digest.lessons.signals import undigested_signals
from digest.model.prefixes import OFFLINE_PREFIX, SCRIPTED_PREFIX
from digest.models import (
    EVENT_STATUSES,
    LESSON_STATUSES,
    Agent,
    DigestRun,
    Event,
    LearningVersion,
    Lesson,
    Tenant,
    as_utc,
    utcnow,
)
from digest.tenants import agent_named, find_agent, policy_for, tenant_named, unknown_key

#: waiting events listed per agent (the count is in ``events["waiting"]``)
WAITING_SHOWN = 5
#: the weeks ``stats`` measures the edit rate over
EDIT_RATE_WEEKS = 4


@dataclass(frozen=True)
class AgentStats:
    tenant: str
    agent: str
    events: dict[str, int]
    skip_rate: float
    lessons: dict[str, int]
    #: calls to a provider's model (what may cost money), and their tokens and cost
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    active_version: int | None
    #: calls answered in this process, by the offline rules (``offline/*``) or a test's scripted
    #: model (``scripted/*``): free, no provider, counted apart
    offline_calls: int = 0
    offline_prompt_tokens: int = 0
    offline_completion_tokens: int = 0
    #: reflected events supporting an active lesson since the last compose, and how many of
    #: them schedule the next one (the tenant's threshold)
    signals: int = 0
    threshold: int = 0
    #: events put back after a model fault, soonest first (at most WAITING_SHOWN): id, reason,
    #: next attempt (ISO 8601) and since when its faults have lasted
    waiting: list[dict[str, Any]] = field(default_factory=list)
    #: active lessons no agent reads yet (``digest.lessons.release``), and what releases them:
    #: ``gate`` independent sources whose runs span ``spread_s`` seconds, or a person
    held: int = 0
    gate: int = 0
    spread_s: int = 0
    #: how much the agent's drafts needed editing over the last EDIT_RATE_WEEKS weeks
    #: (``digest.lessons.edit_rate``): the weeks, and ``summary`` in words
    edit_rate: dict[str, Any] | None = None
    #: the agent's learning switch (``digest agent set --learning``); off, its events are
    #: captured and skipped: ``skipped_learning_off`` of them so far
    enable_learning: bool = True
    skipped_learning_off: int = 0
    #: provider tokens and cost on the budget day so far (``digest.lessons.budgets``), the
    #: events waiting for the tenant's next budget day, and the tenant's budget day itself
    today_tokens: int = 0
    today_cost_usd: float = 0.0
    budget_waiting: int = 0
    tenant_budget: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _selected_agents(
    session: Session, tenant: str | None, agent: str | None
) -> tuple[list[tuple[Agent, str]], Select[int]]:
    """The agents to report on, with their tenant's name, and the same selection as a
    subquery of ids (an IN list of every agent of every tenant could outgrow the driver)."""
    conditions: list[ColumnElement[bool]] = []
    if tenant is not None:
        if agent is not None:
            find_agent(session, tenant, agent)  # NotFound naming the tenant or the agent
        elif session.scalar(select(Tenant.id).where(tenant_named(tenant))) is None:
            raise unknown_key("tenant", tenant)
        conditions.append(tenant_named(tenant))
    if agent is not None:
        conditions.append(agent_named(agent))
    query = select(Agent, Tenant.name).join(Tenant, Tenant.id == Agent.tenant_id)
    rows = [
        (a, name)
        for a, name in session.execute(query.where(*conditions).order_by(Tenant.name, Agent.name))
    ]
    if agent is not None and not rows:
        raise unknown_key("agent", agent, " in any tenant")
    # correlate(None): inside a query on agents the subquery must still read its own agents.
    ids = (
        select(Agent.id)
        .join(Tenant, Tenant.id == Agent.tenant_id)
        .where(*conditions)
        .correlate(None)
    )
    return rows, ids


def agent_stats(
    session: Session, tenant: str | None = None, agent: str | None = None
) -> list[AgentStats]:
    """Per agent (one, a tenant's, or every tenant's): events and lessons by status, the skip
    rate, LLM usage and cost over all digest runs, and the active version number."""
    selected, ids = _selected_agents(session, tenant, agent)
    if not selected:
        return []
    events: dict[int, dict[str, int]] = {
        a.id: dict.fromkeys(EVENT_STATUSES, 0) for a, _ in selected
    }
    for agent_id, status, n in session.execute(
        select(Event.agent_id, Event.status, func.count())
        .where(Event.agent_id.in_(ids))
        .group_by(Event.agent_id, Event.status)
    ):
        events[agent_id][status] = int(n)
    lessons: dict[int, dict[str, int]] = {
        a.id: dict.fromkeys(LESSON_STATUSES, 0) for a, _ in selected
    }
    for agent_id, status, n in session.execute(
        select(Lesson.agent_id, Lesson.status, func.count())
        .where(Lesson.agent_id.in_(ids))
        .group_by(Lesson.agent_id, Lesson.status)
    ):
        lessons[agent_id][status] = int(n)
    # offline/* and scripted/* runs are answered in process: they cost nothing and reach no
    # provider, so their calls are counted apart
    model = func.coalesce(DigestRun.model, "")
    offline = model.like(f"{OFFLINE_PREFIX}%") | model.like(f"{SCRIPTED_PREFIX}%")
    usage: dict[tuple[int, bool], tuple[int, int, int, float]] = {
        (agent_id, bool(free)): (int(calls), int(prompt), int(completion), float(cost))
        for agent_id, free, calls, prompt, completion, cost in session.execute(
            select(
                DigestRun.agent_id,
                offline,
                func.coalesce(func.sum(DigestRun.llm_calls), 0),
                func.coalesce(func.sum(DigestRun.prompt_tokens), 0),
                func.coalesce(func.sum(DigestRun.completion_tokens), 0),
                func.coalesce(func.sum(DigestRun.cost_usd), 0.0),
            )
            .where(DigestRun.agent_id.in_(ids))
            .group_by(DigestRun.agent_id, offline)
        )
    }
    numbers: dict[int, int] = {
        agent_id: number
        for agent_id, number in session.execute(
            select(Agent.id, LearningVersion.number)
            .join(LearningVersion, LearningVersion.id == Agent.current_version_id)
            .where(Agent.id.in_(ids))
        )
    }
    waiting: dict[int, list[dict[str, Any]]] = {a.id: [] for a, _ in selected}
    for event_id, agent_id, reason, due, since in session.execute(
        select(
            Event.id, Event.agent_id, Event.last_error, Event.next_attempt_at, Event.waiting_since
        )
        .where(Event.agent_id.in_(ids), Event.status == "waiting")
        .order_by(Event.next_attempt_at, Event.id)
    ):
        shown = waiting[agent_id]
        if len(shown) < WAITING_SHOWN:
            shown.append(
                {
                    "event_id": event_id,
                    "reason": reason,
                    "next_attempt_at": as_utc(due).isoformat() if due else None,
                    "waiting_since": as_utc(since).isoformat() if since else None,
                }
            )
    learning_off = events_per_agent(
        session, ids, Event.status == "skipped", Event.skip_reason == LEARNING_OFF_REASON
    )
    gates, held = _held(session, [a for a, _ in selected])
    now = utcnow()
    since = now - timedelta(days=7 * EDIT_RATE_WEEKS)
    threshold = get_settings().edit_ratio_threshold
    settings = get_settings()
    tenants = {
        t.id: t
        for t in session.scalars(
            select(Tenant).where(Tenant.id.in_({a.tenant_id for a, _ in selected}))
        )
    }
    today, waits = agent_spend(session, ids), budget_waits(session, ids)
    days = {b.tenant: b.to_json() for b in tenant_budgets(session, settings, tenant)}
    result = []
    for agent_row, tenant_name in selected:
        counts = events[agent_row.id]
        decided = counts["reflected"] + counts["skipped"]
        calls, prompt, completion, cost = usage.get((agent_row.id, False), (0, 0, 0, 0.0))
        free_calls, free_prompt, free_completion, _ = usage.get((agent_row.id, True), (0, 0, 0, 0))
        result.append(
            AgentStats(
                tenant=tenant_name,
                agent=agent_row.name,
                events=counts,
                skip_rate=round(counts["skipped"] / decided, 4) if decided else 0.0,
                lessons=lessons[agent_row.id],
                llm_calls=calls,
                prompt_tokens=prompt,
                completion_tokens=completion,
                cost_usd=round(cost, 6),
                active_version=numbers.get(agent_row.id),
                waiting=waiting[agent_row.id],
                held=held.get(agent_row.id, 0),
                gate=gates[agent_row.id].gate,
                spread_s=gates[agent_row.id].spread_s,
                edit_rate=edit_rate(
                    session, agent_row.id, since, EDIT_RATE_WEEKS, threshold
                ).to_json(),
                offline_calls=free_calls,
                offline_prompt_tokens=free_prompt,
                offline_completion_tokens=free_completion,
                signals=undigested_signals(session, agent_row),
                threshold=policy_for(tenants[agent_row.tenant_id], settings).threshold_signals,
                enable_learning=agent_row.enable_learning,
                skipped_learning_off=learning_off.get(agent_row.id, 0),
                today_tokens=today.get(agent_row.id, (0, 0.0))[0],
                today_cost_usd=round(today.get(agent_row.id, (0, 0.0))[1], 6),
                budget_waiting=waits.get(agent_row.id, 0),
                tenant_budget=days.get(tenant_name),
            )
        )
    return result


def _held(session: Session, agents: list[Agent]) -> tuple[dict[int, Gate], dict[int, int]]:
    """Each agent's release gate, and how many of its active lessons it holds: one count per
    distinct gate among their tenants."""
    settings = get_settings()
    tenants = {
        t.id: t
        for t in session.scalars(select(Tenant).where(Tenant.id.in_({a.tenant_id for a in agents})))
    }
    gates = {a.id: Gate.of(tenants[a.tenant_id], settings) for a in agents}
    held: dict[int, int] = {}
    for gate in set(gates.values()):
        ids = [agent_id for agent_id, g in gates.items() if g == gate]
        for agent_id, n in session.execute(
            select(Lesson.agent_id, func.count())
            .where(Lesson.agent_id.in_(ids), Lesson.status == "active", not_(released_clause(gate)))
            .group_by(Lesson.agent_id)
        ):
            held[agent_id] = int(n)
    return gates, held


def skip_reasons(session: Session, tenant: str, agent: str) -> Counter[str]:
    """How many of the agent's events were skipped (nothing to learn), by reason."""
    agent_row = find_agent(session, tenant, agent)
    reasons = session.scalars(
        select(Event.skip_reason).where(Event.agent_id == agent_row.id, Event.status == "skipped")
    )
    return Counter(str(reason) for reason in reasons)
