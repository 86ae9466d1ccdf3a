"""``digest agent list|show|set`` (digest/cli/agents.py, digest/agents.py) and what the settings
do, run in this process on the embedded default (SQLite, offline/rules)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.models import Agent, Event, Tenant
from tests.cli.conftest import AGENT, OTHER_AGENT, ok, one_error_line, run_cli, run_json
from tests.conftest import manual_lesson


@dataclass(frozen=True)
class Shop:
    """One tenant with two agents, each with a manual lesson (no drain: cheap)."""

    tenant: str


@pytest.fixture()
def bank(sqlite_env: str) -> Shop:
    manual_lesson("owner-shop", AGENT, "refund-limits: refunds above 200 EUR need a manager")
    manual_lesson("owner-shop", AGENT, "greetings: greet the customer by name")
    manual_lesson("owner-shop", OTHER_AGENT, "discounts: never promise a discount")
    return Shop("owner-shop")


def _agent_row(tenant: str, agent: str) -> Agent:
    with session_scope() as session:
        row = session.scalars(
            select(Agent).join(Tenant).where(Tenant.name == tenant, Agent.name == agent)
        ).one()
        session.expunge(row)
        return row


def _counts() -> tuple[int, int]:
    with session_scope() as session:
        tenants = session.scalar(select(func.count()).select_from(Tenant)) or 0
        agents = session.scalar(select(func.count()).select_from(Agent)) or 0
        return tenants, agents


def test_set_show_and_list_an_agents_settings(bank: Shop) -> None:
    who = ("--tenant", bank.tenant, "--agent", AGENT)
    shown = run_json("agent", "show", *who)
    assert (shown["enable_learning"], shown["learning_instructions"], shown["llm_model"]) == (
        True, None, None,
    )  # fmt: skip
    assert shown["model_in_use"] == "offline/rules" and shown["active_lessons"] >= 2

    said = ok(
        "agent", "set", *who, "--learning", "off", "--instructions", "Only learn refund rules.",
        "--model", "scripted/owner-pick",
    )  # fmt: skip
    assert said.splitlines()[0] == (
        f"agent '{AGENT}' of tenant '{bank.tenant}': changed learning, instructions, model"
    )
    row = _agent_row(bank.tenant, AGENT)
    assert (row.enable_learning, row.learning_instructions, row.llm_model) == (
        False, "Only learn refund rules.", "scripted/owner-pick",
    )  # fmt: skip
    again = run_json("agent", "set", *who, "--learning", "off")
    assert again["changed"] == [] and again["model_in_use"] == "scripted/owner-pick"

    cleared = run_json("agent", "set", *who, "--no-instructions", "--default-model")
    assert cleared["changed"] == ["learning_instructions", "llm_model"]
    row = _agent_row(bank.tenant, AGENT)
    assert (row.enable_learning, row.learning_instructions, row.llm_model) == (False, None, None)

    listed = run_json("agent", "list", "--tenant", bank.tenant)
    assert [(a["agent"], a["enable_learning"]) for a in listed] == [
        (OTHER_AGENT, True), (AGENT, False),
    ]  # fmt: skip
    table = ok("agent", "list", "--tenant", bank.tenant, columns="80")
    assert all(len(line) <= 80 for line in table.splitlines())
    assert "learning" in table and OTHER_AGENT in table


def test_learning_off_is_obeyed_by_reflection(bank: Shop) -> None:
    """Off: the agent's next failures are captured and skipped, no lesson is learned."""
    who = ("--tenant", bank.tenant, "--agent", AGENT)
    ok("agent", "set", *who, "--learning", "off")
    before = run_json("lesson", "list", *who)
    digest.record_run(
        bank.tenant, AGENT, task="Ship order 9", outcome="failure",
        tool_calls=[{"tool": "book_courier", "ok": False, "error": "NoSlot: courier full"}],
    )  # fmt: skip
    drained = run_json("drain", "--tenant", bank.tenant)
    assert drained["by_status"] == {"skipped": 1}, drained
    with session_scope() as session:
        reason = session.scalar(select(Event.skip_reason).order_by(Event.id.desc()).limit(1))
    assert reason == "learning is disabled for this agent (`digest agent set --learning on`)"
    assert len(run_json("lesson", "list", *who)) == len(before)


