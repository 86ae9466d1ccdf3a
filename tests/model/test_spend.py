"""digest.model.spend: the model seam charges each remote call to the tenant in scope, on the
fleet's Redis ledger (or the process's own without a broker). Calls answered in process never
count; a spent budget refuses before any request leaves; threads racing on one budget never
overspend it by more than one call's worth. The remote calls go to tests/fake_llm.py through
litellm, as a provider's would."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from digest import clock
from digest.config import Settings, forget_settings
from digest.errors import BudgetExhausted, LLMTransientError
from digest.model import seam as llm
from digest.model import spend
from digest.model.budget import Limits, budget_day, resume_at
from digest.model.scripted import scripted_model

NOON = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def _remote(fake: Any, redis_url: str | None, **more: Any) -> Settings:
    return Settings(
        broker_url=redis_url, llm_api_base=fake.api_base, llm_max_tokens=64,
        llm_max_concurrency=0, llm_timeout_s=10, llm_max_attempts=1, **more,
    )  # fmt: skip


def _ask(fake: Any, name: str) -> list[dict[str, str]]:
    fake.script(name, ("reply", "ok"))
    return [{"role": "user", "content": f"Say ok. [script:{name}]"}]


def test_models_answered_in_process_never_count() -> None:
    settings = Settings()  # no broker: the process's own ledger
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    messages = [{"role": "user", "content": "<event>{}</event>"}]
    scripted = scripted_model(lambda _messages: "<skip>nothing</skip>")
    with scripted as model, spend.for_tenant(tenant, Limits(daily_tokens=1)):
        for _ in range(5):
            llm.complete(messages, model="offline/rules", settings=settings, usage=llm.Usage())
            llm.complete(messages, model=model.name, settings=settings, usage=llm.Usage())
    day = spend.ledger_for(settings).spend(tenant, clock.now())
    assert (day.tokens, day.reserved_tokens, day.cost_usd) == (0, 0, 0.0)


def test_the_local_ledger_admits_like_the_fleets() -> None:
    ledger = spend.LocalLedger()
    limits = Limits(daily_tokens=100)
    assert ledger.reserve("t", "a", tokens=90, cost_usd=0.0, limits=limits, now=NOON)
    assert ledger.reserve("t", "b", tokens=90, cost_usd=0.0, limits=limits, now=NOON)
    assert not ledger.reserve("t", "c", tokens=1, cost_usd=0.0, limits=limits, now=NOON)
    assert ledger.settle("t", "a", tokens=10, cost_usd=0.0, now=NOON)
    assert not ledger.settle("t", "a", tokens=10, cost_usd=0.0, now=NOON)
    assert ledger.settle("t", "b", tokens=95, cost_usd=0.0, now=NOON)
    assert ledger.spend("t", NOON).tokens == 105
    assert not ledger.reserve("t", "d", tokens=1, cost_usd=0.0, limits=limits, now=NOON)
    assert ledger.reserve("t", "d", tokens=1, cost_usd=0.0, limits=limits, now=resume_at(NOON))


def test_the_clock_offset_moves_every_reading_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    from digest.models import utcnow

    before = datetime.now(UTC)
    monkeypatch.setenv("DIGEST_CLOCK_OFFSET_S", str(86_400))
    forget_settings()
    try:
        moved = utcnow()
        assert timedelta(days=1) <= moved - before < timedelta(days=1, minutes=5)
        assert budget_day(moved) == (before + timedelta(days=1)).date().isoformat()
    finally:
        monkeypatch.delenv("DIGEST_CLOCK_OFFSET_S")
        forget_settings()
    assert utcnow() - before < timedelta(minutes=5)


def test_bad_limits_stored_by_hand_are_no_limit() -> None:
    assert spend.limits_of(0, -1.0) == Limits()
    assert spend.limits_of(5, 0.5) == Limits(daily_tokens=5, daily_cost_usd=0.5)


def test_a_spent_budget_refuses_before_any_request_and_says_until_when(
    fake_llm: Any, redis_url: str
) -> None:
    settings = _remote(fake_llm, redis_url)
    tenant, name = f"t-{uuid.uuid4().hex[:6]}", f"b{uuid.uuid4().hex[:6]}"
    messages = _ask(fake_llm, name)
    usage = llm.Usage()
    with spend.for_tenant(tenant, Limits(daily_tokens=30)):
        model = "openai/fake-model"
        assert llm.complete(messages, model=model, settings=settings, usage=usage) == "ok"
        assert llm.complete(messages, model=model, settings=settings, usage=usage) == "ok"
        with pytest.raises(BudgetExhausted) as refused:
            llm.complete(messages, model=model, settings=settings, usage=usage)
    assert fake_llm.count(name) == 2  # the refused call never left
    assert str(refused.value).startswith(f"daily token budget of tenant {tenant!r} spent")
    assert refused.value.resume_at == resume_at(clock.now())
    day = spend.ledger_for(settings).spend(tenant, clock.now())
    assert (day.tokens, day.reserved_tokens) == (2 * 18, 0)  # what the provider reported
    assert (usage.calls, usage.prompt_tokens + usage.completion_tokens) == (2, 36)


def test_budget_held_by_calls_in_flight_is_a_passing_fault(fake_llm: Any, redis_url: str) -> None:
    settings = _remote(fake_llm, redis_url)
    tenant = f"t-{uuid.uuid4().hex[:6]}"
    ledger = spend.ledger_for(settings)
    limits = Limits(daily_tokens=1000)
    assert ledger.reserve(tenant, "in-flight", tokens=5000, cost_usd=0.0, limits=limits,
                          now=clock.now())  # fmt: skip
    with spend.for_tenant(tenant, limits), pytest.raises(LLMTransientError) as held:
        llm.complete(_ask(fake_llm, "held"), model="openai/fake-model", settings=settings,
                     usage=llm.Usage())  # fmt: skip
    assert "reserved by calls in flight" in str(held.value)
    assert fake_llm.count("held") == 0


def test_racing_threads_never_overspend_by_more_than_one_call(
    fake_llm: Any, redis_url: str
) -> None:
    """Eight threads call the seam for one tenant until its budget refuses them: the provider
    served exactly what the ledger charged, and the day's spend ends between the limit and the
    limit plus one call's estimate."""
    settings = _remote(fake_llm, redis_url)
    tenant, name = f"t-{uuid.uuid4().hex[:6]}", f"race{uuid.uuid4().hex[:6]}"
    messages = _ask(fake_llm, name)
    limit = 600
    limits = Limits(daily_tokens=limit)
    estimate, _ = spend.estimate("openai/fake-model", messages, settings.llm_max_tokens)
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def run() -> None:
        start.wait()
        with spend.for_tenant(tenant, limits):
            while True:
                try:
                    llm.complete(messages, model="openai/fake-model", settings=settings,
                                 usage=llm.Usage())  # fmt: skip
                except BudgetExhausted:
                    return
                except LLMTransientError:
                    continue  # the rest is reserved by another thread's call: it settles soon
                except BaseException as exc:
                    errors.append(exc)
                    return

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and not any(t.is_alive() for t in threads)
    day = spend.ledger_for(settings).spend(tenant, clock.now())
    assert day.reserved_tokens == 0
    assert day.tokens == 18 * fake_llm.count(name)  # every call charged, nothing else
    assert limit <= day.tokens < limit + estimate


