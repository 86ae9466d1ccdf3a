"""``drain`` never lets one tenant's stuck event block another's (issue 14, point 8).

When reflecting one agent raises (a bug in a model client, an event an older version stored
that no longer reflects), the error is logged and reported as an ``error`` result naming the
tenant, the agent and the exception; drain goes on with every other agent; ``digest drain``
exits 1 at the end. The failing event has no lesson written for it; it is taken over once its
claim is stale, and ends ``dead`` after ``DIGEST_MAX_EVENT_ATTEMPTS`` instead of looping.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

import digest
from digest.capture.api import store_pending
from digest.db import session_scope
from digest.logs import capture_logs
from digest.model.scripted import rules
from digest.models import Event, Lesson, LessonEvidence, utcnow
from digest.pipeline import drain
from digest.reflect.claims import ReflectResult
from tests.cli.conftest import run_cli
from tests.conftest import event_statuses, judge_raising, owner_answers, with_batch_size

AGENT = "bot"


def failing_run(tenant: str) -> int:
    return digest.record_run(
        tenant, AGENT, task="refund order 7", outcome="failure",
        tool_calls=[{"tool": "refund", "ok": False, "error": "amount is required"}],
    )  # fmt: skip


def cited(event_id: int) -> int:
    with session_scope() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(LessonEvidence)
                .where(LessonEvidence.event_id == event_id)
            )
            or 0
        )


def lessons_of(tenant: str) -> int:
    from digest.tenants import find_agent

    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        return int(
            session.scalar(
                select(func.count()).select_from(Lesson).where(Lesson.agent_id == agent_id)
            )
            or 0
        )


def make_stale(event_id: int) -> None:
    """As if the process that claimed it died long ago: any drain may take it over."""
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id == event_id)
            .values(processing_started_at=utcnow() - timedelta(days=1))
        )


@pytest.fixture()
def three_tenants(sqlite_env: str, tenant: str) -> dict[str, Any]:
    """Tenant ``<t>-a`` captured first (its agent is drained first) with a run whose
    reflection will raise; ``<t>-b`` and ``<t>-c`` with owner answers that reflect."""
    stuck = failing_run(f"{tenant}-a")
    others = owner_answers(f"{tenant}-b", AGENT, 2) + owner_answers(f"{tenant}-c", AGENT, 1)
    return {"tenant": tenant, "stuck": stuck, "others": others}


def test_one_agent_raising_does_not_stop_the_others(
    three_tenants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    stuck, others = three_tenants["stuck"], three_tenants["others"]
    judge_raising(monkeypatch, stuck, lambda: RuntimeError("the provider SDK crashed"))
    with capture_logs() as logs:
        results = drain()
    by_event = {r.event_id: r for r in results}
    assert set(by_event) == {stuck, *others}
    assert all(by_event[e].status == "reflected" for e in others)
    error = by_event[stuck]
    assert error.status == "error"
    tenant = three_tenants["tenant"]
    assert (
        error.reason == f"reflecting {tenant}-a/bot raised RuntimeError: the provider SDK crashed"
    )
    assert lessons_of(f"{tenant}-b") == 2 and lessons_of(f"{tenant}-c") == 1
    assert cited(stuck) == 0 and lessons_of(f"{tenant}-a") == 0  # nothing half-written
    failed = [e for e in logs if e["event"] == "drain_agent_failed"]
    assert len(failed) == 1 and failed[0]["log_level"] == "error"
    assert failed[0]["events"] == [stuck] and failed[0]["tenant"] == f"{tenant}-a"


def test_the_failing_agents_other_events_are_reflected(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a batch, the event that raises fails alone: the agent's others are reflected."""
    with_batch_size(monkeypatch, 10)
    before = owner_answers(tenant, AGENT, 2)
    stuck = failing_run(tenant)
    after = owner_answers(tenant, AGENT, 2, topic="Later")
    other = owner_answers(f"{tenant}-x", AGENT, 1)
    judge_raising(monkeypatch, stuck, lambda: RuntimeError("boom"))
    results = drain()
    assert [r.event_id for r in results if r.status == "error"] == [stuck]
    # …and the events reflected beside it are reported too, not only written
    assert sorted(r.event_id for r in results) == sorted([*before, *after, *other, stuck])
    statuses = event_statuses([*before, *after, *other, stuck])
    assert statuses == {
        **dict.fromkeys([*before, *after, *other], "reflected"),
        stuck: "processing",
    }
    assert cited(stuck) == 0


