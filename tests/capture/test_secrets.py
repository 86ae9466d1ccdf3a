"""Secrets are masked at capture (issue 25): whatever path an event takes in (``record_*``,
``digest.aio``, ``digest capture --file``; the HTTP service in tests/service/test_http_secrets.py),
no column of any table, no log line of this process or of the worker, and no lesson the worker
learns from the event holds a secret it carried, while the event keeps the shape of what
happened (``Authorization: Bearer ***``, ``postgresql://admin:***@db``).

Each secret is made of fresh random pieces, so finding one of its pieces anywhere in the
database proves a leak (a piece left over after a partial mask included)."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

import digest
import digest.aio
from digest.capture.batch import capture_file
from digest.capture.schemas import parse_event
from digest.capture.store import event_values
from digest.db import session_scope
from digest.errors import InvalidEvent
from digest.logs import capture_logs
from tests.conftest import DONE, WorkerProcess, lessons_for_event, wait_for_event, wait_until

AGENT = "secret-bot"


class Leaky:
    """The secrets of one event, each holding pieces no other text holds."""

    def __init__(self) -> None:
        self.pieces = [uuid.uuid4().hex[:12] for _ in range(8)]
        p = self.pieces
        self.password = f"P{p[0]}@x:{p[1]}/#%@"  # '@', ':', '/', '#', '%': all of it masked
        self.github = f"ghp_{p[2]}{p[2]}{p[2][:12]}"
        self.bearer = f"T0k{p[3]}"
        self.api_key = f"k{p[4]}"  # a value a field name says is secret, nothing else
        self.aws_id = "AKIA" + p[5][:16].upper().ljust(16, "Q")
        self.pem = f"MIIEow{p[6]}AAKCAQEA"
        self.answer_password = f"Pw{p[7]}"

    def run(self) -> dict[str, Any]:
        """``record_run``'s keyword arguments, every text field carrying a secret."""
        return {
            "task": f"deploy with token {self.github} then sync",
            "outcome": "failure",
            "error": f"could not connect to postgresql://admin:{self.password}@db.internal/app",
            "tool_calls": [
                {
                    "tool": "deploy",
                    "args": {"api_key": self.api_key, "target": "prod", "n": 3},
                    "ok": False,
                    "error": f"401 Unauthorized: Authorization: Bearer {self.bearer} "
                    "was rejected by the deploy API",
                    "output": f"-----BEGIN RSA PRIVATE KEY-----\n{self.pem}\n"
                    "-----END RSA PRIVATE KEY-----",
                }
            ],
            "attempt_summary": f"retried with {self.aws_id}",
            "idempotency_key": f"run-{self.pieces[0][:4]}-token=abc123",
        }

    def answer(self) -> dict[str, Any]:
        return {
            "question": "Which database password do we use?",
            "answer": f'Use {{"password": "{self.answer_password}"}} from the vault.',
        }

    def found_in(self, text: str) -> list[str]:
        return [piece for piece in self.pieces if piece in text.lower()]


def stored_anywhere(leaky: Leaky) -> dict[str, list[str]]:
    """Every table of the database whose rows (all columns, as text) hold a piece."""
    found: dict[str, list[str]] = {}
    with session_scope() as session:
        tables = session.scalars(
            text("SELECT table_name FROM information_schema.tables WHERE table_schema='public'")
        ).all()
        for table in tables:
            for piece in leaky.pieces:
                hit = session.scalar(
                    text(f'SELECT count(*) FROM "{table}" AS r WHERE lower(r::text) LIKE :p'),
                    {"p": f"%{piece}%"},
                )
                if hit:
                    found.setdefault(table, []).append(piece)
    return found


def event_columns(event_id: int) -> dict[str, Any]:
    with session_scope() as session:
        row = session.execute(text("SELECT * FROM events WHERE id = :id"), {"id": event_id}).one()
    return dict(row._mapping)


# --- the one gate: parse_event -------------------------------------------------------------


