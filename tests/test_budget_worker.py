"""Budgets on a real worker (issue 29, part 3): a tenant with a tiny daily token budget sends a
stream of failures whose lessons need a provider's model (tests/fake_llm.py through litellm).
The stream waits instead of failing, with the reason and the time it resumes, in ``stats``,
``doctor`` and the report; a failure the fleet already judged is still learned, at no cost;
moving lesson digest's clock to the next day (``DIGEST_CLOCK_OFFSET_S``, a new worker, whose
relay picks the due events up when it connects, as beat does every minute) resumes it, and
every event ends reflected with its lesson: nothing is lost.

The ledger is the fleet's (Redis); a database of the test's own, so the relay sees only its
events. The provider reports 18 tokens a call."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

import digest
from digest import clock
from digest.config import get_settings
from digest.db import session_scope
from digest.lessons.service import agent_stats
from digest.model import spend
from digest.model.budget import resume_at
from digest.models import Event, LessonEvidence, as_utc
from digest.outbox.relay import relay_pending
from digest.report import build_report
from digest.tenants import set_tenant
from tests.conftest import _reset_process_state, wait_until

AGENT = "bot"
#: one call's tokens as the fake provider reports them
CALL = 18
LIMIT = 50
#: distinct tools and words, so no lesson is another's neighbour (no reconcile call)
TOPICS = [
    ("warehouse_lookup", "bin code", "Ask for the warehouse bin code before the lookup"),
    ("invoice_render", "currency", "Pass the invoice currency explicitly when rendering"),
    ("calendar_book", "timezone", "Give the calendar booking an explicit timezone"),
    ("parcel_track", "carrier", "Name the parcel carrier before tracking it"),
    ("refund_issue", "amount", "State the refund amount in cents"),
]


def _lesson(tool: str, field: str, correction: str) -> str:
    return (
        f"<lesson>\n<situation>Calling {tool} without the {field}</situation>\n"
        f"<mistake>The {field} was missing.</mistake>\n<correction>{correction}.</correction>\n"
        f"<tags>{tool}, {field.replace(' ', '-')}</tags>\n</lesson>"
    )


def _record(tenant: str, index: int, marker: str, note: str = "") -> int:
    tool, field, _ = TOPICS[index]
    error = f"ValidationError: '{field}' is required"
    return digest.record_run(
        tenant, AGENT, outcome="failure", task=f"help the customer {note}{marker}",
        tool_calls=[{"tool": tool, "ok": False, "error": error}],
    )  # fmt: skip


def _rows(ids: list[int]) -> dict[int, Any]:
    with session_scope() as session:
        return {e.id: e for e in session.scalars(select(Event).where(Event.id.in_(ids)))}


def _settled(ids: list[int]) -> dict[int, Any] | None:
    """The events once each is reflected or waits for the budget (None before)."""
    rows = _rows(ids)
    done = all(
        e.status == "reflected" or (e.status == "waiting" and e.wait_kind == "budget")
        for e in rows.values()
    )
    return rows if done and len(rows) == len(ids) else None


def _cited(ids: list[int]) -> int:
    with session_scope() as session:
        return int(
            session.scalar(
                select(func.count(func.distinct(LessonEvidence.event_id))).where(
                    LessonEvidence.event_id.in_(ids)
                )
            )
        )


def test_a_tiny_budget_makes_the_stream_wait_and_the_next_day_resumes_it(
    own_database: str,
    start_worker: Any,
    fake_llm: Any,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = {
        "DIGEST_DATABASE_URL": own_database,
        "DIGEST_QUEUE": f"digest-test-budget-{uuid.uuid4().hex[:8]}",
        "DIGEST_LLM_MODEL": "openai/fake-model",
        "DIGEST_LLM_API_BASE": fake_llm.api_base,
        "DIGEST_LLM_TIMEOUT_S": "10",
        "DIGEST_LLM_MAX_ATTEMPTS": "2",
        "DIGEST_LLM_RETRY_WAIT_MAX_S": "0.2",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _reset_process_state()
    set_tenant(tenant, daily_tokens=LIMIT)
    markers = []
    for i, (tool, field, correction) in enumerate(TOPICS):
        name = f"{tenant}-{i}"
        fake_llm.script_by_kind(
            name,
            reflect=[("reply", _lesson(tool, field, correction))],
            reconcile=[("reply", '{"operations": [{"op": "ADD", "candidate": 0}]}')],
        )
        markers.append(f" [script:{name}]")
    ids = [_record(tenant, i, markers[i]) for i in range(len(TOPICS))]

    worker = start_worker(**env)
    rows = wait_until(lambda: _settled(ids), timeout=90, what="every event reflected or waiting")
    waiting = [e for e in rows.values() if e.status == "waiting"]
    reflected = [e for e in rows.values() if e.status == "reflected"]
    assert waiting and reflected, {e.id: (e.status, e.last_error) for e in rows.values()}
    tomorrow = resume_at(clock.now())
    for event in waiting:
        assert event.last_error.startswith(f"daily token budget of tenant {tenant!r} spent")
        assert as_utc(event.next_attempt_at) == tomorrow
        assert event.deferrals == 0  # a budget wait is no fault: no backoff step spent
    calls_today = sum(fake_llm.count(f"{tenant}-{i}") for i in range(len(TOPICS)))
    day = spend.ledger_for(get_settings()).spend(tenant, clock.now())
    assert day.tokens == CALL * calls_today
    assert LIMIT <= day.tokens <= LIMIT + CALL  # at most one call's worth over

    # A failure the fleet already judged is learned while the budget is spent, at no cost.
    first = ids.index(reflected[0].id)
    repeat = _record(tenant, first, markers[first], note="again ")
    wait_until(lambda: _rows([repeat])[repeat].status == "reflected", timeout=60,
               what="the repeat reflected")  # fmt: skip
    assert sum(fake_llm.count(f"{tenant}-{i}") for i in range(len(TOPICS))) == calls_today
    assert _cited([repeat]) == 1

    # Visible where a person looks.
    [stats] = agent_stats(tenant, AGENT)
    assert stats.budget_waiting == len(waiting)
    assert stats.tenant_budget is not None
    assert stats.tenant_budget["spent"] == "token"
    assert stats.tenant_budget["resume_at"] == tomorrow.isoformat()
    assert stats.today_tokens == day.tokens
    from digest.cli.doctor import _spending

    check = _spending(get_settings())
    assert check.status == "warn" and tenant in check.detail and "resuming" in check.detail
    report = build_report(tenant, AGENT)
    assert report.budget_wait is not None
    assert f"{len(waiting)} event(s) wait for the daily model budget" in report.budget_wait
    assert tomorrow.strftime("%Y-%m-%d %H:%M UTC") in report.budget_wait
    worker.kill()

    # The next day: the clock moved past midnight, a new worker relays what is due.
    offset = (tomorrow - datetime.now(UTC)).total_seconds() + 60
    env["DIGEST_CLOCK_OFFSET_S"] = str(offset)
    monkeypatch.setenv("DIGEST_CLOCK_OFFSET_S", str(offset))
    _reset_process_state()
    start_worker(**env, DIGEST_RELAY_ON_CONNECT="true")
    relay_pending()  # as beat would, in case the worker's own relay ran before it listened
    wait_until(
        lambda: all(e.status == "reflected" for e in _rows(ids).values()),
        timeout=90,
        what="every waiting event reflected the next day",
    )
    everything = [*ids, repeat]
    assert all(e.status == "reflected" and e.wait_kind is None for e in _rows(everything).values())
    assert _cited(everything) == len(everything)  # every event learned: nothing lost
    assert agent_stats(tenant, AGENT)[0].budget_waiting == 0
    assert build_report(tenant, AGENT).budget_wait is None
