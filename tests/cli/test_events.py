"""``digest capture``, ``drain``, ``requeue``, ``demo`` and ``sweep`` (digest/cli/events.py) on
the embedded default (SQLite, no broker, offline/rules), run in this process; as real
subprocesses where the process is the point: its width when stderr is no terminal, ``demo``
from the console entry point twice with the database its environment names, and what a capture
imports."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from digest.db import session_scope
from digest.models import Event, Lesson
from tests.cli.conftest import one_error_line, run_cli, run_digest, sqlite_env_for

TENANT = "cli-shop"
AGENT = "support-bot"

GOOD_ANSWER = {
    "kind": "owner_answer",
    "tenant": TENANT,
    "agent": AGENT,
    "question": "Do we ship to Norway?",
    "answer": "Yes, from the Oslo warehouse, 3-5 days.",
}
GOOD_RUN = {
    "kind": "run_outcome",
    "tenant": TENANT,
    "agent": AGENT,
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
GOOD_EDIT = {
    "kind": "operator_edit",
    "tenant": TENANT,
    "agent": AGENT,
    "original": "Your order is guaranteed to arrive tomorrow!",
    "final": "Your order left our warehouse today; delivery takes 2 to 3 working days.",
}


def _write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
        encoding="utf-8",
    )
    return path


def _mixed_file(tmp_path: Path) -> Path:
    missing_kind = {k: v for k, v in GOOD_ANSWER.items() if k != "kind"}
    return _write_lines(
        tmp_path / "events.jsonl",
        [
            GOOD_ANSWER,  # 1
            '{"kind": "owner_answer", "tenant": ',  # 2: not JSON
            GOOD_RUN,  # 3
            {**GOOD_RUN, "outcome": "crashed"},  # 4: bad outcome
            "",  # 5: blank, ignored
            missing_kind,  # 6: no kind
            GOOD_EDIT,  # 7
        ],
    )


def _event_count() -> int:
    with session_scope() as session:
        return session.scalar(select(func.count()).select_from(Event)) or 0


def _sqlite_count(db_file: Path, table: str) -> int:
    with sqlite3.connect(db_file) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


# --- capture ---------------------------------------------------------------------------------


def test_capture_reports_each_bad_line_and_stores_the_good_ones(
    sqlite_env: str, tmp_path: Path
) -> None:
    result = run_cli("capture", "--file", str(_mixed_file(tmp_path)))
    assert result.returncode == 1, result.stderr
    assert "line 2: (json): not valid JSON" in result.stderr
    assert "line 4: outcome:" in result.stderr
    assert "line 6: kind: missing" in result.stderr
    for clean in ("line 1", "line 3", "line 5", "line 7"):
        assert clean not in result.stderr
    assert "stored 3 new event(s); rejected 3 line(s)" in result.stdout
    assert _event_count() == 3


def test_capture_json_output(sqlite_env: str, tmp_path: Path) -> None:
    result = run_cli("capture", "--file", str(_mixed_file(tmp_path)), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["stored"] == 3
    assert len(report["event_ids"]) == 3
    assert len(set(report["event_ids"])) == 3
    assert [(e["line"], e["field"]) for e in report["errors"]] == [
        (2, "(json)"),
        (4, "outcome"),
        (6, "kind"),
    ]
    assert all(e["message"] for e in report["errors"])
    with session_scope() as session:
        stored = sorted(session.scalars(select(Event.id)))
    assert stored == sorted(report["event_ids"])


def test_capture_all_good_lines_exits_zero(sqlite_env: str, tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "good.jsonl", [GOOD_ANSWER, GOOD_RUN, GOOD_EDIT])
    result = run_cli("capture", "--file", str(path))
    assert result.returncode == 0, result.stderr
    assert "stored 3 new event(s); rejected 0 line(s)" in result.stdout
    assert "rejected line" not in result.stderr
    assert _event_count() == 3


def test_capturing_a_file_again_says_what_was_already_stored(
    sqlite_env: str, tmp_path: Path
) -> None:
    """Issue 26 point 5: a repeat is reported as one, in the table and in JSON; a line with no
    idempotency key would be stored again, and the first capture says so."""
    keyed = [{**GOOD_ANSWER, "idempotency_key": "a-1"}, {**GOOD_RUN, "idempotency_key": "r-1"}]
    path = _write_lines(tmp_path / "events.jsonl", [*keyed, GOOD_EDIT])
    first = run_cli("capture", "--file", str(path))
    assert "stored 3 new event(s); rejected 0 line(s)" in first.stdout
    assert "1 stored line(s) have no idempotency_key" in first.stderr

    again = run_cli("capture", "--file", str(path), "--json")
    report = json.loads(again.stdout)
    assert (report["stored"], report["already_stored"]) == (1, 2)  # the edit had no key
    assert report["without_idempotency_key"] == 1
    assert _event_count() == 4
    keyed_only = _write_lines(tmp_path / "keyed.jsonl", keyed)
    third = run_cli("capture", "--file", str(keyed_only))
    assert "stored 0 new event(s); already stored 2; rejected 0 line(s)" in third.stdout
    assert third.stderr == "" and _event_count() == 4


def test_capture_missing_file_exits_two_with_one_line(sqlite_env: str, tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    line = one_error_line(run_cli("capture", "--file", str(missing)), "no such file")
    assert str(missing) in line
    assert _event_count() == 0


def test_error_line_is_not_wrapped_at_the_default_width(sqlite_env: str, tmp_path: Path) -> None:
    """Library bug: stderr is not a terminal, rich falls back to 80 columns and wraps the
    one-line error (even inside the path), so scripts cannot grep the message."""
    missing = tmp_path / ("missing-" + "x" * 60 + ".jsonl")
    result = run_digest("capture", "--file", str(missing), columns=None)
    assert str(missing) in one_error_line(result)


# --- drain -----------------------------------------------------------------------------------


def test_drain_reflects_captured_events(sqlite_env: str, tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "good.jsonl", [GOOD_ANSWER, GOOD_RUN, GOOD_EDIT])
    assert run_cli("capture", "--file", str(path)).returncode == 0

    result = run_cli("drain", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {"processed": 3, "by_status": {"reflected": 3}, "errors": []}
    with session_scope() as session:
        statuses = list(session.scalars(select(Event.status)))
        lessons = list(session.scalars(select(Lesson)))
    assert statuses == ["reflected"] * 3
    # the edit teaches its content, the promise it removed ("guaranteed … tomorrow") and its
    # tone, each a lesson
    assert len(lessons) == 5
    assert any("issue_refund" in lesson.correction for lesson in lessons)

    again = run_cli("drain", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {"processed": 0, "by_status": {}, "errors": []}


def test_drain_skips_a_transient_failure(sqlite_env: str, tmp_path: Path) -> None:
    transient = {
        **GOOD_RUN,
        "error": "upstream timeout after 30s",
        "tool_calls": [{"tool": "track_shipment", "ok": False, "error": "upstream timeout"}],
    }
    path = _write_lines(tmp_path / "t.jsonl", [transient])
    assert run_cli("capture", "--file", str(path)).returncode == 0
    result = run_cli("drain", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"processed": 1, "by_status": {"skipped": 1}, "errors": []}
    with session_scope() as session:
        event = session.scalars(select(Event)).one()
    assert event.status == "skipped"
    assert event.skip_reason is not None and "transient" in event.skip_reason


# --- demo ----------------------------------------------------------------------------------------


def test_demo_runs_twice_without_duplicating_events(tmp_path: Path) -> None:
    db_file = tmp_path / "demo.db"
    env = sqlite_env_for(db_file)
    first = run_digest("demo", env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "lessons learned" in first.stdout
    assert "issue_refund" in first.stdout
    # It ends with the learning document and its change summary.
    assert "learning document composed version 1 (active)" in first.stdout
    assert "Added (" in first.stdout and "# What support-bot has learned" in first.stdout
    events, lessons = _sqlite_count(db_file, "events"), _sqlite_count(db_file, "lessons")
    assert events > 0
    assert lessons > 0
    assert not (tmp_path / "digest.db").exists()  # the URL from the environment was used

    second = run_cli("demo", env=env, cwd=tmp_path)  # (the second run need not be a process)
    assert second.returncode == 0, second.stderr
    assert "lessons learned" in second.stdout
    assert "learning document unchanged: version 1" in second.stdout
    assert _sqlite_count(db_file, "learning_versions") == 1
    assert _sqlite_count(db_file, "events") == events
    assert _sqlite_count(db_file, "lessons") == lessons
    with sqlite3.connect(db_file) as conn:
        pending = conn.execute("SELECT count(*) FROM events WHERE status = 'pending'").fetchone()
    assert pending[0] == 0


# --- the hot path stays light ----------------------------------------------------------------


def test_capture_does_not_import_litellm_or_celery(sqlite_env: str) -> None:
    code = (
        "import sys, digest\n"
        "event_id = digest.record_answer('t', 'a', question='q?', answer='a')\n"
        "assert isinstance(event_id, int), event_id\n"
        "heavy = sorted(m for m in ('litellm', 'celery') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
        "print(event_id)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    event_id = int(result.stdout.strip())
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None
        assert event.kind == "owner_answer"
        assert event.status == "pending"


# --- requeue ---------------------------------------------------------------------------------


def test_requeue_puts_failed_events_back_and_drain_reflects_them(
    sqlite_env: str, tmp_path: Path
) -> None:
    path = _write_lines(tmp_path / "good.jsonl", [GOOD_ANSWER, GOOD_RUN])
    assert run_cli("capture", "--file", str(path)).returncode == 0
    # A model nobody answers (a closed port, one attempt): both events end `failed`.
    broken = {
        "DIGEST_LLM_MODEL": "openai/unreachable",
        "DIGEST_LLM_API_BASE": "http://127.0.0.1:9/v1",
        "DIGEST_LLM_MAX_ATTEMPTS": "1",
        "DIGEST_LLM_TIMEOUT_S": "2",
        # a fault fails at once (by default the events would wait to be tried again)
        "DIGEST_LLM_GIVE_UP_AFTER_S": "0",
    }
    failed = run_cli("drain", "--json", env=broken)
    assert failed.returncode == 0, failed.stderr
    assert json.loads(failed.stdout)["by_status"] == {"failed": 2}

    wrong = run_cli("requeue", "--tenant", TENANT, "--status", "reflected")
    assert wrong.returncode == 2
    assert "status" in wrong.stderr
    unknown = run_cli("requeue", "--tenant", "nobody")
    assert unknown.returncode == 2 and "nobody" in unknown.stderr

    requeued = run_cli("requeue", "--tenant", TENANT, "--agent", AGENT, "--json")
    assert requeued.returncode == 0, requeued.stderr
    assert len(json.loads(requeued.stdout)["requeued"]) == 2
    with session_scope() as session:
        rows = list(session.execute(select(Event.status, Event.attempts, Event.last_error)))
    assert [(status, attempts) for status, attempts, _ in rows] == [("pending", 0)] * 2
    assert all(error for _, _, error in rows), "the previous reason stays until the next run"

    fixed = run_cli("drain", "--json")
    assert json.loads(fixed.stdout) == {"processed": 2, "by_status": {"reflected": 2}, "errors": []}
    again = run_cli("requeue", "--tenant", TENANT)
    assert again.returncode == 0 and "nothing to requeue" in again.stdout


# --- sweep -----------------------------------------------------------------------------------


def test_sweep_composes_a_due_agent_once(sqlite_env: str, tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "good.jsonl", [GOOD_ANSWER])
    assert run_cli("capture", "--file", str(path)).returncode == 0
    assert run_cli("drain").returncode == 0
    first = run_cli("sweep", "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert len(report["composed"]) == 1 and report["unchanged"] == []
    second = run_cli("sweep")
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("composed 0, unchanged 0, expired 0 lesson(s)")
