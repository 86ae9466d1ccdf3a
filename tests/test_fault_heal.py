"""Transient faults heal (issue 14): a realistic fault mix through litellm, at the rate the
issue names and at twice that, ends with every event reflected and none failed, while a
fleet-wide limit keeps the calls within their rate and concurrency.

The mix, per model call: 10% 429 (with Retry-After), 5% 503, 5% garbage, 10% prose, 10%
reconcile answers naming lessons that do not exist. A call that fails is retried in the task;
an event whose attempts all fail is put back as ``waiting`` and tried again once its next
attempt is due (the relay re-publishes it, as beat would). To keep the test short the
product's own settings shrink the clocks: the rate window is 2 s instead of 60 (the limit is
``RPM`` calls per window), the first deferral 0.5 s.

A real worker (threads pool, 8 threads), PostgreSQL and Redis; the fake provider counts the
calls it served and how many at once.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import select

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.models import DigestRun, Event, LessonEvidence
from digest.outbox.relay import relay_pending
from tests.conftest import _reset_process_state, base_env, llm_env, spawn_worker
from tests.fake_llm import ChaosLLM

BASE_RATES = {"429": 0.10, "503": 0.05, "garbage": 0.05, "prose": 0.10, "bad-ids": 0.10}
EVENTS = 60
RPM, WINDOW_S, CONCURRENCY = 50, 2.0, 4
TOPICS = ("order status", "refund window", "delivery address", "invoice copy")


def _events(tenant: str, n: int) -> list[int]:
    # Runs of one agent about a few topics, with no error text (no fingerprint): each is
    # judged by the model, and its lesson has neighbours, so reconcile calls happen too.
    return [
        digest.record_run(
            tenant,
            "bot",
            outcome="failure",
            task=f"answer a question about the {TOPICS[i % len(TOPICS)]} [script:e{i}x{tenant}]",
            attempt_summary=f"looked the {TOPICS[i % len(TOPICS)]} up by hand",
        )
        for i in range(n)
    ]


def _statuses(ids: list[int]) -> dict[int, tuple[str, int, str | None]]:
    with session_scope() as session:
        rows = session.execute(
            select(Event.id, Event.status, Event.deferrals, Event.last_error).where(
                Event.id.in_(ids)
            )
        )
        return {i: (status, deferrals, error) for i, status, deferrals, error in rows}


def _most_in_any_window(starts: list[float], window: float) -> int:
    starts = sorted(starts)
    most, j = 0, 0
    for i, start in enumerate(starts):
        while starts[j] <= start - window:
            j += 1
        most = max(most, i - j + 1)
    return most


@pytest.mark.parametrize("scale", [1.0, 2.0], ids=["issue-mix", "double-mix"])
def test_the_fault_mix_heals_within_the_fleet_limits(
    pg_url: str,
    redis_url: str,
    queue: str,
    tenant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    scale: float,
) -> None:
    chaos = ChaosLLM({k: v * scale for k, v in BASE_RATES.items()}, seed=int(scale * 7)).start()
    limits = {
        "DIGEST_LLM_MAX_CONCURRENCY": str(CONCURRENCY),
        "DIGEST_LLM_RPM": str(RPM),
        "DIGEST_LLM_RATE_WINDOW_S": str(WINDOW_S),
        "DIGEST_LLM_SLOT_WAIT_S": "5",
        # no client timeouts: a call a loaded server reads only after the client gave up on
        # it would count at the server in a later window than the one it was allowed in
        "DIGEST_LLM_TIMEOUT_S": "15",
        "DIGEST_LLM_DEFER_BASE_S": "0.5",
        "DIGEST_LLM_DEFER_MAX_S": "3",
        "DIGEST_LLM_RETRY_WAIT_MAX_S": "0.2",
        "DIGEST_THRESHOLD_SIGNALS": "1000000",
        "DIGEST_EMBEDDING_MODEL": "none",
    }
    env = {**llm_env(pg_url, redis_url, queue, chaos.api_base), **limits}
    worker = spawn_worker(env, tmp_path / "worker.log", 8, "threads")
    try:
        for key, value in {**base_env(pg_url, redis_url, queue), **limits}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("DIGEST_RELAY_PENDING_AGE_S", "1")
        _reset_process_state()
        ids = _events(tenant, EVENTS)
        deadline = time.monotonic() + 240
        while True:
            relay_pending(get_settings())  # as beat would: due waiting events go out again
            got = _statuses(ids)
            if all(s in ("reflected", "skipped", "failed", "dead") for s, _, _ in got.values()):
                break
            assert time.monotonic() < deadline, (
                f"not done: {sorted({s for s, _, _ in got.values()})}\n{worker.log()[-3000:]}"
            )
            time.sleep(0.5)
    finally:
        worker.stop()
        chaos.stop()

    failed = {i: e for i, (s, _, e) in got.items() if s != "reflected"}
    assert failed == {}, list(failed.items())[:5]
    # the faults happened, and some events outlasted their in-task attempts and waited
    assert all(chaos.faults[kind] > 0 for kind in BASE_RATES), chaos.faults
    assert sum(d for _, d, _ in got.values()) > 0
    with session_scope() as session:
        cited = set(
            session.scalars(select(LessonEvidence.event_id).where(LessonEvidence.event_id.in_(ids)))
        )
        waited = session.scalars(
            select(DigestRun.error).where(
                DigestRun.event_id.in_(ids), DigestRun.error.like("waiting: %")
            )
        ).all()
    assert cited == set(ids)  # every event taught (or supported) a lesson
    assert waited, "no digest_runs row recorded a wait"
    # the fleet limits held: never more calls in one window than DIGEST_LLM_RPM, never more
    # at once than DIGEST_LLM_MAX_CONCURRENCY (windows measured by the server's clock, 2%
    # shorter for the time a request takes to arrive)
    starts = [start for start, _, _, model in chaos.calls if model == "fake-model"]
    assert _most_in_any_window(starts, WINDOW_S * 0.98) <= RPM
    assert chaos.max_in_flight <= CONCURRENCY
    assert len(starts) > EVENTS  # retries and reconcile calls on top of one call per event


def test_no_slot_within_the_wait_puts_the_call_back_as_a_transient_fault(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the window's calls used up, a caller waits up to DIGEST_LLM_SLOT_WAIT_S and then
    gets an ``LLMTransientError`` whose retry_after says when the window frees."""
    from digest.config import Settings
    from digest.errors import LLMTransientError
    from digest.model.limits import model_slot

    settings = Settings(
        broker_url=redis_url, llm_rpm=2, llm_rate_window_s=30, llm_slot_wait_s=0.3,
        llm_max_concurrency=0,
    )  # fmt: skip
    model = f"test/{time.time_ns()}"
    for _ in range(2):
        with model_slot(model, settings):
            pass
    started = time.monotonic()
    with (
        pytest.raises(LLMTransientError, match="no model slot") as caught,
        model_slot(model, settings),
    ):
        raise AssertionError("a third call in the window must not start")
    assert 0.25 <= time.monotonic() - started < 3
    assert caught.value.retry_after is not None and 25 < caught.value.retry_after <= 30


def test_a_slot_is_released_after_the_call_and_limits_concurrency(redis_url: str) -> None:
    import threading

    from digest.config import Settings
    from digest.model.limits import model_slot

    settings = Settings(broker_url=redis_url, llm_max_concurrency=2, llm_slot_wait_s=5)
    model = f"test/{time.time_ns()}"
    inside, most = 0, 0
    lock = threading.Lock()

    def call() -> None:
        nonlocal inside, most
        with model_slot(model, settings):
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.05)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 2 and inside == 0
    # every lease was given back: a new call gets a slot at once
    started = time.monotonic()
    with model_slot(model, settings):
        pass
    assert time.monotonic() - started < 0.5
