"""``digest db upgrade``, ``tenant set`` and ``stats`` (digest/cli/admin.py), run in this
process."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import func, select

from digest.db import session_scope
from digest.models import DigestRun
from tests.cli.conftest import (
    AGENT,
    OTHER_AGENT,
    Bank,
    lesson_row,
    ok,
    one_error_line,
    run_all,
    run_cli,
    run_json,
    sqlite_env_for,
)

# --- db upgrade ------------------------------------------------------------------------------


def test_db_upgrade_creates_the_schema(tmp_path: Path) -> None:
    db_file = tmp_path / "fresh.db"
    assert "revision head" in ok("db", "upgrade", env=sqlite_env_for(db_file), cwd=tmp_path)
    with sqlite3.connect(db_file) as conn:
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    assert {"tenants", "agents", "events", "lessons", "alembic_version"} <= tables
    assert len(version) == 1

    ok("db", "upgrade", env=sqlite_env_for(db_file), cwd=tmp_path)


def test_db_upgrade_to_an_unknown_revision_is_one_line(tmp_path: Path) -> None:
    result = run_cli("db", "upgrade", "nope", env=sqlite_env_for(tmp_path / "x.db"))
    one_error_line(result, "migration failed", "nope")


# --- tenant set ------------------------------------------------------------------------------


def test_tenant_set_prints_the_mode_and_overrides(sqlite_env: str) -> None:
    assert ok("tenant", "create", "--tenant", "acme").strip() == "created tenant 'acme'"
    out = ok("tenant", "set", "--tenant", "acme", "--apply-mode", "approval", "--threshold", "3")
    assert out.strip() == "tenant 'acme': apply mode approval; --threshold 3"
    out = ok("tenant", "set", "--tenant", "acme", "--quiet", "0")
    assert out.strip() == "tenant 'acme': apply mode approval; --quiet 0, --threshold 3"
    one_error_line(run_cli("tenant", "set", "--tenant", "acme", "--gate", "0"), "--gate")
    bad_mode = run_cli("tenant", "set", "--tenant", "acme", "--apply-mode", "sometimes")
    one_error_line(bad_mode, "--apply-mode", "auto, approval, staged")
    assert "invalid event" not in bad_mode.stderr


# --- owner commands never create a tenant (issue 26 point 3) ---------------------------------


def test_a_mistyped_tenant_is_an_error_that_suggests_the_real_one(
    sqlite_env: str, tmp_path: Path
) -> None:
    ok("tenant", "create", "--tenant", "acme")
    ok("tenant", "set", "--tenant", "acme", "--gate", "2")
    for argv in (
        ("tenant", "set", "--tenant", "acmee", "--apply-mode", "approval"),
        ("tenant", "key", "create", "--tenant", "acmme"),
        ("import", str(tmp_path), "--tenant", "acmme", "--agent", "bot"),
    ):
        one_error_line(run_cli(*argv), "unknown tenant", "did you mean 'acme'?", "tenant create")
    rows = run_json("tenant", "list", "--json")
    assert [(r["tenant"], r["apply_mode"], r["overrides"]) for r in rows] == [
        ("acme", "auto", {"frequency_gate": 2})
    ]  # the typos made nothing, and the real tenant kept its mode
    assert ok("tenant", "create", "--tenant", "acme").strip() == "already there: tenant 'acme'"
    table = ok("tenant", "list")
    assert "acme" in table and "--gate 2" in table


def test_import_into_an_unknown_agent_needs_new_agent(sqlite_env: str, tmp_path: Path) -> None:
    ok("tenant", "create", "--tenant", "acme")
    folder = tmp_path / "lessons"
    (folder / "refunds").mkdir(parents=True)
    (folder / "refunds" / "LESSON.md").write_text(
        '---\nschema: agentlearning/v1\ntitle: "Confirm the amount"\n---\n\n'
        "## What to do (or avoid)\n\nAsk before refunding.\n"
    )
    refused = run_cli("import", str(folder), "--tenant", "acme", "--agent", "bot")
    one_error_line(refused, "unknown agent 'bot'", "--new-agent")
    ok("import", str(folder), "--tenant", "acme", "--agent", "bot", "--new-agent")
    again = ok("import", str(folder), "--tenant", "acme", "--agent", "bot")
    assert "imported 0, already there 1" in again
    typo = run_cli("import", str(folder), "--tenant", "acme", "--agent", "bob")
    one_error_line(typo, "unknown agent 'bob'", "did you mean 'bot'?")


# --- stats -----------------------------------------------------------------------------------


def test_stats_json_per_agent(bank: Bank) -> None:
    rows = run_json("stats", "--tenant", bank.tenant)
    assert [(r["tenant"], r["agent"]) for r in rows] == [
        (bank.tenant, OTHER_AGENT),
        (bank.tenant, AGENT),
    ]
    mine = rows[1]
    # 2 reflected by drain + 1 manual lesson event (stored reflected), 1 skipped
    assert mine["events"] == {
        "pending": 0, "processing": 0, "waiting": 0, "reflected": 3, "skipped": 1, "failed": 0,
        "dead": 0,
    }  # fmt: skip
    assert mine["skip_rate"] == 0.25
    assert mine["lessons"]["active"] == 3 and sum(mine["lessons"].values()) == 3
    assert mine["active_version"] is None and mine["waiting"] == []
    with session_scope() as session:
        runs = session.execute(
            select(
                func.sum(DigestRun.llm_calls), func.sum(DigestRun.prompt_tokens),
                func.sum(DigestRun.completion_tokens),
            ).where(DigestRun.agent_id == lesson_row(bank.refund).agent_id)
        ).one()  # fmt: skip
    # offline/rules answered every call: free and reached no provider, so counted apart
    assert (mine["llm_calls"], mine["prompt_tokens"], mine["cost_usd"]) == (0, 0, 0.0)
    offline = ("offline_calls", "offline_prompt_tokens", "offline_completion_tokens")
    assert tuple(mine[key] for key in offline) == tuple(int(v or 0) for v in runs)
    assert mine["offline_calls"] >= 3
    # the bank's lessons were never composed: every signal is new, below the threshold
    assert (mine["signals"], mine["threshold"]) == (3, 5)
    assert isinstance(mine["cost_usd"], float)
    other = rows[0]
    assert other["lessons"]["active"] == 1 and other["skip_rate"] == 0.0

    ok("improve-now", *bank.mine)
    [one] = run_json("stats", *bank.mine)
    assert one["agent"] == AGENT and one["active_version"] == 1
    assert one["offline_calls"] > mine["offline_calls"] and one["llm_calls"] == 0
    assert one["signals"] == 0  # the version digested them

    everyone = run_json("stats")
    tenants = {(r["tenant"], r["agent"]) for r in everyone}
    assert {(bank.tenant, AGENT), (bank.other_tenant, AGENT)} <= tenants
    by_name = run_json("stats", "--agent", OTHER_AGENT)
    assert [(r["tenant"], r["agent"]) for r in by_name] == [(bank.tenant, OTHER_AGENT)]

    table = ok("stats", "--tenant", bank.tenant)
    for part in ("skip rate", "LLM calls", "offline calls", "25%", AGENT, OTHER_AGENT):
        assert part in table
    narrow = " ".join(ok("stats", *bank.mine, columns="80").split())
    assert "LLM calls: none" in narrow and "free): offline/rules, no provider" in narrow
    assert "…" not in narrow
    assert "version: 1" in narrow
    assert "without a broker nothing composes by itself: `digest improve-now`" in narrow


def test_stats_of_unknown_tenant_or_agent_is_one_line(bank: Bank) -> None:
    no_tenant, no_agent, both, agent_only = run_all(
        [
            ["stats", "--tenant", "no-such-tenant"],
            ["stats", "--tenant", bank.tenant, "--agent", "no-such-agent", "--json"],
            ["stats", "--tenant", "no-such-tenant", "--agent", AGENT],
            ["stats", "--agent", "no-such-agent"],
        ]
    )
    one_error_line(no_tenant, "unknown tenant 'no-such-tenant'")
    one_error_line(no_agent, "unknown agent 'no-such-agent'")
    one_error_line(both, "unknown tenant 'no-such-tenant'")
    one_error_line(agent_only, "unknown agent")


def test_postgres_stats(pg_bank: Bank) -> None:
    bank = pg_bank
    [stats] = run_json("stats", *bank.mine)
    assert stats["events"]["reflected"] == 3 and stats["events"]["skipped"] == 1
    assert stats["skip_rate"] == 0.25
    assert stats["lessons"]["active"] == 3
    assert stats["offline_calls"] >= 3 and stats["llm_calls"] == 0
    everyone = run_json("stats", "--tenant", bank.tenant)
    assert [r["agent"] for r in everyone] == [OTHER_AGENT, AGENT]
