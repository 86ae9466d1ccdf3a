"""Edges of issue 14 points 3-5: transient faults put events back as waiting (and heal), the
time budget holds, improve-now covers what was captured before it was asked, and the relay
leaves a heartbeat that `digest stats` and `digest doctor` check.

Unit cases need no services; the rest run the embedded pipeline on SQLite with a scripted
model (``digest.model.scripted``), or a real worker on PostgreSQL and Redis.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner

import digest
from digest.config import BUDGET_MARGIN_S, Settings, get_settings
from digest.db import session_scope
from digest.errors import LLMError, LLMTransientError
from digest.model import seam
from digest.model.scripted import Messages, rules, scripted_model, step_of
from digest.models import DigestRun, Event, Heartbeat, LearningVersion, as_utc, utcnow
from digest.pipeline import drain, improve_now
from digest.reflect.apply import OUTPUT_DEFERRALS, defer_delay
from tests.conftest import _reset_process_state, use_model, wait_until
from worker.config import check_budget, task_limits

runner = CliRunner()


def _cli(*args: str) -> Any:
    from digest.cli import app

    return runner.invoke(app, list(args))


# --- Retry-After -------------------------------------------------------------------------------


class _Fault(Exception):
    def __init__(self, headers: dict[str, str] | None, where: str = "litellm") -> None:
        super().__init__("429")
        if where == "litellm":
            self.litellm_response_headers = httpx.Headers(headers or {})
        else:
            self.response = httpx.Response(429, headers=headers or {})


@pytest.mark.parametrize(
    ("headers", "where", "expected"),
    [
        ({"Retry-After": "12"}, "litellm", 12.0),
        ({"retry-after": "1.5"}, "response", 1.5),
        ({"retry-after-ms": "2500"}, "litellm", 2.5),
        ({"Retry-After": "-4"}, "litellm", 0.0),
        ({"Retry-After": "soon"}, "litellm", None),
        ({}, "litellm", None),
        (None, "response", None),
    ],
)
def test_retry_after_is_read_from_the_providers_answer(
    headers: dict[str, str] | None, where: str, expected: float | None
) -> None:
    assert seam.retry_after(_Fault(headers, where)) == expected


def test_retry_after_as_an_http_date() -> None:
    when = datetime.now(UTC) + timedelta(seconds=90)
    found = seam.retry_after(_Fault({"Retry-After": format_datetime(when, usegmt=True)}))
    assert found is not None and 85 <= found <= 91


def test_no_headers_at_all_is_no_hint() -> None:
    assert seam.retry_after(ValueError("plain")) is None


# --- the backoff -------------------------------------------------------------------------------


@pytest.mark.parametrize("deferrals", [0, 1, 3, 6, 40])
def test_the_delay_doubles_is_jittered_and_capped(deferrals: int) -> None:
    settings = Settings(llm_defer_base_s=30, llm_defer_max_s=1800)
    ceiling = min(1800, 30 * 2**deferrals)
    delays = [defer_delay(deferrals, settings) for _ in range(200)]
    assert all(ceiling / 2 <= d <= ceiling for d in delays)
    assert len(set(delays)) > 100  # jittered: a fleet's faults do not return in step


def test_the_delay_is_never_sooner_than_retry_after() -> None:
    settings = Settings(llm_defer_base_s=1, llm_defer_max_s=5)
    assert all(defer_delay(0, settings, retry_after=120) == 120 for _ in range(20))


# --- the time budget ---------------------------------------------------------------------------


def test_the_default_budget_fits() -> None:
    settings = Settings(llm_model="openai/gpt-4o-mini")
    assert settings.budget_problems() == []
    assert settings.model_budget_s <= settings.task_soft_time_limit_s - BUDGET_MARGIN_S
    check_budget(settings)


def test_models_answered_in_process_need_no_budget() -> None:
    # offline/rules waits on no network: a 3 s task is fine for it
    tight = {"task_soft_time_limit_s": 3, "task_time_limit_s": 4}
    assert Settings(**tight).budget_problems() == []
    assert Settings(**tight, llm_reconcile_model="openai/x").budget_problems() != []


def test_a_small_limit_keeps_a_tenth_as_its_margin() -> None:
    settings = Settings(
        llm_model="openai/x", llm_timeout_s=2, llm_max_attempts=1, llm_slot_wait_s=0,
        task_soft_time_limit_s=5, task_time_limit_s=6,
    )  # fmt: skip
    assert settings.model_deadline_s == 4.5 and settings.budget_problems() == []


@pytest.mark.parametrize(
    "changes",
    [
        {"llm_timeout_s": 200},
        {"llm_max_attempts": 8},
        {"llm_retry_wait_max_s": 300},
        {"llm_slot_wait_s": 120},
        {"task_soft_time_limit_s": 240, "task_time_limit_s": 300},
    ],
)
def test_a_budget_that_does_not_fit_is_refused_naming_the_settings(
    changes: dict[str, float],
) -> None:
    settings = Settings(llm_model="openai/gpt-4o-mini", **changes)
    [problem] = settings.budget_problems()
    for name in changes:
        assert f"DIGEST_{name.upper()}" in problem
    assert "raise DIGEST_TASK_SOFT_TIME_LIMIT_S" in problem
    from digest.errors import ConfigError

    with pytest.raises(ConfigError, match="DIGEST_TASK_SOFT_TIME_LIMIT_S"):
        check_budget(settings)


def test_every_task_has_its_own_limits() -> None:
    settings = Settings(improve_wait_s=100)
    limits = task_limits(settings)
    assert set(limits) == {
        "digest.reflect_batch",
        "digest.reflect_event",  # the former name, for messages queued before the rename
        "digest.compose_version",
        "digest.improve_now",
        "digest.weekly_sweep",
        "digest.relay_pending",
        "digest.merge_questions",
    }
    for name, limit in limits.items():
        assert 0 < limit["soft_time_limit"] < limit["time_limit"], name
    for name in ("digest.reflect_batch", "digest.reflect_event"):
        reflect = limits[name]
        assert (reflect["soft_time_limit"], reflect["time_limit"]) == (540, 600)
    # improve-now reflects, waits for other workers' claims, then composes
    assert limits["digest.improve_now"]["soft_time_limit"] >= 2 * 540 + 100
    assert limits["digest.relay_pending"]["soft_time_limit"] < 540


def test_budgets_nest_and_the_sooner_end_wins() -> None:
    assert seam.time_left() is None
    with seam.time_budget(100):
        with seam.time_budget(5):
            left = seam.time_left()
            assert left is not None and 4 < left <= 5
        with seam.time_budget(1000):
            left = seam.time_left()
            assert left is not None and 99 < left <= 100
    assert seam.time_left() is None


def test_a_remote_call_is_not_started_without_time_for_it() -> None:
    usage = seam.Usage()
    spent = pytest.raises(LLMTransientError, match="time budget is spent")
    with seam.time_budget(seam.MIN_CALL_S / 2), spent:
        seam.complete([{"role": "user", "content": "x"}], model="openai/x", usage=usage)
    assert usage.calls == 0  # nothing reached a provider


def test_retries_stop_when_the_budget_cannot_hold_another_attempt() -> None:
    calls = 0

    def down(_: Messages) -> str:
        nonlocal calls
        calls += 1
        raise LLMTransientError("503", retry_after=3.0)

    settings = Settings(llm_max_attempts=10, llm_retry_wait_max_s=5)
    budget = seam.time_budget(seam.MIN_CALL_S + 2)
    with scripted_model(down) as model, budget, pytest.raises(LLMTransientError):
        seam.call_and_parse(
            [{"role": "user", "content": "x"}], str, model=model.name, usage=seam.Usage(),
            settings=settings,
        )  # fmt: skip
    assert calls == 1  # a 3 s wait and a 5 s call do not fit in 7 s


def test_a_retry_after_longer_than_a_task_may_wait_ends_the_attempts() -> None:
    calls = 0

    def limited(_: Messages) -> str:
        nonlocal calls
        calls += 1
        raise LLMTransientError("429", retry_after=600.0)

    settings = Settings(llm_max_attempts=5, llm_retry_wait_max_s=1)
    with scripted_model(limited) as model, pytest.raises(LLMTransientError) as caught:
        seam.call_and_parse(
            [{"role": "user", "content": "x"}], str, model=model.name, usage=seam.Usage(),
            settings=settings,
        )  # fmt: skip
    assert calls == 1 and caught.value.retry_after == 600.0


# --- waiting on the embedded pipeline ----------------------------------------------------------


def _failing_run(tenant: str, agent: str = "bot", n: int = 0) -> int:
    return digest.record_run(
        tenant, agent, task=f"book a table for {n + 2}", outcome="failure",
        tool_calls=[{"tool": "reserve", "ok": False, "error": f"party size {n} is required"}],
    )  # fmt: skip


def _row(event_id: int) -> Event:
    with session_scope() as session:
        row = session.get(Event, event_id)
        assert row is not None
        session.expunge(row)
        return row


class Switch:
    """A scripted model whose reflect step raises ``fault`` until ``healed``."""

    def __init__(self, fault: Exception) -> None:
        self.fault, self.healed, self.reflects = fault, False, 0

    def __call__(self, messages: Messages) -> str:
        if step_of(messages) == "reflect":
            self.reflects += 1
            if not self.healed:
                raise self.fault
        return rules(messages)


@pytest.fixture()
def quick(sqlite_env: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DIGEST_LLM_RETRY_WAIT_MAX_S", "0")
    monkeypatch.setenv("DIGEST_LLM_MAX_ATTEMPTS", "2")
    _reset_process_state()
    return sqlite_env


def test_a_transient_fault_leaves_the_event_waiting_with_its_reason(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = Switch(LLMTransientError("503 from the provider"))
    with scripted_model(switch) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        [result] = drain()
    assert (result.event_id, result.status) == (event_id, "waiting")
    row = _row(event_id)
    assert row.status == "waiting" and row.last_error is not None
    assert row.last_error.startswith("503 from the provider (after 2 model call(s))")
    assert (row.attempts, row.deferrals, row.output_faults) == (0, 1, 0)
    assert row.next_attempt_at is not None and as_utc(row.next_attempt_at) > utcnow()
    assert row.finished_at is None and row.processing_started_at is None


def test_a_waiting_event_is_not_taken_before_its_time(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = Switch(LLMTransientError("429"))
    with scripted_model(switch) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        drain()
        switch.healed = True
        assert drain() == []  # nothing due
    assert switch.reflects == 2 and _row(event_id).status == "waiting"


def test_a_due_waiting_event_is_reflected_once_the_fault_has_passed(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = Switch(LLMTransientError("429"))
    with scripted_model(switch) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        drain()
        with session_scope() as session:
            session.execute(update(Event).values(next_attempt_at=utcnow() - timedelta(seconds=1)))
        switch.healed = True
        [result] = drain()
    assert result.status == "reflected" and result.lesson_ids
    row = _row(event_id)
    assert (row.status, row.attempts, row.deferrals) == ("reflected", 1, 1)
    assert row.waiting_since is None and row.next_attempt_at is None
    with session_scope() as session:
        errors = session.scalars(
            select(DigestRun.error).where(DigestRun.event_id == event_id).order_by(DigestRun.id)
        ).all()
    assert errors[0] is not None and errors[0].startswith("waiting: 429") and errors[1] is None


def test_faults_that_outlast_the_give_up_time_fail_the_event(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_LLM_GIVE_UP_AFTER_S", "60")
    _reset_process_state()
    with scripted_model(Switch(LLMTransientError("503"))) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        drain()
        long_ago = utcnow() - timedelta(minutes=5)
        with session_scope() as session:
            session.execute(update(Event).values(waiting_since=long_ago, next_attempt_at=long_ago))
        [result] = drain()
    assert result.status == "failed"
    assert result.reason is not None and result.reason.startswith("gave up after 5 min of faults")
    assert _row(event_id).status == "failed"


@pytest.mark.parametrize(
    ("fault", "meaning"),
    [
        (LLMError("AuthenticationError: 401 invalid key"), "401 invalid key"),
        (LLMError("BadRequestError: 400 bad"), "400 bad"),
    ],
)
def test_a_permanent_fault_fails_at_once(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch, fault: Exception, meaning: str
) -> None:
    switch = Switch(fault)
    with scripted_model(switch) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        [result] = drain()
    assert result.status == "failed" and meaning in (result.reason or "")
    assert switch.reflects == 1  # not retried: it would fail the same way
    assert _row(event_id).next_attempt_at is None


def test_a_model_that_only_ever_answers_prose_fails_after_a_few_rounds(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def prose(messages: Messages) -> str:
        return "I think it went fine." if step_of(messages) == "reflect" else rules(messages)

    with scripted_model(prose) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        statuses = []
        for _ in range(OUTPUT_DEFERRALS):
            [result] = drain()
            statuses.append(result.status)
            with session_scope() as session:
                session.execute(update(Event).values(next_attempt_at=utcnow()))
    assert statuses == ["waiting"] * (OUTPUT_DEFERRALS - 1) + ["failed"]
    assert "every answer broke the output contract" in (_row(event_id).last_error or "")


def test_a_run_that_met_another_fault_starts_the_prose_count_again(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # prose in every run but one, which is rate limited: the broken answers are not "in a
    # row", so the event waits on (until its faults outlast DIGEST_LLM_GIVE_UP_AFTER_S)
    runs = ["prose"] * (OUTPUT_DEFERRALS - 1) + ["429"] + ["prose"] * (OUTPUT_DEFERRALS - 1)
    current = {"run": "prose"}

    def answer(messages: Messages) -> str:
        if step_of(messages) != "reflect":
            return rules(messages)
        if current["run"] == "429":
            raise LLMTransientError("429 slow down")
        return "I think it went fine."

    with scripted_model(answer) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        statuses, counts = [], []
        for kind in runs:
            current["run"] = kind
            [result] = drain()
            statuses.append(result.status)
            counts.append(_row(event_id).output_faults)
            with session_scope() as session:
                session.execute(update(Event).values(next_attempt_at=utcnow()))
    assert statuses == ["waiting"] * len(runs)
    before = list(range(1, OUTPUT_DEFERRALS))
    assert counts == [*before, 0, *before]
    current["run"] = "prose"  # one more broken run completes a row: it fails now
    with scripted_model(answer) as model:
        use_model(monkeypatch, model.name)
        [result] = drain()
    assert result.status == "failed"


def test_stats_show_a_waiting_event_with_its_reason_and_next_attempt(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with scripted_model(Switch(LLMTransientError("429 slow down"))) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        drain()
    from digest.lessons.service import agent_stats

    [stats] = agent_stats(tenant, "bot")
    assert stats.events["waiting"] == 1
    [waiting] = stats.waiting
    assert waiting["event_id"] == event_id and waiting["reason"].startswith("429 slow down")
    assert waiting["next_attempt_at"] > datetime.now(UTC).isoformat()
    shown = _cli("stats", "--tenant", tenant)
    assert shown.exit_code == 0, shown.output
    printed = " ".join(shown.output.split())
    assert f"event {event_id} is waiting" in printed and "429 slow down" in printed
    as_json = _cli("stats", "--tenant", tenant, "--json")
    assert '"waiting": [' in as_json.output


def test_improve_now_tries_waiting_events_at_once(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = Switch(LLMTransientError("503"))
    with scripted_model(switch) as model:
        use_model(monkeypatch, model.name)
        event_id = _failing_run(tenant)
        drain()
        switch.healed = True
        result = improve_now(tenant, "bot")
    assert result.waiting == 0 and result.in_flight == 0
    assert _row(event_id).status == "reflected"  # before its backoff would have ended


def test_improve_now_reports_what_still_waits(
    quick: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with scripted_model(Switch(LLMTransientError("503"))) as model:
        use_model(monkeypatch, model.name)
        _failing_run(tenant)
        result = improve_now(tenant, "bot")
        shown = _cli("improve-now", "--tenant", tenant, "--agent", "bot")
    assert result.waiting == 1 and result.in_flight == 0
    assert "1 event(s) wait to be tried again after a model fault" in shown.output


# --- improve-now and events in flight ----------------------------------------------------------


def _claimed_elsewhere(event_id: int) -> None:
    """What a live worker's claim looks like."""
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id == event_id)
            .values(status="processing", attempts=1, processing_started_at=utcnow())
        )


