"""digest.aio: the asyncio API. Each function behaves like its sync twin (same rows, same
errors, same idempotency, same reads), publishes to the same queue, survives a dead broker or
database like the sync path, never blocks the event loop and never loads litellm.

Plain test functions drive the coroutines with ``asyncio.run`` (no pytest-asyncio here)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import subprocess
import sys
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import psycopg
import pytest
from sqlalchemy import select

import digest
import digest.aio
from digest.capture.store import remember_agent_ids
from digest.db import session_scope
from digest.errors import (
    CaptureUnavailable,
    DatabaseUnavailable,
    IdempotencyConflict,
    InvalidEvent,
)
from digest.models import Event, Lesson
from digest.versions.compose import compose_version
from tests.conftest import (
    ROOT,
    _reset_process_state,
    agent_id_of,
    end_server_connections,
    queued_tasks,
)

AGENT = "support-bot"
T = TypeVar("T")

#: columns that differ between two captures of the same input
_PER_CAPTURE = {"id", "idempotency_key", "created_at", "updated_at", "finished_at"}


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run one coroutine on a fresh loop and close that loop's connections after it."""

    async def main() -> T:
        try:
            return await coroutine
        finally:
            await digest.aio.aclose()

    return asyncio.run(main())


def event_row(event_id: int) -> dict[str, Any]:
    with session_scope() as session:
        row = session.execute(select(Event.__table__).where(Event.id == event_id)).one()
    return {k: v for k, v in row._asdict().items() if k not in _PER_CAPTURE}


LONG = "the refund tool timed out again. " * 4000  # trimmed by capture (issue 14)

#: (sync function, async twin, keyword arguments) for every kind an agent reports
CAPTURES: list[tuple[str, dict[str, Any]]] = [
    (
        "record_run",
        {
            "task": "refund order 1182",
            "outcome": "failure",
            "error": LONG,
            "tool_calls": ({"tool": "refund", "args": {"order": "1182"}, "ok": False},),
            "attempt_summary": "asked for the amount twice",
            "applied_lesson_ids": [3, 4],
            "thread_id": "th-1",
            "contact_id": "c-9",
        },
    ),
    ("record_edit", {"original": "We guarantee delivery.", "final": None, "context": "ship"}),
    ("record_answer", {"question": "Do we ship to Norway?", "answer": "Yes, 3-5 days."}),
]


@pytest.mark.parametrize(("name", "fields"), CAPTURES, ids=[name for name, _ in CAPTURES])
def test_each_capture_stores_the_row_its_sync_twin_stores(
    services_env: dict[str, str], tenant: str, name: str, fields: dict[str, Any]
) -> None:
    sync_id = getattr(digest, name)(tenant, AGENT, **fields)
    async_id = run(getattr(digest.aio, name)(tenant, AGENT, **fields))
    assert isinstance(async_id, int) and async_id != sync_id
    assert event_row(async_id) == event_row(sync_id)
    if name == "record_run":
        assert event_row(async_id)["payload"]["trimmed"] == ["error"]


def test_record_lesson_stores_it_at_once_and_a_repeat_supports_it(
    services_env: dict[str, str], tenant: str
) -> None:
    text = "refunds: confirm the amount before calling the refund tool"
    sync_id = digest.record_lesson(tenant, AGENT, text)
    async_id = run(
        digest.aio.record_lesson(
            tenant, AGENT, "Refunds:  confirm the amount before calling the refund tool."
        )
    )
    lesson_id = digest.lesson_for_event(tenant, AGENT, sync_id)
    assert lesson_id is not None
    assert digest.lesson_for_event(tenant, AGENT, async_id) == lesson_id
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None and lesson.support_count == 2
    other = run(digest.aio.record_lesson(tenant, "other-bot", text))
    assert event_row(other)["status"] == "reflected"


def test_the_signatures_are_the_sync_ones() -> None:
    for name in digest.aio.__all__:
        if name != "aclose":
            sync, aio = getattr(digest, name), getattr(digest.aio, name)
            assert inspect.iscoroutinefunction(aio), name
            assert inspect.signature(aio) == inspect.signature(sync), name


