"""``digest.reflect.order``'s bounded wait, without services (the waits through a worker are in
tests/test_reconcile_worker.py)."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from digest.config import Settings
from digest.model.seam import time_budget
from digest.reflect import order

REMOTE = Settings(llm_model="openai/judge", order_wait_s=0.4)


def _claimed(model: str | None = None) -> Any:
    return SimpleNamespace(event_id=9, agent_model=model)


def test_nothing_older_in_judgement_is_no_wait() -> None:
    looks: list[int] = []

    def find() -> int | None:
        looks.append(1)
        return None

    waited = order._wait(_claimed(), REMOTE, "test", find, keep_s=0)
    assert looks == [1] and waited < order.FIRST_PAUSE_S  # looked once, never paused


def test_the_wait_ends_at_its_bound_when_the_older_event_never_finishes() -> None:
    looks: list[int] = []

    def find() -> int | None:
        looks.append(1)
        return 7

    waited = order._wait(_claimed(), REMOTE, "test", find, keep_s=0)
    assert waited <= REMOTE.order_wait_s and len(looks) >= 3  # looked again, then went on


def test_the_wait_keeps_what_the_model_steps_need_of_the_task_budget() -> None:
    looks: list[int] = []

    def find() -> int | None:
        looks.append(1)
        return 7

    # the task has 1 s left and must keep 0.99 s of it: no pause fits, it goes on at once
    with time_budget(1.0):
        waited = order._wait(_claimed(), REMOTE, "test", find, keep_s=0.99)
    assert len(looks) == 1 and waited < order.FIRST_PAUSE_S


def test_models_answered_in_process_and_a_zero_bound_never_wait() -> None:
    def find() -> int | None:
        raise AssertionError("not looked for")

    assert order._wait(_claimed("offline/rules"), REMOTE, "test", find, keep_s=0) == 0.0
    off = Settings(llm_model="openai/judge", order_wait_s=0)
    assert order._wait(_claimed(), off, "test", find, keep_s=0) == 0.0


def test_what_counts_as_an_older_event_still_being_judged(
    services_env: dict[str, str], tenant: str
) -> None:
    """On PostgreSQL: pending and freshly claimed older events of the agent count; a waiting
    one (after a fault: it may wait for hours), a finished one, a dead worker's stale claim, a
    newer one and another agent's do not."""
    import digest
    from digest.config import get_settings
    from digest.db import session_scope
    from digest.models import Event, utcnow

    def run(agent: str, n: int) -> int:
        return digest.record_run(tenant, agent, task=f"task {n}", outcome="failure", error="boom")

    older = [run("bot", i) for i in range(4)]
    mine, newer, elsewhere = run("bot", 4), run("bot", 5), run("other", 6)
    settings = get_settings()
    stale = utcnow() - timedelta(seconds=settings.processing_stale_after_s + 60)
    states = {older[0]: ("waiting", None), older[1]: ("reflected", None),
              older[2]: ("processing", stale), older[3]: ("pending", None),
              mine: ("processing", utcnow()), newer: ("pending", None),
              elsewhere: ("pending", None)}  # fmt: skip
    with session_scope() as session:
        for event_id, (status, started) in states.items():
            event = session.get(Event, event_id)
            assert event is not None
            event.status, event.processing_started_at = status, started
        agent_id = session.get(Event, mine).agent_id  # type: ignore[union-attr]
    claimed: Any = SimpleNamespace(event_id=mine, agent_id=agent_id, agent_model=None)
    assert order.older_in_judgement(claimed, settings) == older[3]  # pending
    with session_scope() as session:
        session.get(Event, older[3]).status = "skipped"  # type: ignore[union-attr]
        session.get(Event, older[2]).processing_started_at = utcnow()  # type: ignore[union-attr]
    assert order.older_in_judgement(claimed, settings) == older[2]  # a live claim
    with session_scope() as session:
        session.get(Event, older[2]).status = "reflected"  # type: ignore[union-attr]
    assert order.older_in_judgement(claimed, settings) is None
