"""The owner commands (``digest lesson …`` and ``digest stats``), run as real subprocesses
(``python -m digest.cli``): on the embedded default (SQLite, no broker, offline/rules), and the
listings once more on PostgreSQL."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.models import Agent, DigestRun, Lesson, LessonHistory

AGENT = "support-bot"
OTHER_AGENT = "sales-bot"

REFUND_RUN: dict[str, Any] = {
    "task": "Refund the damaged mug from order 41655",
    "outcome": "failure",
    "tool_calls": [
        {
            "tool": "issue_refund",
            "args": {"order_id": "41655"},
            "ok": False,
            "error": "ValidationError: field 'amount' is required",
        }
    ],
}
TRANSIENT_RUN: dict[str, Any] = {
    "task": "Where is order 7?",
    "outcome": "failure",
    "error": "upstream timeout after 30s",
    "tool_calls": [{"tool": "track_shipment", "ok": False, "error": "upstream timeout"}],
}


def _digest(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m digest.cli ARGS`` with this process's environment. Without ``stdin`` the
    child gets no input at all (no terminal), the way cron or CI runs it."""
    return subprocess.run(
        [sys.executable, "-m", "digest.cli", *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=180,
        check=False,
    )


def _digest_all(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Run read-only or refused commands side by side (each one is a Python start-up)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda command: _digest(*command), commands))


def _json(*args: str) -> Any:
    result = _digest(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _one_error_line(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2 and exactly one line on stderr that contains every needle."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@dataclass
class Bank:
    """One tenant's lessons: a manual one, two reflected ones, a skipped event; a second agent
    and a second tenant each with a lesson of their own."""

    tenant: str
    other_tenant: str
    manual: int
    answer: int
    refund: int
    other_agent_lesson: int
    other_tenant_lesson: int

    @property
    def mine(self) -> tuple[str, ...]:
        return ("--tenant", self.tenant, "--agent", AGENT)


def _make_bank(tenant: str) -> Bank:
    other_tenant = f"{tenant}-other"
    manual = digest.record_lesson(
        tenant, AGENT, "refund-limits: refunds above 200 EUR need a manager"
    )
    digest.record_answer(
        tenant, AGENT, question="Do we ship to Norway?",
        answer="Yes, from the Oslo warehouse, 3-5 days.",
    )  # fmt: skip
    digest.record_run(tenant, AGENT, **REFUND_RUN)
    digest.record_run(tenant, AGENT, **TRANSIENT_RUN)
    other_agent = digest.record_lesson(tenant, OTHER_AGENT, "discounts: never promise a discount")
    other_tenant_lesson = digest.record_lesson(
        other_tenant, AGENT, "greetings: greet the customer by name"
    )
    # Only this tenant: on the shared Postgres other tests' pending events are theirs.
    drained = _json("drain", "--tenant", tenant)
    assert drained["by_status"] == {"reflected": 2, "skipped": 1}, drained
    by_source = _sources(tenant, AGENT)
    return Bank(
        tenant=tenant,
        other_tenant=other_tenant,
        manual=manual,
        answer=by_source["owner_answer"],
        refund=by_source["run_outcome"],
        other_agent_lesson=other_agent,
        other_tenant_lesson=other_tenant_lesson,
    )


def _sources(tenant: str, agent: str) -> dict[str, int]:
    from digest.models import Tenant

    with session_scope() as session:
        rows = session.execute(
            select(Lesson.source, Lesson.id)
            .join(Agent, Agent.id == Lesson.agent_id)
            .join(Tenant, Tenant.id == Agent.tenant_id)
            .where(Tenant.name == tenant, Agent.name == agent)
        ).all()
    return {source: lesson_id for source, lesson_id in rows}


def _forget_process_state() -> None:
    """Drop cached settings, engines and agent ids: the database under them changes."""
    from digest.capture.api import forget_agent_ids
    from digest.config import get_settings
    from digest.db import dispose_engines

    get_settings.cache_clear()
    dispose_engines()
    forget_agent_ids()


@pytest.fixture(scope="module")
def bank_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Bank]:
    """Build the bank once (captures, a drain) into a template SQLite file; each test gets a
    copy, which is much faster than capturing and reflecting again."""
    from digest.migrate import upgrade

    path = tmp_path_factory.mktemp("bank") / "template.db"
    url = f"sqlite:///{path}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DIGEST_DATABASE_URL", url)
        patch.delenv("DIGEST_BROKER_URL", raising=False)
        patch.delenv("DIGEST_LLM_API_BASE", raising=False)
        patch.setenv("DIGEST_LLM_MODEL", "offline/rules")
        _forget_process_state()
        upgrade(url)
        bank = _make_bank("owner-shop")
        _forget_process_state()
    return path, bank


