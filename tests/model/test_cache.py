"""Remembered model answers (digest.llm_cache) and what the pipeline does with them: an exact
repeat of an event needs no model call, yet still gets its evidence and history rows."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update

import digest
from digest.db import session_scope
from digest.lessons.store import Candidate
from digest.model.cache import AnswerCache, answer_key
from digest.models import Agent, DigestRun, LessonEvidence, LessonHistory
from digest.reflect.apply import plan_still_valid
from digest.reflect.reconcile import read_neighbours
from tests.conftest import WorkerProcess, lessons_for_event, llm_env, wait_for_event
from tests.fake_llm import LESSON, FakeLLM

DONE = {"reflected", "skipped", "failed", "dead"}


def test_answer_cache_is_a_bounded_lru() -> None:
    cache: AnswerCache[str] = AnswerCache()
    cache.put("a", "1", size=2)
    cache.put("b", "2", size=2)
    assert cache.get("a") == "1"  # "a" is now the most recent
    cache.put("c", "3", size=2)
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c"), len(cache)) == ("1", "3", 2)
    cache.put("d", "4", size=0)  # size 0: remember nothing
    assert cache.get("d") is None


def test_concurrent_asks_for_one_key_compute_once() -> None:
    cache: AnswerCache[str] = AnswerCache()
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow() -> str:
        calls.append("slow")
        started.set()
        release.wait()
        return "answer"

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(cache.get_or_compute, "k", slow, 10)
        started.wait()
        others = [pool.submit(cache.get_or_compute, "k", lambda: "never", 10) for _ in range(3)]
        release.set()
        results = [first.result(), *(f.result() for f in others)]
    assert calls == ["slow"]
    assert results == [("answer", False)] + [("answer", True)] * 3


def test_a_failed_computation_lets_a_waiter_compute_for_itself() -> None:
    cache: AnswerCache[str] = AnswerCache()
    started, release = threading.Event(), threading.Event()

    def failing() -> str:
        started.set()
        release.wait()
        raise RuntimeError("model down")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(cache.get_or_compute, "k", failing, 10)
        started.wait()
        second = pool.submit(cache.get_or_compute, "k", lambda: "second", 10)
        release.set()
        with pytest.raises(RuntimeError):
            first.result()
        assert second.result() == ("second", False)
    assert cache.get("k") == "second"


def test_without_a_cache_every_ask_computes() -> None:
    cache: AnswerCache[str] = AnswerCache()
    calls: list[int] = []
    for n in range(2):
        assert cache.get_or_compute("k", lambda n=n: calls.append(n) or "v", 0) == ("v", False)
    assert calls == [0, 1] and len(cache) == 0


def test_answer_key_depends_on_every_part() -> None:
    base = answer_key("reflect", 1, "bot", {"task": "x"})
    assert base == answer_key("reflect", 1, "bot", {"task": "x"})
    assert base != answer_key("reflect", 2, "bot", {"task": "x"})
    assert base != answer_key("reflect", 1, "bot", {"task": "y"})


@pytest.mark.services
def test_an_exact_repeat_reuses_the_verdict_and_still_cites_the_event(
    start_worker: Callable[..., WorkerProcess],
    services_env: dict[str, str],
    pg_url: str,
    redis_url: str,
    tenant: str,
) -> None:
    fake = FakeLLM().start()
    try:
        env = llm_env(pg_url, redis_url, services_env["DIGEST_QUEUE"], fake.api_base)
        start_worker(1, **env)  # one process: its memory serves every event
        script = f"s{uuid.uuid4().hex[:8]}"
        marker = fake.script(script, ("reply", LESSON))
        fields: dict[str, Any] = {
            "task": f"refund order 7 {marker}",
            "outcome": "failure",
            "tool_calls": [{"tool": "refund", "args": {"o": 7}, "ok": False, "error": "boom"}],
        }
        first = digest.record_run(tenant, "bot", idempotency_key="k1", **fields)
        wait_for_event(first, DONE)
        repeat = digest.record_run(tenant, "bot", idempotency_key="k2", **fields)
        row = wait_for_event(repeat, DONE)
        assert row["status"] == "reflected"
        assert fake.count(script) == 1  # the repeat made no model call

        [lesson] = lessons_for_event(first)
        assert [lesson.id] == [x.id for x in lessons_for_event(repeat)]
        with session_scope() as session:
            run = session.scalars(select(DigestRun).where(DigestRun.event_id == repeat)).one()
            ops = session.scalars(
                select(LessonHistory.op).where(LessonHistory.event_id == repeat)
            ).all()
            cited = session.scalars(
                select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
            ).all()
        assert (run.llm_calls, run.n_noop, list(ops)) == (0, 1, ["NOOP"])
        assert sorted(cited) == sorted([first, repeat])

        # Different content is judged afresh.
        other = digest.record_run(
            tenant, "bot", idempotency_key="k3", **{**fields, "task": f"other {marker}"}
        )
        wait_for_event(other, DONE)
        assert fake.count(script) == 2
    finally:
        fake.stop()


@pytest.mark.services
def test_a_moved_epoch_keeps_the_plan_only_while_the_neighbours_are_unchanged(
    services_env: dict[str, str], tenant: str
) -> None:
    digest.record_lesson(tenant, "bot", "refunds: always confirm the amount before a refund")
    digest.record_lesson(tenant, "bot", "shipping: quote the Oslo warehouse for Norway")
    candidate = Candidate(situation="refunds", correction="always confirm the amount first")
    with session_scope() as session:
        agent = session.scalars(
            select(Agent).where(Agent.name == "bot", Agent.tenant_id.in_(_tenant_ids(tenant)))
        ).one()
        claimed = SimpleNamespace(tenant_id=agent.tenant_id, agent_id=agent.id)
        snapshot = read_neighbours(session, agent.tenant_id, agent.id, [candidate], 5)
        assert plan_still_valid(session, claimed, [candidate], snapshot)  # type: ignore[arg-type]
        # Another writer moved the epoch without touching any lesson's text: the plan stands.
        session.execute(
            update(Agent).where(Agent.id == agent.id).values(lesson_epoch=Agent.lesson_epoch + 1)
        )
        assert plan_still_valid(session, claimed, [candidate], snapshot)  # type: ignore[arg-type]
    # A new lesson next to the candidate: the plan was decided without it, so it is redone.
    digest.record_lesson(tenant, "bot", "refunds: always confirm the amount first, twice")
    with session_scope() as session:
        assert not plan_still_valid(session, claimed, [candidate], snapshot)  # type: ignore[arg-type]


def _tenant_ids(tenant: str) -> Any:
    from digest.models import Tenant

    return select(Tenant.id).where(Tenant.name == tenant).scalar_subquery()
