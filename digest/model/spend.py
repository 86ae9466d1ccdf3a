"""Charging model calls to their tenant's daily budget (issue 29, part 3).

Whoever runs model work for a tenant (the reflect core for an event, compose for an agent,
compaction) names the tenant and its budget for the calls inside::

    with spend.for_tenant("acme", Limits(daily_tokens=200_000)):
        ...  # every remote call in here is charged to acme

and the model seam (``digest.model.seam.complete``) charges each remote call: ``reserve``
before it (an estimate that bounds it: the prompt's bytes, which no tokenizer exceeds, plus
the reply's ``max_tokens``, priced by litellm's cost map when it knows the model), ``settle``
after it with what the provider reported. The ledger is the fleet's (``digest.model.budget``,
Redis: the broker's) or, without a broker (the embedded mode: one process), one kept in this
process, which starts a tenant's day from what ``digest_runs`` recorded of it. Calls answered
in process (``offline/*``, ``scripted/*``) cost nothing and are never charged; nor are calls
outside a tenant's scope (``digest doctor``'s ping).

A refused reservation raises ``BudgetExhausted`` before any call is made when the day's
settled spend has reached the limit: the reflect path puts the event back as ``waiting``
until the next budget day (``budget.resume_at``), on
lesson digest's clock (``digest.clock``, moved by ``DIGEST_CLOCK_OFFSET_S``). When what is
left is only reserved by calls in flight (they give back what they do not use), or the
ledger cannot be reached, it is a passing fault (``LLMTransientError``): tried again soon, and
a budget is never overspent because Redis blinked. A tenant without a budget is only counted:
an unreachable ledger does not stop its calls.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from digest import clock
from digest.config import Settings
from digest.errors import BudgetExhausted, LLMTransientError
from digest.logs import get_logger
from digest.model.budget import MICRO, Ledger, Limits, Spend, budget_day, resume_at
from digest.model.limits import LEASE_MARGIN_S
from digest.runtime import runtime

log = get_logger("digest.model")

__all__ = ["Bill", "Scope", "charge", "current", "for_tenant", "ledger_for", "limits_of"]


#: what a tenant's budget day already recorded elsewhere (tokens, USD), read on a day's first
#: call by a ledger kept in process (``digest_runs``: a new ``digest drain`` goes on from there)
Recorded = Callable[[datetime], tuple[int, float]]


@dataclass(frozen=True)
class Scope:
    """The tenant model calls are charged to, its daily budget, and (for a ledger kept in
    process) how to read what its day already spent."""

    tenant: str
    limits: Limits
    recorded: Recorded | None = None


_scope: ContextVar[Scope | None] = ContextVar("digest_budget_scope", default=None)


@contextmanager
def for_tenant(
    tenant: str, limits: Limits | None = None, recorded: Recorded | None = None
) -> Iterator[Scope]:
    """Remote model calls inside are charged to ``tenant`` (within ``limits``; None: counted,
    never refused). ``recorded`` reads the day's spend so far for a ledger kept in process."""
    scope = Scope(tenant, limits or Limits(), recorded)
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def current() -> Scope | None:
    return _scope.get()


def limits_of(daily_tokens: int | None, daily_cost_usd: float | None) -> Limits:
    """A tenant row's budget columns as ``Limits`` (a value that is not positive is no limit:
    ``digest tenant set`` never stores one, but a hand-edited row must not stop the work)."""
    return Limits(
        daily_tokens=daily_tokens if daily_tokens and daily_tokens > 0 else None,
        daily_cost_usd=float(daily_cost_usd) if daily_cost_usd and daily_cost_usd > 0 else None,
    )


@dataclass
class Bill:
    """One reserved call: settle it once with what the call used."""

    ledger: Any
    tenant: str
    reservation: str
    at: datetime
    tokens: int
    cost_usd: float

    def settle(self, tokens: int | None, cost_usd: float) -> None:
        """Charge what the call used (``tokens`` None: the provider reported nothing, so the
        estimate is charged); a ledger that cannot be reached keeps the estimate reserved
        until the day's key expires, which errs on the side of the budget."""
        used = self.tokens if tokens is None else tokens
        try:
            self.ledger.settle(
                self.tenant, self.reservation, tokens=used, cost_usd=cost_usd, now=self.at
            )
        except Exception as exc:
            log.warning("budget_not_settled", tenant=self.tenant, error=type(exc).__name__)


def estimate(model: str, messages: list[dict[str, str]], max_tokens: int) -> tuple[int, float]:
    """Tokens and cost that bound one call: the prompt's UTF-8 bytes (a tokenizer's token
    spans at least one byte, so no provider counts more) with a margin per message for its
    chat template, plus the whole reply budget; priced by litellm's cost map when it knows
    the model (else the cost is unknown: 0)."""
    prompt = 16 + sum(16 + len(str(m.get("content", "")).encode()) for m in messages)
    try:
        import litellm

        costs = litellm.cost_per_token(
            model=model, prompt_tokens=prompt, completion_tokens=max_tokens
        )
        cost = float(sum(costs))
    except Exception:  # a model litellm has no price for: its cost is unknown
        cost = 0.0
    return prompt + max_tokens, cost