@pytest.fixture()
def bank(sqlite_env: str, bank_template: tuple[Path, Bank]) -> Bank:
    template, made = bank_template
    _forget_process_state()  # no pooled connection may hold the file being replaced
    source = sqlite3.connect(template)
    target = sqlite3.connect(sqlite_env.removeprefix("sqlite:///"))
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return made


def _lesson(lesson_id: int) -> Lesson:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        return lesson


def _epoch(tenant: str, agent: str) -> int:
    from digest.tenants import find_agent

    with session_scope() as session:
        return find_agent(session, tenant, agent).lesson_epoch


def _history(lesson_id: int) -> list[LessonHistory]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(LessonHistory)
                .where(LessonHistory.lesson_id == lesson_id)
                .order_by(LessonHistory.id)
            )
        )


def _set(lesson_id: int, **values: Any) -> None:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        for key, value in values.items():
            setattr(lesson, key, value)


# --- list ------------------------------------------------------------------------------------


def test_list_json_is_newest_consulted_first_and_only_this_agent(bank: Bank) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    _set(bank.manual, last_seen_at=None)  # never consulted: last
    _set(bank.answer, last_seen_at=t0)
    _set(bank.refund, last_seen_at=t0 + timedelta(hours=1))
    rows = _json("lesson", "list", *bank.mine)
    assert [r["id"] for r in rows] == [bank.refund, bank.answer, bank.manual]
    assert bank.other_agent_lesson not in [r["id"] for r in rows]
    manual = rows[-1]
    assert manual["title"] == "refund-limits"
    assert manual["correction"] == "refunds above 200 EUR need a manager"
    assert manual["source"] == "manual_lesson"
    assert manual["last_seen_at"] is None
    for key in ("status", "support_count", "success_count", "failure_count", "hit_count"):
        assert key in manual
    assert rows[0]["last_seen_at"].startswith("2026-01-01T01:00:00")

    # Ties on last_seen_at: the newer id first.
    _set(bank.manual, last_seen_at=t0)
    rows = _json("lesson", "list", *bank.mine)
    ordered = sorted([bank.manual, bank.answer], reverse=True)
    assert [r["id"] for r in rows] == [bank.refund, *ordered]


def test_list_status_filter_and_table(bank: Bank) -> None:
    _set(bank.refund, status="disabled")
    disabled = _json("lesson", "list", *bank.mine, "--status", "disabled")
    assert [r["id"] for r in disabled] == [bank.refund]

    table = _digest("lesson", "list", *bank.mine)
    assert table.returncode == 0, table.stderr
    for header in ("id", "title", "status", "source", "support", "success/failure", "hits"):
        assert header in table.stdout
    assert "last seen" in table.stdout
    assert "refund-limits" in table.stdout

    bad = _digest("lesson", "list", *bank.mine, "--status", "archived")
    _one_error_line(bad, "unknown status 'archived'")


# --- search ----------------------------------------------------------------------------------


def test_search_json_ignores_case_and_looks_in_every_text(bank: Bank) -> None:
    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "OSLO")] == [bank.answer]
    # the title (signature) and the correction text
    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "Refund-LIMITS")] == [
        bank.manual
    ]
    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "200 eur")] == [bank.manual]
    # never another agent's lesson, and nothing found is an empty list
    assert _json("lesson", "search", *bank.mine, "discount") == []
    # non-ASCII folds too (SQLite's own LIKE would not)
    cafe = digest.record_lesson(bank.tenant, AGENT, "Café hours: the CAFÉ opens at 9")
    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "café")] == [cafe]

    table = _digest("lesson", "search", *bank.mine, "nothing-like-this")
    assert table.returncode == 0, table.stderr
    assert "no lesson matches" in table.stdout


