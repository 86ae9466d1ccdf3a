"""``digest doctor``'s time budget reads as a sentence a person understands (issue 26): what
is budgeted (a reflection's model calls with their retries), against what (the reflect task's
soft limit), and why that is fine; with in-process models, that no network is waited on. The
check alone, on settings objects: a whole ``doctor`` run would wait on the models it names."""

from __future__ import annotations

import pytest

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


def test_the_settings_line_reads_as_words_and_hides_passwords(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from digest.cli.doctor import _settings
    from digest.config import get_settings

    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql://app:s3cr3t@db:5432/digest")
    monkeypatch.setenv("DIGEST_BROKER_URL", "redis://:hunter2@cache:6379/0")
    monkeypatch.setenv("DIGEST_LLM_MODEL", "offline/rules")
    get_settings.cache_clear()
    try:
        check, _ = _settings()
    finally:
        get_settings.cache_clear()
    assert check.status == "ok"
    assert check.detail.startswith("valid: database postgresql+psycopg://app:***@db:5432/digest")
    assert "broker redis://:***@cache:6379/0" in check.detail
    assert "model offline/rules" in check.detail
    assert "s3cr3t" not in check.detail and "hunter2" not in check.detail
    assert "Settings(" not in check.detail  # not the object's repr
