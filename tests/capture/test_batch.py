"""digest.capture.batch: capture from a JSON Lines file (embedded SQLite). Valid lines are
stored through the agent's capture path, each bad line is reported with its number and field,
blank lines are counted, and a database outage stops the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from digest.capture.batch import LineError, capture_file
from digest.db import session_scope
from digest.errors import CaptureUnavailable
from digest.models import Event
from tests.conftest import _reset_process_state


def _write(path: Path, *lines: str | bytes) -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def _line(kind: str | None, **fields: object) -> str:
    data = {"tenant": "acme", "agent": "bot", **fields}
    if kind is not None:
        data["kind"] = kind
    return json.dumps(data)


def test_good_lines_are_stored_and_bad_ones_reported(sqlite_env: str, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "events.jsonl",
        _line("run_outcome", task="refund order 7", outcome="failure", error="no amount"),
        "",
        _line("owner_answer", question="Ship to Norway?"),  # no answer
        "{not json",
        "[1, 2]",
        _line(None, question="q?", answer="a"),
        b"\xff\xfe",
        _line("operator_edit", original="We ship tomorrow.", final="We ship in 3 days."),
        _line("manual_lesson", text="refunds: confirm the amount first"),
    )
    consumed: list[int] = []

    report = capture_file(path, on_progress=consumed.append)

    assert sum(consumed) == path.stat().st_size
    assert report.blank == 1 and len(report.stored) == 3
    assert [(e.line, e.field) for e in report.errors] == [
        (3, "answer"), (4, "(json)"), (5, "(line)"), (6, "kind"), (7, "(line)"),
    ]  # fmt: skip
    assert "not valid UTF-8" in report.errors[-1].message
    assert str(report.errors[0]).startswith("line 3: answer: ")
    with session_scope() as session:
        kinds = session.scalars(
            select(Event.kind).where(Event.id.in_(report.stored)).order_by(Event.id)
        ).all()
    # every id is an event's, the manual lesson's too (its lesson is lesson_for_event's)
    assert list(kinds) == ["run_outcome", "operator_edit", "manual_lesson"]


def test_a_line_error_reads_as_one_sentence() -> None:
    assert str(LineError(12, "task", "must not be empty")) == "line 12: task: must not be empty"


def test_a_database_outage_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{tmp_path / 'no-schema.db'}")
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    _reset_process_state()
    path = _write(tmp_path / "events.jsonl", _line("owner_answer", question="q?", answer="a"))
    with pytest.raises(CaptureUnavailable):
        capture_file(path)
    _reset_process_state()