# --- show ------------------------------------------------------------------------------------


def test_show_json_has_evidence_and_history(bank: Bank) -> None:
    data = _json("lesson", "show", *bank.mine, str(bank.manual))
    assert data["id"] == bank.manual
    assert data["title"] == "refund-limits"
    [evidence] = data["evidence"]
    assert evidence["kind"] == "manual_lesson"
    assert evidence["note"] == "added by hand"
    assert isinstance(evidence["event_id"], int) and evidence["created_at"]
    [added] = data["history"]
    assert added["op"] == "ADD"
    assert added["before"] is None
    assert added["after"]["title"] == "refund-limits"
    assert added["event_id"] == evidence["event_id"]
    assert {"reason", "at", "model"} <= set(added)

    reflected = _json("lesson", "show", *bank.mine, str(bank.refund))
    assert reflected["evidence"][0]["kind"] == "run_outcome"
    assert reflected["history"][0]["model"] == "offline/rules"

    table = _digest("lesson", "show", *bank.mine, str(bank.manual))
    assert table.returncode == 0, table.stderr
    for part in ("refund-limits", "evidence", "history", "added by hand", "ADD"):
        assert part in table.stdout


# --- add -------------------------------------------------------------------------------------


def test_add_json_single_line_and_block(bank: Bank) -> None:
    one = _json("lesson", "add", *bank.mine, "returns: returns need the order number")
    assert one["title"] == "returns"
    assert one["correction"] == "returns need the order number"
    assert one["source"] == "manual_lesson" and one["status"] == "active"
    assert one["evidence"][0]["kind"] == "manual_lesson"

    block = _json("lesson", "add", *bank.mine, "Opening hours\nWe open at 9.\nClosed on Sunday.")
    assert block["title"] == "Opening hours"
    assert block["correction"] == "We open at 9.\nClosed on Sunday."
    rows = _json("lesson", "list", *bank.mine)
    assert {one["id"], block["id"]} <= {r["id"] for r in rows}


def test_add_invalid_text_is_one_line_and_stores_nothing(bank: Bank) -> None:
    with session_scope() as session:
        before = session.scalar(select(func.count()).select_from(Lesson))
    result = _digest("lesson", "add", *bank.mine, "no colon and no body")
    _one_error_line(result, "text")
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(Lesson)) == before


# --- delete / disable / enable ---------------------------------------------------------------


def test_disable_enable_delete_write_history_and_bump_the_epoch(bank: Bank) -> None:
    epoch = _epoch(bank.tenant, AGENT)
    stamped = _lesson(bank.manual).updated_at

    off = _json("lesson", "disable", *bank.mine, str(bank.manual), "--reason", "outdated",
                "--by", "alice")  # fmt: skip
    assert off == {
        "lesson_id": bank.manual, "title": "refund-limits", "before": "active",
        "after": "disabled", "changed": True,
    }  # fmt: skip
    lesson = _lesson(bank.manual)
    assert lesson.status == "disabled"
    assert lesson.status_reason == "disabled by alice: outdated"
    assert lesson.updated_at > stamped
    assert _epoch(bank.tenant, AGENT) == epoch + 1
    row = _history(bank.manual)[-1]
    assert (row.op, row.reason) == ("UPDATE", "disabled by alice: outdated")
    assert row.before is not None and row.before["status"] == "active"
    assert row.after is not None and row.after["status"] == "disabled"
    listed = _json("lesson", "list", *bank.mine, "--status", "active")
    assert bank.manual not in [r["id"] for r in listed]

    on = _json("lesson", "enable", *bank.mine, str(bank.manual))
    assert (on["before"], on["after"], on["changed"]) == ("disabled", "active", True)
    assert _lesson(bank.manual).status == "active"
    assert _history(bank.manual)[-1].op == "UPDATE"
    assert _epoch(bank.tenant, AGENT) == epoch + 2

    again = _json("lesson", "enable", *bank.mine, str(bank.manual))
    assert again["changed"] is False
    assert _epoch(bank.tenant, AGENT) == epoch + 2  # nothing written

    gone = _json("lesson", "delete", *bank.mine, str(bank.manual), "--reason", "wrong")
    assert (gone["after"], gone["changed"]) == ("deleted", True)
    assert _lesson(bank.manual).status == "deleted"  # soft: the row stays
    row = _history(bank.manual)[-1]
    assert (row.op, row.reason) == ("DELETE", "deleted by the owner: wrong")
    assert _epoch(bank.tenant, AGENT) == epoch + 3
    assert [h.op for h in _history(bank.manual)] == ["ADD", "UPDATE", "UPDATE", "DELETE"]

    plain = _digest("lesson", "delete", *bank.mine, str(bank.manual))
    assert plain.returncode == 0, plain.stderr
    assert "already deleted" in plain.stdout

    # A deleted lesson stays deleted: enabling or disabling it is refused, nothing is written.
    for command in ("enable", "disable"):
        refused = _digest("lesson", command, *bank.mine, str(bank.manual))
        _one_error_line(refused, f"lesson {bank.manual} is deleted")
    assert _lesson(bank.manual).status == "deleted"
    assert len(_history(bank.manual)) == 4
    assert _epoch(bank.tenant, AGENT) == epoch + 3


