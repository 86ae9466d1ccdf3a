"""An event that waited for its tenant's budget (issue 29, part 3) is no faulty event: when it
meets a model fault the next day, the give-up clock (``DIGEST_LLM_GIVE_UP_AFTER_S``) starts at
that fault, not at the day it began waiting, so it waits again instead of failing. The embedded
mode (SQLite, the process's own ledger, ``digest drain``), litellm to tests/fake_llm.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest import clock
from digest.config import forget_settings
from digest.db import session_scope
from digest.model.budget import resume_at
from digest.models import Event, as_utc
from digest.pipeline import drain
from digest.tenants import set_tenant

LESSON = (
    "<lesson>\n<situation>Calling label_print</situation>\n<mistake>It failed.</mistake>\n"
    "<correction>Check the label size first.</correction>\n<tags>label_print</tags>\n</lesson>"
)


def _event(event_id: int) -> Event:
    with session_scope() as session:
        return session.scalars(select(Event).where(Event.id == event_id)).one()


def test_a_fault_after_a_budget_wait_waits_again_instead_of_failing(
    sqlite_env: str, fake_llm: Any, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {
        "DIGEST_LLM_MODEL": "openai/fake-model", "DIGEST_LLM_API_BASE": fake_llm.api_base,
        "DIGEST_LLM_MAX_ATTEMPTS": "1", "DIGEST_LLM_GIVE_UP_AFTER_S": "3600",
    }.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    forget_settings()
    set_tenant(tenant, daily_tokens=10)
    ok = fake_llm.script(f"{tenant}-ok", ("reply", LESSON))
    down = fake_llm.script(f"{tenant}-down", ("status", 503))
    call = {"tool": "label_print", "ok": False, "error": "label size rejected"}
    first = digest.record_run(tenant, "bot", outcome="failure", task=f"print {ok}",
                              tool_calls=[call])  # fmt: skip
    drain(tenant=tenant)
    assert _event(first).status == "reflected"  # 18 tokens: the day's 10 are spent
    other = {"tool": "stock_count", "ok": False, "error": "shelf unknown"}
    second = digest.record_run(tenant, "bot", outcome="failure", task=f"count {down}",
                               tool_calls=[other])  # fmt: skip
    drain(tenant=tenant)
    waiting = _event(second)
    assert (waiting.status, waiting.wait_kind) == ("waiting", "budget")
    assert fake_llm.count(f"{tenant}-down") == 0
    tomorrow = resume_at(clock.now())
    assert as_utc(waiting.next_attempt_at) == tomorrow

    # The next day (a day after it began waiting, past the give-up horizon): the provider is
    # down. A passing fault: it waits again, its give-up clock starting now.
    monkeypatch.setenv(
        "DIGEST_CLOCK_OFFSET_S", str((tomorrow - datetime.now(UTC)).total_seconds() + 7200)
    )
    forget_settings()
    drain(tenant=tenant)
    assert fake_llm.count(f"{tenant}-down") == 1
    again = _event(second)
    assert (again.status, again.wait_kind) == ("waiting", None), again.last_error
    assert as_utc(again.waiting_since) > tomorrow + timedelta(hours=1)
    assert "503" in (again.last_error or "")


def test_each_new_drain_goes_on_from_the_days_recorded_spend(
    sqlite_env: str, fake_llm: Any, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a broker the ledger lives in the process: a new ``digest drain`` (a new
    process: its state reset) starts the day from what ``digest_runs`` recorded of it."""
    from tests.conftest import _reset_process_state

    monkeypatch.setenv("DIGEST_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("DIGEST_LLM_API_BASE", fake_llm.api_base)
    forget_settings()
    set_tenant(tenant, daily_tokens=30)
    ids = []
    for tool in ("label_print", "stock_count", "route_plan"):
        marker = fake_llm.script(f"{tenant}-{tool}", ("reply", LESSON.replace("label_print", tool)))
        call = {"tool": tool, "ok": False, "error": f"{tool} input rejected"}
        ids.append(digest.record_run(tenant, "bot", outcome="failure", task=f"go {marker}",
                                     tool_calls=[call]))  # fmt: skip
        _reset_process_state()  # a new process for each drain
        drain(tenant=tenant)
    # 18 tokens, then 36 (still under 30 when the second call was admitted), then spent
    assert [_event(i).status for i in ids] == ["reflected", "reflected", "waiting"]
    assert _event(ids[2]).wait_kind == "budget"
    assert fake_llm.count(f"{tenant}-route_plan") == 0
    # `digest stats` says it, per tenant and per agent (without a broker: from digest_runs)
    from tests.cli.conftest import ok

    said = " ".join(ok("stats", "--tenant", tenant).split())
    assert f"{tenant}: budget 30 tokens a day: 36 tokens, $0.0000 spent on" in said
    assert "the token budget is spent; 1 event(s) wait for the budget, resuming" in said
    assert (
        f"{tenant}/bot: 36 tokens, $0.0000 on provider models today (UTC); "
        "1 event(s) wait for the budget"
    ) in said
