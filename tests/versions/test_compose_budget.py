"""Compose with the tenant's daily model budget spent (issue 29, part 3): the summarize call is
charged to the agent's tenant, and once the budget is spent the version is still composed,
with the deterministic change note and the reason, and no request leaves (PostgreSQL, the
fleet's Redis ledger, tests/fake_llm.py through litellm for the summarize step)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from digest import clock
from digest.config import get_settings
from digest.db import session_scope
from digest.model import spend
from digest.model.budget import Limits
from digest.models import DigestRun
from digest.tenants import set_tenant
from digest.versions.compose import compose_version
from tests.conftest import use_model
from tests.versions.conftest import agent_id, lesson


def test_a_spent_budget_composes_with_the_deterministic_note(
    services_env: dict[str, str], tenant: str, fake_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    lesson(tenant, 1)
    monkeypatch.setenv("DIGEST_LLM_API_BASE", fake_llm.api_base)
    use_model(monkeypatch, "openai/fake-model", step="summarize")
    set_tenant(tenant, daily_tokens=100)
    ledger, now = spend.ledger_for(get_settings()), clock.now()
    assert ledger.reserve(tenant, "earlier", tokens=100, cost_usd=0.0,
                          limits=Limits(daily_tokens=100), now=now)  # fmt: skip
    assert ledger.settle(tenant, "earlier", tokens=100, cost_usd=0.0, now=now)
    served = sum(fake_llm.requests.values())
    result = compose_version(agent_id(tenant), "manual")
    assert (result.status, result.number) == ("created", 1)
    assert sum(fake_llm.requests.values()) == served  # no request left
    with session_scope() as session:
        run = session.scalars(
            select(DigestRun).where(DigestRun.version_id == result.version_id)
        ).one()
    assert run.llm_calls == 0
    assert run.error.startswith(
        "summarize failed, deterministic note used: daily token budget of tenant"
    )
    assert ledger.spend(tenant, now).tokens == 100
