"""digest.capture.driver: the capture INSERT straight to psycopg.

The payload pydantic writes as JSON is the payload the row builder makes (so the two roads,
psycopg's and SQLAlchemy's, store the same row); on PostgreSQL the INSERT is prepared on the
server, once per connection, and nothing else is (reads keep planning each statement).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, text

import digest
from digest.capture.schemas import parse_event
from digest.capture.store import event_values
from digest.db import autocommit_engine, read_scope, session_scope
from digest.models import Event
from tests.conftest import _reset_process_state

AGENT = "support-bot"


def _payloads(data: dict[str, Any]) -> tuple[Any, Any]:
    parsed = parse_event("run_outcome", data)
    as_dict = event_values(parsed, 1, 2)["payload"]
    as_json = event_values(parsed, 1, 2, payload_json=True)["payload"]
    assert isinstance(as_json, str)
    return as_dict, json.loads(as_json)


def test_the_json_pydantic_writes_is_the_payload_of_the_row_builder() -> None:
    small = {"tenant": "t", "agent": "a", "task": "refund order 7", "outcome": "failure"}
    as_dict, as_json = _payloads(small)
    assert as_json == as_dict
    assert "trimmed" not in as_json and "tenant" not in as_json
    nested = {
        **small,
        "idempotency_key": "k-1",
        "thread_id": "th",
        "task": "x" * 9000,
        "tool_calls": [
            {
                "tool": "lookup",
                "args": {"ids": [1, 2.5, None, True], "name": "Zoë \u2028 «q»", "big": 10**30},
                "ok": False,
                "output": "y" * 9000,
            }
        ],
        "applied_lesson_ids": [3, 4],
    }
    as_dict, as_json = _payloads(nested)
    assert as_json == as_dict
    assert as_json["trimmed"] == ["task", "tool_calls[0].output"]
    assert "idempotency_key" not in as_json and "thread_id" not in as_json


def _prepared(connection: Any) -> list[str]:
    cursor = connection.cursor()
    cursor.execute("SELECT statement FROM pg_prepared_statements")
    found = [row[0] for row in cursor.fetchall()]
    cursor.close()
    return found


def test_the_capture_insert_is_prepared_once_per_connection_and_nothing_else(
    services_env: dict[str, str], tenant: str
) -> None:
    ids = [
        digest.record_run(
            tenant,
            AGENT,
            task=f"refund order {i}",
            outcome="failure",
            idempotency_key=f"k{i}" if i % 2 else None,
        )
        for i in range(8)
    ]
    for _ in range(8):  # reads on the same pool are planned each time, never prepared
        with read_scope() as session:
            session.scalar(select(Event.id).where(Event.id == ids[0]))
    pooled = autocommit_engine().raw_connection()
    try:
        statements = _prepared(pooled.dbapi_connection)
    finally:
        pooled.close()
    # one INSERT without ON CONFLICT, one with (idempotency keys), nothing else
    assert len(statements) == 2, statements
    assert all(s.startswith("INSERT INTO events") for s in statements)
    assert sum("ON CONFLICT" in s for s in statements) == 1
    with session_scope() as session:
        tasks = session.execute(
            text("SELECT payload->>'task' FROM events WHERE id = ANY(:ids) ORDER BY id"),
            {"ids": ids},
        ).scalars()
        assert list(tasks) == [f"refund order {i}" for i in range(8)]


def test_behind_a_pooler_without_prepared_statements_nothing_is_prepared(
    services_env: dict[str, str], tenant: str, monkeypatch: Any
) -> None:
    """``DIGEST_DB_PREPARE=false`` (PgBouncer in transaction mode before 1.21): the capture
    INSERT runs unprepared on the same road, and its rows are stored as before."""
    monkeypatch.setenv("DIGEST_DB_PREPARE", "false")
    _reset_process_state()
    ids = [
        digest.record_run(tenant, AGENT, task=f"cancel order {i}", outcome="failure")
        for i in range(6)
    ]
    pooled = autocommit_engine().raw_connection()
    try:
        assert _prepared(pooled.dbapi_connection) == []
    finally:
        pooled.close()
    with session_scope() as session:
        stored = session.scalars(select(Event.id).where(Event.id.in_(ids))).all()
    assert sorted(stored) == sorted(ids)
