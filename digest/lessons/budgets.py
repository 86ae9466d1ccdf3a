"""Spend against the daily model budget, per tenant and per agent (``digest stats``,
``digest doctor``, the report and the review page).

A tenant's day is read from the ledger that enforces it (``digest.model.spend``: Redis with a
broker). Without a broker the ledger lives in the process that reflects (``digest drain``), so
what another process reads is what ``digest_runs`` recorded for the day; likewise each agent's
share, which is always its ``digest_runs`` of the budget day. Only calls to a provider count:
the offline rules and scripted models cost nothing and are never charged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, not_, or_, select
from sqlalchemy.orm import Session

from digest.config import IN_PROCESS_MODELS, Settings
from digest.db import read_scope
from digest.logs import get_logger
from digest.model import spend
from digest.model.budget import budget_day
from digest.models import DigestRun, Event, Tenant, as_utc, utcnow
from digest.tenants import tenant_named

log = get_logger("digest.stats")

#: ``events.wait_kind`` of an event that waits for its tenant's next budget day
BUDGET = "budget"


@dataclass(frozen=True)
class TenantBudget:
    """One tenant's budget day: its limits, what was spent, and what waits for the next day."""

    tenant: str
    day: str
    daily_tokens: int | None
    daily_cost_usd: float | None
    tokens: int
    cost_usd: float
    #: events waiting for the next budget day, and the soonest they resume (ISO 8601)
    waiting: int
    resume_at: str | None
    #: where ``tokens`` and ``cost_usd`` come from: ``ledger`` or ``digest_runs``
    source: str

    @property
    def spent(self) -> str | None:
        """``token`` or ``cost`` when that budget of the day is used up, else None."""
        if self.daily_tokens is not None and self.tokens >= self.daily_tokens:
            return "token"
        if self.daily_cost_usd is not None and self.cost_usd >= self.daily_cost_usd:
            return "cost"
        return None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "spent": self.spent}

    def sentence(self) -> str:
        """``budget 5,000 tokens a day: 5,018 tokens, $0 spent on 2026-11-26 (UTC), the
        token budget is spent; 4 event(s) wait, resuming 2026-11-27 00:00 UTC``."""
        limits = [f"{self.daily_tokens:,} tokens"] if self.daily_tokens is not None else []
        if self.daily_cost_usd is not None:
            limits.append(f"${self.daily_cost_usd:g}")
        said = f"budget {' and '.join(limits)} a day" if limits else "no daily budget"
        said += f": {self.tokens:,} tokens, ${self.cost_usd:.4f} spent on {self.day} (UTC)"
        if self.spent:
            said += f", the {self.spent} budget is spent"
        if self.waiting:
            when = (self.resume_at or "")[:16].replace("T", " ")
            said += f"; {self.waiting} event(s) wait for the budget, resuming {when} UTC"
        return said


def paid(model: Any) -> Any:
    """The SQL condition: a run whose model is a provider's (not answered in process)."""
    return not_(or_(*(model.startswith(prefix) for prefix in IN_PROCESS_MODELS)))


def day_start(now: datetime) -> datetime:
    """The start of the budget day ``now`` falls in (midnight UTC)."""
    day = now.astimezone(UTC).date()
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def agent_spend(session: Session, agent_ids: Any) -> dict[int, tuple[int, float]]:
    """Each agent's provider tokens and cost on the budget day so far (``digest_runs``)."""
    since = day_start(utcnow())
    return {
        agent_id: (int(tokens), float(cost))
        for agent_id, tokens, cost in session.execute(
            select(
                DigestRun.agent_id,
                func.coalesce(func.sum(DigestRun.prompt_tokens + DigestRun.completion_tokens), 0),
                func.coalesce(func.sum(DigestRun.cost_usd), 0.0),
            )
            .where(
                DigestRun.agent_id.in_(agent_ids),
                DigestRun.started_at >= since,
                paid(DigestRun.model),
            )
            .group_by(DigestRun.agent_id)
        )
    }


def events_per_agent(session: Session, agent_ids: Any, *conditions: Any) -> dict[int, int]:
    """How many events of each agent meet ``conditions`` (agents with none are left out)."""
    return {
        agent_id: int(n)
        for agent_id, n in session.execute(
            select(Event.agent_id, func.count())
            .where(Event.agent_id.in_(agent_ids), *conditions)
            .group_by(Event.agent_id)
        )
    }


