"""The version, tenant, improve-now and sweep commands on the embedded default (SQLite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

T, A = "acme", "bot"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "digest.cli", *args],
        cwd=ROOT, env={**os.environ, "COLUMNS": "200"}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def ok(*args: str) -> str:
    result = run(*args)
    assert result.returncode == 0, (args, result.stderr)
    return result.stdout


def one_line_error(result: subprocess.CompletedProcess[str], needle: str) -> None:
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], result.stderr


def test_version_lifecycle_through_the_cli(sqlite_env: str) -> None:
    who = ("--tenant", T, "--agent", A)
    ok("tenant", "set", "--tenant", T, "--apply-mode", "approval", "--threshold", "3")
    ok("lesson", "add", *who, "refunds: ask a manager above 200 EUR")
    first = json.loads(ok("improve-now", *who, "--json"))
    assert (first["status"], first["number"], first["version_status"]) == ("created", 1, "pending")
    listed = json.loads(ok("version", "list", *who, "--json"))
    assert [(v["number"], v["status"]) for v in listed] == [(1, "pending")]
    shown = json.loads(ok("version", "show", *who, "1", "--json"))
    assert "ask a manager above 200 EUR" in shown["body_markdown"]
    ok("version", "approve", *who, "1", "--by", "owner")

    ok("lesson", "add", *who, "shipping: Norway ships from Oslo")
    assert json.loads(ok("improve-now", *who, "--json"))["number"] == 2
    diff = ok("version", "diff", *who, "1", "2")
    assert diff.startswith("--- v1") and "+- **shipping**: Norway ships from Oslo" in diff
    ok("version", "reject", *who, "2", "--by", "owner")
    ok("version", "rollback", *who, "1", "--by", "owner")
    statuses = {v["number"]: v["status"] for v in json.loads(ok("version", "list", *who, "--json"))}
    assert statuses == {1: "superseded", 2: "rejected", 3: "active"}

    one_line_error(run("version", "show", *who, "99"), "no version 99")
    one_line_error(run("version", "approve", *who, "3", "--by", "x"), "not pending")
    one_line_error(run("version", "list", "--tenant", T, "--agent", "nobody"), "unknown agent")
    one_line_error(run("tenant", "set", "--tenant", T, "--apply-mode", "sometimes"), "apply_mode")
    sweep = json.loads(ok("sweep", "--json"))
    assert set(sweep) >= {"composed", "unchanged", "expired", "pruned", "relayed"}
