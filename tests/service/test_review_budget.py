"""The review page says when events wait for the tenant's daily model budget and when they
resume (issue 29, part 3): the agents table and the agent's page, from a real server. The
events are reflected in this process through litellm to tests/fake_llm.py, whose every call
reports 18 tokens; the budget's ledger is the fleet's (this test's Redis)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import digest
from digest import clock
from digest.config import forget_settings
from digest.model.budget import resume_at
from digest.pipeline import drain
from digest.tenants import set_tenant
from tests.service.conftest import Server, Tenant, review_login

AGENT = "support-bot"


@pytest.fixture()
def browser_like(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def test_events_waiting_for_the_budget_say_so_and_when_they_resume(
    browser_like: httpx.Client,
    make_tenant: Callable[[], Tenant],
    fake_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = make_tenant()
    monkeypatch.setenv("DIGEST_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("DIGEST_LLM_API_BASE", fake_llm.api_base)
    monkeypatch.setenv("DIGEST_LLM_MAX_ATTEMPTS", "1")
    forget_settings()
    set_tenant(owner.name, daily_tokens=10)
    tools = ("label_print", "stock_count")
    for tool in tools:
        marker = fake_llm.script(
            f"{owner.name}-{tool}",
            ("reply", f"<lesson>\n<situation>Calling {tool}</situation>\n<mistake>It failed."
                      f"</mistake>\n<correction>Check the {tool} input first.</correction>\n"
                      f"<tags>{tool}</tags>\n</lesson>"),
        )  # fmt: skip
        digest.record_run(
            owner.name, AGENT, outcome="failure", task=f"do the job {marker}",
            tool_calls=[{"tool": tool, "ok": False, "error": f"{tool}: input rejected"}],
        )  # fmt: skip
        drain(tenant=owner.name)
    # the first call spent the day's 10 tokens (18: one call's worth over); the second waits
    when = resume_at(clock.now()).strftime("%Y-%m-%d %H:%M")
    assert review_login(browser_like, owner.owner_key).status_code == 303
    agents = " ".join(browser_like.get("/review").text.split())
    assert f"(1 for the daily budget, resuming {when} UTC)" in agents
    page = browser_like.get(f"/review/agents/{AGENT}").text
    found = re.search(r'id="budget-waits">(.*?)</p>', page, re.S)
    assert found is not None
    said = " ".join(found.group(1).split())
    assert said.startswith("1 event waits for the daily model budget: token budget")
    assert f"it resumes at {when} UTC" in said and "Nothing is lost" in said
    report = browser_like.get(f"/review/agents/{AGENT}/report").text
    assert 'id="budget-wait"' in report and f"resume at {when} UTC" in report
