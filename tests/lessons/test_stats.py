"""digest.lessons.stats: per-agent statistics (events and lessons by status, the skip rate,
model usage, the active version), for one agent, a tenant or every tenant (embedded SQLite)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.errors import NotFound
from digest.lessons.stats import agent_stats
from digest.pipeline import drain, improve_now


def test_one_agents_stats(sqlite_env: str, tenant: str) -> None:
    digest.record_answer(tenant, "bot", question="Gift wrap?", answer="Yes, 3 EUR.")
    digest.record_run(tenant, "bot", task="greet", outcome="success")  # skipped by policy
    digest.record_run(tenant, "bot", task="refund", outcome="failure", error="timeout")
    digest.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    digest.record_answer(tenant, "bot", question="Open Sunday?", answer="No.")
    drain()
    improve_now(tenant, "bot")
    digest.record_answer(tenant, "bot", question="Parking?", answer="Behind the shop.")
    with session_scope() as session:
        [stats] = agent_stats(session, tenant, "bot")
    assert (stats.tenant, stats.agent, stats.active_version) == (tenant, "bot", 1)
    assert stats.events == {
        "pending": 1, "processing": 0, "waiting": 0, "reflected": 3, "skipped": 2, "failed": 0,
        "dead": 0,
    }  # fmt: skip
    assert stats.waiting == []
    assert stats.skip_rate == round(2 / 5, 4)
    # the manual lesson and what the answers taught (offline/rules may merge the two answers)
    assert (
        stats.lessons["active"] in (2, 3) and sum(stats.lessons.values()) == stats.lessons["active"]
    )
    # offline/rules: every reflect and the summarize call counted apart, as free
    assert stats.offline_calls >= 3 and stats.offline_prompt_tokens > 0
    assert (stats.llm_calls, stats.prompt_tokens, stats.cost_usd) == (0, 0, 0.0)
    assert stats.to_json()["events"]["pending"] == 1


def test_a_tenants_agents_or_everyone(sqlite_env: str, tenant: str) -> None:
    for agent in ("b-bot", "a-bot"):
        digest.record_lesson(tenant, agent, "refunds: confirm the amount first")
    digest.record_lesson(f"{tenant}-x", "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        mine = agent_stats(session, tenant)
        everyone = agent_stats(session)
        anywhere = agent_stats(session, agent="bot")
    assert [(s.tenant, s.agent) for s in mine] == [(tenant, "a-bot"), (tenant, "b-bot")]
    assert {(s.tenant, s.agent) for s in everyone} >= {
        (f"{tenant}-x", "bot"),
        *((tenant, a) for a in ("a-bot", "b-bot")),
    }
    assert [(s.tenant, s.agent) for s in anywhere] == [(f"{tenant}-x", "bot")]
    assert all(s.skip_rate == 0.0 and s.active_version is None for s in mine)


def test_unknown_names_are_not_found(sqlite_env: str, tenant: str) -> None:
    digest.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        with pytest.raises(NotFound, match="unknown tenant"):
            agent_stats(session, f"{tenant}-unknown")
        with pytest.raises(NotFound, match="unknown agent"):
            agent_stats(session, tenant, "nobody")
        with pytest.raises(NotFound, match="in any tenant"):
            agent_stats(session, agent="nobody")


def test_models_answered_in_process_are_no_paid_calls(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """offline/rules and a scripted model (the test twin) reach no provider: their calls are
    counted apart as free; a provider's run is what ``llm_calls`` and the cost count."""
    from digest.model.scripted import rules, scripted_model
    from digest.models import Agent, DigestRun, Tenant
    from tests.conftest import use_model

    with scripted_model(rules) as model:
        use_model(monkeypatch, model.name)
        digest.record_answer(tenant, "bot", question="Gift wrap?", answer="Yes, 3 EUR.")
        digest.record_run(
            tenant, "bot", task="Ship order 9", outcome="failure",
            tool_calls=[{"tool": "book_courier", "ok": False, "error": "NoSlot: courier full"}],
        )  # fmt: skip
        drain()
        improve_now(tenant, "bot")
        assert model.requests, "the scripted model answered nothing"
    with session_scope() as session:
        [free] = agent_stats(session, tenant, "bot")
        agent = session.scalars(
            select(Agent).join(Tenant).where(Tenant.name == tenant, Agent.name == "bot")
        ).one()
        session.add(
            DigestRun(
                tenant_id=agent.tenant_id, agent_id=agent.id, kind="reflect", trigger="event",
                llm_calls=2, prompt_tokens=900, completion_tokens=120, cost_usd=0.0021,
                model="openai/gpt-4o-mini",
            )
        )  # fmt: skip
    assert free.offline_calls >= len(model.requests) > 0 and free.offline_prompt_tokens > 0
    assert (free.llm_calls, free.prompt_tokens, free.cost_usd) == (0, 0, 0.0)
    with session_scope() as session:
        [paid] = agent_stats(session, tenant, "bot")
    assert (paid.llm_calls, paid.prompt_tokens, paid.completion_tokens, paid.cost_usd) == (
        2, 900, 120, 0.0021,
    )  # fmt: skip
    assert paid.offline_calls == free.offline_calls