BAD_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("record_run", {"task": "t", "outcome": "maybe"}, "outcome"),
    (
        "record_run",
        {"task": "t", "outcome": "failure", "tool_calls": [{"tool": ""}]},
        "tool_calls.0.tool",
    ),
    ("record_run", {"task": "   ", "outcome": "failure"}, "task"),
    ("record_edit", {"original": "x\x00y", "final": "z"}, "original"),
    ("record_answer", {"question": 3, "answer": "a"}, "question"),
    ("record_answer", {"question": "q?", "answer": "a", "idempotency_key": ""}, "idempotency_key"),
    ("record_lesson", {"text": ""}, "text"),
]


@pytest.mark.parametrize(("name", "fields", "field"), BAD_INPUT)
def test_bad_input_names_the_field_the_sync_api_names(
    services_env: dict[str, str], tenant: str, name: str, fields: dict[str, Any], field: str
) -> None:
    args = (tenant, AGENT, fields.pop("text")) if "text" in fields else (tenant, AGENT)
    with pytest.raises(InvalidEvent) as sync_error:
        getattr(digest, name)(*args, **fields)
    with pytest.raises(InvalidEvent) as async_error:
        run(getattr(digest.aio, name)(*args, **fields))
    assert async_error.value.field == sync_error.value.field
    assert async_error.value.field.startswith(field.split(".")[0])
    assert str(async_error.value) == str(sync_error.value)


def test_a_bad_tenant_key_names_tenant(services_env: dict[str, str]) -> None:
    with pytest.raises(InvalidEvent) as error:
        run(digest.aio.record_answer("acme\u200b", AGENT, question="q?", answer="a"))
    assert error.value.field == "tenant"


def test_an_idempotency_key_is_one_event_across_both_apis(
    services_env: dict[str, str], tenant: str
) -> None:
    answer = {"question": "Open on Sunday?", "answer": "No.", "idempotency_key": "k-1"}

    async def twice() -> tuple[int, int]:
        return await digest.aio.record_answer(
            tenant, AGENT, **answer
        ), await digest.aio.record_answer(tenant, AGENT, **answer)

    first, second = run(twice())
    assert first == second == digest.record_answer(tenant, AGENT, **answer)
    with pytest.raises(IdempotencyConflict) as conflict:
        run(digest.aio.record_answer(tenant, AGENT, **{**answer, "answer": "Yes."}))
    assert conflict.value.event_id == first
    # keys are per agent
    assert run(digest.aio.record_answer(tenant, "other-bot", **answer)) != first


def test_concurrent_repeats_of_a_key_are_one_event(
    services_env: dict[str, str], tenant: str
) -> None:
    async def many() -> list[int]:
        return list(
            await asyncio.gather(
                *(
                    digest.aio.record_run(
                        tenant, AGENT, task="t", outcome="success", idempotency_key="same"
                    )
                    for _ in range(10)
                )
            )
        )

    assert len(set(run(many()))) == 1