def test_improve_now_waits_for_a_claim_in_flight_then_covers_it(
    sqlite_env: str, tenant: str
) -> None:
    digest.record_answer(tenant, "bot", question="Open on Sunday?", answer="No, closed.")
    drain()
    late = digest.record_answer(tenant, "bot", question="Parking?", answer="Behind the shop.")
    _claimed_elsewhere(late)
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(improve_now(tenant, "bot")))
    thread.start()
    time.sleep(0.5)  # long enough for an improve-now that does not wait to have composed
    # the other worker gives its claim back (it died, or passed the event on)
    with session_scope() as session:
        session.execute(update(Event).where(Event.id == late).values(status="pending"))
    thread.join(timeout=30)
    [result] = done
    assert result.status == "created" and result.in_flight == 0
    assert _row(late).status == "reflected"
    with session_scope() as session:
        body = session.scalars(
            select(LearningVersion.body_markdown).where(LearningVersion.id == result.version_id)
        ).one()
    assert "Behind the shop" in body


def test_improve_now_stops_waiting_after_its_bound(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_IMPROVE_WAIT_S", "0.5")
    _reset_process_state()
    digest.record_answer(tenant, "bot", question="Open on Sunday?", answer="No, closed.")
    stuck = digest.record_answer(tenant, "bot", question="Parking?", answer="Behind the shop.")
    _claimed_elsewhere(stuck)
    started = time.monotonic()
    result = improve_now(tenant, "bot")
    assert 0.5 <= time.monotonic() - started < 10
    assert result.status == "created" and result.in_flight == 1


# --- the relay's heartbeat ---------------------------------------------------------------------


def _beat_at(url: str, when: datetime | None) -> None:
    with session_scope(url) as session:
        session.execute(Heartbeat.__table__.delete())
        if when is not None:
            session.add(Heartbeat(name="relay", at=when, detail={}))


@pytest.mark.parametrize(
    ("age_s", "warned"),
    # 110 s, not 119: the look happens a moment after the beat is written, and a busy machine
    # took more than a second for it (the warning starts at two intervals, 120 s)
    [(None, "has never run"), (5, None), (110, None), (121, "last ran 1")],
)
def test_stats_warn_when_the_relay_has_not_run_for_two_intervals(
    own_database: str, tenant: str, age_s: float | None, warned: str | None
) -> None:
    digest.record_answer(tenant, "bot", question="Open?", answer="Yes.")
    _beat_at(own_database, None if age_s is None else utcnow() - timedelta(seconds=age_s))
    shown = _cli("stats", "--tenant", tenant)
    assert shown.exit_code == 0, shown.output
    if warned is None:
        assert "relay" not in shown.output
    else:
        assert "warning:" in shown.output and warned in shown.output


def test_the_embedded_mode_has_no_relay_to_warn_about(sqlite_env: str, tenant: str) -> None:
    digest.record_answer(tenant, "bot", question="Open?", answer="Yes.")
    shown = _cli("stats")
    assert shown.exit_code == 0 and "relay" not in shown.output


def test_the_relay_records_each_run_and_publishes_due_waiting_events(
    own_database: str, own_queue: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from digest.outbox.relay import relay_pending
    from tests.conftest import queued_tasks

    monkeypatch.setenv("DIGEST_RELAY_PENDING_AGE_S", "0")
    _reset_process_state()
    due, later = (_failing_run(tenant, n=i) for i in range(2))
    now = utcnow()
    with session_scope() as session:
        for event_id, when in (
            (due, now - timedelta(seconds=1)),
            (later, now + timedelta(hours=1)),
        ):
            session.execute(
                update(Event).where(Event.id == event_id).values(
                    status="waiting", next_attempt_at=when, waiting_since=now, published_at=None
                )
            )  # fmt: skip
    settings = get_settings()
    published = relay_pending(settings)
    assert due in published and later not in published
    with session_scope() as session:
        beat = session.get(Heartbeat, "relay")
        assert beat is not None and (utcnow() - as_utc(beat.at)).total_seconds() < 10
    assert ("digest.reflect_batch", [due]) in queued_tasks(settings.broker_url or "", own_queue)


# --- doctor ------------------------------------------------------------------------------------


def _lines(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        status, _, rest = line.partition(" ")
        name, _, _detail = rest.strip().partition(":")
        if status in ("ok", "warn", "FAIL", "skip"):
            found[name] = status
    return found


def test_doctor_passes_on_a_migrated_embedded_setup(sqlite_env: str) -> None:
    shown = _cli("doctor")
    assert shown.exit_code == 0, shown.output
    checks = _lines(shown.output)
    assert checks["settings"] == checks["time budget"] == checks["database"] == "ok"
    assert checks["schema"] == checks["broker"] == checks["relay"] == "ok"
    assert checks["model offline/rules"] == "ok"


def test_doctor_names_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{tmp_path / 'none.db'}")
    monkeypatch.setenv("DIGEST_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("DIGEST_LLM_MODEL", "openai/absent")
    monkeypatch.setenv("DIGEST_LLM_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DIGEST_TASK_SOFT_TIME_LIMIT_S", "60")
    monkeypatch.setenv("DIGEST_TASK_TIME_LIMIT_S", "90")
    _reset_process_state()
    shown = _cli("doctor")
    assert shown.exit_code == 1
    checks = _lines(shown.output)
    assert checks["time budget"] == checks["database"] == checks["broker"] == "FAIL"
    assert checks["model openai/absent"] == "FAIL"
    assert checks["schema"] == "skip"
    assert "DIGEST_TASK_SOFT_TIME_LIMIT_S" in shown.output
    assert "run `digest db upgrade`" in shown.output
    assert not (tmp_path / "none.db").exists()  # looking did not create the database
    assert "Traceback" not in shown.output


def test_doctor_reports_an_invalid_setting_instead_of_stopping(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_LLM_TIMEOUT_S", "soon")
    _reset_process_state()
    shown = _cli("doctor", "--json")
    assert shown.exit_code == 1
    assert '"status": "FAIL"' in shown.output and "DIGEST_LLM_TIMEOUT_S" in shown.output


def test_doctor_strict_fails_on_a_silent_relay(own_database: str) -> None:
    _beat_at(own_database, utcnow() - timedelta(hours=1))
    relaxed, strict = _cli("doctor"), _cli("doctor", "--strict")
    assert relaxed.exit_code == 0, relaxed.output
    assert _lines(relaxed.output)["relay"] == "warn"
    assert strict.exit_code == 1


# --- a real worker -----------------------------------------------------------------------------


def test_a_worker_refuses_a_budget_that_does_not_fit(
    services_env: dict[str, str], tmp_path: Path
) -> None:
    from tests.conftest import spawn_worker

    env = {**services_env, "DIGEST_LLM_MODEL": "openai/fake", "DIGEST_TASK_SOFT_TIME_LIMIT_S": "60",
           "DIGEST_TASK_TIME_LIMIT_S": "90"}  # fmt: skip
    with pytest.raises(RuntimeError, match="worker exited early") as caught:
        spawn_worker(env, tmp_path / "worker.log")
    assert "error: invalid setting DIGEST_TASK_SOFT_TIME_LIMIT_S" in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_a_worker_that_connects_relays_stranded_events_without_beat(
    own_database: str, start_worker: Any, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event whose message was lost (here: never published, the broker was down at
    capture) is reflected as soon as a worker connects, though no beat runs."""
    monkeypatch.setenv("DIGEST_BROKER_URL", "redis://127.0.0.1:1/0")  # capture cannot publish
    _reset_process_state()
    stranded = digest.record_answer(tenant, "bot", question="Open on Sunday?", answer="No.")
    _reset_process_state()
    start_worker(
        DIGEST_RELAY_PENDING_AGE_S="0", DIGEST_DATABASE_URL=own_database,
        DIGEST_RELAY_ON_CONNECT="true",
    )  # fmt: skip
    wait_until(lambda: _row(stranded).status == "reflected", 60, "the stranded event reflected")
    with session_scope() as session:
        beat = session.get(Heartbeat, "relay")
        assert beat is not None  # the relay that ran on connect left its heartbeat