def test_learning_off_is_said_where_a_person_looks(bank: Shop) -> None:
    """stats (JSON and text), improve-now and version list say that the agent's learning is
    off, that what it captures is skipped (how many), and how to turn it on; the sentence about
    the threshold, which would never be reached, is not there."""
    who = ("--tenant", bank.tenant, "--agent", AGENT)
    turn_on = f"`digest agent set --tenant {bank.tenant} --agent {AGENT} --learning on`"
    ok("agent", "set", *who, "--learning", "off")
    for order in (9, 10):
        digest.record_run(
            bank.tenant, AGENT, task=f"Ship order {order}", outcome="failure",
            tool_calls=[{"tool": "book_courier", "ok": False, "error": "NoSlot: courier full"}],
        )  # fmt: skip
    drained = " ".join(ok("drain", "--tenant", bank.tenant).split())
    assert "processed 2 event(s): 2 skipped" in drained
    assert "2 skipped because their agent's learning is off: stored, not reflected" in drained
    [row] = run_json("stats", *who)
    assert (row["enable_learning"], row["skipped_learning_off"]) == (False, 2)
    [other] = run_json("stats", "--tenant", bank.tenant, "--agent", OTHER_AGENT)
    assert (other["enable_learning"], other["skipped_learning_off"]) == (True, 0)
    for args in (("stats", *who), ("improve-now", *who), ("version", "list", *who)):
        said = " ".join(ok(*args, columns="80").split())
        assert "learning is off: what the agent captures is stored but skipped" in said, args
        assert "2 so far, and they stay skipped" in said and turn_on in said, args
        assert "new signal(s)" not in said, args
    said = " ".join(ok("stats", "--tenant", bank.tenant, "--agent", OTHER_AGENT).split())
    assert "learning is off" not in said and "new signal(s)" in said


def test_owner_commands_never_create_an_agent_or_tenant(bank: Shop) -> None:
    before = _counts()
    one_error_line(
        run_cli("agent", "set", "--tenant", bank.tenant, "--agent", "suport-bot", "--learning",
                "off"),
        "unknown agent 'suport-bot'", f"did you mean '{AGENT}'?",
    )  # fmt: skip
    one_error_line(
        run_cli("agent", "show", "--tenant", bank.tenant + "x", "--agent", AGENT),
        "unknown tenant",
        f"did you mean '{bank.tenant}'?",
    )
    one_error_line(run_cli("agent", "list", "--tenant", "nobody-here"), "unknown tenant")
    one_error_line(
        run_cli("lesson", "add", "--tenant", bank.tenant, "--agent", "suport-bot", "x: do y"),
        "unknown agent 'suport-bot'",
        f"did you mean '{AGENT}'?",
        "--new-agent",
    )
    one_error_line(
        run_cli("lesson", "add", "--tenant", "owner-shopp", "--agent", AGENT, "x: do y"),
        "unknown tenant 'owner-shopp'",
        f"did you mean '{bank.tenant}'?",
    )
    assert _counts() == before
    added = run_json(
        "lesson", "add", "--tenant", bank.tenant, "--agent", "new-bot", "--new-agent", "x: do y"
    )
    assert added["added"] and _counts() == (before[0], before[1] + 1)


def test_bad_agent_settings_name_the_option_and_change_nothing(bank: Shop) -> None:
    who = ("--tenant", bank.tenant, "--agent", AGENT)
    cases = [
        ((), "nothing to set"),
        (("--learning", "maybe"), "--learning"),
        (("--instructions", "  "), "--instructions (learning_instructions)"),
        (("--instructions", "x" * 5000), "at most 4096"),
        (("--model", "gpt 4"), "--model (llm_model)"),
        (("--model", "a", "--default-model"), "give one of them"),
        (("--instructions", "a", "--no-instructions"), "give one of them"),
        (("--learning", "off", "--model", "bad model"), "--model"),
    ]
    for args, needle in cases:
        one_error_line(run_cli("agent", "set", *who, *args), needle)
    row = _agent_row(bank.tenant, AGENT)
    assert (row.enable_learning, row.learning_instructions, row.llm_model) == (True, None, None)