def test_a_capture_is_published_to_the_queue(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    event_id = run(digest.aio.record_edit(tenant, AGENT, original="Hi", final="Hello"))
    assert queued_tasks(services_env["DIGEST_BROKER_URL"], own_queue) == [
        ("digest.reflect_batch", [event_id, agent_id_of(tenant, AGENT)])
    ]
    # coalesced like the sync path: the agent's message already waits
    run(digest.aio.record_edit(tenant, AGENT, original="Hi", final="Hey"))
    digest.record_edit(tenant, AGENT, original="Hi", final="Hey there")
    assert len(queued_tasks(services_env["DIGEST_BROKER_URL"], own_queue)) == 1


def test_with_the_broker_down_a_capture_is_stored_and_returns_fast(
    services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    monkeypatch.setenv("DIGEST_BROKER_URL", "redis://127.0.0.1:1/0")
    _reset_process_state()

    async def captures() -> list[float]:
        took = []
        for i in range(3):
            started = time.monotonic()
            await digest.aio.record_run(tenant, AGENT, task=f"task {i}", outcome="failure")
            took.append(time.monotonic() - started)
        return took

    took = run(captures())
    assert max(took) < 2.0
    with session_scope() as session:
        statuses = session.scalars(
            select(Event.status).where(Event.agent_id == agent_id_of(tenant, AGENT))
        ).all()
    assert statuses == ["pending"] * 3  # the relay publishes them later


def test_with_the_database_down_a_capture_raises_capture_unavailable(
    monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/nothing")
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    _reset_process_state()
    try:
        started = time.monotonic()
        with pytest.raises(CaptureUnavailable, match="was not stored"):
            run(digest.aio.record_answer(tenant, "bot", question="q?", answer="a"))
        assert time.monotonic() - started < 5
        with pytest.raises(DatabaseUnavailable):
            run(digest.aio.current_learning(tenant, "bot"))
        assert run(digest.aio.pitfalls(tenant, "bot", "refund the order")) == ""
    finally:
        _reset_process_state()


def test_a_pooled_connection_the_server_closed_is_tried_once_more(
    pg_admin: str, services_env: dict[str, str], tenant: str
) -> None:
    url = services_env["DIGEST_DATABASE_URL"]

    async def main() -> tuple[int, int, int]:
        first = await digest.aio.record_run(tenant, AGENT, task="refund 1", outcome="failure")
        # The server restarts between two captures on this loop: its pooled connection is dead.
        ended = await asyncio.to_thread(end_server_connections, pg_admin, url)
        second = await digest.aio.record_run(tenant, AGENT, task="refund 2", outcome="failure")
        return first, second, ended

    first, second, ended = run(main())
    assert ended >= 1 and second > first
    assert event_row(second)["payload"]["task"] == "refund 2"


def test_a_cached_agent_id_that_names_no_row_is_looked_up_again(
    services_env: dict[str, str], tenant: str
) -> None:
    run(digest.aio.record_run(tenant, AGENT, task="refund 1", outcome="failure"))
    url = services_env["DIGEST_DATABASE_URL"]
    # as if the agent was deleted and made again since this process cached its ids
    remember_agent_ids((url, tenant, AGENT), 2**62, 2**62)
    event_id = run(digest.aio.record_run(tenant, AGENT, task="refund 2", outcome="failure"))
    assert event_row(event_id)["agent_id"] == agent_id_of(tenant, AGENT)


def test_a_missing_schema_says_how_to_fix_it(
    pg_admin: str, services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    # the admin database has no digest tables
    monkeypatch.setenv("DIGEST_DATABASE_URL", pg_admin)
    _reset_process_state()
    with pytest.raises(CaptureUnavailable, match="digest db upgrade"):
        run(digest.aio.record_answer(tenant, "bot", question="q?", answer="a"))


def test_pitfalls_and_current_learning_read_what_the_sync_api_reads(
    services_env: dict[str, str], tenant: str
) -> None:
    digest.record_lesson(tenant, AGENT, "refunds: confirm the refund amount first")
    digest.record_lesson(tenant, AGENT, "shipping to Norway: quote the Oslo warehouse")
    prompt = "a customer wants a refund for order 1182"
    assert run(digest.aio.current_learning(tenant, AGENT)) is None
    sync_block = digest.pitfalls(tenant, AGENT, prompt)
    assert "confirm the refund amount" in sync_block
    assert run(digest.aio.pitfalls(tenant, AGENT, prompt)) == sync_block
    assert run(digest.aio.pitfalls(tenant, AGENT, prompt, 1, style="aip11")) == digest.pitfalls(
        tenant, AGENT, prompt, 1, style="aip11"
    )
    assert run(digest.aio.pitfalls(tenant, AGENT, prompt, style="nope")) == ""
    compose_version(agent_id_of(tenant, AGENT), "manual")
    version = run(digest.aio.current_learning(tenant, AGENT))
    assert version is not None and version == digest.current_learning(tenant, AGENT)
    assert run(digest.aio.current_learning(tenant, "nobody")) is None


def test_on_sqlite_captures_run_the_sync_path_in_a_thread(sqlite_env: str, tenant: str) -> None:
    async def both() -> tuple[int, int]:
        return (
            await digest.aio.record_answer(tenant, AGENT, question="q?", answer="a"),
            await digest.aio.record_answer(
                tenant, AGENT, question="q?", answer="a", idempotency_key="k"
            ),
        )

    first, second = run(both())
    assert event_row(first)["status"] == event_row(second)["status"] == "pending"
    assert (
        run(digest.aio.record_answer(tenant, AGENT, question="q?", answer="a", idempotency_key="k"))
        == second
    )


async def _ticker(stop: asyncio.Event, ticks: list[float]) -> None:
    while not stop.is_set():
        await asyncio.sleep(0.005)
        ticks.append(time.monotonic())


def _waiting_inserts(admin: psycopg.Connection[Any], database: str) -> int:
    """How many server processes of ``database`` wait on a lock in an INSERT into events."""
    found = admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'"
        " AND query ILIKE 'INSERT INTO events%%'",
        (database,),
    ).fetchone()
    return int(found[0]) if found else 0


def test_fifty_concurrent_captures_never_block_the_loop(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    """The database holds every capture's INSERT (another session locks the events table), so
    no capture can end: a loop blocked by one of them would stop ticking. It keeps ticking while
    all 50 are in flight and several INSERTs wait on the server at once; once the lock goes,
    all 50 end. No wall-clock bound, so a loaded machine cannot fail it: a blocked loop would
    tick no more until the holder's session times out (``idle_in_transaction_session_timeout``,
    which also keeps a broken build from hanging)."""
    url = services_env["DIGEST_DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")
    database = url.rsplit("/", 1)[1]
    in_flight, peak, ticks = 0, 0, []

    async def capture(i: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await digest.aio.record_run(
                tenant, f"bot-{i % 5}", task=f"task {i}", outcome="failure"
            )
        finally:
            in_flight -= 1

    async def until(check: Any, what: str) -> None:
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(check):
            assert time.monotonic() < deadline, f"{what}: not after 30 s"
            await asyncio.sleep(0.02)

    async def main(holder: psycopg.Connection[Any], admin: psycopg.Connection[Any]) -> list[int]:
        await digest.aio.record_run(tenant, "warm-up", task="t", outcome="success")  # first connect
        holder.execute("SET idle_in_transaction_session_timeout = '60s'")
        holder.execute("LOCK TABLE events IN SHARE MODE")  # INSERT waits for it
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(stop, ticks))
        batch = asyncio.gather(*(capture(i) for i in range(50)))
        await until(lambda: _waiting_inserts(admin, database) >= 2, "INSERTs waiting on the lock")
        mark = len(ticks)
        await until(lambda: len(ticks) >= mark + 5, "the loop ticking while INSERTs wait")
        assert in_flight == 50 and not batch.done()  # all started, none could end
        holder.rollback()  # the lock goes
        ids = await batch
        stop.set()
        await ticker
        return list(ids)

    with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as admin:
        ids = run(main(holder, admin))
    assert len(set(ids)) == 50
    assert peak == 50  # the captures interleave: they wait on sockets, not on each other


AIO_SCRIPT = """
import asyncio, json, sys
import digest.aio
after_import = sorted(m for m in sys.modules if m.startswith("digest.retrieve"))

async def main(tenant):
    await digest.aio.record_run(tenant, "bot", task="refund order 1", outcome="failure")
    await digest.aio.record_edit(tenant, "bot", original="We ship tomorrow.", final="In 3 days.")
    await digest.aio.record_answer(tenant, "bot", question="Open Sunday?", answer="No.")
    await digest.aio.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    await digest.aio.pitfalls(tenant, "bot", "refund this order")
    await digest.aio.current_learning(tenant, "bot")
    await digest.aio.aclose()

asyncio.run(main(sys.argv[1]))
print(json.dumps([after_import, sorted({m.split(".")[0] for m in sys.modules})]))
"""


def test_the_asyncio_api_never_loads_litellm_or_celery(
    services_env: dict[str, str], tenant: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(services_env)
    done = subprocess.run(
        [sys.executable, "-c", AIO_SCRIPT, tenant],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    after_import, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert after_import == []  # the read path is imported in a worker thread, on first use
    for heavy in ("litellm", "celery", "kombu", "openai"):
        assert heavy not in loaded, heavy
    assert "psycopg" in loaded and "redis" in loaded  # the calls really ran
    assert digest.lesson_for_event(tenant, "bot", _last_event(tenant)) is not None


def _last_event(tenant: str) -> int:
    with session_scope() as session:
        found = session.scalar(
            select(Event.id)
            .where(Event.agent_id == agent_id_of(tenant, "bot"))
            .order_by(Event.id.desc())
            .limit(1)
        )
    assert found is not None
    return int(found)