def budget_waits(session: Session, agent_ids: Any) -> dict[int, int]:
    """Each agent's events waiting for its tenant's next budget day."""
    return events_per_agent(
        session, agent_ids, Event.status == "waiting", Event.wait_kind == BUDGET
    )


def tenant_budgets(
    session: Session, settings: Settings, tenant: str | None = None, *, every: bool = False
) -> list[TenantBudget]:
    """The budget day of each tenant (``tenant`` alone if given) that has a budget or events
    waiting for one (``every``: all tenants)."""
    now = utcnow()
    query = select(Tenant).order_by(Tenant.name)
    if tenant is not None:
        query = query.where(tenant_named(tenant))
    waits: dict[int, tuple[int, datetime | None]] = {
        tenant_id: (int(n), due)
        for tenant_id, n, due in session.execute(
            select(Event.tenant_id, func.count(), func.min(Event.next_attempt_at))
            .where(Event.status == "waiting", Event.wait_kind == BUDGET)
            .group_by(Event.tenant_id)
        )
    }
    rows = [
        t
        for t in session.scalars(query)
        if every or t.daily_tokens or t.daily_cost_usd or t.id in waits
    ]
    if not rows:
        return []
    recorded = _recorded(session, [t.id for t in rows], day_start(now))
    found = []
    for row in rows:
        tokens, cost, source = *recorded.get(row.id, (0, 0.0)), "digest_runs"
        if not settings.embedded:
            try:
                day = spend.ledger_for(settings).spend(row.name, now)
                tokens, cost, source = day.tokens, day.cost_usd, "ledger"
            except Exception as exc:  # stats still show what digest_runs recorded
                log.warning("budget_ledger_unreadable", error=type(exc).__name__)
        n, due = waits.get(row.id, (0, None))
        found.append(
            TenantBudget(
                tenant=row.name,
                day=budget_day(now),
                daily_tokens=row.daily_tokens,
                daily_cost_usd=None if row.daily_cost_usd is None else float(row.daily_cost_usd),
                tokens=tokens,
                cost_usd=round(cost, 6),
                waiting=n,
                resume_at=as_utc(due).astimezone(UTC).isoformat() if due else None,
                source=source,
            )
        )
    return found


def recorded_reader(settings: Settings, tenant_id: int) -> spend.Recorded | None:
    """For the embedded mode (a ledger kept in process): how to read what the tenant's budget
    day already recorded in ``digest_runs``. None with a broker (the fleet's ledger knows)."""
    if not settings.embedded:
        return None

    def read(now: datetime) -> tuple[int, float]:
        with read_scope(settings.database_url) as session:
            return _recorded(session, [tenant_id], day_start(now)).get(tenant_id, (0, 0.0))

    return read


def _recorded(
    session: Session, tenant_ids: list[int], since: datetime
) -> dict[int, tuple[int, float]]:
    return {
        tenant_id: (int(tokens), float(cost))
        for tenant_id, tokens, cost in session.execute(
            select(
                DigestRun.tenant_id,
                func.coalesce(func.sum(DigestRun.prompt_tokens + DigestRun.completion_tokens), 0),
                func.coalesce(func.sum(DigestRun.cost_usd), 0.0),
            )
            .where(
                DigestRun.tenant_id.in_(tenant_ids),
                DigestRun.started_at >= since,
                paid(DigestRun.model),
            )
            .group_by(DigestRun.tenant_id)
        )
    }


def budget_wait_sentence(session: Session, agent_id: int) -> str | None:
    """``4 event(s) wait for the daily model budget (daily token budget of tenant 'acme'
    spent); they resume at 2026-11-27 00:00 UTC, nothing is lost``, or None when none wait."""
    n, due, reason = session.execute(
        select(func.count(), func.min(Event.next_attempt_at), func.max(Event.last_error)).where(
            Event.agent_id == agent_id, Event.status == "waiting", Event.wait_kind == BUDGET
        )
    ).one()
    if not n:
        return None
    why = str(reason or "").split("; resumes", 1)[0]
    when = as_utc(due).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if due else "soon"
    return (
        f"{n} event(s) wait for the daily model budget ({why}); they resume at {when}, "
        "and nothing is lost"
    )
