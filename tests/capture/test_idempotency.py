"""Idempotency keys are per (tenant, agent) (issue 14, point 2): another agent's key is its
own; the same key and content is the same event; the same key with other content is refused,
naming the key, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.errors import IdempotencyConflict, InvalidEvent
from digest.models import Event, Lesson


def _events() -> int:
    with session_scope() as session:
        return int(session.scalar(select(func.count()).select_from(Event)) or 0)


def run(agent: str, tenant: str, key: str, **fields: Any) -> int:
    values = {"task": "refund order 7", "outcome": "failure", "error": "amount is required"}
    return digest.record_run(tenant, agent, idempotency_key=key, **{**values, **fields})


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_keys_are_per_agent_and_conflicts_are_refused(
    store: str, request: pytest.FixtureRequest, tenant: str
) -> None:
    request.getfixturevalue("sqlite_env" if store == "sqlite" else "services_env")
    support = run("support-bot", tenant, "k-1")
    billing = run("billing-bot", tenant, "k-1")  # another agent: its own event
    assert support != billing
    assert run("support-bot", tenant, "k-1") == support  # the same content: the same event
    before = _events()
    with pytest.raises(IdempotencyConflict) as raised:
        run("support-bot", tenant, "k-1", error="currency is required")
    assert isinstance(raised.value, InvalidEvent)
    assert raised.value.field == "idempotency_key"
    assert "'k-1'" in str(raised.value) and str(support) in str(raised.value)
    assert _events() == before  # nothing written
    with session_scope() as session:
        kept = session.get(Event, support)
        assert kept is not None and kept.payload["error"] == "amount is required"


def test_a_manual_lesson_key_is_per_agent_too(sqlite_env: str, tenant: str) -> None:
    first = digest.record_lesson(tenant, "a", "refunds: confirm the amount", idempotency_key="m")
    other = digest.record_lesson(tenant, "b", "refunds: confirm the amount", idempotency_key="m")
    assert first != other
    assert digest.record_lesson(
        tenant, "a", "refunds: confirm the amount", idempotency_key="m"
    ) == (first)
    with pytest.raises(IdempotencyConflict) as raised:
        digest.record_lesson(tenant, "a", "refunds: never refund", idempotency_key="m")
    assert raised.value.event_id == first
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(Lesson)) == 2
        assert session.scalar(select(func.count()).select_from(Event)) == 2


def test_a_manual_lesson_may_not_take_a_key_another_kind_used(sqlite_env: str, tenant: str) -> None:
    """The key names one event of the agent, whatever its kind: a manual lesson under a run's
    key is a conflict (not a database error), and nothing is written."""
    used = run("a", tenant, "shared")
    with pytest.raises(IdempotencyConflict) as raised:
        digest.record_lesson(tenant, "a", "refunds: confirm the amount", idempotency_key="shared")
    assert raised.value.event_id == used
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(Lesson)) == 0
        assert session.scalar(select(func.count()).select_from(Event)) == 1