def test_a_fresh_claim_is_not_retaken_and_a_stale_one_heals(
    three_tenants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    stuck, tenant = three_tenants["stuck"], three_tenants["tenant"]
    model = judge_raising(monkeypatch, stuck, lambda: RuntimeError("boom"))
    drain()
    later = owner_answers(f"{tenant}-b", AGENT, 1, topic="Later")
    second = drain()  # the stuck claim is fresh: a live process might still hold it
    assert [(r.event_id, r.status) for r in second] == [(later[0], "reflected")]

    make_stale(stuck)
    third = drain()  # taken over, and it raises again: one more attempt counted
    assert [(r.event_id, r.status) for r in third] == [(stuck, "error")]
    make_stale(stuck)
    model.handler = rules  # the bug is fixed
    fourth = drain()
    assert [(r.event_id, r.status) for r in fourth] == [(stuck, "reflected")]
    assert cited(stuck) >= 1


def test_an_event_that_always_raises_ends_dead(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_MAX_EVENT_ATTEMPTS", "2")
    stuck = failing_run(tenant)
    judge_raising(monkeypatch, stuck, lambda: RuntimeError("boom"))  # resets settings too
    assert [r.status for r in drain()] == ["error"]  # attempt 1
    make_stale(stuck)
    assert [r.status for r in drain()] == ["error"]  # attempt 2
    make_stale(stuck)
    assert [(r.event_id, r.status) for r in drain()] == [(stuck, "dead")]
    assert event_statuses([stuck]) == {stuck: "dead"} and drain() == []


def test_a_time_limit_is_not_taken_for_an_agents_error(
    three_tenants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's soft time limit ends the task: drain must not swallow it and go on."""
    SoftTimeLimitExceeded = type("SoftTimeLimitExceeded", (Exception,), {})  # Celery's, by name
    judge_raising(monkeypatch, three_tenants["stuck"], SoftTimeLimitExceeded)
    with pytest.raises(SoftTimeLimitExceeded):
        drain()


def test_error_results_reach_on_result_and_hide_secrets(
    three_tenants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-" + "a1b2c3d4" * 4
    judge_raising(monkeypatch, three_tenants["stuck"], lambda: RuntimeError(f"bad key {key}"))
    seen: list[ReflectResult] = []
    results = drain(on_result=seen.append)
    assert seen == results and [r.status for r in seen].count("error") == 1
    error = next(r for r in seen if r.status == "error")
    assert key not in (error.reason or "") and "sk-***" in (error.reason or "")


def test_drain_of_one_tenant_leaves_the_stuck_one_alone(
    three_tenants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_raising(monkeypatch, three_tenants["stuck"], lambda: RuntimeError("boom"))
    results = drain(tenant=f"{three_tenants['tenant']}-b")
    assert [r.status for r in results] == ["reflected", "reflected"]
    assert event_statuses([three_tenants["stuck"]]) == {three_tenants["stuck"]: "pending"}


# --- the command --------------------------------------------------------------------------------


def legacy_stuck_event(tenant: str) -> int:
    """A manual lesson an older version stored without checking its signature (a LESSON.md
    import with a 250-character title): reflecting it raises, every time."""
    event_id, _ = store_pending(
        "manual_lesson", {"tenant": tenant, "agent": AGENT, "text": "T" * 250 + "\nDo it."}
    )
    with session_scope() as session:  # left `processing` by the import that crashed on it
        session.execute(
            update(Event)
            .where(Event.id == event_id)
            .values(status="processing", attempts=1, processing_started_at=utcnow() - timedelta(1))
        )
    return event_id


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_cli_drain_reflects_everyone_else_then_exits_1(
    sqlite_env: str, tenant: str, as_json: bool
) -> None:
    stuck = legacy_stuck_event(f"{tenant}-a")
    others = owner_answers(f"{tenant}-b", AGENT, 2)
    result = run_cli("drain", *(["--json"] if as_json else []))
    assert result.returncode == 1, result.stderr
    reason = f"reflecting {tenant}-a/bot raised InvalidEvent: invalid event: text: the signature"
    if as_json:
        data = json.loads(result.stdout)
        assert data["by_status"] == {"error": 1, "reflected": 2}
        assert [e["event_id"] for e in data["errors"]] == [stuck]
        assert data["errors"][0]["error"].startswith(reason)
    else:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(f"error: event {stuck}: {reason}")
        assert "processed 3 event(s)" in result.stdout
        assert "Traceback" not in result.stderr
    assert event_statuses(others) == dict.fromkeys(others, "reflected")
    assert cited(stuck) == 0


def test_cli_drain_with_nothing_stuck_exits_0(sqlite_env: str, tenant: str) -> None:
    owner_answers(tenant, AGENT, 1)
    result = run_cli("drain", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["errors"] == []
