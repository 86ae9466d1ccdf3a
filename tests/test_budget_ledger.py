"""The fleet-wide budget ledger on real Redis: contention, settling and the budget day."""

from __future__ import annotations

import random
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import redis

from digest.model.budget import BudgetError, Ledger, Limits, budget_day, resume_at

NOON = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def test_resume_at_is_the_next_utc_midnight() -> None:
    assert resume_at(NOON) == datetime(2026, 3, 5, tzinfo=UTC)
    late = datetime(2026, 3, 4, 23, 59, 59, tzinfo=UTC)
    assert resume_at(late) == datetime(2026, 3, 5, tzinfo=UTC)
    assert budget_day(late) == "2026-03-04"
    assert budget_day(late + timedelta(seconds=1)) == "2026-03-05"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"daily_tokens": 0}, "daily_tokens"), ({"daily_cost_usd": -1.0}, "daily_cost_usd")],
)
def test_bad_limits_name_the_field(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(BudgetError) as err:
        Limits(**kwargs)  # type: ignore[arg-type]
    assert err.value.field == field


def test_refused_today_granted_tomorrow_and_settle_gives_back(redis_url: str) -> None:
    ledger = Ledger(redis.Redis.from_url(redis_url))
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    limits = Limits(daily_tokens=1000)
    assert ledger.reserve(tenant, "a", tokens=800, cost_usd=0.0, limits=limits, now=NOON)
    # 800 reserved, 200 left: still admitted (the one call's worth of overshoot)
    assert ledger.reserve(tenant, "b", tokens=800, cost_usd=0.0, limits=limits, now=NOON)
    assert not ledger.reserve(tenant, "c", tokens=10, cost_usd=0.0, limits=limits, now=NOON)
    # the real usage was smaller: settling gives the rest back and admits again
    assert ledger.settle(tenant, "a", tokens=100, cost_usd=0.0, now=NOON)
    assert not ledger.settle(tenant, "a", tokens=100, cost_usd=0.0, now=NOON)
    assert ledger.settle(tenant, "b", tokens=100, cost_usd=0.0, now=NOON)
    spend = ledger.spend(tenant, NOON)
    assert (spend.tokens, spend.reserved_tokens) == (200, 0)
    assert ledger.reserve(tenant, "c", tokens=900, cost_usd=0.0, limits=limits, now=NOON)
    assert ledger.settle(tenant, "c", tokens=900, cost_usd=0.0, now=NOON)
    assert not ledger.reserve(tenant, "d", tokens=1, cost_usd=0.0, limits=limits, now=NOON)
    tomorrow = resume_at(NOON)
    assert ledger.reserve(tenant, "d", tokens=1, cost_usd=0.0, limits=limits, now=tomorrow)
    assert ledger.spend(tenant, tomorrow).reserved_tokens == 1


def test_cost_budget_is_enforced_alone(redis_url: str) -> None:
    ledger = Ledger(redis.Redis.from_url(redis_url))
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    limits = Limits(daily_cost_usd=0.01)
    assert ledger.reserve(tenant, "a", tokens=10**6, cost_usd=0.009, limits=limits, now=NOON)
    assert ledger.settle(tenant, "a", tokens=10**6, cost_usd=0.0101, now=NOON)
    assert not ledger.reserve(tenant, "b", tokens=1, cost_usd=0.0, limits=limits, now=NOON)
    assert ledger.spend(tenant, NOON).cost_usd == pytest.approx(0.0101)


def test_contending_workers_never_overspend_by_more_than_one_call(redis_url: str) -> None:
    """Eight workers, each with its own connection, race on one tenant's budget."""
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    limit, largest = 50_000, 700
    limits = Limits(daily_tokens=limit)
    start = threading.Barrier(8)
    calls: list[int] = []
    lock = threading.Lock()

    def worker(seed: int) -> None:
        ledger = Ledger(redis.Redis.from_url(redis_url))
        rng = random.Random(seed)
        start.wait()
        while True:
            estimate = rng.randint(100, largest)
            rid = uuid.uuid4().hex
            if not ledger.reserve(
                tenant, rid, tokens=estimate, cost_usd=0.0, limits=limits, now=NOON
            ):
                return
            used = rng.randint(estimate // 2, estimate)  # the provider reports at most the bound
            assert ledger.settle(tenant, rid, tokens=used, cost_usd=0.0, now=NOON)
            with lock:
                calls.append(used)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    spend = Ledger(redis.Redis.from_url(redis_url)).spend(tenant, NOON)
    assert spend.reserved_tokens == 0
    assert spend.tokens == sum(calls)
    assert limit <= spend.tokens < limit + largest


def test_a_dead_workers_reservation_is_given_back_after_its_call_could_have_ended(
    redis_url: str,
) -> None:
    ledger = Ledger(redis.Redis.from_url(redis_url))
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    limits = Limits(daily_tokens=1000)
    # a worker reserved and died mid-call: never settled
    assert ledger.reserve(tenant, "dead", tokens=1500, cost_usd=0.0, limits=limits, now=NOON,
                          hold_s=90)  # fmt: skip
    soon = NOON + timedelta(seconds=60)
    assert not ledger.reserve(tenant, "a", tokens=10, cost_usd=0.0, limits=limits, now=soon,
                              hold_s=90)  # fmt: skip
    later = NOON + timedelta(seconds=92)
    assert ledger.reserve(tenant, "a", tokens=10, cost_usd=0.0, limits=limits, now=later,
                          hold_s=90)  # fmt: skip
    spend = ledger.spend(tenant, later)
    assert (spend.tokens, spend.reserved_tokens) == (0, 10)
    assert not ledger.settle(tenant, "dead", tokens=5, cost_usd=0.0, now=NOON)
    assert ledger.settle(tenant, "a", tokens=7, cost_usd=0.0, now=later)
    assert ledger.spend(tenant, later).tokens == 7
