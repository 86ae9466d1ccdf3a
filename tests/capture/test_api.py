"""digest.capture.api: the agent's hot path. One validated INSERT, then a best-effort publish.

Stored events carry the right trust and metrics; an idempotency key makes a repeat one event;
a manual lesson is stored at once with its own event; a database fault raises
``CaptureUnavailable`` (nothing stored), a missing schema says how to fix it; a capturing
process loads neither litellm nor Celery nor anything heavy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import func, select

import digest
from digest.capture.api import capture_event, store_pending
from digest.capture.store import cached_agent_ids, remember_agent_ids
from digest.db import session_scope
from digest.errors import CaptureUnavailable, InvalidEvent
from digest.models import Event, Lesson, LessonEvidence, Tenant
from digest.pipeline import reflect_event
from tests.conftest import ROOT, _reset_process_state, agent_id_of, end_server_connections

AGENT = "support-bot"


def _tool(**fields: Any) -> dict[str, Any]:
    return {"tool": "lookup_order", "args": {"order_id": "1182"}, "ok": False, **fields}


def _count(model: Any, *where: Any) -> int:
    with session_scope() as session:
        return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def _event(event_id: int) -> Event:
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None
        return event


def test_rejected_draft_has_edit_ratio_one_and_high_trust(
    services_env: dict[str, str], tenant: str
) -> None:
    event_id = digest.record_edit(tenant, AGENT, original="We guarantee delivery.", final=None)
    event = _event(event_id)
    assert event.kind == "operator_edit"
    assert event.edit_ratio is None  # measured when the event is claimed, off the hot path
    assert event.trust == "high"
    assert event.payload["final"] is None
    assert event.status == "pending"
    reflect_event(event_id)
    event = _event(event_id)
    assert event.edit_ratio == 1.0
    assert event.edit_distance == len("We guarantee delivery.")


def test_run_outcome_is_low_trust(services_env: dict[str, str], tenant: str) -> None:
    event_id = digest.record_run(
        tenant, AGENT, task="Refund order 1182", outcome="failure", tool_calls=[_tool()]
    )
    event = _event(event_id)
    assert event.kind == "run_outcome"
    assert event.trust == "low"
    assert event.edit_ratio is None
    assert event.payload["tool_calls"][0]["tool"] == "lookup_order"


def test_same_idempotency_key_twice_stores_one_event(
    services_env: dict[str, str], tenant: str
) -> None:
    first = digest.record_answer(
        tenant, AGENT, question="Ship to Norway?", answer="Yes.", idempotency_key="ans-1"
    )
    second = digest.record_answer(
        tenant, AGENT, question="Ship to Norway?", answer="Yes.", idempotency_key="ans-1"
    )
    assert first == second
    with session_scope() as session:
        rows = session.scalars(
            select(Event)
            .join(Tenant, Tenant.id == Event.tenant_id)
            .where(Tenant.name == tenant, Event.idempotency_key == "ans-1")
        ).all()
    assert [row.id for row in rows] == [first]
    assert rows[0].trust == "high"


def test_same_idempotency_key_is_one_event(services_env: dict[str, str], tenant: str) -> None:
    first = digest.record_answer(
        tenant, AGENT, question="Store hours?", answer="9-17", idempotency_key="ans-1"
    )
    again = digest.record_answer(
        tenant, AGENT, question="Store hours?", answer="9-17", idempotency_key="ans-1"
    )
    assert first == again
    assert _count(Event, Event.idempotency_key == "ans-1", Event.id == first) == 1
    with session_scope() as session:
        tenant_events = session.scalars(
            select(Event.id).where(
                Event.idempotency_key == "ans-1",
                Event.tenant_id
                == (select(Event.tenant_id).where(Event.id == first).scalar_subquery()),
            )
        ).all()
    assert tenant_events == [first]


# --- the embedded default (SQLite) ---------------------------------------------------------------


def test_a_manual_lesson_is_stored_at_once_citing_its_own_event(
    sqlite_env: str, tenant: str
) -> None:
    event_id = digest.record_lesson(
        tenant, AGENT, "refunds: always confirm the amount first", idempotency_key="m-1"
    )
    again = digest.record_lesson(
        tenant, AGENT, "refunds: always confirm the amount first", idempotency_key="m-1"
    )
    assert again == event_id  # an event id, like every record_*
    lesson_id = digest.lesson_for_event(tenant, AGENT, event_id)
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        cited = session.scalars(
            select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson_id)
        ).all()
        assert cited == [event_id]
        event = session.get(Event, event_id)
        assert lesson is not None and event is not None
        assert (lesson.title, lesson.correction, lesson.source) == (
            "refunds", "always confirm the amount first", "manual_lesson",
        )  # fmt: skip
        assert (event.kind, event.status, event.trust) == ("manual_lesson", "reflected", "high")


def test_without_a_broker_an_event_waits_pending(sqlite_env: str, tenant: str) -> None:
    # record_run takes any sequence (a tuple too); capture_event takes JSON-shaped data.
    event_id = digest.record_run(
        tenant, AGENT, task="refund", outcome="failure",
        tool_calls=(_tool(error="amount is required"),),
    )  # fmt: skip
    assert _event(event_id).status == "pending"
    assert _event(event_id).payload["tool_calls"][0]["error"] == "amount is required"
    again, created = store_pending(
        "owner_answer",
        {"tenant": tenant, "agent": AGENT, "question": "q?", "answer": "a", "idempotency_key": "k"},
    )
    assert created and store_pending(
        "owner_answer",
        {"tenant": tenant, "agent": AGENT, "question": "q?", "answer": "a", "idempotency_key": "k"},
    ) == (again, False)


def test_an_unknown_kind_is_invalid(sqlite_env: str, tenant: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        capture_event("telemetry", {"tenant": tenant, "agent": AGENT})
    assert caught.value.field == "kind"


def test_a_missing_schema_says_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    _reset_process_state()
    with pytest.raises(CaptureUnavailable, match="digest db upgrade"):
        digest.record_answer(tenant, AGENT, question="q?", answer="a")
    _reset_process_state()


def test_database_down_raises_capture_unavailable_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/nothing")
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    _reset_process_state()
    try:
        started = time.monotonic()
        with pytest.raises(CaptureUnavailable, match="was not stored"):
            digest.record_answer(tenant, "bot", question="q?", answer="a")
        assert time.monotonic() - started < 5
    finally:
        _reset_process_state()


def test_a_server_that_refuses_a_pooled_reconnect_raises_capture_unavailable(
    pg_admin: str, services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server goes away after the pool and the ids are warm: the INSERT's checkout (the
    driver's road, no id lookup before it) reconnects and is refused; the agent gets
    ``CaptureUnavailable``, never the driver's own error."""
    import psycopg

    from digest.db import autocommit_engine

    digest.record_run(tenant, AGENT, task="refund order 1", outcome="failure")
    engine = autocommit_engine(services_env["DIGEST_DATABASE_URL"])

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        return psycopg.connect("postgresql://postgres@127.0.0.1:1/nothing", connect_timeout=2)

    monkeypatch.setattr(engine.dialect, "connect", refused)
    assert end_server_connections(pg_admin, services_env["DIGEST_DATABASE_URL"]) >= 1
    with pytest.raises(CaptureUnavailable, match="the event was not stored"):
        digest.record_run(tenant, AGENT, task="refund order 2", outcome="failure")