def test_the_clock_setting_is_a_known_name() -> None:
    from digest.config import unknown_names

    assert unknown_names({"DIGEST_CLOCK_OFFSET_S": "86400"}) == []
    assert "DIGEST_CLOCK_OFFSET_S" in unknown_names({"DIGEST_CLOCK_OFFSET": "1"})[0]


_WORKER = """
import os, sys, time
import litellm  # imported before the start: the two processes call at the same time
from digest.config import Settings
from digest.errors import BudgetExhausted, LLMTransientError
from digest.model import seam as llm
from digest.model import spend
from digest.model.budget import Limits
tenant, name, base, redis_url, limit, ready = sys.argv[1:7]
settings = Settings(broker_url=redis_url, llm_api_base=base, llm_max_tokens=64,
                    llm_max_concurrency=0, llm_timeout_s=10, llm_max_attempts=1)
messages = [{"role": "user", "content": f"Say ok. [script:{name}]"}]
# a barrier, not a clock: each says it is ready, and both start once both are (a loaded host
# may take seconds longer to import in one process than in the other)
open(os.path.join(ready, str(os.getpid())), "w").close()
deadline = time.monotonic() + 120
while len(os.listdir(ready)) < 2 and time.monotonic() < deadline:
    time.sleep(0.005)
calls = 0
with spend.for_tenant(tenant, Limits(daily_tokens=int(limit))):
    while True:
        try:
            llm.complete(messages, model="openai/fake-model", settings=settings, usage=llm.Usage())
            calls += 1
        except BudgetExhausted:
            break
        except LLMTransientError:
            time.sleep(0.01)  # the rest is reserved by the other process's call
print(calls)
"""


def test_two_processes_never_overspend_together_by_more_than_one_call(
    fake_llm: Any, redis_url: str, tmp_path: Path
) -> None:
    """Two worker-like processes, each with its own Redis connection and litellm, spend one
    tenant's budget at the same time: together they stay within one call's estimate of it."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    tenant, name = f"t-{uuid.uuid4().hex[:6]}", f"two{uuid.uuid4().hex[:6]}"
    messages = _ask(fake_llm, name)
    limit = 1500
    ready = tmp_path / "ready"
    ready.mkdir()
    args = [tenant, name, fake_llm.api_base, redis_url, str(limit), str(ready)]
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, *args], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]  # fmt: skip
    outputs = [proc.communicate(timeout=180) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err[-2000:] for _, err in outputs]
    calls = [int(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert all(calls), calls  # both spent some of it
    settings = _remote(fake_llm, redis_url)
    estimate, _ = spend.estimate("openai/fake-model", messages, settings.llm_max_tokens)
    day = spend.ledger_for(settings).spend(tenant, clock.now())
    assert day.reserved_tokens == 0
    assert day.tokens == 18 * sum(calls) == 18 * fake_llm.count(name)
    assert limit <= day.tokens < limit + estimate


def test_an_unreachable_ledger_stops_only_a_tenant_with_a_budget(fake_llm: Any) -> None:
    settings = _remote(fake_llm, "redis://127.0.0.1:1/0")  # nothing listens there
    messages = _ask(fake_llm, "nowhere")
    with spend.for_tenant("counted-only"):
        assert llm.complete(messages, model="openai/fake-model", settings=settings,
                            usage=llm.Usage()) == "ok"  # fmt: skip
    with (
        spend.for_tenant("capped", Limits(daily_tokens=10**6)),
        pytest.raises(LLMTransientError, match="budget ledger cannot be reached"),
    ):
        llm.complete(messages, model="openai/fake-model", settings=settings, usage=llm.Usage())
    assert fake_llm.count("nowhere") == 1
