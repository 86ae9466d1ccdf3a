"""``digest.reflect.order``'s bounded wait, without services (the waits through a worker are in
tests/test_reconcile_worker.py)."""

from __future__ import annotations

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