def charge(model: str, messages: list[dict[str, str]], settings: Settings) -> Bill | None:
    """Reserve one remote call of ``model`` for the tenant in scope; None when nothing is in
    scope. Raises ``BudgetExhausted`` (the day's budget is spent: no call may start) or
    ``LLMTransientError`` (the ledger cannot be reached)."""
    scope = _scope.get()
    if scope is None:
        return None
    tokens, cost = estimate(model, messages, settings.llm_max_tokens)
    now = clock.now()
    ledger = ledger_for(settings)
    reservation = uuid.uuid4().hex
    try:
        if isinstance(ledger, LocalLedger) and scope.recorded is not None:
            ledger.seed(scope.tenant, now, scope.recorded)
        granted = ledger.reserve(
            scope.tenant, reservation, tokens=tokens, cost_usd=cost, limits=scope.limits,
            now=now, hold_s=settings.llm_timeout_s + LEASE_MARGIN_S,
        )  # fmt: skip
        spent = None if granted else ledger.spend(scope.tenant, now)
    except Exception as exc:
        if not scope.limits.any:  # only counted, nothing to protect: the work goes on
            log.warning("budget_ledger_unavailable", tenant=scope.tenant,
                        error=type(exc).__name__)  # fmt: skip
            return None
        raise LLMTransientError(
            f"the budget ledger cannot be reached ({type(exc).__name__}); no call was made"
        ) from exc
    if spent is not None:
        measure = _spent_measure(spent, scope.limits)
        if measure is not None:
            raise BudgetExhausted(scope.tenant, measure, resume_at(now))
        # what is left is reserved by calls in flight, which give back what they do not use
        raise LLMTransientError(
            f"the rest of tenant {scope.tenant!r}'s daily budget is reserved by calls in "
            "flight; no call was made",
            retry_after=IN_FLIGHT_RETRY_S,
        )
    return Bill(ledger, scope.tenant, reservation, now, tokens, cost)


#: seconds before trying again when the rest of the budget is reserved by calls in flight
IN_FLIGHT_RETRY_S = 5.0


def _spent_measure(spent: Spend, limits: Limits) -> str | None:
    """``token`` or ``cost`` when the day's settled spend alone reaches that limit, else None
    (the refusal came from reservations of calls still in flight)."""
    if limits.daily_tokens and spent.tokens >= limits.daily_tokens:
        return "token"
    if limits.daily_cost_usd and spent.cost_usd >= limits.daily_cost_usd:
        return "cost"
    return None


def ledger_for(settings: Settings) -> Any:
    """The fleet's ledger (on the broker's Redis), or this process's without a broker."""
    ledgers = runtime().piece(_Ledgers)
    key = settings.broker_url or ""
    with ledgers.lock:
        found = ledgers.by_url.get(key)
        if found is None:
            if settings.broker_url:
                from redis import Redis

                client = Redis.from_url(
                    settings.broker_url, socket_timeout=2.0, socket_connect_timeout=2.0
                )
                found = Ledger(client)
            else:
                found = LocalLedger()
            ledgers.by_url[key] = found
        return found


class _Ledgers:
    """This process's ledgers, by broker URL ("" for the in-process one)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_url: dict[str, Any] = {}


class LocalLedger:
    """``budget.Ledger``'s rule in one process (the embedded mode has no Redis): the same
    admission (granted while spent + reserved is below the limit), counted per budget day,
    each day started from what ``digest_runs`` recorded (``seed``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.days: dict[tuple[str, str], dict[str, int]] = {}
        self.open: dict[tuple[str, str, str], tuple[int, int]] = {}

    def seed(self, tenant: str, now: datetime, read: Recorded) -> None:
        """Start the tenant's day from what ``read`` says it spent, once per day and process
        (a later ``digest drain`` process goes on from what the earlier ones recorded)."""
        day = (tenant, budget_day(now))
        with self.lock:
            if day in self.days:
                return
        tokens, cost = read(now)
        with self.lock:
            h = self.days.setdefault(day, dict.fromkeys(("st", "rt", "sc", "rc"), 0))
            h["st"] += max(0, tokens)
            h["sc"] += max(0, round(cost * MICRO))

    def reserve(
        self,
        tenant: str,
        reservation: str,
        *,
        tokens: int,
        cost_usd: float,
        limits: Limits,
        now: datetime,
        hold_s: float | None = None,  # a call of this process cannot outlive it
    ) -> bool:
        day = (tenant, budget_day(now))
        micro = max(0, round(cost_usd * MICRO))
        with self.lock:
            h = self.days.setdefault(day, dict.fromkeys(("st", "rt", "sc", "rc"), 0))
            if limits.daily_tokens and h["st"] + h["rt"] >= limits.daily_tokens:
                return False
            if limits.daily_cost_usd and h["sc"] + h["rc"] >= round(limits.daily_cost_usd * MICRO):
                return False
            h["rt"] += max(0, tokens)
            h["rc"] += micro
            self.open[(*day, reservation)] = (max(0, tokens), micro)
            return True

    def settle(
        self, tenant: str, reservation: str, *, tokens: int, cost_usd: float, now: datetime
    ) -> bool:
        day = (tenant, budget_day(now))
        with self.lock:
            held = self.open.pop((*day, reservation), None)
            if held is None:
                return False
            h = self.days[day]
            h["rt"] -= held[0]
            h["rc"] -= held[1]
            h["st"] += max(0, tokens)
            h["sc"] += max(0, round(cost_usd * MICRO))
            return True

    def spend(self, tenant: str, now: datetime) -> Spend:
        with self.lock:
            h = self.days.get((tenant, budget_day(now)), {})
        return Spend(
            tokens=h.get("st", 0),
            cost_usd=h.get("sc", 0) / MICRO,
            reserved_tokens=h.get("rt", 0),
            reserved_cost_usd=h.get("rc", 0) / MICRO,
        )