def test_every_kind_is_masked_before_its_row_is_built() -> None:
    leaky = Leaky()
    events = [
        ("run_outcome", leaky.run()),
        ("owner_answer", leaky.answer()),
        ("operator_edit", {"original": f"Your key is {leaky.github}", "final": "Done.",
                           "context": f"redis://:{leaky.password}@cache:6379/0"}),
        ("manual_lesson", {"text": f"deploys: never paste {leaky.github} into a ticket"}),
    ]  # fmt: skip
    for kind, fields in events:
        parsed = parse_event(kind, {"tenant": "acme", "agent": AGENT, **fields})
        row = json.dumps(event_values(parsed, 1, 1), default=str)
        assert leaky.found_in(row) == [], (kind, row)
    run = parse_event("run_outcome", {"tenant": "acme", "agent": AGENT, **leaky.run()})
    payload = event_values(run, 1, 1)["payload"]
    # what the event is learned from stays
    assert payload["error"] == "could not connect to postgresql://admin:***@db.internal/app"
    call = payload["tool_calls"][0]
    assert call["error"].startswith("401 Unauthorized: Authorization: Bearer *** was rejected")
    assert call["args"] == {"api_key": "***", "target": "prod", "n": 3}
    assert call["output"] == "-----PRIVATE KEY ***-----"
    assert payload["task"] == "deploy with token ghp_*** then sync"
    # what routes the event is the caller's, whatever it looks like
    assert run.idempotency_key == leaky.run()["idempotency_key"]


def test_an_event_without_secrets_is_stored_as_given() -> None:
    fields = {
        "task": "refund order 1182",
        "outcome": "failure",
        "error": "401 Unauthorized: missing Authorization header",
        "tool_calls": [
            {"tool": "refund", "args": {"order_id": "123e4567-e89b-12d3-a456-426614174000",
                                        "commit": "3f786850e387550fdab836ed7e6dc881de23001b"},
             "ok": False, "error": "the Authorization header is deprecated in favour of X-Api-Key"}
        ],
    }  # fmt: skip
    parsed = parse_event("run_outcome", {"tenant": "acme", "agent": AGENT, **fields})
    assert parsed.model_dump(include=set(fields), exclude_none=True) == fields


def test_a_text_field_nested_past_reading_is_refused_naming_the_field() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidEvent) as raised:
        parse_event("run_outcome", {"tenant": "acme", "agent": AGENT, "task": deep,
                                    "outcome": "failure"})  # fmt: skip
    assert raised.value.field == "task"


def test_masking_a_repeat_keeps_it_the_same_event(
    services_env: dict[str, str], tenant: str
) -> None:
    leaky = Leaky()
    first = digest.record_run(tenant, AGENT, **leaky.run())
    assert digest.record_run(tenant, AGENT, **leaky.run()) == first


# --- end to end: capture paths, the worker, the lesson, the logs ---------------------------


def test_no_column_log_line_or_lesson_holds_a_secret_of_a_captured_run(
    shared_worker: WorkerProcess,
    tenant: str,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    caplog.set_level(logging.DEBUG, logger="digest")
    leaky = Leaky()
    with capture_logs() as events:
        run_id = digest.record_run(tenant, AGENT, **leaky.run())
        answer_id = asyncio.run(digest.aio.record_answer(tenant, AGENT, **leaky.answer()))
        lines = tmp_path / "events.jsonl"
        lines.write_text(
            json.dumps({"kind": "operator_edit", "tenant": tenant, "agent": AGENT,
                        "original": f"Here is the key: {leaky.github}", "final": "Here it is."})
            + "\n"
        )  # fmt: skip
        (edit_id,) = capture_file(lines).stored
        ids = [run_id, answer_id, edit_id]
        rows = {event_id: wait_for_event(event_id, set(DONE), timeout=60) for event_id in ids}
    assert {row["status"] for row in rows.values()} <= {"reflected", "skipped"}, rows
    # every task about them has ended, so the worker's log holds all it will say of them
    wait_until(lambda: shared_worker.done_with(ids), 60, "the worker's tasks about the events")

    # the run is still what it was, masked: the judge learned from it
    run = event_columns(run_id)
    assert "Authorization: Bearer ***" in run["payload"]["tool_calls"][0]["error"]
    assert "postgresql://admin:***@db.internal/app" in run["payload"]["error"]
    lessons = lessons_for_event(run_id) + lessons_for_event(answer_id)
    assert lessons, "the worker learned nothing from the events"

    assert stored_anywhere(leaky) == {}
    in_this_process = caplog.text + json.dumps(events, default=str)
    assert leaky.found_in(in_this_process) == []
    assert leaky.found_in(shared_worker.log()) == []