def test_quarantine_is_never_lifted_by_hand(bank: Bank) -> None:
    _set(bank.refund, status="quarantined")
    for command in ("enable", "disable"):
        refused = _digest("lesson", command, *bank.mine, str(bank.refund))
        _one_error_line(refused, "quarantined")
    assert _lesson(bank.refund).status == "quarantined"
    deleted = _json("lesson", "delete", *bank.mine, str(bank.refund))
    assert (deleted["before"], deleted["after"]) == ("quarantined", "deleted")
    _set(bank.answer, status="superseded")
    refused = _digest("lesson", "enable", *bank.mine, str(bank.answer))
    _one_error_line(refused, "superseded", "only a disabled lesson can be enabled")
    superseded = _json("lesson", "delete", *bank.mine, str(bank.answer))
    assert (superseded["before"], superseded["after"]) == ("superseded", "deleted")


def test_enable_clears_a_past_expiry(bank: Bank) -> None:
    _set(bank.answer, status="disabled", expires_at=datetime.now(UTC) - timedelta(days=1))
    result = _json("lesson", "enable", *bank.mine, str(bank.answer), "--by", "bob")
    assert result["after"] == "active"
    lesson = _lesson(bank.answer)
    assert lesson.status == "active" and lesson.expires_at is None
    assert "expiry" in (_history(bank.answer)[-1].reason or "")


# --- reset -----------------------------------------------------------------------------------


def _statuses(tenant: str, agent: str) -> dict[int, str]:
    return {r["id"]: r["status"] for r in _json("lesson", "list", "--tenant", tenant,
                                                "--agent", agent)}  # fmt: skip


def test_reset_without_yes_and_without_input_changes_nothing(bank: Bank) -> None:
    before = _statuses(bank.tenant, AGENT)
    epoch = _epoch(bank.tenant, AGENT)
    with session_scope() as session:
        history = session.scalar(select(func.count()).select_from(LessonHistory))
    result = _digest("lesson", "reset", *bank.mine)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "aborted" in result.stderr.lower()
    assert _statuses(bank.tenant, AGENT) == before
    assert set(before.values()) == {"active"}
    assert _epoch(bank.tenant, AGENT) == epoch
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(LessonHistory)) == history

    no = _digest("lesson", "reset", *bank.mine, stdin="n\n")
    assert no.returncode == 1
    assert _statuses(bank.tenant, AGENT) == before