def test_a_pooled_connection_the_server_closed_is_tried_once_more(
    pg_admin: str, services_env: dict[str, str], tenant: str
) -> None:
    first = digest.record_run(tenant, AGENT, task="refund order 1", outcome="failure")
    # The server restarts between two captures: the pooled connection is dead, unknown to us.
    assert end_server_connections(pg_admin, services_env["DIGEST_DATABASE_URL"]) >= 1
    second = digest.record_run(tenant, AGENT, task="refund order 2", outcome="failure")
    assert second > first
    assert _event(second).payload["task"] == "refund order 2"


def test_a_cached_agent_id_that_names_no_row_is_looked_up_again(
    services_env: dict[str, str], tenant: str
) -> None:
    digest.record_run(tenant, AGENT, task="refund order 1", outcome="failure")
    agent_id = agent_id_of(tenant, AGENT)
    url = services_env["DIGEST_DATABASE_URL"]
    # as if the agent was deleted and made again since this process cached its ids
    remember_agent_ids((url, tenant, AGENT), 2**62, 2**62)
    event_id = digest.record_run(tenant, AGENT, task="refund order 2", outcome="failure")
    assert _event(event_id).agent_id == agent_id
    assert cached_agent_ids(url, tenant, AGENT) == (_event(event_id).tenant_id, agent_id)


CAPTURE_SCRIPT = """
import json
import sys
import digest
after_import = sorted(m for m in sys.modules if m.split(".")[0] in {"digest", "sqlalchemy"})
for i in range(25):
    digest.record_run(sys.argv[1], "bot", task=f"refund order {i}", outcome="failure",
                      error="amount is required")
digest.record_edit(sys.argv[1], "bot", original="We ship tomorrow.", final="We ship in 3 days.")
digest.record_answer(sys.argv[1], "bot", question="Open Sunday?", answer="No.")
loaded = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps([after_import, loaded]))
"""


def test_a_capturing_process_never_loads_litellm_or_celery(
    services_env: dict[str, str], tenant: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(services_env)
    done = subprocess.run(
        [sys.executable, "-c", CAPTURE_SCRIPT, tenant],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    after_import, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert after_import == ["digest"]  # the public names resolve lazily
    for heavy in ("litellm", "celery", "kombu", "openai", "structlog", "rapidfuzz"):
        assert heavy not in loaded, heavy
    for needed in ("sqlalchemy", "psycopg", "redis"):
        assert needed in loaded, needed  # the captures really ran
    # digest.retrying's policy (one fresh try on a dead pooled connection) wraps each capture:
    # tenacity adds about 3 ms to the capture path's import and under 10 us to a capture.
    assert "tenacity" in loaded
    client = redis.Redis.from_url(services_env["DIGEST_BROKER_URL"])
    # The 27 captures are one agent's: coalesced, one message waits for all of them.
    assert client.llen(services_env["DIGEST_QUEUE"]) >= 1
    client.delete(services_env["DIGEST_QUEUE"])
