"""The real-provider path: litellm → an OpenAI-compatible server on 127.0.0.1 that misbehaves.

One worker serves the whole module; each test scripts its own replies by a marker in the event
text and asserts the exact number of requests the server saw (retries are bounded, never
multiplied by litellm's or the OpenAI SDK's own retries).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import DigestRun
from tests.conftest import LLM_ATTEMPTS as ATTEMPTS
from tests.conftest import WorkerProcess, lessons_for_event, wait_for_event
from tests.fake_llm import LESSON, FakeLLM

DONE = {"reflected", "skipped", "failed", "dead"}


@pytest.fixture(scope="module")
def queue() -> str:
    return f"digest-llm-{uuid.uuid4().hex[:8]}"


def _run(tenant: str, marker: str) -> int:
    return digest.record_run(
        tenant, "bot", task=f"book a table {marker}", outcome="failure",
        tool_calls=[{"tool": "reserve", "ok": False, "error": "party size is required"}],
    )  # fmt: skip


def _digest_run(event_id: int) -> DigestRun:
    with session_scope() as session:
        return session.scalars(select(DigestRun).where(DigestRun.event_id == event_id)).one()


@pytest.mark.parametrize(
    ("name", "steps", "requests"),
    [
        ("rate-limited-then-ok", [("status", 429), ("status", 429), ("reply", LESSON)], 3),
        ("unavailable-then-ok", [("status", 503), ("reply", LESSON)], 2),
        ("slow-then-ok", [("sleep", 3, LESSON), ("reply", LESSON)], 2),
        ("garbage-then-ok", [("reply", "I think it went fine?"), ("reply", LESSON)], 2),
        ("prose-wrapped", [("reply", f"Sure! Here it is:\n{LESSON}\nHope it helps.")], 1),
        ("fenced", [("reply", f"```xml\n{LESSON}\n```")], 1),
    ],
)  # fmt: skip
def test_transient_faults_are_retried_and_the_lesson_lands(
    llm_worker: WorkerProcess,
    fake_llm: FakeLLM,
    services_env: dict[str, str],
    tenant: str,
    name: str,
    steps: list[tuple[Any, ...]],
    requests: int,
) -> None:
    script = f"{name}-{tenant}"
    event_id = _run(tenant, fake_llm.script(script, *steps))
    row = wait_for_event(event_id, DONE, timeout=40)
    assert row["status"] == "reflected", (row, llm_worker.log()[-2000:])
    assert fake_llm.count(script) == requests
    lessons = lessons_for_event(event_id)
    assert [lesson.correction for lesson in lessons] == ["Check the scripted arguments first."]
    run = _digest_run(event_id)
    assert run.llm_calls == requests
    # Usage is summed over every call that answered (the fake reports 11 + 7 tokens each);
    # a timed-out or refused call reports none.
    answered = sum(1 for step in steps[:requests] if step[0] == "reply")
    assert (run.prompt_tokens, run.completion_tokens) == (11 * answered, 7 * answered)
    assert run.model == "openai/fake-model"


@pytest.mark.parametrize(
    ("name", "steps", "reason"),
    [
        ("always-429", [("status", 429)], "RateLimitError"),
        ("always-503", [("status", 503)], "ServiceUnavailable"),
        ("always-slow", [("sleep", 3, LESSON)], "Timeout"),
        ("always-garbage", [("reply", "no idea, sorry")], "no <skip> or <lesson>"),
    ],
)
def test_persistent_faults_put_the_event_back_waiting_after_bounded_retries(
    llm_worker: WorkerProcess,
    fake_llm: FakeLLM,
    services_env: dict[str, str],
    tenant: str,
    name: str,
    steps: list[tuple[Any, ...]],
    reason: str,
) -> None:
    """A fault that outlasts the in-task attempts does not end the event: it waits, with its
    reason and its next attempt, and the claim's attempt is given back."""
    script = f"{name}-{tenant}"
    before = datetime.now(UTC)
    event_id = _run(tenant, fake_llm.script(script, *steps))
    row = wait_for_event(event_id, DONE | {"waiting"}, timeout=40)
    assert row["status"] == "waiting", row
    assert reason.lower() in row["last_error"].lower(), row["last_error"]
    assert f"after {ATTEMPTS} model call(s)" in row["last_error"]
    assert fake_llm.count(script) == ATTEMPTS  # bounded: exactly our attempts, no SDK retries
    assert (row["attempts"], row["deferrals"]) == (0, 1)
    # the first delay: between half and all of DIGEST_LLM_DEFER_BASE_S (30 s)
    due = row["next_attempt_at"].replace(tzinfo=UTC) - before
    assert timedelta(seconds=14) < due < timedelta(seconds=40), due
    assert lessons_for_event(event_id) == []
    run = _digest_run(event_id)
    assert run.error.startswith("waiting: ") and run.llm_calls == ATTEMPTS


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("auth", 401, "refused the API key"),
        ("bad-request", 400, "rejected the request as malformed"),
        ("unknown-model", 404, "does not know this model"),
    ],
)
def test_authentication_and_bad_requests_fail_at_once_with_a_clear_reason(
    llm_worker: WorkerProcess,
    fake_llm: FakeLLM,
    services_env: dict[str, str],
    tenant: str,
    name: str,
    status: int,
    reason: str,
) -> None:
    script = f"{name}-{tenant}"
    event_id = _run(tenant, fake_llm.script(script, ("status", status)))
    row = wait_for_event(event_id, DONE | {"waiting"}, timeout=40)
    assert row["status"] == "failed", row
    assert reason in row["last_error"], row["last_error"]
    assert fake_llm.count(script) == 1  # no retry: it would fail the same way
    assert row["next_attempt_at"] is None


def test_a_long_retry_after_ends_the_attempts_and_sets_the_next_one(
    llm_worker: WorkerProcess, fake_llm: FakeLLM, services_env: dict[str, str], tenant: str
) -> None:
    """The provider asks for 5 minutes: no in-task wait that long, one call, and the event's
    next attempt is no sooner than the provider asked."""
    script = f"retry-after-{tenant}"
    before = datetime.now(UTC)
    event_id = _run(tenant, fake_llm.script(script, ("status", 429, None, "300")))
    row = wait_for_event(event_id, DONE | {"waiting"}, timeout=40)
    assert row["status"] == "waiting", row
    assert fake_llm.count(script) == 1
    assert row["next_attempt_at"].replace(tzinfo=UTC) >= before + timedelta(seconds=299)


def test_skip_from_a_real_model_is_recorded(
    llm_worker: WorkerProcess, fake_llm: FakeLLM, services_env: dict[str, str], tenant: str
) -> None:
    script = f"skip-{tenant}"
    event_id = _run(tenant, fake_llm.script(script, ("reply", "<skip>one-off typo</skip>")))
    row = wait_for_event(event_id, DONE, timeout=30)
    assert row["status"] == "skipped"
    assert row["skip_reason"] == "one-off typo"
    assert fake_llm.count(script) == 1
    assert lessons_for_event(event_id) == []
    # The model saw the event as JSON inside an <event> block.
    body = fake_llm.bodies[script][0]
    user = body["messages"][-1]["content"]
    assert "<event>" in user and '"kind": "run_outcome"' in user