def test_reset_json_with_yes_soft_deletes_every_lesson_of_the_agent(bank: Bank) -> None:
    _set(bank.refund, status="disabled")
    _set(bank.answer, status="deleted")
    epoch = _epoch(bank.tenant, AGENT)
    assert _json("lesson", "reset", *bank.mine, "--yes") == {"deleted": 2}
    statuses = _statuses(bank.tenant, AGENT)
    assert statuses == {bank.manual: "deleted", bank.answer: "deleted", bank.refund: "deleted"}
    assert _history(bank.manual)[-1].op == "DELETE"
    assert _history(bank.refund)[-1].op == "DELETE"
    assert _history(bank.answer)[-1].op == "ADD"  # it was deleted already: untouched
    assert _epoch(bank.tenant, AGENT) == epoch + 1
    # other agents keep their lessons
    assert _lesson(bank.other_agent_lesson).status == "active"
    assert _lesson(bank.other_tenant_lesson).status == "active"

    confirmed = _digest("lesson", "reset", *bank.mine, stdin="y\n")
    assert confirmed.returncode == 0, confirmed.stderr
    assert "deleted 0 lesson(s)" in confirmed.stdout


def test_reset_asks_and_proceeds_on_yes(bank: Bank) -> None:
    result = _digest("lesson", "reset", *bank.mine, stdin="y\n")
    assert result.returncode == 0, result.stderr
    assert "Soft-delete all 3 lesson(s)" in result.stderr
    assert "deleted 3 lesson(s)" in result.stdout
    assert set(_statuses(bank.tenant, AGENT).values()) == {"deleted"}


# --- stats -----------------------------------------------------------------------------------


def test_stats_json_per_agent(bank: Bank) -> None:
    rows = _json("stats", "--tenant", bank.tenant)
    assert [(r["tenant"], r["agent"]) for r in rows] == [
        (bank.tenant, OTHER_AGENT),
        (bank.tenant, AGENT),
    ]
    mine = rows[1]
    # 2 reflected by drain + 1 manual lesson event (stored reflected), 1 skipped
    assert mine["events"] == {
        "pending": 0, "processing": 0, "reflected": 3, "skipped": 1, "failed": 0, "dead": 0,
    }  # fmt: skip
    assert mine["skip_rate"] == 0.25
    assert mine["lessons"]["active"] == 3 and sum(mine["lessons"].values()) == 3
    assert mine["active_version"] is None
    with session_scope() as session:
        runs = session.execute(
            select(
                func.sum(DigestRun.llm_calls), func.sum(DigestRun.prompt_tokens),
                func.sum(DigestRun.completion_tokens),
            ).where(DigestRun.agent_id == _lesson(bank.refund).agent_id)
        ).one()  # fmt: skip
    assert (mine["llm_calls"], mine["prompt_tokens"], mine["completion_tokens"]) == tuple(
        int(v or 0) for v in runs
    )
    assert mine["llm_calls"] >= 3
    assert isinstance(mine["cost_usd"], float)
    other = rows[0]
    assert other["lessons"]["active"] == 1 and other["skip_rate"] == 0.0

    improved = _digest("improve-now", *bank.mine)
    assert improved.returncode == 0, improved.stderr
    [one] = _json("stats", *bank.mine)
    assert one["agent"] == AGENT and one["active_version"] == 1
    assert one["llm_calls"] >= mine["llm_calls"]

    everyone = _json("stats")
    tenants = {(r["tenant"], r["agent"]) for r in everyone}
    assert {(bank.tenant, AGENT), (bank.other_tenant, AGENT)} <= tenants
    by_name = _json("stats", "--agent", OTHER_AGENT)
    assert [(r["tenant"], r["agent"]) for r in by_name] == [(bank.tenant, OTHER_AGENT)]

    table = _digest("stats", "--tenant", bank.tenant)
    assert table.returncode == 0, table.stderr
    for part in ("skip rate", "LLM calls", "25%", AGENT, OTHER_AGENT):
        assert part in table.stdout


# --- errors: one line on stderr, exit 2 ------------------------------------------------------

LESSON_ID_COMMANDS = ("show", "delete", "disable", "enable")


def _commands_for(tenant: str, agent: str, lesson_id: int) -> list[list[str]]:
    who = ["--tenant", tenant, "--agent", agent]
    return [
        ["lesson", "list", *who, "--json"],
        ["lesson", "search", *who, "refund", "--json"],
        *(["lesson", c, *who, str(lesson_id)] for c in LESSON_ID_COMMANDS),
        ["lesson", "reset", *who, "--yes"],
        ["stats", *who, "--json"],
    ]


