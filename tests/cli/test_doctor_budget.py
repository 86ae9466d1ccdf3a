"""``digest doctor``'s time budget reads as a sentence a person understands (issue 26): what
is budgeted (a reflection's model calls with their retries), against what (the reflect task's
soft limit), and why that is fine; with in-process models, that no network is waited on. The
check alone, on settings objects: a whole ``doctor`` run would wait on the models it names."""

from __future__ import annotations

from digest.cli.doctor import _budget
from digest.config import Settings


def test_the_time_budget_says_what_is_budgeted_and_why_it_fits() -> None:
    offline = _budget(Settings(llm_model="offline/rules"))
    assert offline.status == "ok"
    assert offline.detail.startswith("the models (offline/rules) answer in this process")
    assert "waits on no network" in offline.detail and "540 s" in offline.detail

    remote = _budget(Settings(llm_model="openai/gpt-4o-mini"))
    assert remote.status == "ok"
    assert "a reflection gives up on the model after 500 s" in remote.detail
    assert "before the worker stops the reflect task at 540 s" in remote.detail
    assert "within the" not in remote.detail  # the old "at most 1940 s, within the 540 s …"

    tight = _budget(
        Settings(llm_model="openai/gpt-4o-mini", task_soft_time_limit_s=60, task_time_limit_s=90)
    )
    assert tight.status == "FAIL" and "raise DIGEST_TASK_SOFT_TIME_LIMIT_S" in tight.detail