def test_unknown_tenant_and_agent_are_one_line_exit_two(bank: Bank) -> None:
    no_tenant = _commands_for("no-such-tenant", AGENT, bank.manual)
    no_agent = _commands_for(bank.tenant, "no-such-agent", bank.manual)
    extra = [["stats", "--tenant", "no-such-tenant"], ["stats", "--agent", "no-such-agent"]]
    results = _digest_all([*no_tenant, *no_agent, *extra])
    for result in results[: len(no_tenant)]:
        _one_error_line(result, "unknown tenant 'no-such-tenant'")
    for result in results[len(no_tenant) : len(no_tenant) + len(no_agent)]:
        _one_error_line(result, "unknown agent 'no-such-agent'")
    _one_error_line(results[-2], "unknown tenant")
    _one_error_line(results[-1], "unknown agent")
    assert _lesson(bank.manual).status == "active"


def test_lessons_never_cross_agents_or_tenants(bank: Bank) -> None:
    unused = 987654
    ids = (unused, bank.other_agent_lesson, bank.other_tenant_lesson)
    commands = [["lesson", c, *bank.mine, str(i)] for c in LESSON_ID_COMMANDS for i in ids]
    seen = set()
    for command, result in zip(commands, _digest_all(commands), strict=True):
        lesson_id = command[-1]
        line = _one_error_line(result, f"lesson {lesson_id} not found")
        seen.add(line.replace(f"lesson {lesson_id} ", "lesson N "))
    # The same words for an unused id and another agent's: an id reveals nothing.
    assert len(seen) == 1, seen
    assert _lesson(bank.other_agent_lesson).status == "active"
    assert _lesson(bank.other_tenant_lesson).status == "active"
    assert [h.op for h in _history(bank.other_agent_lesson)] == ["ADD"]


def test_empty_search_is_one_line(bank: Bank) -> None:
    _one_error_line(_digest("lesson", "search", *bank.mine, "  "), "search text is empty")


# --- PostgreSQL ------------------------------------------------------------------------------


@pytest.fixture()
def pg_bank(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Bank]:
    """The same bank on PostgreSQL, reflected in-process: without a broker nothing is queued
    for the workers other tests start on the shared queue."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    _forget_process_state()
    reset_publisher()
    yield _make_bank(tenant)


def test_postgres_list_search_stats_and_disable(pg_bank: Bank) -> None:
    bank = pg_bank
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    _set(bank.manual, last_seen_at=None)
    _set(bank.answer, last_seen_at=t0 + timedelta(hours=1))
    _set(bank.refund, last_seen_at=t0)
    rows = _json("lesson", "list", *bank.mine)
    assert [r["id"] for r in rows] == [bank.answer, bank.refund, bank.manual]
    assert rows[0]["last_seen_at"].startswith("2026-01-01T01:00:00")

    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "oSLo")] == [bank.answer]
    # LIKE wildcards are literal text
    assert _json("lesson", "search", *bank.mine, "%") == []
    assert _json("lesson", "search", *bank.mine, "ship_to") == []  # "_" is not "any one"
    assert [r["id"] for r in _json("lesson", "search", *bank.mine, "ISSUE_refund")] == [bank.refund]

    [stats] = _json("stats", *bank.mine)
    assert stats["events"]["reflected"] == 3 and stats["events"]["skipped"] == 1
    assert stats["skip_rate"] == 0.25
    assert stats["lessons"]["active"] == 3
    assert stats["llm_calls"] >= 3
    everyone = _json("stats", "--tenant", bank.tenant)
    assert [r["agent"] for r in everyone] == [OTHER_AGENT, AGENT]

    # the advisory-lock path
    off = _json("lesson", "disable", *bank.mine, str(bank.refund), "--reason", "pg")
    assert off["changed"] is True
    assert _lesson(bank.refund).status == "disabled"
    _one_error_line(
        _digest("lesson", "show", *bank.mine, str(bank.other_tenant_lesson)), "not found"
    )
